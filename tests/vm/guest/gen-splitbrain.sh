# Data generations decide the resync, never the roles alone (issue 11).
#   split: both nodes primary while apart, each writes its own 1 MiB, B is
#     demoted; on reconnect both refuse (standalone, last_error split_brain), the log
#     names it, both disks stay as each node left them; then the manual
#     resolution (discard_my_data + connect on the loser) ends
#     with both disks equal to the winner's.
#   failback: the primary "dies" (removed), the secondary is promoted alone,
#     writes, is demoted; the old primary comes back with "role primary" in
#     its table: it refuses to be overwritten as primary (stale_primary) and
#     the newer writes survive; made secondary it resyncs from the peer.
#   linkloss: the pair through slowfwd (tests/vm/src/slowfwd.c), the link
#     stalled, one 64 KiB write (one bio) on the primary (under B and C it waits for
#     the peer; under A it is acknowledged at send), then the link dies
#     (slowfwd killed: the peer never gets the write); the write completes
#     (linkloss/write-done) and nothing more is written.  The primary's
#     peer part was given up (B, C) or left unconfirmed (A): its data is
#     its own, so a new generation starts at the loss
#     (linkloss/new-generation), and after the peer is promoted alone and
#     the old primary demoted, the reconnect is a split brain
#     (linkloss/a-refused, b-refused), the write kept (a-untouched,
#     write-kept); discard_my_data on the old primary ends it
#     (resolved-synced, resolved-identical).  Target 1.13.4 started no
#     generation at the loss: the peer looked newer and its resync
#     silently overwrote the acknowledged write (a-refused failed under A,
#     B and C).
# Under each protocol A, B, C (checks <P>/...).
# Fails on 43d0dd8's kernel: the primary's resync overwrites the other
# node's writes and status says in sync.
# vms: 1
# disks: none
# timeout: 600
load_netmirror
. /tests/nmlib.sh
brd_setup 16 4
S=$(( $(dev_size /dev/ram0) / 512 ))

round() {
	nm_zero /dev/ram2 /dev/ram3
	nm_local_pair "$P" flush "$S" /dev/ram0 /dev/ram1 "meta /dev/ram2" "meta /dev/ram3"
	pattern write /dev/mapper/nma 1 8M --direct --quiet || fail "first write"
	nm_wait_synced nma 60 || fail "not synced: $(dmsetup status nma)"
	nm_wait_confirmed nma || fail "writes unconfirmed: $(dmsetup status nma)"

	# --- split brain
	dmsetup message nma 0 disconnect || fail "disconnect nma"
	dmsetup message nmb 0 disconnect || fail "disconnect nmb"
	nm_wait_conn nma standalone 20 || fail "nma not standalone"
	nm_wait_conn nmb standalone 20 || fail "nmb not standalone"
	dmsetup message nmb 0 primary || fail "promote nmb alone"
	pattern write /dev/mapper/nma 11 1M --offset 1M --direct --quiet || fail "write on nma"
	pattern write /dev/mapper/nmb 22 1M --offset 4M --direct --quiet || fail "write on nmb"
	sa=$(dev_sum /dev/ram0)
	sb=$(dev_sum /dev/ram1)
	check_fail split/disks-differ [ "$sa" = "$sb" ]
	dmsetup message nmb 0 secondary || fail "demote nmb"	# as in the issue
	dmesg -c > /dev/null
	dmsetup message nma 0 connect || fail "connect nma"
	dmsetup message nmb 0 connect || fail "connect nmb"
	check_wait split/a-refused 30 "nm_standalone nma split_brain"
	check_wait split/b-refused 30 "nm_standalone nmb split_brain"
	sleep 2
	check_eq split/a-untouched "$(dev_sum /dev/ram0)" "$sa"
	check_eq split/b-untouched "$(dev_sum /dev/ram1)" "$sb"
	check split/logged sh -c "dmesg | grep -q 'split brain'"
	check split/regions-logged sh -c "dmesg | grep -qE 'changed [0-9]+ regions of 1024 sectors since the last common generation, the first: [0-9]'"

	# resolution: nmb's changes go
	dmsetup message nmb 0 discard_my_data || fail "discard_my_data"
	dmsetup message nmb 0 connect || fail "connect nmb"
	dmsetup message nma 0 connect || fail "connect nma"
	check_wait split/resolved-synced 60 "nm_synced nma && nm_synced nmb"
	check_eq split/resolved-winner-kept "$(dev_sum /dev/ram0)" "$sa"
	check_eq split/resolved-identical "$(dev_sum /dev/ram1)" "$sa"

	# --- failback with a static "role primary"
	sleep 3
	dmsetup remove nma || fail "remove nma (the primary dies)"
	nm_wait_conn nmb connecting 20 || fail "nmb not connecting"
	dmsetup message nmb 0 primary || fail "promote nmb (failover)"
	pattern write /dev/mapper/nmb 33 1M --offset 6M --direct --quiet || fail "failover write"
	dmsetup message nmb 0 secondary || fail "demote nmb"
	sb=$(dev_sum /dev/ram1)
	dmesg -c > /dev/null
	dmsetup create nma --table "0 $S netmirror /dev/ram0 127.0.0.1:7790 $P flush 6 listen 127.0.0.1:7789 role primary meta /dev/ram2" ||
		fail "recreate nma with role primary"
	check_wait failback/old-primary-refused 30 "nm_standalone nma stale_primary"
	check_eq failback/newer-writes-survive "$(dev_sum /dev/ram1)" "$sb"
	check failback/logged sh -c "dmesg | grep -q 'older than the peer'"
	dmsetup message nma 0 secondary || fail "demote nma"
	dmsetup message nma 0 connect || fail "connect nma"
	check_wait failback/resynced 60 "nm_synced nma && nm_synced nmb"
	check_eq failback/identical-newer "$(dev_sum /dev/ram0)" "$sb"
	check failback/newer-data-on-old-primary pattern verify /dev/mapper/nma 33 1M --offset 6M --direct --quiet
	nm_local_unpair
}

