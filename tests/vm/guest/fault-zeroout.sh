# A write-zeroes that the secondary's disk offers but refuses when it runs
# (EOPNOTSUPP) is written there as zero pages, as blkdev_issue_zeroout()
# does; up to 1.15.0 the secondary took the refusal for a disk failure and
# detached its disk.  Such a disk: a loop device over a tmpfs file offers
# REQ_OP_WRITE_ZEROES, but with REQ_NOUNMAP loop asks for
# FALLOC_FL_ZERO_RANGE, which tmpfs lacks (SCSI disks whose WRITE SAME
# fails behave alike).
#
# One VM, both nodes on loopback: the primary on a loop over a file of an
# ext4 on brd (takes zero-range), the secondary on a loop over a tmpfs
# file; for each protocol A, B, C: 8 MiB of data, then `fallocate
# --zero-range` of 4 MiB in it on the primary (REQ_NOUNMAP).  Checks
# <P>/...:
#   zeroout-ok      fallocate succeeded on the primary
#   peer-attached   both nodes still say disks uptodate/uptodate once
#                   the pair settled (nothing pending)
#   no-disk-error   no "write from the peer ... failed" in the kernel log
#   refusal-hit     the secondary's disk did refuse the write-zeroes (the
#                   kernel log's "disk refused zeroing sectors 4096+8192"),
#                   so the path under test was taken (on 1.15.0: failed)
#   in-sync         all regions in sync, without a resync (resync_bytes 0)
#   identical       both backing devices equal
#   zeroes          the range reads zeroes on the secondary's disk
# vms: 1
# disks: none
# timeout: 300
# mem: 1024
load_netmirror
. /tests/nmlib.sh
modprobe loop || fail "modprobe loop"
[ -x /usr/sbin/mkfs.ext4 ] && [ -x /usr/bin/fallocate ] ||
	fail "mkfs.ext4 or fallocate not in the image (tests/vm/mkbase.sh)"
brd_setup 64 1
/usr/sbin/mkfs.ext4 -q /dev/ram0 || fail "mkfs.ext4"
mkdir -p /mnt/a && mount -t ext4 /dev/ram0 /mnt/a || fail "mount ext4"
ZERO4=$($DD if=/dev/zero bs=1M count=4 status=none | $MD5SUM | cut -d' ' -f1)

for P in $(nm_protos); do
	NM_CHECK_PREFIX=$P/
	rm -f /mnt/a/a.img /tmp/b.img
	/usr/bin/truncate -s 32M /mnt/a/a.img && /usr/bin/truncate -s 32M /tmp/b.img ||
		fail "truncate"
	losetup /dev/loop0 /mnt/a/a.img && losetup /dev/loop1 /tmp/b.img || fail "losetup"
	nm_local_pair "$P" flush "" /dev/loop0 /dev/loop1 "sync none" "sync none"
	dmesg -c > /dev/null
	pattern write /dev/mapper/nma 11 8M --direct --quiet || fail "$P: write"
	check zeroout-ok /usr/bin/fallocate -z -o $((2 << 20)) -l $((4 << 20)) /dev/mapper/nma
	wait_eval "nm_synced nma && [ \$(nm_status nma pending) = 0 ]" 30 ||
		log "$P: not settled: $(dmsetup status nma)"
	check_eq peer-attached "$(nm_status nma disks) $(nm_status nmb disks)" \
		"uptodate/uptodate uptodate/uptodate"
	check_fail no-disk-error sh -c "dmesg | grep 'write from the peer'"
	check refusal-hit sh -c "dmesg | grep -q 'disk refused zeroing sectors 4096+8192'"
	check_eq in-sync "$(nm_status nma in_sync_regions)/$(nm_status nma resync_bytes)" \
		"$(nm_status nma total_regions)/0"
	check_eq identical "$(dev_sum /dev/loop1)" "$(dev_sum /dev/loop0)"
	check_eq zeroes "$($DD if=/dev/loop1 bs=1M skip=2 count=4 iflag=direct status=none |
		$MD5SUM | cut -d' ' -f1)" "$ZERO4"
	nm_local_unpair
	losetup -d /dev/loop0 && losetup -d /dev/loop1 || fail "losetup -d"
done
NM_CHECK_PREFIX=
umount /mnt/a
exit 0
