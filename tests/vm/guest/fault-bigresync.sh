# A resync of a device with many regions does not hold the application's
# writes (review F14): two nodes on 128 GiB zero targets with region_size 8
# (2^25 regions each) and metadata devices; the first connection resyncs
# everything, and the sync thread's once-a-second pass over the marked
# regions (lazy clearing) ran region by region under the device's lock,
# interrupts off, up to 1.17.3: every write waited behind it.  While the
# resync runs, 4 s of 4 KiB O_DIRECT writes to the primary, each checked
# to complete within NM_BIGRS_MAX_MS (default 300; the slowest write here
# takes under 10 ms, and up to 1.17.3 the pass held them about a second
# under TCG), with the resync still going afterwards.  Per protocol
# (NM_PROTOS).
# vms: 1
# disks: none
# timeout: 900
# mem: 1024
load_netmirror
brd_setup 8 2
. /tests/nmlib.sh
S=$((1 << 28))
max_ms=${NM_BIGRS_MAX_MS:-300}
dmsetup create za --table "0 $S zero" || fail "create za"
dmsetup create zb --table "0 $S zero" || fail "create zb"

one() {
	$DD if=/dev/zero of=/dev/ram0 bs=1M count=8 status=none
	$DD if=/dev/zero of=/dev/ram1 bs=1M count=8 status=none
	dmsetup create nmb --table "0 $S netmirror /dev/mapper/zb 127.0.0.1:7789 $P flush 6 listen 127.0.0.1:7790 region_size 8 meta /dev/ram1" ||
		fail "create nmb ($P)"
	dmsetup create nma --table "0 $S netmirror /dev/mapper/za 127.0.0.1:7790 $P flush 8 listen 127.0.0.1:7789 role primary region_size 8 meta /dev/ram0" ||
		fail "create nma ($P)"
	check_wait resync-started 60 '[ "$(nm_status nma connection)" = sync_source ]'
	# past the first passes of the sync thread
	sleep 3
	# writes for 4 s or more: the pass runs once a second
	max_us=0 n=0 seed=7 end=$(($(date +%s) + 4))
	while [ "$(date +%s)" -lt "$end" ]; do
		out=$(wlat /dev/mapper/nma 4096 500 --seek-random $seed) || fail "wlat ($P): $out"
		m=$(echo "$out" | sed -n 's/.*max_us=\([0-9]*\).*/\1/p')
		[ -n "$m" ] || fail "no max_us in: $out"
		[ "$m" -gt "$max_us" ] && max_us=$m
		n=$((n + 500)) seed=$((seed + 1))
	done
	log "$P: $n writes, the slowest $max_us us; $(dmsetup status nma)"
	if [ "$max_us" -le $((max_ms * 1000)) ]; then
		check_ok write-not-held
	else
		check_bad write-not-held "a write took $((max_us / 1000)) ms (limit $max_ms ms)"
	fi
	check_eq still-resyncing "$(nm_status nma connection)" sync_source
	dmsetup remove nma || fail "remove nma ($P)"
	dmsetup remove nmb || fail "remove nmb ($P)"
}
nm_each_proto one
dmsetup remove za
dmsetup remove zb
exit 0
