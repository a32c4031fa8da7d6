# Issue 10, "ordering contract": with flush ordering, a write Y submitted
# on the primary after a write X completed there is never on the
# secondary's stable storage without X.  Both nodes in this VM over
# 127.0.0.1.  The secondary's backing device: dm-log-writes (the log on a
# brd) over a device that reorders: alternate 1 MiB segments of a brd
# through dm-delay (writes 20 ms) and dm-linear, so a later write to a fast
# segment completes before an earlier one to a slow segment unless the
# secondary drains in between.  dm-log-writes logs a write once stable (a
# plain write when a later flush completed, a FUA write when it completed).
# For each protocol A, B, C ("sync none" on zeroed disks): a serial tagged
# writer on the primary (seqw: O_DIRECT 4 KiB writes to distinct blocks
# spread over 16 MiB, every second one O_DSYNC, each carrying its sequence
# number, the next submitted only when the previous completed) for
# dur_load_s seconds (default 12) while `dmsetup message nma 0 primary` is
# sent again and again (a repeated role message must not skip a barrier).
# Then the log is replayed (logreplay, src/) onto a zeroed brd, and at every
# FLUSH and FUA entry (each a state a power cut could leave) the writes
# present must be a prefix 0..k of the sequence.
# The checker itself first, on a log of blocks copied in a known order:
#   checker/in-order      0, 1, 2 with flushes: no violation
#   checker/out-of-order  1, flush, 0, flush, 2: the violation is found
# and in place (control/A-none/...): protocol A with ordering "none" (no
# barriers) on the same devices: the reordering shows (order-violated).
# Checks, named <P>/...:
#   role-messages   every repeated "primary" message succeeded
#   order           no state with write n+1 (any sector) while write n is
#                   incomplete (logreplay --seq-check: the first violations)
#   stable-points   the log has at least one stable point per 4 writes (the
#                   check had states to look at)
#   secondary-data  every write the writer saw complete reaches the
#                   secondary's disk (within 120 s: under A it may lag)
#   replay-complete the whole log replayed equals the secondary's disk (the
#                   replayer and the log are right)
#   identical       both backing devices byte-identical
# vms: 1
# disks: none
# timeout: 300
# mem: 1024
load_netmirror
. /tests/nmlib.sh
. /tests/dur-lib.sh
. /tests/dur-power-lib.sh
modprobe dm-log-writes || fail "modprobe dm-log-writes"
LOAD_S=${dur_load_s:-12}
AREA=16M

# the checker: seqw blocks 0..3 (--linear: block i holds write i) on ram3,
# copied through a log-writes device in a chosen order, a flush after each;
# selftest ORDER WANT: logreplay --seq-check exits WANT (0 clean, 1 violation)
selftest() {
	local order=$1 want=$2 b out rc
	brd_setup 8 4
	seqw write /dev/ram3 7 --size 1M --linear --count 4 --quiet || fail "checker: seqw"
	dmsetup create logt --table "0 $(( $(dev_size /dev/ram1) / 512 )) log-writes /dev/ram1 /dev/ram2" || fail "checker: log-writes"
	for b in $order; do
		$DD if=/dev/ram3 of=/dev/mapper/logt bs=4096 skip="$b" seek="$b" count=1 iflag=direct oflag=direct conv=fsync,notrunc status=none ||
			fail "checker: copy block $b"
	done
	dmsetup remove logt || fail "checker: remove log-writes"
	out=$(logreplay /dev/ram2 --seq-check 7 --bs 4096 2>&1)
	rc=$?
	echo "$out"
	echo "$out" | grep -q "(3 writes, 3 flushes," || return 2
	[ $rc = "$want" ]
}
check checker/in-order selftest "0 1 2" 0
check checker/out-of-order selftest "1 0 2" 1
log "checker: $(selftest "1 0 2" 1 | head -n 1)"

# mix: alternate 1 MiB segments of /dev/ram1 slow (dm-delay, writes 20 ms)
# and fast (dm-linear)
mix_table() {
	local sz seg=2048 o=0 i=0
	sz=$(( $(dev_size /dev/ram1) / 512 ))
	while [ $o -lt "$sz" ]; do
		if [ $((i % 2)) = 0 ]; then
			echo "$o $seg delay /dev/ram1 $o 0 /dev/ram1 $o 20 /dev/ram1 $o 0"
		else
			echo "$o $seg linear /dev/ram1 $o"
		fi
		o=$((o + seg))
		i=$((i + 1))
	done
}

