# A flush of the primary that fails on the secondary's disk while the
# link stays (the secondary under on_io_error pass_on keeps its disk).
# The writes the secondary acknowledged before it, not yet confirmed
# stable (the transfer log), may be lost from its volatile cache: their
# regions must go out of sync, as at a link loss.  Up to 1.18.3 only the
# failed request's own sectors were marked, none for an empty flush (and
# under A and B its failure was not even sent to the primary): the
# pair said in sync (N/N regions) while the secondary's cache had lost
# what the failed flush should have made stable (a review of 2026-12-06;
# the P_SYNC and P_BARRIER flushes drop the link instead, flush_failed;
# a stable point that comes after the disk is good again confirms the
# write).  Fails on 1.18.3 (0dd09c2): marked, under A, B and C.
#
# One VM, both nodes on loopback, 32 MiB; nmb's disk a volatile-cache
# null_blk (nothing reaches its media before a flush) under a dm table
# whose last MiB is a dm-flakey segment: all of it linear while good;
# the flakey segment "down" fails every flush of the device (dm sends a
# flush to every target) while writes to the linear part succeed.
# Ordering none (no P_BARRIER flushes).  For each protocol A, B, C:
#   write-flush   a 4 KiB O_DIRECT write to nma and an fsync right after
#                 it (the flush fails on nmb) complete; nmb's disk is made
#                 good again right after (a transient failure)
#   marked        nma counts the written region out of sync, or has
#                 already begun to resync it (within 5 s; under C the link
#                 stays and the region is resynced at once, under A and B
#                 the link drops with flush_failed on nmb)
#   resynced      with nmb's disk good again, a reconnect resyncs it
#   identical     both backing devices equal
# Then (diskless/<P>/...) nmb's disk fails under the default `detach`:
#   detached      nmb diskless
#   link-kept, connected   three writes with an fsync each on nma: the
#                 link stays (no flush_failed for a diskless node's EIO)
# vms: 1
# disks: none
# timeout: 400
load_netmirror
. /tests/nmlib.sh
. /tests/dur-lib.sh
. /tests/dur-power-lib.sh
modprobe dm-flakey || fail "modprobe dm-flakey"
S=65536

for P in $(nm_protos); do
	NM_CHECK_PREFIX=$P/
	flushes_setup
	nm_local_pair "$P" none "$S" /dev/ram0 /dev/mapper/lowb "" "on_io_error pass_on"
	pattern write /dev/mapper/nma 1 4M --size 4M --direct --quiet || fail "first write"
	nm_wait_confirmed nma 30 || fail "writes unconfirmed: $(dmsetup status nma)"
	sleep 1.5	# no stable point due: the next comes after the next write
	flushes_bad lowb /dev/nlb
	rs0=$(dmesg | grep -c 'resync started')
	$DD if=/dev/urandom of=/dev/mapper/nma bs=4k seek=2048 count=1 \
		oflag=direct conv=fsync,notrunc status=none
	rc=$?
	# good again at once: the stable point that follows the write may
	# then flush without error, and retire the write while the flush
	# before it lost it (if it came first, it dropped the link instead)
	flushes_good lowb /dev/nlb
	check_eq write-flush "$rc" 0
	# out of sync, or already resynced (the link stays under C: a region
	# marked while connected is resynced at once)
	check_wait marked 5 "[ \$(nm_status nma in_sync_regions) -lt \$(nm_status nma total_regions) ] || [ \$(dmesg | grep -c 'resync started') -gt $rs0 ]"
	log "$P: nma $(dmsetup status nma); nmb $(dmsetup status nmb)"
	dmsetup message nmb 0 disconnect || fail "disconnect nmb"
	dmsetup message nmb 0 connect || fail "connect nmb"
	check resynced nm_wait_synced nma 60
	dur_settled_same identical 60 /dev/ram0 /dev/nlb
	nm_local_unpair
	flushes_teardown
done
# A secondary that detached its failed disk (on_io_error detach) answers
# every flush with EIO by design, and said so (P_STATE diskless): the link
# must stay through the primary's fsyncs and stable points.  Up to 1.18.3
# the first stable point after the detach flushed the failed device and
# dropped the link (flush_failed: link-kept failed under A, B and C;
# a7c6488, during this change, also dropped it at each fsync under A, B).
for P in $(nm_protos); do
	NM_CHECK_PREFIX=diskless/$P/
	flushes_setup
	nm_local_pair "$P" none "$S" /dev/ram0 /dev/mapper/lowb
	dmsetup reload lowb --table "0 $S flakey /dev/nlb 0 0 3600" && dmsetup resume lowb ||
		fail "lowb: all I/O fails"
	$DD if=/dev/urandom of=/dev/mapper/nma bs=4k seek=100 count=1 oflag=direct conv=notrunc status=none
	check_wait detached 10 "[ \"\$(nm_status nmb disk)\" = diskless ]"
	d0=$(drops)
	for i in 1 2 3; do
		$DD if=/dev/urandom of=/dev/mapper/nma bs=4k seek=$((200 + i)) count=1 \
			oflag=direct conv=fsync,notrunc status=none || fail "write and fsync $i"
	done
	sleep 1
	check_eq link-kept "$(drops)" "$d0"
	check_eq connected "$(nm_status nma connection)" connected
	nm_local_unpair
	flushes_teardown
done
NM_CHECK_PREFIX=
exit 0
