# A peer that falls silent is declared dead `timeout` after the last byte
# it sent, wherever the node was in the stream (docs/netmirror.rst,
# "timeout"): in the middle of a packet's header or payload, after a peer
# that dripped a packet, while another reader made progress, and while
# the node's own sends are blocked.  timeout T = 2000 ms, ping 500 ms.
# For each protocol A, B, C:
#  1. nmhostile completes a valid handshake with a lone secondary (nmc)
#     and a lone primary (nmp), then (cases in tests/vm/src/nmhostile.c):
#       h-silent           nothing more
#       h-stall-hdr        9 bytes of a header, then nothing
#       h-stall-data       a 1 MiB write's header and 64 KiB of it
#                          (secondary only)
#       h-stall-drip       that header, then 4 KiB every 0.8 T three
#                          times (secondary only)
#       h-progress-silent  0.5 T of silence, one whole flush request
#                          (P_SYNC), then nothing (secondary only)
#     <P>/<role>/<case>/error    last_error is peer_timeout
#     <P>/<role>/<case>/on-time  the node closed the connection between
#                                T - 250 and T + 500 ms after the last
#                                byte (nmhostile's closed_ms)
#     and the lone secondary's data is untouched (<P>/lone-data).
#  2. a pair through slowfwd (tests/vm/src/slowfwd.c), 1 MiB O_DIRECT
#     writes streaming on the primary, then both directions stalled with
#     the connections kept open (neither node hears anything, both nodes'
#     sends block):
#     <P>/stall/a-dropped, <P>/stall/b-dropped  the node left "connected"
#                within T + 1000 ms of the stall (polled every ~50 ms; it
#                may leave earlier: the clock runs from the last bytes,
#                up to a ping before the stall when no write was flowing)
#     then the stall ends: <P>/stall/resynced, <P>/stall/identical (md5 of
#     both backing devices).
# Target 1.13.2 restarted the clock at a partial read or at the other
# reader's progress: it failed 8 of these checks (h-stall-hdr 2 T on either
# role, h-progress-silent 1.5 T under B and C, node b 3.5 s after the
# stall under B and C); 1.13.3's watchdog passes them all.
# vms: 1
# disks: none
# timeout: 900
load_netmirror
. /tests/nmlib.sh
T=2000
export NMH_TIMEOUT_MS=$T
brd_setup 32 4
S=$(( $(dev_size /dev/ram0) / 512 ))
pattern write /dev/ram2 77 8M --direct --quiet || fail "seed ram2"
sumc=$(dev_sum /dev/ram2)

# hostile DEV PORT ROLE CASE
hostile() {
	local dev=$1 port=$2 role=$3 c=$4 out line cl
	NM_CHECK_PREFIX=$P/$role/$c/
	nm_wait_conn "$dev" connecting 15 || fail "$P $role $c: $dev not connecting: $(dmsetup status "$dev")"
	out=$(nmhostile run 127.0.0.1 "$port" "$c") || fail "nmhostile $c: $out"
	line=$(echo "$out" | grep "^NMH case=")
	log "$P $role: $line"
	echo "$line" | grep -q " accepted=1 " || fail "$P $role $c: handshake not accepted: $line; $(dmsetup status "$dev")"
	cl=$(echo "$line" | sed -n 's/.* closed_ms=\(-*[0-9]*\).*/\1/p')
	wait_for "[ \"\$(nm_status $dev last_error)\" = peer_timeout ]" 3
	check_eq error "$(nm_status "$dev" last_error)" peer_timeout
	if [ "$cl" -ge $((T - 250)) ] && [ "$cl" -le $((T + 500)) ]; then
		check_ok on-time
	else
		check_bad on-time "closed ${cl} ms after the last byte (-1: not within 3 T), want $((T - 250))..$((T + 500)): $line"
	fi
	NM_CHECK_PREFIX=
}

CTL=/tmp/fwdctl
: > $CTL
# nma connects to 7791 for nmb (7790), nmb to 7792 for nma (7789)
slowfwd --ctl $CTL 7791:7790:b:a 7792:7789:a:b &
fwd=$!

# stall_pair: both directions stalled under a 1 MiB write stream
stall_pair() {
	local t0 t ta='' tb='' l
	NM_CHECK_PREFIX=$P/stall/
	NM_PAIR_TO_B=127.0.0.1:7791 NM_PAIR_TO_A=127.0.0.1:7792 nm_local_pair "$P" flush "$S" \
		/dev/ram0 /dev/ram1 "timeout $T ping 500 sync none" "timeout $T ping 500 sync none"
	rm -f /tmp/sw.rc
	( pattern write /dev/mapper/nma $((500 + ${#P})) 24M --bs-min 1048576 --bs-max 1048576 --direct --quiet
	  echo $? > /tmp/sw.rc ) &
	sleep 1
	echo "a b" > $CTL
	t0=$(now_ms)
	while :; do
		t=$(now_ms)
		[ $((t - t0)) -gt $((3 * T + 3000)) ] && break
		if [ -z "$ta" ]; then
			l=$(dmsetup status nma)
			_nm_sf "$l" connection
			[ "$nm_sv" = connected ] || ta=$((t - t0))
		fi
		if [ -z "$tb" ]; then
			l=$(dmsetup status nmb)
			_nm_sf "$l" connection
			[ "$nm_sv" = connected ] || tb=$((t - t0))
		fi
		[ -n "$ta" ] && [ -n "$tb" ] && break
		sleep 0.05
	done
	log "$P stall: a left connected after ${ta:--} ms, b after ${tb:--} ms (T $T)"
	for n in a b; do
		eval "v=\$t$n"
		if [ -n "$v" ] && [ "$v" -le $((T + 1000)) ]; then
			check_ok $n-dropped
		else
			check_bad $n-dropped "node $n left connected after ${v:-more than $((3 * T + 3000))} ms, want <= $((T + 1000))"
		fi
	done
	: > $CTL
	wait_for "[ -f /tmp/sw.rc ]" 120 || fail "$P: the write stream did not end"
	check_eq writes "$(cat /tmp/sw.rc)" 0
	check_wait resynced 60 "nm_synced nma && nm_synced nmb && [ \$(nm_status nma pending) = 0 ]"
	check_wait identical 20 "[ \"\$(dev_sum /dev/ram0)\" = \"\$(dev_sum /dev/ram1)\" ]"
	dmsetup remove nma && dmsetup remove nmb || fail "$P: remove the pair"
	NM_CHECK_PREFIX=
}

for P in A B C; do
	dmsetup create nmc --table "0 $S netmirror /dev/ram2 127.0.0.1:7794 $P flush 6 listen 127.0.0.1:7793 timeout $T ping 500" ||
		fail "$P: create nmc"
	dmsetup create nmp --table "0 $S netmirror /dev/ram3 127.0.0.1:7796 $P flush 8 listen 127.0.0.1:7795 role primary timeout $T ping 500" ||
		fail "$P: create nmp"
	for c in h-silent h-stall-hdr h-stall-data h-stall-drip h-progress-silent; do
		hostile nmc 7793 secondary $c
	done
	for c in h-silent h-stall-hdr; do
		hostile nmp 7795 primary $c
	done
	dmsetup remove nmc && dmsetup remove nmp || fail "$P: remove nmc/nmp"
	check_eq "$P/lone-data" "$(dev_sum /dev/ram2)" "$sumc"
	stall_pair
done
kill $fwd 2>/dev/null
exit 0
