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
	ps | grep -q '[n]m_conn/\|[n]m_send/' && fail "$1: netmirror threads left: $(ps | grep '[n]m_')"
	# listening sockets on 7789/7790 (0x1E6D/0x1E6E, state 0A)
	grep -qE ':1E6[DE] 00000000:0000 0A' /proc/net/tcp && fail "$1: listening socket left"
	return 0
}

# connected: remove the primary first, then the (now connecting) secondary
nm_local_pair C flush
pattern write /dev/mapper/nma 1 4M --direct --quiet || fail "write"
rmmod dm_netmirror 2>/dev/null && fail "module unloaded while devices exist"
dmsetup remove nma || fail "remove connected primary"
nm_wait_conn nmb connecting 15 || fail "secondary did not notice: $(dmsetup status nmb)"
dmsetup remove nmb || fail "remove connecting secondary"
no_leftovers connected
rmmod dm_netmirror || fail "rmmod after connected pair removed"
load_netmirror

# connecting: a node whose peer never comes
dmsetup create nma --table "0 131072 netmirror /dev/ram0 127.0.0.1:7790 C flush 4 listen 127.0.0.1:7789 role primary" || fail "create lone node"
nm_wait_conn nma connecting 10 || fail "lone node not connecting: $(dmsetup status nma)"
pattern write /dev/mapper/nma 2 4M --direct --quiet || fail "write while connecting"
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
nm_wait_conn nma connected 30 || fail "no reconnect after resume: $(dmsetup status nma)"
pattern write /dev/mapper/nma 3 4M --direct --quiet || fail "write after resume"
# (no resync yet: compare what was written since the reconnect)
wait_eval "pattern verify /dev/ram1 3 4M --direct --quiet" 10 || fail "not replicated after resume"

# during load: the secondary goes away under a running write load, then the
# primary is disconnected and reconnected under load, and the module stays
pattern write /dev/mapper/nma 4 48M --direct --quiet > /tmp/load.out 2>&1 &
lp=$!
sleep 1
dmsetup remove nmb || fail "remove secondary during load"
sleep 1
dmsetup message nma 0 disconnect || fail "disconnect during load"
dmsetup message nma 0 connect || fail "connect during load"
rmmod dm_netmirror 2>/dev/null && fail "module unloaded during load"
wait $lp || fail "write load failed when the peer was removed: $(cat /tmp/load.out)"
pattern verify /dev/ram0 4 48M --direct --quiet || fail "local data lost during load"
# again with the primary's load running while its own table is reloaded
pattern write /dev/mapper/nma 5 32M --direct --quiet > /tmp/load.out 2>&1 &
lp=$!
sleep 1
dmsetup reload nma --table "0 131072 netmirror /dev/ram0 127.0.0.1:7790 C flush 4 listen 127.0.0.1:7789 role primary" || fail "reload during load"
dmsetup resume nma || fail "resume after reload during load"
wait $lp || fail "write load failed across a reload"
pattern verify /dev/ram0 5 32M --direct --quiet || fail "local data lost across a reload"
dmsetup remove nma || fail "remove primary after load"
no_leftovers load
rmmod dm_netmirror || fail "final rmmod"
exit 0
