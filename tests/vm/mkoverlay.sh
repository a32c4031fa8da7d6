#!/bin/bash
# Build the small overlay cpio laid over the base layer (rebuilt every run):
#   /init                         tests/vm/init.sh
#   /tests/                       flat: the guest scripts of tests/vm/guest/
#                                 (tests), nodes/ (scenario halves),
#                                 selftest/, tools/, and the libraries of
#                                 guest-lib/ (lib.sh, nmlib.sh, dmesg-bad.sh)
#   /tests/corpus/*.txt           tests/corpus/ (the shared corpus of table
#                                 lines and messages; guest-lib/tables.sh)
#   /tests/nm-status-fields.sh    NM_SF_<field>=<index> for every status
#                                 field of dm-mirror-net/nm_params.h (made
#                                 by build/vm/bin/nmfields; nmlib's nm_status)
#   /usr/bin/{nmrpc,pattern,...}  built from tests/vm/src/*.c (static) into
#                                 build/vm/bin/ (nmcorpus: with libdmnet.a,
#                                 and dynamic, with libdevmapper and the
#                                 libraries it needs)
#   /lib/modules/$KVER/extra/dm-netmirror.ko   if dm-mirror-net/ has it, or
#                                 $NM_KO (e.g. the DKMS build of make dkms:
#                                 NM_KO=$(scripts/dkms.sh build))
#   /usr/sbin/nmsetup             if tools/nmsetup is built (+ its libraries)
#   /usr/lib/libdmnet.so*         if libdmnet/ has it
#   /usr/sbin/nm-lvcreate, nm-lvremove   tools/ (shell wrappers)
#   /examples/                    examples/ (tests run them as written)
#   /usr/lib/ocf/resource.d/netmirror/netmirror, /usr/local/lib/netmirror/
#   crm-fence-peer.sh, crm-unfence-peer.sh   tools/ocf/ (as make install
#                                 with its default PREFIX=/usr/local)
#   /docs/cluster.md              the cluster tests read its configuration
# Prints the path of the overlay cpio (build/vm/overlay.cpio).
set -euo pipefail

VMDIR=$(cd "$(dirname "$0")" && pwd)
TOP=$(cd "$VMDIR/../.." && pwd)
CACHE=${NM_CACHE:-$HOME/.cache/netmirror}
KVER=$(cat "$CACHE/kver")
OUT=$TOP/build/vm
BIN=$OUT/bin
mkdir -p "$BIN"

