# A resync source whose disk cannot read one region (on_io_error pass_on:
# the disk stays attached) resyncs every other region and ends the resync
# (1.17.0, wire protocol 8, P_RS_STOP), then starts it again on the same
# link 10 s later (NM_RS_RETRY).  Up to 1.16.0 it read the region again
# on each pass of its sync thread (about ten a second) and stayed
# sync_source, its target sync_target, for as long as the link lasted.
#
# One VM, both nodes on loopback, 32 MiB devices (64 regions of 512 KiB).
# For each protocol A, B, C: nma (primary, pass_on, sync full) on a
# dm table over random data in which 8 sectors of region 10 are the
# `error` target; nmb on a zeroed disk.  Checks <P>/...:
#   stopped           both nodes leave the resync (connected) within 30 s
#   source-uptodate   nma's disk stays uptodate (pass_on: not detached)
#   target-inconsistent  nmb's disk stays inconsistent (it lacks a region)
#   one-left-source   nma: exactly one region out of sync
#   one-left-target   nmb: exactly one region out of sync
#   logged            nma logged the unreadable regions
#   no-rereads        no read reached nma's disk in the 3 s after
#   stays-stopped     nma is not sync_source again after those 3 s
#   rest-equal        both backing devices equal outside region 10
#   write             a 4 KiB O_DIRECT write to nma succeeds meanwhile
#   resynced          with the disk readable again (the table swapped for
#                     a dm-linear), the resync starts again on its own and
#                     resyncs region 10 (within 40 s): both uptodate and in
#                     sync
#   link-kept         the link never dropped
#   identical         both backing devices equal
# vms: 1
# disks: none
# timeout: 400
load_netmirror
. /tests/nmlib.sh
. /tests/dur-lib.sh
modprobe dm-linear 2> /dev/null

S=65536
BAD=10496	# 8 sectors in region 10 (sectors 10240..11263)

for P in $(nm_protos); do
	NM_CHECK_PREFIX=$P/
	brd_setup 32 2
	$DD if=/dev/urandom of=/dev/ram0 bs=1M count=32 oflag=direct status=none || fail "fill ram0"
	dmsetup create lowa <<- EOF || fail "create lowa"
		0 $BAD linear /dev/ram0 0
		$BAD 8 error
		$((BAD + 8)) $((S - BAD - 8)) linear /dev/ram0 $((BAD + 8))
	EOF
	dmsetup create nmb --table "0 $S netmirror /dev/ram1 127.0.0.1:7789 $P flush 2 listen 127.0.0.1:7790" ||
		fail "create nmb"
	dmsetup create nma --table "0 $S netmirror /dev/mapper/lowa 127.0.0.1:7790 $P flush 8 listen 127.0.0.1:7789 role primary sync full on_io_error pass_on" ||
		fail "create nma"
	d0=$(drops)
	check_wait stopped 30 "[ \"\$(nm_status nma connection)\" = connected ] && [ \"\$(nm_status nmb connection)\" = connected ]"
	log "$P: after the resync: nma $(dmsetup status nma); nmb $(dmsetup status nmb)"
	check_eq source-uptodate "$(nm_status nma disk)" uptodate
	check_eq target-inconsistent "$(nm_status nmb disk)" inconsistent
	check_eq one-left-source "$(( $(nm_status nma total_regions) - $(nm_status nma in_sync_regions) ))" 1
	check_eq one-left-target "$(( $(nm_status nmb total_regions) - $(nm_status nmb in_sync_regions) ))" 1
	check logged sh -c "dmesg | grep -q 'resync stopped: 1 unreadable regions stay out of sync'"
	before=$(dm_ios lowa)
	sleep 3
	after=$(dm_ios lowa)
	log "$P: nma's disk I/O (reads writes) $before -> $after"
	check_eq no-rereads "${after%% *}" "${before%% *}"
	check_eq stays-stopped "$(nm_status nma connection)" connected
	a1=$($DD if=/dev/ram0 bs=512K count=10 status=none | md5sum)
	b1=$($DD if=/dev/ram1 bs=512K count=10 status=none | md5sum)
	a2=$($DD if=/dev/ram0 bs=512K skip=11 status=none | md5sum)
	b2=$($DD if=/dev/ram1 bs=512K skip=11 status=none | md5sum)
	check_eq rest-equal "$a1 $a2" "$b1 $b2"
	check write $DD if=/dev/urandom of=/dev/mapper/nma bs=4k seek=5000 count=1 oflag=direct conv=notrunc status=none

	# the disk reads again (say, the bad sectors were remapped): the
	# resync starts again on the same link
	dmsetup reload lowa --table "0 $S linear /dev/ram0 0" && dmsetup resume lowa || fail "lowa readable"
	check resynced nm_wait_synced nma 40
	check_wait uptodate 20 "[ \"\$(nm_status nmb disks)\" = uptodate/uptodate ]"
	check_eq link-kept "$(drops)" "$d0"
	dur_settled_same identical 60 /dev/ram0 /dev/ram1
	dmsetup remove nma || fail "remove nma"
	dmsetup remove nmb || fail "remove nmb"
	dmsetup remove lowa || fail "remove lowa"
done
NM_CHECK_PREFIX=
exit 0
