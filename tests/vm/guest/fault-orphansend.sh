# A link that ends sends nothing more: the writes it gave up never reach
# the peer afterwards (review of 1.18.20, helper-61 finding 3).  Up to
# 1.18.20 the end of a link shut its socket down (a FIN queued behind the
# data) and released it; the kernel kept the orphaned socket and went on
# sending what it held.  Under B and C a write's pages go out by reference
# (sendpage): the teardown completed the given-up writes, their pages went
# back to the application, and the orphan later sent whatever the
# application had put there meanwhile.  A peer that still read the link
# (it had not noticed the loss yet) wrote those bytes, which nobody wrote,
# as ours, and served them if it was promoted next.  Since 1.18.21 the
# teardown resets the socket (tcp_abort) before a given-up write ends: its
# queue is dropped.  Under A a write's bytes are copied into the socket:
# the link ends with a FIN as before, and the orphan still delivers the
# tail of the acknowledged writes.
#
# One VM.  The peer of nma (primary, link timeout 1 s, ping 0.5 s) is
# "nmhostile stall": a secondary that, after a valid handshake, answers
# pings up to the first write's header, then reads nothing (4 KiB receive
# buffer) until told to, then reads everything and reports each P_DATA it
# got and its fill byte.  For each protocol A, B, C
# (checks <P>/...): 16 KiB of 0x46 at 2 MiB fill the peer's window; then
# one page of 0x58 ("X") at 1 MiB, which stays in nma's socket.  Each
# writer, once its write returned, fills its buffer with other bytes (the
# page's: 0x59, "Y") and keeps it.  nma's link times out, nma goes
# standalone, and the peer reads.
#   given-up        both writes returned and nma's link ended (under B and
#                   C a write returns only then: its peer part given up)
#   queue-dropped   B, C: no socket of nma's port holds unsent bytes once
#                   the link ended (/proc/net/tcp tx_queue; 1.18.20 kept
#                   the orphan with the page in its queue)
#   a-tail          A: the peer got both writes with their own bytes
#                   after the link ended (the orphan's FIN behind them)
#   peer-read       premise: the peer held the link at the first write
#                   and, told to, read it until it ended (reset, or closed
#                   after the orphan's data)
#   no-stale-bytes  the peer got no write filled with the bytes a writer
#                   put in its buffer after its write ended (0x47, 0x59):
#                   1.18.20 sent both under B and C; under A a write's
#                   pages are copied, and its own bytes may arrive
# vms: 1
# disks: none
# timeout: 300
load_netmirror
. /tests/nmlib.sh
brd_setup 8 1
S=$(( $(dev_size /dev/ram0) / 512 ))

# unsent bytes in the sockets of port 7789 (hex 1E6D), and their lines
port_txq() {
	local q t=0
	for q in $(awk 'NR > 1 && ($2 ~ /:1E6D$/ || $3 ~ /:1E6D$/) { split($5, q, ":"); print q[1] }' /proc/net/tcp); do
		t=$((t + 0x$q))
	done
	echo $t
}
port_socks() {
	awk 'NR > 1 && ($2 ~ /:1E6D$/ || $3 ~ /:1E6D$/) { printf "[%s %s st=%s q=%s t=%s] ", $2, $3, $4, $5, $6 }' /proc/net/tcp
}

for P in $(nm_protos); do
	NM_CHECK_PREFIX=$P/
	nm_zero /dev/ram0
	rm -f /tmp/go /tmp/f.ready /tmp/k.ready /tmp/nmh.out
	dmsetup create nma --table "0 $S netmirror /dev/ram0 127.0.0.1:7790 $P flush 10 listen 127.0.0.1:7789 role primary timeout 1000 ping 500 sync none" ||
		fail "$P: create nma"
	nmhostile stall 127.0.0.1 7789 /tmp/go 60 > /tmp/nmh.out 2>&1 &
	hp=$!
	wait_for "grep -q 'NMH stall linked' /tmp/nmh.out" 20 && nm_wait_conn nma connected 10 ||
		fail "$P: the stalling peer did not connect: $(cat /tmp/nmh.out); $(dmsetup status nma)"
	holdwrite /dev/mapper/nma 2097152 16384 70 71 /tmp/f.ready &
	fp=$!
	# the filler is in the socket (and the peer's window) before the page
	wait_for '[ "$(port_txq)" -ge 8192 ]' 10 || log "$P: after the filler: $(port_socks)"
	holdwrite /dev/mapper/nma 1048576 4096 88 89 /tmp/k.ready &
	kp=$!
	if wait_for "[ -s /tmp/f.ready ] && [ -s /tmp/k.ready ]" 20 &&
	   [ "$(cat /tmp/f.ready /tmp/k.ready)" = "ok
ok" ] && nm_wait_conn nma connecting 20; then
		check_ok given-up
	else
		check_bad given-up "writes: $(cat /tmp/f.ready /tmp/k.ready 2>/dev/null); nma $(dmsetup status nma)"
	fi
	dmsetup message nma 0 disconnect || fail "$P: disconnect nma"
	if [ "$P" != A ]; then
		q=$(port_txq)
		check_eq queue-dropped "$q" 0 || log "$P: $(port_socks)"
	fi
	touch /tmp/go
	wait $hp
	out=$(tr '\n' ' ' < /tmp/nmh.out)
	log "$P: $out"
	check_match peer-read "$out" "held length=.* closed=1"
	[ "$P" = A ] && check_match a-tail "$out" "sector=4096 size=16384 fill=70 .*sector=2048 size=4096 fill=88 "
	if grep -E "fill=(71|89)$" /tmp/nmh.out > /tmp/stale; then
		check_bad no-stale-bytes "the peer got bytes put in a buffer after its write ended: $(cat /tmp/stale)"
	else
		check_ok no-stale-bytes
	fi
	kill $fp $kp 2>/dev/null
	wait $fp $kp 2>/dev/null
	dmsetup remove nma || fail "$P: remove nma"
done
exit 0