# helper binaries (static: no dependence on the base layer's libraries)
CC=${CC:-gcc}
# (a helper that includes libdmnet.h, e.g. nmcorpus, links libdmnet.a and is
# built only when libdmnet is)
for src in "$VMDIR"/src/*.c; do
	b=$BIN/$(basename "$src" .c)
	dmnet=()
	dep=$TOP/dm-mirror-net/nm_params.h
	link=(-static)
	if grep -q '^#include "libdmnet.h"' "$src"; then
		[ -f "$TOP/libdmnet/libdmnet.a" ] || { rm -f "$b"; continue; }
		dmnet=(-I"$TOP/libdmnet" "$TOP/libdmnet/libdmnet.a")
		dep=$TOP/libdmnet/libdmnet.a
	fi
	# "mkoverlay: dynamic -ldevmapper" in a helper's source: linked with the
	# host's libdevmapper (there is no static one), copied below with it
	if grep -q '^ \* mkoverlay: dynamic -ldevmapper$' "$src"; then
		link=()
		dmnet+=(-ldevmapper)
	fi
	if [ ! -x "$b" ] || [ "$src" -nt "$b" ] || [ "$TOP/dm-mirror-net/nm_params.h" -nt "$b" ] || [ "$dep" -nt "$b" ] ||
	   [ "$TOP/dm-mirror-net/nm_wire.h" -nt "$b" ] ||
	   [ "$VMDIR/src/vmutil.h" -nt "$b" ]; then
		$CC -O2 -g -Wall -Wextra -Werror "${link[@]}" -I"$TOP/dm-mirror-net" -o "$b.tmp.$$" "$src" "${dmnet[@]}" -lm
		mv "$b.tmp.$$" "$b"
	fi
done

ST=$(mktemp -d "$OUT/overlay-stage.XXXXXX")
trap 'rm -rf "$ST"' EXIT
mkdir -p "$ST/usr/bin" "$ST/usr/sbin" "$ST/usr/lib/x86_64-linux-gnu" "$ST/tests"
install -m 755 "$VMDIR/init.sh" "$ST/init"
# one flat /tests: a name must be unique over the folders
for d in guest-lib guest nodes selftest tools; do
	for f in "$VMDIR/$d"/*; do
		[ -e "$ST/tests/$(basename "$f")" ] && { echo "mkoverlay: $d/$(basename "$f") clashes with another guest file" >&2; exit 1; }
		cp "$f" "$ST/tests/"
	done
done
"$BIN/nmfields" > "$ST/tests/nm-status-fields.sh"
# the shared corpus of table lines and messages (tests/corpus/README.md),
# read by guest-lib/tables.sh
mkdir -p "$ST/tests/corpus"
cp "$TOP"/tests/corpus/*.txt "$ST/tests/corpus/"
cp "$BIN"/* "$ST/usr/bin/"
# the libraries of the dynamically linked helpers
for b in "$BIN"/*; do
	ldd "$b" >/dev/null 2>&1 || continue	# static
	for l in $(ldd "$b" | awk '/=> \//{print $3}'); do
		cp -L "$l" "$ST/usr/lib/x86_64-linux-gnu/"
	done
done

ko=${NM_KO:-$TOP/dm-mirror-net/dm-netmirror.ko}
if [ -n "${NM_KO:-}" ] && [ ! -f "$NM_KO" ]; then
	echo "mkoverlay: NM_KO=$NM_KO: no such module" >&2
	exit 1
fi
if [ -f "$ko" ]; then
	mkdir -p "$ST/usr/lib/modules/$KVER/extra"
	cp "$ko" "$ST/usr/lib/modules/$KVER/extra/"
fi
for so in "$TOP"/libdmnet/libdmnet.so*; do
	[ -e "$so" ] && cp -a "$so" "$ST/usr/lib/"
done
if [ -x "$TOP/tools/nmsetup" ]; then
	cp "$TOP/tools/nmsetup" "$ST/usr/sbin/nmsetup"
	for l in $(LD_LIBRARY_PATH=$TOP/libdmnet ldd "$TOP/tools/nmsetup" 2>/dev/null |
		awk '/=> \//{print $3}' || true); do
		case $l in
		"$TOP"/*) ;;   # libdmnet, copied above
		*) cp -L "$l" "$ST/usr/lib/x86_64-linux-gnu/" ;;
		esac
	done
fi

# the OCF resource agent and the fence-peer scripts, where make install
# puts them (PREFIX=/usr/local)
mkdir -p "$ST/usr/lib/ocf/resource.d/netmirror" "$ST/usr/local/lib/netmirror"
install -m 755 "$TOP/tools/ocf/netmirror" "$ST/usr/lib/ocf/resource.d/netmirror/netmirror"
install -m 755 "$TOP/tools/ocf/crm-fence-peer.sh" "$ST/usr/local/lib/netmirror/crm-fence-peer.sh"
ln -s crm-fence-peer.sh "$ST/usr/local/lib/netmirror/crm-unfence-peer.sh"
# docs/cluster.md: the cluster tests take its configuration from it
mkdir -p "$ST/docs"
cp "$TOP/docs/cluster.md" "$ST/docs/" 2>/dev/null || true

# userspace wrappers and the examples (tests run the examples as written)
for t in nm-lvcreate nm-lvremove; do
	if [ -e "$TOP/tools/$t" ]; then cp -a "$TOP/tools/$t" "$ST/usr/sbin/"; fi
done
if [ -d "$TOP/examples" ]; then
	mkdir -p "$ST/examples"
	cp -r "$TOP"/examples/. "$ST/examples/"
fi

# reproducible (fixed mtimes, inode numbers): same inputs, same bytes, so the
# combined initrd (named by content in lib.sh) is reused
find "$ST" -exec touch -h -d @0 {} +
(cd "$ST" && find . | LC_ALL=C sort | cpio -o -H newc --quiet --reproducible) > "$OUT/overlay.cpio.tmp.$$"
mv "$OUT/overlay.cpio.tmp.$$" "$OUT/overlay.cpio"
echo "$OUT/overlay.cpio"
