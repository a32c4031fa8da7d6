# netmirror helpers for guest tests (busybox ash); source after lib.sh:
#   . /tests/nmlib.sh
#
#   nm_status DEV FIELD   one status field of "dmsetup status DEV", by its
#                         name in NM_STATUS_FIELDS (dm-mirror-net/nm_params.h):
#                         role connection disks regions writes_sent
#                         writes_received pending bytes_sent bytes_received
#                         writes_rejected last_error resync_kibs eta_seconds
#                         resync_bytes; or a half of disks/regions, named as
#                         in "nmsetup status --json": disk peer_disk
#                         in_sync_regions total_regions.  An unknown name
#                         fails the test.  Indexes: /tests/nm-status-fields.sh,
#                         generated from the header (src/nmfields.c).
#   nm_status_pick FIELD  the same, from a "dmsetup status" line on stdin
#                         (e.g. on_peer 'dmsetup status nm0' | nm_status_pick role)
#   wait_eval CMD SECS    like wait_for, CMD evaluated in this shell
#   nm_wait_conn DEV STATE SECS   wait until DEV's connection is STATE
#   nm_wait_synced DEV SECS       connected and in_sync == total
#   nm_local_pair PROTO ORD [SECTORS [DEV_A DEV_B [OPTS_A [OPTS_B]]]]
#                         nma (primary, DEV_A = /dev/ram0, listens
#                         127.0.0.1:7789) and nmb (secondary, DEV_B =
#                         /dev/ram1, 127.0.0.1:7790) in this VM, OPTS_A/OPTS_B
#                         (option words, e.g. "on_io_error pass_on") added to
#                         their tables; connected and in sync, or the test
#                         fails.  SECTORS "" = DEV_A's size.
#   nm_local_unpair       remove both
#   nm_zero DEV...        fill each device with zeroes (a fresh metadata
#                         device: no generation, no bitmap)
#   nm_protos             the protocols a test loops over: $nm_protos, or
#                         "A B C" (each generation/durability promise holds
#                         under every protocol)
#   nm_each_proto FUNC    FUNC once per protocol of nm_protos, with P set to
#                         it and every check named <P>/...
#   held_write TAG SEED OFFSET_MIB   a 1 MiB O_DIRECT write to nma in the
#                         background; running TAG / ended_ok TAG /
#                         ended_failed TAG tell how it is doing (fencing)
#   lose_link             nmb disconnects: nmb standalone, nma connecting
#   nm_kpid NAME          the pid of the kernel thread NAME (renice it)
#   nm_detach_lowa BACKING   nma (on lowa over BACKING) detached by a
#                         failing write (check detached), lowa healthy again
#   nm_reattach_paused BACKING   nma detached (nm_detach_lowa) and
#                         attached again under nmb's paused resync
#   nm_round_writer CMD...   CMD... N for N = 1, 2, ... in the background
#                         until /tmp/stop (/tmp/wr.log, /tmp/wr.n, WPID)
#   pair_rxq              the largest receive queue (bytes unread) of a
#                         socket on nm_local_pair's ports

# like wait_for, but evaluates CMD in this shell (so it can call functions)
wait_eval() {
	local cmd=$1 t=$((${2:-30} * ${nm_tscale:-1})) end
	_nm_up
	end=$((nm_up + t))
	while ! eval "$cmd" >/dev/null 2>&1; do
		_nm_up
		[ "$nm_up" -lt "$end" ] || return 1
		sleep 0.2
	done
	return 0
}

. /tests/nm-status-fields.sh

nm_status_pick() {
	local l
	read -r l
	nm_status_of "$l" "$1"
}

# STATUS FIELD: the field of a "dmsetup status" line, printed; _nm_sf sets
# $nm_sv instead (neither forks nor execs: the pollers call them in loops,
# and under TCG each fork costs tens of ms)
nm_status_of() {
	_nm_sf "$1" "$2"
	echo "$nm_sv"
}

_nm_sf() {
	local f=$2 half= i
	case $f in
	disk) f=disks half=1 ;;
	peer_disk) f=disks half=2 ;;
	in_sync_regions) f=regions half=1 ;;
	total_regions) f=regions half=2 ;;
	esac
	eval "i=\${NM_SF_$f:-}"
	# a failed check too: this may run in a pipeline's subshell
	[ -n "$i" ] || { check_bad "nm_status/$2" "no status field '$2' in nm_params.h"; fail "nm_status: no status field '$2'"; }
	# "0 SECTORS netmirror FIELD0 FIELD1 ..."
	set -f
	# shellcheck disable=SC2086
	set -- $1
	set +f
	nm_sv=
	[ $# -ge $((i + 4)) ] || return 0
	shift $((i + 3))
	nm_sv=$1
	case $half in
	1) nm_sv=${nm_sv%%/*} ;;
	2) nm_sv=${nm_sv#*/} ;;
	esac
}

nm_status() {
	local l
	l=$(dmsetup status "$1") || return 1
	nm_status_of "$l" "$2"
}

nm_wait_conn() {
	wait_for "[ \"\$(nm_status $1 connection)\" = $2 ]" "${3:-30}"
}

