# A peer that floods valid packets and reads the answers slowly must not
# grow the node's kernel memory without bound (review of 1.17.7, finding 1,
# the same class as review F17).  nmhostile flood (tests/vm/src/nmhostile.c)
# completes a valid handshake with a lone node listening for its peer, then
# sends for FLOOD_S seconds (8), as fast as the node reads them, either
#   ping: P_PINGs, each answered by a P_PING_ACK, or
#   data: 512-byte P_DATAs (one epoch, 4 KiB apart), each answered under C
#         by a P_WRITE_ACK,
# while it reads at most 2 KiB of the node's answers every 250 ms through a
# 4 KiB receive buffer: the node's sends go on, slowly, so no timeout ends
# the link, and the answers back up on the node.  A node that queued each
# answer in memory (ctrl_q, ack_q) grew by tens of MiB; one that stops
# reading while its answers back up grows by the socket buffers only.
# Checks per protocol (A, B, C; A and B answer no plain write, B's
# P_RECV_ACK was always sent waiting):
#   <P>/<kind>-accepted     the handshake was accepted (the flood ran)
#   <P>/<kind>-memory       SUnreclaim grew by less than LIMIT_KB while the
#                           link was open at the end of the flood
#   <P>/<kind>-released     after the flood, back within LIMIT_KB of before
#   <P>/<kind>-node-ok      the node is back listening, its disk as before
#                           (inconsistent: a lone node never synced)
# vms: 1
# disks: none
# timeout: 900
load_netmirror
. /tests/nmlib.sh
brd_setup 16 2
S=$(( $(dev_size /dev/ram0) / 512 ))
FLOOD_S=${FLOOD_S:-8}
LIMIT_KB=${LIMIT_KB:-8192}

sunreclaim() { sed -n 's/^SUnreclaim: *\([0-9]*\) kB/\1/p' /proc/meminfo; }

flood_one() {	# KIND
	local k=$1 out line acc b a base disk
	base=$(sunreclaim) disk=$(nm_status nmc disk)
	out=$(nmhostile flood 127.0.0.1 7791 "$k" "$FLOOD_S") || fail "$P $k: nmhostile: $out"
	line=$(echo "$out" | grep "^NMH flood ")
	log "$P $k: $line; $(dmsetup status nmc)"
	acc=$(echo "$line" | sed -n 's/.* accepted=\([0-9]*\).*/\1/p')
	b=$(echo "$line" | sed -n 's/.* sunreclaim_kb=\(-*[0-9]*\) .*/\1/p')
	a=$(echo "$line" | sed -n 's/.* sunreclaim_kb=-*[0-9]* \(-*[0-9]*\)$/\1/p')
	check_eq "$k-accepted" "$acc" 1
	[ "$acc" = 1 ] || return 0
	check "$k-memory" test $((a - b)) -lt "$LIMIT_KB"
	log "$P $k: SUnreclaim $b kB -> $a kB (+$((a - b)) kB) at the end of the flood, $base kB before the connect"
	check_wait "$k-released" 30 "[ \$(sunreclaim) -lt $((base + LIMIT_KB)) ]"
	check_wait "$k-node-ok" 30 "[ \"\$(nm_status nmc connection)\" = connecting ] && [ \"\$(nm_status nmc disk)\" = $disk ]"
}

run_proto() {
	dmsetup create nmc --table "0 $S netmirror /dev/ram0 127.0.0.1:7792 $P flush 2 listen 127.0.0.1:7791" ||
		fail "$P: create nmc"
	nm_wait_conn nmc connecting 10 || fail "$P: nmc not connecting: $(dmsetup status nmc)"
	flood_one ping
	flood_one data
	dmsetup remove nmc || fail "$P: remove nmc"
}
nm_each_proto run_proto
