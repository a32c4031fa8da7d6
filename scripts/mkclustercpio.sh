#!/bin/bash
# Build (or reuse) the cluster layer of the VM testbed: Corosync, Pacemaker,
# its command-line tools, resource-agents (ocf-shellfuncs, ocf-tester,
# ocf:heartbeat:Filesystem) and xmllint, from Debian's packages (apt-get
# download + dpkg-deb -x, never installed on the host), laid over the base
# and overlay cpios by the tests that need it (header "# layers: cluster",
# tests/vm/run-test.sh; or by hand: NM_EXTRA_CPIO=$(scripts/mkclustercpio.sh)).
#
#   $NM_CACHE/cluster-$HASH.cpio   HASH covers this script and the base
#                                  layer's name, so it is rebuilt only when
#                                  either changes
#   $NM_CACHE/cluster-debs/        the downloaded packages
#
# The packages: the Depends closure of pacemaker, pacemaker-cli-utils,
# corosync and resource-agents, less what a busybox guest does not run
# (perl, python, dbus, systemd helpers, debconf, the stonith plugins'
# SNMP/IPMI libraries...).  Files the base layer already has are left out;
# every ELF file's NEEDED libraries must then be in this layer or in the
# base (checked: a missing one fails the build, naming it).
# Nothing is started here: the guest (guest-lib/clusterlib.sh) creates the
# hacluster user, Pacemaker's directories and corosync.conf and starts the
# daemons without systemd.  Prints the path of the cpio.
set -euo pipefail

TOP=$(cd "$(dirname "$0")/.." && pwd)
CACHE=${NM_CACHE:-$HOME/.cache/netmirror}
BASE=$("$TOP/tests/vm/mkbase.sh")
HASH=$( (cat "$0"; basename "$BASE") | sha256sum | cut -c1-12)
OUT=$CACHE/cluster-$HASH.cpio
log() { echo "mkclustercpio: $*" >&2; }

if [ -s "$OUT" ]; then
	echo "$OUT"
	exit 0
fi

# psmisc: fuser, which ocf:heartbeat:Filesystem checks for
ROOTS="pacemaker pacemaker-cli-utils corosync resource-agents libxml2-utils psmisc"
# single files of packages whose closure is not wanted (Essential ones):
# fsck, which Filesystem also checks for
FILES="util-linux:sbin/fsck"
# not needed by the guest (scripting languages, service managers, package
# tools, stonith plugins' SNMP/IPMI/HPI stacks, data files)
SKIP='^(python3?.*|perl.*|libperl.*|libpython.*|dbus|dbus-.*|adduser|debconf|cdebconf|dpkg|install-info|init-system-helpers|lsb-base|passwd|procps|libproc2-0|sysvinit-utils|tar|usr-is-merged|usrmerge|sgml-base|mailcap|media-types|mime-support|pci.ids|libpci3|readline-common|libfile-find-rule-perl|libnumber-compare-perl|libtext-glob-perl|libtimedate-perl|libc6|gcc-12-base|libgcc-s1|bzip2|gawk|libsigsegv2|libmpfr6|bc|libsemanage.*|libsensors.*|libsnmp.*|libopenhpi3|libopenipmi0|libdebian-installer4|libnewt0.52|libslang2|libtextwrap1|libpam-modules.*|xsltproc)$'
pkgs=$(apt-cache depends --recurse --no-recommends --no-suggests --no-conflicts \
	--no-breaks --no-replaces --no-enhances $ROOTS 2>/dev/null |
	grep -v '^[ <]' | sort -u | grep -vE "$SKIP") ||
	{ log "apt-cache depends failed (apt-get update?)"; exit 1; }
for r in $ROOTS; do
	echo "$pkgs" | grep -qx "$r" || { log "package $r not found (apt-get update?)"; exit 1; }
done

DEBS=$CACHE/cluster-debs
mkdir -p "$DEBS"
need=
for p in $pkgs; do
	ls "$DEBS/${p}_"*.deb > /dev/null 2>&1 || need="$need $p"
