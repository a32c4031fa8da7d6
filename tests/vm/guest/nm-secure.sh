# Integrity and authentication: "integrity crc32c" on both nodes replicates
# with a checksum on every packet; on one node only it is refused
# (integrity_mismatch).  "secret <logon key>": the right key on both sides
# connects and replicates; different keys are refused (auth_failed); a
# secret on one side only is refused (auth_mismatch); a missing key fails
# the constructor.  Neither the key nor its data appears in "dmsetup table".
# vms: 1
# disks: none
# timeout: 300
load_netmirror
. /tests/nmlib.sh
brd_setup 32 2
S=65536
T="127.0.0.1"
pair() {	# pair "<opts for b>" "<opts for a>"
	dmsetup create nmb --table "0 $S netmirror /dev/ram1 $T:7789 C flush $1" || return 1
	dmsetup create nma --table "0 $S netmirror /dev/ram0 $T:7790 C flush $2" || return 1
}
unpair() { dmsetup remove nma; dmsetup remove nmb; }

# integrity on both
pair "4 listen $T:7790 integrity crc32c" "6 listen $T:7789 role primary integrity crc32c" || fail "create integrity pair"
nm_wait_synced nma 60 || fail "integrity pair did not sync: $(dmsetup status nma)"
pattern write /dev/mapper/nma 3 16M --direct --quiet || fail "write with integrity"
wait_eval "[ \"\$(dev_sum /dev/ram0)\" = \"\$(dev_sum /dev/ram1)\" ]" 20 || fail "integrity pair differs"
log "integrity crc32c: synced and replicated, $(nm_field nma 8) bytes sent"
unpair
# integrity on one side only
pair "2 listen $T:7790" "6 listen $T:7789 role primary integrity crc32c" || fail "create mismatched pair"
wait_eval "[ \$(nm_field nma 11) = integrity_mismatch ]" 20 || fail "integrity mismatch not reported: $(dmsetup status nma)"
[ "$(nm_field nma 2)" = connecting ] || fail "mismatched pair connected"
unpair

# secrets
nm_expect_fail "secret with no such key" dmsetup create nmx --table "0 $S netmirror /dev/ram0 $T:7790 C flush 2 secret nm:none"
nmkey add logon nm:good s3cret-one >/dev/null || fail "add key"
nmkey add logon nm:other s3cret-two >/dev/null || fail "add key 2"
pair "4 listen $T:7790 secret nm:good" "6 listen $T:7789 role primary secret nm:good" || fail "create secret pair"
nm_wait_synced nma 60 || fail "right secret did not connect: $(dmsetup status nma)"
pattern write /dev/mapper/nma 4 8M --direct --quiet || fail "write with secret"
wait_eval "[ \"\$(dev_sum /dev/ram0)\" = \"\$(dev_sum /dev/ram1)\" ]" 20 || fail "secret pair differs"
dmsetup table nma | grep -q "secret nm:good" || fail "secret description not reprinted"
dmsetup table nma | grep -q "s3cret" && fail "secret data in dmsetup table"
unpair
pair "4 listen $T:7790 secret nm:other" "6 listen $T:7789 role primary secret nm:good" || fail "create wrong-secret pair"
wait_eval "[ \$(nm_field nma 11) = auth_failed ]" 20 || fail "wrong secret not refused: $(dmsetup status nma)"
sleep 2
[ "$(nm_field nma 2)" = connecting ] || fail "wrong secret connected: $(dmsetup status nma)"
unpair
pair "2 listen $T:7790" "6 listen $T:7789 role primary secret nm:good" || fail "create one-sided pair"
wait_eval "[ \$(nm_field nma 11) = auth_mismatch ]" 20 || fail "missing secret not refused: $(dmsetup status nma)"
[ "$(nm_field nma 2)" = connecting ] || fail "one-sided secret connected"
unpair
log "secret: right key connects; other key auth_failed; one-sided auth_mismatch; missing key refused at create"
exit 0
