# nmsetup on two nodes from one config file: the same /etc/netmirror.conf on
# a and b; "nmsetup up r0" on both gives a connected pair that does its full
# initial sync; "status r0 --json" is valid JSON that agrees with dmsetup
# status; "wait-sync r0" returns once in sync; data written on the primary
# is on the secondary; -n prints dmsetup commands and changes nothing;
# resync-rate/pause-sync/resume-sync reach the kernel; every option's
# canonical form is what the kernel reprints (an option newer than the
# module is refused); "down r0" removes it.
# vms: 2
# disks: none
# timeout: 300
# mem: 1024
load_netmirror
. /tests/nmlib.sh
command -v nmsetup >/dev/null || fail "nmsetup not built (make tools)"
command -v jsoncheck >/dev/null || fail "jsoncheck helper missing from the image"

CONF='# netmirror.conf for the nmsetup-2vm test (same file on both nodes)
resource r0 {
    protocol C;
    ordering flush;
    resync_rate 0;              # adaptive
    on a {
        device nm0;
        disk /dev/ram0;
        address 169.254.0.1:7789;
        role primary;
    }
    on b {
        device nm0;
        disk /dev/ram0;
        address 169.254.0.2:7789;
    }
}'
printf '%s\n' "$CONF" > /etc/netmirror.conf
on_peer "printf '%s\n' '$CONF' > /etc/netmirror.conf" || fail "peer: write config"
[ "$(on_peer "md5sum < /etc/netmirror.conf")" = "$(md5sum < /etc/netmirror.conf)" ] ||
	fail "config differs between the nodes"

brd_setup 64 2
on_peer ". /tests/lib.sh; load_netmirror; brd_setup 64 1" || fail "peer setup"
S=$(( $(dev_size /dev/ram0) / 512 ))
# different content on the two disks before the initial sync
pattern write /dev/ram0 11 64M --direct --quiet || fail "pattern on a"
on_peer "pattern write /dev/ram0 12 64M --direct --quiet" || fail "pattern on b"
SUM_A=$(dev_sum /dev/ram0)

# -n: the dmsetup command, nothing created
want="dmsetup create nm0 --uuid NETMIRROR-nm0 --table '0 $S netmirror /dev/ram0 169.254.0.2:7789 C flush 6 listen 169.254.0.1:7789 role primary resync_rate 0'"
got=$(nmsetup -n up r0) || fail "nmsetup -n up r0 failed"
check_eq dry-run/up "$got" "$want"
check_eq dry-run/down "$(nmsetup -n down r0)" "dmsetup remove --retry nm0"
check_fail dry-run/nothing-created dmsetup info nm0
check_match table/a "$(nmsetup table r0)" "^0 $S netmirror /dev/ram0 169.254.0.2:7789 C flush 6 listen"
check_eq table/b "$(on_peer "nmsetup table r0")" "0 $S netmirror /dev/ram0 169.254.0.1:7789 C flush 4 listen 169.254.0.2:7789 resync_rate 0"

# up on both
on_peer "nmsetup up r0" || fail "peer: nmsetup up r0"
nmsetup up r0 || fail "nmsetup up r0"
check_eq up/uuid "$(dmsetup info -c --noheadings -o uuid nm0)" NETMIRROR-nm0
check_match up/live-table "$(dmsetup table nm0)" " netmirror 1:0 169.254.0.2:7789 C flush 6 listen 169.254.0.1:7789 role primary resync_rate 0\$"
check_fail up/second-up-refused nmsetup up r0
check_match up/second-up-message "$(cat /tmp/nm_check_out)" "already exists"
check up/adjust-up-to-date nmsetup adjust r0

# wait-sync: plain lines with rate and ETA (not a terminal), exit 0 in sync
t0=$(cut -d. -f1 /proc/uptime)
nmsetup wait-sync r0 --timeout 120 > /tmp/ws || fail "wait-sync: rc $?, $(cat /tmp/ws), $(dmsetup status nm0)"
t1=$(cut -d. -f1 /proc/uptime)
cat /tmp/ws
check_match wait-sync/last-line "$(tail -n 1 /tmp/ws)" "^nm0: connected 100.0% "
check wait-sync/rate grep -q " rate [0-9]* KiB/s" /tmp/ws
check wait-sync/in-sync nm_wait_synced nm0 1
log "initial full sync of 64 MiB took ~$((t1 - t0)) s by wait-sync"
on_peer "nmsetup wait-sync r0 --timeout 60" >/dev/null || fail "peer wait-sync"

