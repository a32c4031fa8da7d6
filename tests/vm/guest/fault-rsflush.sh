# Resync data that the target acknowledged but could not make stable (its
# flush failed) are sent again, as the writes of the transfer log are
# (review helper-47, 2026-12-07).  The target acknowledges a resync
# region once its write completed, in its disk's volatile cache; the
# source then counts the region in sync.  A failed flush of the target
# (at P_RS_DONE or a stable point) drops the link (flush_failed) and
# says the cache may have lost those writes.  Up to 1.18.14 the source
# kept no record of them (only P_DATA went to the transfer log): the
# next link resynced nothing, and the pair said in sync while the
# target lacked the regions.
# One VM, both nodes on loopback, 32 MiB; nmb's disk is a volatile-cache
# null_blk (/dev/nlb: a flush reaches it; brd has no cache, and the block
# layer completes a flush of it at once) under a dm table whose last MiB
# is a dm-flakey segment that fails every flush while "bad" (as in
# fault-flushfail).  For each protocol A, B, C:
#   4 MiB written on nma while nmb is disconnected; nmb's flushes made to
#   fail; connect: the resync's P_RS_DONE flush fails, the link drops
#   <P>/dropped        a flush of nmb's disk failed
#   <P>/resync-ran     nma had sent resync data (the premise)
#   then the range is put back on nlb as it was before the resync (what a
#   cache that lost the unflushed writes leaves) while the links that
#   follow keep failing their flushes; after one more failure the flushes
#   are good again, and the next link:
#   <P>/last-error     nmb's last_error says flush_failed (polled: each
#                      new link resets it to "-" until its flush fails)
#   <P>/resynced       both in sync
#   <P>/identical      md5 of both backing devices
# 1.18.14 fails identical under A, B and C.
# Then the same loss through another flush (part peer, 1.18.16; nmb
# under on_io_error pass_on, so that its disk stays): the resync runs at 256 KiB/s and is paused after its first MiB reached nmb
# (in nmb's cache, no flush since); nmb's flushes fail; a flush of nma's
# (sync: an empty flush, which goes to the peer under A and B, and under C
# as the first of a link) fails on nmb's disk (under A and B the link
# drops, under C the failure is acknowledged and the link stays):
#   <P>/peer/resync-ran    the resync wrote a MiB before the pause
#   <P>/peer/flush-failed  nmb's disk failed the peer's flush
#   then the flushes are good again, the range is put back as before the
#   resync (what the failed flush lost), and the resync is resumed at
#   full rate; its P_RS_DONE flush succeeds:
#   <P>/peer/resynced      both in sync
#   <P>/peer/identical     md5 of both backing devices
# 1.18.15 fails peer/identical under A, B and C: only a failed flush of
# nm_flush_local's own marked the resynced regions out of sync, and the
# next good flush counted them stable.
# vms: 1
# disks: none
# timeout: 600
load_netmirror
. /tests/nmlib.sh
. /tests/dur-lib.sh
. /tests/dur-power-lib.sh
modprobe dm-flakey || fail "modprobe dm-flakey"
S=65536

# failed flushes of nmb's disk so far (nm_flush_local's message)
flushfails() {
	dmesg | grep -c 'flush of the backing device failed'
}

# a flush of the peer's that nmb's disk failed: the link drops (A, B) or
# the failure is acknowledged (C: the write from the peer at sector 0)
peerflushfails() {
	dmesg | grep -c 'a flush of the peer failed\|write from the peer at sector 0 failed'
}

# apart SEED OPTS_B: a pair (nmb with OPTS_B) in sync on 16 MiB of pattern
# SEED, nmb disconnected, 4 MiB at 8 MiB written on nma alone (SEED + 1);
# nmb's old copy of that range in /tmp/old.img
apart() {
	flushes_setup
	nm_local_pair "$P" none "$S" /dev/ram0 /dev/mapper/lowb "" "$2"
	pattern write /dev/mapper/nma "$1" 2M --size 16M --direct --quiet || fail "$P: first write"
	nm_wait_confirmed nma 30 || fail "$P: writes unconfirmed: $(dmsetup status nma)"
	lose_link
	pattern write /dev/mapper/nma $(($1 + 1)) 4M --size 4M --offset 8M --bs-min 65536 --direct --quiet ||
		fail "$P: write apart"
	$DD if=/dev/nlb of=/tmp/old.img bs=1M skip=8 count=4 iflag=direct status=none ||
		fail "$P: save the old range"
}

