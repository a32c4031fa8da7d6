# Issue 10, defect 1 (the new user's repro): writes whose peer part is done
# must stay accounted until they are stable on the peer.  Both nodes in
# this VM over 127.0.0.1, the secondary's backing device slowed by dm-delay
# (200 ms per write).  For each protocol A, B, C (flush ordering): three
# rounds of 48 O_DIRECT writes of 64 KiB on the primary (each round in its
# own 16 MiB area), then at once `disconnect` and `connect` on the
# secondary.  After the resync (connected, uptodate/uptodate, N/N) both
# backing devices must be identical and every round's data must be on the
# secondary.  Named checks: dur-disconnect-<P>-identical,
# dur-disconnect-<P>-round<R>-on-secondary, dur-disconnect-<P>-primary-data.
# Under A, today's kernel forgets the writes that were sent but not yet
# written on the secondary: the devices differ while status says in sync.
# vms: 1
# disks: none
# timeout: 420
# mem: 1024
load_netmirror
. /tests/nmlib.sh
. /tests/dur-lib.sh
modprobe dm-delay || fail "modprobe dm-delay"
AREA=16777216
seed=1000
for proto in A B C; do
	brd_setup 64 2		# fresh zeroed disks: "sync none" is true
	dur_delay slow /dev/ram1 200
	dur_pair "$proto" flush /dev/ram0 /dev/mapper/slow sync none
	c=dur-disconnect-$proto
	r=0
	while [ $r -lt 3 ]; do
		pattern write /dev/mapper/nma $((seed + r)) 3M --bs-min 65536 --bs-max 65536 \
			--offset $((r * AREA)) --size $AREA --direct --quiet ||
			fail "$proto round $r: write on the primary"
		dmsetup message nmb 0 disconnect || fail "$proto round $r: disconnect"
		nm_wait_conn nmb standalone 15 || fail "$proto round $r: nmb not standalone: $(dmsetup status nmb)"
		dmsetup message nmb 0 connect || fail "$proto round $r: connect"
		nm_wait_conn nmb connected 30 || fail "$proto round $r: no reconnect: $(dmsetup status nmb)"
		log "$proto round $r: reconnected: nma $(dmsetup status nma | cut -d' ' -f4-10)"
		r=$((r + 1))
	done
	dur_settle 120 || fail "$proto: no settled resync: nma $(dmsetup status nma) | nmb $(dmsetup status nmb)"
	log "$proto settled: nma $(dmsetup status nma | cut -d' ' -f4-)"
	dur_same "$c-identical" /dev/ram0 /dev/ram1
	r=0
	while [ $r -lt 3 ]; do
		if pattern verify /dev/ram1 $((seed + r)) 3M --bs-min 65536 --bs-max 65536 \
			--offset $((r * AREA)) --size $AREA --direct --quiet > /tmp/v.out 2>&1; then
			dur_check "$c-round$r-on-secondary" OK
		else
			dur_check "$c-round$r-on-secondary" FAIL "$(head -c 300 /tmp/v.out)"
		fi
		r=$((r + 1))
	done
	ok=OK
	r=0
	while [ $r -lt 3 ]; do
		pattern verify /dev/ram0 $((seed + r)) 3M --bs-min 65536 --bs-max 65536 \
			--offset $((r * AREA)) --size $AREA --direct --quiet > /tmp/v.out 2>&1 || ok=FAIL
		r=$((r + 1))
	done
	dur_check "$c-primary-data" $ok
	nm_local_unpair
	dmsetup remove slow || fail "remove slow"
	seed=$((seed + 10))
done
dur_end
