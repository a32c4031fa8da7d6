# shellcheck shell=sh disable=SC2034,SC3043
# Guest-side library for netmirror VM tests (busybox ash).  Sourced by /init
# and, before each test, into the test's shell (installed as /tests/lib.sh,
# from tests/vm/guest-lib/).  Tests are sourced with "set -e" NOT in effect:
# check results and call fail/skip yourself.
#
# Named checks (assertions; the test goes on after a failed one and FAILs at
# its end; each check is one result line "PASS|FAIL vm/<test>/<NAME>" on the
# host).  NAME: one word ([A-Za-z0-9._@,=+/-], anything else becomes _),
# unique within the test (repeats are merged on the host: one FAIL fails it).
# Each returns 0 if the check passed, 1 if not.  Checks run on node a only.
#   check NAME CMD [ARG...]   passes if CMD (a command or function, not a
#                         string) exits 0; its output goes to the detail
#   check_fail NAME CMD [ARG...]   passes if CMD exits non-zero
#   check_eq NAME GOT WANT    passes if the strings are equal
#   check_match NAME TEXT ERE passes if TEXT matches the extended regex ERE
#   check_wait NAME SECS "CMD"   passes if wait_for "CMD" SECS succeeds
#   check_ok NAME / check_bad NAME DETAIL   a verdict the test worked out
#   Console: "NMCHECK: PASS NAME" / "NMCHECK: FAIL NAME: detail".
#
#   fail "msg"            end the test as FAIL with that reason (setup
#                         failures, or when going on makes no sense)
#   skip "msg"            end the test as SKIP (exit 77)
#   log "msg"             print "NMLOG: msg" on the console
#   now_ms                milliseconds since boot (/proc/uptime)
#   wait_for "cmd" SECS   poll cmd (eval'd in a subshell: functions work) every 0.2 s until it succeeds;
#                         returns 1 on timeout
#   load_netmirror [params]   modprobe the dependencies of dm-netmirror.ko
#                         and insmod it (FAIL if the module is not built)
#   brd_setup SIZE_MB COUNT   (re)load brd: /dev/ram0../dev/ram$((COUNT-1))
#   dev_sum DEV           md5 of the whole device (GNU md5sum)
#   dev_size DEV          size in bytes
#   on_peer "cmd"         run cmd on node b (two-VM tests); its stdout and
#                         stderr come back, its exit status is returned (255:
#                         no connection within $NM_RPC_WAIT s, default 60, or
#                         connection lost).  Commands left running in the
#                         background do not hold the call up.
#   on_peer_wait SECS "cmd"   on_peer with a connect deadline of SECS
#   peer_check            dmesg check on node b: prints NMPEER: CLEAN|DIRTY
#   peer_poweroff         peer_check, then node b powers off
#   peer_ip / my_ip       169.254.0.2 / 169.254.0.x
#   nm_kmemleak_scan      debug kernel only (nm_debug=1): a kmemleak scan; a
#                         leak logs "kmemleak: N new suspected memory leaks"
#                         (NM_DMESG_BAD) and its allocation stack
#   GNU tools: $DD $MD5SUM $SHA256SUM $CMP $HEAD $OD $TIMEOUT $STAT (busybox
#   ash runs its applets for bare names)
#   Helper binaries: pattern, wlat, nmrpc (in /usr/bin)

DD=/usr/bin/dd
MD5SUM=/usr/bin/md5sum
SHA256SUM=/usr/bin/sha256sum
CMP=/usr/bin/cmp
HEAD=/usr/bin/head
OD=/usr/bin/od
TIMEOUT=/usr/bin/timeout
STAT=/usr/bin/stat
KVER=$(uname -r)
NM_PEER_IP=169.254.0.2
NM_RPC_PORT=${nm_rpc_port:-7000}
# NM_DMESG_BAD (and NM_CONSOLE_BAD): defined once, in dmesg-bad.sh
. /tests/dmesg-bad.sh

log() { echo "NMLOG: $*"; }

fail() {
	echo "$*" > /tmp/nm_fail_reason
	echo "FAIL: $*" >&2
	exit 1
}

skip() {
	echo "$*" > /tmp/nm_fail_reason
	echo "SKIP: $*" >&2
	exit 77
}

