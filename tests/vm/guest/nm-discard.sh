# Discards and write-zeroes (issue 13), under each protocol A, B, C, in one
# VM, netmirror over a thin LV on each node (two VGs on RAM disks, lvm2
# with thin_check_executable="": the image has no thin-provisioning-tools):
#  (1) a fresh pair's full initial sync sends the all-zero regions as
#      P_RS_ZERO: the target's thin LV stays unallocated and the primary
#      sends a few KiB, not the device;
#  (2) the device offers discards (discard_max_bytes > 0); fstrim of an
#      ext4 after its files are removed frees the space in both thin
#      pools; the LVs are identical;
#  (3) a discard while the link is cut and another during the resync that
#      follows: the LVs end identical;
#  (4) a secondary on a device without discard or write-zeroes (brd), the
#      primary on a loop file (takes both): a discard and a write-zeroes
#      (fallocate -p) reach it as zeroes; the devices end identical (under
#      the last protocol only: the path is the same under each).
# Fails on c6ea94a's module: no discard offered (discard_max_bytes 0, fstrim
# refused), the initial sync allocates the whole target LV.
# vms: 1
# disks: none
# timeout: 900
# mem: 1024
load_netmirror
. /tests/nmlib.sh
brd_setup 96 3
modprobe -a dm-thin-pool loop || fail "modprobe dm-thin-pool loop"
for t in /usr/sbin/mkfs.ext4 /usr/bin/fallocate; do
	[ -x $t ] || fail "$t not in the image (tests/vm/mkbase.sh)"
done
cat >> /etc/lvm/lvm.conf <<'EOF'
global {
	thin_check_executable = ""
}
EOF
pvcreate -q /dev/ram0 /dev/ram1 >/dev/null || fail "pvcreate"
vgcreate -q vga /dev/ram0 >/dev/null || fail "vgcreate vga"
vgcreate -q vgb /dev/ram1 >/dev/null || fail "vgcreate vgb"
for v in vga vgb; do
	lvcreate -q -y -L 48M -T $v/pool >/dev/null || fail "thin pool $v"
done
MB=32
S=$((MB * 2048))

# thin LV usage in percent, as an integer (hundredths)
pct() {
	lvs --noheadings -o data_percent "$1" | tr -d ' .'
}
sum() {
	$DD if="$1" bs=1M count=$MB iflag=direct status=none | $MD5SUM | cut -d' ' -f1
}
dmdev() {
	echo "dm-$(dmsetup info -c --noheadings -o minor "$1" | tr -d ' ')"
}
# nma has nothing the peer has not confirmed, and every region in sync
settled() {
	[ "$(nm_status nma pending)" = 0 ] && nm_synced nma && nm_synced nmb
}

