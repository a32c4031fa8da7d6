# Split-brain recovery policies, stale nodes and force (issue 11), one VM,
# both nodes on loopback with metadata devices, under each protocol A, B, C
# (checks <P>/...).
#   Each policy scenario splits the pair (both write while apart, the
#   secondary promoted alone), re-creates both devices with the policy in
#   the table and the roles of the scenario, and checks who won: both disks
#   equal to the winner's, the kernel log names the policy.
#     0pri discard_least_changes, discard_younger_primary (the older
#     primary wins although it changed less; also when the younger was
#     promoted by a table with role primary, younger-by-table: fails on
#     1.18.19), discard_zero_changes;
#     1pri discard_secondary (the secondary loses although it changed
#     more), consensus refusing to discard the primary (both standalone
#     split_brain, disks untouched; then discard_my_data resolves it).
#   stale: a secondary whose resync has started (paused) is inconsistent,
#     refuses "primary", accepts "force_primary" (logged).
#   diskless: a primary whose disk failed reads a region its inconsistent
#     peer lacks: EIO, never the old data.
# Fails on 43d0dd8's kernel (no after_sb options; a stale secondary is
# promoted; the peer serves old data).
# vms: 1
# disks: none
# timeout: 900
load_netmirror
. /tests/nmlib.sh
modprobe dm-flakey || fail "modprobe dm-flakey"
brd_setup 16 4
S=$(( $(dev_size /dev/ram0) / 512 ))

# mk ROLE_A ROLE_B [OPTS]: create nma (lowa, meta ram2) and nmb (lowb, meta ram3)
mk() {
	local oa="meta /dev/ram2 ${3:-}" ob="meta /dev/ram3 ${3:-}"
	[ "$1" = primary ] && oa="role primary $oa"
	[ "$2" = primary ] && ob="role primary $ob"
	# shellcheck disable=SC2086
	dmsetup create nmb --table "0 $S netmirror /dev/mapper/lowb 127.0.0.1:7789 $P flush $(( 2 + $(echo $ob | wc -w) )) listen 127.0.0.1:7790 $ob" ||
		fail "create nmb ($*)"
	# shellcheck disable=SC2086
	dmsetup create nma --table "0 $S netmirror /dev/mapper/lowa 127.0.0.1:7790 $P flush $(( 2 + $(echo $oa | wc -w) )) listen 127.0.0.1:7789 $oa" ||
		fail "create nma ($*)"
}
rm_pair() {
	dmsetup remove nma || fail "remove nma"
	dmsetup remove nmb || fail "remove nmb"
}
# split MIB_A MIB_B: apart, nma (primary) writes MIB_A MiB over the MIB_A
# MiB from 1 MiB, nmb is promoted alone and writes MIB_B MiB over the MIB_B
# MiB from 8 MiB (0: promoted, no write), is demoted; both devices are
# removed (standalone); sa/sb: the disks' sums.  A side's changed regions
# are about 2 per MiB (region 512 KiB): the counts differ when the sizes do.
split() {
	dmsetup message nma 0 disconnect && dmsetup message nmb 0 disconnect ||
		fail "disconnect"
	nm_wait_conn nma standalone 20 && nm_wait_conn nmb standalone 20 ||
		fail "not standalone"
	if [ "${3:-}" = table ]; then
		# promoted by its table, as after a restart with role primary
		dmsetup remove nmb || fail "remove nmb"
		dmsetup create nmb --table "0 $S netmirror /dev/mapper/lowb 127.0.0.1:7789 $P flush 6 listen 127.0.0.1:7790 role primary meta /dev/ram3" ||
			fail "create nmb as primary"
		nm_wait_conn nmb connecting 20 || fail "nmb: $(dmsetup status nmb)"
		dmsetup message nmb 0 disconnect || fail "disconnect nmb again"
	else
		dmsetup message nmb 0 primary || fail "promote nmb alone"
	fi
	seed=$((seed + 1))
	[ "$1" = 0 ] || pattern write /dev/mapper/nma $seed "${1}M" --offset 1M --size "${1}M" \
		--direct --quiet || fail "write on nma"
	[ "$2" = 0 ] || pattern write /dev/mapper/nmb $((seed + 50)) "${2}M" --offset 8M --size "${2}M" \
		--direct --quiet || fail "write on nmb"
	dmsetup message nmb 0 secondary || fail "demote nmb"
	rm_pair
	sa=$(dev_sum /dev/ram0)
	sb=$(dev_sum /dev/ram1)
	[ "$sa" != "$sb" ] || fail "split: the disks do not differ"
	dmesg -c > /dev/null
}
# resolved NAME WINNER_SUM POLICY: both synced, both disks WINNER_SUM
resolved() {
	check_wait "$1/synced" 60 "nm_synced nma && nm_synced nmb && [ \"\$(nm_status nma disk)/\$(nm_status nma peer_disk)\" = uptodate/uptodate ]"
	check_eq "$1/a-winner" "$(dev_sum /dev/ram0)" "$2"
	check_eq "$1/b-winner" "$(dev_sum /dev/ram1)" "$2"
	check "$1/logged" sh -c "dmesg | grep -q 'resolved by $3'"
}
seed=100

