#!/bin/bash
# Run the VM test suite: every name in tests/vm/suite.list (# comments and
# blank lines ignored), sequentially, through run-test.sh (one VM boot, or
# two for two-VM tests, per test).  Results are appended to $NM_RESULTS when
# set.  Exit status non-zero if any test failed.
#
#   tests/vm/suite.sh [LISTFILE]
set -uo pipefail
dir=$(cd "$(dirname "$0")" && pwd)
list=${1:-$dir/suite.list}
mapfile -t names < <(sed 's/#.*//; s/[[:space:]]//g; /^$/d' "$list")
[ ${#names[@]} -gt 0 ] || { echo "suite: no tests in $list" >&2; exit 1; }
start=$SECONDS
"$dir/run-test.sh" "${names[@]}"
rc=$?
echo "suite: ${#names[@]} tests in $((SECONDS - start))s, $([ $rc = 0 ] && echo ok || echo FAILED)"
exit $rc
