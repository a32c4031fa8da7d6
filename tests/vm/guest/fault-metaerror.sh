# A primary's metadata device fails (on_io_error): a metadata write error
# is a local disk error, as in DRBD (a meta-data I/O error detaches).  Up
# to 1.17.0 a write that needed a new mark on the failed metadata device
# got EIO while the node stayed attached and uptodate, so under the
# default `detach` every write into a region not yet marked failed,
# although the peer was connected and uptodate; found by dur-attachpower,
# where the data device's flush before a metadata write (a clear waiting
# for it) failed the same way.
#
# One VM, both nodes on loopback, 32 MiB brd disks, nma's metadata device
# a dm-linear over /dev/ram2 (nmb's /dev/ram3) swapped for the `error`
# target.  For each protocol A, B, C (on_io_error detach, the default):
#   write-completes   a write into regions not yet marked completes
#   diskless          nma detached its disk
#   last-error        nma's last_error is disk_failed
#   read-back         the write reads back through nma (from the peer)
#   peer-has-write    it is on the secondary's disk
#   resynced, uptodate   after the metadata device is repaired, `attach`
#                     and the resync from the secondary
#   own-disk          the write is on nma's own disk
#   identical         both backing devices equal
# Then the secondary's metadata device fails while it is disconnected, and
# the primary wrote meanwhile (A, B, C); at the reconnect:
#   sec/<P>/diskless, last-error   nmb detached (disk_failed) instead of
#                     becoming a resync target it could not record
#   sec/<P>/connected  the link stays, the resync ended
#   sec/<P>/not-written   nothing was resynced onto nmb's disk
#   sec/<P>/attach, resynced, uptodate, peer-has-write, identical   after
#                     the repair
# The same with on_io_error pass_on on the secondary (review of 1.17.8):
# it keeps its disk, which cannot be recorded as inconsistent, so no
# resync data may land on it.  Up to 1.17.8 the failed record was left
# in memory only, and the resync wrote the whole disk while its metadata
# said consistent; a repaired metadata device then also missed the
# record, as a superblock whose write failed was not written again.
# Up to 1.18.1 the source sent the refused regions again on every pass of
# its sync thread (about 60 MB/s here) and stayed sync_source.
#   sec-pass_on/<P>/stopped        nma ends the resync (connected,
#                     resync_refused) once every region was refused
#   sec-pass_on/<P>/last-error     nma's last_error is resync_refused
#   sec-pass_on/<P>/inconsistent   nmb attached, inconsistent (in memory)
#   sec-pass_on/<P>/not-written    the resync wrote nothing onto nmb's disk
#   sec-pass_on/<P>/no-resend      nma sends under 9 MiB in the next 3 s
#                     (at most the retry's one pass of the 8 MiB refused)
#   sec-pass_on/<P>/target         nma's resync paused, the metadata
#                     repaired: the resync starts again on the same link
#                     (NM_RS_RETRY), nmb is sync_target
#   sec-pass_on/<P>/md-inconsistent   nmb's superblock on the repaired
#                     device says not consistent before any data arrive
#   sec-pass_on/<P>/resynced, uptodate, peer-has-write, identical
#   sec-pass_on/<P>/link-kept      no reconnect from the stop to the end
# Then under C with on_io_error pass_on:
#   pass_on/write-fails   the write gets EIO (the error goes to the writer)
#   pass_on/uptodate      nma keeps its disk
#   pass_on/write-after-repair   with the metadata device repaired, the
#                     same write succeeds
#   pass_on/identical both backing devices equal
# vms: 1
# disks: none
# timeout: 600
load_netmirror
. /tests/nmlib.sh
brd_setup 32 4
S=65536
MS=8192	# 4 MiB of each 32 MiB ram disk hold the metadata

meta_ok() {
	dmsetup reload metaa --table "0 $MS linear /dev/ram2 0" && dmsetup resume metaa ||
		fail "metaa: linear"
}

meta_bad() {
	dmsetup reload metaa --table "0 $MS error" && dmsetup resume metaa ||
		fail "metaa: error"
}

setup() {
	nm_zero /dev/ram0 /dev/ram1 /dev/ram2 /dev/ram3
	dmsetup create metaa --table "0 $MS linear /dev/ram2 0" || fail "create metaa"
	nm_local_pair "$1" flush "$S" /dev/ram0 /dev/ram1 "meta /dev/mapper/metaa $2" "meta /dev/ram3"
	# regions 0..7 marked before the fault
	pattern write /dev/mapper/nma 1 4M --size 4M --direct --quiet || fail "first write"
}

teardown() {
	nm_local_unpair
	dmsetup remove metaa || fail "remove metaa"
}

same() {
	check_eq "$1" "$(dev_sum /dev/ram0)" "$(dev_sum /dev/ram1)" ||
		log "nma $(dmsetup status nma); nmb $(dmsetup status nmb)"
}

