# "meta internal" (issue 13): the metadata at the front of the local device,
# the data after it, in one VM (nma primary over ram0, nmb secondary over
# ram1, loopback), under each protocol (NM_PROTOS narrows):
#  - the layout: the local device starts with the netmirror superblock; a
#    block written at target sector X lands at X + 2048 (1 MiB area for
#    32 MiB in 512 KiB regions) on both backing devices;
#  - replicate: a pattern load on nma; both data areas (the backing devices
#    after the area) identical, equal to what nma reads;
#  - resync: link cut, regions written, reconnect: only those resent, data
#    areas identical; a reload (same table) keeps data and state;
#  - discards, write-zeroes and verify (loop files, which take discards;
#    once): a discard of the first MiB of the target leaves both
#    superblocks, the discarded and zeroed ranges read zero after the area
#    on both disks, the data areas are identical; verify finds nothing on
#    equal copies and exactly the one block corrupted behind netmirror's
#    back in the secondary's data area;
#  (LVM without a filter, and crashes: the imeta-crash scenario, 2 VMs)
#  - refusals: a target too long for the device with its area (the kernel
#    log and nmsetup name the size needed), a device with a PV label or an
#    ext2 filesystem at its start (kernel and nmsetup; nmsetup --force
#    clears it), a reload that would move the data (meta internal <-> a
#    metadata device) under a live table.
# vms: 1
# disks: none
# timeout: 400
load_netmirror
. /tests/nmlib.sh
command -v nmsetup >/dev/null || fail "nmsetup not in the image (make tools)"
brd_setup 32 3
A=2048					# the metadata area, sectors
D=$(( $(dev_size /dev/ram0) / 512 ))
S=$((D - A))				# the target's length
RS=1024

# md5 of a backing device's data area (after the 1 MiB metadata area)
data_sum() {
	$DD if="$1" bs=1M skip=1 iflag=direct status=none | $MD5SUM | cut -d' ' -f1
}

# the first 8 bytes of a device, past the page cache
sb_magic() {
	$DD if="$1" bs=512 count=1 iflag=direct status=none | $HEAD -c 8
}

# ---- refusals -----------------------------------------------------------
check_eq nmsetup/size "$(nmsetup -n create nmx /dev/ram2 127.0.0.1:7000 --meta internal)" \
	"dmsetup create nmx --uuid NETMIRROR-nmx --table '0 $S netmirror /dev/ram2 127.0.0.1:7000 C flush 2 meta internal'"
check_fail too-small/kernel dmsetup create nmx --table "0 $((S + 1)) netmirror /dev/ram2 127.0.0.1:7000 C flush 2 meta internal"
check_match too-small/kernel-names-size "$(dmesg | grep 'internal meta:' | tail -1)" "has $D sectors, needs $((D + 1)) .$A meta . $((S + 1)) data."
check_fail too-small/nmsetup nmsetup create nmx /dev/ram2 127.0.0.1:7000 --meta internal --size $((S + 1))
check_match too-small/nmsetup-names-size "$(cat /tmp/nm_check_out)" "it needs $((D + 1)) "
check_eq too-small/nothing-left "$(dmsetup ls | grep -c nmx)" 0
pvcreate -q -y /dev/ram2 >/dev/null 2>&1 || fail "pvcreate ram2"
check_fail sig-pv/kernel dmsetup create nmx --table "0 $S netmirror /dev/ram2 127.0.0.1:7000 C flush 2 meta internal"
check_match sig-pv/kernel-says "$(dmesg | grep 'internal meta:' | tail -1)" "LVM2 physical volume found, not formatted"
check_fail sig-pv/nmsetup nmsetup create nmx /dev/ram2 127.0.0.1:7000 --meta internal
check_match sig-pv/nmsetup-says "$(cat /tmp/nm_check_out)" "holds a LVM2 physical volume signature"
check sig-pv/label-kept pvs /dev/ram2
$DD if=/dev/zero of=/dev/ram2 bs=1M count=4 oflag=direct status=none
mke2fs -q /dev/ram2 4096 >/dev/null 2>&1 || mke2fs /dev/ram2 >/dev/null 2>&1 || fail "mke2fs ram2"
check_fail sig-ext2/nmsetup nmsetup create nmx /dev/ram2 127.0.0.1:7000 --meta internal
check_match sig-ext2/nmsetup-says "$(cat /tmp/nm_check_out)" "ext2/3/4 filesystem"
check sig-ext2/force nmsetup create nmx /dev/ram2 127.0.0.1:7000 --meta internal --force
check_eq sig-ext2/formatted "$(sb_magic /dev/ram2)" NMMETA01
dmsetup remove nmx || fail "remove nmx"
# existing internal metadata is not a signature: created again without --force
check again/no-force nmsetup create nmx /dev/ram2 127.0.0.1:7000 --meta internal
dmsetup remove nmx || fail "remove nmx (2)"

