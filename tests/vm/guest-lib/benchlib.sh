# shellcheck shell=sh disable=SC3043,SC2034
# The benchmark's matrix, shared by the guest script (tests/vm/tools/bench.sh;
# installed as /tests/benchlib.sh) and the host runner (tests/bench/run.sh,
# which sources it from here for the run-time estimate).  POSIX sh: busybox
# ash in the guest, bash on the host.  Not a test itself.
#
#   BENCH_WORKLOADS       the default workloads, in report order
#   BENCH_RESYNC          the resync workloads (--resync: rs-full rs-part
#                         rs-app on nm-C, drbd-C and drbd-Cdef)
#   BENCH_NBD             the NBD export workloads (--nbd: on bare, nm-C,
#                         drbd-C, through nbd-server and /dev/nbd0)
#   BENCH_NBDR            the NBD export workloads with the client on the
#                         other side (--nbd-remote: nbdr-w1m nbdr-w4k on
#                         the same configurations as nbd-*; nbd-server in
#                         this VM, nbd-client and fio in a second VM, node
#                         b, over the emulated link)
#   BENCH_VERIFY          the online verify workloads (--verify: ov-full on
#                         nm-C and drbd-C, on a pair of its own of 1 GiB
#                         per node)
#   BENCH_ALL_WORKLOADS   all of them, in report order
#   BENCH_GROUPS          every configuration, in groups of configurations
#                         measured back to back (a netmirror config next to
#                         the DRBD config it is compared with); "," inside a
#                         group, " " between groups
#   bench_fio_args WL     fio options of workload WL (device, time, output
#                         and data options are added by the caller); for
#                         rs-app, nbd-* and nbdr-* the application's fio
#                         options
#   bench_applies CFG WL  true if workload WL runs on configuration CFG
#                         (rs-* only on nm-C drbd-C drbd-Cdef; nbd-* and
#                         nbdr-* only on bare nm-C drbd-C and the optional nm-Cnomerge
#                         nm-Crxthr nm-Cnoprobe; ov-* only on nm-C drbd-C;
#                         drbd-Cdef runs only rs-*);
#                         otherwise the point is skipped without a sample
#   bench_want_workloads LIST RESYNC NBD [VERIFY [NBDR]]   LIST (the
#                         --workloads subset) if not empty, else
#                         BENCH_WORKLOADS plus BENCH_RESYNC if RESYNC=1 plus
#                         BENCH_NBD if NBD=1 plus BENCH_NBDR if NBDR=1 plus
#                         BENCH_VERIFY if VERIFY=1
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
#   bench_estimate ROUNDS TIME RAMP "CONFIGS" "WORKLOADS"   estimated VM
#                         seconds of a whole run (boot and setup included);
#                         only the points bench_applies counts
#   nbd_export DEV NAME PATH [remote]   (guest only; lib.sh's fail,
#                         wait_eval, dev_size, my_ip, on_peer) DEV exported
#                         by nbd-server on 127.0.0.1:7810 as the export NAME
#                         (sync = true: every write reaches DEV before its
#                         reply; flush passed on) and attached as /dev/nbd0
#                         in this VM by nbd-client; with "remote", exported
#                         on this node's link address and attached as
#                         /dev/nbd0 on the peer VM (node b) instead; its
#                         files are PATH.conf, PATH.pid, PATH.err,
#                         PATH-client.err (the peer's client errors: in the
#                         peer's /tmp/nbd-client.err); sets NBD_PID.  The
#                         nbd-* and nbdr-* workloads of
#                         tests/vm/tools/bench.sh and prof-write's
#   nbd_unexport PATH [remote]   detaches /dev/nbd0 (here, or on the peer)
#                         and stops nbd-server (NBD_PID, then empty); false
#                         if nbd-server is still running 30 s later (its
#                         per-connection child holds DEV until it sees the
#                         disconnect)