# the write of the fault: 4 MiB at 16 MiB, regions not yet marked
w2() {
	pattern "$1" "$2" 2 4M --size 4M --offset 16M --direct --quiet
}

for P in $(nm_protos); do
	NM_CHECK_PREFIX=$P/
	setup "$P" ""
	meta_bad
	check write-completes w2 write /dev/mapper/nma
	check_wait diskless 10 "[ \"\$(nm_status nma disk)\" = diskless ]"
	check_eq last-error "$(nm_status nma last_error)" disk_failed
	log "$P: $(dmsetup status nma)"
	check read-back w2 verify /dev/mapper/nma
	check peer-has-write w2 verify /dev/ram1
	meta_ok
	check attach dmsetup message nma 0 attach
	check resynced nm_wait_synced nma 90
	check_wait uptodate 30 "[ \"\$(nm_status nma disks)\" = uptodate/uptodate ]"
	check own-disk w2 verify /dev/ram0
	same identical
	teardown
done

# the secondary's metadata device: a dm-linear over /dev/ram3 (metab)
sec_setup() {	# P OPTS_B: the pair, nmb's metadata on metab, 4 MiB written
	nm_zero /dev/ram0 /dev/ram1 /dev/ram2 /dev/ram3
	dmsetup create metab --table "0 $MS linear /dev/ram3 0" || fail "create metab"
	nm_local_pair "$1" flush "$S" /dev/ram0 /dev/ram1 "meta /dev/ram2" \
		"meta /dev/mapper/metab${2:+ $2}"
	pattern write /dev/mapper/nma 1 4M --size 4M --direct --quiet || fail "first write"
}

metab() {	# ok|bad
	local t="0 $MS linear /dev/ram3 0"
	[ "$1" = bad ] && t="0 $MS error"
	dmsetup reload metab --table "$t" && dmsetup resume metab || fail "metab: $1"
}

sec_resynced() {	# the resync from nma ends, nmb has the write
	check resynced nm_wait_synced nma 90
	check_wait uptodate 30 "[ \"\$(nm_status nma disks)\" = uptodate/uptodate ]"
	check peer-has-write w2 verify /dev/ram1
	same identical
}

sec_teardown() {
	nm_local_unpair
	dmsetup remove metab || fail "remove metab"
}

# The secondary's metadata device fails before a resync into it: it
# cannot record that its disk lacks data, so it detaches (up to 1.17.0 it
# became sync_target with its metadata saying consistent, and a crash
# during the resync left a half-written disk that claimed to be a copy).
for P in $(nm_protos); do
	NM_CHECK_PREFIX=sec/$P/
	sec_setup "$P" ""
	lose_link
	w2 write /dev/mapper/nma || fail "write while disconnected"
	metab bad
	dmsetup message nmb 0 connect || fail "connect"
	check_wait diskless 20 "[ \"\$(nm_status nmb disk)\" = diskless ]"
	check_eq last-error "$(nm_status nmb last_error)" disk_failed
	check_wait connected 20 "[ \"\$(nm_status nma connection)\" = connected ]"
	log "$P: nma $(dmsetup status nma); nmb $(dmsetup status nmb)"
	check_fail not-written w2 verify /dev/ram1
	metab ok
	check attach dmsetup message nmb 0 attach
	sec_resynced
	sec_teardown
done

# the flags of the superblock on /dev/ram3 (metab): bit 0 consistent,
# bit 2 outdated
md_flags() {
	$DD if=/dev/ram3 bs=512 count=1 iflag=direct 2>/dev/null | od -An -tu4 -j12 -N4 | tr -d ' '
}

for P in $(nm_protos); do
	NM_CHECK_PREFIX=sec-pass_on/$P/
	sec_setup "$P" "on_io_error pass_on"
	lose_link
	w2 write /dev/mapper/nma || fail "write while disconnected"
	metab bad
	dmsetup message nmb 0 connect || fail "connect"
	# the resync sends its regions once, each is refused, and it ends
	# (up to 1.18.1 it sent them again on every pass, or up to 1.17.8
	# wrote them all and ended)
	check_wait stopped 20 "[ \"\$(nm_status nma connection)\" = connected ] && [ \"\$(nm_status nma last_error)\" = resync_refused ]"
	d0=$(drops)
	log "$P: nma $(dmsetup status nma); nmb $(dmsetup status nmb)"
	check_eq last-error "$(nm_status nma last_error)" resync_refused
	check_eq inconsistent "$(nm_status nmb disk)" inconsistent
	check_fail not-written w2 verify /dev/ram1
	b0=$(nm_status nma bytes_sent)
	sleep 3
	b1=$(nm_status nma bytes_sent)
	log "$P: nma bytes_sent $b0 -> $b1 in 3 s"
	# at most one more pass (the retry, 10 s after the stop) of 8 MiB
	check no-resend [ $((b1 - b0)) -lt $((9 << 20)) ]
	# paused before the repair: the resync starts again on the same
	# link (10 s after it stopped), and nmb's superblock says it lacks
	# data before any arrive
	dmsetup message nma 0 pause_resync || fail "pause_resync"
	metab ok
	check_wait target 20 "[ \"\$(nm_status nmb connection)\" = sync_target ]"
	log "$P: superblock flags $(md_flags); nmb $(dmsetup status nmb)"
	check_eq md-inconsistent "$(( $(md_flags) & 1 ))" 0
	dmsetup message nma 0 resume_resync || fail "resume_resync"
	sec_resynced
	check_eq link-kept "$(drops)" "$d0"
	sec_teardown
