# shellcheck shell=sh disable=SC3043
# Helpers of the durability fault soak (issue 10: tests/vm/scenarios/
# dur-fault-soak.sh, node a = tests/vm/nodes/dur-fault-soak-node.sh);
# installed as /tests/dur-soak-lib.sh, sourced on both nodes (after lib.sh).
# Not a test itself.
#
# The load: fio, libaio, O_DIRECT, queue depth 16, random writes of
# 4..64 KiB, one job per "window" (SOAK_WIN bytes at window W * SOAK_WIN of
# /dev/mapper/nm0).  A job writes every block of its window once (fio's
# random map) and verifies it while writing (verify_backlog) and at the end.
# verify=pattern with a pattern naming the job's seed and each block's
# offset ("NMSOAK<seed>"%o): an older job's data, a block of another window,
# zeros or a torn write all fail the verification, including a later
# --verify_only run of the same job and seed on the other node.
# (verify=crc32c was tried first: its --verify_only accepts another seed's
# blocks, fio 3.33 checks only their own checksum.)  --verify_fatal=1, since
# fio 3.33 may exit 0 after a pattern mismatch without it; the output is
# also searched for "verify failed".
#
#   soak_fio write|verify WIN SEED   run the job; 0 = written and verified /
#                         verified; fio's output in /tmp/soak-fio.out
#   soak_region_sums DEV  "REGION MD5" per 512 KiB region (O_DIRECT)
#   soak_sum DEV          sha256 of the whole device (O_DIRECT)

SOAK_WIN=${SOAK_WIN:-8388608}
SOAK_RS=524288

soak_fio() {
	local mode=$1 w=$2 seed=$3 extra rc
	case $mode in
	write) extra="--verify_backlog=32" ;;
	verify) extra="--verify_only" ;;
	*) echo "soak_fio: write|verify" >&2; return 2 ;;
	esac
	# shellcheck disable=SC2086
	(cd /tmp && fio --name=soak --filename=/dev/mapper/nm0 --rw=randwrite \
		--bsrange=4k-64k --offset=$((w * SOAK_WIN)) --size=$SOAK_WIN \
		--randseed="$seed" --ioengine=libaio --iodepth=16 --direct=1 \
		--verify=pattern --verify_pattern="\"NMSOAK$(printf %08d "$seed")\"%o" \
		--verify_fatal=1 $extra --output-format=terse) > /tmp/soak-fio.out 2>&1
	rc=$?
	[ $rc = 0 ] && grep -qiE 'verify failed|bad magic|bad header|err=[ ]*[1-9]' /tmp/soak-fio.out && rc=99
	return $rc
}

soak_region_sums() {
	local dev=$1 n i=0
	n=$(( $(blockdev --getsize64 "$dev") / SOAK_RS ))
	while [ $i -lt $n ]; do
		echo "$i $($DD if="$dev" bs=$SOAK_RS skip=$i count=1 iflag=direct status=none | $MD5SUM | cut -c1-32)"
		i=$((i + 1))
	done
}

soak_sum() {
	$DD if="$1" bs=1M iflag=direct status=none | $SHA256SUM | cut -c1-64
}
