# A table that makes a secondary primary is checked at `dmsetup load`
# against the disk state of that moment (an outdated or inconsistent disk
# cannot be primary); the disk may be outdated after the load, before the
# resume (a fence handler's `outdate` while the new table waits).  The
# resume must then refuse, as the constructor and the `primary` message
# do (review 2 of 2026-12-06, F4).  Up to 1.18.8 the resume made the
# outdated secondary primary: it served its stale data to readers.
#
# One VM, both nodes on loopback, 32 MiB devices, metadata on both.  For
# each protocol A, B, C: 4 MiB written and in sync; a table with `role
# primary` loaded for nmb; the link lost; 1 MiB written on nma (nmb lacks
# it); nmb outdated; `dmsetup resume nmb`.  Checks <P>/...:
#   loaded          the load succeeds (nmb uptodate then)
#   outdated        nmb's disk outdated after the message
#   resume-refused  the resume fails
#   still-refused   a second resume fails too (the old table is gone by then)
#   suspended       nmb stays suspended
#   secondary, role a secondary table loaded and resumed instead: secondary
#   resynced, identical   connected again: in sync, both devices equal
# vms: 1
# disks: none
# timeout: 300
load_netmirror
. /tests/nmlib.sh
. /tests/dur-lib.sh
S=65536

# tableb N EXTRA: nmb's table with N optional arguments
tableb() { echo "0 $S netmirror /dev/ram1 127.0.0.1:7789 $P none $1 listen 127.0.0.1:7790 meta /dev/ram3$2"; }

run_proto() {
	brd_setup 32 4
	nm_zero /dev/ram2 /dev/ram3
	nm_local_pair "$P" none "" /dev/ram0 /dev/ram1 "meta /dev/ram2" "meta /dev/ram3"
	pattern write /dev/mapper/nma 1 4M --size 4M --direct --quiet || fail "first write"
	dur_settle 60 || fail "not in sync: $(dmsetup status nma)"
	check loaded dmsetup load nmb --table "$(tableb 6 ' role primary')"
	lose_link
	pattern write /dev/mapper/nma 2 1M --size 1M --offset 16M --direct --quiet || fail "write while apart"
	dmsetup message nmb 0 outdate || fail "outdate nmb"
	check_eq outdated "$(nm_status nmb disk)" outdated
	check_fail resume-refused dmsetup resume nmb
	# dm has destroyed the old table: a retry finds no state to take over
	check_fail still-refused dmsetup resume nmb
	st=$(dmsetup info nmb | sed -n 's/^State: *//p')
	log "$P: nmb $st: $(dmsetup status nmb 2>&1); $(dmesg | grep 'cannot make' | tail -n 1)"
	check_eq suspended "$st" SUSPENDED
	# up to 1.18.8: resumed, primary on its outdated disk
	[ "$st" = ACTIVE ] && [ "$(nm_status nmb role)" = primary ] &&
		{ dmsetup message nmb 0 secondary || fail "demote nmb"; }
	check secondary sh -c "dmsetup load nmb --table '$(tableb 4)' && dmsetup resume nmb"
	check_eq role "$(nm_status nmb role)" secondary
	dmsetup message nmb 0 connect || fail "connect nmb"
	check resynced dur_settle 60
	check_eq identical "$(dev_sum /dev/ram0)" "$(dev_sum /dev/ram1)"
	nm_local_unpair
}
nm_each_proto run_proto
exit 0