BENCH_WORKLOADS="w512-q1 w4k-q1 rw4k-q32 w1m-q1 w4k-dsync"
BENCH_RESYNC="rs-full rs-part rs-app"
BENCH_NBD="nbd-w1m nbd-w4k"
BENCH_NBDR="nbdr-w1m nbdr-w4k"
BENCH_VERIFY="ov-full"
BENCH_ALL_WORKLOADS="$BENCH_WORKLOADS $BENCH_RESYNC $BENCH_NBD $BENCH_NBDR $BENCH_VERIFY"
# drbd-Cdef (--resync, or named in --configs): drbd-C with DRBD 8.4's
# default resync controller (drbdsetup-84 disk-options --set-defaults:
# c-plan-ahead 20, resync-rate 250k, c-fill-target 100s, c-max-rate 102400k,
# c-min-rate 250k); only the rs-* workloads run on it
BENCH_GROUPS="bare nm-disc,drbd-disc nm-C,drbd-C,drbd-Cdef nm-A,drbd-A nm-B,drbd-B"
BENCH_CONFIGS="bare nm-disc drbd-disc nm-C drbd-C nm-A drbd-A nm-B drbd-B"
# optional (nm_bench_configs=... nm-Cmac, or nm_bench_cmac=1): protocol C
# with an HMAC on every packet; nm-Cackthr (nm_bench_cackthr=1): protocol C
# with module parameter fast_ack=N, every ack read by the receiver thread;
# nm-Cthr (nm_bench_cthr=1): protocol C with
# module parameter inline_send=N, every write through the sender thread;
# nm-Cnomerge (nm_bench_cnomerge=1): protocol C with module parameter
# merge_writes=N, no write merging (nbd-* runs on it too); nm-Cnobatch
# (nm_bench_cnobatch=1): protocol C with module parameter ack_batch=N, the
# secondary sends each ack right after its write; nm-Crxthr
# (nm_bench_crxthr=1): protocol C with module parameter fast_rx=N, the
# secondary's receiver thread reads every packet (nbd-* runs on it too)
BENCH_OPTIONAL="nm-Cmac nm-Cthr nm-Cackthr nm-Cnomerge nm-Cnobatch nm-Crxthr nm-Cnoprobe"

bench_fio_args() {
	case $1 in
	w512-q1) echo "--rw=write --bs=512 --ioengine=psync --iodepth=1" ;;
	w4k-q1) echo "--rw=write --bs=4k --ioengine=psync --iodepth=1" ;;
	rw4k-q32) echo "--rw=randwrite --bs=4k --ioengine=libaio --iodepth=32" ;;
	w1m-q1) echo "--rw=write --bs=1m --ioengine=psync --iodepth=1" ;;
	w4k-dsync) echo "--rw=randwrite --bs=4k --ioengine=psync --iodepth=1 --sync=dsync" ;;
	# the application during a resync: w4k-q1's (its idle rate is w4k-q1's)
	rs-app) bench_fio_args w4k-q1 ;;
	# the partial resync's writes while disconnected (bench.sh adds --io_size)
	rs-part) echo "--rw=randwrite --bs=64k --ioengine=psync --iodepth=1 --randseed=4242" ;;
	rs-full) echo "" ;;
	# the verify runs no fio (message verify on a 1 GiB pair of its own)
	ov-full) echo "" ;;
	nbd-w1m) bench_fio_args w1m-q1 ;;
	nbd-w4k) bench_fio_args w4k-q1 ;;
	nbdr-w1m) bench_fio_args w1m-q1 ;;
	nbdr-w4k) bench_fio_args w4k-q1 ;;
	*) return 1 ;;
	esac
}

bench_applies() {
	case $2 in
	rs-*) case $1 in nm-C|drbd-C|drbd-Cdef) return 0 ;; esac; return 1 ;;
	nbd-*|nbdr-*) case $1 in bare|nm-C|nm-Cnomerge|nm-Crxthr|nm-Cnoprobe|drbd-C) return 0 ;; esac; return 1 ;;
	ov-*) case $1 in nm-C|drbd-C) return 0 ;; esac; return 1 ;;
	*) [ "$1" != drbd-Cdef ] ;;
	esac
}

