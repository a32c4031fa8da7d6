# Wire integrity (integrity crc32c; dm-netmirror 1.3): a pair with it on
# connects and replicates; one side without it is refused
# (integrity_mismatch).  Against a lone secondary with integrity on,
# nmhostile (its own crc32c) shows: a ping with the right trailer is
# answered and the answer's trailer verifies; a ping with a wrong trailer,
# a missing trailer, and a P_DATA whose data was corrupted after its crc
# was computed are each detected (integrity_error, link dropped) and the
# corrupted write never reaches the disk; the same P_DATA intact is written.
# vms: 1
# disks: none
# timeout: 300
load_netmirror
. /tests/nmlib.sh
brd_setup 16 3
S=$(( $(dev_size /dev/ram0) / 512 ))
dmsetup create nmprobe --table "0 $S netmirror /dev/ram2 127.0.0.1:7799 C flush 2 integrity crc32c" 2>/dev/null ||
	fail "the module refuses the integrity option"
dmsetup remove nmprobe
le() { nm_status "$1" last_error; }
reload() { dmsetup suspend "$1" && dmsetup load "$1" --table "$2" && dmsetup resume "$1" || fail "reload $1: $2"; }
TB="0 $S netmirror /dev/ram1 127.0.0.1:7789 C flush 4 listen 127.0.0.1:7790 integrity crc32c"

# 1. a pair with integrity
dmsetup create nmb --table "$TB" || fail "create nmb"
dmsetup create nma --table "0 $S netmirror /dev/ram0 127.0.0.1:7790 C flush 6 listen 127.0.0.1:7789 role primary integrity crc32c" || fail "create nma"
nm_wait_synced nma 60 || fail "integrity pair: nma $(dmsetup status nma); nmb $(dmsetup status nmb)"
pattern write /dev/mapper/nma 1 8M --direct --quiet || fail "write 1"
nm_wait_synced nma 30 || fail "after write 1"
[ "$(dev_sum /dev/ram0)" = "$(dev_sum /dev/ram1)" ] || fail "integrity pair: ram0 != ram1"
log "pair with integrity: connected, replicated ($(nm_status nma bytes_sent) bytes sent)"
# 2. one side without it
reload nmb "0 $S netmirror /dev/ram1 127.0.0.1:7789 C flush 2 listen 127.0.0.1:7790"
wait_for "[ \"\$(nm_status nma last_error)\" = integrity_mismatch ]" 20 ||
	fail "integrity on one side only: nma $(dmsetup status nma)"
pattern write /dev/mapper/nma 2 2M --direct --quiet || fail "write 2"
reload nmb "$TB"
nm_wait_synced nma 60 || fail "integrity back: nma $(dmsetup status nma)"
[ "$(dev_sum /dev/ram0)" = "$(dev_sum /dev/ram1)" ] || fail "after the resync: ram0 != ram1"
log "integrity on one side only: refused (integrity_mismatch); back on both: resynced, identical"
nm_local_unpair

: > /tmp/findings
# 3. hostile packets against a lone secondary with integrity
$DD if=/dev/zero of=/dev/ram2 bs=1M count=1 oflag=direct status=none
dmsetup create nmc --table "0 $S netmirror /dev/ram2 127.0.0.1:7792 C flush 4 listen 127.0.0.1:7791 integrity crc32c" || fail "create nmc"
nm_wait_conn nmc connecting 10 || fail "nmc not connecting"
sect() { $DD if=/dev/ram2 bs=512 skip="$1" count=8 iflag=direct status=none | $MD5SUM | cut -d' ' -f1; }
a5=$(head -c 4096 /dev/zero | tr '\0' '\245' | $MD5SUM | cut -d' ' -f1)
zero=$(sect 1000)
c() { # c MODE SECTOR WANT_ERROR
	local out
	out=$(nmhostile crc 127.0.0.1 7791 "$1" "$2") || fail "nmhostile crc $1: $out"
	echo "$out" | grep -q " accepted=1 " || fail "crc $1: handshake not accepted: $out"
	if [ -n "$3" ]; then
		if ! wait_for "[ \"\$(nm_status nmc last_error)\" = $3 ]" 5; then
			# reported at the end, after the other checks
			log "FINDING: crc $1: last_error $(le nmc), want $3"
			echo "crc $1: last_error $(le nmc), want $3 ($(dmesg | grep 'netmirror' | tail -3 | sed 's/^\[[ 0-9.]*\] //' | tr '\n' '|'))" >> /tmp/findings
		fi
		echo "$out" | grep -q "closed_ms=-1" && fail "crc $1: connection not closed: $out"
	fi
	nm_wait_conn nmc connecting 10 || fail "crc $1: nmc not back to connecting"
	log "crc $1 -> $(le nmc): $out"
	cout=$out
}
c good-ping 0 ""
echo "$cout" | grep -q "note=pingack-ok" || fail "ping with a right trailer: $cout"
c bad-ping 0 integrity_error
c no-trailer 0 integrity_error
c bad-data 128 integrity_error
[ "$(sect 128)" = "$zero" ] || fail "the corrupted P_DATA reached the disk"
c good-data 64 ""
[ "$(sect 64)" = "$a5" ] || fail "the intact P_DATA was not written"
dmesg | grep -q "packet checksum mismatch" || fail "no kernel log line for the mismatches"
dmsetup remove nmc || fail "remove nmc"
[ -s /tmp/findings ] && fail "kernel bug: $(tr '\n' ';' < /tmp/findings)"
log "integrity: right trailers accepted, 3 corruptions detected, corrupted write not applied"
exit 0
