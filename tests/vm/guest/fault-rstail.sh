# A resync target's disk fails and is replaced (`attach`) while resync
# data of the resync its failure ended are still on their way (review F3
# of 2026-12-06).  Up to 1.18.11 the target, attached again but not yet a
# sync target, took the first of them for a protocol error: the link
# dropped (bad_packet) and was made again, the resync started over; the
# source counted the target's refusals of the old data for its next
# resync of their regions (resync_refused, ten seconds lost).
#
# One VM, both nodes on loopback through slowfwd (tests/vm/src/slowfwd.c),
# which holds what flows to nmb while the words of its control file say
# so.  32 MiB (64 regions of 512 KiB); nma (primary, sync full, resync at
# 4 MiB/s) on random data; nmb on a dm-delay whose writes are 800 ms late
# (some always in flight) over a dm-linear on a zeroed disk; timeout 30 s
# on both, for the held link.  Once the resync runs, nma's packets to nmb
# are held, nmb's disk (under the delay) turns to `error`, and the writes
# in flight fail: nmb detaches, and its P_STATE reaches nma, which ends
# its half.  nmb's disk is pointed at another disk (random data) and
# attached;
# then the held resync data go on.  Under each protocol A, B, C with a
# full-region resync, and under C with csums (checks <P>/<mode>/...):
#   resync-started  nma became sync_source
#   detached        nmb's disk diskless
#   source-stopped  nma left sync_source while the data were held
#   attached        `attach` succeeds
#   inconsistent    nmb's disk inconsistent after it (nma's next resync
#                   paused: it sends nothing until the held data are in)
#   not-written     the new disk is unchanged 3 s after the held data went
#                   on: they were refused, not written
#   synced          both uptodate, nothing out of sync
#   link-kept       no "-> connecting" logged: the old resync's data were
#                   refused, not a protocol error (the failing version:
#                   "packet type 13 rejected", under A, B and C)
#   no-refusal      nma's last_error is not resync_refused: the refusals
#                   of the held data were counted for the ended resync's
#                   slots, not for the new resync of their regions (up to
#                   1.18.11 they stopped it, to start again 10 s later)
#   identical       the new disk equals nma's
# vms: 1
# disks: none
# timeout: 600
load_netmirror
. /tests/nmlib.sh
modprobe dm-linear 2> /dev/null
modprobe dm-delay 2> /dev/null
CTL=/tmp/fwdctl

# blow ram1|ram2|bad: what is under nmb's delay
blow() {
	local t="0 $S linear /dev/$1 0"
	[ "$1" = bad ] && t="0 $S error"
	dmsetup suspend --nolockfs blow && dmsetup load blow --table "$t" &&
		dmsetup resume blow || fail "blow: $1"
}

round() {
	local m=$1 opt= n=10 fwd d0
	NM_CHECK_PREFIX=$P/$m/
	[ "$m" = csums ] && opt=" csums crc32c" n=12
	brd_setup 32 3
	S=$(( $(dev_size /dev/ram0) / 512 ))
	$DD if=/dev/urandom of=/dev/ram0 bs=1M count=32 oflag=direct status=none || fail "fill ram0"
	nm_zero /dev/ram1
	# the new disk: random data, so that anything written on it shows
	$DD if=/dev/urandom of=/dev/ram2 bs=1M count=32 oflag=direct status=none || fail "fill ram2"
	new0=$(dev_sum /dev/ram2)
	dmsetup create blow --table "0 $S linear /dev/ram1 0" || fail "create blow"
	dmsetup create bdisk --table "0 $S delay /dev/mapper/blow 0 0 /dev/mapper/blow 0 800" ||
		fail "create bdisk"
	: > $CTL
	slowfwd --ctl $CTL 7791:7790:b:a 7792:7789:a:b &
	fwd=$!
	dmsetup create nmb --table "0 $S netmirror /dev/mapper/bdisk 127.0.0.1:7792 $P flush 4 listen 127.0.0.1:7790 timeout 30000" ||
		fail "create nmb"
	dmsetup create nma --table "0 $S netmirror /dev/ram0 127.0.0.1:7791 $P flush $n listen 127.0.0.1:7789 role primary sync full resync_rate 4096 timeout 30000$opt" ||
		fail "create nma"
	check_wait resync-started 20 "[ \"\$(nm_status nma connection)\" = sync_source ]"
	sleep 1
	d0=$(drops)
	echo b > $CTL
	blow bad
	check_wait detached 10 "[ \"\$(nm_status nmb disk)\" = diskless ]"
	check_wait source-stopped 10 "[ \"\$(nm_status nma connection)\" != sync_source ]"
	# the next resync sends nothing until the held data are through
	dmsetup message nma 0 pause_resync || fail "pause_resync"
	# the writes still in the delay end (on `error`) before the new disk
	# goes under it: they would land on it before the attach
	sleep 1
	blow ram2
	check attached dmsetup message nmb 0 attach
	check_eq inconsistent "$(nm_status nmb disk)" inconsistent
	sleep 1
	log "$P $m held: nma $(dmsetup status nma | cut -d' ' -f4-); nmb $(dmsetup status nmb | cut -d' ' -f4-)"
	: > $CTL
	sleep 3
	check_eq not-written "$(dev_sum /dev/ram2)" "$new0"
	dmsetup message nma 0 resume_resync || fail "resume_resync"
	check_wait synced 90 "nm_synced nma && nm_synced nmb"
	check_eq link-kept "$(drops)" "$d0"
	# the refusals of the held data answer the ended resync, not the new
	# one, whose regions are not refused for them (no resync_refused stop
	# and retry ten seconds later)
	check no-refusal [ "$(nm_status nma last_error)" != resync_refused ]
	dmesg | grep -E 'netmirror: .*(bad packet|rejected|invalid packet)' | tail -3 | sed 's/^/NMLOG: /'
	check_eq identical "$(dev_sum /dev/ram2)" "$(dev_sum /dev/ram0)"
	dmsetup remove nma || fail "remove nma"
	dmsetup remove nmb || fail "remove nmb"
	kill $fwd
	wait $fwd 2> /dev/null
	dmsetup remove bdisk || fail "remove bdisk"
	dmsetup remove blow || fail "remove blow"
}

for P in $(nm_protos); do
	round full
	# with csums the held packets are digests (refused, no error on the
	# failing version either): the sequence once, for the csums path of
	# the fix (its slots' answers), not once per protocol
	[ "$P" = C ] && round csums
done
NM_CHECK_PREFIX=
exit 0
