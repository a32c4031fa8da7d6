#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# Regenerate the option/message/status tables in the man pages and in
# docs/netmirror.rst from dm-mirror-net/nm_params.h, through
# "nmsetup options".  Each generated fragment sits between two comment
# lines; the BEGIN line names the nmsetup arguments that produce it:
#
#   .\" BEGIN generated: options --man flags        (man pages)
#   .\" END generated
#   .. BEGIN generated: options --rst options        (rst)
#   .. END generated
#
# Usage: scripts/gen-docs.sh [--check]
#   --check   change nothing; exit 1 and show a diff if a committed
#             fragment differs from what nmsetup prints now.
# NMSETUP=path overrides tools/nmsetup (built if missing).
set -eu
cd "$(dirname "$0")/.."
check=0
[ "${1:-}" = --check ] && check=1
NM=${NMSETUP:-tools/nmsetup}
if [ ! -x "$NM" ]; then
	make -s lib tools >/dev/null
fi
FILES="man/nmsetup.8 man/netmirror.conf.5 man/nm-lvcreate.8 docs/netmirror.rst"
tmp=$(mktemp)
trap 'rm -f "$tmp" "$tmp.frag"' EXIT
rc=0
for f in $FILES; do
	[ -f "$f" ] || continue
	: > "$tmp"
	in=0
	n=0
	while IFS= read -r line || [ -n "$line" ]; do
		case $line in
		'.\" BEGIN generated: '*|'.. BEGIN generated: '*)
			[ $in = 0 ] || { echo "$f: BEGIN inside a generated fragment" >&2; exit 2; }
			printf '%s\n' "$line" >> "$tmp"
			# rst: a comment, then a blank line before the table
			case $line in ..*) echo >> "$tmp" ;; esac
			args=${line#*BEGIN generated: }
			# shellcheck disable=SC2086
			"$NM" $args >> "$tmp" || { echo "$f: nmsetup $args failed" >&2; exit 2; }
			in=1
			n=$((n + 1))
			;;
		'.\" END generated'|'.. END generated')
			[ $in = 1 ] || { echo "$f: END without BEGIN" >&2; exit 2; }
			# rst: a blank line after the table
			case $line in ..*) echo >> "$tmp" ;; esac
			printf '%s\n' "$line" >> "$tmp"
			in=0
			;;
		*)
			[ $in = 1 ] || printf '%s\n' "$line" >> "$tmp"
			;;
		esac
	done < "$f"
	[ $in = 0 ] || { echo "$f: BEGIN without END" >&2; exit 2; }
	if cmp -s "$f" "$tmp"; then
		continue
	fi
	if [ $check = 1 ]; then
		echo "$f: generated fragment is stale (run scripts/gen-docs.sh):" >&2
		diff -u "$f" "$tmp" >&2 || true
		rc=1
	else
		cat "$tmp" > "$f"
		echo "updated $f ($n fragments)"
	fi
done
exit $rc
