#!/bin/bash
# Build (or reuse) the testbed's base layer, cached in $NM_CACHE:
#   $NM_CACHE/vmlinux-$KVER          uncompressed ELF kernel (boots via PVH, no
#                                    in-guest decompression)
#   $NM_CACHE/base-$KVER-$HASH.cpio  uncompressed newc cpio: busybox + applet
#                                    links, GNU tools, dmsetup, lvm, drbd 8.4
#                                    tools, nbd, ip, kmod, and the kernel
#                                    modules the tests need (dependency closure,
#                                    depmod'ed)
#   $NM_CACHE/fio-$KVER-$HASH.cpio   the fio layer: fio and the libraries only
#                                    it needs (librbd, libgfapi, ICU...: 55 MB
#                                    that every boot would unpack, 0.4 s of
#                                    TCG each), laid over the base by the tests
#                                    that run fio (header "# layers: fio",
#                                    NM_LAYERS=fio; lib.sh vm_build)
# HASH covers this script and the kernel version, so both are rebuilt only
# when either changes.  Prints the path of the base cpio on stdout (--fio:
# the fio layer's).
#
#   tests/vm/mkbase.sh            (vm.sh calls it; cheap when cached)
#   tests/vm/mkbase.sh --fio
set -euo pipefail

CACHE=${NM_CACHE:-$HOME/.cache/netmirror}
if [ ! -r "$CACHE/kver" ]; then
	echo "mkbase: $CACHE/kver missing: run 'make deps' first" >&2
	exit 1
fi
KVER=$(cat "$CACHE/kver")
KDIR=$CACHE/kernel-$KVER
[ -e "$KDIR/.done" ] || { echo "mkbase: $KDIR not unpacked: run 'make deps'" >&2; exit 1; }

HASH=$( (cat "$0"; echo "$KVER") | sha256sum | cut -c1-12)
BASE=$CACHE/base-$KVER-$HASH.cpio
FIO=$CACHE/fio-$KVER-$HASH.cpio
want=$BASE
[ "${1:-}" = --fio ] && want=$FIO
VMLINUX=$CACHE/vmlinux-$KVER

log() { echo "mkbase: $*" >&2; }

# --- uncompressed vmlinux (scripts/extract-vmlinux method, xz only) ---------
if [ ! -s "$VMLINUX" ]; then
	img=$KDIR/boot/vmlinuz-$KVER
	tmp=$VMLINUX.tmp.$$
	ok=
	for pos in $(LC_ALL=C grep -obUaP '\xfd7zXZ\x00' "$img" | cut -d: -f1); do
		tail -c+$((pos + 1)) "$img" | xz -dc > "$tmp" 2>/dev/null || true
		if [ "$(head -c4 "$tmp" | od -An -c | tr -d ' ')" = '177ELF' ]; then
			ok=1
			break
		fi
	done
	[ -n "$ok" ] || { rm -f "$tmp"; log "cannot extract vmlinux from $img"; exit 1; }
	mv "$tmp" "$VMLINUX"
	log "extracted $VMLINUX ($(du -m "$VMLINUX" | cut -f1) MB)"
fi

if [ -s "$BASE" ] && [ -s "$FIO" ]; then
	echo "$want"
	exit 0
fi

log "building base cpio for $KVER"
ST=$(mktemp -d "$CACHE/base-stage.XXXXXX")
trap 'rm -rf "$ST"' EXIT
cd "$ST"
mkdir -p usr/bin usr/sbin usr/lib/x86_64-linux-gnu usr/lib64 usr/lib/drbd \
	etc/lvm dev proc sys tmp run mnt root var/lib/drbd var/run var/lock
ln -s usr/bin bin
ln -s usr/sbin sbin
ln -s usr/lib lib
ln -s usr/lib64 lib64
mknod -m 600 dev/console c 5 1
mknod -m 666 dev/null c 1 3
chmod 1777 tmp

