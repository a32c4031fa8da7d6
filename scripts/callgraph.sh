#!/bin/bash
# Print the calls between the module's files (caller -> callee, with the
# number of functions used) and fail if they form a cycle.
#
#   scripts/callgraph.sh          (run by `make check`)
#
# The intended direction (dm-netmirror.h): target -> conn -> fastack ->
# dispatch -> {rstarget, primary, secondary, resync} -> flush -> {state, link}
# -> {wire, meta}.
# The receive-handler table in nm_dispatch.c calls into every role; that is
# the one hub, and it is still one-way.  Inline helpers in headers do not count.
set -euo pipefail
cd "$(dirname "$0")/../dm-mirror-net"

files=$(ls nm_*.c)
edges=$(mktemp)
trap 'rm -f "$edges"' EXIT

for def in $files; do
	# exported (non-static) functions defined in $def
	for fn in $(grep -E '^[a-z][^;]*\<nm_[a-z0-9_]+\(' "$def" |
		    grep -v '^static' | grep -v ';$' |
		    grep -oE '\<(__)?nm_[a-z0-9_]+\(' | head -1000 | tr -d '(' |
		    sort -u); do
		grep -qE "^[a-z].*\<$fn\(" "$def" || continue
		for c in $files; do
			[ "$c" = "$def" ] && continue
			if grep -qE "\<$fn\(" "$c"; then
				echo "${c%.c} ${def%.c} $fn"
			fi
		done
	done
done | sort > "$edges"

echo "callgraph: caller -> callee (functions)"
awk '{ n[$1" -> "$2]++ } END { for (e in n) printf "  %-28s %d\n", e, n[e] }' \
	"$edges" | sort
pairs=$(awk '{ print $1, $2 }' "$edges" | sort -u)
if ! printf '%s\n' "$pairs" | tsort >/dev/null 2>"$edges.err"; then
	echo "callgraph: FAIL: the files call each other in a cycle:" >&2
	cat "$edges.err" >&2
	rm -f "$edges.err"
	exit 1
fi
rm -f "$edges.err"
echo "callgraph: ok, $(printf '%s\n' "$pairs" | wc -l) file pairs, no cycle"
echo "  order: $(printf '%s\n' "$pairs" | tsort | tr '\n' ' ')"