# --- named checks (see the top); results in /tmp/nm_checks, read by /init
# NM_CHECK_PREFIX (e.g. "B/" in a loop over the protocols) goes in front of
# every check name
nm_check_name() {
	echo "${NM_CHECK_PREFIX:-}$1" | tr -c 'A-Za-z0-9._@,=+/\n-' '_'
}

# the check name in $nm_cn: nm_check_name without a fork when nothing needs
# replacing (nearly every name; a fork costs tens of ms under TCG)
_nm_cn() {
	nm_cn="${NM_CHECK_PREFIX:-}$1"
	case $nm_cn in
	*[!A-Za-z0-9._@,=+/-]*) nm_cn=$(nm_check_name "$1") ;;
	esac
}

check_ok() {
	local n
	_nm_cn "$1"
	n=$nm_cn
	echo "PASS $n" >> /tmp/nm_checks
	echo "NMCHECK: PASS $n"
	return 0
}

check_bad() {
	local n
	_nm_cn "$1"
	n=$nm_cn
	echo "FAIL $n" >> /tmp/nm_checks
	echo "NMCHECK: FAIL $n: $(echo "$2" | tr '\n' ' ' | cut -c1-300)"
	return 1
}

check() {
	local n=$1 rc
	shift
	"$@" > /tmp/nm_check_out 2>&1
	rc=$?
	if [ $rc = 0 ]; then
		check_ok "$n"
	else
		check_bad "$n" "exit $rc: $*: $($HEAD -c 300 /tmp/nm_check_out)"
	fi
}

check_fail() {
	local n=$1
	shift
	if "$@" > /tmp/nm_check_out 2>&1; then
		check_bad "$n" "succeeded but should have failed: $*: $($HEAD -c 300 /tmp/nm_check_out)"
	else
		check_ok "$n"
	fi
}

check_eq() {
	if [ "$2" = "$3" ]; then
		check_ok "$1"
	else
		check_bad "$1" "got '$2', want '$3'"
	fi
}

check_match() {
	if echo "$2" | grep -qE -- "$3"; then
		check_ok "$1"
	else
		check_bad "$1" "'$2' does not match /$3/"
	fi
}

check_wait() {
	if wait_for "$3" "$2"; then
		check_ok "$1"
	else
		check_bad "$1" "not within $2 s: $3"
	fi
}

# milliseconds since boot
now_ms() { awk '{ printf "%d\n", $1 * 1000 }' /proc/uptime; }

# whole seconds since boot in $nm_up (no fork)
_nm_up() {
	read -r nm_up _ < /proc/uptime
	nm_up=${nm_up%%.*}
}

wait_for() {
	local cmd=$1 t=$((${2:-30} * ${nm_tscale:-1})) end
	_nm_up
	end=$((nm_up + t))
	while ! (eval "$cmd") >/dev/null 2>&1; do
		_nm_up
		[ "$nm_up" -lt "$end" ] || return 1
		sleep 0.2
	done
	return 0
}

peer_ip() { echo "$NM_PEER_IP"; }
my_ip() { echo "169.254.0.${nm_id:-1}"; }

nm_find_module() {
	for p in "/lib/modules/$KVER/extra/dm-netmirror.ko" /opt/netmirror/dm-netmirror.ko; do
		[ -f "$p" ] && { echo "$p"; return 0; }
	done
	return 1
}

load_netmirror() {
	local ko d
	grep -q '^dm_netmirror ' /proc/modules && return 0
	ko=$(nm_find_module) || fail "dm-netmirror.ko not built (make module)"
	for d in $(modinfo -F depends "$ko" | tr ',' ' '); do
		modprobe "$d" || fail "modprobe $d (dependency of dm-netmirror) failed"
	done
	insmod "$ko" "$@" || fail "insmod dm-netmirror.ko failed"
}

brd_setup() {
	local mb=${1:?size MB} n=${2:-1} i
	if grep -q '^brd ' /proc/modules; then
		rmmod brd || fail "rmmod brd failed (ramdisks busy?)"
	fi
	modprobe brd rd_size=$((mb * 1024)) rd_nr="$n" max_part=0 || fail "modprobe brd failed"
	i=0
	while [ "$i" -lt "$n" ]; do
		wait_for "[ -b /dev/ram$i ]" 5 || fail "/dev/ram$i did not appear"
		i=$((i + 1))
	done
}

dev_sum() {
	# O_DIRECT: the bdev page cache may hold data older than what a
	# device-mapper target wrote below it
	$DD if="${1:?device}" bs=1M iflag=direct status=none | $MD5SUM | cut -d' ' -f1
}

