# Peer authentication (secret <key-desc>, a "logon" key; dm-netmirror 1.3):
# a pair with the same secret connects and replicates, and "dmsetup table"
# shows only the key's description; a wrong secret (auth_failed), a missing
# secret (auth_mismatch) never connect; back to the right one, the pair
# reconnects and resyncs to identical.  Against a lone secondary with the
# secret, nmhostile (tests/vm/src/nmhostile.c, its own HMAC-SHA256) shows:
# no auth feature refused (auth_mismatch), a wrong key, a reflected
# challenge/response and a replay of a successful handshake refused
# (auth_failed), a response bound to another address (what a relay
# between the nodes would forward) refused (auth_failed), the right key
# accepted (and the node's own response verifies); after the handshake a
# packet with the link's MAC is answered, one with a wrong MAC (injected)
# drops the link (auth_error).  Keys are added with nmhostile addkey (the image has no keyctl).
# vms: 1
# disks: none
# timeout: 400
load_netmirror
. /tests/nmlib.sh
brd_setup 16 3
S=$(( $(dev_size /dev/ram0) / 512 ))
K1="correct horse battery staple"
nmhostile addkey nm:r0 "$K1" >/dev/null || fail "cannot add a logon key"
nmhostile addkey nm:other "not the same secret" >/dev/null || fail "add nm:other"
dmsetup create nmprobe --table "0 $S netmirror /dev/ram2 127.0.0.1:7799 C flush 2 secret nm:r0" 2>/dev/null ||
	fail "the module refuses the secret option"
dmsetup remove nmprobe

ta() { echo "0 $S netmirror /dev/ram0 127.0.0.1:7790 C flush 6 listen 127.0.0.1:7789 role primary $1"; }
tb() { echo "0 $S netmirror /dev/ram1 127.0.0.1:7789 C flush 2 listen 127.0.0.1:7790 $1" | sed 's/ 2 listen \([^ ]*\) secret/ 4 listen \1 secret/'; }
reload() { dmsetup suspend "$1" && dmsetup load "$1" --table "$2" && dmsetup resume "$1" || fail "reload $1: $2"; }
le() { nm_status "$1" last_error; }

# 1. the right secret on both
dmsetup create nmb --table "$(tb 'secret nm:r0')" || fail "create nmb: $(tb 'secret nm:r0')"
dmsetup create nma --table "$(ta 'secret nm:r0')" || fail "create nma"
nm_wait_synced nma 60 || fail "same secret: no connection: nma $(dmsetup status nma); nmb $(dmsetup status nmb)"
dmsetup table nma | grep -q ' secret nm:r0$' || fail "table does not name the key: $(dmsetup table nma)"
dmsetup table nma | grep -q "horse" && fail "the secret appears in the table"
dmsetup status nma | grep -q "horse" && fail "the secret appears in the status"
pattern write /dev/mapper/nma 1 4M --direct --quiet || fail "write 1"
nm_wait_synced nma 30 || fail "after write 1"
[ "$(dev_sum /dev/ram0)" = "$(dev_sum /dev/ram1)" ] || fail "right secret: ram0 != ram1"
log "right secret: connected, replicated, table shows only the description"

# 2. a wrong secret on the secondary
reload nmb "$(tb 'secret nm:other')"
wait_for "[ \"\$(nm_status nma last_error)\" = auth_failed ]" 20 ||
	fail "wrong secret: nma last_error $(le nma): $(dmsetup status nma)"
wait_for "[ \"\$(nm_status nmb last_error)\" = auth_failed ]" 20 ||
	fail "wrong secret: nmb last_error $(le nmb): $(dmsetup status nmb)"
pattern write /dev/mapper/nma 2 2M --direct --quiet || fail "write 2 while refused"
for i in 1 2 3 4 5 6; do
	[ "$(nm_status nma connection)" = connecting ] || fail "wrong secret: nma $(dmsetup status nma)"
	sleep 0.5
done
log "wrong secret: refused (auth_failed on both), primary writes on"

# 3. no secret on the secondary
reload nmb "$(tb '')"
wait_for "[ \"\$(nm_status nma last_error)\" = auth_mismatch ]" 20 ||
	fail "missing secret: nma last_error $(le nma): $(dmsetup status nma)"
[ "$(le nmb)" = auth_mismatch ] || wait_for "[ \"\$(nm_status nmb last_error)\" = auth_mismatch ]" 10 ||
	fail "missing secret: nmb last_error $(le nmb)"
[ "$(nm_status nma connection)" = connecting ] || fail "missing secret: nma $(dmsetup status nma)"
log "missing secret: refused (auth_mismatch on both)"

# 4. the right one again: reconnect, resync what was missed
reload nmb "$(tb 'secret nm:r0')"
nm_wait_synced nma 60 || fail "right secret again: nma $(dmsetup status nma); nmb $(dmsetup status nmb)"
nm_wait_synced nmb 30 || fail "nmb: $(dmsetup status nmb)"
[ "$(dev_sum /dev/ram0)" = "$(dev_sum /dev/ram1)" ] || fail "after the resync: ram0 != ram1"
pattern verify /dev/ram1 2 2M --direct --quiet || fail "write 2 not resynced"
log "right secret again: reconnected, resynced, identical"
nm_local_unpair

# 5. a hostile client against a lone secondary holding the secret
dmsetup create nmc --table "0 $S netmirror /dev/ram2 127.0.0.1:7792 C flush 4 listen 127.0.0.1:7791 secret nm:r0" || fail "create nmc"
nm_wait_conn nmc connecting 10 || fail "nmc not connecting"
h() { # h MODE WANT_ACCEPTED WANT_ERROR
	local out
	out=$(nmhostile auth 127.0.0.1 7791 "$1" "$K1") || fail "nmhostile auth $1: $out"
	echo "$out" | grep -q " accepted=$2 " || fail "auth $1: $out; $(dmsetup status nmc)"
	if [ -n "$3" ]; then
		wait_for "[ \"\$(nm_status nmc last_error)\" = $3 ]" 5 ||
			fail "auth $1: last_error $(le nmc), want $3: $out"
	fi
	nm_wait_conn nmc connecting 10 || fail "auth $1: nmc not back to connecting"
	log "auth $1 -> $(le nmc): $out"
	hout=$out
}
h none 0 auth_mismatch
h wrong 0 auth_failed
h reflect 0 auth_failed
h relay 0 auth_failed
h right 1 ""
echo "$hout" | grep -q "note=node-response-ok" || fail "the node's response did not verify: $hout"
# protocol 3: every packet after the handshake carries a MAC
h signed 1 ""
echo "$hout" | grep -q "note=ping-acked" || fail "a correctly MACed ping was not answered: $hout"
h inject 0 auth_error
dmesg | grep -q "packet authentication failed" || fail "no kernel log line for the injected packet"
[ -s /tmp/nmh-auth.bin ] || fail "no recorded handshake"
h replay 0 auth_failed
dmesg | grep -q "peer authentication failed" || fail "no kernel log line for the refusals"
dmsetup remove nmc || fail "remove nmc"
log "secret: right connects; wrong, missing, reflected and replayed refused"
exit 0
