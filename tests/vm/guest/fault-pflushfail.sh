# The primary's own disk fails a flush and stays (on_io_error pass_on):
# the writes it completed since its last good flush may be gone from its
# cache while the secondary has them, so the copies may differ: their
# regions must go out of sync, this disk's copy the one to keep (as for a
# failed write), and a resync makes the disks equal again.  Up to 1.18.20
# an empty flush marked nothing (its own zero sectors): the pair said in
# sync, every region, while the primary's disk had lost a write the
# secondary kept (review of 1.18.19, helper-61 finding 2).
#
# One VM, both nodes on loopback, 8 MiB.  nma's disk: a volatile-cache
# null_blk (nlb) under a dm table (lowb) whose last MiB is a dm-flakey
# segment when "bad": every flush of lowb fails, writes to the linear part
# succeed.  nmb's disk: ram0.  Ordering none (no flushes of the
# protocol's own).  For each protocol A, B, C, with no metadata (part
# nometa: every region written since the table's start counts), with
# metadata devices (part meta: the regions marked on it), and part late
# (metadata; lowb bad from before the 64 KiB write to 2.5 s after it, then
# the fsync: the lazy clear of the
# write's region, about two stable points after it, fails its own flush of
# the data device first, and the region's mark, cleared in memory, stays
# on disk), checks <part>/<P>/...:
#   flush-failed  premise: lowb bad, 64 KiB written through nma, then the
#                 same bytes replaced by zeros on nlb below it (what the
#                 cache lost), then an fsync of nma fails (EIO)
#   marked        within 5 s nma counts a region out of sync, or a resync
#                 started (1.18.20: neither, the status said in sync)
#   identical     once the pair settled in sync, both disks equal (1.18.20:
#                 the region differed under a status in sync)
#   kept          the primary's copy won: the region holds zeros on both
#   new-mark      (late) a 64 KiB write at 6 MiB, a region not marked yet,
#                 succeeds after the lazy clear's flush failed (f82db0d:
#                 every commit after it tried that flush again first and
#                 failed, so the write's mark failed it: EIO)
# Part reload (no metadata, 1.18.22; review helper-65 finding 4): 2 MiB
# written through nma (no fsync), nma's table reloaded (the same line: a new
# instance, whose regions written since its start are none), then an
# fsync of nma fails (lowb all dm-flakey error_writes: no flush reaches
# nlb); the cache then loses what no flush made stable (lowb swapped off
# nlb, nlb power-cycled, lowb back on it), checks reload/<P>/...:
#   reloaded, flush-failed (premises)
#   identical     once the pair settled in sync, both disks equal (1.18.21:
#                 the 2 MiB differ while the status says in sync: the
#                 reload's suspend flushed nothing, the new instance marked
#                 nothing at the failed flush)
# Part detach (metadata, on_io_error detach, 1.18.22; review helper-69
# finding 1): lowb bad, then 64 KiB written through nma and replaced by
# zeros on nlb (what the cache lost); no fsync: the lazy clear's commit
# fails its flush of the data device.  Checks detach/<P>/...:
#   detached      within 10 s nma's disk is diskless (1.18.21: it stayed
#                 uptodate, its copy of the write lost)
#   reads-peer    nma reads the 64 KiB written (from the peer)
# vms: 1
# disks: none
# timeout: 400
load_netmirror
. /tests/nmlib.sh
. /tests/dur-lib.sh
. /tests/dur-power-lib.sh
modprobe dm-flakey || fail "modprobe dm-flakey"
S=16384
brd_setup 8 3

ZS=$($DD if=/dev/zero bs=64k count=1 status=none | $MD5SUM | cut -d' ' -f1)
for M in nometa meta late; do
	for P in $(nm_protos); do
		NM_CHECK_PREFIX=$M/$P/
		nm_zero /dev/ram0 /dev/ram1 /dev/ram2
		nl_create nlb 8
		dmsetup create lowb --table "0 $S linear /dev/nlb 0" || fail "create lowb"
		oa="on_io_error pass_on" ob=
		[ "$M" != nometa ] && oa="$oa meta /dev/ram1" ob="meta /dev/ram2"
		nm_local_pair "$P" none "$S" /dev/mapper/lowb /dev/ram0 "$oa" "$ob"
		pattern write /dev/mapper/nma 7 1M --size 2M --direct --quiet || fail "$M/$P: first write"
		# no flush may succeed after the write: a lazy clear's commit
		# before lowb went bad made it stable (FAIL late/B and meta/B
		# once each, when lowb went bad after the write)
		flushes_bad lowb /dev/nlb
		$DD if=/dev/urandom of=/dev/mapper/nma bs=64k seek=80 count=1 oflag=direct conv=notrunc status=none ||
			fail "$M/$P: write at 5 MiB"
		if [ "$M" = late ]; then
			sleep 2.5
			# a new region's mark while the cancelled clears wait
			check new-mark $DD if=/dev/urandom of=/dev/mapper/nma bs=64k seek=96 count=1 oflag=direct conv=notrunc status=none
		fi
		# the disk's cache loses it: its media holds the old bytes (zeros)
		$DD if=/dev/zero of=/dev/nlb bs=64k seek=80 count=1 oflag=direct conv=notrunc status=none ||
			fail "$M/$P: zeros below nma"
		rs0=$(dmesg | grep -c 'resync started')
		$DD if=/dev/zero of=/dev/mapper/nma bs=4k count=0 conv=fsync,notrunc status=none 2>/dev/null
		rc=$?
		flushes_good lowb /dev/nlb
		check_fail flush-failed [ "$rc" = 0 ]
		check_wait marked 5 "[ \$(nm_status nma in_sync_regions) -lt \$(nm_status nma total_regions) ] || [ \$(dmesg | grep -c 'resync started') -gt $rs0 ]"
		log "$M/$P: nma $(dmsetup status nma); nmb $(dmsetup status nmb)"
		dur_settled_same identical 60 /dev/mapper/lowb /dev/ram0
		check_eq kept "$($DD if=/dev/ram0 bs=64k skip=80 count=1 iflag=direct status=none | $MD5SUM | cut -d' ' -f1)" "$ZS"
		nm_local_unpair
		dmsetup remove lowb || fail "remove lowb"
		nl_destroy nlb
	done
