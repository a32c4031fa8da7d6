# A diskless primary demoted while a read it sends to the peer is queued:
# the read is still served and the demotion still reaches the peer.  One
# VM, both nodes on loopback through slowfwd (tests/vm/src/slowfwd.c,
# forwarder receive buffers of 64 KiB), the primary's disk on dm-flakey
# failing every I/O (on_io_error detach: diskless, reads go to the peer,
# fault-ioerror.sh), under each protocol A, B, C (checks <P>/<M>/...,
# M = before: the disk fails before the stall; queued: while stalled):
#   - diskless: the primary detached after a failed write;
#   - the direction to the secondary stalled, 8 parallel 1 MiB writes fill
#     the socket (the sender blocks in its send, holding the send lock),
#     then a 4 KiB read is queued behind them, then the primary is demoted
#     (role secondary; its P_STATE waits for the queued writes);
#   - the stall ends: read-ended, the read returns the peer's data within
#     20 s; writes-ended, the writes end; peer-saw-demotion, the secondary
#     can be promoted (it refuses while it believes its peer primary)
#     within 20 s; first-on-peer, writes-on-peer: the peer's disk holds
#     the writes (the primary's own disk is gone).
# Fails on 1.13.5 (nm_send_one held a read back while a P_STATE was due,
# and nm_send_state held a demotion's P_STATE back while anything was
# queued: with the read at the head neither went, and the sender thread
# spun).
# vms: 1
# disks: none
# timeout: 300
load_netmirror
. /tests/nmlib.sh
modprobe dm-flakey || fail "modprobe dm-flakey"
brd_setup 32 2
S=65536
CTL=/tmp/fwdctl
Z=$($DD if=/dev/zero bs=1M count=1 status=none | $MD5SUM)
lower() { # lower ok|bad: lowa linear, or flakey with every I/O failing
	local t="0 $S linear /dev/ram0 0"
	[ "$1" = bad ] && t="0 $S flakey /dev/ram0 0 0 3600"
	dmsetup reload lowa --table "$t" && dmsetup resume lowa || fail "lowa: $1"
}

# round before|queued: the disk fails before the stall (its P_STATE sent),
# or while the link is stalled, behind the queued writes (detach, read
# and demotion all due at once: the disk state goes first, with the role
# the peer knows, then the read, then the demotion)
round() {
	local fwd i j m=$1
	NM_CHECK_PREFIX=$P/$m/
	rm -f /tmp/w?.rc
	nm_zero /dev/ram0 /dev/ram1
	dmsetup create lowa --table "0 $S linear /dev/ram0 0" || fail "create lowa"
	: > $CTL
	slowfwd --ctl $CTL --rcvbuf 65536 7791:7790:b:a 7792:7789:a:b &
	fwd=$!
	NM_PAIR_TO_B=127.0.0.1:7791 NM_PAIR_TO_A=127.0.0.1:7792 nm_local_pair "$P" flush "$S" /dev/mapper/lowa /dev/ram1
	pattern write /dev/mapper/nma 3 4M --size 4M --direct --quiet || fail "first write"
	detach() {
		lower bad
		# in the background: stalled, its peer part waits (it ends with the writes)
		( $DD if=/dev/urandom of=/dev/mapper/nma bs=64k seek=100 count=1 oflag=direct conv=notrunc status=none
		  echo $? > /tmp/w8.rc ) &
		check_wait diskless 10 "[ \"\$(nm_status nma disk)\" = diskless ]"
	}
	[ "$m" = before ] && detach
	echo b > $CTL
	sleep 0.5
	i=0
	while [ $i -lt 8 ]; do
		rm -f /tmp/w$i.rc
		( $DD if=/dev/urandom of=/dev/mapper/nma bs=1M seek=$((8 + i)) count=1 oflag=direct conv=notrunc status=none
		  echo $? > /tmp/w$i.rc ) &
		i=$((i + 1))
	done
	sleep 2
	[ "$m" = queued ] && detach
	rm -f /tmp/r.rc
	( $DD if=/dev/mapper/nma of=/tmp/r bs=4k skip=16 count=1 iflag=direct status=none; echo $? > /tmp/r.rc ) &
	sleep 1
	log "$P queued: nma $(dmsetup status nma | cut -d' ' -f4-)"
	dmsetup message nma 0 secondary || fail "demote nma"
	: > $CTL
	if check_wait read-ended 20 "[ -e /tmp/r.rc ]"; then
		check_eq read-ok "$(cat /tmp/r.rc) $($MD5SUM < /tmp/r)" \
			"0 $($DD if=/dev/ram1 bs=4k skip=16 count=1 iflag=direct status=none | $MD5SUM)"
	fi
	check_wait writes-ended 20 "[ \$(ls /tmp/w?.rc 2>/dev/null | wc -l) = 9 ]"
	j=$(cat /tmp/w?.rc 2>/dev/null | tr -d '\n')
	check_eq writes-ok "$j" 000000000
	check_wait peer-saw-demotion 20 "dmsetup message nmb 0 primary 2>/dev/null"
	# unstick a spinning sender before the teardown: a disconnect ends the link
	dmsetup message nma 0 disconnect 2>/dev/null
	wait_for "[ -e /tmp/r.rc ]" 20 || fail "the read did not end after a disconnect"
	wait_for "[ \$(ls /tmp/w?.rc 2>/dev/null | wc -l) = 9 ]" 20 || fail "the writes did not end after a disconnect"
	dmsetup message nmb 0 secondary 2>/dev/null
	check first-on-peer pattern verify /dev/ram1 3 4M --size 4M --direct --quiet
	i=0 j=0
	while [ $i -lt 8 ]; do
		[ "$($DD if=/dev/ram1 bs=1M skip=$((8 + i)) count=1 iflag=direct status=none | $MD5SUM)" = "$Z" ] && j=$((j + 1))
		i=$((i + 1))
	done
	check_eq writes-on-peer "$j" 0
	nm_local_unpair
	kill $fwd
	wait $fwd 2> /dev/null
	dmsetup remove lowa || fail "remove lowa"
}

for P in $(nm_protos); do
	round before
	round queued
done
NM_CHECK_PREFIX=
exit 0
