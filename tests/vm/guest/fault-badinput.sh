# Bad input from the administrator (extends nm-tables.sh, no line repeated):
# malformed table lines (combinations, whitespace splitting an address,
# huge numbers, IPv6 oddities, option values at and past their limits,
# hex/float/suffixed numbers, case, duplicates under another case, bad
# devices) each fail "dmsetup create" with their own kernel message and
# leave no device; malformed messages (unknown words, missing/extra words,
# resync_rate with bad numbers) and refused role changes sent to a device in
# each state (connecting, standalone, connected primary and secondary,
# sync_source/sync_target held by pause_resync, suspended) fail, log a
# line, and leave table, role and connection unchanged.  Then table reloads
# (suspend, load, resume): resync_rate and role changed live, a bad line
# refused with the old table still running, region_size changed against the
# peer refused at the handshake, an inconsistent metadata device refused as
# primary; data intact throughout.  No kernel warning (checked by the
# testbed).
# vms: 1
# disks: none
# timeout: 600
load_netmirror
brd_setup 16 5
. /tests/nmlib.sh
S=32768
D=$(cat /sys/block/ram0/dev)
dmsetup create nmtiny --table "0 8 linear /dev/ram1 0" || fail "create nmtiny"
ntab=0 nmsg=0

# the 1.3 options (timeout, ping, on_io_error, integrity, secret) if the
# module has them
v13=0
if dmsetup create nmprobe --table "0 $S netmirror /dev/ram0 127.0.0.1:7789 C flush 2 timeout 6000" 2>/dev/null; then
	v13=1
	dmsetup remove nmprobe
fi

