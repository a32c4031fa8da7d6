#!/bin/bash
# netmirror vs DRBD 8.4 write benchmark (fio) in one QEMU VM; not part of
# make check (make bench runs it).
#
#   tests/bench/run.sh [--no-build] [--quick] [--rounds N] [--time S] [--ramp S]
#                      [--backing brd|nullb|nullb-cache] [--nullb-cache MB]
#                      [--configs LIST] [--workloads LIST] [--cmac] [--cthr] [--cackthr] [--cnomerge] [--cnobatch] [--crxthr] [--cnoprobe] [--no-meta]
#                      [--resync] [--nbd] [--nbd-remote] [--verify]
#                      [--data scramble|refill|pattern] [--dry-run]
#   tests/bench/run.sh --report SAMPLES   reprint the report of a finished run
#
#   --rounds N    rounds (default 7); every round measures every configuration
#   --time S      measured seconds per point (default 10)
#   --ramp S      ramp seconds per point, discarded (default 2)
#   --quick       a smoke check: 2 rounds of 3 s after a 1 s ramp (later
#                 --rounds/--time/--ramp win)
#   --backing     brd ramdisks (default), or configfs null_blk with a 20 us
#                 timer completion, optionally with a volatile write cache
#                 (--nullb-cache MB per device, default 16)
#   --configs, --workloads   subsets, comma-separated (e.g. --configs
#                 bare,nm-C,drbd-C,drbd-A --workloads w4k-q1,w512-q1)
#   --cmac        also nm-Cmac (protocol C with an HMAC on every packet)
#   --cackthr     also nm-Cackthr (protocol C, fast_ack=N: every ack read by
#                 the receiver thread; needs target 1.9)
#   --cthr        also nm-Cthr (protocol C, inline_send=N: every write through
#                 the sender thread; needs target 1.8)
#   --cnobatch    also nm-Cnobatch (protocol C, ack_batch=N: the secondary
#                 sends each ack right after its write; needs 1.12.3)
#   --crxthr      also nm-Crxthr (protocol C, fast_rx=N: the secondary's
#                 receiver thread reads every packet; the nbd-* workloads
#                 run on it too; needs 1.13.1)
#   --cnoprobe    also nm-Cnoprobe (protocol C, fast_rx_probe=N: the
#                 secondary's worker reads whenever it may, no reader
#                 controller; needs 1.13.2)
#   --cnomerge    also nm-Cnomerge (protocol C, merge_writes=N: no write
#                 merging; the nbd-* workloads run on it too; needs 1.12.1)
#   --resync      also the resync workloads rs-full, rs-part, rs-app (on nm-C,
#                 drbd-C and drbd-Cdef, which --resync adds: DRBD's default
#                 resync controller) and the disk read limit
#   --nbd         also the NBD export workloads nbd-w1m, nbd-w4k (on bare,
#                 nm-C, drbd-C, and nm-Cnomerge, nm-Crxthr, nm-Cnoprobe when asked
#                 for; exported by nbd-server to /dev/nbd0)
#   --nbd-remote  also nbdr-w1m, nbdr-w4k: the same exports with the client
#                 on the other side (nbd-client and fio in a second VM, node
#                 b, 1 vCPU, over the emulated link, as the two-VM tests
#                 run); boots that VM next to the benchmark's
#   --verify      also the online verify workload ov-full (on nm-C and
#                 drbd-C, each on a pair of its own on two 1 GiB
#                 memory-backed null_blk devices with equal data: the
#                 "verify" message, drbdsetup verify) and their read limit;
#                 the VM gets 2304 MiB more memory for them
#   --no-meta     netmirror without a metadata device
#   --data        what fio writes (default scramble: random buffers, each
#                 write stamped with its offset and time)
#   --dry-run     print the estimate and the VM command, boot nothing
#
# Builds the module, library and tools (unless --no-build), prints the
# estimated VM time, boots one VM running tests/vm/tools/bench.sh through
# tests/vm/vm.sh (as tests/vm/run-test.sh would; `tests/vm/run-test.sh bench`
# runs the defaults), writes the report (console lines "NMBENCH: ") with a
# host header to build/bench/results.txt and prints it; every sample (NMLOG
# lines "bench ...") goes to build/bench/samples.txt.  Exit status: the guest
# test's (it FAILs when a replica differs or a fio run fails).  See
# tests/bench/README.md.
set -uo pipefail
# (all in main: bash reads a script as it runs, and this one may be edited meanwhile)
main() {
top=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck disable=SC1091
. "$top/tests/vm/guest-lib/benchlib.sh"
build=1 rounds=7 time=10 ramp=2 backing=brd nlcache=16 configs='' workloads='' cmac=0 cthr=0 cackthr=0 cnomerge=0 cnobatch=0 crxthr=0 cnoprobe=0 resync=0 nbd=0 nbdr=0 verify=0 meta=1 data=scramble dry=0
quick() { rounds=2 time=3 ramp=1; }
while [ $# -gt 0 ]; do
	case $1 in
	--no-build) build=0 ;;
	--quick) quick ;;
	--rounds) rounds=${2:?--rounds N}; shift ;;
	--time) time=${2:?--time S}; shift ;;
	--ramp) ramp=${2:?--ramp S}; shift ;;
	--backing) backing=${2:?--backing brd|nullb|nullb-cache}; shift ;;
	--nullb-cache) nlcache=${2:?--nullb-cache MB}; shift ;;
	--configs) configs=${2:?--configs LIST}; shift ;;
	--workloads) workloads=${2:?--workloads LIST}; shift ;;
	--cmac) cmac=1 ;;
	--cthr) cthr=1 ;;
	--cackthr) cackthr=1 ;;
	--cnomerge) cnomerge=1 ;;
	--cnobatch) cnobatch=1 ;;
	--crxthr) crxthr=1 ;;
	--cnoprobe) cnoprobe=1 ;;
	--resync) resync=1 ;;
	--nbd) nbd=1 ;;
	--nbd-remote) nbdr=1 ;;
	--verify) verify=1 ;;
	--no-meta) meta=0 ;;
	--data) data=${2:?--data scramble|refill|pattern}; shift ;;
	--dry-run) dry=1 ;;
	--report)
		awk -f "$top/tests/vm/guest-lib/bench-report.awk" "${2:?--report SAMPLES}"
		return $? ;;
	-h|--help) sed -n '2,/^set -/p' "$0" | sed '$d; s/^# \{0,1\}//'; return 0 ;;
	*) echo "run.sh: unknown argument $1" >&2; return 2 ;;
	esac
	shift
