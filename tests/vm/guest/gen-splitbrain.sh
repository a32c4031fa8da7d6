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

nm_each_proto round
exit 0