# META_DEV: the primary flag (0x8, 1.18.13) of the netmirror superblock's
# flags (byte 12), 1 or 0, read with O_DIRECT
nm_sb_primary() {
	local f
	f=$($DD if="$1" bs=4096 count=1 iflag=direct status=none | od -An -tu4 -j12 -N4 | tr -d ' ')
	echo $(( (f >> 3) & 1 ))
}

# DEV: connected, every region in sync (now)
nm_synced() {
	local l
	l=$(dmsetup status "$1") || return 1
	_nm_sf "$l" connection
	[ "$nm_sv" = connected ] || return 1
	_nm_sf "$l" regions
	[ "${nm_sv%%/*}" = "${nm_sv#*/}" ]
}

# DEV WORD: standalone with last_error WORD (a refused link)
nm_standalone() {
	[ "$(nm_status "$1" connection)" = standalone ] &&
		[ "$(nm_status "$1" last_error)" = "$2" ]
}

# DEV [SECS]: every write DEV sent is confirmed stable on the peer (status
# "unconfirmed" 0: a stable point's P_SYNC_ACK came after the last one), so
# a link loss now marks nothing out of sync.  Connected, that is a quiet
# pair; a link loss also empties the transfer log (into out of sync), so
# callers check the connection first (nm_wait_synced)
nm_wait_confirmed() {
	wait_for "[ \"\$(nm_status $1 unconfirmed)\" = 0 ]" "${2:-30}"
}

# connected, and every region in sync (the resync after a connect is over)
nm_wait_synced() {
	wait_eval "nm_synced $1" "${2:-60}"
}

# nm_local_pair PROTO ORD [SECTORS DEV_A DEV_B OPTS_A OPTS_B]: nma (primary,
# listening on 7789) and nmb (7790) in this VM, connected and in sync.  Each
# connects to the other's port, or through a forwarder (slowfwd) to
# NM_PAIR_TO_B / NM_PAIR_TO_A (host:port) when set.
nm_local_pair() {
	local proto=$1 ord=$2 sz=${3:-} da=${4:-/dev/ram0} db=${5:-/dev/ram1} oa=${6:-} ob=${7:-} na nb
	local tob=${NM_PAIR_TO_B:-127.0.0.1:7790} toa=${NM_PAIR_TO_A:-127.0.0.1:7789}
	[ -n "$sz" ] || sz=$(( $(dev_size "$da") / 512 ))
	# shellcheck disable=SC2086
	na=$(( 4 + $(echo $oa | wc -w) )) nb=$(( 2 + $(echo $ob | wc -w) ))
	dmsetup create nmb --table "0 $sz netmirror $db $toa $proto $ord $nb listen 127.0.0.1:7790${ob:+ $ob}" ||
		fail "create nmb ($proto $ord $ob)"
	dmsetup create nma --table "0 $sz netmirror $da $tob $proto $ord $na listen 127.0.0.1:7789 role primary${oa:+ $oa}" ||
		fail "create nma ($proto $ord $oa)"
	nm_wait_synced nma 60 || fail "nma did not connect and sync ($proto $ord): $(dmsetup status nma)"
	nm_wait_synced nmb 30 || fail "nmb did not connect and sync ($proto $ord): $(dmsetup status nmb)"
}

nm_local_unpair() {
	dmsetup remove nma || fail "remove nma"
	dmsetup remove nmb || fail "remove nmb"
}

nm_zero() {
	local d
	for d in "$@"; do
		$DD if=/dev/zero of="$d" bs=1M count=$(( $(dev_size "$d") / 1048576 )) oflag=direct status=none ||
			fail "zero $d"
	done
}

nm_protos() {
	echo "${nm_protos:-A B C}" | tr , " "
}

nm_each_proto() {
	for P in $(nm_protos); do
		NM_CHECK_PREFIX=$P/
		"$1"
	done
	NM_CHECK_PREFIX=
}

held_write() {
	rm -f "/tmp/$1.rc"
	( pattern write /dev/mapper/nma "$2" 1M --offset "${3}M" --direct --quiet; echo $? > "/tmp/$1.rc" ) &
}
running() { [ ! -e "/tmp/$1.rc" ]; }
ended_ok() { [ "$(cat "/tmp/$1.rc" 2>/dev/null)" = 0 ]; }
ended_failed() { [ -e "/tmp/$1.rc" ] && [ "$(cat "/tmp/$1.rc")" != 0 ]; }

# lower ok|bad DEV BACKING: the dm device DEV ($S sectors) becomes a
# dm-linear over BACKING, or a dm-flakey over it failing every I/O (a disk
# failure, for on_io_error)
lower() {
	local t="0 ${S:?} linear $3 0"
	[ "$1" = bad ] && t="0 $S flakey $3 0 0 3600"
	dmsetup reload "$2" --table "$t" && dmsetup resume "$2" || fail "$2: lower $1"
}

lose_link() {
	dmsetup message nmb 0 disconnect || fail "disconnect nmb"
	nm_wait_conn nmb standalone 20 || fail "nmb not standalone"
	nm_wait_conn nma connecting 20 || fail "nma did not notice"
}

