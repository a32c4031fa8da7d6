# `attach` on a diskless primary while a write it mapped diskless still
# waits for the sender (review F2 of 2026-12-05).  The attach's P_STATE
# (diskless -> inconsistent) goes out at the top of the sender's loop,
# ahead of writes already queued; the peer marks every region and its sync
# thread may read a region before such a write W reaches it.  The resync
# data then lacks W, and the attaching node took it: W had no local part
# (mapped diskless), and nothing told the resync target that the region
# had a write of its own in flight.  Both nodes said uptodate and in sync
# while the attached disk missed an acknowledged write.
#
# One VM, both nodes on loopback, 32 MiB devices, ordering none, nmb with
# max_buffers 1024 (256 pages held at most by writes on its disk).  For
# each protocol A, B, C: 8 MiB written (seed 1), nma's disk detached by a
# failing write and repaired; nmb's disk becomes a dm-delay with 3 s
# writes (reads at once); four 224 KiB writes at 16 MiB fill most of nmb's
# buffers, so its reader takes no write of 256 KiB for about 3 s.  Then,
# with the kernel's threads held off both CPUs by SCHED_FIFO spinners
# (rtrun; this shell runs above them), W (256 KiB at 0, seed 2) is written,
# which waits on send_q as others await their acks, and once it is mapped
# `attach` is sent; the spinners end.  The
# sender sends the P_STATE first, nmb's sync thread reads region 0 while
# its reader waits for room to take W.  Checks <P>/...:
#   detached      nma's disk diskless after the failing write
#   w-queued      W mapped and not sent when `attach` came (the setup)
#   attach        the message succeeds
#   w-acked       W completed without error
#   resynced      nma uptodate and in sync again
#   reads-w       nma reads W back (its own disk, now uptodate)
#   identical     both backing devices equal
# Up to 1.18.4 reads-w and identical fail (W is on nmb's disk only).
# vms: 1
# disks: none
# timeout: 400
load_netmirror
. /tests/nmlib.sh
. /tests/dur-lib.sh
modprobe dm-flakey || fail "modprobe dm-flakey"
modprobe dm-delay || fail "modprobe dm-delay"
S=65536
RT=/proc/sys/kernel/sched_rt_runtime_us
rt0=$(cat $RT)
for P in $(nm_protos); do
	NM_CHECK_PREFIX=$P/
	brd_setup 32 2
	dmsetup create lowa --table "0 $S linear /dev/ram0 0" || fail "create lowa"
	dmsetup create lowb --table "0 $S linear /dev/ram1 0" || fail "create lowb"
	# timeout 20 s: the watchdog is not what this tests, and with both
	# CPUs held and nmb's 3 s writes a slow host left nma's answers
	# unread for over 6 s once (the clean clone of 95e03cb: "peer
	# answered no request for 6000 ms", W failed with EIO)
	nm_local_pair "$P" none "" /dev/mapper/lowa /dev/mapper/lowb "timeout 20000" "max_buffers 1024 timeout 20000"
	pattern write /dev/mapper/nma 1 8M --size 8M --direct --quiet || fail "first write"
	nm_detach_lowa /dev/ram0
	pattern write /dev/mapper/nma 1 8M --size 8M --direct --quiet || fail "rewrite while diskless"
	dmsetup reload lowb --table "0 $S delay /dev/ram1 0 0 /dev/ram1 0 3000" &&
		dmsetup resume lowb || fail "lowb: delay"
	# 4 x 56 pages: all taken, with room to spare for pages still held
	# from before; W's 64 pages then do not fit
	for i in 0 1 2 3; do
		$DD if=/dev/urandom of=/dev/mapper/nma bs=224k seek=$((16777216 + i * 229376)) count=1 \
			oflag=direct,seek_bytes conv=notrunc status=none &
	done
	sleep 0.5
	pend0=$(nm_status nma pending)
	sent0=$(nm_status nma writes_sent)
	rm -f /tmp/w.rc
	echo -1 > $RT || fail "sched_rt_runtime_us"
	# this shell above the spinners, the kernel's threads below them
	rtrun --pid $$ 20 || fail "rtrun --pid"
	rtrun --hog 10 0 5000 &
	h0=$!
	rtrun --hog 10 1 5000 &
	h1=$!
	sleep 0.1
	( pattern write /dev/mapper/nma 2 256k --size 256k --direct --quiet; echo $? > /tmp/w.rc ) &
	wait_for "[ \"\$(nm_status nma pending)\" -gt $pend0 ]" 3
	pend1=$(nm_status nma pending)
	sent1=$(nm_status nma writes_sent)
	dmsetup message nma 0 attach
	arc=$?
	kill $h0 $h1
	wait $h0 $h1
	rtrun --pid $$ 0 || fail "rtrun --pid back"
	echo "$rt0" > $RT
	sleep 0.3
	log "$P: W mapped: pending $pend0 -> $pend1, writes sent $sent0 -> $sent1; $(dmesg | grep -E 'attached' | tail -n 2 | tr '\n' ' ')"
	# the precondition: W waits on send_q (mapped, not sent) at the attach
	check_eq w-queued "$pend1 $sent1" "$((pend0 + 1)) $sent0"
	check_eq attach "$arc" 0
	check_wait w-acked 30 "[ \"\$(cat /tmp/w.rc 2> /dev/null)\" = 0 ]"
	wait
	check resynced nm_wait_synced nma 120
	check reads-w pattern verify /dev/mapper/nma 2 256k --size 256k --direct --quiet
	dur_settled_same identical 60 /dev/ram0 /dev/ram1
	nm_local_unpair
	dmsetup remove lowa || fail "remove lowa"
	dmsetup remove lowb || fail "remove lowb"
done
NM_CHECK_PREFIX=
exit 0
