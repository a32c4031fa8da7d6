# Application writes during a resync, and the sync modes.
#  - sync full copies a device with different content until both are
#    identical, while a verifying random-write load runs on the primary;
#    in_sync never decreases; the load's data is on both sides at the end.
#  - sync none copies nothing: devices that differed still differ.
#  - pause_resync / resume_resync hold and release a running resync.
# vms: 1
# disks: none
# timeout: 600
load_netmirror
. /tests/nmlib.sh
brd_setup 96 2
S=$(( $(dev_size /dev/ram0) / 512 ))
# different content on the two backing devices
$DD if=/dev/urandom of=/dev/ram1 bs=1M count=96 oflag=direct status=none
pattern write /dev/ram0 5 32M --direct --quiet || fail "seed ram0"
[ "$(dev_sum /dev/ram0)" != "$(dev_sum /dev/ram1)" ] || fail "setup: devices equal"

# sync none: nothing copied
dmsetup create nmb --table "0 $S netmirror /dev/ram1 127.0.0.1:7789 C flush 4 listen 127.0.0.1:7790 sync none" || fail "create nmb"
dmsetup create nma --table "0 $S netmirror /dev/ram0 127.0.0.1:7790 C flush 6 listen 127.0.0.1:7789 role primary sync none" || fail "create nma"
nm_wait_conn nma connected 30 || fail "sync none: no connection"
sleep 2
check_eq sync-none/nothing-copied "$(nm_status nma resync_bytes)" 0
total=$(nm_status nma total_regions)
check_eq sync-none/secondary-in-sync "$(nm_status nmb regions)" "$total/$total"
check sync-none/still-differ [ "$(dev_sum /dev/ram0)" != "$(dev_sum /dev/ram1)" ]
nm_local_unpair
log "sync none: 0 bytes copied, devices still differ"

# sync full with a capped rate, a load running, pause and resume
dmsetup create nmb --table "0 $S netmirror /dev/ram1 127.0.0.1:7789 C flush 4 listen 127.0.0.1:7790 sync full" || fail "create nmb"
check_eq sync-full/fresh-secondary-inconsistent "$(nm_status nmb disks)" inconsistent/unknown
dmsetup create nma --table "0 $S netmirror /dev/ram0 127.0.0.1:7790 C flush 8 listen 127.0.0.1:7789 role primary sync full resync_rate 16384" || fail "create nma"
wait_eval "[ \$(nm_status nma connection) = sync_source ]" 20 || fail "no resync started: $(dmsetup status nma)"
check_wait sync-full/peer-sync-target 5 "[ \$(nm_status nmb connection) = sync_target ]"
check_fail sync-full/promote-inconsistent-refused dmsetup message nmb 0 primary
pattern write /dev/mapper/nma 77 48M --fsync --quiet > /tmp/load.out 2>&1 &
lp=$!
prev=0
paused=0
while :; do
	st=$(dmsetup status nmb)
	cur=$(echo "$st" | nm_status_pick in_sync_regions)
	[ "$cur" -ge "$prev" ] || fail "target in_sync went down: $prev -> $cur"
	prev=$cur
	if [ $paused = 0 ] && [ "$cur" -gt $((total / 4)) ]; then
		dmsetup message nma 0 pause_resync || fail "pause"
		sleep 1
		a=$(nm_status nma resync_bytes); sleep 2; b=$(nm_status nma resync_bytes)
		check_eq sync-full/pause-holds "$b" "$a"
		dmsetup message nma 0 resume_resync || fail "resume"
		paused=1
		log "paused at $cur/$total: no resync bytes for 2 s"
	fi
	echo "$st" | grep -q ' connected ' && [ "$cur" = "$total" ] && break
	sleep 0.3
done
check_eq sync-full/paused "$paused" 1
wait $lp
check_eq sync-full/load-ok "$?" 0 || log "$(cat /tmp/load.out)"
nm_wait_conn nma connected 60 || fail "source not back to connected: $(dmsetup status nma)"
check_wait sync-full/settled 20 "[ \$(nm_status nma pending) = 0 ]"
check_eq sync-full/identical "$(dev_sum /dev/ram1)" "$(dev_sum /dev/ram0)"
check sync-full/load-data-on-secondary pattern verify /dev/ram1 77 48M --direct --quiet
check_eq sync-full/secondary-uptodate "$(nm_status nmb disks)" uptodate/uptodate
log "sync full under load: $(nm_status nma resync_bytes) bytes resynced of $((S * 512)), identical $(dev_sum /dev/ram1)"
nm_local_unpair
exit 0
