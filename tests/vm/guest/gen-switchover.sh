# A planned switch-over by disconnect, on a link that had run a resync,
# keeps one data generation: no split brain (review of 1.18.21's first
# version, helper-66 finding 1).  A resync slot kept its "sent" bit after
# its region was answered, so once any resync had run on a link, its end
# looked like one with resync data still in the socket: 2b7be16 reset it
# and, with writes not yet confirmed stable (the last second's), began a
# new generation on the primary as at a link loss.  The peer, promoted
# apart, began its own: the connect was a split brain instead of the new
# primary's resync.
#
# One VM, both nodes on loopback, 8 MiB, metadata devices; the pair's
# first connect resyncs every region (sync full).  For each protocol A,
# B, C (checks <P>/...): 1 MiB written through nma, then at once nma
# disconnects and is made secondary, nmb primary, 1 MiB written through
# nmb, both connect.
#   connected    nma and nmb connected again (1.18.21 at 2b7be16: a split
#                brain, both standalone)
#   resynced     in sync, nmb the source (nma's disk was its target)
#   identical    both disks equal, nmb's write on both
# vms: 1
# disks: none
# timeout: 300
load_netmirror
. /tests/nmlib.sh
brd_setup 8 4
S=$(( $(dev_size /dev/ram0) / 512 ))

for P in $(nm_protos); do
	NM_CHECK_PREFIX=$P/
	nm_zero /dev/ram2 /dev/ram3
	$DD if=/dev/urandom of=/dev/ram0 bs=1M count=8 status=none || fail "$P: fill ram0"
	nm_local_pair "$P" flush "$S" /dev/ram0 /dev/ram1 "meta /dev/ram2" "meta /dev/ram3"
	pattern write /dev/mapper/nma 11 64K --size 1M --direct --quiet || fail "$P: write on nma"
	dmsetup message nma 0 disconnect && dmsetup message nma 0 secondary ||
		fail "$P: disconnect and demote nma"
	nm_wait_conn nmb connecting 20 || fail "$P: nmb still connected: $(dmsetup status nmb)"
	dmsetup message nmb 0 primary || fail "$P: promote nmb: $(dmsetup status nmb)"
	pattern write /dev/mapper/nmb 12 64K --offset 4M --size 1M --direct --quiet || fail "$P: write on nmb"
	dmsetup message nma 0 connect || fail "$P: connect nma"
	check_wait connected 20 "[ \"\$(nm_status nma connection)\" != standalone ] && nm_synced nmb"
	log "$P: nma $(dmsetup status nma); nmb $(dmsetup status nmb)"
	check resynced nm_wait_synced nma 30
	if [ "$(dev_sum /dev/ram0)" = "$(dev_sum /dev/ram1)" ] &&
	   pattern verify /dev/ram1 12 64K --offset 4M --size 1M --quiet; then
		check_ok identical
	else
		check_bad identical "ram0 $(dev_sum /dev/ram0), ram1 $(dev_sum /dev/ram1)"
	fi
	nm_local_unpair
done
NM_CHECK_PREFIX=
exit 0
