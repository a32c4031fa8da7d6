# Online verify (message "verify"): the two copies compared block by block
# while the application writes.  One VM, both nodes on loopback with
# metadata devices, under each protocol A, B, C (checks <P>/...):
#   - 5 blocks (4 KiB) of the secondary's backing device are overwritten
#     behind netmirror's back (dd oflag=direct on the raw device), in 4
#     regions; a random-write load runs on the primary, in other regions,
#     for the whole verify (the verify compares those regions too: a write
#     in progress must never show as a difference);
#   - verify finds exactly those: verify_diffs 5, the 5 sectors logged,
#     exactly their 4 regions out of sync on the primary, marked on both
#     metadata devices, and no resync on this link;
#   - a disconnect/connect resyncs them; a second verify finds nothing;
#     both backing devices are identical at the end;
#   - a link loss during a verify stops it (status "stopped").
# "nmsetup verify NAME --wait" follows a verify to its end: exit 0 when
# nothing differs, 7 when blocks differ.
# Fails before 1.10 (no verify message).
# vms: 1
# disks: none
# timeout: 900
load_netmirror
. /tests/nmlib.sh
command -v nmsetup >/dev/null || fail "nmsetup not built (make tools)"
brd_setup 32 4
S=$(( $(dev_size /dev/ram0) / 512 ))
# 4 KiB blocks overwritten on the secondary: sectors, and their regions
# (region_size 1024 sectors): 0, 2, 2, 15, 54
BAD="40 2400 2408 16000 56000"
BAD_REGIONS="0 2 15 54"

# bit REGION of the bitmap on metadata device DEV (from byte 4096)
meta_bit() {
	local v
	v=$(od -An -tu1 -j$((4096 + $2 / 8)) -N1 "$1" | tr -d ' ')
	echo $(( (v >> ($2 % 8)) & 1 ))
}

# a random-write load in 16M..24M of nma until /tmp/load.stop exists
load_start() {
	rm -f /tmp/load.stop /tmp/load.rc
	(
		i=1 rc=0
		while [ ! -e /tmp/load.stop ]; do
			pattern write /dev/mapper/nma $i 8M --size 8M --offset 16M --direct --quiet || { rc=1; break; }
			i=$((i + 1))
		done
		echo $rc > /tmp/load.rc
	) &
}

load_stop() {
	touch /tmp/load.stop
	wait_for "[ -e /tmp/load.rc ]" 60 || fail "load did not stop"
	check_eq load-ok "$(cat /tmp/load.rc)" 0
}

# run a verify on nma to its end; $1: the check prefix, $2: the exit
# status of "nmsetup verify nma --wait" (0: none differ, 7: some do)
verify_run() {
	local rc=0
	nmsetup verify nma --wait > /tmp/verify.out 2>&1 || rc=$?
	check_eq "$1/nmsetup-exit" "$rc" "$2" || log "$(cat /tmp/verify.out)"
	check_eq "$1/done" "$(nm_status nma verify)" done
	check "$1/nmsetup-result" grep -q "nma: verify done: $S of $S sectors compared" /tmp/verify.out
	check_eq "$1/all-compared" "$(nm_status nma verify_sectors)" "$S"
	check_eq "$1/total" "$(nm_status nma verify_total)" "$S"
}

round() {
	nm_zero /dev/ram2 /dev/ram3
	pattern write /dev/ram0 11 32M --direct --quiet || fail "seed ram0"
	$DD if=/dev/ram0 of=/dev/ram1 bs=1M iflag=direct oflag=direct status=none || fail "copy"
	nm_local_pair "$P" flush "$S" /dev/ram0 /dev/ram1 "meta /dev/ram2 sync none" "meta /dev/ram3"
	check_eq idle/none-yet "$(nm_status nma verify)" none

	# equal copies, no load: nothing differs
	verify_run clean 0
	check_eq clean/no-diffs "$(nm_status nma verify_diffs)" 0

	# corrupt the secondary behind netmirror's back
	for s in $BAD; do
		$DD if=/dev/urandom of=/dev/ram1 bs=512 count=8 seek="$s" oflag=direct status=none ||
			fail "corrupt sector $s"
	done
	lines=$(dmesg | wc -l)
	load_start
	sleep 1
	verify_run corrupt 7
	load_stop
	check_eq corrupt/diffs "$(nm_status nma verify_diffs)" 5
	log=$(dmesg | tail -n +$((lines + 1)))
	for s in $BAD; do
		check_eq "corrupt/logged-$s" "$(echo "$log" | grep -c ": verify: block at sector $s (4 KiB) differs")" 1
	done
	check_eq corrupt/logged-count "$(echo "$log" | grep -c ": verify: block at sector")" 5
	total=$(nm_status nma total_regions)
	check_eq corrupt/regions-out-of-sync "$(nm_status nma in_sync_regions)" $((total - 4))
	for r in $BAD_REGIONS; do
		check_eq "corrupt/primary-meta-marks-$r" "$(meta_bit /dev/ram2 "$r")" 1
		check_eq "corrupt/secondary-meta-marks-$r" "$(meta_bit /dev/ram3 "$r")" 1
	done
	sleep 2
	check_eq corrupt/no-resync-on-this-link "$(nm_status nma connection)" connected
	check_eq corrupt/still-out-of-sync "$(nm_status nma in_sync_regions)" $((total - 4))
	rate=$(echo "$log" | grep -o "verify done: .*" | tail -1)
	log "$P: $rate"

	# a disconnect/connect repairs exactly those
	rs0=$(nm_status nma resync_bytes)
	echo "$log" | grep -q "verify done: .* 5 blocks differ" || fail "no verify done line"
	lose_link
	dmsetup message nmb 0 connect || fail "connect nmb"
	nm_wait_synced nma 60 || fail "no resync after reconnect: $(dmsetup status nma)"
	nm_wait_synced nmb 30 || fail "nmb not in sync: $(dmsetup status nmb)"
	check_eq repair/resynced-bytes $(( $(nm_status nma resync_bytes) - rs0 )) $((4 * 1024 * 512))
	verify_run again 0
	check_eq again/no-diffs "$(nm_status nma verify_diffs)" 0

	# a link loss stops a running verify
	dmsetup message nma 0 resync_rate 2048 || fail "resync_rate"
	dmsetup message nma 0 verify || fail "verify (link loss)"
	sleep 1
	check_eq linkloss/running "$(nm_status nma verify)" running
	lose_link
	check_eq linkloss/stopped "$(nm_status nma verify)" stopped
	check_fail linkloss/refused-standalone dmsetup message nma 0 verify
	dmsetup message nmb 0 connect || fail "connect nmb"
	nm_wait_synced nma 60 || fail "no reconnect: $(dmsetup status nma)"
	nm_wait_synced nmb 30 || fail "nmb not in sync: $(dmsetup status nmb)"
	check_fail linkloss/refused-on-secondary dmsetup message nmb 0 verify

	check_wait settled 20 "[ \$(nm_status nma pending) = 0 ]"
	nm_local_unpair
	check_eq identical "$(dev_sum /dev/ram1)" "$(dev_sum /dev/ram0)"
}

nm_each_proto round
exit 0