cat > /tmp/bad <<BAD
127.0.0.1:7789 C flush|Not enough arguments
/dev/ram0 C flush 127.0.0.1:7789|Invalid peer address
C flush /dev/ram0 127.0.0.1:7789|Cannot open local device
/dev/ram0 127.0.0.1 :7789 C flush|Invalid peer address
/dev/ram0 127.0.0.1: 7789 C flush|Invalid peer address
/dev/ram0 127.0.0.1:07789 C flush|Invalid peer address
/dev/ram0 127.0.0.1:+7789 C flush|Invalid peer address
/dev/ram0 127.0.0.1:-1 C flush|Invalid peer address
/dev/ram0 127.0.0.1:123456 C flush|Invalid peer address
/dev/ram0 127.0.0.1:4294967297 C flush|Invalid peer address
/dev/ram0 127.0.0.1:7789:1 C flush|Invalid peer address
/dev/ram0 127.0.0.1::7789 C flush|Invalid peer address
/dev/ram0 :7789 C flush|Invalid peer address
/dev/ram0 127.1:7789 C flush|Invalid peer address
/dev/ram0 127.0.0.1.5:7789 C flush|Invalid peer address
/dev/ram0 127.0.0.1:0x1e6d C flush|Invalid peer address
/dev/ram0 [::1]7789 C flush|Invalid peer address
/dev/ram0 [::1]: C flush|Invalid peer address
/dev/ram0 [::1]:0 C flush|Invalid peer address
/dev/ram0 [::1]:65536 C flush|Invalid peer address
/dev/ram0 [::1]:7789x C flush|Invalid peer address
/dev/ram0 ::1:7789 C flush|Invalid peer address
/dev/ram0 []:7789 C flush|Invalid peer address
/dev/ram0 [[::1]]:7789 C flush|Invalid peer address
/dev/ram0 [1::2::3]:7789 C flush|Invalid peer address
/dev/ram0 [1:2:3:4:5:6:7:8:9]:7789 C flush|Invalid peer address
/dev/ram0 [::ffff:1.2.3]:7789 C flush|Invalid peer address
/dev/ram0 [12345::1]:7789 C flush|Invalid peer address
/dev/ram0 [::1]:7789] C flush|Invalid peer address
/dev/ram0 ::1]:7789 C flush|Invalid peer address
/dev/ram0 [::1]:7789 C flush 2 listen 127.0.0.1:7790|Listen and peer addresses must be of one family
/dev/ram0 127.0.0.1:7789 C flush 2 listen 127.0.0.1:0|Invalid listen address
/dev/ram0 127.0.0.1:7789 C flush 2 listen 127.0.0.1:65536|Invalid listen address
/dev/ram0 127.0.0.1:7789 C flush 2 listen [::1]|Invalid listen address
/dev/ram0 127.0.0.1:7789 C flush 2 listen localhost:7790|Invalid listen address
/dev/ram0 127.0.0.1:7789 C Flush|Invalid ordering
/dev/ram0 127.0.0.1:7789 C flush,drain|Invalid ordering
/dev/ram0 127.0.0.1:7789 C 0|Invalid ordering
/dev/ram0 127.0.0.1:7789 CC flush|Invalid protocol
/dev/ram0 127.0.0.1:7789 2 flush|Invalid protocol
/dev/ram0 127.0.0.1:7789 flush C|Invalid protocol
/dev/ram0 127.0.0.1:7789 C flush 2 role Primary|Invalid role
/dev/ram0 127.0.0.1:7789 C flush 2 role PRIMARY|Invalid role
/dev/ram0 127.0.0.1:7789 C flush 2 role 1|Invalid role
/dev/ram0 127.0.0.1:7789 C flush 2 role primary,secondary|Invalid role
/dev/ram0 127.0.0.1:7789 C flush 2 role primary listen|Optional argument count does not match
/dev/ram0 127.0.0.1:7789 C flush 0 role primary|Optional argument count does not match
/dev/ram0 127.0.0.1:7789 C flush 4 role primary|Invalid number of optional arguments
/dev/ram0 127.0.0.1:7789 C flush 23 role primary|Invalid number of optional arguments
/dev/ram0 127.0.0.1:7789 C flush 0x2 role primary|Invalid number of optional arguments
/dev/ram0 127.0.0.1:7789 C flush 2.0 role primary|Invalid number of optional arguments
/dev/ram0 127.0.0.1:7789 C flush 99999999999 role primary|Invalid number of optional arguments
/dev/ram0 127.0.0.1:7789 C flush 2 primary role|Unknown optional argument
/dev/ram0 127.0.0.1:7789 C flush 2 --role primary|Unknown optional argument
/dev/ram0 127.0.0.1:7789 C flush 2 role= primary|Unknown optional argument
/dev/ram0 127.0.0.1:7789 C flush 4 region_size 8 REGION_SIZE 16|Duplicate optional argument: region_size
/dev/ram0 127.0.0.1:7789 C flush 4 resync_rate 1 Resync_Rate 2|Duplicate optional argument: resync_rate
/dev/ram0 127.0.0.1:7789 C flush 4 meta /dev/ram2 meta /dev/ram3|Duplicate optional argument: meta
/dev/ram0 127.0.0.1:7789 C flush 4 ROLE primary role primary|Duplicate optional argument: role
/dev/ram0 127.0.0.1:7789 C flush 2 region_size 0|Invalid region_size
/dev/ram0 127.0.0.1:7789 C flush 2 region_size 2049|Invalid region_size
/dev/ram0 127.0.0.1:7789 C flush 2 region_size 1023|Invalid region_size
/dev/ram0 127.0.0.1:7789 C flush 2 region_size 8192|Invalid region_size
/dev/ram0 127.0.0.1:7789 C flush 2 region_size 0x400|Invalid region_size
/dev/ram0 127.0.0.1:7789 C flush 2 region_size 1024.0|Invalid region_size
/dev/ram0 127.0.0.1:7789 C flush 2 region_size 1k|Invalid region_size
/dev/ram0 127.0.0.1:7789 C flush 2 region_size -1024|Invalid region_size
/dev/ram0 127.0.0.1:7789 C flush 2 sync FULL|Invalid sync
/dev/ram0 127.0.0.1:7789 C flush 2 sync yes|Invalid sync
/dev/ram0 127.0.0.1:7789 C flush 2 sync 1|Invalid sync
/dev/ram0 127.0.0.1:7789 C flush 2 resync_rate 10k|Invalid resync_rate
/dev/ram0 127.0.0.1:7789 C flush 2 resync_rate 0x10|Invalid resync_rate
/dev/ram0 127.0.0.1:7789 C flush 2 resync_rate 1.5|Invalid resync_rate
/dev/ram0 127.0.0.1:7789 C flush 2 resync_rate 1e6|Invalid resync_rate
/dev/ram0 127.0.0.1:7789 C flush 2 resync_rate unlimited|Invalid resync_rate
/dev/nonexistent 127.0.0.1:7789 C flush 2 role primary|Cannot open local device
/dev/null 127.0.0.1:7789 C flush|Cannot open local device
/dev 127.0.0.1:7789 C flush|Cannot open local device
253:250 127.0.0.1:7789 C flush|Cannot open local device
/dev/ram0x 127.0.0.1:7789 C flush|Cannot open local device
/dev/mapper/nmtiny 127.0.0.1:7789 C flush|Local device is smaller than the target
/dev/ram0 127.0.0.1:7789 C flush 2 meta /dev/null|Cannot open metadata device
/dev/ram0 127.0.0.1:7789 C flush 2 meta 253:250|Cannot open metadata device
/dev/ram0 127.0.0.1:7789 C flush 4 meta /dev/mapper/nmtiny role primary|Metadata device too small
/dev/ram0 [::1]:7789 D flush 2 role master|Invalid protocol
/dev/ram0 [::1]:7789 C none 4 role primary sync maybe|Invalid sync
BAD
if [ $v13 = 1 ]; then
	cat >> /tmp/bad <<BAD
