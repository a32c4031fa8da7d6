# vms: 1
# disks: none
# timeout: 600
# mem: 1024
# (header keys first: run-test.sh reads them from the first 30 lines only)
# A primary stops with writes in flight (its link frozen, then a power
# loss of its data and metadata devices) and comes back as a SECONDARY:
# the pair, two secondaries of one data generation, resyncs the regions it
# had marked from it at once, as DRBD does from a "crashed primary", and
# says in sync only once the disks are equal.  Under A the writes
# acknowledged while the link was frozen are only on the crashed node's
# disk: a later failover to the other node must still find them
# (docs/design.md, "primary crash": "their regions are resynced from the
# primary when it returns").  On 1.17.1 nothing was resynced while both
# were secondary (status stayed short of N/N), and the promotion of the
# survivor then made its older copy win: A's acknowledged writes were lost
# on both disks.  The same test found a second gap under A: the power
# cut fails nma's disk first, nma detaches and, diskless, completed the
# writes still coming at their send, a copy on no disk (acked-on-nlb
# failed on 4542da0); since 1.17.2 a diskless primary's writes complete
# only once on the peer's disk (ACK_DISK), under B too.
#
# One VM, both nodes on loopback, data and metadata on cached configfs
# null_blk (guest-lib/dur-power-lib.sh: power 0 frees the cache unwritten).
# For each protocol A, B, C: nma primary, a writer (pattern write --sync
# --no-fsync: one 64 KiB O_DIRECT|O_DSYNC write a round at 16 MiB or 16 MiB
# + 64 KiB by turns, a new seed each round; a round that succeeds is
# exactly a durable acknowledged write) runs through nma; the wire freezes
# (lo down), half a second later nma's disks lose power while its link is
# still up (its timeout 2 s: a write completed after the link is declared
# dead would start a new generation, and the newer one is the source
# anyway), the writer stops, nma is removed; wire and power come back and
# nma is created again on the same disks, without `role primary`.
# Checks <P>/...:
#   writer-wrote     the writer had rounds that succeeded
#   resynced         both nodes uptodate/uptodate and in sync (N/N)
#   from-crashed     nma was the resync source (its log says so)
#   acked-on-nlb     the last two rounds that succeeded are on nlb's media
#                    (round W1 - 1's area may hold the failed round W1 + 1
#                    that was in flight at the cut: nm_check_sync_rounds)
#   identical        both backing devices equal
#   failover         nmb promoted: the same two rounds read through nmb
#   identical-after  both backing devices equal after a write through nmb
#   pri-flag-set     (1.18.13) nma's superblock has flag 0x8 (primary)
#   pri-flag-cleared the resync from nma cleared it
#   pri-flag-peer    nmb's superblock has it once nmb is promoted
#   pri-flag-demoted nmb demoted, connected and in sync: its flag goes
#                    once nma confirmed all of nmb's writes stable
# Then each protocol once more with marks on BOTH nodes before the crash
# (checks <P>/verify/...): one 4 KiB block of nlb (nmb's disk, outside
# the writer's area) is overwritten below netmirror and a `verify` on nma
# finds it, which marks its region out of sync on both nodes until the
# next link (ov_hold).  The marks of two secondaries then no longer say
# which one was the primary: up to 1.18.12 (eq_marks from the marks
# alone) neither was the source, nothing was resynced (status short of
# N/N) and a promotion of nmb made its copy win, A's acknowledged writes
# lost.  Since 1.18.13 the metadata records a primary (NM_MF_PRIMARY),
# and a node that stopped as primary is the source (DRBD's crashed
# primary).  Extra checks: verify-found (verify_diffs >= 1) and
# marked-both (nmb has a region out of sync before the crash).
load_netmirror
. /tests/nmlib.sh
. /tests/dur-lib.sh
. /tests/dur-power-lib.sh
MB=32
S=$((MB * 2048))
OPTS="timeout 2000 ping 500"

table_b() {
	echo "0 $S netmirror /dev/nlb 127.0.0.1:7789 $P flush 10 listen 127.0.0.1:7790 meta /dev/nlmb sync none $OPTS"
}

# the primary's table; with "sec", the same without its role (a secondary)
table_a() {
	local r="role primary " n=12
	[ "${1:-}" = sec ] && r="" n=10
	echo "0 $S netmirror /dev/nla 127.0.0.1:7790 $P flush $n listen 127.0.0.1:7789 ${r}meta /dev/nlma sync none $OPTS"
}

