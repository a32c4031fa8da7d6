# Issue 10, "power loss with a volatile cache": a node's backing device
# loses its unflushed writes mid-load.  Both nodes in this VM over
# 127.0.0.1, each on a cached configfs null_blk (guest-lib/dur-power-lib.sh:
# 32 MiB, cache as big, power 0 frees the cache unwritten).
#
# First the model itself (6.1 null_blk, read in drivers/block/null_blk/
# main.c and checked here): 64 O_DIRECT writes then fsync, 64 O_DIRECT|
# O_DSYNC writes, 64 O_DIRECT writes without a flush; power 0, power 1:
#   nullblk/flushed-kept   nullblk/dsync-kept   nullblk/unflushed-dropped
#
# Then for each protocol A, B, C (flush ordering, "sync none" on zeroed
# disks, timeout 2000 ping 500) and each case <side>-<meta>:
#   sec-meta / sec-nometa   the secondary loses power (with its metadata
#                           device on a separate non-volatile brd, and without)
#   pri-meta / pri-nometa   the primary loses power (metadata on brd; without:
#                           recreated with "sync full", a restart being a
#                           first connection)
# a load of durable writes on the primary (seqw: 4 jobs, 4 KiB O_DIRECT|
# O_DSYNC, each write logged with its sequence number when it returned;
# --linear: the load moves through the device, so the regions written early
# are confirmed stable and must not need the resync),
# then the cut: the writers' logs are copied (= acknowledged before the
# cut), the wire freezes (lo down: nothing the dying node does reaches its
# peer), the node's null_blk loses power, its netmirror is removed, the
# survivor sees the link dead, the wire comes back, power comes back, the
# node's netmirror is created again on the same disks; resync.
# Checks, named <P>/<case>/...:
#   cut/primary     right after the cut, every write acknowledged before it
#                   is on the primary's disk (every protocol, both cases)
#   cut/secondary   the same on the secondary's disk, where the protocol
#                   promises it (docs/design.md, "What each protocol
#                   promises"): under C (FUA/flush applied there before
#                   the ack); under A and B only logged
#   resynced/primary, resynced/secondary   after the resync every write
#                   acknowledged before the cut (secondary cut: every write
#                   acknowledged at all) is on both disks
#   identical       both backing devices byte-identical (dur_same)
# vms: 1
# disks: none
# timeout: 420
# mem: 1024
load_netmirror
. /tests/nmlib.sh
. /tests/dur-lib.sh
. /tests/dur-power-lib.sh
MB=32
J=4
LOAD_MS=${dur_load_ms:-2500}
NMOPTS="timeout 2000 ping 500"

# --- the model: does null_blk really drop what was not flushed?
nl_create nlx 16
seqw write /dev/nlx 11 --size 4M --count 64 --log /tmp/nx1 --quiet &&
	$DD if=/dev/null of=/dev/nlx conv=fsync,notrunc status=none || fail "nullblk: write + fsync"
seqw write /dev/nlx 12 --size 4M --offset 4M --count 64 --sync --log /tmp/nx2 --quiet || fail "nullblk: O_DSYNC writes"
seqw write /dev/nlx 13 --size 4M --offset 8M --count 64 --log /tmp/nx3 --quiet || fail "nullblk: unflushed writes"
check nullblk/before seqw verify /dev/nlx 13 --size 4M --offset 8M --log /tmp/nx3
nl_power nlx 0
nl_power nlx 1
check nullblk/flushed-kept seqw verify /dev/nlx 11 --size 4M --log /tmp/nx1
check nullblk/dsync-kept seqw verify /dev/nlx 12 --size 4M --offset 4M --log /tmp/nx2
check_fail nullblk/unflushed-dropped seqw verify /dev/nlx 13 --size 4M --offset 8M --log /tmp/nx3 ||
	fail "null_blk kept unflushed writes over a power cycle: no volatile cache to test with"
log "nullblk: $(seqw verify /dev/nlx 13 --size 4M --offset 8M --log /tmp/nx3 | tail -n 1)"
nl_destroy nlx

# options of node a or b: KIND = meta|nometa, SYNC = none|full
opts() {
	echo "$([ "$2" = meta ] && echo "meta /dev/ram$([ "$1" = a ] && echo 0 || echo 1) ")sync $3 $NMOPTS"
}

table_b() {
	local w
	w="listen 127.0.0.1:7790 $(opts b "$1" none)"
	# shellcheck disable=SC2086
	echo "0 $((MB * 2048)) netmirror /dev/nlb 127.0.0.1:7789 $P flush $(echo $w | wc -w) $w"
}

table_a() {
	local w
	w="listen 127.0.0.1:7789 role primary $(opts a "$1" "$2")"
	# shellcheck disable=SC2086
	echo "0 $((MB * 2048)) netmirror /dev/nla 127.0.0.1:7790 $P flush $(echo $w | wc -w) $w"
}

