# A slow link is not a dead peer (two nodes in one VM; protocols A, B, C).
# nma (primary) and nmb reach each other only through slowfwd
# (tests/vm/src/slowfwd.c): a TCP forwarder on 127.0.0.1 paced to
# $nm_rate KiB/s (default 2048) each way behind a bottleneck queue of
# $nm_fwd_queue bytes (default 6M); both tables have timeout 2000.
#   slow: $nm_mb MiB (default 14; A: 4 more) written buffered, then
#   fsync'd: the writes wait behind the full socket (A: in send_q) and the
#   queue (B, C: after their send) longer than the timeout (checked: the
#   latency message's p_total max, map to end, is above it) while the peer
#   acknowledges all along.  The link must stay up: no reconnect, no link drop, last_error
#   "-"; both backing devices hold the data.
#   stall: the forwarder stops passing what goes to nmb and keeps the
#   connection open (a peer gone silent): the link drops within
#   timeout + 3 s, the O_DIRECT writes in flight complete.
#   hang (B, C): nmb's disk (a dm-linear) is suspended: nmb still answers
#   pings but acknowledges no write; nma must give up the write
#   (nm_check_stuck: "peer answered no request", peer_timeout) within
#   timeout + 3 s and complete it.  Under A nothing waits for the peer's
#   disk (the write ends when sent), so there is nothing to give up.
#   one (C): the secondary's disk holds a single write (dm-delay) while it
#   acknowledges others: the next stable point stalls its receiver, so
#   the link drops within 1 s + timeout + 3 s (see the section).
# After each fault: reconnect, resync, both backing devices identical.
# vms: 1
# disks: none
# timeout: 240
load_netmirror
. /tests/nmlib.sh
rate=${nm_rate:-2048}
mb=${nm_mb:-14}
fq=${nm_fwd_queue:-6M}
TO=2000
brd_setup 32 2
S=$(( $(dev_size /dev/ram0) / 512 ))
modprobe dm-linear 2>/dev/null
dmsetup create bdisk --table "0 $S linear /dev/ram1 0" || fail "dm-linear under nmb"
CTL=/tmp/fwdctl
: > $CTL
# nma connects to 7791 for nmb (7790), nmb to 7792 for nma (7789)
slowfwd --rate "$rate" --queue "$fq" --rcvbuf 256K --ctl $CTL 7791:7790:b:a 7792:7789:a:b &
fwd=$!
conns() { dmesg | grep -c "connected to 127.0.0.1:7791"; }
stuck() { dmesg | grep -c "peer answered no request for $TO ms"; }
drops() { dmesg | grep -c "dropping link\|peer timed out\|127.0.0.1:7791 closed"; }
# the max_us of one stage of nma's latency message
lat_max() { dmsetup message nma 0 latency | sed -n "s/^$1 .*max_us=\([0-9]*\).*/\1/p"; }
# under A a write waits only in send_q, behind what the buffers hold:
# 4 MiB more keep that wait clear of the timeout
$DD if=/dev/urandom of=/tmp/data bs=1M count=$((mb + 4)) status=none || fail "random data"
sum_head() { $DD if="$1" bs=1M count="$n" iflag=direct status=none | $MD5SUM | cut -d' ' -f1; }

pair() { # both empty and identical: no initial copy
	NM_PAIR_TO_B=127.0.0.1:7791 NM_PAIR_TO_A=127.0.0.1:7792 nm_local_pair "$P" flush "$S" \
		/dev/ram0 /dev/mapper/bdisk "timeout $TO ping 500 sync none" "timeout $TO ping 500 sync none"
}

settle() { # WHAT: connected, in sync, nothing pending, identical
	check_wait "$1/resynced" 60 "nm_synced nma && nm_synced nmb && [ \$(nm_status nma pending) = 0 ]"
	check_wait "$1/identical" 20 "[ \"\$(dev_sum /dev/ram0)\" = \"\$(dev_sum /dev/ram1)\" ]"
}

# WHAT: two 1 MiB O_DIRECT writes (two epochs: under B the first is
# acknowledged on receipt, the second waits behind the barrier that drains
# the first); the link must drop within TO + 3 s, the writes end soon after
dead_write() {
	local t0 t1
	rm -f /tmp/dw.rc
	t0=$(now_ms)
	( $DD if=/tmp/data of=/dev/mapper/nma bs=1M count=2 seek=20 oflag=direct status=none; echo $? > /tmp/dw.rc ) &
	wait_eval "[ \"\$(nm_status nma connection)\" != connected ]" $(( (TO + 5000) / 1000 ))
	t1=$(now_ms)
	check "$1/dropped-in-time" [ $((t1 - t0)) -le $((TO + 3000)) ]
	check_wait "$1/write-ended" 5 "[ -e /tmp/dw.rc ]"
	check_eq "$1/write-ok" "$(cat /tmp/dw.rc 2>/dev/null)" 0
	log "$P $1: link dropped $((t1 - t0)) ms after the write (timeout $TO), last_error $(nm_status nma last_error)"
}

