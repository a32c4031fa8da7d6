# A node that stopped as primary comes back as a secondary, and its peer
# (secondary, same data generation) is promoted in the moment between the
# connect and the start of the resync from the returning node.  Up to
# 1.18.12 the promotion was taken: the promoted node became the resync
# source (nm_is_source: a primary's data wins between equals) and its
# copy overwrote the regions the returning node had marked, writes of its
# under A acknowledged and held by it alone.  Since 1.18.13 the peer
# refuses the promotion until the resync into it ran (eq_marks < 0,
# nm_set_role; force_primary overrides).
#
# One VM, both nodes on loopback through slowfwd (tests/vm/src/slowfwd.c),
# 1 GiB (sparse brd) in 4 KiB regions (region_size 8): 262144 regions, a
# bitmap of eight 4 KiB P_BITMAP chunks; metadata on /dev/ram2 and
# /dev/ram3.  Under each protocol A, B, C (checks <P>/...):
#   - nma (primary) writes 4 MiB; one 4 KiB block in each 128 MiB (each
#     bitmap chunk) is overwritten on nmb's disk only, and `verify_range`
#     on nma finds the 8 (verify-found): their regions are marked on both
#     nodes until the next link (marked-both), so the marks alone do not
#     say which node returns as the crashed primary;
#   - nma is removed while primary (no `secondary`): its superblock keeps
#     the primary flag (flag-kept);
#   - the link is paced to 1 KiB/s each way (slowfwd passes 16 KiB at
#     once, then paces): each node's 32 KiB bitmap holds its
#     P_BITMAP_DONE about 16 s, and nma starts no resync before it;
#   - as soon as nmb is connected: `primary` on nmb is refused
#     (promote-refused; the first 1.18.13 took it: nmb's copy won) and nmb
#     is still secondary, not yet a resync target (window-open: the
#     premise, nmb's disk uptodate when refused);
#   - the link at full speed again: both in sync (resynced), the 8 blocks
#     on nmb are nma's again (kept-nma-blocks), both disks identical, and
#     nmb is promoted now (promote-after).
# vms: 1
# disks: none
# timeout: 600
load_netmirror
. /tests/nmlib.sh
S=$((1024 * 2048))
FWD=
# the 4 KiB blocks 8 MiB into each 128 MiB (32768 regions: a bitmap chunk)
BLKS="2048 34816 67584 100352 133120 165888 198656 231424"

# fwd [KIBS]: (re)start the forwarder, paced to KIBS KiB/s each way
fwd() {
	if [ -n "$FWD" ]; then
		kill "$FWD"
		wait "$FWD" 2> /dev/null
	fi
	slowfwd ${1:+--rate $1} 7791:7790:b:a 7792:7789:a:b &
	FWD=$!
	sleep 0.3
}


# DEV: the sums of the blocks of BLKS, in one line
blk_sums() {
	local b
	for b in $BLKS; do
		$DD if="$1" bs=4096 skip="$b" count=1 iflag=direct status=none | $MD5SUM | cut -c1-8
	done | tr '\n' ' '
}

table_a() {
	local r= n=10
	[ "${1:-}" = primary ] && r="role primary " n=12
	echo "0 $S netmirror /dev/ram0 127.0.0.1:7791 $P flush $n listen 127.0.0.1:7789 ${r}meta /dev/ram2 region_size 8 sync none timeout 30000"
}

table_b() {
	echo "0 $S netmirror /dev/ram1 127.0.0.1:7792 $P flush 10 listen 127.0.0.1:7790 meta /dev/ram3 region_size 8 sync none timeout 30000"
}

round() {
	local a0 b d=0
	NM_CHECK_PREFIX=$P/
	brd_setup 1024 4
	fwd
	dmsetup create nmb --table "$(table_b)" || fail "create nmb"
	dmsetup create nma --table "$(table_a primary)" || fail "create nma"
	nm_wait_synced nma 60 && nm_wait_synced nmb 30 || fail "first connect: $(dmsetup status nma)"
	$DD if=/dev/urandom of=/dev/mapper/nma bs=1M count=4 seek=6 oflag=direct status=none ||
		fail "write through nma"
	nm_wait_confirmed nma 30 || fail "the write is not confirmed"
	a0=$(blk_sums /dev/ram0)
	for b in $BLKS; do
		$DD if=/dev/urandom of=/dev/ram1 bs=4096 count=1 seek="$b" oflag=direct conv=notrunc status=none ||
			fail "overwrite block $b of nmb's disk"
		dmsetup message nma 0 verify_range $((b * 8)) 8 || fail "verify_range $b"
		wait_eval "[ \"\$(nm_status nma verify)\" = done ]" 30 ||
			fail "verify of $b did not end: $(dmsetup status nma)"
		d=$((d + $(nm_status nma verify_diffs)))
	done
	check_eq verify-found "$d" 8
	check marked-both eval "! nm_synced nmb && ! nm_synced nma"
	dmsetup remove nma || fail "remove nma"
	check_eq flag-kept "$(nm_sb_primary /dev/ram2)" 1
	wait_eval "[ \"\$(nm_status nmb connection)\" = connecting ]" 30 ||
		fail "nmb did not see the link end: $(dmsetup status nmb)"
	fwd 1
	dmsetup create nma --table "$(table_a)" || fail "create nma again"
	wait_eval "[ \"\$(nm_status nmb connection)\" = connected ]" 30 ||
		fail "no connect: $(dmsetup status nma) | $(dmsetup status nmb)"
	check_fail promote-refused dmsetup message nmb 0 primary
	log "$P: at the promotion: nma $(dmsetup status nma | cut -d' ' -f4-9); nmb $(dmsetup status nmb | cut -d' ' -f4-9)"
	check_eq still-secondary "$(nm_status nmb role)" secondary
	check_eq window-open "$(nm_status nmb disk)" uptodate
	fwd
	check_wait resynced 60 "nm_synced nma && nm_synced nmb && [ \$(nm_status nmb disks) = uptodate/uptodate ]"
	check_eq kept-nma-blocks "$(blk_sums /dev/ram1)" "$a0"
	check_eq identical "$(dev_sum /dev/ram1)" "$(dev_sum /dev/ram0)"
	check promote-after dmsetup message nmb 0 primary
	dmsetup remove nma || fail "remove nma"
	dmsetup remove nmb || fail "remove nmb"
	kill "$FWD"
	wait "$FWD" 2> /dev/null
	FWD=
}

for P in $(nm_protos); do
	round
done
NM_CHECK_PREFIX=
exit 0
