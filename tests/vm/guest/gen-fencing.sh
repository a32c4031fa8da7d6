# Resource-level fencing (issue 11; target 1.7): "fencing freeze" on the
# primary, one VM, both nodes on loopback with metadata devices, under each protocol A, B, C
# (checks <P>/...).
#   freeze: the secondary drops the link; a write on the primary is held
#     (not acknowledged) and status shows io frozen;
#   fence: the handler's two steps by hand: "outdate" on the secondary
#     (outdated, on its metadata), "resume_io" on the primary: the held
#     write completes; the outdated secondary refuses "primary"; it
#     reconnects, resyncs, and both disks are identical;
#   back: the link returns instead: the held write completes by itself;
#   suspend: a held write fails (EIO) under a plain suspend, is requeued
#     (and held again) under a noflush suspend, then released;
#   none: without the option a lost link holds nothing.
# Fails on 43d0dd8's kernel (no fencing option, no outdate/resume_io).
# vms: 1
# disks: none
# timeout: 600
load_netmirror
. /tests/nmlib.sh
brd_setup 16 4
S=$(( $(dev_size /dev/ram0) / 512 ))

round() {
	nm_zero /dev/ram2 /dev/ram3
	nm_local_pair "$P" flush "$S" /dev/ram0 /dev/ram1 "meta /dev/ram2 fencing freeze" "meta /dev/ram3"
	pattern write /dev/mapper/nma 1 16M --direct --quiet || fail "first write"
	nm_wait_synced nma 60 || fail "not synced: $(dmsetup status nma)"

	# --- freeze, fence by hand
	lose_link
	check_eq freeze/io-frozen "$(nm_status nma io)" frozen
	held_write f1 11 2
	sleep 1
	check freeze/write-held running f1
	check_eq fence/secondary-uptodate-before "$(nm_status nmb disk)" uptodate
	check fence/outdate dmsetup message nmb 0 outdate
	check_eq fence/secondary-outdated "$(nm_status nmb disk)" outdated
	check fence/resume-io dmsetup message nma 0 resume_io
	check_wait fence/write-released 20 "ended_ok f1"
	check_eq fence/io-running "$(nm_status nma io)" running
	check fence/more-writes pattern write /dev/mapper/nma 12 1M --offset 4M --direct --quiet
	check_fail fence/outdated-not-promoted dmsetup message nmb 0 primary
	check_fail fence/resume-io-twice-refused dmsetup message nma 0 resume_io
	dmsetup message nmb 0 connect || fail "connect nmb"
	check_wait fence/resynced 60 "nm_synced nma && nm_synced nmb"
	check_eq fence/secondary-uptodate-after "$(nm_status nmb disk)" uptodate
	check_eq fence/identical "$(dev_sum /dev/ram1)" "$(dev_sum /dev/ram0)"

	# --- the link comes back instead
	lose_link
	held_write f2 21 6
	sleep 1
	check back/write-held running f2
	dmsetup message nmb 0 connect || fail "connect nmb"
	check_wait back/write-released 60 "ended_ok f2"
	check_wait back/resynced 60 "nm_synced nma && nm_synced nmb"
	check_eq back/identical "$(dev_sum /dev/ram1)" "$(dev_sum /dev/ram0)"
	check_eq back/io-running "$(nm_status nma io)" running

	# --- suspend while frozen
	lose_link
	held_write f3 31 8
	sleep 1
	check suspend/write-held running f3
	dmsetup suspend nma || fail "suspend nma"
	check_wait suspend/plain-fails 20 "ended_failed f3"
	dmsetup resume nma || fail "resume nma"
	check_eq suspend/still-frozen "$(nm_status nma io)" frozen
	held_write f4 41 10
	sleep 1
	check suspend/held-again running f4
	dmsetup suspend --noflush nma || fail "noflush suspend nma"
	dmsetup resume nma || fail "resume nma"
	sleep 1
	check suspend/noflush-requeued-held running f4
	dmsetup message nmb 0 outdate || fail "outdate nmb"
	dmsetup message nma 0 resume_io || fail "resume_io"
	check_wait suspend/released 20 "ended_ok f4"
	check suspend/data pattern verify /dev/mapper/nma 41 1M --offset 10M --direct --quiet
	dmsetup message nmb 0 connect || fail "connect nmb"
	check_wait suspend/resynced 60 "nm_synced nma && nm_synced nmb"
	check_eq suspend/identical "$(dev_sum /dev/ram1)" "$(dev_sum /dev/ram0)"
	nm_local_unpair

	# --- without fencing nothing is held
	nm_local_pair "$P" flush "$S" /dev/ram0 /dev/ram1 "meta /dev/ram2" "meta /dev/ram3"
	lose_link
	check_eq none/io-running "$(nm_status nma io)" running
	held_write f5 51 12
	check_wait none/write-not-held 20 "ended_ok f5"
	dmsetup message nmb 0 connect || fail "connect nmb"
	check_wait none/resynced 60 "nm_synced nma && nm_synced nmb"
	nm_local_unpair
}

nm_each_proto round
exit 0
