# Node a of the fault-peerkill scenario (tests/vm/scenarios/
# fault-peerkill.sh): a protocol-C primary under a write load (pattern) and
# a latency probe (wlat, 4 KiB O_DSYNC writes in batches of 20, the max of
# each batch logged).  The host SIGKILLs the secondary's VM at "NMMARK:
# kill-peer N".  Checks: the death is detected (connecting) within the
# default timeout (6 s) + 2 s, no single write takes longer than 8 s, the
# load never fails; the reborn secondary, recreated on its old disks, is
# resynced and both backing devices are identical.
# (Run by the scenario, tests/vm/lib.sh vm_peer_kill_scenario: 64M data +
# 4M metadata disks per node, timeouts there; no runner header.)
load_netmirror
. /tests/nmlib.sh
S=$(( $(dev_size /dev/vda) / 512 ))
cycles=${nm_cycles:-1}
limit_ms=${nm_lat_limit_ms:-8000}
peer_up() {
	on_peer ". /tests/lib.sh; load_netmirror; dmsetup create nm0 --table '0 $S netmirror /dev/vda 169.254.0.1:7789 C flush 4 meta /dev/vdb sync full'"
}
peer_up || fail "peer create"
dmsetup create nm0 --table "0 $S netmirror /dev/vda 169.254.0.2:7789 C flush 6 role primary meta /dev/vdb sync full" || fail "create"
nm_wait_synced nm0 180 || fail "initial sync: $(dmsetup status nm0)"
worst=0
i=1
while [ $i -le $cycles ]; do
	rm -f /tmp/stop /tmp/lat /tmp/probefail
	pattern write /dev/mapper/nm0 $((i * 37)) 512M --size 16M --direct --quiet > /tmp/load.out 2>&1 &
	lp=$!
	(
		j=0
		while [ ! -f /tmp/stop ]; do
			j=$((j + 1))
			# 4 KiB synchronous writes in the 16..20 MiB band
			out=$(wlat /dev/mapper/nm0 4096 20 --sync --offset $(( 16777216 + (j % 50) * 81920 ))) ||
				{ echo "wlat failed: $out" > /tmp/probefail; break; }
			echo "$(now_ms) $out" >> /tmp/lat
		done
	) &
	pp=$!
	sleep 2
	log "cycle $i: before the kill: $(dmsetup status nm0)"
	tk=$(now_ms)
	echo "NMMARK: kill-peer $i"
	nm_wait_conn nm0 connecting 30 || fail "cycle $i: peer death not detected: $(dmsetup status nm0)"
	td=$(( $(now_ms) - tk ))
	kill -0 $lp 2>/dev/null || fail "cycle $i: load stopped when the peer died: $(cat /tmp/load.out)"
	log "cycle $i: peer lost after $td ms (from the kill request): $(dmsetup status nm0)"
	[ $td -le $limit_ms ] || fail "cycle $i: the peer's death took $td ms to detect (limit $limit_ms)"
	# writes go on without the peer for a moment
	sleep 2
	touch /tmp/stop
	kill $lp; wait $lp 2>/dev/null
	wait $pp
	[ -f /tmp/probefail ] && fail "cycle $i: $(cat /tmp/probefail)"
	# the longest single write of the probe, and the batches around the kill
	max=$(awk '{ for (f = 1; f <= NF; f++) if ($f ~ /^max_us=/) { split($f, v, "="); if (v[2] > m) m = v[2] } } END { print m + 0 }' /tmp/lat)
	n=$(wc -l < /tmp/lat)
	after=$(awk -v t="$td" -v k="$tk" '$1 > k + t { c++ } END { print c + 0 }' /tmp/lat)
	log "cycle $i: probe: $n batches of 20 writes, longest write $((max / 1000)) ms, $after batches completed after the detection"
	awk -v k="$tk" '$1 > k - 1000 && $1 < k + 12000' /tmp/lat | head -20 | sed 's/^/NMLOG:   /'
	check "cycle$i/longest-write-below-limit" [ "$max" -lt $((limit_ms * 1000)) ]
	check "cycle$i/writes-resume" [ "$after" -ge 1 ]
	[ "$max" -gt "$worst" ] && worst=$max
	on_peer_wait 120 true || fail "cycle $i: peer did not come back"
	peer_up || fail "cycle $i: recreate the secondary on its old metadata"
	log "cycle $i: peer back: $(on_peer 'dmsetup status nm0')"
	nm_wait_synced nm0 240 || fail "cycle $i: no resync: $(dmsetup status nm0)"
	on_peer ". /tests/lib.sh; . /tests/nmlib.sh; nm_wait_synced nm0 30" || fail "cycle $i: peer state"
	mine=$(dev_sum /dev/vda)
	theirs=$(on_peer ". /tests/lib.sh; dev_sum /dev/vda")
	check_eq "cycle$i/identical" "$theirs" "$mine"
	log "cycle $i: resynced ($(nm_status nm0 resync_bytes) resync bytes so far), identical $mine"
	i=$((i + 1))
done
log "peerkill: $cycles kills, longest write $((worst / 1000)) ms (limit $limit_ms), 0 mismatches"
exit 0