/dev/ram0 127.0.0.1:7789 C flush 2 timeout 499|Invalid timeout
/dev/ram0 127.0.0.1:7789 C flush 2 timeout 600001|Invalid timeout
/dev/ram0 127.0.0.1:7789 C flush 2 timeout 0|Invalid timeout
/dev/ram0 127.0.0.1:7789 C flush 2 timeout 6s|Invalid timeout
/dev/ram0 127.0.0.1:7789 C flush 2 ping 99|Invalid ping
/dev/ram0 127.0.0.1:7789 C flush 2 ping 60001|Invalid ping
/dev/ram0 127.0.0.1:7789 C flush 2 ping -100|Invalid ping
/dev/ram0 127.0.0.1:7789 C flush 4 timeout 1000 ping 1000|ping must be shorter than timeout
/dev/ram0 127.0.0.1:7789 C flush 2 ping 7000|ping must be shorter than timeout
/dev/ram0 127.0.0.1:7789 C flush 4 timeout 1000 TIMEOUT 2000|Duplicate optional argument: timeout
/dev/ram0 127.0.0.1:7789 C flush 2 on_io_error DETACH|Invalid on_io_error
/dev/ram0 127.0.0.1:7789 C flush 2 on_io_error panic|Invalid on_io_error
/dev/ram0 127.0.0.1:7789 C flush 2 integrity CRC32C|Invalid integrity
/dev/ram0 127.0.0.1:7789 C flush 2 integrity md5|Invalid integrity
/dev/ram0 127.0.0.1:7789 C flush 2 secret nm:no-such-key|Secret: no logon key
/dev/ram0 127.0.0.1:7789 C flush 2 secret nm:%x|Invalid secret key description
BAD
fi
. /tests/tables.sh
nm_refuse_tables bad-table "$S" < /tmp/bad
ntab=$NM_TBL_N
log "$ntab invalid tables tried, $NM_TBL_BAD not refused with their message (1.3 options: $v13)"

# kernel bugs found are collected and reported together at the end
: > /tmp/findings
finding() { log "FINDING: $*"; echo "$*" >> /tmp/findings; }

# the metadata device is not the data device
$DD if=/dev/urandom of=/dev/ram0 bs=64k count=1 oflag=direct status=none
h0=$($DD if=/dev/ram0 bs=64k count=1 iflag=direct status=none | $MD5SUM)
echo "NMLOG-MARK same" > /dev/kmsg
ntab=$((ntab + 1))
if dmsetup create nmbad --table "0 $S netmirror /dev/ram0 127.0.0.1:7789 C flush 2 meta /dev/ram0" >/tmp/out 2>&1; then
	dmsetup remove nmbad
	if [ "$($DD if=/dev/ram0 bs=64k count=1 iflag=direct status=none | $MD5SUM)" = "$h0" ]; then
		finding "table with meta = the local device accepted"
	else
		finding "table with meta = the local device accepted, and the metadata overwrote the start of the device's data"
	fi