done
for v in "$rounds" "$time" "$ramp" "$nlcache"; do
	case $v in ''|*[!0-9]*) echo "run.sh: not a whole number: '$v'" >&2; return 2 ;; esac
done
if [ "$rounds" -lt 1 ] || [ "$time" -lt 1 ]; then echo "run.sh: --rounds and --time must be >= 1" >&2; return 2; fi
case $backing in brd|nullb|nullb-cache) ;; *) echo "run.sh: --backing $backing?" >&2; return 2 ;; esac
case $data in scramble|refill|pattern) ;; *) echo "run.sh: --data $data?" >&2; return 2 ;; esac
# the configurations and workloads the guest will run (the same functions)
want=${configs:-$BENCH_CONFIGS}
[ $cmac = 1 ] && want="$want nm-Cmac"
[ $cthr = 1 ] && want="$want nm-Cthr"
[ $cackthr = 1 ] && want="$want nm-Cackthr"
[ $cnomerge = 1 ] && want="$want nm-Cnomerge"
[ $cnobatch = 1 ] && want="$want nm-Cnobatch"
[ $crxthr = 1 ] && want="$want nm-Crxthr"
[ $cnoprobe = 1 ] && want="$want nm-Cnoprobe"
[ $resync = 1 ] && [ -z "$configs" ] && want="$want drbd-Cdef"
cl=$(bench_groups "$(echo "$want" | tr ',' ' ')" | tr ',' ' ')
wl=$(bench_select "$BENCH_ALL_WORKLOADS" "$(bench_want_workloads "$workloads" $resync $nbd $verify $nbdr)")
[ -n "$cl" ] || { echo "run.sh: no known configuration in '$want' (known: $BENCH_CONFIGS drbd-Cdef $BENCH_OPTIONAL)" >&2; return 2; }
[ -n "$wl" ] || { echo "run.sh: no known workload in '$workloads' (known: $BENCH_ALL_WORKLOADS)" >&2; return 2; }
nc=$(echo "$cl" | wc -w)
nw=$(echo "$wl" | wc -w)
est=$(bench_estimate "$rounds" "$time" "$ramp" "$cl" "$wl")
tmo=$((est * 3 / 2 + 300))
g=$top/tests/vm/tools/bench.sh
mem=$(head -n 30 "$g" | sed -n 's/^#[[:space:]]*mem:[[:space:]]*//p' | head -1)
mem=${mem:-1024}
# ov-*: two 1 GiB null_blk devices held in memory (and 2 x 8 MiB metadata)
case " $wl " in *" ov-"*) mem=$((mem + 2 * 1024 + 256)) ;; esac
sha=$(git -C "$top" rev-parse --short HEAD 2>/dev/null || echo unknown)
[ -n "$(git -C "$top" status --porcelain --untracked-files=no 2>/dev/null)" ] && sha=$sha-dirty
envs=(--env "nm_timeout=$tmo" --env "nm_bench_rounds=$rounds" --env "nm_bench_time=$time"
	--env "nm_bench_ramp=$ramp" --env "nm_bench_backing=$backing" --env "nm_bench_nullb_cache=$nlcache"
	--env "nm_bench_meta=$meta" --env "nm_bench_cmac=$cmac" --env "nm_bench_cthr=$cthr" --env "nm_bench_cackthr=$cackthr" --env "nm_bench_cnomerge=$cnomerge" --env "nm_bench_cnobatch=$cnobatch" --env "nm_bench_crxthr=$crxthr" --env "nm_bench_cnoprobe=$cnoprobe" --env "nm_bench_resync=$resync" --env "nm_bench_nbd=$nbd" --env "nm_bench_nbdr=$nbdr" --env "nm_bench_verify=$verify" --env "nm_bench_data=$data" --env "nm_bench_git=$sha")
