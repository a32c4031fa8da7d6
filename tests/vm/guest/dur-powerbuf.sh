# vms: 1
# disks: none
# timeout: 360
# mem: 1024
# (header keys first: run-test.sh reads them from the first 30 lines only)
# Power loss under buffered writes, merged (nm_merge.c): dur-powerloss's
# power cut (guest-lib/dur-powercut.sh, pc_scenario: both nodes in this VM
# over 127.0.0.1 on cached configfs null_blks whose power-off drops
# unflushed writes) with a load written through the primary's page cache:
# seqw --buffered 96, one job, --linear (64 MiB): 96 adjacent 4 KiB writes
# into the page cache, then fsync, which writes them back one bio per page
# under one plug (the writes merge_writes merges: the first page alone,
# then one merged write of 95 pages; every other run crosses a 512 KiB
# region boundary) and then flushes (blkdev_fsync); the 96 writes are
# logged as acknowledged only when that fsync returned 0.  They are
# durable writes, promised as O_DSYNC ones are (docs/design.md, "What
# each protocol promises").  One job: with two or more seqw jobs whose
# blocks interleave, concurrent fsyncs write back alternate pages and
# each sleeps on the other's page lock, which unplugs (a run rarely
# forms: 7845 writes sent for 8192 pages with 2 jobs, 768 with one).
#
# First the model: buffered writes fsync'ed on a bare null_blk survive its
# power cycle (nullblk/buffered-fsync-kept).
# Then for each protocol A, B, C (flush ordering, "sync none" on zeroed disks,
# timeout 2000 ping 500), merge_writes=Y (the default; dur_merge=N on the
# kernel command line runs it without, to see <P>/<case>/merged fail) and
# each case <side>-<meta> of dur-powerloss: sec-meta, sec-nometa (the
# secondary loses power, with its metadata device on brd and without),
# pri-meta, pri-nometa (the primary does; without metadata it comes back
# with "sync full"; NM_PROTOS="C" runs one protocol, dur_cases=pri-meta
# on the kernel command line one case),
# pc_scenario's checks (<P>/<case>/cut/primary, cut/secondary under C,
# resynced/primary, resynced/secondary, identical) and:
#   <P>/<case>/load-at-cut   the writer was still writing when the power
#                            went (else the cut hit an idle device)
#   <P>/<case>/merged        writes were merged during the load: the
#                            primary sent fewer than a quarter as many
#                            writes (status writes_sent, a merged run
#                            counts once, each fsync's flush too) as
#                            pages were acknowledged before the cut
#                            (unmerged: more writes than pages)
load_netmirror
. /tests/nmlib.sh
. /tests/dur-lib.sh
. /tests/dur-power-lib.sh
. /tests/dur-powercut.sh
MB=64
J=1
LOAD_MS=${dur_load_ms:-1500}	# the load: ~2.5 s (A) to 3.5 s (C) for 64 MiB
NMOPTS="timeout 2000 ping 500"
PC_WRITE="--buffered ${dur_fsync_every:-96}"
MW=/sys/module/dm_netmirror/parameters/merge_writes
[ "$(cat $MW)" = Y ] || fail "merge_writes is not on by default"
echo "${dur_merge:-Y}" > $MW || fail "merge_writes=${dur_merge:-Y}"
log "merge_writes=$(cat $MW)"

# --- the model: buffered writes + fsync survive a power cycle of null_blk
nl_create nlx 16
check nullblk/buffered-write seqw write /dev/nlx 21 --size 4M --count 256 --buffered 32 --log /tmp/nx1 --quiet
nl_power nlx 0
nl_power nlx 1
check nullblk/buffered-fsync-kept seqw verify /dev/nlx 21 --size 4M --log /tmp/nx1
nl_destroy nlx

seed=200
for P in ${nm_protos:-A B C}; do
	for c in ${dur_cases:-sec-meta sec-nometa pri-meta pri-nometa}; do
		pc_scenario "${c%-*}" "${c#*-}"
		log "$PC_NAME: $PC_SENT writes sent for $PC_ACKED pages acknowledged before the cut"
		check_eq "$PC_NAME/load-at-cut" "$PC_RUNNING" yes
		check "$PC_NAME/merged" [ "$PC_SENT" -gt 0 -a $((PC_SENT * 4)) -lt "$PC_ACKED" ]
	done
done
exit 0