# ---- per protocol ------------------------------------------------------
round() {
	nm_zero /dev/ram0 /dev/ram1
	nm_local_pair "$P" flush "$S" /dev/ram0 /dev/ram1 "meta internal" "meta internal"
	check_eq layout/table "$(dmsetup table nma | grep -o 'meta internal')" "meta internal"
	check_eq layout/superblock-a "$(sb_magic /dev/ram0)" NMMETA01
	check_eq layout/superblock-b "$(sb_magic /dev/ram1)" NMMETA01
	# one 4 KiB block at target sector 8: on disk at sector A + 8
	$DD if=/dev/urandom of=/dev/mapper/nma bs=4096 seek=1 count=1 oflag=direct conv=notrunc status=none ||
		fail "write block"
	check_wait settled 30 "[ \$(nm_status nma pending) = 0 ]"
	want=$($DD if=/dev/mapper/nma bs=4096 skip=1 count=1 iflag=direct status=none | $MD5SUM | cut -d' ' -f1)
	check_eq layout/offset-a "$($DD if=/dev/ram0 bs=512 skip=$((A + 8)) count=8 iflag=direct status=none | $MD5SUM | cut -d' ' -f1)" "$want"
	check_eq layout/offset-b "$($DD if=/dev/ram1 bs=512 skip=$((A + 8)) count=8 iflag=direct status=none | $MD5SUM | cut -d' ' -f1)" "$want"

	# replicate
	pattern write /dev/mapper/nma "$((${#P} + 40))" 8M --direct --quiet || fail "pattern write"
	check_wait replicate/settled 30 "[ \$(nm_status nma pending) = 0 ]"
	check replicate/verify-a pattern verify /dev/mapper/nma "$((${#P} + 40))" 8M --direct --quiet
	check replicate/verify-b pattern verify /dev/mapper/nmb "$((${#P} + 40))" 8M --direct --quiet
	sa=$(data_sum /dev/ram0)
	check_eq replicate/identical "$(data_sum /dev/ram1)" "$sa"
	check_eq replicate/as-read "$($DD if=/dev/mapper/nma bs=1M iflag=direct status=none | $MD5SUM | cut -d' ' -f1)" "$sa"

	# resync after a link loss: only the regions written meanwhile
	lose_link
	before=$(nm_status nma resync_bytes)
	for r in 3 17 40 41 60; do
		$DD if=/dev/urandom of=/dev/mapper/nma bs=4k count=2 seek=$((r * RS / 8 + 5)) oflag=direct conv=notrunc status=none ||
			fail "write region $r"
	done
	check_eq resync/oos "$(nm_status nma in_sync_regions)" "$(( $(nm_status nma total_regions) - 5 ))"
	dmsetup message nmb 0 connect || fail "connect nmb"
	nm_wait_synced nma 60 || fail "no resync: $(dmsetup status nma)"
	nm_wait_synced nmb 30 || fail "nmb not in sync: $(dmsetup status nmb)"
	resent=$(( $(nm_status nma resync_bytes) - before ))
	if [ "$resent" -ge $((5 * RS * 512)) ] && [ "$resent" -le $((6 * RS * 512)) ]; then
		check_ok resync/resent-only-those
	else
		check_bad resync/resent-only-those "resent $resent bytes, want about $((5 * RS * 512))"
	fi
	check_eq resync/identical "$(data_sum /dev/ram1)" "$(data_sum /dev/ram0)"

	# a reload with the same table keeps data and state; one that moves
	# the data under the live table is refused
	t=$(dmsetup table nma)
	dmsetup reload nma --table "$t" && dmsetup suspend nma && dmsetup resume nma || fail "reload nma"
	nm_wait_synced nma 60 || fail "not in sync after the reload: $(dmsetup status nma)"
	check_eq reload/identical "$(data_sum /dev/ram1)" "$(data_sum /dev/ram0)"
	check_fail reload/layout-change dmsetup reload nma --table "$(echo "$t" | sed 's/meta internal/meta \/dev\/ram2/')"
	check_match reload/layout-change-says "$(dmesg | grep netmirror | tail -1)" "another layout"
	nm_local_unpair
}
nm_each_proto round