fi

# ---- messages: bad ones in every state ----
cat > /tmp/msgs <<'MSG'
foo|unknown message
Primary2|unknown message
status|unknown message
resync_rate|unknown message
primary now|wrong number of words
secondary please|wrong number of words
connect 127.0.0.1:7789|wrong number of words
disconnect now|wrong number of words
role primary|wrong number of words
resync_rate fast|resync_rate wants
resync_rate 1-1|resync_rate wants
resync_rate 1.5|resync_rate wants
resync_rate 10k|resync_rate wants
resync_rate 0x10|resync_rate wants
resync_rate 1 2|wrong number of words
pause_resync now|wrong number of words
resume_resync 1|wrong number of words
MSG
cp /tmp/msgs /tmp/msgs.
grep -E '^(foo|primary now|resync_rate|resync_rate fast|resync_rate 1 2|disconnect now)\|' /tmp/msgs > /tmp/msgs.short
state_of() { echo "$(dmsetup table "$1")|$(nm_status "$1" role)|$(nm_status "$1" connection)|$(dmsetup info -c --noheadings -o attr "$1")"; }
msg_bad() { # msg_bad DEV WORDS WANT
	local before after got
	before=$(state_of "$1")
	nmsg=$((nmsg + 1))
	echo "NMLOG-MARK m$nmsg" > /dev/kmsg
	# shellcheck disable=SC2086
	dmsetup message "$1" 0 $2 >/tmp/out 2>&1 && fail "message '$2' to $1 ($before) succeeded"
	got=$(dmesg | sed -n "/NMLOG-MARK m$nmsg\$/,\$p" | grep 'netmirror' | tail -1)
	case $got in
	*"$3"*) ;;
	*) fail "message '$2' to $1: want '$3' in the kernel log, got '$got'" ;;
	esac
	after=$(state_of "$1")
	[ "$before" = "$after" ] || fail "message '$2' changed $1: '$before' -> '$after'"
}
# the whole list in some states, its first 6 lines in the others (time)
msgs_all() { # msgs_all DEV STATE [N]
	local w want k=0
	while IFS='|' read -r w want; do
		msg_bad "$1" "$w" "$want"
		k=$((k + 1))
	done < /tmp/msgs.$3
	log "$1 ($2): $k bad messages refused, device unchanged"
}

# connecting (no peer), then standalone
dmsetup create nmx --table "0 $S netmirror /dev/ram3 127.0.0.1:7799 C flush 4 listen 127.0.0.1:7798 role primary" || fail "create nmx"
nm_wait_conn nmx connecting 10 || fail "nmx not connecting"
msgs_all nmx connecting
dmsetup message nmx 0 disconnect || fail "disconnect nmx"
nm_wait_conn nmx standalone 10 || fail "nmx not standalone"
msgs_all nmx standalone short
dmsetup remove nmx || fail "remove nmx"
# an inconsistent standalone secondary (sync full, no history) cannot be primary
dmsetup create nmx --table "0 $S netmirror /dev/ram3 127.0.0.1:7799 C flush 2 listen 127.0.0.1:7798" || fail "create nmx secondary"
[ "$(nm_status nmx disk)" = inconsistent ] || fail "fresh secondary not inconsistent: $(dmsetup status nmx)"
msg_bad nmx primary "local disk is not usable"
dmsetup remove nmx || fail "remove nmx"

# connected pair
nm_local_pair C flush
pattern write /dev/mapper/nma 1 4M --size 16M --direct --quiet || fail "write 1"
msgs_all nma connected-primary
msgs_all nmb connected-secondary short
msg_bad nmb primary "the peer is primary"

