#!/bin/bash
# Harness self-tests (make vm-selftest): every tests/vm/selftest/selftest-*.sh
# must be reported FAIL by the runner (kernel panic, guest timeout, BUG line
# in dmesg, dirty or crashed peer, a failed named check).  This script runs
# each through run-test.sh and passes only if each one FAILs as it should;
# selftest-check must also yield its check results (one FAIL, the rest PASS).
# Prints "[PASS] selftest NAME" when NAME failed as it should.  With
# NM_RESULTS set, appends "PASS vm-selftest/NAME" / "FAIL vm-selftest/NAME".
#
#   tests/vm/selftest/run.sh [NAME...]
set -uo pipefail
dir=$(cd "$(dirname "$0")" && pwd)
names=("$@")
if [ ${#names[@]} = 0 ]; then
	for f in "$dir"/selftest-*.sh; do
		names+=("$(basename "$f" .sh)")
	done
fi
results=${NM_RESULTS:-}
bad=0
for n in "${names[@]}"; do
	r=$(mktemp)
	out=$(NM_RESULTS=$r "$dir/../run-test.sh" "$n" 2>&1)
	rc=$?
	why=
	[ $rc != 0 ] || why="run-test.sh exited 0"
	grep -qx "FAIL vm/$n" "$r" || why="${why:+$why; }no 'FAIL vm/$n' result"
	if [ "$n" = selftest-check ]; then
		grep -qx "FAIL vm/$n/deliberate-fail" "$r" || why="${why:+$why; }no 'FAIL vm/$n/deliberate-fail'"
		[ "$(grep -c "^PASS vm/$n/ok-" "$r")" = 4 ] || why="${why:+$why; }not 4 'PASS vm/$n/ok-*' lines"
	fi
	rm -f "$r"
	if [ -z "$why" ]; then
		echo "[PASS] selftest $n (reported FAIL as it should)"
		[ -n "$results" ] && echo "PASS vm-selftest/$n" >> "$results"
	else
		echo "[FAIL] selftest $n: $why"
		echo "$out" | tail -n 20 | sed 's/^/    | /'
		[ -n "$results" ] && echo "FAIL vm-selftest/$n" >> "$results"
		bad=$((bad + 1))
	fi
done
echo "vm-selftest: ${#names[@]} self-tests, $bad not reported as they should"
[ $bad = 0 ]