for P in $(nm_protos); do
	NM_CHECK_PREFIX=$P/
	apart 1 ""
	log "$P: apart: nma $(dmsetup status nma)"
	flushes_bad lowb /dev/nlb
	rb0=$(nm_status nma resync_bytes)
	f0=$(flushfails)
	dmsetup message nmb 0 connect || fail "connect"
	check_wait dropped 30 "[ \$(flushfails) -gt $f0 ]"
	check resync-ran [ "$(nm_status nma resync_bytes)" -gt "$rb0" ]
	log "$P: after the failed flush: nma $(dmsetup status nma); nmb $(dmsetup status nmb)"
	# the target's cache lost what no flush made stable; the links that
	# follow fail their flushes too, until one ends after this
	$DD if=/tmp/old.img of=/dev/nlb bs=1M seek=8 count=4 oflag=direct conv=notrunc status=none ||
		fail "put the old range back"
	f1=$(flushfails)
	wait_eval "[ \$(flushfails) -gt $f1 ]" 30 || fail "$P: no failed flush after the loss"
	# each new link resets last_error to "-" until its flush fails again
	# (about 30 ms of every 300 ms cycle): polled, not read once (the CI
	# run of b3b4ff4 read it in that window)
	check_wait last-error 30 "[ \"\$(nm_status nmb last_error)\" = flush_failed ]"
	flushes_good lowb /dev/nlb
	check resynced nm_wait_synced nma 60
	check_wait identical 30 "nm_synced nmb && [ \"\$(dev_sum /dev/ram0)\" = \"\$(dev_sum /dev/nlb)\" ]"
	log "$P: nma $(dmsetup status nma)"
	nm_local_unpair
	flushes_teardown

	NM_CHECK_PREFIX=$P/peer/
	apart 3 "on_io_error pass_on"
	dmsetup message nma 0 resync_rate 256 || fail "peer: resync_rate 256"
	rb0=$(nm_status nma resync_bytes)
	dmsetup message nmb 0 connect || fail "peer: connect"
	wait_eval "[ \$(nm_status nma resync_bytes) -ge $((rb0 + 1048576)) ]" 30 ||
		fail "peer: no MiB resynced: $(dmsetup status nma)"
	dmsetup message nma 0 pause_resync || fail "peer: pause_resync"
	sleep 1		# the regions on their way land
	check resync-ran [ "$(nm_status nma resync_bytes)" -ge $((rb0 + 1048576)) ]
	log "$P: peer: paused: nma $(dmsetup status nma); nmb $(dmsetup status nmb)"
	flushes_bad lowb /dev/nlb
	f0=$(peerflushfails)
	sync /dev/mapper/nma || log "$P: peer: the flush failed on nma too"
	check_wait flush-failed 30 "[ \$(peerflushfails) -gt $f0 ]"
	flushes_good lowb /dev/nlb
	$DD if=/tmp/old.img of=/dev/nlb bs=1M seek=8 count=4 oflag=direct conv=notrunc status=none ||
		fail "peer: put the old range back"
	dmsetup message nma 0 resync_rate 0 || fail "peer: resync_rate 0"
	dmsetup message nma 0 resume_resync || fail "peer: resume_resync"
	check resynced nm_wait_synced nma 60
	check_wait identical 30 "nm_synced nmb && [ \"\$(dev_sum /dev/ram0)\" = \"\$(dev_sum /dev/nlb)\" ]"
	log "$P: peer: nma $(dmsetup status nma); nmb $(dmsetup status nmb)"
	nm_local_unpair
	flushes_teardown
done
NM_CHECK_PREFIX=
exit 0