# busybox and its applet links (all point at /usr/bin/busybox)
cp /usr/bin/busybox usr/bin/busybox
for a in $(busybox --list-full); do
	case $a in */*) ;; *) continue ;; esac
	d=${a%/*}
	case $d in
	bin) d=usr/bin ;; sbin) d=usr/sbin ;;
	esac
	[ -e "$d/${a##*/}" ] || ln -s /usr/bin/busybox "$d/${a##*/}"
done

# copy a host binary (and the libraries ldd names) to DEST inside the stage
copy_lib() {
	local l=$1 dst
	dst=usr/${l#/usr/}
	dst=${dst#usr/}
	dst=usr/$dst
	[ -e "$dst" ] && return 0
	mkdir -p "$(dirname "$dst")"
	cp -L "$l" "$dst"
}
copy_bin() {
	local src=$1 dst=${2:-}
	[ -n "$dst" ] || dst=usr/${src#/usr/}
	dst=${dst#/}
	case $dst in usr/*) ;; *) dst=usr/$dst ;; esac
	mkdir -p "$(dirname "$dst")"
	rm -f "$dst"
	cp -L "$src" "$dst"
	local libs
	libs=$(ldd "$src" 2>/dev/null || true)
	for l in $(echo "$libs" | awk '/=> \//{print $3} /^\t\//{print $1}'); do
		copy_lib "$l"
	done
}

# GNU tools, at their usual paths (guest scripts call them by absolute path:
# busybox ash runs its own applets first for bare names)
for t in dd md5sum sha256sum head od timeout stat sync truncate sort; do
	copy_bin "/usr/bin/$t"
done
copy_bin /usr/bin/cmp
# ext4 for fstrim over a thin LV (busybox mke2fs makes ext2 only), and
# util-linux fallocate (-p: a write-zeroes; busybox's has no -p)
copy_bin /usr/sbin/mke2fs
ln -sf mke2fs usr/sbin/mkfs.ext4
cp /etc/mke2fs.conf etc/mke2fs.conf
copy_bin /usr/bin/fallocate
copy_bin /usr/sbin/dmsetup
copy_bin /usr/sbin/lvm
for l in lvcreate lvremove lvs lvchange lvextend lvdisplay vgcreate vgremove \
	vgs vgchange vgdisplay pvcreate pvremove pvs pvdisplay lvscan vgscan pvscan; do
	ln -sf lvm "usr/sbin/$l"
done
copy_bin /usr/lib/drbd/drbdsetup-84
copy_bin /usr/lib/drbd/drbdadm-84
copy_bin /usr/sbin/drbdmeta
ln -sf /usr/lib/drbd/drbdsetup-84 usr/sbin/drbdsetup
ln -sf /usr/lib/drbd/drbdadm-84 usr/sbin/drbdadm
copy_bin /usr/sbin/nbd-client
copy_bin /usr/bin/nbd-server
copy_bin /usr/sbin/ip
copy_bin /usr/bin/kmod
for l in modprobe insmod rmmod lsmod depmod modinfo; do
	ln -sf /usr/bin/kmod "usr/sbin/$l"
done
copy_lib /lib64/ld-linux-x86-64.so.2
# all of libc6's libraries and libgcc_s: layers built on the base
# (mkclustercpio.sh) take them from here
for l in libc.so.6 libm.so.6 libresolv.so.2 libdl.so.2 libpthread.so.0 \
	librt.so.1 libutil.so.1 libanl.so.1 libnss_files.so.2 libnss_dns.so.2 \
	libgcc_s.so.1; do
	if [ -e "/lib/x86_64-linux-gnu/$l" ]; then
		copy_lib "/lib/x86_64-linux-gnu/$l"
	fi
done

cat > etc/passwd <<'EOF'
root:x:0:0:root:/root:/bin/sh
nobody:x:65534:65534:nobody:/nonexistent:/bin/false
EOF
cat > etc/group <<'EOF'
root:x:0:
nogroup:x:65534:
EOF
echo 'hosts: files' > etc/nsswitch.conf
printf '127.0.0.1 localhost\n169.254.0.1 a\n169.254.0.2 b\n' > etc/hosts
printf 'tcp 6 TCP\nudp 17 UDP\n' > etc/protocols

# kernel modules: dependency closure of what the tests use
MODS="dm-mod dm-log dm-region-hash dm-mirror dm-flakey dm-delay dm-log-writes
      dm-zero dm-snapshot brd loop null_blk nbd drbd virtio_net virtio_blk
      virtio_pci libcrc32c crc32c_generic crc32c-intel sch_netem raid1 md-mod
      ext4 dm-thin-pool"
MD=lib/modules/$KVER
mkdir -p "usr/$MD"
for m in $MODS; do
	deps=$(modprobe -d "$KDIR" -S "$KVER" --show-depends "$m" 2>/dev/null) ||
		{ log "module $m not found (skipped)"; continue; }
	for ko in $(echo "$deps" | awk '$1=="insmod"{print $2}'); do
		rel=${ko#"$KDIR"/}
		rel=${rel#usr/}
		mkdir -p "usr/$(dirname "$rel")"
		cp "$ko" "usr/$rel"
	done
done
for f in modules.order modules.builtin modules.builtin.modinfo; do
	cp "$KDIR/$MD/$f" "usr/$MD/$f" 2>/dev/null || true
done
depmod -b "$ST" "$KVER"

# the fio layer: what copying fio adds to the finished base stage
find . | LC_ALL=C sort > "$ST.files"
copy_bin /usr/bin/fio
find . | LC_ALL=C sort | comm -13 "$ST.files" - > "$ST.fio"
tmpc=$FIO.tmp.$$
cpio -o -H newc --quiet < "$ST.fio" > "$tmpc"
# (its new directories stay in the base, empty)
while read -r f; do
	[ -d "$f" ] || rm -f "$f"
done < "$ST.fio"
mv "$tmpc" "$FIO"
rm -f "$ST.files" "$ST.fio"

tmpc=$BASE.tmp.$$
find . | LC_ALL=C sort | cpio -o -H newc --quiet > "$tmpc"
mv "$tmpc" "$BASE"
# drop stale bases of older script versions: those older than a day (a
# worktree with another version of this script may still be using its own)
find "$CACHE" -maxdepth 1 \( -name 'base-*.cpio' -o -name 'fio-*.cpio' \) \
	! -path "$BASE" ! -path "$FIO" -mtime +0 -delete 2>/dev/null || true
log "built $BASE ($(du -m "$BASE" | cut -f1) MB, $(ls "usr/$MD/kernel" -R | grep -c '\.ko') modules) and $FIO ($(du -m "$FIO" | cut -f1) MB)"
echo "$want"