# verify the writes listed in LOG on DEV: check NAME, or (LOGONLY) a log line
verify() {
	local name=$1 dev=$2 lg=$3 out rc
	out=$(seqw verify "$dev" "$seed" --size ${MB}M --jobs $J --linear --log "$lg" 2>&1)
	rc=$?
	if [ "${4:-}" = logonly ]; then
		log "$name (not promised): $(echo "$out" | tail -n 2 | tr '\n' ' ')"
	elif [ $rc = 0 ]; then
		log "$name: $out"
		check_ok "$name"
	else
		check_bad "$name" "$(echo "$out" | tail -n 3 | tr '\n' ' ')"
	fi
}

# scenario SIDE META: one power cut of SIDE (sec|pri), meta|nometa
scenario() {
	local side=$1 meta=$2 name wp acked t0 t1 i
	name=$P/$side-$meta
	nl_create nla $MB
	nl_create nlb $MB
	brd_setup 4 2
	nm_local_pair "$P" flush "" /dev/nla /dev/nlb "$(opts a "$meta" none)" "$(opts b "$meta" none)"
	rm -f /tmp/stop /tmp/w.* /tmp/c.*
	seqw write /dev/mapper/nma "$seed" --size ${MB}M --jobs $J --linear --sync --log /tmp/w --stop /tmp/stop --quiet > /tmp/w.out 2>&1 &
	wp=$!
	sleep "$(awk -v m="$LOAD_MS" 'BEGIN { printf "%.3f", m / 1000 }')"
	# the cut: what was acknowledged until now, then wire and power
	seqw_snap /tmp/w $J /tmp/c
	wire_cut
	t0=$(now_ms)
	if [ "$side" = sec ]; then
		nl_power nlb 0
		dmsetup remove nmb || fail "$name: remove nmb after its power cut"
		wait_eval "[ \"\$(nm_status nma connection)\" != connected ]" 30 ||
			fail "$name: the primary did not see the link die: $(dmsetup status nma)"
		t1=$(now_ms)
		touch /tmp/stop
		wait $wp || fail "$name: the writer on the primary failed: $(cat /tmp/w.out)"
	else
		nl_power nla 0
		touch /tmp/stop
		wait $wp	# its writes after the cut fail: not acknowledged
		i=0
		until dmsetup remove nma 2>/dev/null; do
			i=$((i + 1))
			[ $i -lt 50 ] || fail "$name: remove nma after its power cut: $(dmsetup status nma)"
			sleep 0.2
		done
		wait_eval "[ \"\$(nm_status nmb connection)\" != connected ]" 30 ||
			fail "$name: the secondary did not see the link die: $(dmsetup status nmb)"
		t1=$(now_ms)
	fi
	wire_restore
	acked=$(seqw_acked /tmp/c $J)
	log "$name: cut after $acked acknowledged writes ($(seqw_acked /tmp/w $J) in all); link seen dead after $((t1 - t0)) ms"
	if [ "$side" = sec ]; then nl_power nlb 1; else nl_power nla 1; fi
	verify "$name/cut/primary" /dev/nla /tmp/c
	if [ "$P" = C ]; then
		verify "$name/cut/secondary" /dev/nlb /tmp/c
	else
		verify "$name/cut/secondary" /dev/nlb /tmp/c logonly
	fi
	# the node comes back on the same disks (and metadata device)
	if [ "$side" = sec ]; then
		dmsetup create nmb --table "$(table_b "$meta")" || fail "$name: create nmb again: $(table_b "$meta")"
	else
		dmsetup create nma --table "$(table_a "$meta" "$([ "$meta" = meta ] && echo none || echo full)")" ||
			fail "$name: create nma again"
	fi
	if dur_settle 120; then
		log "$name: resynced $(( $(nm_status nma resync_bytes) / DUR_RS )) regions; $(( $(seqw_acked /tmp/w $J) * 4096 / DUR_RS + 1 )) regions written; nma $(dmsetup status nma | cut -d' ' -f4-)"
	else
		check_bad "$name/settled" "no settled resync: nma $(dmsetup status nma) | nmb $(dmsetup status nmb)"
	fi
	if [ "$side" = sec ]; then
		verify "$name/resynced/primary" /dev/nla /tmp/w
		verify "$name/resynced/secondary" /dev/nlb /tmp/w
	else
		verify "$name/resynced/primary" /dev/nla /tmp/c
		verify "$name/resynced/secondary" /dev/nlb /tmp/c
	fi
	dur_same "$name/identical" /dev/nla /dev/nlb
	nm_local_unpair
	nl_destroy nla
	nl_destroy nlb
	seed=$((seed + 1))
}

seed=100
for P in ${dur_protos:-A B C}; do
	scenario sec meta
	scenario sec nometa
	scenario pri meta
	scenario pri nometa
done
exit 0
