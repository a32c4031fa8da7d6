# Disconnect by message and by cutting the link (two VMs): the primary goes
# on writing locally, its connection moves to "connecting" (message:
# "standalone"), regions written meanwhile are counted out of sync, and the
# pair returns to "connected" afterwards.  No hang, no lost local write.
# vms: 2
# disks: none
# timeout: 600
load_netmirror
. /tests/nmlib.sh
brd_setup 64 1
on_peer ". /tests/lib.sh; load_netmirror; brd_setup 64 1" || fail "peer setup"
S=$(( $(dev_size /dev/ram0) / 512 ))
on_peer "dmsetup create nm0 --table '0 $S netmirror /dev/ram0 169.254.0.1:7789 C flush'" || fail "peer create"
dmsetup create nm0 --table "0 $S netmirror /dev/ram0 169.254.0.2:7789 C flush 2 role primary" || fail "create"
nm_wait_synced nm0 60 || fail "no connection/initial sync: $(dmsetup status nm0)"
pattern write /dev/mapper/nm0 1 16M --direct --quiet || fail "write while connected"
total=$(nm_status nm0 total_regions)

# 1. by message
dmsetup message nm0 0 disconnect || fail "disconnect message"
check message/standalone nm_wait_conn nm0 standalone 10
check message/peer-connecting on_peer ". /tests/lib.sh; . /tests/nmlib.sh; nm_wait_conn nm0 connecting 15"
check message/write-standalone pattern write /dev/mapper/nm0 2 8M --direct --quiet
check message/local-data pattern verify /dev/ram0 2 8M --direct --quiet
insync=$(nm_status nm0 in_sync_regions)
check message/out-of-sync-counted [ "$insync" -lt "$total" ]
dmsetup message nm0 0 connect || fail "connect message"
nm_wait_conn nm0 connected 30 || fail "no reconnect after connect message: $(dmsetup status nm0)"
log "message: standalone -> connected, in_sync $insync/$total"

# 2. by cutting the link on the peer for 12 s while writing (detected after
# the 6 s timeout, so "connecting" lasts about 6 s)
link_cut 12 || fail "could not reach the peer to cut the link"
pattern write /dev/mapper/nm0 3 32M --direct --quiet > /tmp/load.out 2>&1 &
lp=$!
check linkcut/detected nm_wait_conn nm0 connecting 20
log "link cut: $(dmsetup status nm0)"
wait $lp
check_eq linkcut/write-across "$?" 0 || log "$(cat /tmp/load.out)"
check linkcut/local-data pattern verify /dev/ram0 3 32M --direct --quiet
nm_wait_conn nm0 connected 60 || fail "no reconnect after the link came back: $(dmsetup status nm0)"
on_peer ". /tests/lib.sh; . /tests/nmlib.sh; nm_wait_conn nm0 connected 30" || fail "peer not connected"
# writes flow again (protocol C: on the peer when they return)
$DD if=/dev/urandom of=/tmp/blk bs=4k count=1 status=none
$DD if=/tmp/blk of=/dev/mapper/nm0 bs=4k seek=5 count=1 oflag=direct,dsync conv=notrunc status=none || fail "write after reconnect"
got=$(on_peer "$DD if=/dev/ram0 bs=4k skip=5 count=1 iflag=direct status=none | $MD5SUM")
check_eq linkcut/replicated-after-reconnect "$got" "$($MD5SUM < /tmp/blk)"
log "link cut: connecting -> connected, replication resumed"
dmsetup remove nm0 || fail "remove"
on_peer "dmsetup remove nm0" || fail "peer remove"
exit 0