# status --json: valid JSON, agrees with dmsetup status (word by word)
st0=$(dmsetup status nm0)
nmsetup status r0 --json > /tmp/js || fail "status --json"
check json/valid jsoncheck < /tmp/js
st=$(dmsetup status nm0)
check_eq json/name "$(jsoncheck name < /tmp/js)" nm0
# every status field of nm_params.h (disks and regions split, as in --json)
for k in $(sed -n 's/^NM_SF_\([a-z_]*\)=.*/\1/p' /tests/nm-status-fields.sh); do
	case $k in
	disks) ks="disk peer_disk" ;;
	regions) ks="in_sync_regions total_regions" ;;
	*) ks=$k ;;
	esac
	for kk in $ks; do
		case $kk in
		bytes_sent|bytes_received)	# pings go on: between the two snapshots
			v=$(jsoncheck $kk < /tmp/js)
			lo=$(echo "$st0" | nm_status_pick $kk)
			hi=$(echo "$st" | nm_status_pick $kk)
			if [ "$v" -ge "$lo" ] && [ "$v" -le "$hi" ]; then
				check_ok "json/$kk"
			else
				check_bad "json/$kk" "got $v, want $lo..$hi"
			fi ;;
		*) check_eq "json/$kk" "$(jsoncheck $kk < /tmp/js)" "$(echo "$st" | nm_status_pick $kk)" ;;
		esac
	done
done
check_eq json/sync_percent "$(jsoncheck sync_percent < /tmp/js)" 100.00
# the 1.2 counters: the initial sync copied the whole device
check json/resync-bytes-whole-device [ "$(echo "$st" | nm_status_pick resync_bytes)" -ge $((S * 512)) ]
on_peer "nmsetup status r0 --json" > /tmp/jsb || fail "peer status --json"
check json/peer-valid jsoncheck < /tmp/jsb
check_eq json/peer-values "$(jsoncheck role connection disk < /tmp/jsb | tr '\n' ' ')" "secondary connected uptodate "
# all devices: a JSON array
nmsetup status --json > /tmp/jsall || fail "status --json (all)"
check json/all-valid jsoncheck < /tmp/jsall
check json/all-array grep -q '^\[{"name":"nm0",' /tmp/jsall
check_match status-text "$(nmsetup status nm0)" "^nm0: role primary, connection connected"

# the initial sync made b's disk a copy of a's
check_eq initial-sync-identical "$(on_peer '. /tests/lib.sh; dev_sum /dev/ram0')" "$SUM_A"

# data written on the primary is on the secondary
pattern write /dev/mapper/nm0 21 16M --offset 8M --direct --quiet || fail "write on the primary"
check_wait replicate/settled 30 "[ \$(nm_status nm0 pending) = 0 ]"
mine=$(dev_sum /dev/ram0)
check replicate/disk-changed [ "$mine" != "$SUM_A" ]
check_wait replicate/identical 30 "[ \"\$(on_peer '. /tests/lib.sh; dev_sum /dev/ram0')\" = $mine ]"
check replicate/secondary-data on_peer "pattern verify /dev/ram0 21 16M --offset 8M --direct --quiet"

# messages through nmsetup reach the kernel (accepted; the device stays sane)
check message/resync-rate nmsetup resync-rate nm0 4096
check message/pause-sync nmsetup pause-sync nm0
check message/resume-sync nmsetup resume-sync nm0
check_fail message/bad-refused nmsetup message nm0 frobnicate
check message/in-sync-after nm_wait_synced nm0 10

# every option nmsetup knows, on a spare ramdisk: the kernel takes the
# table and reprints exactly libdmnet's canonical form (devices as
# major:minor); an option newer than the loaded module is refused (exit 6)
# before anything is changed
minor=$(dmsetup targets | awk '$1 == "netmirror" { split(substr($2, 2), v, "."); print v[2] }')
opts="--listen 127.0.0.1:7792 --role primary --region-size 256 --sync none --resync-rate 0"
[ "$minor" -ge 3 ] && opts="$opts -o timeout=10000 -o ping=1000 -o integrity=crc32c"
if [ "$minor" -ge 4 ]; then
	opts="$opts -o on_io_error=pass_on"
else
	nmsetup create nmx /dev/ram1 127.0.0.1:7791 -o on_io_error=detach 2>/tmp/err; rc=$?
	[ $rc = 6 ] || fail "on_io_error on a 1.$minor module: rc $rc, $(cat /tmp/err)"
	grep -q "option \"on_io_error\" needs netmirror 1.4, loaded module is 1.$minor" /tmp/err ||
		fail "on_io_error refusal: $(cat /tmp/err)"
	dmsetup info nmx >/dev/null 2>&1 && fail "nmx was created"
fi
# shellcheck disable=SC2086
want=$(nmsetup table nmx /dev/ram1 127.0.0.1:7791 $opts | sed 's|/dev/ram1|1:1|') || fail "table nmx"
# shellcheck disable=SC2086
nmsetup create nmx /dev/ram1 127.0.0.1:7791 $opts || fail "create nmx ($want)"
check_eq all-options/kernel-reprint-equals-libdmnet "$(dmsetup table nmx)" "$want"
check_eq all-options/uuid "$(dmsetup info -c --noheadings -o uuid nmx)" NETMIRROR-nmx
log "1.$minor options: $want"
nmsetup remove nmx || fail "remove nmx"

# down on both: gone; down again is fine
nmsetup down r0 || fail "down"
on_peer "nmsetup down r0" || fail "peer down"
check_fail down/gone dmsetup info nm0
check_fail down/peer-gone on_peer "dmsetup info nm0"
check down/again nmsetup down r0
nmsetup status nm0 2>/dev/null; rc=$?
check_eq down/status-rc "$rc" 5
log "nmsetup up/status --json/wait-sync/down on two nodes ok"
exit 0
