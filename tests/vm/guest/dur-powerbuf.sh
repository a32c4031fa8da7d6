# vms: 1
# disks: none
# timeout: 600
# mem: 1024
# (header keys first: run-test.sh reads them from the first 30 lines only)
# Power loss under buffered writes, merged (nm_merge.c): dur-powerloss's
# power cut (guest-lib/dur-powercut.sh, pc_scenario: both nodes in this VM
# over 127.0.0.1 on cached configfs null_blks whose power-off drops
# unflushed writes) with a load written through the primary's page cache,
# one seqw job, --linear over 64 MiB: 96 adjacent 4 KiB writes into the
# page cache, then one call that writes them back, one bio per page under
# one plug (the writes merge_writes merges: the first page alone, then one
# merged write of 95 pages; every other run crosses a 512 KiB region
# boundary); the 96 writes are logged as acknowledged only when that call
# returned 0.  Two loads (<L>):
#   fsync   seqw --buffered 96: fsync, which writes back and then flushes
#           (blkdev_fsync): durable writes, promised as O_DSYNC ones are
#           (docs/design.md, "What each protocol promises")
#   range   seqw --buffered 96 --range: sync_file_range(WAIT_BEFORE|WRITE|
#           WAIT_AFTER): written back, their bios completed, not flushed.
#           Promised where no cache they may sit in lost power: under C a
#           completed write is on both disks, so on the secondary when the
#           primary loses power (this is what fails if a merged write's
#           originals end before the peer's ack: an fsync would still be
#           kept by its flush, which follows them on the wire, and over
#           127.0.0.1 a write sent is at once in the peer's socket, which
#           survives the cut: on-peer-at-ack below is what sees it); on
#           the primary when the secondary does, and on both after that
#           resync.  Not after the primary's own power loss: it comes
#           back without the completed writes its cache lost and resyncs
#           its regions over the secondary's copy (logged "not promised",
#           as docs/design.md says: only flushed/FUA writes are promised)
#   fsync-drain, fsync-none   the fsync load under ordering drain / none
#           (target 1.13.5), the secondary losing power (sec-meta; more
#           with dur_cases_ord): no flush rides with the barriers, so what
#           makes an fsync durable on the secondary is the empty flush
#           after the write back (the empty P_DATA with NM_DF_FLUSH).
#           Under C cut/secondary finds every write acknowledged before
#           the cut on the secondary's disk after its power came back.
#           1.13.4 acknowledged that flush without issuing it: under C
#           cut/secondary lost the writes of the last fsyncs (the periodic
#           stable point, P_SYNC, flushes about once a second).
# One job: with two or more seqw jobs whose blocks interleave, concurrent
# fsyncs write back alternate pages and each sleeps on the other's page
# lock, which unplugs (a run rarely forms: 7845 writes sent for 8192 pages
# with 2 jobs, 768 with one; measured with fsync every 32).
#
# First the model: on a bare null_blk, buffered writes fsync'ed survive a
# power cycle, written back by sync_file_range they do not
# (nullblk/buffered-fsync-kept, nullblk/range-unflushed-dropped).
# Then for each protocol A, B, C (flush ordering but in fsync-drain and
# fsync-none, "sync none" on zeroed
# disks, timeout 2000 ping 500), merge_writes=Y (the default; dur_merge=N
# on the kernel command line runs it without, to see .../merged fail),
# each load and the cases sec-meta (the secondary loses power; metadata
# devices on brd) and pri-meta (the primary does); the other cases of
# dur-powerloss on the kernel command line (dur_loads=fsync-none,... the
# loads), e.g.
# dur_cases_fsync=sec-meta,sec-nometa,pri-meta,pri-nometa (dur_cases_range
# likewise); NM_PROTOS=C runs one protocol.  pc_scenario's checks,
# <P>/<L>/<case>/{cut/primary,cut/secondary,resynced/primary,
# resynced/secondary,identical,on-peer-at-ack} (where promised; the others
# logged: on-peer-at-ack, each write read back from the secondary's disk
# right when its fsync or sync_file_range returned, is checked under C),
# and:
#   <P>/<L>/<case>/load-at-cut  the writer was still writing when the
#                            power went (else the cut hit an idle device)
#   <P>/<L>/<case>/merged    writes were merged during the load: the
#                            primary sent fewer than a quarter as many
#                            writes (status writes_sent: a merged run
#                            counts once, each fsync's flush too) as pages
#                            were acknowledged before the cut (unmerged:
#                            as many writes as pages, or more)
load_netmirror
. /tests/nmlib.sh
. /tests/dur-lib.sh
. /tests/dur-power-lib.sh
. /tests/dur-powercut.sh
MB=64
J=1
LOAD_MS=${dur_load_ms:-1500}	# the load: ~2.5 s (A) to 3.5 s (C) for 64 MiB
NMOPTS="timeout 2000 ping 500"
EVERY=${dur_every:-96}	# writes per fsync / sync_file_range
MW=/sys/module/dm_netmirror/parameters/merge_writes
[ "$(cat $MW)" = Y ] || fail "merge_writes is not on by default"
echo "${dur_merge:-Y}" > $MW || fail "merge_writes=${dur_merge:-Y}"
log "merge_writes=$(cat $MW)"

# --- the model: buffered writes survive a power cycle of null_blk once
# fsync'ed, not when only written back (sync_file_range: no flush)
nl_create nlx 16
check nullblk/buffered-write seqw write /dev/nlx 21 --size 4M --count 256 --buffered 32 --log /tmp/nx1 --quiet
check nullblk/range-write seqw write /dev/nlx 22 --size 4M --offset 4M --count 256 --buffered 32 --range --log /tmp/nx2 --quiet
check nullblk/range-before seqw verify /dev/nlx 22 --size 4M --offset 4M --log /tmp/nx2 --quiet
nl_power nlx 0
nl_power nlx 1
check nullblk/buffered-fsync-kept seqw verify /dev/nlx 21 --size 4M --log /tmp/nx1
check_fail nullblk/range-unflushed-dropped seqw verify /dev/nlx 22 --size 4M --offset 4M --log /tmp/nx2 --quiet
nl_destroy nlx

seed=200
for P in $(nm_protos); do
	for load in $(echo "${dur_loads:-fsync,range,fsync-drain,fsync-none}" | tr , " "); do
		PC_ORD=flush
		case $load in
		fsync)	PC_WRITE="--buffered $EVERY" PC_DURABLE=yes cases=${dur_cases_fsync:-sec-meta,pri-meta} ;;
		range)	PC_WRITE="--buffered $EVERY --range" PC_DURABLE=no cases=${dur_cases_range:-sec-meta,pri-meta} ;;
		*)	PC_ORD=${load#fsync-}
			PC_WRITE="--buffered $EVERY" PC_DURABLE=yes cases=${dur_cases_ord:-sec-meta} ;;
		esac
		PC_TAG=$load PC_ACKCHECK=yes
		for c in $(echo "$cases" | tr ',' ' '); do
			pc_scenario "${c%-*}" "${c#*-}"
			log "$PC_NAME: $PC_SENT writes sent for $PC_ACKED pages acknowledged before the cut"
			check_eq "$PC_NAME/load-at-cut" "$PC_RUNNING" yes
			check "$PC_NAME/merged" [ "$PC_SENT" -gt 0 -a $((PC_SENT * 4)) -lt "$PC_ACKED" ]
		done
	done
done
exit 0
