# A reloaded table that takes over no state from the table it replaces
# must start from what the old table last wrote on the metadata device,
# not from what it read itself at `dmsetup load`, while the old one was
# still live (review 2 of 2026-12-06, F1).  Two ways to get there:
#   part path: the new table reaches the same local disk through another
#     path (a dm-linear over it: a new device number for the same data, as
#     a move under multipath or another stacked layer gives), with the
#     same metadata device: up to 1.18.8 the old table's state was not
#     taken over (since 1.18.9 it is, the metadata being the same);
#   part metafail: the same table, but the metadata device fails at the
#     resume, which fails ("cannot re-read the metadata device"); dm has
#     destroyed the old table meanwhile, and with it the state it left;
#     the device is repaired and `resume` is sent again;
#   part detached: the primary's disk detached, the diskless primary
#     writes to the peer only, and its table is reloaded onto another path
#     (same metadata): it must come back not uptodate (up to 1.18.8 the
#     state, kept in memory only, was dropped: checks not-uptodate,
#     resynced, has-write, identical).
# Up to 1.18.5 the new table kept its load-time reads: a write made
# between the load and the resume lost its mark and its new generation,
# the reconnect found the same generation on both nodes and resynced
# nothing, and the pair said in sync with the write on one disk only.
#
# One VM, both nodes on loopback, 32 MiB devices, metadata on both (nma's
# through the dm-linear ma).  For each protocol A, B, C and each part: 8
# MiB written and in sync; `dmsetup load nma`; nma disconnected; 1 MiB
# written at 16 MiB (seed 2; a new generation and its marks, on nma's
# metadata); `dmsetup resume nma` (the new table), `connect`.  Checks
# <P>/<part>/...:
#   loaded      the load succeeds
#   resume-fails  (metafail) the resume fails while ma fails every I/O
#   resumed     the resume succeeds (metafail: after ma is repaired)
#   gen-kept    nma's generation after the resume is the one the write
#               started, not the one of the load
#   resynced    in sync again
#   peer-has    nmb's disk holds the write
#   identical   both backing devices equal
# vms: 1
# disks: none
# timeout: 400
load_netmirror
modprobe dm-flakey || fail "modprobe dm-flakey"
. /tests/nmlib.sh
. /tests/dur-lib.sh
S=65536

tablea() { echo "0 $S netmirror $1 127.0.0.1:7790 $P none 6 listen 127.0.0.1:7789 role primary meta /dev/mapper/ma"; }

# PART: path or metafail
run_part() {
	local local=/dev/ram0 g0 g1
	NM_CHECK_PREFIX=$P/$PART/
	brd_setup 32 4
	nm_zero /dev/ram2 /dev/ram3
	dmsetup create pa --table "0 $S linear /dev/ram0 0" || fail "create pa"
	dmsetup create ma --table "0 $S linear /dev/ram2 0" || fail "create ma"
	nm_local_pair "$P" none "" /dev/ram0 /dev/ram1 "meta /dev/mapper/ma" "meta /dev/ram3"
	pattern write /dev/mapper/nma 1 8M --size 8M --direct --quiet || fail "first write"
	dur_settle 60 || fail "not in sync: $(dmsetup status nma)"
	[ "$PART" = path ] && local=/dev/mapper/pa
	check loaded dmsetup load nma --table "$(tablea $local)"
	dmsetup message nma 0 disconnect || fail "disconnect"
	nm_wait_conn nma standalone 20 || fail "nma not standalone"
	g0=$(nm_status nma generation)
	pattern write /dev/mapper/nma 2 1M --size 1M --offset 16M --direct --quiet || fail "write while apart"
	g1=$(nm_status nma generation)
	log "$P/$PART: generation $g0 -> $g1 (the write while apart)"
	if [ "$PART" = metafail ]; then
		dmsetup load ma --table "0 $S error" && dmsetup resume ma || fail "ma: error"
		check_fail resume-fails dmsetup resume nma
		dmsetup load ma --table "0 $S linear /dev/ram2 0" && dmsetup resume ma || fail "ma: linear"
	fi
	check resumed dmsetup resume nma
	log "$P/$PART: after the resume: $(dmsetup status nma); $(dmsetup table nma)"
	check_eq gen-kept "$(nm_status nma generation)" "$g1"
	dmsetup message nma 0 connect || fail "connect"
	check resynced dur_settle 60
	check peer-has pattern verify /dev/ram1 2 1M --size 1M --offset 16M --direct --quiet
	check_eq identical "$(dev_sum /dev/ram0)" "$(dev_sum /dev/ram1)"
	nm_local_unpair
	dmsetup remove pa || fail "remove pa"
	dmsetup remove ma || fail "remove ma"
}

# part detached: nma's disk (through la) fails and is detached, the
# diskless primary writes (to the peer only), and its table is reloaded
# onto pa (the same disk, the same metadata): it must not come back
# uptodate with the diskless period's writes missing
run_detached() {
	NM_CHECK_PREFIX=$P/detached/
	brd_setup 32 4
	nm_zero /dev/ram2 /dev/ram3
	dmsetup create la --table "0 $S linear /dev/ram0 0" || fail "create la"
	dmsetup create pa --table "0 $S linear /dev/ram0 0" || fail "create pa"
	dmsetup create ma --table "0 $S linear /dev/ram2 0" || fail "create ma"
	nm_local_pair "$P" none "" /dev/mapper/la /dev/ram1 "meta /dev/mapper/ma" "meta /dev/ram3"
	pattern write /dev/mapper/nma 1 8M --size 8M --direct --quiet || fail "first write"
	dur_settle 60 || fail "not in sync: $(dmsetup status nma)"
	lower bad la /dev/ram0
	$DD if=/dev/urandom of=/dev/mapper/nma bs=4k seek=100 count=1 oflag=direct conv=notrunc status=none
	check_wait detached 10 "[ \"\$(nm_status nma disk)\" = diskless ]"
	lower ok la /dev/ram0
	pattern write /dev/mapper/nma 2 1M --size 1M --offset 16M --direct --quiet || fail "write while diskless"
	check loaded dmsetup load nma --table "$(tablea /dev/mapper/pa)"
	rt="netmirror: $(nm_devno nma): resync target: 64 regions to receive"
	n0=$(dmesg | grep -c "$rt")
	check resumed dmsetup resume nma
	d=$(nm_status nma disk)
	log "$P/detached: after the resume: $(dmsetup status nma)"
	check resynced dur_settle 60
	# not uptodate at the resume: seen so, or received a whole resync
	# since (one that ended before the status was read: a clean-clone run of
	# make check on 40c9cf1 saw it in sync already, 9 MiB resynced)
	n1=$(dmesg | grep -c "$rt")
	check_eq not-uptodate "$({ [ "$d" != uptodate ] || [ "$n1" -gt "$n0" ]; } && echo yes)" yes
	check has-write pattern verify /dev/ram0 2 1M --size 1M --offset 16M --direct --quiet
	check_eq identical "$(dev_sum /dev/ram0)" "$(dev_sum /dev/ram1)"
	nm_local_unpair
	for d in la pa ma; do dmsetup remove $d || fail "remove $d"; done
}

for P in $(nm_protos); do
	for PART in path metafail; do
		run_part
	done
	run_detached
done
NM_CHECK_PREFIX=
exit 0
