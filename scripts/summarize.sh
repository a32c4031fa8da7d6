#!/bin/bash
# Print the failed tests and the closing line "N passed, N failed" from a
# results file; exit 1 on any failure or when no test ran.
f=${1:?results file}
p=$(grep -c '^PASS ' "$f")
x=$(grep -c '^FAIL ' "$f")
s=$(grep -c '^SKIP ' "$f")
grep '^FAIL ' "$f" | sed 's/^/  /'
if [ "$s" -gt 0 ]; then
	echo "$p passed, $x failed, $s skipped"
else
	echo "$p passed, $x failed"
fi
[ "$x" -eq 0 ] && [ "$p" -gt 0 ]
