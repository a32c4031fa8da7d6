#!/bin/bash
# make check: unit tests, the benchmark's host tests, then the VM suite.  Every runner appends one line per
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
if scripts/callgraph.sh > build/callgraph.txt 2>&1; then
	echo "PASS static/callgraph" >> "$NM_RESULTS"
else
	cat build/callgraph.txt
	echo "FAIL static/callgraph" >> "$NM_RESULTS"
	rc=1
fi
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
tests/vm/suite.sh || rc=1

scripts/summarize.sh "$NM_RESULTS" || rc=1
exit $rc
