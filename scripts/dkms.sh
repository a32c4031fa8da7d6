#!/bin/bash
# The kernel module through DKMS, the way the netmirror-dkms package builds
# it on an admin's machine, but in the build tree:
#
#   scripts/dkms.sh build [SOURCETREE INSTALLTREE]
#                             (make dkms) dkms add, build and install
#                             dm-netmirror.ko for the testbed's kernel
#                             ($NM_CACHE/kver, headers in $KDIR) with every
#                             DKMS tree under build/dkms/; prints the path
#                             of the installed module:
#                             build/dkms/install/$KVER/updates/dkms/dm-netmirror.ko
#                             (NM_KO=that path: the VM tests boot with it,
#                             tests/vm/mkoverlay.sh).  With SOURCETREE
#                             and INSTALLTREE: the source of
#                             SOURCETREE/netmirror-VERSION (e.g. the /usr/src
#                             of an unpacked netmirror-dkms package,
#                             scripts/mkpkgcpio.sh), installed into
#                             INSTALLTREE/$KVER/updates/dkms/
#   scripts/dkms.sh stage DIR the module's DKMS source (Kbuild, *.c, *.h,
#                             dkms.conf) into DIR: what netmirror-dkms puts
#                             in /usr/src/netmirror-VERSION (debian/rules)
#   scripts/dkms.sh version   PACKAGE_VERSION of dm-mirror-net/dkms.conf
#
# Nothing is written outside build/dkms (build/dkms-tree and INSTALLTREE
# with a given SOURCETREE): --dkmstree, --sourcetree and --installtree
# point there, --no-depmod, and no signing (DKMS would otherwise make a
# key in /var/lib/dkms; the testbed's kernel does not enforce module
# signatures).  KDIR, KVER: as the top Makefile (headers of
# `make deps`).
set -euo pipefail
TOP=$(cd "$(dirname "$0")/.." && pwd)
SRC=$TOP/dm-mirror-net

version() {
	sed -n 's/^PACKAGE_VERSION="\(.*\)"$/\1/p' "$SRC/dkms.conf"
}

# the module's source files: Kbuild, the C files and headers (not the
# generated *.mod.c of an in-tree build), dkms.conf
stage() {
	local dst=$1 f
	mkdir -p "$dst"
	for f in "$SRC"/Kbuild "$SRC"/dkms.conf "$SRC"/*.c "$SRC"/*.h; do
		case $f in *.mod.c) continue ;; esac
		install -m 644 "$f" "$dst/"
	done
}

build() {
	local cache=${NM_CACHE:-$HOME/.cache/netmirror} kver kdir v d log srctree=${1:-} insttree=${2:-}
	kver=${KVER:-$(cat "$cache/kver" 2>/dev/null || uname -r)}
	kdir=${KDIR:-/usr/src/linux-headers-$kver}
	command -v dkms > /dev/null || { echo "dkms: no dkms on this host (make deps, or apt-get install dkms)" >&2; exit 1; }
	[ -f "$kdir/Makefile" ] || { echo "dkms: no kernel headers in $kdir (make deps)" >&2; exit 1; }
	v=$(version)
	# (a given source tree gets its own DKMS tree: make dkms's module stays)
	d=$TOP/build/dkms${srctree:+-tree}
	rm -rf "$d"
	if [ -z "$srctree" ]; then
		srctree=$d/src insttree=$d/install
		stage "$srctree/netmirror-$v"
	fi
	[ -f "$srctree/netmirror-$v/dkms.conf" ] || { echo "dkms: no $srctree/netmirror-$v/dkms.conf" >&2; exit 1; }
	mkdir -p "$d/tree" "$insttree/$kver"
	log=$d/dkms.log
	local opts=(-m netmirror -v "$v" -k "$kver" --kernelsourcedir "$kdir"
		--dkmstree "$d/tree" --sourcetree "$srctree" --installtree "$insttree")
	# sign_file: a path that does not exist = no signing (see the top)
	for a in add build install; do
		if ! sign_file=/nonexistent/sign-file dkms "$a" "${opts[@]}" --no-depmod >> "$log" 2>&1; then
			cat "$log" >&2
			find "$d/tree" -name make.log -exec cat {} + >&2 2>/dev/null || true
			echo "dkms: dkms $a failed (log: $log)" >&2
			exit 1
		fi
	done
	local ko=$insttree/$kver/updates/dkms/dm-netmirror.ko
	[ -f "$ko" ] || { cat "$log" >&2; echo "dkms: $ko not installed" >&2; exit 1; }
	echo "$ko"
}

case ${1:-} in
build) [ $# = 1 ] || [ $# = 3 ] || { echo "usage: $0 build [SOURCETREE INSTALLTREE]" >&2; exit 2; }
	build "${2:-}" "${3:-}" ;;
stage) [ $# = 2 ] || { echo "usage: $0 stage DIR" >&2; exit 2; }; stage "$2" ;;
version) version ;;
*) sed -n '2,/^set -/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 2 ;;
esac
