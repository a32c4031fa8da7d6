# A secondary whose disk fails a write of the primary's and stays
# (on_io_error pass_on) lacks those data: it must not be promoted as if its
# data were good, now or after a restart, when the link drops before the
# primary's resync reached it.  DRBD 8.4 makes such a disk Inconsistent at
# once (__drbd_chk_io_error_, EP_PASS_ON).  Up to 1.18.18 the secondary
# only counted the region in its status (rg.failed_here, memory only): its
# disk stayed uptodate until the primary's P_RS_START, so with the link
# cut first a `primary` message (or, after a restart, a `role primary`
# table) was accepted, and the new primary served the old data of a write
# the old primary had acknowledged (under A, B and C).
#
# One VM, both nodes on loopback, 16 MiB brd each, metadata on both; nmb's
# MiB at 8 MiB can be switched to a dm-delay (3 s) over dm "error", so that
# the write fails on nmb after the wire is cut.  For each protocol A, B, C:
#   <P>/held           the 64 KiB write sits in nmb's delay (dm-delay's
#                      status), the wire is cut then (lo down)
#   <P>/failed         nmb's disk failed it (nmb counts its region out of
#                      sync)
#   <P>/acked          nma completed the write (its peer lost)
#   <P>/inconsistent   nmb's disk is inconsistent
#   <P>/refused        `primary` on nmb is refused
#   <P>/md-inconsistent nmb's superblock says not consistent (within 10 s)
#   <P>/restart-inconsistent, <P>/restart-marked, <P>/restart-refused
#                      nmb removed and created again on the same disk and
#                      metadata (the disk good again, the wire still cut):
#                      still inconsistent, the region out of sync on its
#                      metadata, and `primary` refused
#   <P>/resynced       the wire back: both in sync, nmb uptodate
#   <P>/kept           nmb's disk holds the acknowledged write
#   <P>/identical      md5 of both backing devices
#   <P>/switched       nma secondary, nmb primary and back: accepted
# Last, nmb's disk as the only good one: nma's disk (a dm table over its
# brd) fails and nma detaches (the default on_io_error), then nmb's disk
# fails nma's next write at 8 MiB (the write carries NM_DF_ACK_DISK, under
# C too from wire protocol 11):
#   <P>/only/detached      nma diskless
#   <P>/only/write-eio     that write fails on nma (no good copy anywhere)
#   <P>/only/uptodate      nmb's disk stays uptodate (the good one)
#   <P>/only/served        a write elsewhere on nma succeeds, through nmb
# Before that cut, on the same pair (then reconnected: a pair in sync for
# the cut whatever this part left), a verify's hold: a block of nmb's
# disk is changed under it, `verify` on nma finds it (no resync on this
# link then), and
# nmb's disk fails a write at 8 MiB (no delay, the link stays; nma's
# resync paused, released once the disk is good again):
#   <P>/held/found         verify_diffs 1
#   <P>/held/inconsistent  nmb's disk is inconsistent
#   <P>/held/resynced      the disk good again: both in sync, nmb uptodate,
#                          on the same link (the failure ends the hold: the
#                          resync covers the verify's region too)
#   <P>/held/identical     md5 of both backing devices
# 1.18.18 fails inconsistent, refused, md-inconsistent, restart-*,
# held/inconsistent and held/resynced under A, B and C (and, after its own
# promotions, the rest of the first part).
# vms: 1
# disks: none
# timeout: 500
load_netmirror
. /tests/nmlib.sh
. /tests/dur-power-lib.sh
modprobe dm-delay || fail "modprobe dm-delay"
brd_setup 16 4
S=32768
BAD=16384	# the MiB at 8 MiB: sectors 16384..18431

# the consistent flag (bit 0) of nmb's superblock
md_consistent() {
	local f
	f=$($DD if=/dev/ram3 bs=4096 count=1 iflag=direct status=none | od -An -tu4 -j12 -N4 | tr -d ' ')
	echo $((f & 1))
}

tableb() {
	echo "0 $S netmirror /dev/mapper/lowb 127.0.0.1:7789 $P flush 10 listen 127.0.0.1:7790 meta /dev/ram3 on_io_error pass_on timeout 1500 ping 500"
}

