# An old copy of a node (issue 11): the secondary's disk and metadata are
# restored from a backup taken while the pair was in sync at an older
# generation.  Since then the primary wrote alone (a new generation, handed
# to the secondary by a resync and confirmed) and wrote more while
# connected.  The restored node's generation is in the primary's history,
# but neither bitmap records what it lacks: both refuse the link (old_copy,
# logged), the old copy untouched; after "invalidate" on it the primary
# resyncs the whole device and both disks end identical.
# Then a backup restored with no generation change since (undetectable):
# "invalidate" on it makes the primary resync all of it.  Last, the
# metadata device of another pair: refused on both sides (other_pair).
# Under each protocol A, B, C (checks <P>/...).
# Fails on f87f969's kernel: only the bitmaps are resynced and status says
# in sync while the disks differ.
# vms: 1
# disks: none
# timeout: 600
load_netmirror
. /tests/nmlib.sh
brd_setup 16 7
S=$(( $(dev_size /dev/ram0) / 512 ))
round() {
	nm_zero /dev/ram2 /dev/ram3
	TB="0 $S netmirror /dev/ram1 127.0.0.1:7789 $P flush 4 listen 127.0.0.1:7790 meta /dev/ram3"
	nm_local_pair "$P" flush "$S" /dev/ram0 /dev/ram1 "meta /dev/ram2" "meta /dev/ram3"
	pattern write /dev/mapper/nma 1 16M --direct --quiet || fail "first write"
	nm_wait_synced nma 60 || fail "not synced: $(dmsetup status nma)"
	nm_wait_confirmed nma || fail "writes unconfirmed: $(dmsetup status nma)"

	# the backup: the secondary's disk and metadata, while apart
	dmsetup message nmb 0 disconnect || fail "disconnect nmb"
	nm_wait_conn nmb standalone 20 || fail "nmb not standalone"
	$DD if=/dev/ram1 of=/dev/ram4 bs=1M iflag=direct oflag=direct status=none || fail "backup data"
	$DD if=/dev/ram3 of=/dev/ram5 bs=1M iflag=direct oflag=direct status=none || fail "backup meta"
	gen_then=$(nm_status nmb generation)
	dmsetup message nmb 0 connect || fail "connect nmb"
	nm_wait_synced nma 60 || fail "reconnect: $(dmsetup status nma)"

	# the primary writes alone (new generation), the secondary takes it
	dmsetup message nmb 0 disconnect || fail "disconnect nmb"
	nm_wait_conn nmb standalone 20 || fail "nmb not standalone"
	pattern write /dev/mapper/nma 2 4M --offset 2M --size 4M --direct --quiet || fail "lone write"
	dmsetup message nmb 0 connect || fail "connect nmb"
	nm_wait_synced nma 60 && nm_wait_synced nmb 30 || fail "resync: $(dmsetup status nma)"
	# and more while connected (no new generation)
	pattern write /dev/mapper/nma 3 2M --offset 10M --size 2M --direct --quiet || fail "connected write"
	nm_wait_confirmed nma || fail "writes unconfirmed: $(dmsetup status nma)"
	check_fail oldcopy/generation-moved [ "$(nm_status nma generation)" = "$gen_then" ]
	check_eq oldcopy/pair-identical "$(dev_sum /dev/ram1)" "$(dev_sum /dev/ram0)"

	# restore the old copy of the secondary
	dmsetup remove nmb || fail "remove nmb"
	$DD if=/dev/ram4 of=/dev/ram1 bs=1M iflag=direct oflag=direct status=none || fail "restore data"
	$DD if=/dev/ram5 of=/dev/ram3 bs=1M iflag=direct oflag=direct status=none || fail "restore meta"
	dmesg -c > /dev/null
	dmsetup create nmb --table "$TB" || fail "recreate nmb"
	check_eq oldcopy/restored-generation "$(nm_status nmb generation)" "$gen_then"
	b_old=$(dev_sum /dev/ram1)
	check_wait oldcopy/a-refused 30 "nm_standalone nma old_copy"
	check_wait oldcopy/b-refused 30 "nm_standalone nmb old_copy"
	check_eq oldcopy/b-untouched "$(dev_sum /dev/ram1)" "$b_old"
	check oldcopy/refusal-logged sh -c "dmesg | grep -q 'old copy.*refusing; run invalidate here'"
	# the admin's answer: invalidate the old copy, connect both
	check oldcopy/invalidate dmsetup message nmb 0 invalidate
	dmsetup message nmb 0 connect && dmsetup message nma 0 connect || fail "connect after invalidate"
	check oldcopy/synced nm_wait_synced nma 90
	check oldcopy/synced-b nm_wait_synced nmb 30
	check_eq oldcopy/identical "$(dev_sum /dev/ram1)" "$(dev_sum /dev/ram0)"
	check oldcopy/logged sh -c "dmesg | grep -q 'old copy'"
	check oldcopy/lone-write-there pattern verify /dev/ram1 2 4M --offset 2M --size 4M --direct --quiet
	check oldcopy/connected-write-there pattern verify /dev/ram1 3 2M --offset 10M --size 2M --direct --quiet

	# a backup restored with no new generation since (only connected writes):
	# nothing can tell it from the real thing; "invalidate" resyncs it all
	dmsetup message nmb 0 disconnect || fail "disconnect nmb"
	nm_wait_conn nmb standalone 20 || fail "nmb not standalone"
	$DD if=/dev/ram1 of=/dev/ram4 bs=1M iflag=direct oflag=direct status=none || fail "backup data"
	$DD if=/dev/ram3 of=/dev/ram5 bs=1M iflag=direct oflag=direct status=none || fail "backup meta"
	dmsetup message nmb 0 connect || fail "connect nmb"
	nm_wait_synced nma 60 || fail "reconnect: $(dmsetup status nma)"
	pattern write /dev/mapper/nma 4 2M --offset 12M --size 2M --direct --quiet || fail "connected write 2"
	nm_wait_confirmed nma || fail "writes unconfirmed: $(dmsetup status nma)"
	dmsetup remove nmb || fail "remove nmb"
	$DD if=/dev/ram4 of=/dev/ram1 bs=1M iflag=direct oflag=direct status=none || fail "restore data"
	$DD if=/dev/ram5 of=/dev/ram3 bs=1M iflag=direct oflag=direct status=none || fail "restore meta"
	dmsetup create nmb --table "$TB" || fail "recreate nmb"
	check invalidate/accepted dmsetup message nmb 0 invalidate
	check_wait invalidate/inconsistent 20 "[ \"\$(nm_status nmb disk)\" = inconsistent ] || [ \"\$(nm_status nmb connection)\" = sync_target ]"
	check invalidate/synced nm_wait_synced nma 90
	check invalidate/synced-b nm_wait_synced nmb 30
	check_eq invalidate/identical "$(dev_sum /dev/ram1)" "$(dev_sum /dev/ram0)"
	check invalidate/write-there pattern verify /dev/ram1 4 2M --offset 12M --size 2M --direct --quiet
	check_fail invalidate/refused-on-primary dmsetup message nma 0 invalidate

	# a metadata device of another pair: the link is refused (other_pair)
	dmsetup remove nmb || fail "remove nmb"
	nm_zero /dev/ram5
	dmsetup create nmd --table "0 $S netmirror /dev/ram4 127.0.0.1:7791 $P flush 4 listen 127.0.0.1:7792 meta /dev/ram5" || fail "create nmd"
	dmsetup create nmc --table "0 $S netmirror /dev/ram6 127.0.0.1:7792 $P flush 4 listen 127.0.0.1:7791 role primary" ||
		fail "create nmc"
	nm_wait_synced nmc 60 || fail "other pair: $(dmsetup status nmc)"
	sleep 2
	dmsetup remove nmc nmd || fail "remove the other pair"
	b_sum=$(dev_sum /dev/ram1)
	dmesg -c > /dev/null
	dmsetup create nmb --table "0 $S netmirror /dev/ram1 127.0.0.1:7789 $P flush 4 listen 127.0.0.1:7790 meta /dev/ram5" ||
		fail "create nmb with the other pair's metadata"
	check_wait otherpair/a-refused 30 "[ \"\$(nm_status nma last_error)\" = other_pair ]"
	check_wait otherpair/b-refused 30 "[ \"\$(nm_status nmb last_error)\" = other_pair ]"
	check_eq otherpair/b-standalone "$(nm_status nmb connection)" standalone
	check_eq otherpair/b-untouched "$(dev_sum /dev/ram1)" "$b_sum"
	check otherpair/logged sh -c "dmesg | grep -q 'belongs to another pair'"
	nm_local_unpair
}

nm_each_proto round
exit 0