round() {
	nm_zero /dev/ram2 /dev/ram3
	dmsetup create lowa --table "0 $S linear /dev/ram0 0" || fail "create lowa"
	dmsetup create lowb --table "0 $S linear /dev/ram1 0" || fail "create lowb"
	mk primary secondary
	nm_wait_synced nma 60 || fail "first sync: $(dmsetup status nma)"
	pattern write /dev/mapper/nma 1 16M --direct --quiet || fail "first write"
	nm_wait_synced nma 60 || fail "not synced: $(dmsetup status nma)"
	nm_wait_confirmed nma || fail "writes unconfirmed: $(dmsetup status nma)"
	check_eq first/generation-shown "$(nm_status nma generation)" "$(nm_status nmb generation)"
	check_eq first/generation-hex "$(nm_status nma generation | grep -cE '^[0-9a-f]{16}$')" 1

	# --- 0pri discard_least_changes: nma changed more
	split 4 1
	mk secondary secondary "after_sb_0pri discard_least_changes"
	resolved least-changes "$sa" after_sb_0pri
	dmsetup message nma 0 primary || fail "promote nma"

	# --- 0pri discard_younger_primary: nma (primary at the split) changed less
	split 1 4
	mk secondary secondary "after_sb_0pri discard_younger_primary"
	resolved younger-primary "$sa" after_sb_0pri
	dmsetup message nma 0 primary || fail "promote nma"

	# --- the same, nmb promoted by a table with role primary: it is the
	# younger primary too (up to 1.18.19 its first write apart counted it
	# as the older one, both were, and the least changes decided: nma's
	# writes were discarded)
	split 1 4 table
	mk secondary secondary "after_sb_0pri discard_younger_primary"
	resolved younger-by-table "$sa" after_sb_0pri
	dmsetup message nma 0 primary || fail "promote nma"

	# --- 0pri discard_zero_changes: nmb was promoted but wrote nothing
	split 1 0
	mk secondary secondary "after_sb_0pri discard_zero_changes"
	resolved zero-changes "$sa" after_sb_0pri
	dmsetup message nma 0 primary || fail "promote nma"

	# --- 1pri discard_secondary: nmb changed more, but is the secondary
	split 1 3
	mk primary secondary "after_sb_1pri discard_secondary"
	resolved discard-secondary "$sa" after_sb_1pri

	# --- 1pri consensus: 0pri (least changes) would discard the primary: refused
	# (the marks of the regions nma resynced in the rounds before went
	# when nmb confirmed each resync: "resolved" waited for that)
	split 1 3
	mk primary secondary "after_sb_0pri discard_least_changes after_sb_1pri consensus"
	check_wait consensus/a-refused 30 "nm_standalone nma split_brain"
	check_wait consensus/b-refused 30 "nm_standalone nmb split_brain"
	sleep 1
	check_eq consensus/a-untouched "$(dev_sum /dev/ram0)" "$sa"
	check_eq consensus/b-untouched "$(dev_sum /dev/ram1)" "$sb"
	dmsetup message nmb 0 discard_my_data || fail "discard_my_data"
	dmsetup message nmb 0 connect && dmsetup message nma 0 connect || fail "connect"
	check_wait consensus/manual-synced 60 "nm_synced nma && nm_synced nmb"
	check_eq consensus/manual-identical "$(dev_sum /dev/ram1)" "$sa"

	# --- a stale secondary: its resync started (paused), then the link went
	dmsetup message nmb 0 disconnect || fail "disconnect nmb"
	nm_wait_conn nmb standalone 20 || fail "nmb not standalone"
	pattern write /dev/mapper/nma 61 1M --offset 2M --direct --quiet || fail "stale: write"
	dmsetup message nma 0 pause_resync || fail "pause_resync"
	dmsetup message nmb 0 connect || fail "connect nmb"
	check_wait stale/inconsistent-at-resync-start 30 "[ \"\$(nm_status nmb disk)\" = inconsistent ]"
	dmsetup message nmb 0 disconnect || fail "disconnect nmb"
	nm_wait_conn nmb standalone 20 || fail "nmb not standalone"
	dmesg -c > /dev/null
	check_fail stale/promotion-refused dmsetup message nmb 0 primary
	check_eq stale/still-secondary "$(nm_status nmb role)" secondary
	check stale/refusal-logged sh -c "dmesg | grep -q 'refusing to become primary: local disk is inconsistent'"
	check stale/force-accepted dmsetup message nmb 0 force_primary
	check_eq stale/forced-state "$(nm_status nmb role) $(nm_status nmb disk)" "primary uptodate"
	check stale/force-logged sh -c "dmesg | grep -q 'force_primary: promoting a inconsistent disk'"
	# undo: nmb's forced data goes, nma's comes back
	dmsetup message nmb 0 secondary || fail "demote nmb"
	dmsetup message nmb 0 discard_my_data || fail "discard_my_data nmb"
	dmsetup message nma 0 resume_resync || fail "resume_resync"
	dmsetup message nmb 0 connect || fail "connect nmb"
	check_wait stale/resynced 60 "nm_synced nma && nm_synced nmb"
	check_eq stale/identical "$(dev_sum /dev/ram1)" "$(dev_sum /dev/ram0)"

	# --- a diskless primary reads what its (inconsistent) peer lacks: EIO
	dmsetup message nmb 0 disconnect || fail "disconnect nmb"
	nm_wait_conn nmb standalone 20 || fail "nmb not standalone"
	pattern write /dev/mapper/nma 71 1M --offset 10M --direct --quiet || fail "diskless: write"
	dmsetup message nma 0 pause_resync || fail "pause_resync"
	dmsetup message nmb 0 connect || fail "connect nmb"
	check_wait diskless/peer-inconsistent 30 "[ \"\$(nm_status nmb disk)\" = inconsistent ]"
	dmsetup reload lowa --table "0 $S flakey /dev/ram0 0 0 3600" && dmsetup resume lowa ||
		fail "fail nma's disk"
	check_fail diskless/read-fails $DD if=/dev/mapper/nma of=/dev/null bs=1M skip=10 count=1 iflag=direct status=none
	check_eq diskless/detached "$(nm_status nma disk)" diskless
	rm_pair
	dmsetup remove lowa lowb || fail "remove lowa lowb"
}

nm_each_proto round
exit 0