bench_want_workloads() {
	if [ -n "$1" ]; then
		echo "$1"
		return 0
	fi
	echo "$BENCH_WORKLOADS$([ "$2" = 1 ] && echo " $BENCH_RESYNC")$([ "$3" = 1 ] && echo " $BENCH_NBD")$([ "${5:-0}" = 1 ] && echo " $BENCH_NBDR")$([ "${4:-0}" = 1 ] && echo " $BENCH_VERIFY")"
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
# the latency messages under TCG.  Resync points (guesses for 128 MiB):
# rs-full ~8 s (drbd-Cdef ~25 s: the default controller, ~20 s per 128 MiB
# in testbed-notes.md), rs-part ~8 s (drbd-Cdef ~10 s), rs-app TIME + RAMP
# + ~8 s (drbd-Cdef + ~25 s: the rest of the resync after the application).
# NBD: ~10 s per configuration to start and stop nbd-server and nbd-client.
# ov-full: ~35 s on nm-C, ~50 s on drbd-C (its 1 GiB pair created without
# a sync, the verify of 1 GiB, the pair removed; first short runs on a
# loaded host: netmirror's verify 15-30 s, DRBD's 40 s); with ov-*: ~3 s of
# verify device read limit per round, and ~40 s once (two 1 GiB null_blk
# devices filled and copied: 21-41 s).
# Per round: ~5 s per configuration (a netmirror pair's creation and full
# sync of 128 MiB, a DRBD reconnect and resync, the md5 of both replicas),
# ~5 s of loopback TCP limits, ~3 s of disk read limit with rs-*.  Once:
# ~90 s (boot, modules, filling the ramdisks, DRBD's metadata and first
# sync).  Estimates, not measurements: the first full run should replace them.
bench_estimate() {
	local rounds="$1" t="$2" ramp="$3" c w h=0 nc=0 nbd nbdr rs=0 ov=0
	# h: half-seconds of one round's points
	for c in $4; do
		nc=$((nc + 1))
		nbd=0 nbdr=0
		for w in $5; do
			bench_applies "$c" "$w" || continue
			case $c/$w in
			drbd-Cdef/rs-full) h=$((h + 50)) ;;
			drbd-Cdef/rs-part) h=$((h + 20)) ;;
			drbd-Cdef/rs-app) h=$((h + 2 * (t + ramp) + 66)) ;;
			*/rs-full|*/rs-part) h=$((h + 16)) ;;
			*/rs-app) h=$((h + 2 * (t + ramp) + 16)) ;;
			*/nbd-*) h=$((h + 2 * (t + ramp) + 3)); nbd=1 ;;
			*/nbdr-*) h=$((h + 2 * (t + ramp) + 3)); nbdr=1 ;;
			drbd-*/ov-*) h=$((h + 100)) ;;
			*/ov-*) h=$((h + 70)) ;;
			*) h=$((h + 2 * (t + ramp) + 3)) ;;
			esac
			case $w in rs-*) rs=1 ;; ov-*) ov=1 ;; esac
		done
		# one export per kind
		[ $nbd = 1 ] && h=$((h + 20))
		[ $nbdr = 1 ] && h=$((h + 20))
	done
	echo $((90 + 40 * ov + rounds * (h / 2 + 5 * nc + 5 + 3 * rs + 3 * ov)))
}

nbd_export() {
	local at=127.0.0.1
	[ "${4:-}" = remote ] && at=$(my_ip)
	[ -n "${4:-}" ] || [ -e /sys/module/nbd ] || modprobe nbd || fail "modprobe nbd"
	printf '[generic]\n\tlistenaddr = %s\n\tport = 7810\n[%s]\n\texportname = %s\n\tsync = true\n\tflush = true\n' "$at" "$2" "$1" > "$3.conf"
	rm -f "$3.pid"
	nbd-server -C "$3.conf" -p "$3.pid" > "$3.err" 2>&1 || fail "nbd-server: $(tr '\n' ' ' < "$3.err")"
	wait_eval "[ -s $3.pid ]" 60 || fail "nbd-server wrote no pid file: $(tr '\n' ' ' < "$3.err")"
	NBD_PID=$(cat "$3.pid")
	if [ "${4:-}" = remote ]; then
		# the same retries on the peer (its nmlib.sh wait_eval), whose answer is the size it sees
		NM_RPC_WAIT=200 on_peer ". /tests/lib.sh; . /tests/nmlib.sh; { [ -e /sys/module/nbd ] || modprobe nbd; } &&
			wait_eval 'nbd-client $at 7810 /dev/nbd0 -N $2 > /tmp/nbd-client.err 2>&1' 120 &&
			dev_size /dev/nbd0" > "$3-client.err" 2>&1
		if ! [ "$(tail -n 1 "$3-client.err")" -gt 0 ] 2>/dev/null; then
			fail "nbd-client on the peer: $(tr '\n' ' ' < "$3-client.err")"
		fi
		return 0
	fi
	# nbd-server can take many seconds to start under TCG: retry the handshake
	wait_eval "nbd-client 127.0.0.1 7810 /dev/nbd0 -N $2 > $3-client.err 2>&1" 120 ||
		fail "nbd-client: $(tr '\n' ' ' < "$3-client.err")"
	wait_eval "[ \"\$(dev_size /dev/nbd0)\" -gt 0 ]" 20 || fail "/dev/nbd0 has no size"
}

nbd_unexport() {
	if [ "${2:-}" = remote ]; then
		on_peer "nbd-client -d /dev/nbd0" > "$1-client.err" 2>&1 || log "nbd-client -d on the peer: $(tr '\n' ' ' < "$1-client.err")"
	else
		nbd-client -d /dev/nbd0 > "$1-client.err" 2>&1 || log "nbd-client -d: $(tr '\n' ' ' < "$1-client.err")"
	fi
	kill "$NBD_PID" 2>/dev/null
	NBD_PID=
	wait_eval "! pidof nbd-server" 30
}
