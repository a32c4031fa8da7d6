# A resync_rate below one region a second still resyncs, at that rate.
# Up to 1.18.10 the rate control allowed a region only when it fitted in
# the current second's budget (plus 100 ms), and forgot what was owed at
# each second: a region larger than 1.1 s of the rate never fitted, and
# the resync (or verify) never moved.  With the default 512 KiB regions
# that was any rate below 466 KiB/s, DRBD's default 250 KiB/s among them.
# And a write to a region in resync waited for the whole throttled pass.
#
# One VM, both nodes on loopback, 32 MiB (64 regions of 512 KiB).  nma
# (primary, sync full) on random data at resync_rate 256 KiB/s, nmb on a
# zeroed disk.  For each protocol A, B, C (checks <P>/...):
#   started         nma became sync_source
#   moves           at least one region (512 KiB) resynced within 8 s
#   parked-write    a write to region 1 (held by the resync, waiting for the
#                   rate) completes within 20 s: up to 1.18.10 writes parked
#                   behind a region stayed parked until the whole pass ended
#   keeps-moving    more in the 5 s after (one region every 2 s)
#   capped          no more than the rate's worth since the start plus one
#                   region (a region goes whole; the check allows 2 s slack)
#   message-low     the same through the message: resync_rate 100, one more
#                   region within 12 s
#   synced          with the cap lifted (resync_rate 0) both end uptodate
#   identical       both backing devices equal
# vms: 1
# disks: none
# timeout: 300
load_netmirror
. /tests/nmlib.sh
REGION=524288

for P in $(nm_protos); do
	NM_CHECK_PREFIX=$P/
	brd_setup 32 2
	S=$(( $(dev_size /dev/ram0) / 512 ))
	$DD if=/dev/urandom of=/dev/ram0 bs=1M count=32 oflag=direct status=none || fail "fill ram0"
	dmsetup create nmb --table "0 $S netmirror /dev/ram1 127.0.0.1:7789 $P flush 2 listen 127.0.0.1:7790" ||
		fail "create nmb"
	dmsetup create nma --table "0 $S netmirror /dev/ram0 127.0.0.1:7790 $P flush 8 listen 127.0.0.1:7789 role primary sync full resync_rate 256" ||
		fail "create nma"
	check_wait started 20 "[ \"\$(nm_status nma connection)\" = sync_source ]"
	_nm_up
	t0=$nm_up
	check_wait moves 8 "[ \"\$(nm_status nma resync_sent)\" -ge $REGION ]"
	# a write to the region the resync holds now (the next one, waiting
	# for the rate) waits until that region is through, not until the
	# pass ends (2 s per region here: about 2 minutes)
	_nm_up
	w0=$nm_up
	check parked-write timeout 20 $DD if=/dev/urandom of=/dev/mapper/nma bs=4k count=1 seek=$((REGION / 4096)) oflag=direct conv=notrunc status=none
	_nm_up
	log "$P: a write to region 1 took about $((nm_up - w0)) s"
	first=$(nm_status nma resync_sent)
	sleep 5
	sent=$(nm_status nma resync_sent)
	_nm_up
	el=$(( (nm_up - t0) + 2 ))
	log "$P: $sent bytes resynced in about $((nm_up - t0)) s at 256 KiB/s: $(dmsetup status nma)"
	check keeps-moving [ "$sent" -gt "$first" ]
	check capped [ "$sent" -le $(( el * 256 * 1024 + REGION )) ]
	dmsetup message nma 0 resync_rate 100 || fail "resync_rate 100"
	check_wait message-low 12 "[ \"\$(nm_status nma resync_sent)\" -gt $sent ]"
	dmsetup message nma 0 resync_rate 0 || fail "resync_rate 0"
	rc=0
	nm_wait_synced nma 60 && nm_wait_synced nmb 30 || rc=1
	check_eq synced "$rc" 0
	dmsetup remove nma || fail "remove nma"
	dmsetup remove nmb || fail "remove nmb"
	check_eq identical "$(dev_sum /dev/ram1)" "$(dev_sum /dev/ram0)"
done
NM_CHECK_PREFIX=
exit 0
