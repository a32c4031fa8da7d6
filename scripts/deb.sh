#!/bin/bash
# make deb: the Debian packages of netmirror (debian/), built with
# dpkg-buildpackage from a copy of this tree's sources (tracked and
# untracked files, not ignored ones: no build outputs) in
# build/deb/src/netmirror-VERSION, so the work tree is left as it is.
# Results in build/deb/: netmirror-dkms, libdmnet2, libdmnet-dev,
# netmirror-utils (.deb), the source package (.dsc, .tar.xz), .changes,
# .buildinfo, build.log and lintian.txt.  Then lintian on the .changes:
# an error or a warning fails (debian/*.lintian-overrides give the
# reasons of the overridden ones).  NM_LINTIAN=0 skips lintian.
# DEB_BUILD_OPTIONS=nocheck skips the unit tests of the build.
#
# Needs dpkg-dev, debhelper, dh-dkms, libdevmapper-dev, lintian (make deps).
set -euo pipefail
TOP=$(cd "$(dirname "$0")/.." && pwd)
OUT=$TOP/build/deb
cd "$TOP"
for t in dpkg-buildpackage dh dh_dkms; do
	command -v "$t" > /dev/null || { echo "deb: $t missing (make deps: debhelper, dh-dkms, dpkg-dev)" >&2; exit 1; }
done
ver=$(dpkg-parsechangelog -l debian/changelog -SVersion)
rm -rf "$OUT"
src=$OUT/src/netmirror-$ver
mkdir -p "$src"
# the sources as git sees them; outside git, everything but build/
if git rev-parse --is-inside-work-tree > /dev/null 2>&1; then
	git ls-files -z --cached --others --exclude-standard | while IFS= read -r -d '' f; do
		[ -e "$f" ] || continue	# deleted, not committed
		mkdir -p "$src/$(dirname "$f")"
		cp -a "$f" "$src/$f"
	done
else
	tar -C "$TOP" --exclude=./build -cf - . | tar -C "$src" -xf -
fi
echo "deb: dpkg-buildpackage in $src (log: $OUT/build.log)"
if ! (cd "$src" && dpkg-buildpackage -us -uc > "$OUT/build.log" 2>&1); then
	tail -n 40 "$OUT/build.log" >&2
	echo "deb: dpkg-buildpackage failed (log: $OUT/build.log)" >&2
	exit 1
fi
mv "$OUT"/src/*.deb "$OUT"/src/*.dsc "$OUT"/src/*.tar.* "$OUT"/src/*.changes "$OUT"/src/*.buildinfo "$OUT/"
rm -rf "$OUT/src"
ls -1 "$OUT"/*.deb
if [ "${NM_LINTIAN:-1}" != 0 ]; then
	command -v lintian > /dev/null || { echo "deb: lintian missing (make deps, or NM_LINTIAN=0)" >&2; exit 1; }
	changes=$(ls "$OUT"/*.changes)
	if lintian --fail-on error,warning --info --display-info "$changes" > "$OUT/lintian.txt" 2>&1; then
		echo "deb: lintian: no error or warning ($(grep -c '^I:' "$OUT/lintian.txt" || true) info tags in $OUT/lintian.txt)"
		# a build that passed lintian (scripts/mkpkgcpio.sh reuses only those)
		touch "$OUT/.lintian-clean"
	else
		cat "$OUT/lintian.txt" >&2
		echo "deb: lintian found errors or warnings ($OUT/lintian.txt)" >&2
		exit 1
	fi
fi
