# The power-loss side of fault-secfailcut: a secondary whose disk failed a
# write of the primary's (on_io_error pass_on), the link lost first, must
# come back inconsistent after its metadata device loses power, not only
# after a clean restart.  1.18.19 marks the disk inconsistent at once in
# memory and commits it from a worker (disk_work); this checks that the
# commit reaches the media (the metadata device is a null_blk with a
# volatile cache as big as itself, so nothing reaches its media before a
# flush or FUA).  Up to 1.18.18 nothing was recorded at all.
#
# One VM, both nodes on loopback, 16 MiB; nmb's disk is brd behind a dm
# table whose MiB at 8 MiB can be a dm-delay (3 s) over dm-error; nmb's
# metadata on null_blk nlm (cached).  For each protocol A, B, C:
#   <P>/failed            nmb counts the failed region out of sync
#   <P>/acked             nma completed the write (its peer lost)
#   <P>/inconsistent      nmb's disk inconsistent in memory
#   then, 2 s later, nlm loses power and nmb is created again on it:
#   <P>/power-inconsistent, <P>/power-marked, <P>/power-refused
#                         still inconsistent, the region out of sync, a
#                         `role primary` table refused
#   <P>/resynced, <P>/kept, <P>/identical   the wire back: in sync, the
#                         acknowledged write on nmb's disk, md5 equal
# vms: 1
# disks: none
# timeout: 500
load_netmirror
. /tests/nmlib.sh
. /tests/dur-power-lib.sh
modprobe dm-delay || fail "modprobe dm-delay"
brd_setup 16 3
S=32768
BAD=16384
OPTS="timeout 1500 ping 500"

table_b() {
	echo "0 $S netmirror /dev/mapper/lowb 127.0.0.1:7789 $P flush $((10 + $#)) listen 127.0.0.1:7790 meta /dev/nlm on_io_error pass_on $OPTS${1:+ $*}"
}

dmsetup create errb --table "0 2048 error" || fail "create errb"
dmsetup create lowb --table "0 $S linear /dev/ram1 0" || fail "create lowb"
head -c 65536 /dev/urandom > /tmp/w
for P in $(nm_protos); do
	NM_CHECK_PREFIX=$P/
	nm_zero /dev/ram0 /dev/ram1 /dev/ram2
	nl_create nlm 4
	lowb_set ok
	dmsetup create nmb --table "$(table_b)" || fail "$P: create nmb"
	dmsetup create nma --table "0 $S netmirror /dev/ram0 127.0.0.1:7790 $P flush 10 listen 127.0.0.1:7789 role primary meta /dev/ram2 $OPTS" ||
		fail "$P: create nma"
	nm_wait_synced nma 60 || fail "$P: no sync: $(dmsetup status nma)"
	pattern write /dev/mapper/nma 1 4M --size 8M --direct --quiet || fail "$P: first write"
	nm_wait_confirmed nma 30 || fail "$P: writes unconfirmed: $(dmsetup status nma)"
	nm_wait_synced nmb 30 || fail "$P: nmb not in sync: $(dmsetup status nmb)"
	secfail_write_cut || fail "$P: the write did not reach nmb's delay"
	check_wait failed 20 "[ \$(nm_status nmb in_sync_regions) -lt \$(nm_status nmb total_regions) ]"
	check_wait acked 30 "[ \"\$(cat /tmp/w.rc 2>/dev/null)\" = 0 ]"
	wait
	check_eq inconsistent "$(nm_status nmb disk)" inconsistent
	sleep 2
	nl_power nlm 0
	lowb_set ok
	remove_retry nmb "$P: after nlm's power cut"
	nl_power nlm 1
	dmsetup create nmb --table "$(table_b)" || fail "$P: create nmb again: $(table_b)"
	log "$P: nmb after the power cut: $(dmsetup status nmb)"
	check_eq power-inconsistent "$(nm_status nmb disk)" inconsistent
	check power-marked [ "$(nm_status nmb in_sync_regions)" -lt "$(nm_status nmb total_regions)" ]
	if dmsetup load nmb --table "$(table_b role primary)" 2>/dev/null; then
		check_bad power-refused "loaded: $(table_b role primary)"
		dmsetup clear nmb
	else
		check_ok power-refused
	fi
	wire_restore
	check_wait resynced 60 "nm_synced nma && nm_synced nmb && [ \"\$(nm_status nmb disk)\" = uptodate ]"
	check kept eval "$DD if=/dev/ram1 bs=64k skip=128 count=1 iflag=direct status=none | cmp -s - /tmp/w"
	check identical [ "$(dev_sum /dev/ram0)" = "$(dev_sum /dev/ram1)" ]
	log "$P: nma $(dmsetup status nma); nmb $(dmsetup status nmb)"
	remove_retry nma "$P"
	remove_retry nmb "$P"
	nl_destroy nlm
done
NM_CHECK_PREFIX=
dmsetup remove lowb || fail "remove lowb"
dmsetup remove errb || fail "remove errb"
exit 0
