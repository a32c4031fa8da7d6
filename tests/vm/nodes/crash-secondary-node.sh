# Node a of the crash-secondary scenario (tests/vm/scenarios/
# crash-secondary.sh): a primary under a write load whose secondary VM is
# SIGKILLed by the host (marker "NMMARK: kill-peer N") and booted again.
# The primary keeps writing (no write fails while the peer is away); the
# reborn secondary is recreated on its old data and metadata disks, resyncs
# what it missed, and both backing devices must be identical.
# (Run by the scenario, tests/vm/lib.sh vm_peer_kill_scenario: 64M data +
# 4M metadata disks per node, timeouts there; no runner header.)
load_netmirror
. /tests/nmlib.sh
S=$(( $(dev_size /dev/vda) / 512 ))
cycles=${nm_cycles:-3}
peer_up() {
	on_peer ". /tests/lib.sh; load_netmirror; dmsetup create nm0 --table '0 $S netmirror /dev/vda 169.254.0.1:7789 C flush 4 meta /dev/vdb sync full'"
}
peer_up || fail "peer create"
dmsetup create nm0 --table "0 $S netmirror /dev/vda 169.254.0.2:7789 C flush 6 role primary meta /dev/vdb sync full" || fail "create"
nm_wait_synced nm0 120 || fail "initial sync: $(dmsetup status nm0)"
i=1
while [ $i -le $cycles ]; do
	# the load stays in the first 16 MiB: what the peer misses is bounded
	pattern write /dev/mapper/nm0 $((i * 31)) 256M --size 16M --direct --quiet > /tmp/load.out 2>&1 &
	lp=$!
	sleep 2
	log "cycle $i: before the kill: $(dmsetup status nm0)"
	echo "NMMARK: kill-peer $i"
	# the primary notices within the timeout and keeps writing
	nm_wait_conn nm0 connecting 30 || fail "cycle $i: peer death not detected: $(dmsetup status nm0)"
	kill -0 $lp 2>/dev/null || fail "cycle $i: load stopped when the peer died: $(cat /tmp/load.out)"
	log "cycle $i: peer lost: $(dmsetup status nm0)"
	# the load goes on without the peer for a moment, then stops
	sleep 0.3
	kill $lp; wait $lp 2>/dev/null
	before=$(nm_status nm0 regions)
	last_rs=$(nm_status nm0 resync_bytes)
	on_peer_wait 120 true || fail "cycle $i: peer did not come back"
	peer_up || fail "cycle $i: recreate the secondary on its old metadata"
	log "cycle $i: peer back: $(on_peer 'dmsetup status nm0')"
	nm_wait_synced nm0 180 || fail "cycle $i: no resync: $(dmsetup status nm0)"
	on_peer ". /tests/lib.sh; . /tests/nmlib.sh; nm_wait_synced nm0 30" || fail "cycle $i: peer state"
	mine=$(dev_sum /dev/vda)
	theirs=$(on_peer ". /tests/lib.sh; dev_sum /dev/vda")
	check_eq "cycle$i/identical" "$theirs" "$mine"
	resent=$(( $(nm_status nm0 resync_bytes) - ${last_rs:-$(nm_status nm0 resync_bytes)} ))
	check "cycle$i/resent-at-most-written" [ "$resent" -le $((16 * 1048576)) ]
	log "cycle $i: in_sync while apart $before, resent $resent bytes (total $(nm_status nm0 resync_bytes)), identical $mine"
	i=$((i + 1))
done
exit 0
