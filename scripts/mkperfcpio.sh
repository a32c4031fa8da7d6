#!/bin/bash
# Build a cpio with the host's perf and the libraries it links, to lay over
# the VM testbed's image (NM_EXTRA_CPIO), for tests/vm/guest/prof-write.sh:
#   NM_EXTRA_CPIO=$(scripts/mkperfcpio.sh) tests/vm/run-test.sh prof-write
# Prints the cpio's path ($NM_CACHE/perf.cpio, default ~/.cache/netmirror).
set -euo pipefail
CACHE=${NM_CACHE:-$HOME/.cache/netmirror}
PERF=$(command -v perf) || { echo "mkperfcpio: no perf on this host (apt-get install linux-perf)" >&2; exit 1; }
out=$CACHE/perf.cpio
if [ -s "$out" ] && [ "$out" -nt "$PERF" ]; then
	echo "$out"
	exit 0
fi
st=$(mktemp -d)
trap 'rm -rf "$st"' EXIT
mkdir -p "$st/usr/bin"
cp -L "$PERF" "$st/usr/bin/perf"
for l in $(ldd "$PERF" | awk '/=> \//{print $3} /^\t\//{print $1}'); do
	d=usr/${l#/usr/}
	d=usr/${d#usr/}
	mkdir -p "$st/$(dirname "$d")"
	cp -L "$l" "$st/$d"
done
(cd "$st" && find . | LC_ALL=C sort | cpio -o -H newc --quiet) > "$out.tmp"
mv "$out.tmp" "$out"
echo "$out"