CTL=/tmp/fwdctl
# linkloss: see the top
linkloss() {
	local g0 g1 sa fwd refused
	nm_zero /dev/ram2 /dev/ram3
	: > $CTL
	slowfwd --ctl $CTL 7791:7790:b:a 7792:7789:a:b &
	fwd=$!
	NM_PAIR_TO_B=127.0.0.1:7791 NM_PAIR_TO_A=127.0.0.1:7792 nm_local_pair "$P" flush "$S" \
		/dev/ram0 /dev/ram1 "meta /dev/ram2" "meta /dev/ram3"
	pattern write /dev/mapper/nma 5 2M --direct --quiet || fail "linkloss: first write"
	nm_wait_synced nma 60 || fail "linkloss: not synced: $(dmsetup status nma)"
	nm_wait_confirmed nma || fail "linkloss: writes unconfirmed: $(dmsetup status nma)"
	g0=$(nm_status nma generation)
	echo "a b" > $CTL
	sleep 0.5
	rm -f /tmp/ll.rc
	( pattern write /dev/mapper/nma 44 64K --offset 3M --bs-min 65536 --bs-max 65536 --direct --quiet
	  echo $? > /tmp/ll.rc ) &
	sleep 1
	kill $fwd
	wait $fwd 2> /dev/null
	wait_for "[ -f /tmp/ll.rc ]" 30 || fail "linkloss: the write did not end: $(dmsetup status nma)"
	check_eq linkloss/write-done "$(cat /tmp/ll.rc)" 0
	dmsetup message nma 0 disconnect || fail "linkloss: disconnect nma"
	dmsetup message nmb 0 disconnect || fail "linkloss: disconnect nmb"
	nm_wait_conn nma standalone 20 || fail "linkloss: nma not standalone"
	nm_wait_conn nmb standalone 20 || fail "linkloss: nmb not standalone"
	g1=$(nm_status nma generation)
	log "$P linkloss: generation $g0 before, $g1 after the loss"
	check_fail linkloss/new-generation [ "$g1" = "$g0" ]
	sa=$(dev_sum /dev/ram0)
	dmsetup message nmb 0 primary || fail "linkloss: promote nmb alone"
	dmsetup message nma 0 secondary || fail "linkloss: demote nma"
	: > $CTL
	slowfwd --ctl $CTL 7791:7790:b:a 7792:7789:a:b &
	fwd=$!
	dmesg -c > /dev/null
	dmsetup message nma 0 connect || fail "linkloss: connect nma"
	dmsetup message nmb 0 connect || fail "linkloss: connect nmb"
	refused=yes
	check_wait linkloss/a-refused 30 "nm_standalone nma split_brain" || refused=
	check_wait linkloss/b-refused 30 "nm_standalone nmb split_brain" || refused=
	check_eq linkloss/a-untouched "$(dev_sum /dev/ram0)" "$sa"
	check linkloss/write-kept pattern verify /dev/ram0 44 64K --offset 3M --bs-min 65536 --bs-max 65536 --direct --quiet
	# the operator's choice: the old primary's write goes (without the
	# split brain the pair is resyncing already)
	if [ -n "$refused" ]; then
		dmsetup message nma 0 discard_my_data || fail "linkloss: discard_my_data"
		dmsetup message nma 0 connect || fail "linkloss: connect nma again"
		dmsetup message nmb 0 connect || fail "linkloss: connect nmb again"
	fi
	check_wait linkloss/resolved-synced 60 "nm_synced nma && nm_synced nmb"
	check_eq linkloss/resolved-identical "$(dev_sum /dev/ram0)" "$(dev_sum /dev/ram1)"
	nm_local_unpair
	kill $fwd
	wait $fwd 2> /dev/null
}

nm_each_proto round
nm_each_proto linkloss
exit 0
