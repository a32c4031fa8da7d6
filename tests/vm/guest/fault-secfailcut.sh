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
# One VM, both nodes on loopback, 32 MiB brd each, metadata on both; nmb's
# MiB at 8 MiB can be switched to a dm-delay (3 s) over dm "error", so that
# the write fails on nmb after the wire is cut.  For each protocol A, B, C:
#   <P>/held           the 64 KiB write sits in nmb's delay (dm-delay's
#                      status), the wire is cut then (lo down)
#   <P>/failed         nmb's disk failed it (its log line)
#   <P>/acked          nma completed the write (its peer lost)
#   <P>/not-uptodate   nmb's disk is not uptodate
#   <P>/refused        `primary` on nmb is refused
#   <P>/md-inconsistent nmb's superblock says not consistent (within 10 s)
#   <P>/restart-inconsistent, <P>/restart-refused   nmb removed and created
#                      again on the same disk and metadata (the disk good
#                      again, the wire still cut): still not uptodate, and
#                      `primary` refused
#   <P>/resynced       the wire back: both in sync
#   <P>/kept           nmb's disk holds the acknowledged write
#   <P>/identical      md5 of both backing devices
# vms: 1
# disks: none
# timeout: 500
load_netmirror
. /tests/nmlib.sh
. /tests/dur-power-lib.sh
modprobe dm-delay || fail "modprobe dm-delay"
brd_setup 32 4
S=65536
BAD=16384	# the MiB at 8 MiB: sectors 16384..18431

lowb() { # lowb ok|slowbad
	local t="0 $S linear /dev/ram1 0"
	[ "$1" = slowbad ] && t="0 $BAD linear /dev/ram1 0
$BAD 2048 delay /dev/mapper/errb 0 3000
$((BAD + 2048)) $((S - BAD - 2048)) linear /dev/ram1 $((BAD + 2048))"
	echo "$t" | dmsetup reload lowb && dmsetup resume lowb || fail "lowb $1"
}

# writes held in lowb's delay segment now
held() {
	dmsetup status lowb | awk -v b=$BAD '$1 == b && $3 == "delay" { print $5 }'
}

failcount() {
	dmesg | grep -c 'write from the peer at sector'
}

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
head -c 65536 /dev/urandom > /tmp/w
for P in $(nm_protos); do
	NM_CHECK_PREFIX=$P/
	nm_zero /dev/ram0 /dev/ram1 /dev/ram2 /dev/ram3
	lowb ok
	dmsetup create nmb --table "$(tableb)" || fail "create nmb"
	dmsetup create nma --table "0 $S netmirror /dev/ram0 127.0.0.1:7790 $P flush 10 listen 127.0.0.1:7789 role primary meta /dev/ram2 timeout 1500 ping 500" ||
		fail "create nma"
	nm_wait_synced nma 60 || fail "$P: no sync: $(dmsetup status nma)"
	pattern write /dev/mapper/nma 1 4M --size 16M --direct --quiet || fail "$P: first write"
	nm_wait_confirmed nma 30 || fail "$P: writes unconfirmed: $(dmsetup status nma)"
	nm_wait_synced nmb 30 || fail "$P: nmb not in sync: $(dmsetup status nmb)"
	lowb slowbad
	f0=$(failcount)
	rm -f /tmp/w.rc
	( $DD if=/tmp/w of=/dev/mapper/nma bs=64k seek=128 count=1 oflag=direct conv=notrunc status=none
	  echo $? > /tmp/w.rc ) &
	check_wait held 10 "[ \"\$(held)\" = 1 ]"
	wire_cut
	check_wait failed 20 "[ \$(failcount) -gt $f0 ]"
	check_wait acked 30 "[ \"\$(cat /tmp/w.rc 2>/dev/null)\" = 0 ]"
	wait
	nm_wait_conn nmb connecting 20 || nm_wait_conn nmb standalone 1 ||
		log "$P: nmb still $(nm_status nmb connection)"
	log "$P: after the failure: nma $(dmsetup status nma); nmb $(dmsetup status nmb)"
	check not-uptodate [ "$(nm_status nmb disk)" != uptodate ]
	if dmsetup message nmb 0 primary 2>/dev/null; then
		check_bad refused "nmb became primary: $(dmsetup status nmb)"
		dmsetup message nmb 0 secondary
	else
		check_ok refused
	fi
	check_wait md-inconsistent 10 "[ \"\$(md_consistent)\" = 0 ]"

	lowb ok
	remove_retry nmb "$P"
	dmsetup create nmb --table "$(tableb)" || fail "$P: create nmb again"
	log "$P: nmb again: $(dmsetup status nmb)"
	check restart-inconsistent [ "$(nm_status nmb disk)" != uptodate ]
	if dmsetup message nmb 0 primary 2>/dev/null; then
		check_bad restart-refused "nmb became primary: $(dmsetup status nmb)"
		dmsetup message nmb 0 secondary
	else
		check_ok restart-refused
	fi

	wire_restore
	check resynced nm_wait_synced nma 60
	check_wait kept 30 "nm_synced nmb && $DD if=/dev/ram1 bs=64k skip=128 count=1 iflag=direct status=none | cmp -s - /tmp/w"
	check identical [ "$(dev_sum /dev/ram0)" = "$(dev_sum /dev/ram1)" ]
	log "$P: nma $(dmsetup status nma); nmb $(dmsetup status nmb)"
	remove_retry nma "$P"
	remove_retry nmb "$P"
done
NM_CHECK_PREFIX=
dmsetup remove lowb || fail "remove lowb"
dmsetup remove errb || fail "remove errb"
exit 0