done
if [ -n "$need" ]; then
	log "downloading$need"
	# shellcheck disable=SC2086
	(cd "$DEBS" && apt-get download -q $need > /dev/null 2>&1) ||
		(cd "$DEBS" && apt-get download $need) || { log "apt-get download failed"; exit 1; }
fi

for f in $FILES; do
	p=${f%%:*}
	ls "$DEBS/${p}_"*.deb > /dev/null 2>&1 || (cd "$DEBS" && apt-get download -q "$p" > /dev/null 2>&1) ||
		{ log "apt-get download $p failed"; exit 1; }
done

ST=$(mktemp -d "$CACHE/cluster-stage.XXXXXX")
trap 'rm -rf "$ST" "$ST.one"' EXIT
for p in $pkgs; do
	deb=$(ls "$DEBS/${p}_"*.deb | sort -V | tail -1)
	dpkg-deb -x "$deb" "$ST"
done
for f in $FILES; do
	p=${f%%:*}
	rm -rf "$ST.one"
	mkdir -p "$ST.one"
	dpkg-deb -x "$(ls "$DEBS/${p}_"*.deb | sort -V | tail -1)" "$ST.one"
	mkdir -p "$ST/$(dirname "${f#*:}")"
	cp -a "$ST.one/${f#*:}" "$ST/${f#*:}"
done
rm -rf "$ST.one"
cd "$ST"
rm -rf usr/share/doc usr/share/man usr/share/locale usr/share/info usr/share/lintian \
	usr/share/gdb usr/share/gcc usr/lib/systemd etc/init.d etc/default etc/logrotate.d \
	lib/systemd usr/lib/stonith usr/share/cluster-glue
# merged /usr: the base has /lib -> usr/lib and /bin -> usr/bin
for d in lib bin sbin lib64; do
	if [ -d "$d" ] && [ ! -L "$d" ]; then
		mkdir -p "usr/$d"
		cp -a "$d"/. "usr/$d/"
		rm -rf "$d"
	fi
done
# what the base has stays the base's (its libc, its busybox applets)
cpio -it --quiet < "$BASE" | sed 's|^\./||' | LC_ALL=C sort > "$ST.base-list"
find . ! -type d | sed 's|^\./||' | LC_ALL=C sort |
	LC_ALL=C comm -12 - "$ST.base-list" | while read -r f; do
	# a library link the base has (libx.so.1): its file (libx.so.1.2.3) too
	if [ -L "$f" ]; then
		t=$(dirname "$f")/$(readlink "$f")
		case $t in */../*|/*) ;; *) rm -f "$t" ;; esac
	fi
	rm -f "$f"
done

# every NEEDED library of every ELF file is here or in the base
(find . -name '*.so*' | sed 's|.*/||'; sed -n 's|.*/\([^/]*\.so[^/]*\)$|\1|p' "$ST.base-list") |
	LC_ALL=C sort -u > "$ST.have"
missing=$(find . -type f \( -perm -u+x -o -name '*.so*' \) | while read -r f; do
	readelf -d "$f" 2>/dev/null | sed -n "s|.*Shared library: \[\(.*\)\]|\1 ${f#./}|p"
done | LC_ALL=C sort | LC_ALL=C join -v1 - "$ST.have" | awk '{printf " %s(%s)", $1, $2}')
rm -f "$ST.have"
rm -f "$ST.base-list"
if [ -n "$missing" ]; then
	log "libraries missing from the cluster layer and the base:$missing"
	exit 1
fi

tmp=$OUT.tmp.$$
find . | LC_ALL=C sort | cpio -o -H newc --quiet > "$tmp"
mv "$tmp" "$OUT"
find "$CACHE" -maxdepth 1 -name 'cluster-*.cpio' ! -path "$OUT" -mtime +0 -delete 2>/dev/null || true
log "built $OUT ($(du -m "$OUT" | cut -f1) MB, $(echo $pkgs | wc -w) packages)"
echo "$OUT"
