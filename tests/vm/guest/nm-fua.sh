# Protocol C and O_DSYNC / FUA / flush: when a synchronous write returns on
# the primary, the data is already on the secondary's backing device (read
# right after, without waiting).  Also an fsync'ed buffered write.
#
# Then the empty flush that follows a write (target 1.13.0, NM_AF_STABLE):
#   <P>/nocache/...  A, B, C on brd (no volatile cache): 20 times a 4 KiB
#     O_DIRECT write then fsync; under C the peer acked every write as
#     stable, so no flush goes to it (flush_local 20, the secondary
#     received 20 packets); under A and B every flush goes (flush_local 0,
#     40 received); the data on both disks;
#   C/cache/...  the secondary on a null_blk with a volatile cache: every
#     flush goes to the peer (flush_local 0); its write_cache set to
#     "write through": no flush goes (acks stable again); "write back"
#     again: every flush goes again.
#
# And a flush that goes to the peer is applied there (target 1.13.5):
#   <P>/cache-<ord>/peer-flushed  A, B, C x ordering flush, drain, none, the
#     secondary on a null_blk with a volatile cache: 20 times a 4 KiB
#     O_DIRECT write then fsync; the null_blk completed at least 20 flush
#     requests (/sys/block/nlb/stat); <P>/cache-<ord>/on-peer the data.
#     1.13.4 acknowledged an empty flush without issuing it (and under C
#     as stable): without the barrier's flush (drain, none) the peer's
#     cache was flushed only by its periodic sync, so peer-flushed failed
#     under drain and none for every protocol.
# vms: 1
# disks: none
# timeout: 300
load_netmirror
. /tests/nmlib.sh
. /tests/dur-power-lib.sh
brd_setup 32 2
for ord in flush drain none; do
	nm_local_pair C "$ord"
	i=0 bad=
	while [ $i -lt 25 ]; do
		off=$(( (i * 37) % 8000 ))
		$DD if=/dev/urandom of=/tmp/blk bs=4k count=1 status=none
		$DD if=/tmp/blk of=/dev/mapper/nma bs=4k seek=$off count=1 oflag=direct,dsync conv=notrunc status=none ||
			fail "$ord: dsync write $i"
		got=$($DD if=/dev/ram1 bs=4k skip=$off count=1 iflag=direct status=none | $MD5SUM)
		want=$($MD5SUM < /tmp/blk)
		[ "$got" = "$want" ] || bad="$bad $i@$off"
		i=$((i + 1))
	done
	# one check for the 25 writes (which ones failed: the detail)
	if [ -z "$bad" ]; then check_ok "$ord/dsync-on-peer"; else check_bad "$ord/dsync-on-peer" "not on the peer when they returned (write@block):$bad"; fi
	# buffered write + fsync (conv=fsync): REQ_PREFLUSH through the target
	$DD if=/dev/urandom of=/tmp/big bs=64k count=16 status=none
	$DD if=/tmp/big of=/dev/mapper/nma bs=64k seek=100 conv=fsync,notrunc status=none || fail "$ord: fsync write"
	got=$($DD if=/dev/ram1 bs=64k skip=100 count=16 iflag=direct status=none | $MD5SUM)
	check_eq "$ord/fsync-on-peer" "$got" "$($MD5SUM < /tmp/big)"
	nm_local_unpair
done

# flush_local: empty flushes completed without the peer (latency message)
flush_local() { dmsetup message nma 0 latency | sed -n 's/^flush_local count=//p'; }
# write_fsync N SEEK: N times a 4 KiB O_DIRECT write then an fsync (an
# empty REQ_PREFLUSH), after one more; prints "flush_local received" deltas
write_fsync() {
	local i=0 r0
	# one before: a new link's first flush always goes to the peer
	$DD if=/tmp/big of=/dev/mapper/nma bs=4k seek=$(($2 + 20)) count=1 oflag=direct conv=fsync,notrunc status=none ||
		fail "write + fsync before"
	dmsetup message nma 0 latency_reset || fail "latency_reset"
	r0=$(nm_status nmb writes_received)
	while [ $i -lt "$1" ]; do
		$DD if=/tmp/big of=/dev/mapper/nma bs=4k skip=$i seek=$(($2 + i)) count=1 oflag=direct conv=fsync,notrunc status=none ||
			fail "write + fsync $i"
		i=$((i + 1))
	done
	echo "$(flush_local) $(( $(nm_status nmb writes_received) - r0 ))"
}
same_blocks() {
	check_eq "$1" "$($DD if=/dev/mapper/nma bs=4k skip=$2 count=20 iflag=direct status=none | $MD5SUM)" \
		"$($DD if="$3" bs=4k skip=$2 count=20 iflag=direct status=none | $MD5SUM)"
}
for P in A B C; do
	nm_local_pair $P flush 16384	# 8 MiB: a short first resync
	o=$(write_fsync 20 100)
	log "$P nocache: flush_local, received: $o"
	if [ $P = C ]; then
		check_eq "$P/nocache/flushes-local" "$o" "20 20"
	else
		check_eq "$P/nocache/flushes-sent" "$o" "0 40"
	fi
	check_wait "$P/nocache/settled" 10 "[ \$(nm_status nma pending) = 0 ]"
	same_blocks "$P/nocache/on-peer" 100 /dev/ram1
	nm_local_unpair
done
nl_create nlb 8
nm_local_pair C flush 16384 /dev/ram0 /dev/nlb
WC=/sys/block/nlb/queue/write_cache
log "nlb write_cache: $(cat $WC)"
o=$(write_fsync 20 200)
check_eq C/cache/flushes-sent "$o" "0 40"
echo "write through" > $WC || fail "write through"
o=$(write_fsync 20 400)
log "C write through: $o"
check_eq C/cache/write-through-local "$o" "20 20"
echo "write back" > $WC || fail "write back"
o=$(write_fsync 20 600)
check_eq C/cache/write-back-sent "$o" "0 40"
same_blocks C/cache/on-peer 600 /dev/nlb
nm_local_unpair
nl_destroy nlb
# flush requests the null_blk completed (field 16 of the stat file)
peer_flushes() { awk '{ print $16 }' /sys/block/nlb/stat; }
for P in A B C; do
	for ord in flush drain none; do
		nl_create nlb 8
		nm_local_pair $P $ord 16384 /dev/ram0 /dev/nlb
		f0=$(peer_flushes)
		o=$(write_fsync 20 800)
		f1=$(peer_flushes)
		log "$P $ord cache: flush_local, received: $o; the peer's disk completed $((f1 - f0)) flushes"
		if [ $((f1 - f0)) -ge 20 ]; then
			check_ok "$P/cache-$ord/peer-flushed"
		else
			check_bad "$P/cache-$ord/peer-flushed" "the peer's disk completed $((f1 - f0)) flushes for 20 fsyncs (flush_local, received: $o)"
		fi
		same_blocks "$P/cache-$ord/on-peer" 800 /dev/nlb
		nm_local_unpair
		nl_destroy nlb
	done
done
exit 0
