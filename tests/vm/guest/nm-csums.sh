# Checksum-based resync (table option "csums"): the target compares a
# digest per 4 KiB block of each marked region, and the source sends only
# the blocks that differ.  One VM, both nodes on loopback with metadata
# devices (32 MiB, 64 regions of 512 KiB), under each protocol A, B, C
# (checks <P>/...):
#   marked: what a primary crash leaves behind, made deterministic: 24
#     regions marked on the primary whose data is nevertheless equal on
#     both nodes.  The secondary disconnects, the primary writes 12 MiB
#     (regions 8..31: marked, and kept marked while the peer is away), both
#     are removed, and those 12 MiB are copied to the secondary's backing
#     device behind netmirror's back (as if they had reached it before
#     the crash); then 3 blocks there are overwritten (2 adjacent in
#     region 10, the last one of region 20).  The pair comes back and
#     resyncs: status says 12 MiB marked and compared and exactly the 3
#     blocks (12 KiB) sent, on both nodes (<= 10% of the marked bytes),
#     and both backing devices are identical;
#   marked-sha256 (C only: the digest does not depend on the protocol):
#     the same with csums sha256, and with verify_alg sha256 a verify
#     afterwards finds nothing, and says it used sha256;
#   invalidate: a full resync (the secondary invalidates: all 32 MiB
#     marked; under B with integrity crc32c) while the application
#     writes 2 MiB to the primary (writes
#     to regions not yet resynced are the resync's to send); 5 corrupted
#     blocks; it sends at least those and at most them plus the load
#     (<= 10% of the marked bytes); both backing devices identical, the
#     load's data intact.
# Baseline, under C only (csums none, the marked round): every marked byte
# is sent (resync_sent = resync_marked): the bound above is what csums
# buys, and the counters count what moves.
# Fails before 1.12 (no csums option, no resync_* status fields).
# vms: 1
# disks: none
# timeout: 900
load_netmirror
. /tests/nmlib.sh
brd_setup 32 4
S=$(( $(dev_size /dev/ram0) / 512 ))
REGION=524288
$DD if=/dev/urandom of=/tmp/r12 bs=1M count=12 status=none || fail "random data"

# marked regions in the first 8 bytes of a metadata image's bitmap (from
# byte 4096: 64 regions)
marks() {
	od -An -tu1 -j4096 -N8 "$1" | awk '{ for (i = 1; i <= NF; i++)
		for (v = $i; v; v = int(v / 2)) n += v % 2 } END { print n + 0 }'
}

# overwrite 4 KiB at each sector given, on the secondary's backing device
corrupt() {
	local s
	for s in "$@"; do
		$DD if=/dev/urandom of=/dev/ram1 bs=512 count=8 seek="$s" oflag=direct status=none ||
			fail "corrupt sector $s"
	done
}

# $1: check prefix, $2: csums word ("none" for the baseline)
marked_round() {
	local name=$1 alg=$2 sent_a sent_b marked=$((24 * REGION)) va="" rc
	[ "$alg" = sha256 ] && va=" verify_alg sha256"
	NM_CHECK_PREFIX=$P/$name/
	nm_zero /dev/ram2 /dev/ram3
	nm_local_pair "$P" flush "$S" /dev/ram0 /dev/ram1 \
		"meta /dev/ram2 sync none csums $alg" "meta /dev/ram3 csums $alg"
	lose_link
	$DD if=/tmp/r12 of=/dev/mapper/nma bs=1M seek=4 oflag=direct status=none ||
		fail "write 12M"
	check_eq primary-marks "$(marks /dev/ram2)" 24
	nm_local_unpair
	$DD if=/dev/ram0 of=/dev/ram1 bs=1M skip=4 seek=4 count=12 iflag=direct oflag=direct status=none ||
		fail "copy the 12 MiB"
	check_eq equal-before "$(dev_sum /dev/ram1)" "$(dev_sum /dev/ram0)"
	corrupt 10280 10288 21496
	nm_local_pair "$P" flush "$S" /dev/ram0 /dev/ram1 \
		"meta /dev/ram2 csums $alg$va" "meta /dev/ram3 csums $alg"
	sent_a=$(nm_status nma resync_sent)
	sent_b=$(nm_status nmb resync_sent)
	log "$P/$name: marked $(nm_status nma resync_marked) compared $(nm_status nma resync_compared) sent $sent_a (target: compared $(nm_status nmb resync_compared) received $sent_b)"
	check_eq marked "$(nm_status nma resync_marked)" "$marked"
	check_eq target-marked "$(nm_status nmb resync_marked)" "$marked"
	if [ "$alg" = none ]; then
		check_eq compared-none "$(nm_status nma resync_compared)" 0
		check_eq sent-all "$sent_a" "$marked"
		check_eq target-received-all "$sent_b" "$marked"
	else
		check_eq compared "$(nm_status nma resync_compared)" "$marked"
		check_eq target-compared "$(nm_status nmb resync_compared)" "$marked"
		check_eq sent-differing-only "$sent_a" $((3 * 4096))
		check_eq target-received-differing-only "$sent_b" $((3 * 4096))
		check sent-at-most-10pct [ $((sent_a * 10)) -le "$marked" ]
	fi
	if [ -n "$va" ]; then
		check_match table-verify-alg "$(dmsetup table nma)" " verify_alg sha256$"
		rc=0
		nmsetup verify nma --wait > /tmp/verify.out 2>&1 || rc=$?
		check_eq verify-sha256-none-differ "$rc" 0
		check verify-sha256-logged sh -c "dmesg | grep -q ': verify started: .*, sha256$'"
	fi
	check_wait settled-after 20 "[ \$(nm_status nma pending) = 0 ]"
	nm_local_unpair
	check_eq identical "$(dev_sum /dev/ram1)" "$(dev_sum /dev/ram0)"
	NM_CHECK_PREFIX=$P/
}