# resync held by pause_resync: sync_source / sync_target
dmsetup message nmb 0 disconnect || fail "disconnect nmb"
nm_wait_conn nma connecting 10 || fail "nma not connecting"
pattern write /dev/mapper/nma 2 4M --size 16M --direct --quiet || fail "write 2"
dmsetup message nma 0 pause_resync || fail "pause_resync"
dmsetup message nmb 0 connect || fail "connect nmb"
nm_wait_conn nma sync_source 20 || fail "nma not sync_source: $(dmsetup status nma)"
nm_wait_conn nmb sync_target 20 || fail "nmb not sync_target: $(dmsetup status nmb)"
msgs_all nma sync_source
msgs_all nmb sync_target short
msg_bad nma secondary "refusing to become secondary during a resync"
msg_bad nmb primary "refusing to become primary"
dmsetup message nma 0 resume_resync || fail "resume_resync"
nm_wait_synced nma 60 || fail "resync did not finish: $(dmsetup status nma)"
nm_wait_synced nmb 20 || fail "nmb: $(dmsetup status nmb)"

# suspended
dmsetup suspend nma || fail "suspend nma"
msgs_all nma suspended short
dmsetup resume nma || fail "resume nma"
nm_wait_synced nma 30 || fail "after resume: $(dmsetup status nma)"
log "$nmsg bad messages refused in 7 states"

# numbers that overflow 32 bits must be refused, not wrapped (2^32 -> 0,
# 2^32 + 8 -> 8, 2^32 + 500 -> 500); checked last, all reported together
over=""
nmsg=$((nmsg + 1))
dmsetup message nma 0 resync_rate 4294967296 2>/dev/null && over="$over; message 'resync_rate 4294967296' accepted"
ovl="resync_rate 4294967296|region_size 4294967304|resync_rate 4294967297"
[ $v13 = 1 ] && ovl="$ovl|timeout 4294967796|ping 4294967396"
IFS='|'
for o in $ovl; do
	IFS=' '
	ntab=$((ntab + 1))
	# shellcheck disable=SC2086
	if dmsetup create nmbad --table "0 $S netmirror /dev/ram0 127.0.0.1:7789 C flush 2 $o" 2>/dev/null; then
		over="$over; table '2 $o' accepted as '$(dmsetup table nmbad | sed 's/.* flush //')'"
		dmsetup remove nmbad
	fi
	IFS='|'
done
IFS=' '
[ -z "$over" ] || finding "32-bit overflow not refused${over}"

sums_equal() {
	[ "$(dev_sum /dev/ram0)" = "$(dev_sum /dev/ram1)" ] || fail "$1: ram0 and ram1 differ"
}
sums_equal "after the message tests"

# ---- reloads ----
A=$(cat /sys/block/ram0/dev) B=$(cat /sys/block/ram1/dev)
reload() { # reload DEV TABLE
	dmsetup suspend "$1" || fail "suspend $1"
	dmsetup load "$1" --table "$2" || { dmsetup resume "$1"; fail "load $1: $2"; }
	dmsetup resume "$1" || fail "resume $1"
}
# 1. resync_rate changed live
reload nma "0 $S netmirror /dev/ram0 127.0.0.1:7790 C flush 6 listen 127.0.0.1:7789 role primary resync_rate 5000"
[ "$(dmsetup table nma)" = "0 $S netmirror $A 127.0.0.1:7790 C flush 6 listen 127.0.0.1:7789 role primary resync_rate 5000" ] ||
	fail "reloaded table: $(dmsetup table nma)"
nm_wait_synced nma 30 || fail "no reconnect after reload: $(dmsetup status nma)"
pattern write /dev/mapper/nma 3 4M --size 16M --direct --quiet || fail "write 3"
pattern verify /dev/ram1 3 4M --size 16M --direct --quiet || fail "seed 3 not on the secondary after the reload"
sums_equal "resync_rate reload"
# 2. a bad line is refused at load; the old table keeps running
echo "NMLOG-MARK rl" > /dev/kmsg
dmsetup load nma --table "0 $S netmirror /dev/ram0 127.0.0.1:7790 C flush 4 listen 127.0.0.1:7789 role master" 2>/dev/null &&
	fail "bad reload line accepted"
