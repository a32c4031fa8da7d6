# Data generations, split-brain policies and fencing between two VMs (issue
# 11), metadata devices on both, under each protocol A, B, C (checks
# <P>/...); every data check compares the
# checksums of both backing devices.
#   fencing: node b's link goes down for 12 s; a write on the primary is
#     held (io frozen) until the link is back, then completes; both
#     identical after the resync.
#   policy: both apart, b promoted and writing less than a, both demoted;
#     after_sb_0pri discard_least_changes on both: b's changes go, both
#     end with a's data.
#   stale: b's resync starts paused, the link goes: b is inconsistent and
#     refuses "primary"; "force_primary" works; then b discards its data.
# vms: 2
# disks: none
# timeout: 1200
load_netmirror
. /tests/nmlib.sh
brd_setup 16 2
S=$(( $(dev_size /dev/ram0) / 512 ))
OPTS="meta /dev/ram1 fencing freeze after_sb_0pri discard_least_changes"
NOPT=$(echo $OPTS | wc -w)
on_peer ". /tests/lib.sh; load_netmirror; brd_setup 16 2" || fail "peer setup"
peer() { on_peer ". /tests/lib.sh; . /tests/nmlib.sh; $*"; }
psum() { peer "dev_sum /dev/ram0"; }
same() { check_eq "$1" "$(psum)" "$(dev_sum /dev/ram0)"; }

round() {
	nm_zero /dev/ram1
	peer "nm_zero /dev/ram1" || fail "peer: zero its metadata device"
	peer "dmsetup create nm0 --table '0 $S netmirror /dev/ram0 169.254.0.1:7789 $P flush $NOPT $OPTS'" ||
		fail "peer create"
	dmsetup create nm0 --table "0 $S netmirror /dev/ram0 169.254.0.2:7789 $P flush $((NOPT + 2)) role primary $OPTS" ||
		fail "create"
	nm_wait_synced nm0 90 || fail "no connection/initial sync: $(dmsetup status nm0)"
	pattern write /dev/mapper/nm0 1 16M --direct --quiet || fail "first write"
	nm_wait_synced nm0 60 || fail "not synced"
	nm_wait_confirmed nm0 || fail "writes unconfirmed: $(dmsetup status nm0)"
	same first/identical
	check_eq first/same-generation "$(peer 'nm_status nm0 generation')" "$(nm_status nm0 generation)"

	# --- fencing: the link goes, a write is held until it is back
	link_cut 12 || fail "could not reach the peer to cut its link"
	nm_wait_conn nm0 connecting 30 || fail "link loss not seen: $(dmsetup status nm0)"
	check_eq fencing/io-frozen "$(nm_status nm0 io)" frozen
	rm -f /tmp/w.rc
	( pattern write /dev/mapper/nm0 2 1M --offset 2M --size 1M --direct --quiet; echo $? > /tmp/w.rc ) &
	sleep 1
	check fencing/write-held [ ! -e /tmp/w.rc ]
	check_wait fencing/write-released 60 "[ \"\$(cat /tmp/w.rc 2>/dev/null)\" = 0 ]"
	check fencing/resynced nm_wait_synced nm0 60
	check_wait fencing/peer-synced 30 "peer 'nm_synced nm0'"
	same fencing/identical

	# --- split brain resolved by after_sb_0pri discard_least_changes
	dmsetup message nm0 0 disconnect || fail "disconnect a"
	peer "dmsetup message nm0 0 disconnect" || fail "disconnect b"
	nm_wait_conn nm0 standalone 20 || fail "a not standalone"
	peer "nm_wait_conn nm0 standalone 20" || fail "b not standalone"
	peer "dmsetup message nm0 0 primary" || fail "promote b alone"
	pattern write /dev/mapper/nm0 3 4M --offset 1M --size 4M --direct --quiet || fail "write on a"
	peer "pattern write /dev/mapper/nm0 4 1M --offset 8M --size 1M --direct --quiet" || fail "write on b"
	peer "dmsetup message nm0 0 secondary" || fail "demote b"
	dmsetup message nm0 0 secondary || fail "demote a"
	sa=$(dev_sum /dev/ram0)
	check_fail policy/disks-differ [ "$sa" = "$(psum)" ]
	dmesg -c > /dev/null
	dmsetup message nm0 0 connect || fail "connect a"
	peer "dmsetup message nm0 0 connect" || fail "connect b"
	check policy/synced nm_wait_synced nm0 90
	check_wait policy/peer-synced 30 "peer 'nm_synced nm0'"
	check_eq policy/a-kept "$(dev_sum /dev/ram0)" "$sa"
	same policy/identical
	check policy/logged sh -c "dmesg | grep -q 'resolved by after_sb_0pri'"
	dmsetup message nm0 0 primary || fail "promote a"

	# --- a stale secondary: promotion refused, force works
	peer "dmsetup message nm0 0 disconnect" || fail "disconnect b"
	peer "nm_wait_conn nm0 standalone 20" || fail "b not standalone"
	nm_wait_conn nm0 connecting 30 || fail "a did not notice"
	dmsetup message nm0 0 resume_io 2>/dev/null	# b left on purpose: not fenced, released by hand
	pattern write /dev/mapper/nm0 5 1M --offset 12M --size 1M --direct --quiet || fail "stale: write"
	dmsetup message nm0 0 pause_resync || fail "pause_resync"
	peer "dmsetup message nm0 0 connect" || fail "connect b"
	check_wait stale/inconsistent 30 "[ \"\$(peer 'nm_status nm0 disk')\" = inconsistent ]"
	peer "dmsetup message nm0 0 disconnect" || fail "disconnect b"
	peer "nm_wait_conn nm0 standalone 20" || fail "b not standalone"
	check_fail stale/promotion-refused peer "dmsetup message nm0 0 primary"
	check stale/force-accepted peer "dmsetup message nm0 0 force_primary"
	check_eq stale/forced "$(peer 'nm_status nm0 role') $(peer 'nm_status nm0 disk')" "primary uptodate"
	peer "dmsetup message nm0 0 secondary" || fail "demote b"
	peer "dmsetup message nm0 0 discard_my_data" || fail "discard_my_data b"
	dmsetup message nm0 0 resume_io 2>/dev/null
	dmsetup message nm0 0 resume_resync || fail "resume_resync"
	peer "dmsetup message nm0 0 connect" || fail "connect b"
	check stale/resynced nm_wait_synced nm0 90
	check_wait stale/peer-synced 30 "peer 'nm_synced nm0'"
	same stale/identical
	dmsetup remove nm0 || fail "remove"
	peer "dmsetup remove nm0" || fail "peer remove"
}

nm_each_proto round
exit 0
