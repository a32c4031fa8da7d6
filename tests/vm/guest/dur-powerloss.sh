# vms: 1
# disks: none
# timeout: 420
# mem: 1024
# (header keys first: run-test.sh reads them from the first 30 lines only)
# Issue 10, "power loss with a volatile cache": a node's backing device
# loses its unflushed writes mid-load.  Both nodes in this VM over
# 127.0.0.1, each on a cached configfs null_blk (guest-lib/dur-power-lib.sh:
# 32 MiB, cache as big, power 0 frees the cache unwritten).
#
# First the model itself (6.1 null_blk, read in drivers/block/null_blk/
# main.c and checked here): 64 O_DIRECT writes then fsync, 64 O_DIRECT|
# O_DSYNC writes, 64 O_DIRECT writes without a flush; power 0, power 1:
#   nullblk/flushed-kept   nullblk/dsync-kept   nullblk/unflushed-dropped
#
# Then for each protocol A, B, C (flush ordering, "sync none" on zeroed
# disks, timeout 2000 ping 500) and each case <side>-<meta>
# (guest-lib/dur-powercut.sh, pc_scenario):
#   sec-meta / sec-nometa   the secondary loses power (with its metadata
#                           device on a separate non-volatile brd, and without)
#   pri-meta / pri-nometa   the primary loses power (metadata on brd; without:
#                           recreated with "sync full", a restart being a
#                           first connection)
# a load of durable writes on the primary (seqw: 4 jobs, 4 KiB O_DIRECT|
# O_DSYNC, each write logged with its sequence number when it returned;
# --linear: the load moves through the device, so the regions written early
# are confirmed stable and must not need the resync),
# then the cut: the writers' logs are copied (= acknowledged before the
# cut), the wire freezes (lo down: nothing the dying node does reaches its
# peer), the node's null_blk loses power, its netmirror is removed, the
# survivor sees the link dead, the wire comes back, power comes back, the
# node's netmirror is created again on the same disks; resync.
# Checks, named <P>/<case>/...:
#   cut/primary     right after the cut, every write acknowledged before it
#                   is on the primary's disk (every protocol, both cases)
#   cut/secondary   the same on the secondary's disk, where the protocol
#                   promises it (docs/design.md, "What each protocol
#                   promises"): under C (FUA/flush applied there before
#                   the ack); under A and B only logged
#   resynced/primary, resynced/secondary   after the resync every write
#                   acknowledged before the cut (secondary cut: every write
#                   acknowledged at all) is on both disks
#   identical       both backing devices byte-identical (dur_same)
#   reader-controller  under B and C the secondary's reader controller
#                   (fast_rx_probe) probed at least once during the load,
#                   so the cut comes while it runs (its probes and switches
#                   are logged); under A its count is 0
load_netmirror
. /tests/nmlib.sh
. /tests/dur-lib.sh
. /tests/dur-power-lib.sh
. /tests/dur-powercut.sh
MB=32
J=4
LOAD_MS=${dur_load_ms:-2500}
NMOPTS="timeout 2000 ping 500"
PC_WRITE=--sync

# --- the model: does null_blk really drop what was not flushed?
nl_create nlx 16
seqw write /dev/nlx 11 --size 4M --count 64 --log /tmp/nx1 --quiet &&
	$DD if=/dev/null of=/dev/nlx conv=fsync,notrunc status=none || fail "nullblk: write + fsync"
seqw write /dev/nlx 12 --size 4M --offset 4M --count 64 --sync --log /tmp/nx2 --quiet || fail "nullblk: O_DSYNC writes"
seqw write /dev/nlx 13 --size 4M --offset 8M --count 64 --log /tmp/nx3 --quiet || fail "nullblk: unflushed writes"
check nullblk/before seqw verify /dev/nlx 13 --size 4M --offset 8M --log /tmp/nx3
nl_power nlx 0
nl_power nlx 1
check nullblk/flushed-kept seqw verify /dev/nlx 11 --size 4M --log /tmp/nx1
check nullblk/dsync-kept seqw verify /dev/nlx 12 --size 4M --offset 4M --log /tmp/nx2
check_fail nullblk/unflushed-dropped seqw verify /dev/nlx 13 --size 4M --offset 8M --log /tmp/nx3 ||
	fail "null_blk kept unflushed writes over a power cycle: no volatile cache to test with"
log "nullblk: $(seqw verify /dev/nlx 13 --size 4M --offset 8M --log /tmp/nx3 | tail -n 1)"
nl_destroy nlx

seed=100
for P in $(nm_protos); do
	for c in sec-meta sec-nometa pri-meta pri-nometa; do
		pc_scenario "${c%-*}" "${c#*-}"
		# the cut came while the secondary's reader controller ran (B, C:
		# it probed its other reader under this load; A: it never runs)
		if [ "$P" = A ]; then
			check_eq "$PC_NAME/reader-controller" "$PC_PROBES" 0
		else
			check "$PC_NAME/reader-controller" [ "${PC_PROBES:-0}" -gt 0 ]
		fi
	done
done
exit 0
