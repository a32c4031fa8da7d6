# A demoted primary clears the marks of its writes as primary once the
# peer holds them all (review of 1.18.20, helper-63 finding 3).  A primary
# with a metadata device marks a region there before its first write to
# it and clears the mark lazily, about two stable points later; that lazy
# clear ran only on a primary.  Up to 1.18.20 the marks a node held when
# it was demoted stayed on its metadata for as long as it was secondary:
# at its next start it came with "changes" of its own, was the resync
# source of those regions (needless: the data were equal), and counted
# them as its changes for after_sb_* after a split.  Since 1.18.21 a
# secondary connected in sync, both disks uptodate, with nothing of its
# own unconfirmed, clears its marks (the commit flushes its disk first).
#
# One VM, both nodes on loopback, 16 MiB, metadata devices (ram2, ram3).
# For each protocol A, B, C (checks <P>/...): 4 MiB written through nma,
# which is made secondary at once.
#   marked-at-demotion  premise: nma's metadata media holds marks right
#                       after the demotion
#   cleared             within 10 s nma's metadata media holds none
#   no-resync           both nodes removed and created again as
#                       secondaries: they connect in sync and no resync
#                       starts (1.18.20: nma resynced its marked regions)
#   identical           both disks equal
# vms: 1
# disks: none
# timeout: 400
load_netmirror
. /tests/nmlib.sh
brd_setup 16 4
S=$(( $(dev_size /dev/ram0) / 512 ))

# non-zero bytes in the first 4 KiB of the bitmap (after the superblock)
marks() {
	$DD if="$1" bs=4096 skip=1 count=1 iflag=direct status=none | od -An -tu1 -v |
		tr -s ' ' '\n' | grep -c '^[1-9]'
}

for P in $(nm_protos); do
	NM_CHECK_PREFIX=$P/
	nm_zero /dev/ram0 /dev/ram1 /dev/ram2 /dev/ram3
	nm_local_pair "$P" flush "$S" /dev/ram0 /dev/ram1 "meta /dev/ram2" "meta /dev/ram3"
	pattern write /dev/mapper/nma 3 1M --size 4M --direct --quiet || fail "$P: write"
	dmsetup message nma 0 secondary || fail "$P: demote nma"
	m=$(marks /dev/ram2)
	if [ "$m" -gt 0 ]; then check_ok marked-at-demotion; else check_bad marked-at-demotion "no marks on nma's metadata"; fi
	check_wait cleared 10 "[ \$(marks /dev/ram2) = 0 ]"
	log "$P: marks nma $(marks /dev/ram2), nmb $(marks /dev/ram3); nma $(dmsetup status nma)"
	nm_local_unpair
	rs0=$(dmesg | grep -c 'resync started')
	dmsetup create nmb --table "0 $S netmirror /dev/ram1 127.0.0.1:7789 $P flush 4 listen 127.0.0.1:7790 meta /dev/ram3" ||
		fail "$P: create nmb"
	dmsetup create nma --table "0 $S netmirror /dev/ram0 127.0.0.1:7790 $P flush 4 listen 127.0.0.1:7789 meta /dev/ram2" ||
		fail "$P: create nma"
	nm_wait_synced nma 30 || fail "$P: no connect: $(dmsetup status nma)"
	sleep 1
	check_eq no-resync "$(dmesg | grep -c 'resync started')" "$rs0"
	check_eq identical "$(dev_sum /dev/ram0)" "$(dev_sum /dev/ram1)"
	nm_local_unpair
done
NM_CHECK_PREFIX=
exit 0
