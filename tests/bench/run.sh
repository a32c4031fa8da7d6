#!/bin/bash
# netmirror vs DRBD 8.4 write benchmark in one QEMU VM (not part of make check).
#
#   tests/bench/run.sh [--no-build] [--reps N]
#
# Builds the module, library and tools (unless --no-build), boots one VM
# running tests/vm/tools/bench.sh through tests/vm/vm.sh (as
# tests/vm/run-test.sh would; `tests/vm/run-test.sh bench` works too), extracts the
# result table (console lines starting with "NMBENCH: ") from build/vm/bench.log
# into build/bench/results.txt and prints it.  The per-run samples (NMLOG
# lines) go to build/bench/samples.txt.  See tests/bench/README.md.
set -uo pipefail
# (all in main: bash reads a script as it runs, and this one may be edited meanwhile)
main() {
top=$(cd "$(dirname "$0")/../.." && pwd)
build=1
reps=3
while [ $# -gt 0 ]; do
	case $1 in
	--no-build) build=0 ;;
	--reps) reps=${2:?--reps N}; shift ;;
	-h|--help) sed -n '2,/^set -/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	*) echo "run.sh: unknown argument $1" >&2; exit 2 ;;
	esac
	shift
done
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
# like tests/vm/run-test.sh, but with the repetition count on the kernel command line
g=$top/tests/vm/tools/bench.sh
tmo=$(head -n 30 "$g" | sed -n 's/^#[[:space:]]*timeout:[[:space:]]*//p' | head -1)
mem=$(head -n 30 "$g" | sed -n 's/^#[[:space:]]*mem:[[:space:]]*//p' | head -1)
"$top/tests/vm/vm.sh" --name bench --tests bench --timeout $((${tmo:-1500} + 120)) \
	--mem "${mem:-1024}" --env "nm_timeout=${tmo:-1500}" --env "nm_bench_reps=$reps"
rc=$?
[ -f "$log" ] || { echo "run.sh: no console log $log" >&2; return 1; }
tr -d '\r' < "$log" | sed -n 's/^NMLOG: bench //p' > "$out/samples.txt"
tr -d '\r' < "$log" | sed -n 's/^NMBENCH: \{0,1\}//p' > "$out/results.txt"
if [ ! -s "$out/results.txt" ]; then
	echo "run.sh: no results in $log (test status $rc)" >&2
	return 1
fi
{
	echo "# $(date -u '+%Y-%m-%d %H:%M UTC'), git $(git -C "$top" rev-parse --short HEAD 2>/dev/null), ${SECONDS}s wall ($((SECONDS - t0))s VM)"
	echo "# host before: $load0; after: $(hostload)"
	cat "$out/results.txt"
} > "$out/results.tmp" && mv "$out/results.tmp" "$out/results.txt"
cat "$out/results.txt"
echo "(build/bench/results.txt; per-run samples in build/bench/samples.txt; console log $log)"
return $rc
}
main "$@"
exit $?