round() {
	lvcreate -q -y -V ${MB}M -T vga/pool -n tha >/dev/null || fail "lvcreate tha"
	lvcreate -q -y -V ${MB}M -T vgb/pool -n thb >/dev/null || fail "lvcreate thb"
	# (1) the full initial sync of a fresh pair
	nm_local_pair "$P" flush $S /dev/vga/tha /dev/vgb/thb
	check_eq init/target-unallocated "$(pct vgb/thb)" 000
	sent=$(nm_status nma bytes_sent)
	log "$P: initial sync: nma sent $sent bytes, resync_bytes $(nm_status nma resync_bytes)"
	check init/few-bytes-sent [ "$sent" -lt 262144 ]

	# (2) fstrim of an ext4 frees the space on both nodes
	dmax=$(cat /sys/block/$(dmdev nma)/queue/discard_max_bytes)
	log "$P: nma discard_max_bytes $dmax"
	check discard-offered [ "$dmax" -gt 0 ]
	/usr/sbin/mkfs.ext4 -q -E nodiscard /dev/mapper/nma || fail "mkfs.ext4"
	mount -t ext4 /dev/mapper/nma /mnt || fail "mount"
	$DD if=/dev/urandom of=/mnt/f bs=1M count=16 conv=fsync status=none || fail "fill"
	sync
	wait_eval settled 60 || fail "not settled: $(dmsetup status nma)"
	a1=$(pct vga/tha) b1=$(pct vgb/thb)
	rm /mnt/f
	sync		# the blocks are free once the journal committed
	check fstrim fstrim /mnt
	umount /mnt || fail "umount"
	wait_eval settled 60 || fail "not settled: $(dmsetup status nma)"
	a2=$(pct vga/tha) b2=$(pct vgb/thb)
	log "$P: $(cut -d" " -f1 /proc/uptime)s: thin usage (1/100 %): primary $a1 -> $a2, secondary $b1 -> $b2"
	check fstrim/primary-freed [ "$a2" -lt $((a1 - 3000)) ]
	check fstrim/secondary-freed [ "$b2" -lt $((b1 - 3000)) ]
	check_eq fstrim/identical "$(sum /dev/vgb/thb)" "$(sum /dev/vga/tha)"

	# (3) a discard across a link cut, another during the resync
	lose_link
	pattern write /dev/mapper/nma 5 4M --offset 4M --size 8M --direct --quiet || fail "write apart"
	blkdiscard -o $((6 << 20)) -l $((4 << 20)) /dev/mapper/nma || fail "discard apart"
	dmsetup message nma 0 resync_rate 512 || fail "resync_rate"
	dmsetup message nmb 0 connect || fail "connect"
	wait_eval "[ \"\$(nm_status nma connection)\" = sync_source ]" 30 ||
		fail "no resync: $(dmsetup status nma)"
	blkdiscard -o $((9 << 20)) -l $((2 << 20)) /dev/mapper/nma || fail "discard in resync"
	check_eq resync/discard-during-resync "$(nm_status nma connection)" sync_source
	dmsetup message nma 0 resync_rate 0 || fail "resync_rate 0"
	wait_eval settled 60 || fail "resync: $(dmsetup status nma)"
	log "$P: $(cut -d" " -f1 /proc/uptime)s: resynced"
	check_eq resync/identical "$(sum /dev/vgb/thb)" "$(sum /dev/vga/tha)"
	nm_local_unpair
	lvremove -q -f vga/tha vgb/thb >/dev/null || fail "lvremove"

	# (4) a secondary whose device lacks discard and write-zeroes: the
	# same path under every protocol, so under the last one only (time)
	[ "$P" = "$(nm_protos | awk '{ print $NF }')" ] || return 0
	/usr/bin/truncate -s ${MB}M /tmp/lo.img || fail "truncate"
	losetup /dev/loop0 /tmp/lo.img || fail "losetup"
	nm_local_pair "$P" flush $S /dev/loop0 /dev/ram2
	pattern write /dev/mapper/nma 9 8M --direct --quiet || fail "write"
	blkdiscard -o $((2 << 20)) -l $((4 << 20)) /dev/mapper/nma || fail "discard"
	/usr/bin/fallocate -p -o $((10 << 20)) -l $((2 << 20)) /dev/mapper/nma ||
		fail "write-zeroes"
	wait_eval settled 60 || fail "not settled: $(dmsetup status nma)"
	log "$P: $(cut -d" " -f1 /proc/uptime)s: no-discard peer settled"
	check_eq nodiscard-peer/identical "$(sum /dev/ram2)" "$(sum /dev/loop0)"
	check_eq nodiscard-peer/zeroes "$($DD if=/dev/ram2 bs=1M skip=2 count=4 iflag=direct status=none | $MD5SUM | cut -d' ' -f1)" \
		"$($DD if=/dev/zero bs=1M count=4 status=none | $MD5SUM | cut -d' ' -f1)"
	nm_local_unpair
	losetup -d /dev/loop0
	rm -f /tmp/lo.img
}
nm_each_proto round
