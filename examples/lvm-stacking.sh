#!/bin/sh
# LVM stacking with netmirror, both ways - a walk-through you can run.
#
#   1. netmirror over a logical volume (what nm-lvcreate does):
#        disk -> PV -> VG -> LV -> netmirror -> (your data)
#   2. netmirror as the physical volume of a volume group:
#        disk -> PV -> VG -> LV -> netmirror -> PV -> VG "vgm" -> LV -> ext2
#      and the files read back on the other node after switching roles.
#
# To be runnable on one machine it plays both nodes: "alpha" on DISK_A and
# "beta" on DISK_B, connected over 127.0.0.1 (alpha listens on port 7789,
# beta on 7790).  On two hosts run the alpha lines on one and the beta
# lines on the other, with the hosts' addresses instead of 127.0.0.1.
# The VM test lvm-stack runs this file as written on two 128 MiB ramdisks:
#     DISK_A=/dev/ram0 DISK_B=/dev/ram1 sh examples/lvm-stacking.sh
# It needs root, nmsetup, nm-lvcreate/nm-lvremove, lvm, dmsetup, mke2fs,
# ext2 support in the kernel (the ext4 module), and
# leaves nothing behind (unless KEEP=1).  Every step is printed.
set -eu

DISK_A=${DISK_A:-/dev/ram0}
DISK_B=${DISK_B:-/dev/ram1}
PATH=$PATH:/usr/local/sbin:/usr/sbin:/sbin

step() { echo "== $*"; }
# md5 of a whole device, read with O_DIRECT (not from the page cache)
sum() { dd if="$1" bs=1M iflag=direct 2>/dev/null | md5sum | cut -d' ' -f1; }

# LVM must see each PV exactly once.  The netmirror device and the LV below
# it carry the same PV label (and so does the peer's copy), so tell LVM
# which to use.  The lower LVs are already hidden (lvm.conf devices/scan_lvs
# is 0 by default); the filter accepts the two disks and only the netmirror
# device that is primary on "this node", rejecting everything else
# (libdmnet's nm_stack_lvm_filter() prints the reject form for a disk).
# On a real host put the same into /etc/lvm/lvm.conf (VG vg0 on /dev/vdb):
#     devices { global_filter = [ "a|^/dev/vdb$|", "a|^/dev/mapper/vg0-pvm-nm$|", "r|.*|" ] }
LVM_ALPHA="devices { global_filter = [ \"a|^$DISK_A\$|\", \"a|^$DISK_B\$|\", \"a|^/dev/mapper/vga-pvm-nm\$|\", \"r|.*|\" ] }"
LVM_BETA="devices { global_filter = [ \"a|^$DISK_A\$|\", \"a|^$DISK_B\$|\", \"a|^/dev/mapper/vgb-pvm-nm\$|\", \"r|.*|\" ] }"

step "both nodes: a volume group on the local disk"
pvcreate -q "$DISK_A"
vgcreate -q vga "$DISK_A"
pvcreate -q "$DISK_B"
vgcreate -q vgb "$DISK_B"

# nm-lvcreate names the device after the VG and the LV: vga-data-nm and
# vgb-data-nm here (/dev/mapper/VG-LV-nm, a '-' in a name doubled as LVM
# does), so the two nodes' devices on this one machine are apart; on two
# hosts with the same VG name both are called the same (vg0-data-nm).

# ---------------------------------------------------------------------
step "1. netmirror over an LV: nm-lvcreate on both nodes, secondary first"
nm-lvcreate -L 32M -n data --meta-size 4M --peer 127.0.0.1:7789 \
	--listen 127.0.0.1:7790 vgb
nm-lvcreate -L 32M -n data --meta-size 4M --peer 127.0.0.1:7790 \
	--listen 127.0.0.1:7789 --role primary vga
# the primary copies the whole LV to the secondary (sync full)
nmsetup wait-sync vga-data-nm --wait-timeout 120
nmsetup status vga-data-nm

