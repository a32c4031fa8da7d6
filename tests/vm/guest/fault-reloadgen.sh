# A data generation that a reload hands to the new table must reach the
# new table's metadata before a write of that generation is acknowledged
# (review 2 of 2026-12-06, F2).  A primary writing while disconnected
# starts a new generation; when its metadata device fails writes, the
# generation cannot be recorded and the write fails, the generation stays
# in memory ("unsaved").  A reload then hands it to the new table, which
# re-reads the metadata (the old generation).  Up to 1.18.6 the new table
# never put the handed-over generation into its metadata object: once the
# device worked again, the next write "saved" the generation by a commit
# that wrote nothing, and was acknowledged while the metadata still held
# the old generation (status showed the new one).  After a restart the
# node then met its peer with the old generation: a peer promoted
# meanwhile looked newer instead of a split brain, and its resync would
# overwrite the acknowledged write.
#
# One VM, both nodes on loopback, 32 MiB devices, metadata on both (nma's
# through the dm-linear ma; nma with on_io_error pass_on, so that a
# failed metadata write does not detach its disk).  For each protocol A,
# B, C: 8 MiB written and in sync; nmb's disk a dm-delay (3 s writes);
# W (1 MiB at 0) written, ma made to fail writes (dm-flakey error_writes)
# and the link lost with W unconfirmed: a new generation, which cannot be
# recorded; a write into W's region fails; nma suspended, reloaded (same
# table) and resumed; ma repaired; a write on nma; nma removed and created
# again.  Checks <P>/...:
#   new-gen       the link loss began a new generation (in memory)
#   failed-write  a write while it is not recorded fails
#   reloaded      suspend, reload and resume succeed
#   write-ok      the write after the repair succeeds
#   same-gen      the status generation is still the one of the failed write
#   gen-on-disk   nma created again shows that generation (its metadata)
#   resynced, identical   connected again: in sync, both devices equal
# vms: 1
# disks: none
# timeout: 400
load_netmirror
. /tests/nmlib.sh
. /tests/dur-lib.sh
modprobe dm-flakey || fail "modprobe dm-flakey"
modprobe dm-delay || fail "modprobe dm-delay"
S=65536

tablea() { echo "0 $S netmirror /dev/ram0 127.0.0.1:7790 $P none 8 listen 127.0.0.1:7789 role primary meta /dev/mapper/ma on_io_error pass_on"; }

run_proto() {
	local g0 g1
	brd_setup 32 4
	nm_zero /dev/ram2 /dev/ram3
	dmsetup create ma --table "0 $S linear /dev/ram2 0" || fail "create ma"
	dmsetup create lowb --table "0 $S linear /dev/ram1 0" || fail "create lowb"
	nm_local_pair "$P" none "" /dev/ram0 /dev/mapper/lowb "meta /dev/mapper/ma on_io_error pass_on" "meta /dev/ram3"
	pattern write /dev/mapper/nma 1 8M --size 8M --direct --quiet || fail "first write"
	dur_settle 60 || fail "not in sync: $(dmsetup status nma)"
	g0=$(nm_status nma generation)
	# W at 0 stays unconfirmed: nmb's disk takes 3 s a write
	dmsetup load lowb --table "0 $S delay /dev/ram1 0 0 /dev/ram1 0 3000" &&
		dmsetup resume lowb || fail "lowb: delay"
	pattern write /dev/mapper/nma 2 1M --size 1M --direct --quiet &
	sleep 0.5
	# the generation the link loss starts cannot be recorded (pass_on:
	# the disk stays attached)
	dmsetup load ma --table "0 $S flakey /dev/ram2 0 0 3600 1 error_writes" &&
		dmsetup resume ma || fail "ma: error_writes"
	lose_link
	wait
	dmsetup load lowb --table "0 $S linear /dev/ram1 0" && dmsetup resume lowb || fail "lowb: linear"
	g1=$(nm_status nma generation)
	log "$P: generation $g0 -> $g1; $(dmesg | grep -E 'data generation' | tail -n 2 | tr '\n' ' ')"
	check_eq new-gen "$([ "$g1" != "$g0" ] && echo yes)" yes
	# W's region is marked already: only the generation is missing
	check_fail failed-write pattern write /dev/mapper/nma 3 64k --size 64k --direct --quiet
	check reloaded sh -c "dmsetup suspend nma && dmsetup reload nma --table '$(tablea)' && dmsetup resume nma"
	dmsetup load ma --table "0 $S linear /dev/ram2 0" && dmsetup resume ma || fail "ma: linear"
	check write-ok pattern write /dev/mapper/nma 4 1M --size 1M --direct --quiet
	check_eq same-gen "$(nm_status nma generation)" "$g1"
	dmsetup remove nma || fail "remove nma"
	dmsetup create nma --table "$(tablea)" || fail "create nma again"
	check_eq gen-on-disk "$(nm_status nma generation)" "$g1"
	dmsetup message nmb 0 connect || fail "connect nmb"
	check resynced dur_settle 60
	check_eq identical "$(dev_sum /dev/ram0)" "$(dev_sum /dev/ram1)"
	nm_local_unpair
	dmsetup remove ma || fail "remove ma"
	dmsetup remove lowb || fail "remove lowb"
}
nm_each_proto run_proto
exit 0
