# The fence hook (issue 11: DRBD's resource-level fencing, "fence-peer"):
# "nmsetup fence NAME --handler PROG" runs PROG when a "fencing freeze"
# primary holds writes, and sends resume_io when PROG answers with one of
# drbd's "fenced" exit codes.  One VM, both nodes on loopback with metadata
# devices, under each protocol A, B, C (checks <P>/...):
#   hook: a write held since the link loss; the handler outdates the
#     secondary and exits 4: the write is released, the handler saw NM_DEVICE/NM_PEER/NM_ROLE, the
#     secondary is outdated and refuses "primary", --once exits 0; the
#     reconnect resyncs, both disks identical;
#   refused: a handler exiting 1: the write stays held, --once exits 3; the
#     administrator's outdate + resume_io release it;
#   daemon: without --once, two freezes in a row are both fenced and
#     released; SIGTERM ends it with 0; its --unfence-handler runs once at
#     the start (connected, both uptodate), not while the peer is away, and
#     within seconds of each resync's end (the state change, not a poll);
#     one that fails is run again (5 s later; under C only: the daemon
#     does not depend on the protocol);
#   nofencing: on a device without "fencing freeze" it refuses to start.
# vms: 1
# disks: none
# timeout: 600
load_netmirror
. /tests/nmlib.sh
brd_setup 16 4
S=$(( $(dev_size /dev/ram0) / 512 ))
cat > /tmp/h-ok.sh <<'EOF'
echo "$NM_DEVICE $NM_PEER $NM_ROLE" >> /tmp/h.env
dmsetup message nmb 0 outdate || exit 1
exit 4
EOF
cat > /tmp/h-no.sh <<'EOF'
exit 1
EOF
# the unfence handler: fails once when /tmp/u.fail exists
cat > /tmp/h-unfence.sh <<'EOF'
if [ -e /tmp/u.fail ]; then
	rm -f /tmp/u.fail
	echo "fail $NM_DEVICE" >> /tmp/u.env
	exit 1
fi
echo "$NM_DEVICE $NM_PEER $NM_ROLE" >> /tmp/u.env
EOF
chmod +x /tmp/h-ok.sh /tmp/h-no.sh /tmp/h-unfence.sh
# unfenced N: the unfence handler has succeeded N times
unfenced() { [ "$(grep -c '^nma ' /tmp/u.env 2>/dev/null)" = "$1" ]; }

# reconnect NAME: nmb connects, both in sync and identical
reconnect() {
	dmsetup message nmb 0 connect || fail "connect nmb"
	check_wait "$1/resynced" 60 "nm_synced nma && nm_synced nmb"
	check_eq "$1/identical" "$(dev_sum /dev/ram1)" "$(dev_sum /dev/ram0)"
}

round() {
	nm_zero /dev/ram2 /dev/ram3
	nm_local_pair "$P" flush "$S" /dev/ram0 /dev/ram1 "meta /dev/ram2 fencing freeze" "meta /dev/ram3"
	pattern write /dev/mapper/nma 1 16M --direct --quiet || fail "first write"
	nm_wait_synced nma 60 || fail "not synced: $(dmsetup status nma)"

	# --- a handler that fences
	rm -f /tmp/h.env
	lose_link
	held_write f1 11 2
	sleep 1
	check hook/write-held running f1
	nmsetup fence nma --handler /tmp/h-ok.sh --once > /tmp/f1.out 2>&1 &
	fp=$!
	check_wait hook/write-released 30 "ended_ok f1"
	wait $fp
	check_eq hook/exit "$?" 0
	check_eq hook/env "$(cat /tmp/h.env)" "nma 127.0.0.1:7790 primary"
	check_eq hook/peer-outdated "$(nm_status nmb disk)" outdated
	check_fail hook/outdated-not-promoted dmsetup message nmb 0 primary ||
		dmsetup message nmb 0 secondary
	check_eq hook/io-running "$(nm_status nma io)" running
	check hook/told sh -c "grep -q 'exit 4 (peer fenced): resume_io' /tmp/f1.out"
	log "hook: $(cat /tmp/f1.out)"
	check hook/data pattern verify /dev/mapper/nma 11 1M --offset 2M --direct --quiet
	reconnect hook

	# --- a handler that cannot fence
	nmsetup fence nma --handler /tmp/h-no.sh --once > /tmp/f2.out 2>&1 &
	fp=$!
	sleep 1
	lose_link
	held_write f2 21 4
	wait $fp
	check_eq refused/exit "$?" 3
	sleep 1
	check refused/write-held running f2
	check_eq refused/io-frozen "$(nm_status nma io)" frozen
	check refused/told sh -c "grep -q 'exit 1: the peer is not fenced' /tmp/f2.out"
	log "refused: $(cat /tmp/f2.out)"
	dmsetup message nmb 0 outdate || fail "outdate nmb"
	dmsetup message nma 0 resume_io || fail "resume_io"
	check_wait refused/released-by-hand 20 "ended_ok f2"
	reconnect refused

	# --- as a daemon: two freezes, each undone after its resync (under C,
	# the second unfence fails once and is run again)
	rm -f /tmp/h.env /tmp/u.env /tmp/u.fail
	nmsetup fence nma --handler /tmp/h-ok.sh --unfence-handler /tmp/h-unfence.sh > /tmp/f3.out 2>&1 &
	fp=$!
	check_wait daemon/unfence-at-start 10 "unfenced 1"
	for i in 1 2; do
		[ $i = 2 ] && [ "$P" = C ] && touch /tmp/u.fail
		lose_link
		held_write "d$i" "3$i" $((4 + 2 * i))
		check_wait "daemon/released-$i" 30 "ended_ok d$i"
		check "daemon/no-unfence-while-away-$i" unfenced $i
		reconnect "daemon/$i"
		# event-driven: seconds after the resync's end (a retry: 5 s more)
		check_wait "daemon/unfenced-$i" 10 "unfenced $((i + 1))"
	done
	kill -TERM $fp
	wait $fp
	check_eq daemon/sigterm-exit "$?" 0
	check_eq daemon/handler-runs "$(wc -l < /tmp/h.env)" 2
	check_eq daemon/resumed "$(grep -c 'resume_io' /tmp/f3.out)" 2
	check_eq daemon/unfence-env "$(tail -n 1 /tmp/u.env)" "nma 127.0.0.1:7790 primary"
	check_eq daemon/unfence-retried "$(grep -c 'unfence handler exit 1: again' /tmp/f3.out)" "$([ "$P" = C ] && echo 1 || echo 0)"
	log "daemon: $(tr '\n' ' ' < /tmp/f3.out)"

	# --- no "fencing freeze": nothing to do
	check_fail nofencing/refused nmsetup fence nmb --handler /tmp/h-ok.sh --once
	nm_local_unpair
}

nm_each_proto round
exit 0
