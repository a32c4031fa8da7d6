# Issue 10, defect 1 (the new user's repro): writes whose peer part is done
# must stay accounted until they are stable on the peer.  Both nodes in
# this VM over 127.0.0.1, the secondary's backing device slowed by dm-delay
# (200 ms per write; none under C, see below).  For each protocol A, B, C
# (flush ordering, "sync none" on zeroed disks): three rounds of 16
# O_DIRECT writes of 192 KiB on the primary (each round in its own 16 MiB
# area; under A and B each write opens an epoch whose barrier the secondary
# drains, so a round takes 16 x 200 ms: 48 writes of 64 KiB took 10 s),
# then at once
# `disconnect` and `connect` on the secondary (dur_fault=suspend:
# `dmsetup suspend` and `resume` of it, see dur-suspend).  After the resync
# (connected, uptodate/uptodate, N/N):
#   <P>/identical         both backing devices byte-identical (cmp; on a
#                         difference: their sha256 and the differing regions)
#   <P>/round<R>/secondary   round R's data is on the secondary's disk
#   <P>/primary-data      every round's data is on the primary's disk
#   A/round<R>/unconfirmed   status "unconfirmed" > 0 right after the
#                         round's writes (the secondary still drains them)
#   <P>/confirmed         "unconfirmed" back to 0 once settled
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
fault=${dur_fault:-disconnect}	# or suspend (dur-suspend)

# pattern write|verify DEV of round R (16 x 192 KiB in area R)
round_io() {
	pattern "$1" "$2" $((seed + $3)) 3M --bs-min 196608 --bs-max 196608 \
		--offset $(($3 * AREA)) --size $AREA --direct --quiet
}

seed=1000
for P in A B C; do
	brd_setup 64 2		# fresh zeroed disks: "sync none" is true
	# Under C a write completes only once the secondary wrote it, and the
	# writes are one at a time: nothing is left in flight on the secondary
	# when the rounds cut the link, whatever the delay.  So C runs with no
	# delay (the same case; 200 ms cost it 29 s), A and B with 200 ms, where
	# acknowledged writes still sit in dm-delay at the cut.
	dur_delay slow /dev/ram1 "$([ "$P" = C ] && echo 0 || echo 200)"
	nm_local_pair "$P" flush "" /dev/ram0 /dev/mapper/slow "sync none" "sync none"
	for r in 0 1 2; do
		round_io write /dev/mapper/nma $r || fail "$P round $r: write on the primary"
		# under A the secondary still drains 16 x 200 ms: all unconfirmed
		[ "$P" = A ] && check "$P/round$r/unconfirmed" \
			[ "$(nm_status nma unconfirmed)" -gt 0 ]
		if [ "$fault" = suspend ]; then
			dmsetup suspend nmb || fail "$P round $r: suspend nmb"
			dmsetup resume nmb || fail "$P round $r: resume nmb"
		else
			dmsetup message nmb 0 disconnect || fail "$P round $r: disconnect"
			nm_wait_conn nmb standalone 15 || fail "$P round $r: nmb not standalone: $(dmsetup status nmb)"
			dmsetup message nmb 0 connect || fail "$P round $r: connect"
		fi
		nm_wait_conn nmb connected 30 || fail "$P round $r: no reconnect: $(dmsetup status nmb)"
		log "$P round $r: reconnected: nma $(dmsetup status nma | cut -d' ' -f4-10)"
	done
	dur_settle 120 || fail "$P: no settled resync: nma $(dmsetup status nma) | nmb $(dmsetup status nmb)"
	log "$P settled: nma $(dmsetup status nma | cut -d' ' -f4-)"
	check "$P/confirmed" nm_wait_confirmed nma 10
	dur_same "$P/identical" /dev/ram0 /dev/ram1
	for r in 0 1 2; do
		check "$P/round$r/secondary" round_io verify /dev/ram1 $r
	done
	check "$P/primary-data" eval 'round_io verify /dev/ram0 0 && round_io verify /dev/ram0 1 && round_io verify /dev/ram0 2'
	nm_local_unpair
	dmsetup remove slow || fail "remove slow"
	seed=$((seed + 10))
done
exit 0
