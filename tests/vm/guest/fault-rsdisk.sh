# A disk that fails during a resync, at either end, ends the resync
# (review F23, F24).  Up to 1.15.3:
#  - a sync source whose disk failed detached (diskless) but stayed
#    sync_source: its sync thread read the failed disk again, region by
#    region, round after round, for as long as the link lasted, and its
#    target stayed sync_target;
#  - a sync target whose disk failed detached, then the next region of
#    resync data turned its disk from diskless back to inconsistent and
#    wrote to the failed disk again.
#
# One VM, both nodes on loopback, 32 MiB devices (64 regions), resync at
# 2 MiB/s so that it lasts about 16 s.  For each protocol A, B, C:
#
# source/...: nma (primary) on a dm-linear over random data, nmb on a
#   zeroed disk, sync full; once the resync runs, nma's disk is switched
#   to the `error` target.  Checks:
#     resync-started    nma became sync_source
#     detached          nma's disk diskless
#     source-stopped    nma left sync_source (within 10 s)
#     target-stopped    nmb left sync_target
#     target-inconsistent  nmb's disk stays inconsistent (it lacks data)
#     no-reads          no read reached the failed disk in the 3 s after
#     link-kept         the link did not drop (no "-> connecting" logged)
#     demote            nma may become secondary (refused during a resync)
#
# target/...: nma on random data, nmb (secondary) on a dm-linear over a
#   zeroed disk; once the resync runs, nmb's disk is switched to `error`.
#     resync-started, detached (nmb's disk diskless)
#     stays-diskless    nmb's disk diskless in every sample of 3 s after
#     no-writes         no write reached the failed disk in those 3 s
#     source-stopped    nma left sync_source
#     primary-writes    a 4 KiB O_DIRECT write to nma still succeeds
#     link-kept         the link did not drop: the resync data already
#                       on the wire when nmb stopped are refused, not a
#                       protocol error
# vms: 1
# disks: none
# timeout: 400
load_netmirror
. /tests/nmlib.sh
. /tests/dur-lib.sh
modprobe dm-linear 2> /dev/null

# DEV: the dm-linear DEV now fails every I/O
fail_disk() {
	dmsetup suspend --nolockfs "$1" || fail "suspend $1"
	dmsetup load "$1" --table "0 $S error" || fail "load error $1"
	dmsetup resume "$1" || fail "resume $1"
}

# NAME OPTS: nma and nmb on $ADEV and $BDEV, a rate-limited full resync
pair_up() {
	dmsetup create nmb --table "0 $S netmirror $BDEV 127.0.0.1:7789 $P flush 4 listen 127.0.0.1:7790 resync_rate 2048" ||
		fail "create nmb"
	dmsetup create nma --table "0 $S netmirror $ADEV 127.0.0.1:7790 $P flush 8 listen 127.0.0.1:7789 role primary sync full resync_rate 2048" ||
		fail "create nma"
	check_wait resync-started 20 "[ \"\$(nm_status nma connection)\" = sync_source ]"
	sleep 2		# a few regions are through
}

pair_down() {
	dmsetup remove nma || fail "remove nma"
	dmsetup remove nmb || fail "remove nmb"
}

for P in $(nm_protos); do
	# the source's disk fails
	NM_CHECK_PREFIX=$P/source/
	brd_setup 32 2
	S=$(( $(dev_size /dev/ram0) / 512 ))
	$DD if=/dev/urandom of=/dev/ram0 bs=1M count=32 oflag=direct status=none || fail "fill ram0"
	dmsetup create adisk --table "0 $S linear /dev/ram0 0" || fail "dm-linear under nma"
	ADEV=/dev/mapper/adisk BDEV=/dev/ram1 pair_up
	d0=$(drops)
	fail_disk adisk
	check_wait detached 10 "[ \"\$(nm_status nma disk)\" = diskless ]"
	check_wait source-stopped 10 "[ \"\$(nm_status nma connection)\" != sync_source ]"
	check_wait target-stopped 10 "[ \"\$(nm_status nmb connection)\" != sync_target ]"
	check_eq target-inconsistent "$(nm_status nmb disk)" inconsistent
	before=$(dm_ios adisk)
	sleep 3
	after=$(dm_ios adisk)
	log "$P: failed source disk I/O (reads writes) $before -> $after; nma $(dmsetup status nma); nmb $(dmsetup status nmb)"
	check_match io-counted "$before $after" '^[0-9]+ [0-9]+ [0-9]+ [0-9]+$'
	check_eq no-reads "${after%% *}" "${before%% *}"
	check_eq link-kept "$(drops)" "$d0"
	check demote dmsetup message nma 0 secondary
	pair_down
	dmsetup remove adisk || fail "remove adisk"

	# the target's disk fails
	NM_CHECK_PREFIX=$P/target/
	brd_setup 32 2
	$DD if=/dev/urandom of=/dev/ram0 bs=1M count=32 oflag=direct status=none || fail "fill ram0"
	dmsetup create bdisk --table "0 $S linear /dev/ram1 0" || fail "dm-linear under nmb"
	ADEV=/dev/ram0 BDEV=/dev/mapper/bdisk pair_up
	d0=$(drops)
	fail_disk bdisk
	check_wait detached 10 "[ \"\$(nm_status nmb disk)\" = diskless ]"
	before=$(dm_ios bdisk)
	seen=
	end=$(( $(now_ms) + 3000 ))
	while [ "$(now_ms)" -lt $end ]; do
		_nm_sf "$(dmsetup status nmb)" disk
		[ "$nm_sv" = diskless ] || seen="$seen $nm_sv"
		sleep 0.1
	done
	after=$(dm_ios bdisk)
	log "$P: failed target disk I/O (reads writes) $before -> $after; other disk states seen:${seen:- none}; nma $(dmsetup status nma); nmb $(dmsetup status nmb)"
	check_eq stays-diskless "${seen:-none}" none
	check_match io-counted "$before $after" '^[0-9]+ [0-9]+ [0-9]+ [0-9]+$'
	check_eq no-writes "${after#* }" "${before#* }"
	check_wait source-stopped 10 "[ \"\$(nm_status nma connection)\" != sync_source ]"
	check primary-writes $DD if=/dev/urandom of=/dev/mapper/nma bs=4k count=1 oflag=direct conv=notrunc status=none
	check_eq link-kept "$(drops)" "$d0"
	pair_down
	dmsetup remove bdisk || fail "remove bdisk"
done
NM_CHECK_PREFIX=
exit 0
