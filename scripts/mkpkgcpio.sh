#!/bin/bash
# The packages of `make deb`, installed with dpkg into a root that is laid
# over the VM testbed's image (tests/vm/guest/pkg-install.sh names this
# script in its "# cpio:" header; run-test.sh passes the cpio on as
# NM_EXTRA_CPIO):
#
#   1. build/deb/*.deb, built again (scripts/deb.sh, without the unit
#      tests of the build, with lintian: a warning fails the layer) unless
#      a lintian-clean build is newer than every source file;
#   2. dpkg --root=build/vm/pkg-root --unpack of netmirror-dkms, libdmnet2,
#      libdmnet-dev and netmirror-utils: the files where the packages put
#      them, and dpkg's database (var/lib/dpkg: status, *.list, *.md5sums);
#      no maintainer script runs (--unpack runs only a preinst, and these
#      packages have none);
#   3. what netmirror-dkms's postinst does on a real machine: dkms add,
#      build and install of the unpacked /usr/src/netmirror-VERSION for the
#      testbed's kernel, into the root's /lib/modules/$KVER/updates/dkms/
#      (scripts/dkms.sh build; depmod is left to the guest);
#   4. the root in the guest's merged-/usr layout (lib/ -> usr/lib/ ...),
#      as a reproducible cpio: build/vm/pkg.cpio.
# Prints the cpio's path.  Needs what `make deb` and `make dkms` need
# (make deps).
set -euo pipefail
TOP=$(cd "$(dirname "$0")/.." && pwd)
DEB=$TOP/build/deb
OUT=$TOP/build/vm
ROOT=$OUT/pkg-root
PKGS="netmirror-dkms libdmnet2 libdmnet-dev netmirror-utils"
cd "$TOP"
mkdir -p "$OUT"

# 1. the packages: built again unless a lintian-clean build is newer than
# every source file
stamp=$DEB/.lintian-clean
if [ ! -e "$stamp" ] || [ -n "$(git ls-files -z --cached --others --exclude-standard 2>/dev/null |
	xargs -0 -r find 2>/dev/null -maxdepth 0 -newer "$stamp" | head -1)" ]; then
	DEB_BUILD_OPTIONS=nocheck scripts/deb.sh >&2
fi

# 2. unpacked by dpkg into a fresh root with an empty database
rm -rf "$ROOT"
mkdir -p "$ROOT/var/lib/dpkg/info" "$ROOT/var/lib/dpkg/updates"
touch "$ROOT/var/lib/dpkg/status" "$ROOT/var/lib/dpkg/available"
debs=()
for p in $PKGS; do
	f=$(find "$DEB" -maxdepth 1 -name "${p}_*.deb" 2>/dev/null | head -1)
	[ -n "$f" ] || { echo "mkpkgcpio: no $DEB/${p}_*.deb" >&2; exit 1; }
	debs+=("$f")
done
dpkg --root="$ROOT" --force-not-root --force-depends --unpack "${debs[@]}" > "$OUT/pkg-dpkg.log" 2>&1 ||
	{ cat "$OUT/pkg-dpkg.log" >&2; echo "mkpkgcpio: dpkg --unpack failed" >&2; exit 1; }

# 3. the postinst's DKMS build, from the unpacked source
scripts/dkms.sh build "$ROOT/usr/src" "$ROOT/lib/modules" > /dev/null

# 4. merged /usr, as the guest's base layer has it (bin, sbin, lib are links)
for d in bin sbin lib; do
	if [ -d "$ROOT/$d" ] && [ ! -L "$ROOT/$d" ]; then
		mkdir -p "$ROOT/usr/$d"
		cp -a "$ROOT/$d/." "$ROOT/usr/$d/"
		rm -rf "${ROOT:?}/$d"
	fi
done
find "$ROOT" -exec touch -h -d @0 {} +
(cd "$ROOT" && find . | LC_ALL=C sort | cpio -o -H newc --quiet --reproducible) > "$OUT/pkg.cpio.tmp.$$"
mv "$OUT/pkg.cpio.tmp.$$" "$OUT/pkg.cpio"
echo "$OUT/pkg.cpio"
