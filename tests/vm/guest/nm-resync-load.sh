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
[ "$(nm_field nma 14)" = 0 ] || fail "sync none copied $(nm_field nma 14) bytes"
total=$(nm_field nma 4 | cut -d/ -f2)
[ "$(nm_field nmb 4)" = "$total/$total" ] || fail "sync none: secondary not in sync: $(dmsetup status nmb)"
[ "$(dev_sum /dev/ram0)" != "$(dev_sum /dev/ram1)" ] || fail "sync none: devices became equal"
nm_local_unpair
log "sync none: 0 bytes copied, devices still differ"

# sync full with a capped rate, a load running, pause and resume
dmsetup create nmb --table "0 $S netmirror /dev/ram1 127.0.0.1:7789 C flush 4 listen 127.0.0.1:7790 sync full" || fail "create nmb"
[ "$(nm_field nmb 3)" = inconsistent/unknown ] || fail "fresh secondary with sync full not inconsistent: $(dmsetup status nmb)"
dmsetup create nma --table "0 $S netmirror /dev/ram0 127.0.0.1:7790 C flush 8 listen 127.0.0.1:7789 role primary sync full resync_rate 16384" || fail "create nma"
wait_eval "[ \$(nm_field nma 2) = sync_source ]" 20 || fail "no resync started: $(dmsetup status nma)"
[ "$(nm_field nmb 2)" = sync_target ] || wait_eval "[ \$(nm_field nmb 2) = sync_target ]" 5 || fail "peer not sync_target: $(dmsetup status nmb)"
nm_expect_fail "promote an inconsistent secondary" dmsetup message nmb 0 primary
pattern write /dev/mapper/nma 77 48M --fsync --quiet > /tmp/load.out 2>&1 &
lp=$!
prev=0
paused=0
while :; do
	st=$(dmsetup status nmb)
	cur=$(echo "$st" | awk '{print $7}' | cut -d/ -f1)
	[ "$cur" -ge "$prev" ] || fail "target in_sync went down: $prev -> $cur"
	prev=$cur
	if [ $paused = 0 ] && [ "$cur" -gt $((total / 4)) ]; then
		dmsetup message nma 0 pause_resync || fail "pause"
		sleep 1
		a=$(nm_field nma 14); sleep 2; b=$(nm_field nma 14)
		[ "$a" = "$b" ] || fail "pause_resync did not hold the resync ($a -> $b)"
		dmsetup message nma 0 resume_resync || fail "resume"
		paused=1
		log "paused at $cur/$total: no resync bytes for 2 s"
	fi
	echo "$st" | grep -q ' connected ' && [ "$cur" = "$total" ] && break
	sleep 0.3
done
[ $paused = 1 ] || fail "resync ended before it could be paused"
wait $lp || fail "load failed during resync: $(cat /tmp/load.out)"
nm_wait_conn nma connected 60 || fail "source not back to connected: $(dmsetup status nma)"
wait_eval "[ \$(nm_field nma 7) = 0 ]" 20 || fail "pending writes"
[ "$(dev_sum /dev/ram0)" = "$(dev_sum /dev/ram1)" ] || fail "devices differ after full sync under load"
pattern verify /dev/ram1 77 48M --direct --quiet || fail "load's data wrong on the secondary"
[ "$(nm_field nmb 3)" = uptodate/uptodate ] || fail "secondary not uptodate: $(dmsetup status nmb)"
log "sync full under load: $(nm_field nma 14) bytes resynced of $((S * 512)), identical $(dev_sum /dev/ram1)"
nm_local_unpair
exit 0