step "1. write on the primary, compare the two LVs"
dd if=/dev/urandom of=/dev/mapper/vga-data-nm bs=1M count=8 seek=4 oflag=direct 2>/dev/null
nmsetup wait-sync vga-data-nm --wait-timeout 60 >/dev/null
A=$(sum /dev/vga/data)
B=$(sum /dev/vgb/data)
echo "vga/data $A"
echo "vgb/data $B"
[ "$A" = "$B" ] || { echo "LVs differ" >&2; exit 1; }

# ---------------------------------------------------------------------
step "2. netmirror as a PV: a mirrored LV on each node, vgm on the primary's device"
nm-lvcreate -L 48M -n pvm --peer 127.0.0.1:7791 --listen 127.0.0.1:7792 vgb
nm-lvcreate -L 48M -n pvm --peer 127.0.0.1:7792 --listen 127.0.0.1:7791 \
	--role primary vga
nmsetup wait-sync vga-pvm-nm --wait-timeout 120 >/dev/null
# alpha (primary): the netmirror device becomes a PV of the new VG vgm
pvcreate -q --config "$LVM_ALPHA" /dev/mapper/vga-pvm-nm
vgcreate -q --config "$LVM_ALPHA" vgm /dev/mapper/vga-pvm-nm
lvcreate -q -y --config "$LVM_ALPHA" -L 16M -n files vgm
pvs --config "$LVM_ALPHA" -o pv_name,vg_name

step "2. alpha: a filesystem on vgm/files, three files on it"
mke2fs -F /dev/vgm/files >/dev/null
mkdir -p /tmp/lvm-stacking/mnt
mount -t ext2 /dev/vgm/files /tmp/lvm-stacking/mnt
for f in one two three; do
	dd if=/dev/urandom of=/tmp/lvm-stacking/mnt/$f bs=1k count=300 2>/dev/null
done
(cd /tmp/lvm-stacking/mnt && md5sum one two three) > /tmp/lvm-stacking/sums
cat /tmp/lvm-stacking/sums
umount /tmp/lvm-stacking/mnt
vgchange -q -an --config "$LVM_ALPHA" vgm
nmsetup wait-sync vga-pvm-nm --wait-timeout 60 >/dev/null

step "2. the lower LVs on both nodes are identical"
A=$(sum /dev/vga/pvm)
B=$(sum /dev/vgb/pvm)
echo "vga/pvm $A"
echo "vgb/pvm $B"
[ "$A" = "$B" ] || { echo "backing LVs differ" >&2; exit 1; }

step "2. switch roles: alpha secondary, beta primary; beta reads the files"
nmsetup secondary vga-pvm-nm
# beta may become primary once it has heard that alpha is secondary
i=0
until nmsetup primary vgb-pvm-nm >/dev/null 2>&1; do
	i=$((i + 1))
	[ $i -lt 50 ] || { echo "beta cannot become primary" >&2; exit 1; }
	sleep 0.2
done
vgchange -q -ay --config "$LVM_BETA" vgm
pvs --config "$LVM_BETA" -o pv_name,vg_name
mount -t ext2 -o ro /dev/vgm/files /tmp/lvm-stacking/mnt
(cd /tmp/lvm-stacking/mnt && md5sum -c /tmp/lvm-stacking/sums)
umount /tmp/lvm-stacking/mnt

[ "${KEEP:-0}" = 1 ] && exit 0

# ---------------------------------------------------------------------
step "clean up: vgm, then the netmirror devices and their LVs, then vga/vgb"
vgchange -q -an --config "$LVM_BETA" vgm
vgremove -q -f --config "$LVM_BETA" vgm
pvremove -q -f --config "$LVM_BETA" /dev/mapper/vgb-pvm-nm
nm-lvremove vga/pvm
nm-lvremove vgb/pvm
nm-lvremove data vga
nm-lvremove data vgb
vgremove -q vga
vgremove -q vgb
pvremove -q "$DISK_A" "$DISK_B"
rm -rf /tmp/lvm-stacking
step "done"
