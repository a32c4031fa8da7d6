# Issue 10, "teardown": removing a node and dropping a link must neither
# crash nor hang.  Both nodes in this VM over 127.0.0.1.
#
# remove/<P>/...: for each protocol A, B, C, dur_rounds (default 17, 17,
# 16: 50 in all) rounds of `dmsetup remove nmb` (the secondary) while the
# primary runs a random O_DIRECT write load (pattern, 4 KiB..256 KiB), at a
# random moment 0..1.5 s after nmb was created (connecting or resyncing) or,
# every 4th round, after its resync ended (connected), then nmb created again (no metadata, "sync none": the
# primary's bitmap and transfer log say what it missed).  The harness fails
# the test on any oops, WARNING or hung task (dmesg).  Checks:
#   removes     every remove succeeded (the slowest is logged)
#   writer      the load on the primary never failed
#   identical   after the last round and the resync: both backing devices
#               byte-identical
#
# trickle/...: `disconnect` on the primary while its sender is blocked on a
# full socket and the peer is alive but does not read: protocol A (the
# primary waits for no write ack), timeout 4000 ping 1000, the secondary's
# disk under dm-delay with 1 s writes, a serial burst of 4 KiB O_DIRECT
# writes on the primary: every write is an epoch of its own, the secondary
# drains and flushes before it reads the next (one write a second, each
# barrier acknowledged well within timeout), the socket buffers fill and the
# primary's sender sits in a blocked send.  Checks:
#   stalled          the primary's bytes_sent unchanged for 1.5 s, the burst
#                    running, the link connected (the sender is blocked)
#   disconnect-time  `dmsetup message nma 0 disconnect` returned within
#                    timeout + 2 s (milliseconds measured in /proc/uptime)
#   standalone       the primary is standalone right after
#   identical        after the delay is lifted, connect, resync: identical
# vms: 1
# disks: none
# timeout: 420
# mem: 1024
load_netmirror
. /tests/nmlib.sh
. /tests/dur-lib.sh
. /tests/dur-power-lib.sh
modprobe dm-delay || fail "modprobe dm-delay"

table_b() {
	echo "0 $(( $(dev_size /dev/ram0) / 512 )) netmirror /dev/ram1 127.0.0.1:7789 $P flush 4 listen 127.0.0.1:7790 sync none"
}

seed=3000
for P in A B C; do
	case $P in A|B) rounds=${dur_rounds:-17} ;; C) rounds=${dur_rounds:-16} ;; esac
	brd_setup 64 2
	nm_local_pair "$P" flush "" /dev/ram0 /dev/ram1 "sync none" "sync none"
	rm -f /tmp/stop /tmp/wfail
	(
		i=0
		while [ ! -f /tmp/stop ]; do
			pattern write /dev/mapper/nma $((seed + i)) 2M --bs-min 4096 --bs-max 262144 --direct --quiet ||
				echo "pattern write seed $((seed + i)) failed" >> /tmp/wfail
			i=$((i + 1))
		done
	) &
	wp=$!
	bad="" maxms=0 states=""
	r=1
	while [ $r -le "$rounds" ]; do
		# every 4th round once the resync is over (connected), else at once
		[ $((r % 4)) = 0 ] && nm_wait_synced nmb 30
		sleep "$(awk -v r="$RANDOM" 'BEGIN { printf "%.3f", (r % 1500) / 1000 }')"
		st=$(nm_status nmb connection)
		states="$states $st"
		t0=$(now_ms)
		if ! out=$(dmsetup remove nmb 2>&1); then
			bad="$bad round $r ($st): $out;"
			break
		fi
		t1=$(now_ms)
		[ $((t1 - t0)) -gt $maxms ] && maxms=$((t1 - t0))
		dmsetup create nmb --table "$(table_b)" || fail "$P round $r: create nmb again"
		r=$((r + 1))
	done
	touch /tmp/stop
	wait $wp
	log "$P: $((r - 1)) removes of the secondary, slowest ${maxms} ms; its states at the remove:$states"
	if [ -z "$bad" ]; then check_ok "remove/$P/removes"; else check_bad "remove/$P/removes" "$bad"; fi
	if [ -s /tmp/wfail ]; then
		check_bad "remove/$P/writer" "$(head -c 300 /tmp/wfail)"
	else
		check_ok "remove/$P/writer"
	fi
	if dur_settle 120; then
		dur_same "remove/$P/identical" /dev/ram0 /dev/ram1
	else
		check_bad "remove/$P/identical" "no settled resync: nma $(dmsetup status nma) | nmb $(dmsetup status nmb)"
	fi
	nm_local_unpair
	seed=$((seed + 1000))
done

# --- disconnect on the primary behind a blocked send
P=A
TMO=4000
brd_setup 64 2
dur_delay slow /dev/ram1 1000
nm_local_pair A flush "" /dev/ram0 /dev/mapper/slow "sync none timeout $TMO ping 1000" "sync none timeout $TMO ping 1000"
$DD if=/dev/urandom of=/dev/mapper/nma bs=4k count=12288 oflag=direct status=none 2> /tmp/burst.err &
bp=$!
# blocked: bytes_sent unchanged for 1.5 s (three polls) while the burst
# runs and the link is up: the sender sits in a send on a full socket
prev=-1 same=0 i=0
while [ $i -lt 60 ]; do
	sleep 0.5
	cur=$(nm_status nma bytes_sent)
	if [ "$cur" = "$prev" ]; then same=$((same + 1)); else same=0; fi
	prev=$cur
	[ $same -ge 3 ] && break
	i=$((i + 1))
done
conn=$(nm_status nma connection)
b2=$cur
if [ $same -ge 3 ] && [ "$conn" = connected ] && kill -0 $bp 2>/dev/null; then
	check_ok trickle/stalled
else
	check_bad trickle/stalled "not the intended state: bytes_sent $cur (unchanged for $same polls), burst running: $(kill -0 $bp 2>/dev/null && echo yes || echo no), connection $conn, last_error $(nm_status nma last_error)"
fi
log "trickle: bytes_sent stuck at $b2 for $((same / 2)).$((same % 2 * 5)) s, nmb writes_received $(nm_status nmb writes_received), nma pending $(nm_status nma pending); disconnecting"
t0=$(now_ms)
dmsetup message nma 0 disconnect
rc=$?
t1=$(now_ms)
ms=$((t1 - t0))
log "trickle: disconnect returned $rc after $ms ms (limit $((TMO + 2000)) ms)"
if [ $rc = 0 ] && [ $ms -le $((TMO + 2000)) ]; then
	check_ok trickle/disconnect-time
else
	check_bad trickle/disconnect-time "rc $rc after $ms ms, limit $((TMO + 2000)) ms"
fi
check_wait trickle/standalone 5 "[ \"\$(nm_status nma connection)\" = standalone ]"
# lift the delay: the delayed writes go at suspend, the new table has none
S=$(( $(dev_size /dev/ram1) / 512 ))
dmsetup load slow --table "0 $S delay /dev/ram1 0 0 /dev/ram1 0 0 /dev/ram1 0 0" &&
	dmsetup suspend slow && dmsetup resume slow || fail "trickle: lift the delay"
wait $bp || fail "trickle: the burst failed: $(cat /tmp/burst.err)"
dmsetup message nma 0 connect || fail "trickle: connect"
if dur_settle 120; then
	dur_same trickle/identical /dev/ram0 /dev/ram1
else
	check_bad trickle/identical "no settled resync: nma $(dmsetup status nma) | nmb $(dmsetup status nmb)"
fi
nm_local_unpair
dmsetup remove slow || fail "remove slow"
exit 0