dev_size() {
	blockdev --getsize64 "${1:?device}"
}

on_peer() {
	nmrpc run "$NM_PEER_IP" "$NM_RPC_PORT" "$*" --wait "${NM_RPC_WAIT:-60}"
}

# link_cut SECS [SIDE]: take eth0 down for SECS seconds (fractions allowed),
# on this node (SIDE a) or on the peer (SIDE b, the default).  Returns at
# once.  The peer waits half a second before it cuts, so that the nmrpc reply
# is out first: otherwise the reply waits for the link and on_peer returns
# only after it is back, when the cut is already over.
link_cut() {
	local s=${1:?seconds} cmd
	cmd="(sleep 0.5; ip link set eth0 down; sleep $s; ip link set eth0 up) >/dev/null 2>&1 </dev/null &"
	if [ "${2:-b}" = a ]; then
		(ip link set eth0 down; sleep "$s"; ip link set eth0 up) >/dev/null 2>&1 </dev/null &
	else
		on_peer_wait 60 "$cmd"
	fi
}

# on_peer with a connect deadline of SECS (the peer is known to be up)
on_peer_wait() {
	local w=$1
	shift
	nmrpc run "$NM_PEER_IP" "$NM_RPC_PORT" "$*" --wait "$w"
}

nm_kmemleak_scan() {
	[ -n "${nm_debug:-}" ] && [ -w /sys/kernel/debug/kmemleak ] || return 0
	# an object is reported when unreferenced, unchanged since the previous
	# scan and older than 5 s: scan, wait, scan
	echo scan > /sys/kernel/debug/kmemleak
	sleep 5
	echo scan > /sys/kernel/debug/kmemleak
	if [ -s /sys/kernel/debug/kmemleak ]; then
		echo "NMDUMP-BEGIN kmemleak"
		cat /sys/kernel/debug/kmemleak
		echo "NMDUMP-END"
		# reported once: the next scan lists only new leaks
		echo clear > /sys/kernel/debug/kmemleak
	fi
}

# runs on node b (via on_peer): dmesg check of everything since the last check
nm_peer_dmesg_check() {
	local bad
	nm_kmemleak_scan > /dev/console
	if [ -f /tmp/nm_peer_mark ]; then
		bad=$(dmesg | sed -n "/NMPEER-MARK $(cat /tmp/nm_peer_mark)\$/,\$p" | grep -E "$NM_DMESG_BAD" | head -5)
	else
		bad=$(dmesg | grep -E "$NM_DMESG_BAD" | head -5)
	fi
	m=$(( $(cat /tmp/nm_peer_mark 2>/dev/null || echo 0) + 1 ))
	echo "$m" > /tmp/nm_peer_mark
	echo "NMPEER-MARK $m" > /dev/kmsg
	if [ -n "$bad" ]; then
		echo "NMPEER: DIRTY $(echo "$bad" | sed 's/^\[[ 0-9.]*\] //' | tr '\n' '|')" | tee /dev/console
		echo "NMDUMP-BEGIN peer dmesg" > /dev/console
		# debug kernel: the whole reports (lockdep, KASAN) since the last check
		if [ -z "${nm_debug:-}" ]; then
			dmesg | tail -n 80
		elif [ "$m" -gt 1 ]; then
			dmesg | sed -n "/NMPEER-MARK $((m - 1))\$/,\$p"
		else
			dmesg
		fi > /dev/console
		echo "NMDUMP-END" > /dev/console
		return 1
	fi
	echo "NMPEER: CLEAN" | tee /dev/console
}

peer_check() {
	local rc
	on_peer_wait 10 ". /tests/lib.sh; nm_peer_dmesg_check"
	rc=$?
	# peer unreachable: do not try again (peer_poweroff)
	[ $rc = 255 ] && touch /tmp/nm_peer_off
	return $rc
}

peer_poweroff() {
	local out rc
	out=$(on_peer_wait 10 ". /tests/lib.sh; nm_peer_dmesg_check; rc=\$?; (sleep 0.3; echo NMTEST-DONE > /dev/console; poweroff -f) >/dev/null 2>&1 </dev/null & exit \$rc" 2>&1)
	rc=$?
	touch /tmp/nm_peer_off
	echo "$out"
	return $rc
}
