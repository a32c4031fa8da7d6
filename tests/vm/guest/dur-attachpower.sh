# vms: 1
# disks: none
# timeout: 600
# mem: 1024
# (header keys first: run-test.sh reads them from the first 30 lines only)
# A primary whose disk is being resynced from its secondary (after
# `attach`) takes durable writes (O_DIRECT|O_DSYNC), then a node loses
# power: every write acknowledged is on the secondary's disk right after
# the power cut, and on both disks once the pair has resynced.  The
# power-loss side of fault-attachcut (a link cut, brd): there the primary
# only needs the write on the peer; here the ack must also wait for the
# peer's FUA to reach its media, since the resync overwrites the primary's
# own copy.  Under A and B this is NM_DF_ACK_DISK (1.17.0, wire protocol
# 8): on 1.16.0 the rounds after the cut completed at their send under A
# and were never on the secondary's disk (cut/secondary and acked-kept
# fail there).
#
# One VM, both nodes on loopback, each on a cached configfs null_blk
# (guest-lib/dur-power-lib.sh: 32 MiB, cache as big, power 0 frees the
# cache unwritten), metadata on /dev/ram0 / ram1 (non-volatile brd); nma's
# disk a dm-linear over nla swapped for a failing dm-flakey to detach it.
# For each protocol A, B, C and each SIDE sec|pri: nmb's resync paused,
# nma detached and attached again (inconsistent, every region to resync);
# a writer (pattern write --sync --no-fsync: one 64 KiB O_DIRECT|O_DSYNC
# write a round at 16 MiB or 16 MiB + 64 KiB by turns, a new seed each
# round; a round that succeeds is exactly a durable acknowledged write)
# runs through nma; the wire freezes (lo down), SIDE's null_blk loses
# power and its netmirror is removed, the writer stops; wire and power
# come back, the node is created again on the same disks and metadata (nma
# as secondary: its disk is inconsistent, and a table that makes such a
# disk primary is refused), nmb resumes its resync.  Checks <P>/<SIDE>/...:
#   detached, attach, target   nma detached, attached, sync_target
#   writer-wrote   the writer had rounds that succeeded
#   cut/secondary  right after power is back, the last two rounds that
#                  succeeded (one in each area) are on nlb's media
#   resynced       nma uptodate and in sync again
#   acked-kept     the same two rounds read back through nma (sec), or
#                  from nla (pri: nma is a secondary now)
#   identical      both backing devices equal (nla, nlb)
load_netmirror
. /tests/nmlib.sh
. /tests/dur-lib.sh
. /tests/dur-power-lib.sh
modprobe dm-flakey || fail "modprobe dm-flakey"
MB=32
S=$((MB * 2048))
OPTS="timeout 2000 ping 500"

table_b() {
	echo "0 $S netmirror /dev/nlb 127.0.0.1:7789 $P flush 10 listen 127.0.0.1:7790 meta /dev/ram1 sync none $OPTS"
}

table_a() {
	echo "0 $S netmirror /dev/mapper/lowa 127.0.0.1:7790 $P flush 10 listen 127.0.0.1:7789 meta /dev/ram0 sync none $OPTS"
}

scenario() {
	local side=$1 t0
	NM_CHECK_PREFIX=$P/$side/
	nl_create nla $MB
	nl_create nlb $MB
	brd_setup 4 2
	dmsetup create lowa --table "0 $S linear /dev/nla 0" || fail "create lowa"
	nm_local_pair "$P" flush "$S" /dev/mapper/lowa /dev/nlb "meta /dev/ram0 $OPTS" "meta /dev/ram1 $OPTS"
	pattern write /dev/mapper/nma 1 8M --size 8M --direct --quiet || fail "first write"
	nm_reattach_paused /dev/nla
	nm_round_writer nm_sync_round write /dev/mapper/nma
	sleep 2
	t0=$(now_ms)
	wire_cut
	if [ "$side" = sec ]; then
		nl_power nlb 0
		dmsetup remove nmb || fail "remove nmb after its power cut"
		wait_eval "[ \"\$(nm_status nma connection)\" = connecting ]" 30 ||
			fail "the primary did not see the link die: $(dmsetup status nma)"
		touch /tmp/stop
		wait $WPID
	else
		nl_power nla 0
		touch /tmp/stop
		wait $WPID
		remove_retry nma "after its power cut"
		dmsetup remove lowa || fail "remove lowa after the power cut"
		wait_eval "[ \"\$(nm_status nmb connection)\" = connecting ]" 30 ||
			fail "the secondary did not see the link die: $(dmsetup status nmb)"
	fi
	W1=$(cat /tmp/wr.n 2> /dev/null || echo 0)
	log "$P/$side: cut at $t0 ms; writer rounds (n rc ms): $(tail -n 6 /tmp/wr.log | tr '\n' ';'); last good round $W1"
	wire_restore
	if [ "$side" = sec ]; then nl_power nlb 1; else nl_power nla 1; fi
	check writer-wrote [ "$W1" -gt 0 ]
	if [ "$W1" -gt 0 ]; then nm_check_sync_rounds cut/secondary /dev/nlb; fi
	if [ "$side" = sec ]; then
		dmsetup create nmb --table "$(table_b)" || fail "create nmb again: $(table_b)"
	else
		dmsetup create lowa --table "0 $S linear /dev/nla 0" || fail "create lowa again"
		dmsetup create nma --table "$(table_a)" || fail "create nma again: $(table_a)"
		dmsetup message nmb 0 resume_resync || fail "resume_resync"
	fi
	check resynced nm_wait_synced nma 120
	check_wait uptodate 30 "[ \"\$(nm_status nma disks)\" = uptodate/uptodate ]"
	log "$P/$side: nma $(dmsetup status nma); nmb $(dmsetup status nmb)"
	if [ "$W1" -gt 0 ]; then
		if [ "$side" = sec ]; then nm_check_sync_rounds acked-kept /dev/mapper/nma; else nm_check_sync_rounds acked-kept /dev/nla; fi
	fi
	dur_settled_same identical 60 /dev/nla /dev/nlb
	nm_local_unpair
	dmsetup remove lowa || fail "remove lowa"
	nl_destroy nla
	nl_destroy nlb
}

for P in $(nm_protos); do
	scenario sec
	scenario pri
done
NM_CHECK_PREFIX=
exit 0