done

# A lone primary under pass_on whose metadata device fails at its first
# write alone: the new data generation cannot be recorded, so that write
# fails; repaired, the next write records it first.  A guard next to the
# "outdate" case below: up to 1.17.8 a superblock write that failed was
# not written again (nm_meta_write_sb cleared sb_dirty before the write),
# but this path passed there too, as its retry begins yet another
# generation, which marks the superblock dirty again.
#   pass_on-gen/<P>/write-fails   the first write alone gets EIO
#   pass_on-gen/<P>/write-after-repair   the next succeeds
#   pass_on-gen/<P>/gen-on-disk   the superblock on /dev/ram2 holds the
#                     generation status shows
ondisk_gen() {
	$DD if=/dev/ram2 bs=4096 count=1 iflag=direct 2>/dev/null | od -An -tx8 -j528 -N8 | tr -d ' '
}
for P in $(nm_protos); do
	NM_CHECK_PREFIX=pass_on-gen/$P/
	setup "$P" "on_io_error pass_on"
	lose_link
	meta_bad
	check_fail write-fails w2 write /dev/mapper/nma
	meta_ok
	check write-after-repair w2 write /dev/mapper/nma
	log "$P: status generation $(nm_status nma generation), on disk $(ondisk_gen)"
	check_eq gen-on-disk "$(ondisk_gen)" "$(nm_status nma generation)"
	teardown
done

# "outdate" (what a fence handler runs on the disconnected secondary)
# while nmb's metadata device fails: it must fail, and when asked again
# after the repair, write the outdated state.  Up to 1.17.8 the second
# "outdate" returned 0 (the disk was outdated in memory) with the
# metadata still saying uptodate, and even a commit tried again did not
# write a superblock whose write had failed once: the fence handler was
# told the peer was outdated, and a reboot brought it back promotable.
#   outdate/<P>/first-fails     the first "outdate" fails (EIO)
#   outdate/<P>/second-ok       after the repair the second one succeeds
#   outdate/<P>/md-outdated     nmb's superblock on /dev/ram3 says outdated
for P in $(nm_protos); do
	NM_CHECK_PREFIX=outdate/$P/
	sec_setup "$P" "on_io_error pass_on"
	lose_link
	metab bad
	check_fail first-fails dmsetup message nmb 0 outdate
	metab ok
	check second-ok dmsetup message nmb 0 outdate
	log "$P: superblock flags $(md_flags); nmb $(dmsetup status nmb)"
	check_eq md-outdated "$(( $(md_flags) & 4 ))" 4
	sec_teardown
done

# The same with a table reload after the failed "outdate" (review of
# 1.18.0): the new instance takes the predecessor's disk state, up to
# 1.18.0 in memory only (nm_disk_adopt).  A guard: it passes on 1.18.0
# too, as the reload must come after the repair (a new instance reads its
# metadata device when it is constructed, and again at its first resume)
# and the replaced table's commit at its suspend then writes the state;
# fault-detachreload shows the adoption itself.
#   outdate-reload/<P>/first-fails, reloaded, second-ok, md-outdated
for P in $(nm_protos); do
	NM_CHECK_PREFIX=outdate-reload/$P/
	sec_setup "$P" "on_io_error pass_on"
	lose_link
	# the reloaded nmb connects again by itself: nma takes no link
	dmsetup message nma 0 disconnect || fail "disconnect nma"
	metab bad
	check_fail first-fails dmsetup message nmb 0 outdate
	metab ok
	check reloaded sh -c 'dmsetup reload nmb --table "$(dmsetup table nmb)" && dmsetup resume nmb'
	check second-ok dmsetup message nmb 0 outdate
	log "$P: superblock flags $(md_flags); nmb $(dmsetup status nmb)"
	check_eq md-outdated "$(( $(md_flags) & 4 ))" 4
	sec_teardown
done

NM_CHECK_PREFIX=pass_on/
setup C "on_io_error pass_on"
meta_bad
check_fail write-fails w2 write /dev/mapper/nma
check_eq uptodate "$(nm_status nma disks)" uptodate/uptodate
meta_ok
check write-after-repair w2 write /dev/mapper/nma
check_wait synced 30 "nm_wait_synced nma 1"
same identical
teardown
NM_CHECK_PREFIX=
exit 0
