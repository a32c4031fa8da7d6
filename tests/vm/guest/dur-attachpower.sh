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
# SIDE dl: a diskless primary (1.17.2) completes a write only once it is
# on its peer's disk, under every protocol.  nma is detached and stays so;
# its writes go to nmb only, whose disk is nlb with no volatile cache (a
# completed write is on the media) behind a dm-delay that holds each
# write 200 ms (a write nmb has received is not on its disk yet).  The
# rounds are O_DIRECT without O_DSYNC (NM_ROUND_MODE=--direct: an O_DSYNC
# write needs the peer's disk under B already).  The wire freezes and nlb
# loses power: each completed round must be on nlb's media
# (cut/secondary).  Then nmb comes back, nma attaches and is resynced from
# it (attach, resynced, acked-kept through nma, identical).  On 1.17.1 a
# diskless primary completed a write at its send (A) or at nmb's receipt
# (B): cut/secondary and acked-kept fail there.
load_netmirror
. /tests/nmlib.sh
. /tests/dur-lib.sh
. /tests/dur-power-lib.sh
modprobe dm-flakey || fail "modprobe dm-flakey"
MB=32
S=$((MB * 2048))
OPTS="timeout 2000 ping 500"

table_b() {
	echo "0 $S netmirror $BDEV 127.0.0.1:7789 $P flush 10 listen 127.0.0.1:7790 meta /dev/ram1 sync none $OPTS"
}

table_a() {
	echo "0 $S netmirror /dev/mapper/lowa 127.0.0.1:7790 $P flush 10 listen 127.0.0.1:7789 meta /dev/ram0 sync none $OPTS"
}

scenario() {
	local side=$1 t0
	NM_CHECK_PREFIX=$P/$side/
	nl_create nla $MB
	if [ "$side" = dl ]; then nl_create nlb $MB 0; else nl_create nlb $MB; fi
	brd_setup 4 2
	dmsetup create lowa --table "0 $S linear /dev/nla 0" || fail "create lowa"
	BDEV=/dev/nlb
	if [ "$side" = dl ]; then
		# no delay yet: under A the first write would still be going
		# through it when the writer starts
		dmsetup create delb --table "0 $S delay /dev/nlb 0 0" || fail "create delb"
		BDEV=/dev/mapper/delb
	fi
	nm_local_pair "$P" flush "$S" /dev/mapper/lowa $BDEV "meta /dev/ram0 $OPTS" "meta /dev/ram1 $OPTS"
	pattern write /dev/mapper/nma 1 8M --size 8M --direct --quiet || fail "first write"
	if [ "$side" = dl ]; then
		nm_detach_lowa /dev/nla
		# from now nlb's writes are held 200 ms, its reads not
		dmsetup suspend delb && dmsetup load delb --table "0 $S delay /dev/nlb 0 0 /dev/nlb 0 200" &&
			dmsetup resume delb || fail "delay nlb's writes"
	else
		nm_reattach_paused /dev/nla
	fi
	NM_ROUND_MODE=
	[ "$side" != dl ] || NM_ROUND_MODE=--direct
	nm_round_writer nm_sync_round write /dev/mapper/nma
	sleep 2
	t0=$(now_ms)
	wire_cut
	if [ "$side" != pri ]; then
		nl_power nlb 0
		remove_retry nmb "after its power cut"
		[ "$side" = sec ] || remove_retry delb "after the power cut"
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
	if [ "$side" = pri ]; then nl_power nla 1; else nl_power nlb 1; fi
	check writer-wrote [ "$W1" -gt 0 ]
	if [ "$W1" -gt 0 ]; then nm_check_sync_rounds cut/secondary /dev/nlb; fi
	if [ "$side" = sec ]; then
		dmsetup create nmb --table "$(table_b)" || fail "create nmb again: $(table_b)"
	elif [ "$side" = dl ]; then
		dmsetup create delb --table "0 $S linear /dev/nlb 0" || fail "create delb again"
		dmsetup create nmb --table "$(table_b)" || fail "create nmb again: $(table_b)"
		nm_wait_conn nma connected 30 || fail "nma did not connect: $(dmsetup status nma)"
		check attach dmsetup message nma 0 attach
	else
		dmsetup create lowa --table "0 $S linear /dev/nla 0" || fail "create lowa again"
		dmsetup create nma --table "$(table_a)" || fail "create nma again: $(table_a)"
		dmsetup message nmb 0 resume_resync || fail "resume_resync"
	fi
	check resynced nm_wait_synced nma 120
	check_wait uptodate 30 "[ \"\$(nm_status nma disks)\" = uptodate/uptodate ]"
	log "$P/$side: nma $(dmsetup status nma); nmb $(dmsetup status nmb)"
	if [ "$W1" -gt 0 ]; then
		if [ "$side" = pri ]; then nm_check_sync_rounds acked-kept /dev/nla; else nm_check_sync_rounds acked-kept /dev/mapper/nma; fi
	fi
	dur_settled_same identical 60 /dev/nla /dev/nlb
	nm_local_unpair
	dmsetup remove lowa || fail "remove lowa"
	[ "$side" = pri ] || [ "$side" = sec ] || dmsetup remove delb || fail "remove delb"
	nl_destroy nla
	nl_destroy nlb
}

for P in $(nm_protos); do
	scenario sec
	scenario pri
	scenario dl
done
NM_CHECK_PREFIX=
exit 0
