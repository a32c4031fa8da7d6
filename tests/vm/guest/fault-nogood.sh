# A primary with no uptodate disk on either node takes no write (review of
# 1.17.7, resync finding 1).  The primary's disk fails while it is the
# resync source of an inconsistent secondary: up to 1.17.7 the write that
# failed locally was acknowledged (its peer part reached the target), and
# every later write of the now diskless primary went to the target's
# inconsistent disk and was acknowledged too, while no node recorded them
# (a diskless node marks nothing, and the target marked nothing for its
# detached source).  After the primary came back on its repaired disk (a
# remove and create, as after a reboot) it was the resync source again and
# resynced only what its bitmap knew: both nodes in sync, the disks
# different, the acknowledged writes gone from the primary.
#
# One VM, both nodes on loopback, 64 MiB, nma over a dm-linear lowa (made
# to fail with dm-flakey by `lower bad`).  For each protocol A, B, C and
# each metadata layout M: "sep" (metadata devices: nma's detach is
# recorded on its own metadata, which marks every region) and "internal"
# (at the front of the local device: the failing disk takes nma's
# metadata with it, so only the target can record it): nmb disconnects,
# nma writes 4 MiB at 0 (regions out of sync), nma pauses its resync, nmb
# reconnects and becomes sync_target (inconsistent); nma's disk fails
# under a write at 8 MiB; nma is diskless.  Checks <P>/<M>/...:
#   target           nmb is sync_target before the failure
#   detached         nma's disk is diskless after the failing write
#   trigger-failed   the write that failed locally is not acknowledged:
#                    its only copy is on an inconsistent disk
#   write-refused    a later write through nma fails (EIO), no copy to keep
#   read-refused     a read through nma fails (as before)
#   resynced         nma removed, its disk repaired, created again: both
#                    nodes in sync within 60 s
#   identical        both data areas equal (the target must resync all
#                    of its disk: its source's detach is marked on every
#                    region there)
# Fails on 1.17.7 (trigger-failed, write-refused; identical with internal
# metadata).
# vms: 1
# disks: none
# timeout: 600
load_netmirror
. /tests/nmlib.sh
. /tests/dur-lib.sh
modprobe dm-flakey || fail "modprobe dm-flakey"

scenario() {
	local rc tbl len off=0
	NM_CHECK_PREFIX=$P/$M/
	brd_setup 64 4
	nm_zero /dev/ram2 /dev/ram3
	S=$(( $(dev_size /dev/ram0) / 512 ))
	dmsetup create lowa --table "0 $S linear /dev/ram0 0" || fail "create lowa"
	if [ "$M" = internal ]; then
		off=1	# MiB: the metadata area of a 64 MiB device
		len=$((S - 2048))
		nm_local_pair "$P" flush "$len" /dev/mapper/lowa /dev/ram1 "meta internal" "meta internal"
	else
		nm_local_pair "$P" flush "" /dev/mapper/lowa /dev/ram1 "meta /dev/ram2" "meta /dev/ram3"
	fi
	nm_wait_synced nma 120 || fail "$P: not synced: $(dmsetup status nma)"
	tbl=$(dmsetup table nma)
	lose_link
	pattern write /dev/mapper/nma 7 1M --size 4M --direct --quiet || fail "$P: write while disconnected"
	dmsetup message nma 0 pause_resync || fail "$P: pause_resync"
	dmsetup message nmb 0 connect || fail "$P: connect nmb"
	check_wait target 30 "[ \"\$(nm_status nmb connection)\" = sync_target ]"
	lower bad lowa /dev/ram0
	$DD if=/dev/urandom of=/dev/mapper/nma bs=4k seek=2048 count=1 oflag=direct conv=notrunc status=none
	rc=$?
	check_wait detached 10 "[ \"\$(nm_status nma disk)\" = diskless ]"
	check_eq trigger-failed "$([ "$rc" = 0 ] && echo acknowledged || echo failed)" failed
	pattern write /dev/mapper/nma 9 4k --size 4k --offset 12M --direct --quiet
	rc=$?
	check_eq write-refused "$([ "$rc" = 0 ] && echo acknowledged || echo failed)" failed
	$DD if=/dev/mapper/nma of=/dev/null bs=4k count=1 iflag=direct status=none
	rc=$?
	check_eq read-refused "$([ "$rc" = 0 ] && echo read || echo failed)" failed
	log "$P: nma $(dmsetup status nma); nmb $(dmsetup status nmb)"
	# the primary back on its repaired disk, as after a reboot
	dmsetup remove nma || fail "$P: remove nma"
	lower ok lowa /dev/ram0
	dmsetup create nma --table "$tbl" || fail "$P: create nma again"
	dmsetup message nma 0 primary || log "$P: nma not promoted: $(dmsetup status nma)"
	check_wait resynced 60 "nm_synced nma && nm_synced nmb"
	log "$P: after: nma $(dmsetup status nma); nmb $(dmsetup status nmb)"
	$DD if=/dev/ram0 of=/tmp/ng_a bs=1M skip=$off iflag=direct status=none &&
		$DD if=/dev/ram1 of=/tmp/ng_b bs=1M skip=$off iflag=direct status=none || fail "$P/$M: read the disks"
	check identical $CMP /tmp/ng_a /tmp/ng_b
	rm -f /tmp/ng_a /tmp/ng_b
	nm_local_unpair
	dmsetup remove lowa || fail "$P: remove lowa"
}

for P in $(nm_protos); do
	for M in sep internal; do
		scenario
	done
done
NM_CHECK_PREFIX=
exit 0