round() {
	pair
	n=$mb
	if [ "$P" = A ]; then n=$((mb + 4)); fi
	want=$($HEAD -c $((n * 1048576)) /tmp/data | $MD5SUM | cut -d' ' -f1)
	c0=$(conns) d0=$(drops) t0=$(now_ms)
	# slow link, healthy peer: a burst queued far longer than the timeout
	$DD if=/tmp/data of=/dev/mapper/nma bs=1M count="$n" conv=fsync status=none ||
		check_bad slow/write "buffered write + fsync failed"
	t1=$(now_ms)
	check_wait slow/settled 30 "[ \$(nm_status nma pending) = 0 ]"
	q=$(lat_max p_queue) pp=$(lat_max p_peer) pt=$(lat_max p_total)
	log "$P slow: $n MiB at $rate KiB/s in $((t1 - t0)) ms; max: map->sent ${q} us, sent->ack ${pp:-none} us, map->end $pt us; $(dmsetup status nma)"
	# the test is worth something only if writes waited longer than that
	# (the latency message reports a bucket's lower bound)
	check slow/waits-exceed-timeout [ "${pt:-0}" -gt $((TO * 1000)) ]
	check_eq slow/no-reconnect "$(conns)" "$c0"
	check_eq slow/no-drop "$(drops)" "$d0"
	check_eq slow/connected "$(nm_status nma connection)" connected
	check_eq slow/last-error "$(nm_status nma last_error)" -
	check_eq slow/primary-data "$(sum_head /dev/ram0)" "$want"
	check_wait slow/secondary-data 20 "[ \"\$(sum_head /dev/ram1)\" = $want ]"

	# a peer gone silent with the connection open
	echo b > $CTL
	dead_write stall
	: > $CTL
	settle stall

	# the peer's disk hangs: it answers pings, acknowledges nothing
	if [ "$P" != A ]; then
		s0=$(stuck)
		dmsetup suspend bdisk || fail "suspend bdisk"
		dead_write hang
		check hang/given-up [ "$(stuck)" -gt "$s0" ]
		check_eq hang/last-error "$(nm_status nma last_error)" peer_timeout
		dmsetup resume bdisk || fail "resume bdisk"
		settle hang
	fi
	dmsetup remove nma || fail "remove nma"
	dmsetup remove nmb || fail "remove nmb"
}

nm_each_proto round
kill $fwd
dmsetup remove bdisk || fail "remove bdisk"

# one (C, ordering none: no barrier): the secondary's disk holds one write
# (its first MiB behind dm-delay, 30 s for writes) while a second writer
# goes on elsewhere and its writes are acknowledged.  The peer keeps
# answering, but the next stable point (P_SYNC, about once a second while
# writes flow) waits on the secondary for every write it received: the
# acks stop, and the link drops within 1 s + TO + 3 s, long before the
# held write would end; the held write then completes from the local disk.
if [ "$(nm_protos | grep -c C)" = 1 ]; then
	P=C
	modprobe dm-delay 2>/dev/null
	dmsetup create odisk --table "0 2048 delay /dev/ram1 0 0
2048 $((S - 2048)) linear /dev/ram1 2048" || fail "create odisk"
	dmsetup create nmb --table "0 $S netmirror /dev/mapper/odisk 127.0.0.1:7789 C none 8 listen 127.0.0.1:7790 timeout $TO ping 500 sync none" ||
		fail "one: create nmb"
	dmsetup create nma --table "0 $S netmirror /dev/ram0 127.0.0.1:7790 C none 10 listen 127.0.0.1:7789 role primary timeout $TO ping 500 sync none" ||
		fail "one: create nma"
	nm_wait_synced nma 30 || fail "one: nma did not connect: $(dmsetup status nma)"
	dmsetup suspend odisk && dmsetup load odisk --table "0 2048 delay /dev/ram1 0 0 /dev/ram1 0 30000
2048 $((S - 2048)) linear /dev/ram1 2048" && dmsetup resume odisk || fail "one: delay the first MiB"
	rm -f /tmp/one.stop /tmp/one.rc
	( i=0; while [ ! -e /tmp/one.stop ] && [ $i -lt 4000 ]; do
		$DD if=/tmp/data of=/dev/mapper/nma bs=4k skip=$((i % 256)) seek=$((1024 + i)) count=1 oflag=direct conv=notrunc status=none 2>/dev/null
		i=$((i + 1)); done ) &
	bg=$!
	sleep 1
	a0=$(nm_status nmb writes_received)
	t0=$(now_ms)
	( $DD if=/tmp/data of=/dev/mapper/nma bs=4k count=1 oflag=direct conv=notrunc status=none; echo $? > /tmp/one.rc ) &
	wait_eval "[ \"\$(nm_status nma connection)\" != connected ]" 40
	t1=$(now_ms)
	touch /tmp/one.stop
	wait $bg
	log "one: link dropped $((t1 - t0)) ms after the held write (timeout $TO); nmb received $(( $(nm_status nmb writes_received) - a0 )) writes meanwhile; last_error $(nm_status nma last_error)"
	check one/dropped-in-time [ $((t1 - t0)) -le $((TO + 4000)) ]
	check_eq one/last-error "$(nm_status nma last_error)" peer_timeout
	check_wait one/write-ended 5 "[ -e /tmp/one.rc ]"
	check_eq one/write-ok "$(cat /tmp/one.rc 2>/dev/null)" 0
	dmsetup suspend odisk && dmsetup load odisk --table "0 $S linear /dev/ram1 0" && dmsetup resume odisk ||
		fail "one: remove the delay"
	dmsetup message nma 0 connect 2>/dev/null
	dmsetup message nmb 0 connect 2>/dev/null
	settle one
	dmsetup remove nma && dmsetup remove nmb && dmsetup remove odisk || fail "one: remove"
fi
exit 0
