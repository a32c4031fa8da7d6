# A checksum resync (csums) stopped by the target's disk failure, then the
# target's `attach` of a new disk (review of 2026-12-06, helper F1).  Up to
# 1.18.10 the stop left the source's compared regions in their slots (the
# target's P_CSUM_REPLY in, the differing blocks not yet sent), with their
# rs_busy bits and window counts: nothing sent them while the pair was
# only connected, and writes to them waited.  After the attach the new
# resync sent those old differences first: the new disk got only the
# blocks that had differed on the failed one, the region was acknowledged
# whole, and the pair said in sync with the region missing on the new disk.
#
# One VM, both nodes on loopback, 32 MiB (64 regions of 512 KiB).  nma
# (primary, sync full, csums crc32c, resync at 512 KiB/s so that the sync
# thread sleeps about 1 s with a compared region waiting) on random data;
# nmb on a dm-delay over a copy of it with one 4 KiB block changed in each
# of the first 16 regions (a region's difference is one block), its reads
# 200 ms late.
# Right after a region's compare came in, nmb's disk is switched to
# `error` and a write to nma makes nmb detach; then nmb's disk is pointed
# at a zeroed one and nmb attaches it.  For each protocol A, B, C (checks
# <P>/...):
#   resync-started  nma became sync_source
#   compared        nma had compared regions before the failure
#   detached        nmb's disk diskless
#   source-stopped  nma left sync_source
#   attached        nmb's disk inconsistent after `attach`
#   synced          both uptodate, nothing out of sync
#   identical       the new disk equals nma's (the failing version: one or
#                   more regions hold only their one changed block)
# vms: 1
# disks: none
# timeout: 600
load_netmirror
. /tests/nmlib.sh
modprobe dm-linear 2> /dev/null
modprobe dm-delay 2> /dev/null
REGION=524288

for P in $(nm_protos); do
	NM_CHECK_PREFIX=$P/
	brd_setup 32 3
	S=$(( $(dev_size /dev/ram0) / 512 ))
	$DD if=/dev/urandom of=/dev/ram0 bs=1M count=32 oflag=direct status=none || fail "fill ram0"
	$DD if=/dev/ram0 of=/dev/ram1 bs=1M count=32 iflag=direct oflag=direct status=none || fail "copy to ram1"
	# (the first 16: the failure comes within the first few)
	for r in $(seq 0 15); do
		$DD if=/dev/urandom of=/dev/ram1 bs=4k count=1 seek=$((r * REGION / 4096 + 2)) oflag=direct conv=notrunc status=none ||
			fail "change region $r"
	done
	nm_zero /dev/ram2
	# reads 200 ms late: each compare's reply comes after the sync thread
	# has gone on to wait for the rate (else it may send the differing
	# blocks at once, and no region waits when the disk fails)
	dmsetup create bdisk --table "0 $S delay /dev/ram1 0 200 /dev/ram1 0 0" || fail "dm-delay under nmb"
	dmsetup create nmb --table "0 $S netmirror /dev/mapper/bdisk 127.0.0.1:7789 $P flush 4 listen 127.0.0.1:7790 csums crc32c" ||
		fail "create nmb"
	dmsetup create nma --table "0 $S netmirror /dev/ram0 127.0.0.1:7790 $P flush 10 listen 127.0.0.1:7789 role primary sync full csums crc32c resync_rate 512" ||
		fail "create nma"
	check_wait resync-started 20 "[ \"\$(nm_status nma connection)\" = sync_source ]"
	# right after a region's compare is in: its differing block goes
	# out after the next region's digests, when the rate lets the
	# thread read that one (about 1 s at 512 KiB/s); the failure comes first
	check_wait compared 20 "[ \"\$(nm_status nma resync_compared)\" -ge $REGION ]"
	c0=$(nm_status nma resync_compared)
	wait_for "[ \"\$(nm_status nma resync_compared)\" != $c0 ]" 10 ||
		fail "no region compared in 10 s: $(dmsetup status nma)"
	dmsetup suspend --nolockfs bdisk || fail "suspend bdisk"
	dmsetup load bdisk --table "0 $S error" || fail "load error bdisk"
	dmsetup resume bdisk || fail "resume bdisk"
	# a write nmb cannot make: it detaches (on_io_error detach)
	$DD if=/dev/urandom of=/dev/mapper/nma bs=4k count=1 oflag=direct conv=notrunc status=none ||
		fail "write to nma"
	check_wait detached 10 "[ \"\$(nm_status nmb disk)\" = diskless ]"
	check_wait source-stopped 10 "[ \"\$(nm_status nma connection)\" != sync_source ]"
	log "$P: stopped: nma $(dmsetup status nma); nmb $(dmsetup status nmb)"
	sleep 1		# replies still on the wire are in
	dmsetup suspend --nolockfs bdisk || fail "suspend bdisk"
	dmsetup load bdisk --table "0 $S linear /dev/ram2 0" || fail "load bdisk on ram2"
	dmsetup resume bdisk || fail "resume bdisk"
	dmsetup message nma 0 resync_rate 0 || fail "resync_rate 0"
	dmsetup message nmb 0 attach || fail "attach nmb"
	check_eq attached "$(nm_status nmb disk)" inconsistent
	rc=0
	nm_wait_synced nma 120 && nm_wait_synced nmb 30 || rc=1
	check_eq synced "$rc" 0
	log "$P: after: nma $(dmsetup status nma); nmb $(dmsetup status nmb)"
	dmsetup remove nma || fail "remove nma"
	dmsetup remove nmb || fail "remove nmb"
	dmsetup remove bdisk || fail "remove bdisk"
	n=0
	for r in $(seq 0 63); do
		[ "$($DD if=/dev/ram0 bs=512k skip=$r count=1 iflag=direct status=none | $MD5SUM)" = \
		  "$($DD if=/dev/ram2 bs=512k skip=$r count=1 iflag=direct status=none | $MD5SUM)" ] ||
			n=$((n + 1))
	done
	[ "$n" = 0 ] || log "$P: $n of 64 regions differ on the new disk"
	check_eq identical "$(dev_sum /dev/ram2)" "$(dev_sum /dev/ram0)"
done
NM_CHECK_PREFIX=
exit 0
