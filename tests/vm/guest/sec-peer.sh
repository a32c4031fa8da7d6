# Who may connect and what a peer may ask (issue 11, first part).
#   1. Only the configured peer's address may connect: nmhostile from
#      127.0.0.2 to the primary's listen port (peer 127.0.0.1) is closed
#      before any handshake and last_error says unknown_peer; the same case
#      from 127.0.0.1 is accepted (so the check can fail).
#   2. P_READ_REQ only from a primary that cannot read its own disk: a
#      hostile peer that claims "primary, uptodate" to the secondary, and one
#      that claims "secondary" to the primary, get no data and lose the link
#      (bad_packet).  Before: the secondary sent sector 0.
#   3. P_RS_START into an uptodate primary is refused; it stays uptodate.
# After each case the real peer reconnects, and a replicated write leaves
# both backing devices identical.
# vms: 1
# disks: none
# timeout: 300
load_netmirror
. /tests/nmlib.sh
brd_setup 16 2
nm_local_pair C flush
pattern write /dev/mapper/nma 7 2M --direct --quiet || fail "seed write"

# hostile DEV PORT CASE [SRC] -> the NMH line
hostile() {
	if [ -n "${4:-}" ]; then
		NMH_SRC=$4 nmhostile run 127.0.0.1 "$2" "$3" | grep '^NMH case='
	else
		nmhostile run 127.0.0.1 "$2" "$3" | grep '^NMH case='
	fi
}

reconnect() {
	dmsetup message "$1" 0 connect || fail "connect $1"
	nm_wait_synced nma 60 || fail "pair did not come back: $(dmsetup status nma)"
	nm_wait_synced nmb 30 || fail "pair did not come back: $(dmsetup status nmb)"
}

# 1. address filter, against the primary while its secondary is away
dmsetup message nmb 0 disconnect || fail "disconnect nmb"
nm_wait_conn nma connecting 15 || fail "nma not connecting"
out=$(hostile nma 7789 h-silent 127.0.0.2)
log "from 127.0.0.2: $out"
check_match addr/other-refused "$out" 'accepted=0'
check_eq addr/other-last-error "$(nm_status nma last_error)" unknown_peer
out=$(hostile nma 7789 h-read-req)
log "from 127.0.0.1 (control): $out"
check_match addr/peer-address-accepted "$out" 'accepted=1'
reconnect nmb

# 2a. a read through the secondary by a "primary" that has its data
dmsetup message nma 0 disconnect || fail "disconnect nma"
nm_wait_conn nmb connecting 15 || fail "nmb not connecting"
out=$(hostile nmb 7790 h-read-req)
log "read via secondary: $out"
check_match read/secondary-accepted-hello "$out" 'accepted=1'
check_match read/secondary-no-data "$out" 'note=no-read-data'
check_eq read/secondary-last-error "$(nm_status nmb last_error)" bad_packet
reconnect nma

# 2b. a read through the primary by a "secondary"
dmsetup message nmb 0 disconnect || fail "disconnect nmb"
nm_wait_conn nma connecting 15 || fail "nma not connecting"
out=$(hostile nma 7789 h-read-req)
log "read via primary: $out"
check_match read/primary-no-data "$out" 'note=no-read-data'
check_eq read/primary-last-error "$(nm_status nma last_error)" bad_packet

# 3. a resync into the uptodate primary
out=$(hostile nma 7789 h-rs-start-then-junk)
log "rs_start into primary: $out"
check_eq rs-start/primary-still-uptodate "$(nm_status nma disk)" uptodate
check_eq rs-start/primary-last-error "$(nm_status nma last_error)" bad_packet
reconnect nmb

# the pair is whole
pattern write /dev/mapper/nma 8 4M --direct --quiet || fail "final write"
nm_wait_synced nma 60 || fail "not in sync: $(dmsetup status nma)"
check_eq data/identical "$(dev_sum /dev/ram0)" "$(dev_sum /dev/ram1)"
nm_local_unpair