invalidate_round() {
	local sent rc=0 integ=""
	NM_CHECK_PREFIX=$P/invalidate/
	# under B, with a checksum on every packet (the blocks' pages go out
	# by reference: the trailer must cover them too)
	[ "$P" = B ] && integ=" integrity crc32c"
	nm_zero /dev/ram2 /dev/ram3
	nm_local_pair "$P" flush "$S" /dev/ram0 /dev/ram1 \
		"meta /dev/ram2 sync none csums crc32c$integ" "meta /dev/ram3 csums crc32c$integ"
	corrupt 40 2400 2408 16000 56000
	# a slow resync, so that the load meets it
	dmsetup message nma 0 resync_rate 8192 || fail "resync_rate"
	dmsetup message nmb 0 invalidate || fail "invalidate nmb"
	(pattern write /dev/mapper/nma 22 2M --size 2M --offset 24M --direct --quiet; echo $? > /tmp/load.rc) &
	check_wait load-ran-during-resync 60 "[ -e /tmp/load.rc ]"
	check_eq load-ok "$(cat /tmp/load.rc)" 0
	rm -f /tmp/load.rc
	dmsetup message nma 0 resync_rate 0 || fail "resync_rate 0"
	nm_wait_synced nma 120 || fail "no resync: $(dmsetup status nma)"
	nm_wait_synced nmb 30 || fail "nmb not in sync: $(dmsetup status nmb)"
	sent=$(nm_status nma resync_sent)
	log "$P/invalidate: marked $(nm_status nma resync_marked) compared $(nm_status nma resync_compared) sent $sent"
	check_eq marked "$(nm_status nma resync_marked)" $((S * 512))
	check sent-at-least-the-corrupted [ "$sent" -ge $((5 * 4096)) ]
	check sent-at-most-corrupted-and-load [ "$sent" -le $((5 * 4096 + 2097152)) ]
	check sent-at-most-10pct [ $((sent * 10)) -le $((S * 512)) ]
	check load-data pattern verify /dev/mapper/nma 22 2M --size 2M --offset 24M --direct --quiet || rc=1
	check_wait settled 20 "[ \$(nm_status nma pending) = 0 ]"
	nm_local_unpair
	check_eq identical "$(dev_sum /dev/ram1)" "$(dev_sum /dev/ram0)"
	NM_CHECK_PREFIX=$P/
	return $rc
}

# every round starts from equal backing devices (each ends checking it)
pattern write /dev/ram0 11 32M --direct --quiet || fail "seed ram0"
$DD if=/dev/ram0 of=/dev/ram1 bs=1M iflag=direct oflag=direct status=none || fail "copy"

round() {
	marked_round marked crc32c
	invalidate_round
	if [ "$P" = C ]; then
		marked_round marked-sha256 sha256
		marked_round baseline none
	fi
}

nm_each_proto round
exit 0