dmesg | sed -n '/NMLOG-MARK rl$/,$p' | grep -q 'Invalid role' || fail "bad reload: no kernel message"
dmsetup info nma | grep -q 'Tables present: *LIVE$' || fail "an inactive table was left: $(dmsetup info nma)"
pattern write /dev/mapper/nma 4 2M --size 16M --direct --quiet || fail "write after a refused reload"
nm_wait_synced nma 20 || fail "after a refused reload: $(dmsetup status nma)"
sums_equal "refused reload"
ntab=$((ntab + 1))
# 3. switch-over by reload: nma becomes secondary, nmb primary
reload nma "0 $S netmirror /dev/ram0 127.0.0.1:7790 C flush 2 listen 127.0.0.1:7789"
reload nmb "0 $S netmirror /dev/ram1 127.0.0.1:7789 C flush 4 listen 127.0.0.1:7790 role primary"
nm_wait_synced nmb 30 || fail "no connection after the switch-over: nmb $(dmsetup status nmb); nma $(dmsetup status nma)"
[ "$(nm_status nmb role)/$(nm_status nma role)" = primary/secondary ] || fail "roles after the switch-over: nmb $(nm_status nmb role) nma $(nm_status nma role)"
pattern write /dev/mapper/nmb 5 4M --size 16M --direct --quiet || fail "write through the new primary"
pattern verify /dev/ram0 5 4M --size 16M --direct --quiet || fail "seed 5 not on the new secondary"
$DD if=/dev/zero of=/dev/mapper/nma bs=4k count=1 oflag=direct status=none 2>/dev/null && fail "write to the new secondary accepted"
sums_equal "switch-over by reload"
# 4. region_size changed against the peer: refused at the handshake, named
reload nma "0 $S netmirror /dev/ram0 127.0.0.1:7790 C flush 4 listen 127.0.0.1:7789 region_size 512"
wait_for "[ \"\$(nm_status nma last_error)\" = region_size_mismatch ] || [ \"\$(nm_status nmb last_error)\" = region_size_mismatch ]" 20 ||
	fail "region_size change not refused by name: nma $(dmsetup status nma); nmb $(dmsetup status nmb)"
[ "$(nm_status nma connection)" != connected ] || fail "connected with different region sizes"
reload nma "0 $S netmirror /dev/ram0 127.0.0.1:7790 C flush 2 listen 127.0.0.1:7789"
nm_wait_synced nmb 30 || fail "no reconnect after restoring region_size: $(dmsetup status nmb)"
pattern write /dev/mapper/nmb 6 2M --size 16M --direct --quiet || fail "write 6"
sums_equal "region_size reload"
nm_local_unpair
# 5. metadata: inconsistent data refused as primary; region_size vs metadata
M=/dev/ram4
$DD if=/dev/zero of=$M bs=1M count=1 oflag=direct status=none
dmsetup create nmx --table "0 $S netmirror /dev/ram3 127.0.0.1:7799 C flush 4 listen 127.0.0.1:7798 meta $M" || fail "create nmx with meta"
dmsetup remove nmx
for l in "6 listen 127.0.0.1:7798 meta $M role primary|inconsistent" "6 listen 127.0.0.1:7798 meta $M region_size 512|"; do
	want=${l#*|}
	ntab=$((ntab + 1))
	echo "NMLOG-MARK x$ntab" > /dev/kmsg
	dmsetup create nmx --table "0 $S netmirror /dev/ram3 127.0.0.1:7799 C flush ${l%|*}" 2>/dev/null &&
		{ dmsetup remove nmx; fail "accepted against its metadata: ${l%|*}"; }
	got=$(dmesg | sed -n "/NMLOG-MARK x$ntab\$/,\$p" | grep 'device-mapper: table' | tail -1)
	[ -n "$got" ] && case $got in *"$want"*) ;; *) false ;; esac || fail "'${l%|*}': kernel said '$got'"
	log "refused: ${l%|*}: ${got#*netmirror: }"
done
dmsetup remove nmtiny
[ -s /tmp/findings ] && fail "$(wc -l < /tmp/findings) kernel bugs: $(tr '\n' ';' < /tmp/findings)"
log "badinput: $ntab table lines and $nmsg messages tried, all refused with their message; reloads ok"
exit 0