dmsetup create errb --table "0 2048 error" || fail "create errb"
dmsetup create lowb --table "0 $S linear /dev/ram1 0" || fail "create lowb"
dmsetup create lowa --table "0 $S linear /dev/ram0 0" || fail "create lowa"
head -c 65536 /dev/urandom > /tmp/w
for P in $(nm_protos); do
	NM_CHECK_PREFIX=$P/
	nm_zero /dev/ram0 /dev/ram1 /dev/ram2 /dev/ram3
	lowb_set ok
	echo "0 $S linear /dev/ram0 0" | dmsetup reload lowa && dmsetup resume lowa || fail "lowa ok"
	dmsetup create nmb --table "$(tableb)" || fail "create nmb"
	dmsetup create nma --table "0 $S netmirror /dev/mapper/lowa 127.0.0.1:7790 $P flush 10 listen 127.0.0.1:7789 role primary meta /dev/ram2 timeout 1500 ping 500" ||
		fail "create nma"
	nm_wait_synced nma 60 || fail "$P: no sync: $(dmsetup status nma)"
	pattern write /dev/mapper/nma 1 4M --size 8M --direct --quiet || fail "$P: first write"
	nm_wait_confirmed nma 30 || fail "$P: writes unconfirmed: $(dmsetup status nma)"
	nm_wait_synced nmb 30 || fail "$P: nmb not in sync: $(dmsetup status nmb)"
	# a verify's hold, then a failed write with the link up
	head -c 4096 /dev/urandom | $DD of=/dev/ram1 bs=4k seek=3072 oflag=direct conv=notrunc status=none ||
		fail "$P: change nmb's disk"
	rc=0
	nmsetup verify nma --wait > /tmp/verify.out 2>&1 || rc=$?
	check_eq held/found "$rc/$(nm_status nma verify_diffs)" 7/1 || log "$(cat /tmp/verify.out)"
	# held before the failure, so that its region is not tried before
	# the disk is good again (that would wait ten seconds for a retry)
	dmsetup message nma 0 pause_resync || fail "$P: pause_resync"
	lowb_set bad
	head -c 65536 /dev/urandom > /tmp/w2
	$DD if=/tmp/w2 of=/dev/mapper/nma bs=64k seek=128 count=1 oflag=direct conv=notrunc status=none ||
		log "$P: the write failed on nma"
	check_wait held/inconsistent 10 "[ \"\$(nm_status nmb disk)\" = inconsistent ]"
	lowb_set ok
	dmsetup message nma 0 resume_resync || fail "$P: resume_resync"
	check_wait held/resynced 40 "nm_synced nma && nm_synced nmb && [ \"\$(nm_status nmb disk)\" = uptodate ]"
	check held/identical [ "$(dev_sum /dev/ram0)" = "$(dev_sum /dev/ram1)" ]
	log "$P: held: nma $(dmsetup status nma); nmb $(dmsetup status nmb)"
	# whatever the hold left (a module without the fix resyncs at the
	# next link only): a new link, so that the cut starts from a pair in sync
	dmsetup message nma 0 disconnect && dmsetup message nma 0 connect ||
		fail "$P: reconnect"
	nm_wait_synced nma 60 && nm_wait_synced nmb 30 ||
		fail "$P: not in sync after the reconnect: $(dmsetup status nma)"
	nm_wait_confirmed nma 30 || fail "$P: writes unconfirmed: $(dmsetup status nma)"

	check held secfail_write_cut
	# (nmb counts the region it failed out of sync from the failure on,
	# 1.18.16; its log line may be rate-limited away)
	check_wait failed 20 "[ \$(nm_status nmb in_sync_regions) -lt \$(nm_status nmb total_regions) ]"
	check_wait acked 30 "[ \"\$(cat /tmp/w.rc 2>/dev/null)\" = 0 ]"
	wait
	nm_wait_conn nmb connecting 20 || nm_wait_conn nmb standalone 1 ||
		log "$P: nmb still $(nm_status nmb connection)"
	log "$P: after the failure: nma $(dmsetup status nma); nmb $(dmsetup status nmb)"
	check_eq inconsistent "$(nm_status nmb disk)" inconsistent
	if dmsetup message nmb 0 primary 2>/dev/null; then
		check_bad refused "nmb became primary: $(dmsetup status nmb)"
		dmsetup message nmb 0 secondary
	else
		check_ok refused
	fi
	check_wait md-inconsistent 10 "[ \"\$(md_consistent)\" = 0 ]"

	lowb_set ok
	remove_retry nmb "$P"
	dmsetup create nmb --table "$(tableb)" || fail "$P: create nmb again"
	log "$P: nmb again: $(dmsetup status nmb)"
	check_eq restart-inconsistent "$(nm_status nmb disk)" inconsistent
	check restart-marked [ "$(nm_status nmb in_sync_regions)" -lt "$(nm_status nmb total_regions)" ]
	if dmsetup message nmb 0 primary 2>/dev/null; then
		check_bad restart-refused "nmb became primary: $(dmsetup status nmb)"
		dmsetup message nmb 0 secondary
	else
		check_ok restart-refused
	fi

	wire_restore
	check_wait resynced 60 "nm_synced nma && nm_synced nmb && [ \"\$(nm_status nmb disk)\" = uptodate ]"
	check kept eval "$DD if=/dev/ram1 bs=64k skip=128 count=1 iflag=direct status=none | cmp -s - /tmp/w"
	check identical [ "$(dev_sum /dev/ram0)" = "$(dev_sum /dev/ram1)" ]
	log "$P: nma $(dmsetup status nma); nmb $(dmsetup status nmb)"

	check switched eval "dmsetup message nma 0 secondary && dmsetup message nmb 0 primary &&
		dmsetup message nmb 0 secondary && dmsetup message nma 0 primary"

	# nmb's disk the only good one
	echo "0 $S error" | dmsetup reload lowa && dmsetup resume lowa || fail "lowa bad"
	$DD if=/dev/urandom of=/dev/mapper/nma bs=4k seek=100 count=1 oflag=direct conv=notrunc status=none ||
		log "$P: the write that detached nma failed"
	check_wait only/detached 10 "[ \"\$(nm_status nma disk)\" = diskless ]"
	lowb_set bad
	check_fail only/write-eio $DD if=/tmp/w of=/dev/mapper/nma bs=64k seek=128 count=1 oflag=direct conv=notrunc status=none
	check_eq only/uptodate "$(nm_status nmb disk)" uptodate
	check only/served $DD if=/tmp/w of=/dev/mapper/nma bs=64k seek=64 count=1 oflag=direct conv=notrunc status=none
	log "$P: only: nma $(dmsetup status nma); nmb $(dmsetup status nmb)"
	lowb_set ok
	remove_retry nma "$P"
	remove_retry nmb "$P"
done
NM_CHECK_PREFIX=
dmsetup remove lowb || fail "remove lowb"
dmsetup remove lowa || fail "remove lowa"
dmsetup remove errb || fail "remove errb"
exit 0