# the pid of the kernel thread NAME (e.g. nm_conn/253:0), for renice
nm_kpid() {
	local f
	for f in /proc/[0-9]*/comm; do
		[ "$(cat "$f" 2>/dev/null)" = "$1" ] || continue
		f=${f#/proc/}
		echo "${f%/comm}"
		return 0
	done
	return 1
}

# DEV's major:minor, as the kernel log names a dm device
nm_devno() {
	dmsetup info -c --noheadings -o major,minor --separator : "$1" | tr -d ' '
}

# DEV: "reads writes" completed on dm device DEV (its /sys stat)
dm_ios() {
	local mm
	mm=$(nm_devno "$1") || fail "dmsetup info $1"
	awk '{ print $1, $5 }' "/sys/dev/block/$mm/stat" || fail "no stat for $1 ($mm)"
}

# nma, a primary on the dm device lowa over BACKING (lower), detached by a
# failing write and attached again while nmb's resync is paused: nma is an
# inconsistent sync target, every region to resync.  Checks detached,
# attach, target.
nm_detach_lowa() {
	lower bad lowa "$1"
	$DD if=/dev/urandom of=/dev/mapper/nma bs=4k seek=100 count=1 oflag=direct conv=notrunc status=none
	check_wait detached 10 "[ \"\$(nm_status nma disk)\" = diskless ]"
	lower ok lowa "$1"
}

nm_reattach_paused() {
	dmsetup message nmb 0 pause_resync || fail "pause_resync"
	nm_detach_lowa "$1"
	check attach dmsetup message nma 0 attach
	check_wait target 20 "[ \"\$(nm_status nma connection)\" = sync_target ]"
}

# nm_sync_round OP DEV N: round N of a writer (nm_round_writer), one 64 KiB
# O_DIRECT|O_DSYNC write at 16 MiB or 16 MiB + 64 KiB by turns, seed 100 +
# N (a round that succeeds is exactly a durable acknowledged write); OP
# write or verify.  NM_ROUND_MODE=--direct: O_DIRECT only (a round that
# succeeds is a completed write, durable only on a disk with no volatile
# cache)
nm_sync_round() {
	# shellcheck disable=SC2086
	pattern "$1" "$2" $((100 + $3)) 64k --size 64k --offset $((16384 + $3 % 2 * 64))k \
		--bs-min 65536 --bs-max 65536 ${NM_ROUND_MODE:---sync} --no-fsync --quiet
}

# NAME DEV: the last two rounds of nm_sync_round that succeeded (W1 and W1 -
# 1) are on DEV.  Round W1 + 1, if it ran and failed, was in flight at the
# fault; its write may still have reached the media, in round W1 - 1's
# area, which may then hold either (a failed write promises nothing).
nm_check_sync_rounds() {
	local out=""
	out=$(nm_sync_round verify "$2" "$W1" 2>&1) || out="round $W1: $out"
	if [ -z "$out" ] && [ "$W1" -gt 1 ] && ! nm_sync_round verify "$2" $((W1 - 1)) > /dev/null 2>&1; then
		if grep -q "^$((W1 + 1)) [^0]" /tmp/wr.log && nm_sync_round verify "$2" $((W1 + 1)) > /dev/null 2>&1; then
			log "$NM_CHECK_PREFIX$1: round $((W1 + 1)) (failed, in flight at the fault) is in round $((W1 - 1))'s area"
		else
			out="round $((W1 - 1)): $(nm_sync_round verify "$2" $((W1 - 1)) 2>&1)"
		fi
	fi
	if [ -z "$out" ]; then check_ok "$1"; else check_bad "$1" "$out"; fi
}

# In the background until /tmp/stop exists: CMD... N for N = 1, 2, ... (one
# round a call), each logged as "N rc ms" (now_ms, dur-power-lib.sh) in
# /tmp/wr.log, the last that succeeded in /tmp/wr.n; its pid in WPID.
nm_round_writer() {
	rm -f /tmp/stop /tmp/wr.n /tmp/wr.log
	(
		n=0
		while [ ! -e /tmp/stop ]; do
			n=$((n + 1))
			"$@" $n
			rc=$?
			echo "$n $rc $(now_ms)" >> /tmp/wr.log
			# atomic: read while it runs, never seen empty
			[ $rc != 0 ] || { echo $n > /tmp/wr.t && mv -f /tmp/wr.t /tmp/wr.n; }
		done
	) &
	WPID=$!
}

# link losses logged so far (the state change "connection X -> connecting")
drops() { dmesg | grep -c 'connection [a-z_]* -> connecting'; }

# the largest receive queue (bytes unread) of a socket on ports 7789/7790
# (nm_local_pair's), from /proc/net/tcp
pair_rxq() {
	local m=0 sl la ra st q rest v
	while read -r sl la ra st q rest; do
		case "$la $ra" in
		*:1E6D\ *|*:1E6E\ *|*:1E6D|*:1E6E) ;;
		*) continue ;;
		esac
		v=$((0x${q#*:}))
		[ "$v" -gt "$m" ] && m=$v
	done < /proc/net/tcp
	echo "$m"
}
