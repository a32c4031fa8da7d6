# shellcheck shell=sh disable=SC3043,SC2034
# The benchmark's matrix, shared by the guest script (tests/vm/tools/bench.sh;
# installed as /tests/benchlib.sh) and the host runner (tests/bench/run.sh,
# which sources it from here for the run-time estimate).  POSIX sh: busybox
# ash in the guest, bash on the host.  Not a test itself.
#
#   BENCH_WORKLOADS       every workload id, in report order
#   BENCH_GROUPS          every configuration, in groups of configurations
#                         measured back to back (a netmirror config next to
#                         the DRBD config it is compared with); "," inside a
#                         group, " " between groups
#   bench_fio_args WL     fio options of workload WL (device, time, output
#                         and data options are added by the caller)
#   bench_select ALL WANT the words of ALL that are in WANT (" " or ","
#                         separated); all of ALL if WANT is empty
#   bench_groups CONFIGS  BENCH_GROUPS (+ nm-Cmac if CONFIGS has it) reduced
#                         to CONFIGS; empty groups dropped
#   bench_round_order R GROUPS   the configurations of round R (1-based), one
#                         a line: the groups rotated by R-1 (round 1 starts
#                         with the first group, round 2 with the second, ...)
#                         and the order inside each group reversed in even
#                         rounds, so no configuration always runs first, last
#                         or right after the same one
#   bench_estimate ROUNDS TIME RAMP NCONFIGS NWORKLOADS   estimated VM seconds
#                         of a whole run (boot and setup included)

BENCH_WORKLOADS="w512-q1 w4k-q1 rw4k-q32 w1m-q1 w4k-dsync"
BENCH_GROUPS="bare nm-disc,drbd-disc nm-C,drbd-C nm-A,drbd-A nm-B,drbd-B"
BENCH_CONFIGS="bare nm-disc drbd-disc nm-C drbd-C nm-A drbd-A nm-B drbd-B"
# optional (nm_bench_configs=... nm-Cmac, or nm_bench_cmac=1): protocol C
# with an HMAC on every packet; nm-Cthr (nm_bench_cthr=1): protocol C with
# module parameter inline_send=N, every write through the sender thread
BENCH_OPTIONAL="nm-Cmac nm-Cthr"

bench_fio_args() {
	case $1 in
	w512-q1) echo "--rw=write --bs=512 --ioengine=psync --iodepth=1" ;;
	w4k-q1) echo "--rw=write --bs=4k --ioengine=psync --iodepth=1" ;;
	rw4k-q32) echo "--rw=randwrite --bs=4k --ioengine=libaio --iodepth=32" ;;
	w1m-q1) echo "--rw=write --bs=1m --ioengine=psync --iodepth=1" ;;
	w4k-dsync) echo "--rw=randwrite --bs=4k --ioengine=psync --iodepth=1 --sync=dsync" ;;
	*) return 1 ;;
	esac
}

bench_select() {
	echo "$1" | awk -v want="$2" '{
		gsub(",", " ", want)
		nw = split(want, w, " ")
		for (i = 1; i <= nw; i++) ok[w[i]] = 1
		n = split($0, a, " ")
		s = ""
		for (i = 1; i <= n; i++)
			if (!nw || (a[i] in ok)) s = s (s == "" ? "" : " ") a[i]
		print s
	}'
}

bench_groups() {
	echo "$BENCH_GROUPS $BENCH_OPTIONAL" | awk -v want="$1" '{
		nw = split(want, w, " ")
		for (i = 1; i <= nw; i++) ok[w[i]] = 1
		n = split($0, g, " ")
		s = ""
		for (i = 1; i <= n; i++) {
			k = split(g[i], c, ",")
			t = ""
			for (j = 1; j <= k; j++)
				if (c[j] in ok) t = t (t == "" ? "" : ",") c[j]
			if (t != "") s = s (s == "" ? "" : " ") t
		}
		print s
	}'
}

bench_round_order() {
	echo "$2" | awk -v r="$1" '{
		n = split($0, g, " ")
		for (i = 0; i < n; i++) {
			k = split(g[(i + r - 1) % n + 1], c, ",")
			for (j = 1; j <= k; j++) print (r % 2 ? c[j] : c[k + 1 - j])
		}
	}'
}

# Per point: TIME + RAMP, plus ~1.5 s of fio start/exit, JSON parsing and
# the latency messages under TCG.  Per round: ~5 s per configuration (a
# netmirror pair's creation and full sync of 128 MiB, a DRBD reconnect and
# resync, the md5 of both replicas) and ~5 s of loopback TCP limits.  Once:
# ~90 s (boot, modules, filling the ramdisks, DRBD's metadata and first
# sync).  Estimates, not measurements: the first full run should replace them.
bench_estimate() {
	local rounds="$1" t="$2" ramp="$3" nc="$4" nw="$5"
	echo $((90 + rounds * (nc * nw * (t + ramp) + nc * nw * 3 / 2 + 5 * nc + 5)))
}
