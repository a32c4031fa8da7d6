# A primary whose disk is being resynced from its secondary (after
# `attach`) loses the link: nothing it acknowledged is lost, and the pair
# resyncs when the link is back.  Up to 1.15.4 such a primary kept
# taking writes on its inconsistent disk while disconnected: the first
# started a new data generation, so the next handshake called its disk
# the newer one; being inconsistent it could not be the resync source,
# the secondary's good disk was set outdated, and the pair stayed
# inconsistent/outdated with no resync and every read of an unsynced
# region failing.  1.16.0 also fails a write whose peer part is given up
# when the link goes (NM_REQ_LOCAL_STALE): its local copy is on a disk
# the resync overwrites.  1.17.0 (wire protocol 8, NM_DF_ACK_DISK) makes
# such writes wait, under A and B too, until they are on the peer's disk:
# up to 1.16.0 a write acknowledged under A at its send, or under B at
# its receipt, and lost with the link was overwritten by the resync.
#
# The writer's rounds are O_DIRECT writes with no fsync after them (brd
# has no volatile cache), so a round that succeeds is exactly an
# acknowledged write: the round mapped after the wire died (the link is
# still up until the timeout) hangs and must fail.  Before the changes
# above: under C without NM_REQ_LOCAL_STALE the hung round succeeded at
# the give-up and the resync overwrote it (hung-failed and acked-kept
# failed); under A the rounds after the cut completed at their send and
# were overwritten.  Up to 1.16.0's first test the rounds ended with an
# fsync, which the refusal failed, so the check could not see it.
#
# One VM, both nodes on loopback, 32 MiB devices; nma's disk a dm-linear
# swapped for a failing dm-flakey to detach it.  For each protocol A, B,
# C: nmb's resync paused, nma detached and attached again (inconsistent,
# every region to resync); a writer (pattern write --direct --no-fsync,
# one 64 KiB write a round at 16 MiB or 16 MiB + 64 KiB by turns, a new
# seed each round: the write hanging when the wire dies is a round of its
# own) runs through nma while
# the wire goes dead (lo down: what is in flight is lost, timeout 2000
# ends the link); a 4 KiB write is made while the link is down; the wire
# is back, the nodes reconnect, nmb resumes.  Checks <P>/...:
#   detached, attach
#   target        nma became sync_target (the resync, paused, is on)
#   cut           the link is down
#   write-refused the write while disconnected failed (no uptodate copy
#                 is reachable; 1.15.4 wrote it to the inconsistent disk)
#   resynced      nma uptodate and in sync again (no wedge)
#   gens-equal    both nodes show the same generation
#   hung-failed   a round hung at the cut and failed (its write was sent
#                 into the dead wire; the peer part was given up)
#   writer-wrote  the writer had rounds that succeeded before the cut
#   acked-kept    the writer's last round that succeeded reads back
#   identical     both backing devices equal
# vms: 1
# disks: none
# timeout: 400
load_netmirror
. /tests/nmlib.sh
. /tests/dur-lib.sh
. /tests/dur-power-lib.sh
modprobe dm-flakey || fail "modprobe dm-flakey"
S=65536

# round N's 64 KiB write on DEV, in two areas by turns (a failed round
# leaves the last good one): write or verify
round() {
	pattern "$1" "$2" $((100 + $3)) 64k --size 64k --offset $((16384 + $3 % 2 * 64))k \
		--bs-min 65536 --bs-max 65536 --direct --no-fsync --quiet
}

for P in $(nm_protos); do
	NM_CHECK_PREFIX=$P/
	brd_setup 32 2
	dmsetup create lowa --table "0 $S linear /dev/ram0 0" || fail "create lowa"
	nm_local_pair "$P" flush "" /dev/mapper/lowa /dev/ram1 "timeout 2000 ping 500" "timeout 2000 ping 500"
	pattern write /dev/mapper/nma 1 8M --size 8M --direct --quiet || fail "first write"
	nm_reattach_paused /dev/ram0
	nm_round_writer round write /dev/mapper/nma
	sleep 2
	log "$P: wire cut at $(now_ms) ms"
	wire_cut	# what was on the wire is lost; the peer timeout ends the link
	check_wait cut 20 "[ \"\$(nm_status nma connection)\" = connecting ]"
	touch /tmp/stop
	wait $WPID
	w1=$(cat /tmp/wr.n 2> /dev/null || echo 0)
	check_fail write-refused $DD if=/dev/urandom of=/dev/mapper/nma bs=4k seek=200 count=1 oflag=direct conv=notrunc status=none
	log "$P: link down: nma $(dmsetup status nma)"
	wire_restore
	dmsetup message nmb 0 resume_resync || fail "resume_resync"
	check resynced nm_wait_synced nma 90
	check_wait uptodate 20 "[ \"\$(nm_status nma disks)\" = uptodate/uptodate ]"
	check_eq gens-equal "$(nm_status nma generation)" "$(nm_status nmb generation)"
	log "$P: writer rounds (n rc ms): $(tail -n 6 /tmp/wr.log | tr '\n' ';')"
	log "$P: writer's last good round $w1; nma $(dmsetup status nma); nmb $(dmsetup status nmb)"
	# a round of 1.5 s or more that failed: it hung at the cut
	check hung-failed awk 'BEGIN { p = 0; f = 1 } { if (p && $3 - p >= 1500 && $2 != 0) f = 0; p = $3 } END { exit f }' /tmp/wr.log
	check writer-wrote [ "$w1" -gt 0 ]
	if [ "$w1" -gt 0 ]; then
		check acked-kept round verify /dev/mapper/nma "$w1"
	fi
	dur_settled_same identical 60 /dev/ram0 /dev/ram1
	nm_local_unpair
	dmsetup remove lowa || fail "remove lowa"
done
NM_CHECK_PREFIX=
exit 0
