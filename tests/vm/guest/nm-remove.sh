# Device removal and module unload in every state: connected, connecting,
# standalone, suspended and during a write load.  Afterwards no netmirror
# thread and no listening socket remain, and the module unloads; while any
# device exists the module refuses to unload.
# vms: 1
# disks: none
# timeout: 400
load_netmirror
. /tests/nmlib.sh
brd_setup 64 2

no_leftovers() {
	# threads
	check_eq "$1/no-threads" "$(ps | grep '[n]m_conn/\|[n]m_send/')" ""
	# listening sockets on 7789/7790 (0x1E6D/0x1E6E, state 0A)
	check_fail "$1/no-listener" grep -qE ':1E6[DE] 00000000:0000 0A' /proc/net/tcp
	return 0
}

# connected: remove the primary first, then the (now connecting) secondary
nm_local_pair C flush
pattern write /dev/mapper/nma 1 4M --direct --quiet || fail "write"
check_fail connected/rmmod-refused rmmod dm_netmirror
dmsetup remove nma || fail "remove connected primary"
check connected/secondary-notices nm_wait_conn nmb connecting 15
dmsetup remove nmb || fail "remove connecting secondary"
no_leftovers connected
check connected/rmmod rmmod dm_netmirror
load_netmirror

# connecting: a node whose peer never comes
dmsetup create nma --table "0 131072 netmirror /dev/ram0 127.0.0.1:7790 C flush 4 listen 127.0.0.1:7789 role primary" || fail "create lone node"
check connecting/state nm_wait_conn nma connecting 10
check connecting/write pattern write /dev/mapper/nma 2 4M --direct --quiet
dmsetup remove nma || fail "remove connecting node"
no_leftovers connecting

# standalone (after disconnect)
dmsetup create nma --table "0 131072 netmirror /dev/ram0 127.0.0.1:7790 C flush 4 listen 127.0.0.1:7789 role primary" || fail "create"
dmsetup message nma 0 disconnect || fail "disconnect"
nm_wait_conn nma standalone 10 || fail "not standalone"
dmsetup remove nma || fail "remove standalone node"
no_leftovers standalone

# suspended while connected, resumed, then removed
nm_local_pair B drain
dmsetup suspend nma || fail "suspend connected primary"
dmsetup resume nma || fail "resume"
check suspended/reconnect nm_wait_conn nma connected 30
check suspended/write pattern write /dev/mapper/nma 3 4M --direct --quiet
# (no resync yet: compare what was written since the reconnect)
check_wait suspended/replicated 10 "pattern verify /dev/ram1 3 4M --direct --quiet"

# during load: the secondary goes away under a running write load, then the
# primary is disconnected and reconnected under load, and the module stays
pattern write /dev/mapper/nma 4 48M --direct --quiet > /tmp/load.out 2>&1 &
lp=$!
sleep 1
dmsetup remove nmb || fail "remove secondary during load"
sleep 1
dmsetup message nma 0 disconnect || fail "disconnect during load"
dmsetup message nma 0 connect || fail "connect during load"
check_fail load/rmmod-refused rmmod dm_netmirror
wait $lp
check_eq load/peer-removed-load-ok "$?" 0 || log "$(cat /tmp/load.out)"
check load/local-data pattern verify /dev/ram0 4 48M --direct --quiet
# again with the primary's load running while its own table is reloaded
pattern write /dev/mapper/nma 5 32M --direct --quiet > /tmp/load.out 2>&1 &
lp=$!
sleep 1
dmsetup reload nma --table "0 131072 netmirror /dev/ram0 127.0.0.1:7790 C flush 4 listen 127.0.0.1:7789 role primary" || fail "reload during load"
dmsetup resume nma || fail "resume after reload during load"
wait $lp
check_eq reload/load-ok "$?" 0 || log "$(cat /tmp/load.out)"
check reload/local-data pattern verify /dev/ram0 5 32M --direct --quiet
dmsetup remove nma || fail "remove primary after load"
no_leftovers load
check final-rmmod rmmod dm_netmirror
exit 0