scenario() {
	local t0 st v=${1:-}
	NM_CHECK_PREFIX=$P/${v:+$v/}
	nl_create nla $MB
	nl_create nlb $MB
	nl_create nlma 4
	nl_create nlmb 4
	dmsetup create nmb --table "$(table_b)" || fail "create nmb"
	dmsetup create nma --table "$(table_a)" || fail "create nma"
	nm_wait_synced nma 60 && nm_wait_synced nmb 30 || fail "first sync: $(dmsetup status nma)"
	pattern write /dev/mapper/nma 1 8M --size 8M --direct --quiet || fail "first write"
	check_eq pri-flag-set "$(nm_sb_primary /dev/nlma)" 1
	if [ "$v" = verify ]; then
		# a block at 28 MiB differs on nmb's disk only: verify marks its
		# region on both nodes, held for the next link
		$DD if=/dev/urandom of=/dev/nlb bs=4k seek=$((28 * 256)) count=1 oflag=direct conv=notrunc status=none ||
			fail "overwrite a block of nlb"
		dmsetup message nma 0 verify || fail "verify"
		wait_eval "[ \"\$(nm_status nma verify)\" = done ]" 60 ||
			fail "verify did not end: $(dmsetup status nma)"
		check verify-found [ "$(nm_status nma verify_diffs)" -ge 1 ]
		check marked-both eval "! nm_synced nmb"
	fi
	nm_round_writer nm_sync_round write /dev/mapper/nma
	sleep 2
	t0=$(now_ms)
	wire_cut
	sleep 0.5
	nl_power nla 0
	nl_power nlma 0
	st=$(dmsetup status nma)
	touch /tmp/stop
	wait $WPID
	W1=$(cat /tmp/wr.n 2> /dev/null || echo 0)
	log "$P: cut at $t0 ms, power off at $(now_ms) ms: nma $st; writer rounds (n rc ms): $(tail -n 6 /tmp/wr.log | tr '\n' ';'); last good round $W1"
	remove_retry nma "after its power cut"
	wait_eval "[ \"\$(nm_status nmb connection)\" = connecting ]" 30 ||
		fail "the secondary did not see the link die: $(dmsetup status nmb)"
	wire_restore
	nl_power nla 1
	nl_power nlma 1
	check writer-wrote [ "$W1" -gt 0 ]
	dur_recreate_nma resynced "$(table_a sec)"
	# the scenario's premise (nobody promotes here), not a check
	[ "$(nm_status nma role)/$(nm_status nmb role)" = secondary/secondary ] ||
		fail "$P: a node is primary: nma $(dmsetup status nma) | nmb $(dmsetup status nmb)"
	log "$P: nma $(dmsetup status nma); nmb $(dmsetup status nmb)"
	log "$P: log: $(dmesg | tail -n +$((SINCE + 1)) | grep -E 'netmirror: [0-9:]*: .*(resync|generation|marked)' | tail -n 4 | tr '\n' ';')"
	check from-crashed eval "dmesg | tail -n +$((SINCE + 1)) | grep -q \"netmirror: \$MMA: resync started\""
	check_wait pri-flag-cleared 10 "[ \$(nm_sb_primary /dev/nlma) = 0 ]"
	[ "$W1" -gt 0 ] && nm_check_sync_rounds acked-on-nlb /dev/nlb
	dur_same identical /dev/nla /dev/nlb
	check failover dmsetup message nmb 0 primary
	check_eq pri-flag-peer "$(nm_sb_primary /dev/nlmb)" 1
	[ "$W1" -gt 0 ] && nm_check_sync_rounds acked-after-failover /dev/mapper/nmb
	pattern write /dev/mapper/nmb 7 4M --size 4M --direct --quiet || fail "write through nmb"
	dur_settled_same identical-after 60 /dev/nla /dev/nlb
	dmsetup message nmb 0 secondary || fail "demote nmb"
	check_wait pri-flag-demoted 10 "[ \$(nm_sb_primary /dev/nlmb) = 0 ]"
	nm_local_unpair
	nl_destroy nla
	nl_destroy nlb
	nl_destroy nlma
	nl_destroy nlmb
}

for P in $(nm_protos); do
	scenario
done
for P in $(nm_protos); do
	scenario verify
done
NM_CHECK_PREFIX=
exit 0
