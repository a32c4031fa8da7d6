# A secondary whose disk failed (`detach`) and whose table is then
# reloaded (its disk repaired) comes back `inconsistent` and is resynced
# whole; its metadata must say so before any resync data land (review of
# 1.18.0).  Up to 1.18.0 the new table took the detached state in memory
# only (`inconsistent`, every region out of sync), while its metadata,
# re-read from the device, still said consistent with the old bitmap: a
# crash during that resync brought back a half-written disk that claimed
# to be a consistent copy.
#
# One VM, both nodes on loopback, 32 MiB devices, metadata on both, nmb's
# disk a dm-linear swapped for an always-failing dm-flakey (nm_detach_lowa
# is the same for nma).  For each protocol A, B, C: 4 MiB written and
# synced; nmb's disk fails under a 4 MiB write at 8 MiB and nmb detaches;
# the disk is repaired; nma's resync is paused and nmb's table reloaded.
# Checks <P>/...:
#   detached         nmb diskless after the failing write
#   reloaded         the reload and resume of nmb succeed
#   target           nmb is the (paused) resync target, inconsistent
#   md-inconsistent  nmb's superblock (/dev/ram3) says not consistent
#                    before any resync data arrive
#   resynced, kept, identical   the resync released: in sync, the write
#                    at 8 MiB on nmb's disk, both backing devices equal
# vms: 1
# disks: none
# timeout: 600
load_netmirror
. /tests/nmlib.sh
modprobe dm-flakey || fail "modprobe dm-flakey"
S=65536

tableb() { echo "0 $S netmirror /dev/mapper/lowb 127.0.0.1:7789 $P flush 4 listen 127.0.0.1:7790 meta /dev/ram3"; }

# the consistent flag (bit 0) of nmb's superblock
md_flags() {
	$DD if=/dev/ram3 bs=512 count=1 iflag=direct 2>/dev/null | od -An -tu4 -j12 -N4 | tr -d ' '
}

w8() { pattern "$1" "$2" 5 4M --size 4M --offset 8M --direct --quiet; }

run_proto() {
	brd_setup 32 4
	nm_zero /dev/ram2 /dev/ram3
	dmsetup create lowb --table "0 $S linear /dev/ram1 0" || fail "create lowb"
	dmsetup create nmb --table "$(tableb)" || fail "create nmb"
	dmsetup create nma --table "0 $S netmirror /dev/ram0 127.0.0.1:7790 $P flush 6 listen 127.0.0.1:7789 role primary meta /dev/ram2" ||
		fail "create nma"
	nm_wait_synced nma 60 && nm_wait_synced nmb 30 || fail "first sync: $(dmsetup status nma)"
	pattern write /dev/mapper/nma 1 4M --size 4M --direct --quiet || fail "first write"
	lower bad lowb /dev/ram1
	w8 write /dev/mapper/nma || log "$P: the write while nmb's disk fails: failed"
	check_wait detached 20 "[ \"\$(nm_status nmb disk)\" = diskless ]"
	lower ok lowb /dev/ram1
	dmsetup message nma 0 pause_resync || fail "pause_resync"
	check reloaded sh -c "dmsetup reload nmb --table '$(tableb)' && dmsetup resume nmb"
	check_wait target 30 "[ \"\$(nm_status nmb connection)\" = sync_target ] && [ \"\$(nm_status nmb disk)\" = inconsistent ]"
	log "$P: superblock flags $(md_flags); nmb $(dmsetup status nmb)"
	check_eq md-inconsistent "$(( $(md_flags) & 1 ))" 0
	dmsetup message nma 0 resume_resync || fail "resume_resync"
	check resynced nm_wait_synced nma 90
	check kept w8 verify /dev/ram1
	check_eq identical "$(dev_sum /dev/ram0)" "$(dev_sum /dev/ram1)"
	dmsetup remove nma || fail "remove nma"
	dmsetup remove nmb || fail "remove nmb"
	dmsetup remove lowb || fail "remove lowb"
}
nm_each_proto run_proto