[ -n "$configs" ] && envs+=(--env "nm_bench_configs=$(echo "$configs" | tr ' ' ',')")
[ -n "$workloads" ] && envs+=(--env "nm_bench_workloads=$(echo "$workloads" | tr ' ' ',')")
echo "run.sh: $rounds rounds x $nc configurations x $nw workloads x (${time} s + ${ramp} s ramp):" \
	"estimated $((est / 60)) min $((est % 60)) s of VM time (guest timeout ${tmo} s)"
echo "run.sh: configurations: $cl; workloads: $wl"
# nbdr-*: node b, the NBD client's VM (an nmrpc peer, as the two-VM tests
# boot it: tests/vm/run-test.sh), linked to node a over UDP
peer=()
case " $wl " in
*" nbdr-"*)
	pa=$((20000 + ($$ * 2 + RANDOM * 2) % 40000))
	peer=(--net "$pa:$((pa + 1))" --env nm_peer=1)
	;;
esac
if [ $dry = 1 ]; then
	[ ${#peer[@]} = 0 ] ||
		echo "run.sh: would run: tests/vm/vm.sh --bg --name bench-b --node b --net $((pa + 1)):$pa --env nm_role=peer --smp 1 --timeout $((tmo + 180))"
	echo "run.sh: would run: tests/vm/vm.sh --name bench --tests bench --timeout $((tmo + 120)) --mem $mem ${peer[*]} ${envs[*]}"
	return 0
fi
if [ $build = 1 ]; then
	make -C "$top" module lib tools >/dev/null || { echo "run.sh: build failed" >&2; return 1; }
fi
out=$top/build/bench
mkdir -p "$out"
log=$top/build/vm/bench.log
rm -f "$log"
t0=$SECONDS
# other VMs on the host distort TCG timing badly (vCPU wakeups wait for host CPU): record it
hostload() {
	echo "load $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) CPUs, $(pgrep -c -f '^qemu-system' || true) qemu running"
}
load0=$(hostload)
date0=$(date -u '+%Y-%m-%d %H:%M UTC')
# like tests/vm/run-test.sh, with the options on the kernel command line
# fio is a layer over the base (tests/vm/mkbase.sh --fio)
pidb=
if [ ${#peer[@]} != 0 ]; then
	rm -f "$top/build/vm/bench-b.log"
	read -r pidb _ < <(NM_LAYERS="fio${NM_LAYERS:+ $NM_LAYERS}" "$top/tests/vm/vm.sh" --bg --name bench-b --node b \
		--net "$((pa + 1)):$pa" --env nm_role=peer --env "nm_timeout=$tmo" --smp 1 --timeout $((tmo + 180))) ||
		{ echo "run.sh: node b did not start" >&2; return 1; }
fi
NM_LAYERS="fio${NM_LAYERS:+ $NM_LAYERS}" "$top/tests/vm/vm.sh" --name bench --tests bench --timeout $((tmo + 120)) --mem "$mem" "${peer[@]}" "${envs[@]}"
rc=$?
if [ -n "$pidb" ]; then
	# node a powers node b off at its end; give it a moment, then kill it
	for _ in $(seq 30); do kill -0 "$pidb" 2>/dev/null || break; sleep 0.5; done
	kill "$pidb" 2>/dev/null
fi
load1=$(hostload)
[ -f "$log" ] || { echo "run.sh: no console log $log" >&2; return 1; }
tr -d '\r' < "$log" | sed -n 's/^NMLOG: bench //p' > "$out/samples.txt"
tr -d '\r' < "$log" | sed -n 's/^NMBENCH: \{0,1\}//p' > "$out/results.txt"
if [ ! -s "$out/results.txt" ]; then
	echo "run.sh: no results in $log (test status $rc); samples so far in $out/samples.txt" >&2
	return 1
fi
qemu=$(qemu-system-x86_64 --version 2>/dev/null | head -1)
accel=$(grep -o -- '-accel [^ ]*' "$log.cmd" 2>/dev/null | head -1)
# the host's lines go at the end of the report's "#" header
{
	echo "# host: $date0, ${qemu:-qemu ?} ${accel:-}, $((SECONDS - t0)) s of VM time (estimate $est s)"
	echo "# host load before: $load0; after: $load1"
	echo "# command: tests/bench/run.sh --rounds $rounds --time $time --ramp $ramp --backing $backing${configs:+ --configs $configs}${workloads:+ --workloads $workloads}$([ $cmac = 1 ] && echo ' --cmac')$([ $cthr = 1 ] && echo ' --cthr')$([ $cackthr = 1 ] && echo ' --cackthr')$([ $cnomerge = 1 ] && echo ' --cnomerge')$([ $cnobatch = 1 ] && echo ' --cnobatch')$([ $crxthr = 1 ] && echo ' --crxthr')$([ $cnoprobe = 1 ] && echo ' --cnoprobe')$([ $resync = 1 ] && echo ' --resync')$([ $nbd = 1 ] && echo ' --nbd')$([ $nbdr = 1 ] && echo ' --nbd-remote')$([ $verify = 1 ] && echo ' --verify')$([ $meta = 0 ] && echo ' --no-meta') --data $data; guest test status $rc"
} > "$out/host.tmp"
awk -v h="$out/host.tmp" 'function host(  l) { while ((getline l < h) > 0) print l; done = 1 }
	!done && !/^#/ { host() } { print } END { if (!done) host() }' "$out/results.txt" > "$out/results.tmp" &&
	mv "$out/results.tmp" "$out/results.txt"
rm -f "$out/host.tmp"
cat "$out/results.txt"
echo "(build/bench/results.txt; samples in build/bench/samples.txt, reprint with tests/bench/run.sh --report build/bench/samples.txt; console log $log)"
return $rc
}
main "$@"
exit $?