# one run: NAME PROTO ORDERING
run() {
	local name=$1 P=$2 ord=$3 wp rp n out rc pts
	brd_setup 32 4		# ram0 primary, ram1 secondary (under mix and the log), ram2 log, ram3 replay
	mix_table > /tmp/mix.table
	dmsetup create mix < /tmp/mix.table || fail "$name: mix device"
	dmsetup create logw --table "0 $(( $(dev_size /dev/ram1) / 512 )) log-writes /dev/mapper/mix /dev/ram2" ||
		fail "$name: dm-log-writes"
	nm_local_pair "$P" "$ord" "" /dev/ram0 /dev/mapper/logw "sync none" "sync none"
	dmsetup message logw 0 mark start || fail "$name: mark"
	rm -f /tmp/stop /tmp/w.* /tmp/rolefail /tmp/rolen
	seqw write /dev/mapper/nma "$seed" --size $AREA --sync-every 2 --log /tmp/w --stop /tmp/stop --quiet > /tmp/w.out 2>&1 &
	wp=$!
	(
		n=0
		while [ ! -f /tmp/stop ]; do
			dmsetup message nma 0 primary 2>> /tmp/rolefail || echo "message $n failed" >> /tmp/rolefail
			n=$((n + 1))
			echo $n > /tmp/rolen
		done
	) &
	rp=$!
	sleep "$LOAD_S"
	touch /tmp/stop
	wait $wp || fail "$name: the writer failed: $(cat /tmp/w.out)"
	wait $rp
	n=$(seqw_acked /tmp/w 1)
	if [ -s /tmp/rolefail ]; then
		check_bad "$name/role-messages" "$(head -c 300 /tmp/rolefail)"
	else
		log "$name: $(cat /tmp/rolen) repeated primary messages during $n writes"
		check_ok "$name/role-messages"
	fi
	# under A the secondary may still be writing what the primary completed
	check_wait "$name/secondary-data" 120 "seqw verify /dev/mapper/logw $seed --size $AREA --log /tmp/w --quiet" ||
		log "$name: $(seqw verify /dev/mapper/logw "$seed" --size $AREA --log /tmp/w | tail -n 2)"
	dur_settle 60 || fail "$name: no settled pair: nma $(dmsetup status nma) | nmb $(dmsetup status nmb)"
	dur_same "$name/identical" /dev/ram0 /dev/ram1
	nm_local_unpair
	dmsetup remove logw || fail "$name: remove logw"
	dmsetup remove mix || fail "$name: remove mix"
	out=$(logreplay /dev/ram2 --replay /dev/ram3 --seq-check "$seed" --bs 4096 2>&1)
	rc=$?
	log "$name: $(echo "$out" | tr '\n' ' ')"
	if [ "$ord" = flush ]; then
		case $rc in
		0) check_ok "$name/order" ;;
		1) check_bad "$name/order" "$(echo "$out" | head -n 3 | tr '\n' ' ')" ;;
		*) fail "$name: logreplay: $out" ;;
		esac
	else
		case $rc in
		1) check_ok "$name/order-violated" ;;
		0) check_bad "$name/order-violated" "no reordering seen without barriers: the order check proves nothing here: $out" ;;
		*) fail "$name: logreplay: $out" ;;
		esac
	fi
	pts=$(echo "$out" | sed -n 's/^seq-check: \([0-9]*\) stable points.*/\1/p')
	if [ "${pts:-0}" -ge $((n / 4)) ] && [ "$n" -gt 50 ]; then
		check_ok "$name/stable-points"
	else
		check_bad "$name/stable-points" "${pts:-?} stable points for $n writes"
	fi
	check "$name/replay-complete" eval 'dur_copy /dev/ram3 /dev/ram1 && $CMP /tmp/dur_a /tmp/dur_b'
	rm -f /tmp/dur_a /tmp/dur_b
	seed=$((seed + 1))
}

seed=500
for P in ${dur_protos:-A B C}; do
	run "$P" "$P" flush
done
[ -n "${dur_nocontrol:-}" ] || run control/A-none A none
exit 0
