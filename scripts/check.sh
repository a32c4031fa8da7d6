#!/bin/bash
# make check: unit tests, the benchmark's host tests, the module built by
# DKMS, then the VM suite (booting that module).  Every runner appends one line per
# test to $NM_RESULTS ("PASS name", "FAIL name", "SKIP name"); this script
# prints the totals as the last line, "N passed, N failed", and exits non-zero
# if anything failed or if nothing ran.
set -u
cd "$(dirname "$0")/.."
mkdir -p build
export NM_RESULTS=$PWD/build/results.txt
: > "$NM_RESULTS"

rc=0
make -s -C tests/unit check || rc=1
# the module's structural rules (scripts/NAME.sh), host only
for t in callgraph workqueues; do
	if scripts/$t.sh > build/$t.txt 2>&1; then
		echo "PASS static/$t" >> "$NM_RESULTS"
	else
		cat build/$t.txt
		echo "FAIL static/$t" >> "$NM_RESULTS"
		rc=1
	fi
done
# the benchmark's report arithmetic and its guest script's flow (host only)
for t in tests/bench/test-report.sh tests/bench/test-flow.sh; do
	if "$t" > build/$(basename "$t" .sh).txt 2>&1; then
		echo "PASS bench/$(basename "$t" .sh)" >> "$NM_RESULTS"
	else
		cat build/$(basename "$t" .sh).txt
		echo "FAIL bench/$(basename "$t" .sh)" >> "$NM_RESULTS"
		rc=1
	fi
done
# the VM tests boot the module as DKMS builds it for their kernel, the way
# the netmirror-dkms package builds it on an admin's machine (make dkms);
# NM_KO set by the caller wins
if [ -z "${NM_KO:-}" ]; then
	if scripts/dkms.sh build > build/dkms.txt 2>&1 &&
	   ko=$(tail -n 1 build/dkms.txt) && [ -f "$ko" ]; then
		echo "PASS build/dkms" >> "$NM_RESULTS"
		export NM_KO=$ko
		echo "check: the VM tests boot $ko (DKMS)"
	else
		tail -n 30 build/dkms.txt
		echo "FAIL build/dkms" >> "$NM_RESULTS"
		rc=1
	fi
fi
tests/vm/suite.sh || rc=1

scripts/summarize.sh "$NM_RESULTS" || rc=1
exit $rc
