# A secondary whose data are older than the primary's (outdated: the
# handshake found the primary's generation newer) is the target of a
# resync from the connect on, but the primary's new writes start to flow
# at once, before the resync's P_RS_START.  Such a write must not land on
# a disk whose metadata still says consistent (outdated): after a power
# loss that disk would hold a new write without the older ones the resync
# was to bring (a torn image, not "older but consistent"), and
# force_primary would serve it.  DRBD's primary sends such writes as
# P_OUT_OF_SYNC until the resync starts.  Up to 1.18.19 they were written
# while the metadata said consistent for the whole bitmap exchange, until
# P_RS_START's commit (review helper-62, finding 1): torn fails under A,
# B and C.
#
# One VM, both nodes on loopback, 16 MiB brd, metadata on both; nmb's
# metadata device is mdb, a dm table over ram3 made a dm-delay of 1.5 s
# for the connect, so that each commit of nmb's metadata takes that long.
# For each protocol A, B, C: nmb disconnects, nma writes 1 MiB at 2 MiB
# (nma's generation moves on); a writer on nma writes its first 256 KiB
# over and over from nma's connect on; nmb connects (it is outdated, then the resync target).
# Checks <P>/...:
#   landed      one of the writer's blocks reached nmb's disk within 20 s
#   torn        when it was first seen there, nmb's metadata media (ram3,
#               under the delay) no longer said consistent
#   logged      (premise) nmb logged that its outdated disk took a write of
#               the primary's before the resync: the write came before
#               P_RS_START (1.18.20 logs it)
#   resynced    the delay gone, the writer stopped: both in sync, nmb
#               uptodate
#   identical   md5 of both backing devices
# Part again (<P>/again/...; metadata not slowed): nmb becomes the target
# of a paused resync (first-marked: the source's region at 4 MiB is on
# nmb's metadata), the link drops, nma writes 1 MiB at 10 MiB, nmb
# connects again, inconsistent already:
#   target      nmb is the sync_target again
#   marked      the source's new region (10 MiB, region 20) is on nmb's
#               metadata media too: a resync write into nmb's disk cache
#               that a power loss takes must stay marked there.  Up to
#               1.18.19 only a disk that was not inconsistent yet recorded
#               the source's regions at P_RS_START (review helper-63)
#   resynced, identical   the resync released: in sync, md5 equal
# vms: 1
# disks: none
# timeout: 400
load_netmirror
. /tests/nmlib.sh
modprobe dm-delay || fail "modprobe dm-delay"
brd_setup 16 4
S=32768

# the consistent flag (bit 0) of nmb's superblock, on the media
md_consistent() {
	local f
	f=$($DD if=/dev/ram3 bs=4096 count=1 iflag=direct status=none | od -An -tu4 -j12 -N4 | tr -d ' ')
	echo $((f & 1))
}

mdb() { # fast|slow
	local t="0 $(( $(dev_size /dev/ram3) / 512 )) linear /dev/ram3 0"
	[ "$1" = slow ] && t="0 $(( $(dev_size /dev/ram3) / 512 )) delay /dev/ram3 0 1500"
	echo "$t" | dmsetup reload mdb && dmsetup resume mdb || fail "mdb $1"
}

# from nma's connect on (its region was not written apart: a change of it
# on nmb's disk is a P_DATA, not resync data)
writer() {
	local i=0
	wait_for "[ \"\$(nm_status nma connection)\" != connecting ]" 30 || return 0
	while [ ! -e /tmp/stopw ]; do
		printf 'W2-%08d' $i | $DD of=/dev/mapper/nma bs=4k seek=$((i % 64)) conv=notrunc,sync oflag=direct status=none ||
			break
		i=$((i + 1))
	done
}

# bit R of nmb's bitmap on its metadata media (block 1 on, a bit a region)
md_bit() {
	local b
	b=$($DD if=/dev/ram3 bs=4096 skip=1 count=1 iflag=direct status=none | od -An -tu1 -j $(($1 / 8)) -N1 | tr -d ' ')
	echo $(((b >> ($1 % 8)) & 1))
}