# ---- discards, write-zeroes, verify (once) ----------------------------
modprobe loop || fail "modprobe loop"
/usr/bin/truncate -s 32M /tmp/a.img /tmp/b.img || fail "truncate"
losetup /dev/loop0 /tmp/a.img && losetup /dev/loop1 /tmp/b.img || fail "losetup"
L=$(( $(dev_size /dev/loop0) / 512 - A ))
nm_local_pair C flush "$L" /dev/loop0 /dev/loop1 "meta internal" "meta internal"
dmax=$(cat "/sys/block/dm-$(dmsetup info -c --noheadings -o minor nma | tr -d ' ')/queue/discard_max_bytes")
check discard/offered [ "${dmax:-0}" -gt 0 ]
pattern write /dev/mapper/nma 9 8M --direct --quiet || fail "write"
blkdiscard -o 0 -l $((1 << 20)) /dev/mapper/nma || fail "discard at 0"
blkdiscard -o $((2 << 20)) -l $((4 << 20)) /dev/mapper/nma || fail "discard"
/usr/bin/fallocate -p -o $((10 << 20)) -l $((2 << 20)) /dev/mapper/nma || fail "write-zeroes"
check_wait discard/settled 30 "[ \$(nm_status nma pending) = 0 ]"
zero4=$($DD if=/dev/zero bs=1M count=4 status=none | $MD5SUM | cut -d' ' -f1)
zero2=$($DD if=/dev/zero bs=1M count=2 status=none | $MD5SUM | cut -d' ' -f1)
for d in loop0 loop1; do
	check_eq discard/superblock-$d "$(sb_magic /dev/$d)" NMMETA01
	check_eq discard/zeroes-$d "$($DD if=/dev/$d bs=1M skip=3 count=4 iflag=direct status=none | $MD5SUM | cut -d' ' -f1)" "$zero4"
	check_eq write-zeroes/zeroes-$d "$($DD if=/dev/$d bs=1M skip=11 count=2 iflag=direct status=none | $MD5SUM | cut -d' ' -f1)" "$zero2"
done
check_eq discard/identical "$(data_sum /dev/loop1)" "$(data_sum /dev/loop0)"
check_eq discard/as-read "$($DD if=/dev/mapper/nma bs=1M iflag=direct status=none | $MD5SUM | cut -d' ' -f1)" "$(data_sum /dev/loop0)"
# verify: equal copies; then one 4 KiB block corrupted at target sector
# 4096 on the secondary's disk (local sector A + 4096)
rc=0
nmsetup verify nma --wait > /tmp/verify.out 2>&1 || rc=$?
check_eq verify/clean-exit "$rc" 0 || log "$(cat /tmp/verify.out)"
check_eq verify/clean-diffs "$(nm_status nma verify_diffs)" 0
$DD if=/dev/urandom of=/dev/loop1 bs=512 seek=$((A + 4096)) count=8 oflag=direct conv=notrunc status=none || fail "corrupt"
rc=0
nmsetup verify nma --wait > /tmp/verify.out 2>&1 || rc=$?
check_eq verify/corrupt-exit "$rc" 7 || log "$(cat /tmp/verify.out)"
check_eq verify/corrupt-diffs "$(nm_status nma verify_diffs)" 1
check_match verify/corrupt-logged "$(dmesg | grep 'verify: block at sector' | tail -3)" "verify: block at sector 4096 .4 KiB. differs"
nm_local_unpair
losetup -d /dev/loop0 /dev/loop1 2>/dev/null || { losetup -d /dev/loop0; losetup -d /dev/loop1; }
exit 0
