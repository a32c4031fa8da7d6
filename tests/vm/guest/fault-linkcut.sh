# Link cuts under a verifying random-write load (two VMs, protocol C).
# Phase 1: nm_cycles cuts (default 8) of a random length in
# [nm_cut_min_ms, nm_cut_max_ms] (default 100..3000) of eth0, alternately on
# node a (the primary) and node b, while node a runs a loop of "pattern
# write" (a new seed each time, in one of four 8 MiB windows) each followed
# by "pattern verify" through the device.  Then: connected and in sync, the
# backing devices identical (mismatched 64 KiB blocks counted), the last
# seed of every window verified on both backing devices.
# Phase 2 (slow/lossy): the secondary's backing device under dm-delay (every
# write delayed nm_delay_ms, default 20), nm_slow_cycles cuts (default 5)
# plus bursts of 20-100 ms flaps (the guest has no tc/netem); identical at
# the end.  tests/vm/soak-linkcut.sh runs it with >= 200 cycles, 0.1-10 s.
# vms: 2
# disks: none
# timeout: 1200
load_netmirror
. /tests/nmlib.sh
cycles=${nm_cycles:-8}
cmin=${nm_cut_min_ms:-100}
cmax=${nm_cut_max_ms:-3000}
slow_cycles=${nm_slow_cycles:-5}
delay_ms=${nm_delay_ms:-20}
brd_setup 32 1
on_peer ". /tests/lib.sh; load_netmirror; brd_setup 32 1" || fail "peer setup"
S=$(( $(dev_size /dev/ram0) / 512 ))
W=$((8 * 1048576))
RNG=$(( $(cut -d' ' -f1 /proc/uptime | tr -d .) % 100000 ))
log "seed $RNG: $cycles cycles of ${cmin}..${cmax} ms, then $slow_cycles slow cycles (dm-delay ${delay_ms} ms)"
R=0
rand() { # rand MIN MAX: sets R (no subshell: the state must advance)
	RNG=$(( (RNG * 1103515245 + 12345) % 2147483648 ))
	R=$(( $1 + (RNG / 7) % ($2 - $1 + 1) ))
}
faults=0 flaps=0

cut_link() { # cut_link MS SIDE
	local s
	s=$(awk -v m="$1" 'BEGIN { printf "%.3f", m / 1000 }')
	link_cut "$s" "$2" || fail "could not reach node b to cut the link"
	faults=$((faults + 1))
}

# the verifying load: write a seed into a window, verify it, next seed
load_start() {
	rm -f /tmp/stop /tmp/loadfail /tmp/loadlast
	(
		i=${1:-0}
		while [ ! -f /tmp/stop ]; do
			i=$((i + 1))
			off=$(( (i % 4) * W ))
			if ! pattern write /dev/mapper/nm0 "$i" 1M --size $W --offset $off --direct --quiet; then
				echo "write seed $i failed" > /tmp/loadfail; break
			fi
			if ! pattern verify /dev/mapper/nm0 "$i" 1M --size $W --offset $off --direct --quiet; then
				echo "verify seed $i failed" > /tmp/loadfail; break
			fi
			echo "$i" > /tmp/loadlast
		done
	) &
	loadpid=$!
}
load_stop() {
	touch /tmp/stop
	wait $loadpid
	[ -f /tmp/loadfail ] && fail "load: $(cat /tmp/loadfail)"
	last=$(cat /tmp/loadlast 2>/dev/null || echo 0)
}

# identical backing devices; on a difference, count the 64 KiB blocks
compare() { # compare WHAT PEERDEV
	local a b bad
	a=$(dev_sum /dev/ram0)
	b=$(on_peer ". /tests/lib.sh; dev_sum $2") || fail "$1: peer checksum"
	if [ "$a" != "$b" ]; then
		blocks() { i=0; while [ $i -lt $((S / 128)) ]; do $DD if=$1 bs=64k skip=$i count=1 iflag=direct status=none | $MD5SUM | cut -c1-8; i=$((i + 1)); done; }
		blocks /dev/ram0 > /tmp/blk.a
		on_peer ". /tests/lib.sh; i=0; while [ \$i -lt $((S / 128)) ]; do \$DD if=$2 bs=64k skip=\$i count=1 iflag=direct status=none | \$MD5SUM | cut -c1-8; i=\$((i + 1)); done" > /tmp/blk.b
		bad=$(paste /tmp/blk.a /tmp/blk.b | awk '$1 != $2' | wc -l)
		check_bad "$1/identical" "backing devices differ in $bad of $((S / 128)) 64 KiB blocks: $(dmsetup status nm0); peer $(on_peer 'dmsetup status nm0')"
	else
		check_ok "$1/identical"
	fi
	# the last seed of each window is intact on both sides
	local j=$last k=0
	while [ $k -lt 4 ] && [ $j -gt 0 ]; do
		check "$1/seed-$k-back/a" pattern verify /dev/ram0 $j 1M --size $W --offset $(( (j % 4) * W )) --direct --quiet
		check "$1/seed-$k-back/b" on_peer "pattern verify $2 $j 1M --size $W --offset $(( (j % 4) * W )) --direct --quiet"
		j=$((j - 1)) k=$((k + 1))
	done
	log "$1: identical ($a), last seeds verified on both"
}