done
for P in $(nm_protos); do
	NM_CHECK_PREFIX=reload/$P/
	nm_zero /dev/ram0
	nl_create nlb 8
	dmsetup create lowb --table "0 $S linear /dev/nlb 0" || fail "create lowb"
	nm_local_pair "$P" none "$S" /dev/mapper/lowb /dev/ram0 "on_io_error pass_on" ""
	pattern write /dev/mapper/nma 9 1M --size 2M --offset 1M --direct --no-fsync --quiet || fail "reload/$P: write"
	check reloaded sh -c "dmsetup reload nma --table '$(dmsetup table nma)' && dmsetup resume nma"
	# every write and flush of lowb fails, none reaches nlb (flushes_bad
	# passes the flush on to nlb's linear part: nothing would be lost)
	echo "0 $S flakey /dev/nlb 0 0 3600 1 error_writes" | dmsetup reload lowb &&
		dmsetup resume lowb || fail "reload/$P: lowb bad"
	$DD if=/dev/zero of=/dev/mapper/nma bs=4k count=0 conv=fsync,notrunc status=none 2>/dev/null
	rc=$?
	check_fail flush-failed [ "$rc" = 0 ]
	# the cache loses what no flush made stable: lowb lets go of nlb (dm
	# would reuse its open device for the same number), nlb loses power
	dmsetup suspend lowb && echo "0 $S error" | dmsetup reload lowb && dmsetup resume lowb &&
		dmsetup suspend lowb || fail "reload/$P: lowb off nlb"
	nl_power nlb 0
	nl_power nlb 1
	flushes_good lowb /dev/nlb
	log "reload/$P: nma $(dmsetup status nma); nmb $(dmsetup status nmb)"
	dur_settled_same identical 60 /dev/mapper/lowb /dev/ram0
	nm_local_unpair
	dmsetup remove lowb || fail "remove lowb"
	nl_destroy nlb
done
for P in $(nm_protos); do
	NM_CHECK_PREFIX=detach/$P/
	nm_zero /dev/ram0 /dev/ram1 /dev/ram2
	nl_create nlb 8
	dmsetup create lowb --table "0 $S linear /dev/nlb 0" || fail "create lowb"
	nm_local_pair "$P" none "$S" /dev/mapper/lowb /dev/ram0 "meta /dev/ram1" "meta /dev/ram2"
	pattern write /dev/mapper/nma 7 1M --size 2M --direct --quiet || fail "detach/$P: first write"
	flushes_bad lowb /dev/nlb
	$DD if=/dev/urandom of=/tmp/w64 bs=64k count=1 status=none || fail "detach/$P: /tmp/w64"
	$DD if=/tmp/w64 of=/dev/mapper/nma bs=64k seek=80 count=1 oflag=direct conv=notrunc status=none ||
		fail "detach/$P: write at 5 MiB"
	$DD if=/dev/zero of=/dev/nlb bs=64k seek=80 count=1 oflag=direct conv=notrunc status=none ||
		fail "detach/$P: zeros below nma"
	check_wait detached 10 "[ \"\$(nm_status nma disk)\" = diskless ]"
	flushes_good lowb /dev/nlb
	log "detach/$P: nma $(dmsetup status nma); nmb $(dmsetup status nmb)"
	check_eq reads-peer "$($DD if=/dev/mapper/nma bs=64k skip=80 count=1 iflag=direct status=none | $MD5SUM | cut -d' ' -f1)" \
		"$($MD5SUM < /tmp/w64 | cut -d' ' -f1)"
	nm_local_unpair
	dmsetup remove lowb || fail "remove lowb"
	nl_destroy nlb
done
NM_CHECK_PREFIX=
exit 0
