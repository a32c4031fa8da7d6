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
# Then under C with on_io_error pass_on:
#   pass_on/write-fails   the write gets EIO (the error goes to the writer)
#   pass_on/uptodate      nma keeps its disk
#   pass_on/write-after-repair   with the metadata device repaired, the
#                     same write succeeds
#   pass_on/identical both backing devices equal
# vms: 1
# disks: none
# timeout: 300
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

# The secondary's metadata device fails before a resync into it: it
# cannot record that its disk lacks data, so it detaches (up to 1.17.0 it
# became sync_target with its metadata saying consistent, and a crash
# during the resync left a half-written disk that claimed to be a copy).
for P in $(nm_protos); do
	NM_CHECK_PREFIX=sec/$P/
	nm_zero /dev/ram0 /dev/ram1 /dev/ram2 /dev/ram3
	dmsetup create metab --table "0 $MS linear /dev/ram3 0" || fail "create metab"
	nm_local_pair "$P" flush "$S" /dev/ram0 /dev/ram1 "meta /dev/ram2" "meta /dev/mapper/metab"
	pattern write /dev/mapper/nma 1 4M --size 4M --direct --quiet || fail "first write"
	lose_link
	w2 write /dev/mapper/nma || fail "write while disconnected"
	dmsetup reload metab --table "0 $MS error" && dmsetup resume metab || fail "metab: error"
	dmsetup message nmb 0 connect || fail "connect"
	check_wait diskless 20 "[ \"\$(nm_status nmb disk)\" = diskless ]"
	check_eq last-error "$(nm_status nmb last_error)" disk_failed
	check_wait connected 20 "[ \"\$(nm_status nma connection)\" = connected ]"
	log "$P: nma $(dmsetup status nma); nmb $(dmsetup status nmb)"
	check_fail not-written w2 verify /dev/ram1
	dmsetup reload metab --table "0 $MS linear /dev/ram3 0" && dmsetup resume metab || fail "metab: linear"
	check attach dmsetup message nmb 0 attach
	check resynced nm_wait_synced nma 90
	check_wait uptodate 30 "[ \"\$(nm_status nma disks)\" = uptodate/uptodate ]"
	check peer-has-write w2 verify /dev/ram1
	same identical
	nm_local_unpair
	dmsetup remove metab || fail "remove metab"
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
