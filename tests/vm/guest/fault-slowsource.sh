# A resync source whose own disk is slow is not a silent peer.  The source
# is the secondary: its reader takes the primary's writes, and when
# max_buffers are held by writes on its slow disk it stops reading
# (nm_peer_wait_room).  The primary's answers to the resync data it sent
# then wait in its socket behind those writes.  Up to 1.18.16 its watchdog
# counted that wait against the peer (nm_check_stuck): "peer answered no
# request for 6000 ms: dropping link", and the link went down and up again
# while both nodes were well (seen once in fault-attachqueue).
#
# One VM, both nodes on loopback, 32 MiB devices, ordering none, the
# default timeout (6 s); nmb has max_buffers 1024 (1 MiB of writes held,
# 8 of fio's 32 writes) and resync_rate 2048 (the resync outlasts fio)
# and its disk is a dm-linear that becomes a dm-delay with 3 s writes
# (reads at once).  For each protocol A, B, C: nma's disk is detached by a
# failing write and repaired, nmb's disk made slow, and `attach` sent to
# nma: nma is an inconsistent primary, nmb its resync source.  fio writes
# 128 KiB at random at depth 32 on nma for 12 s while the link is polled.
# Checks <P>/...:
#   detached      nma's disk diskless after the failing write
#   resyncing     nma's disk inconsistent once attached (the premise)
#   still-resyncing  nma's disk still inconsistent when fio ended (the
#                 premise: the resync was not over)
#   backed-up     a socket of the pair held 256 KiB or more unread while
#                 fio ran (the premise: nmb's reader waited for its disk
#                 with the peer's bytes, its answers among them, behind it)
#   link-kept     connected (sync_target/sync_source) in every sample
#                 while fio ran
#   no-drop-lines no "answered no request", "sent nothing" or dropped
#                 link in the kernel log of either node
#   fio-ok        every write completed without error
#   resynced      nma uptodate and in sync once nmb's disk is fast again
#                 (and its resync_rate 0)
#   identical     both backing devices equal
# vms: 1
# disks: none
# layers: fio
# timeout: 400
load_netmirror
. /tests/nmlib.sh
. /tests/dur-lib.sh
modprobe dm-flakey || fail "modprobe dm-flakey"
modprobe dm-delay || fail "modprobe dm-delay"
S=65536
slowb() {
	local t="0 $S linear /dev/ram1 0"
	[ "$1" = slow ] && t="0 $S delay /dev/ram1 0 0 /dev/ram1 0 3000"
	dmsetup suspend slowb && dmsetup load slowb --table "$t" &&
		dmsetup resume slowb || fail "$P: slowb $1"
}
for P in $(nm_protos); do
	NM_CHECK_PREFIX=$P/
	brd_setup 32 2
	dmsetup create lowa --table "0 $S linear /dev/ram0 0" || fail "create lowa"
	dmsetup create slowb --table "0 $S linear /dev/ram1 0" || fail "create slowb"
	nm_local_pair "$P" none "" /dev/mapper/lowa /dev/mapper/slowb "" "max_buffers 1024 resync_rate 2048"
	pattern write /dev/mapper/nma 1 8M --size 8M --direct --quiet || fail "first write"
	nm_detach_lowa /dev/ram0
	slowb slow
	dmesg -c > /dev/null
	dmsetup message nma 0 attach || fail "$P: attach"
	check_eq resyncing "$(nm_status nma disk)" inconsistent
	fio --name=slowsource --filename=/dev/mapper/nma --rw=randwrite --bs=128k \
		--ioengine=libaio --direct=1 --iodepth=32 --time_based --runtime=12 \
		--randseed=$((RANDOM + 1)) > /tmp/fio.out 2>&1 &
	fpid=$!
	n=0 bad=0 first= rxq=0
	while kill -0 $fpid 2> /dev/null; do
		q=$(pair_rxq)
		[ "$q" -gt "$rxq" ] && rxq=$q
		c="$(nm_status nma connection)/$(nm_status nmb connection)"
		n=$((n + 1))
		case $c in
		connected/connected | sync_target/sync_source) ;;
		*)
			bad=$((bad + 1))
			[ -n "$first" ] || first=$c ;;
		esac
		sleep 0.2
	done
	wait $fpid
	frc=$?
	d=$(nm_status nma disk)
	log "$P: $(grep -m1 -o 'IOPS=[^,]*' /tmp/fio.out); nma $d $(nm_status nma regions); largest receive queue $rxq bytes"
	check_eq still-resyncing "$d" inconsistent
	# the premise: nmb's reader, waiting for its disk, left bytes unread
	if [ "$rxq" -ge 262144 ]; then
		check_ok backed-up
	else
		check_bad backed-up "largest receive queue $rxq bytes, want >= 262144"
	fi
	check_eq link-kept "$bad of $n samples not connected${first:+ (first $first)}" "0 of $n samples not connected"
	check_fail no-drop-lines sh -c \
		"dmesg | grep -E 'answered no request|sent nothing|dropping link|while this node was busy'"
	check_eq fio-ok "$frc" 0
	slowb fast
	dmsetup message nmb 0 resync_rate 0 || fail "$P: resync_rate 0"
	check resynced nm_wait_synced nma 120
	dur_settled_same identical 60 /dev/ram0 /dev/ram1
	nm_local_unpair
	dmsetup remove lowa || fail "remove lowa"
	dmsetup remove slowb || fail "remove slowb"
done
NM_CHECK_PREFIX=
exit 0
