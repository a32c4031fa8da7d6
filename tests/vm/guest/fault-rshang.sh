# A resync whose target's disk hangs is given up after `timeout` (review
# F22).  The regions in resync are busy: an application write into one
# waits (parked) for the region's P_RS_ACK.  Up to 1.15.2 only the
# application's own requests in flight were timed (nm_check_stuck), so a
# target that still answered pings but never acknowledged its resync
# writes kept such a write parked for as long as its disk hung, under
# every protocol, A included ("the submitting task never waits for the
# network").
#
# One VM, both nodes on loopback, timeout 2000; nma's disk random, nmb's a
# dm-linear over a zeroed brd; for each protocol A, B, C: nmb created,
# its disk suspended (writes hang, pings are answered), nma created with
# sync full: the resync starts and its first regions hang.  Checks
# <P>/...:
#   resync-started   nma became sync_source
#   write-ended      a 4 KiB O_DIRECT write to sector 0 (region 0, in
#                    resync) on nma completed within timeout + 5 s
#   peer-timeout     nma's last_error is peer_timeout (the link was
#                    dropped for the unanswered resync)
#   identical        nmb's disk resumed: the pair reconnects and resyncs,
#                    both backing devices equal
# vms: 1
# disks: none
# timeout: 300
load_netmirror
. /tests/nmlib.sh
. /tests/dur-lib.sh
TO=2000
modprobe dm-linear 2> /dev/null
for P in $(nm_protos); do
	NM_CHECK_PREFIX=$P/
	brd_setup 32 2
	S=$(( $(dev_size /dev/ram0) / 512 ))
	$DD if=/dev/urandom of=/dev/ram0 bs=1M count=32 oflag=direct status=none || fail "fill ram0"
	dmsetup create bdisk --table "0 $S linear /dev/ram1 0" || fail "dm-linear under nmb"
	dmsetup create nmb --table "0 $S netmirror /dev/mapper/bdisk 127.0.0.1:7789 $P flush 8 listen 127.0.0.1:7790 sync full timeout $TO ping 500" ||
		fail "create nmb"
	dmsetup suspend --nolockfs bdisk || fail "suspend bdisk"
	dmsetup create nma --table "0 $S netmirror /dev/ram0 127.0.0.1:7790 $P flush 10 listen 127.0.0.1:7789 role primary sync full timeout $TO ping 500" ||
		fail "create nma"
	check_wait resync-started 20 "[ \"\$(nm_status nma connection)\" = sync_source ]"
	sleep 0.5	# its first regions are sent
	t0=$(now_ms)
	$DD if=/dev/urandom of=/dev/mapper/nma bs=4k count=1 oflag=direct conv=notrunc status=none &
	wpid=$!
	end=$((t0 + 20000))
	while kill -0 $wpid 2> /dev/null && [ "$(now_ms)" -lt $end ]; do
		sleep 0.1
	done
	if kill -0 $wpid 2> /dev/null; then
		took=hung
	else
		took=$(( $(now_ms) - t0 ))
	fi
	log "$P: the write into the region in resync took $took ms; nma $(dmsetup status nma)"
	check_eq write-ended "$([ "$took" != hung ] && [ "$took" -le $((TO + 5000)) ] && echo yes)" yes
	check_eq peer-timeout "$(nm_status nma last_error)" peer_timeout
	dmsetup resume bdisk || fail "resume bdisk"
	wait $wpid
	dur_settled_same identical 90 /dev/ram0 /dev/ram1
	nm_local_unpair
	dmsetup remove bdisk || fail "remove bdisk"
done
NM_CHECK_PREFIX=
exit 0
