# netmirror helpers for guest tests (busybox ash); source after lib.sh:
#   . /tests/nmlib.sh
#
#   nm_field DEV N        word N of "dmsetup status DEV" after the target
#                         name: 1 role, 2 connection, 3 disk/peer_disk,
#                         4 in_sync/total, 5 writes_sent, 6 writes_received,
#                         7 pending, 8 bytes_sent, 9 bytes_received,
#                         10 writes_rejected, 11 last_error
#   wait_eval CMD SECS    like wait_for, CMD evaluated in this shell
#   nm_wait_conn DEV STATE SECS   wait until DEV's connection is STATE
#   nm_wait_synced DEV SECS       connected and in_sync == total
#   nm_local_pair PROTO ORD [SECTORS]
#                         nma (primary, /dev/ram0, listens 127.0.0.1:7789)
#                         and nmb (secondary, /dev/ram1, 127.0.0.1:7790)
#                         in this VM, connected; fails the test otherwise
#   nm_local_unpair       remove both
#   nm_expect_fail DESC CMD...   CMD must fail

# like wait_for, but evaluates CMD in this shell (so it can call functions)
wait_eval() {
	local cmd=$1 t=${2:-30} end
	end=$(( $(cut -d. -f1 /proc/uptime) + t ))
	while ! eval "$cmd" >/dev/null 2>&1; do
		[ "$(cut -d. -f1 /proc/uptime)" -lt "$end" ] || return 1
		sleep 0.2
	done
	return 0
}

nm_field() {
	dmsetup status "$1" | awk -v n="$2" '{ print $(3 + n) }'
}

nm_wait_conn() {
	wait_for "[ \"\$(dmsetup status $1 | awk '{print \$5}')\" = $2 ]" "${3:-30}"
}

# connected, and every region in sync (the resync after a connect is over)
nm_wait_synced() {
	wait_eval "dmsetup status $1 | awk '{ split(\$7, r, \"/\"); exit !(\$5 == \"connected\" && r[1] == r[2]) }'" "${2:-60}"
}

nm_local_pair() {
	local proto=$1 ord=$2 sz=${3:-$(( $(dev_size /dev/ram0) / 512 ))}
	dmsetup create nmb --table "0 $sz netmirror /dev/ram1 127.0.0.1:7789 $proto $ord 2 listen 127.0.0.1:7790" ||
		fail "create nmb ($proto $ord)"
	dmsetup create nma --table "0 $sz netmirror /dev/ram0 127.0.0.1:7790 $proto $ord 4 listen 127.0.0.1:7789 role primary" ||
		fail "create nma ($proto $ord)"
	nm_wait_synced nma 60 || fail "nma did not connect and sync ($proto $ord): $(dmsetup status nma)"
	nm_wait_synced nmb 30 || fail "nmb did not connect and sync ($proto $ord): $(dmsetup status nmb)"
}

nm_local_unpair() {
	dmsetup remove nma || fail "remove nma"
	dmsetup remove nmb || fail "remove nmb"
}

nm_expect_fail() {
	local desc=$1
	shift
	if "$@" >/tmp/nm_out 2>&1; then
		fail "$desc: succeeded but should have failed"
	fi
}
