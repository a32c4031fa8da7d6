#!/bin/bash
# Install everything netmirror's build and testbed need, from Debian's packages.
# Idempotent: a second run downloads nothing that is already in the cache.
#
#   scripts/deps.sh            (called by `make deps`)
#
# The kernel the testbed boots is Debian's own linux-image-6.1.0-N-amd64, with
# N resolved from the archive's current linux-headers-amd64 so that headers
# and image always match.  The image is fetched with `apt-get download` into
# the cache ($NM_CACHE, default ~/.cache/netmirror), never into /boot.
set -euo pipefail

CACHE=${NM_CACHE:-$HOME/.cache/netmirror}
SUDO=
[ "$(id -u)" = 0 ] || SUDO=sudo
export DEBIAN_FRONTEND=noninteractive

stamp=/var/lib/apt/periodic/netmirror-update-stamp
if [ ! -e /var/lib/apt/lists/lock ] || [ -z "$(find /var/lib/apt/lists -maxdepth 1 -name '*Packages*' -mmin -720 2>/dev/null | head -1)" ]; then
	$SUDO apt-get update -q
fi

N=$(apt-cache depends linux-headers-amd64 2>/dev/null |
    sed -n 's/.*Depends: linux-headers-\(6\.1\.0-[0-9]*\)-amd64$/\1/p' | head -1)
if [ -z "$N" ]; then
	echo "deps: cannot resolve the kernel ABI from linux-headers-amd64" >&2
	exit 1
fi
KVER="$N-amd64"

PKGS="gcc make libc6-dev pkg-config libdevmapper-dev linux-headers-$KVER
      qemu-system-x86 busybox-static cpio kmod xz-utils dmsetup lvm2 drbd-utils
      nbd-client nbd-server fio iproute2 clang libclang-rt-14-dev
      dkms dpkg-dev debhelper dh-dkms lintian"
missing=
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
		missing="$missing $p"
done
if [ -n "$missing" ]; then
	echo "deps: installing$missing"
	$SUDO apt-get install -y -q --no-install-recommends $missing
fi

mkdir -p "$CACHE/debs"
img=$(ls "$CACHE"/debs/linux-image-"$KVER"_*.deb 2>/dev/null | head -1 || true)
if [ -z "$img" ]; then
	(cd "$CACHE/debs" && apt-get download -q "linux-image-$KVER")
	img=$(ls "$CACHE"/debs/linux-image-"$KVER"_*.deb | head -1)
fi
kdir="$CACHE/kernel-$KVER"
if [ ! -e "$kdir/.done" ]; then
	rm -rf "$kdir"
	mkdir -p "$kdir"
	dpkg-deb -x "$img" "$kdir"
	depmod -b "$kdir" "$KVER"
	touch "$kdir/.done"
fi
echo "$KVER" > "$CACHE/kver"
echo "deps: ok (kernel $KVER, cache $CACHE)"