landed() {
	! $DD if=/dev/ram1 bs=4k count=64 iflag=direct status=none | $CMP -s - /tmp/before
}

for P in $(nm_protos); do
	NM_CHECK_PREFIX=$P/
	nm_zero /dev/ram0 /dev/ram1 /dev/ram2 /dev/ram3
	dmsetup create mdb --table "0 $(( $(dev_size /dev/ram3) / 512 )) linear /dev/ram3 0" || fail "create mdb"
	nm_local_pair "$P" flush "$S" /dev/ram0 /dev/ram1 "meta /dev/ram2" "meta /dev/mapper/mdb"
	pattern write /dev/mapper/nma 1 4M --size 16M --direct --quiet || fail "$P: first write"
	nm_wait_confirmed nma 30 || fail "$P: unconfirmed: $(dmsetup status nma)"
	nm_wait_synced nmb 30 || fail "$P: nmb: $(dmsetup status nmb)"
	lose_link
	pattern write /dev/mapper/nma 2 1M --size 1M --offset 2M --direct --quiet || fail "$P: write apart"
	$DD if=/dev/ram1 of=/tmp/before bs=4k count=64 iflag=direct status=none || fail "$P: read ram1"
	mdb slow
	rm -f /tmp/stopw
	writer &
	wpid=$!
	since=$(dmesg | wc -l)
	dmsetup message nmb 0 connect || fail "$P: connect nmb"
	t=0 c=
	while [ $t -lt 400 ]; do
		if landed; then
			c=$(md_consistent)
			break
		fi
		t=$((t + 1))
		sleep 0.05
	done
	check_eq landed "$([ -n "$c" ] && echo yes || echo no)" yes
	check_eq torn "consistent=$c" consistent=0
	touch /tmp/stopw
	wait $wpid
	check logged eval "dmesg | tail -n +$((since + 1)) | grep -q 'outdated disk takes a write'"
	mdb fast
	check_wait resynced 60 "nm_synced nma && nm_synced nmb && [ \"\$(nm_status nmb disk)\" = uptodate ]"
	check identical [ "$(dev_sum /dev/ram0)" = "$(dev_sum /dev/ram1)" ]
	log "$P: nma $(dmsetup status nma); nmb $(dmsetup status nmb)"

	# part again: nmb inconsistent already when it connects
	NM_CHECK_PREFIX=$P/again/
	lose_link
	pattern write /dev/mapper/nma 3 1M --size 1M --offset 4M --direct --quiet || fail "$P: write apart (4M)"
	dmsetup message nma 0 pause_resync || fail "$P: pause_resync"
	dmsetup message nmb 0 connect || fail "$P: connect nmb"
	check_wait first-marked 30 "[ \"\$(nm_status nmb connection)\" = sync_target ] && [ \"\$(md_bit 8)\" = 1 ]"
	lose_link
	pattern write /dev/mapper/nma 4 1M --size 1M --offset 10M --direct --quiet || fail "$P: write apart (10M)"
	dmsetup message nmb 0 connect || fail "$P: connect nmb again"
	check_wait target 30 "[ \"\$(nm_status nmb connection)\" = sync_target ]"
	check_wait marked 10 "[ \"\$(md_bit 20)\" = 1 ]"
	log "$P: again: nma $(dmsetup status nma); nmb $(dmsetup status nmb)"
	dmsetup message nma 0 resume_resync || fail "$P: resume_resync"
	check_wait resynced 60 "nm_synced nma && nm_synced nmb && [ \"\$(nm_status nmb disk)\" = uptodate ]"
	check identical [ "$(dev_sum /dev/ram0)" = "$(dev_sum /dev/ram1)" ]
	nm_local_unpair
	dmsetup remove mdb || fail "remove mdb"
done
NM_CHECK_PREFIX=
exit 0
