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
[ "$got" = "$want" ] || fail "-n up: got [$got] want [$want]"
[ "$(nmsetup -n down r0)" = "dmsetup remove --retry nm0" ] || fail "-n down: $(nmsetup -n down r0)"
dmsetup info nm0 >/dev/null 2>&1 && fail "-n up created nm0"
nmsetup table r0 | grep -q "^0 $S netmirror /dev/ram0 169.254.0.2:7789 C flush 6 listen" || fail "table r0: $(nmsetup table r0)"
on_peer "nmsetup table r0" | grep -q "^0 $S netmirror /dev/ram0 169.254.0.1:7789 C flush 4 listen 169.254.0.2:7789 resync_rate 0\$" ||
	fail "peer table r0: $(on_peer 'nmsetup table r0')"

# up on both
on_peer "nmsetup up r0" || fail "peer: nmsetup up r0"
nmsetup up r0 || fail "nmsetup up r0"
[ "$(dmsetup info -c --noheadings -o uuid nm0)" = NETMIRROR-nm0 ] || fail "uuid: $(dmsetup info -c --noheadings -o uuid nm0)"
dmsetup table nm0 | grep -q " netmirror 1:0 169.254.0.2:7789 C flush 6 listen 169.254.0.1:7789 role primary resync_rate 0\$" ||
	fail "live table: $(dmsetup table nm0)"
nmsetup up r0 2>/tmp/err && fail "second up succeeded"
grep -q "already exists" /tmp/err || fail "second up: $(cat /tmp/err)"
nmsetup adjust r0 || fail "adjust on an up-to-date device: $(cat /tmp/err)"

# wait-sync: plain lines with rate and ETA (not a terminal), exit 0 in sync
t0=$(cut -d. -f1 /proc/uptime)
nmsetup wait-sync r0 --timeout 120 > /tmp/ws || fail "wait-sync: rc $?, $(cat /tmp/ws), $(dmsetup status nm0)"
t1=$(cut -d. -f1 /proc/uptime)
cat /tmp/ws
tail -n 1 /tmp/ws | grep -q "^nm0: connected 100.0% " || fail "wait-sync last line: $(tail -n 1 /tmp/ws)"
grep -q " rate [0-9]* KiB/s" /tmp/ws || fail "wait-sync shows no rate: $(cat /tmp/ws)"
nm_wait_synced nm0 1 || fail "wait-sync returned but not in sync: $(dmsetup status nm0)"
log "initial full sync of 64 MiB took ~$((t1 - t0)) s by wait-sync"
on_peer "nmsetup wait-sync r0 --timeout 60" >/dev/null || fail "peer wait-sync"

# status --json: valid JSON, agrees with dmsetup status (word by word)
nmsetup status r0 --json > /tmp/js || fail "status --json"
jsoncheck < /tmp/js || fail "status --json is not JSON: $(cat /tmp/js)"
st=$(dmsetup status nm0)
set -- $st
shift 3		# start len netmirror
keys="name role connection disk peer_disk in_sync_regions total_regions writes_sent writes_received pending bytes_sent bytes_received writes_rejected last_error resync_kibs eta_seconds resync_bytes"
# shellcheck disable=SC2086
vals=$(jsoncheck $keys < /tmp/js | tr '\n' ' ') || fail "json keys missing: $(cat /tmp/js)"
want="nm0 $1 $2 ${3%/*} ${3#*/} ${4%/*} ${4#*/} $5 $6 $7 $8 $9 ${10} ${11} ${12} ${13} ${14} "
[ "$vals" = "$want" ] || fail "json [$vals] != dmsetup status [$want] ($st)"
[ "$(jsoncheck sync_percent < /tmp/js)" = 100.00 ] || fail "sync_percent: $(cat /tmp/js)"
# the 1.2 counters: the initial sync copied the whole device
[ "${14}" -ge $((S * 512)) ] || fail "resync_bytes ${14} < device size: $st"
on_peer "nmsetup status r0 --json" > /tmp/jsb || fail "peer status --json"
jsoncheck < /tmp/jsb || fail "peer json: $(cat /tmp/jsb)"
[ "$(jsoncheck role connection disk < /tmp/jsb | tr '\n' ' ')" = "secondary connected uptodate " ] ||
	fail "peer json: $(cat /tmp/jsb)"
# all devices: a JSON array
nmsetup status --json > /tmp/jsall || fail "status --json (all)"
jsoncheck < /tmp/jsall || fail "status --json (all): $(cat /tmp/jsall)"
grep -q '^\[{"name":"nm0",' /tmp/jsall || fail "status --json (all): $(cat /tmp/jsall)"
nmsetup status nm0 | grep -q "^nm0: role primary, connection connected" || fail "status text: $(nmsetup status nm0)"

# the initial sync made b's disk a copy of a's
[ "$(on_peer '. /tests/lib.sh; dev_sum /dev/ram0')" = "$SUM_A" ] || fail "initial sync: disks differ"

# data written on the primary is on the secondary
pattern write /dev/mapper/nm0 21 16M --offset 8M --direct --quiet || fail "write on the primary"
wait_eval "[ \$(nm_field nm0 7) = 0 ]" 30 || fail "writes pending: $(dmsetup status nm0)"
mine=$(dev_sum /dev/ram0)
[ "$mine" != "$SUM_A" ] || fail "write did not change the disk"
wait_eval "[ \"\$(on_peer '. /tests/lib.sh; dev_sum /dev/ram0')\" = $mine ]" 30 ||
	fail "secondary differs: $mine vs $(on_peer '. /tests/lib.sh; dev_sum /dev/ram0')"
on_peer "pattern verify /dev/ram0 21 16M --offset 8M --direct --quiet" || fail "secondary's data wrong"

# messages through nmsetup reach the kernel (accepted; the device stays sane)
nmsetup resync-rate nm0 4096 || fail "resync-rate"
nmsetup pause-sync nm0 || fail "pause-sync"
nmsetup resume-sync nm0 || fail "resume-sync"
nmsetup message nm0 frobnicate 2>/tmp/err && fail "bad message accepted"
nm_wait_synced nm0 10 || fail "not in sync after messages: $(dmsetup status nm0)"

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
[ "$(dmsetup table nmx)" = "$want" ] || fail "nmx: kernel reprints [$(dmsetup table nmx)], libdmnet [$want]"
[ "$(dmsetup info -c --noheadings -o uuid nmx)" = NETMIRROR-nmx ] || fail "nmx uuid"
log "1.$minor options: $want"
nmsetup remove nmx || fail "remove nmx"

# down on both: gone; down again is fine
nmsetup down r0 || fail "down"
on_peer "nmsetup down r0" || fail "peer down"
dmsetup info nm0 >/dev/null 2>&1 && fail "nm0 still there after down"
on_peer "dmsetup info nm0" >/dev/null 2>&1 && fail "peer nm0 still there after down"
nmsetup down r0 || fail "second down"
nmsetup status nm0 2>/dev/null; rc=$?
[ $rc = 5 ] || fail "status of a removed device: rc $rc (want 5)"
log "nmsetup up/status --json/wait-sync/down on two nodes ok"
exit 0