settle() { # settle WHAT: link up, connected, in sync on both
	wait_for "ip link show eth0 | grep -q 'state UP\|,UP'" 30 || true
	nm_wait_synced nm0 180 || fail "$1: no reconnect/resync: $(dmsetup status nm0)"
	on_peer_wait 60 ". /tests/lib.sh; . /tests/nmlib.sh; nm_wait_synced nm0 60" ||
		fail "$1: peer not in sync: $(on_peer 'dmsetup status nm0')"
}

run_cycles() { # run_cycles WHAT N MIN MAX
	local n=0 ms side t0 gap
	while [ $n -lt "$2" ]; do
		n=$((n + 1))
		rand "$3" "$4"; ms=$R
		if [ $((n % 2)) = 1 ]; then side=a; else side=b; fi
		t0=$(now_ms)
		cut_link "$ms" $side
		sleep "$(awk -v m="$ms" 'BEGIN { printf "%.3f", m / 1000 }')"
		[ -f /tmp/loadfail ] && fail "$1 cycle $n: load: $(cat /tmp/loadfail)"
		# the link is back: node b must be reachable again (a cut on b ends there)
		wait_for "ip link show eth0 | grep -q ',UP'" 10 || fail "$1 cycle $n: eth0 still down"
		rand 0 800; gap=$R
		sleep "$(awk -v m="$gap" 'BEGIN { printf "%.3f", m / 1000 }')"
		echo "NMLOG: $1 cycle $n: cut ${ms} ms on node $side; $(dmsetup status nm0 | cut -d' ' -f4-7,14)"
	done
}

kmsg_conn() { dmesg | grep -c "netmirror: .*: connected to"; }

# ---- phase 1: plain link ----
on_peer "dmsetup create nm0 --table '0 $S netmirror /dev/ram0 169.254.0.1:7789 C flush'" || fail "peer create"
dmsetup create nm0 --table "0 $S netmirror /dev/ram0 169.254.0.2:7789 C flush 2 role primary" || fail "create"
nm_wait_synced nm0 120 || fail "initial sync: $(dmsetup status nm0)"
c0=$(kmsg_conn) t0=$(now_ms)
load_start 0
run_cycles plain "$cycles" "$cmin" "$cmax"
# one cut longer than the peer timeout (6 s): link lost, reconnect, resync
run_cycles long 1 "${nm_long_cut_ms:-8000}" "${nm_long_cut_ms:-8000}"
load_stop
settle plain
compare plain /dev/ram0
reconn=$(( $(kmsg_conn) - c0 ))
check plain/long-cut-drops-link [ "$reconn" -ge 1 ]
log "plain: $cycles cuts + 1 long (${cmin}..${cmax} ms) in $(( ($(now_ms) - t0) / 1000 )) s, $last seeds written+verified, $reconn reconnects, 0 mismatched blocks"

# ---- phase 2: slow secondary disk (dm-delay) + flapping link ----
if [ "$slow_cycles" -gt 0 ]; then
	dmsetup remove nm0 || fail "remove nm0"
	on_peer "dmsetup remove nm0 && modprobe dm-delay && dmsetup create slow --table '0 $S delay /dev/ram0 0 0 /dev/ram0 0 $delay_ms' && dmsetup create nm0 --table '0 $S netmirror /dev/mapper/slow 169.254.0.1:7789 C flush 2 sync none'" ||
		fail "peer: dm-delay under the secondary"
	# both disks are identical here (checked above): no initial copy
	dmsetup create nm0 --table "0 $S netmirror /dev/ram0 169.254.0.2:7789 C flush 4 role primary sync none" || fail "create (slow)"
	nm_wait_synced nm0 60 || fail "slow: connect: $(dmsetup status nm0)"
	c0=$(kmsg_conn) t0=$(now_ms)
	load_start "$last"
	n=0
	while [ $n -lt "$slow_cycles" ]; do
		n=$((n + 1))
		run_cycles "slow-$n" 1 "$cmin" "$cmax"
		# a burst of short flaps (lossy link)
		rand 3 8; k=$R
		while [ $k -gt 0 ]; do
			rand 20 100; ms=$R
			ip link set eth0 down; sleep "$(awk -v m="$ms" 'BEGIN { printf "%.3f", m / 1000 }')"; ip link set eth0 up
			rand 1 3; sleep 0.$R
			flaps=$((flaps + 1)) k=$((k - 1))
		done
	done
	load_stop
	settle slow
	compare slow /dev/mapper/slow
	compare slow-raw /dev/ram0
	log "slow: $slow_cycles cuts + $flaps flaps with ${delay_ms} ms write delay on the secondary, $(( $(kmsg_conn) - c0 )) reconnects, 0 mismatched blocks"
	on_peer "dmsetup remove nm0 && dmsetup remove slow" || fail "peer remove"
else
	on_peer "dmsetup remove nm0" || fail "peer remove"
fi
dmsetup remove nm0 || fail "remove"
log "linkcut: $((faults + flaps)) faults injected ($faults cuts, $flaps flaps), $last seeds, 0 mismatches"
exit 0
