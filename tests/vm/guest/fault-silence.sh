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
#  3. a pair whose secondary's disk (a dm-linear over ram1, suspended) stops
#     for 3 T under 1 MiB writes at depth 32 (fio): the secondary's reader
#     waits for its disk (a barrier's drain, an overlapping write) while the
#     primary's data backs up in its receive queue.  That is the
#     secondary's own slowness, not the peer's silence (docs/design.md,
#     "Liveness and timeouts").  Two cases:
#     slowdisk       both timeouts T: the primary, answered nothing, drops
#                    the link and its close reaches a secondary whose
#                    reader is still busy:
#       <P>/slowdisk/a-dropped      the primary left connected with
#                                   last_error peer_timeout
#       <P>/slowdisk/b-not-blamed   the secondary never reported
#                                   peer_timeout (it was closed on)
#     slowdisk-long  the primary's timeout 4 T: the link survives the stall
#       <P>/slowdisk-long/backed-up     a socket on the pair's ports held
#                                       >= 256 KiB unread (the case is real)
#       <P>/slowdisk-long/b-not-blamed  as above
#       <P>/slowdisk-long/stayed-connected  neither node left connected
#                                       during the stall; a's last_error -
#     then the disk resumes: <P>/<case>/writes (fio's exit), resynced,
#     identical (md5 of both backing devices).
#     1.13.3 failed C/slowdisk/b-not-blamed (3 runs of 3: the watchdog
#     called a link the peer had reset silent, 2 T into the stall);
#     without the backed-up-queue exception A and B fail
#     slowdisk-long/b-not-blamed (the secondary drops at T).
#  4. suspend-frozen: a pair whose primary has "fencing freeze", both
#     directions stalled, 1 MiB O_DIRECT writes started, and the primary
#     suspended 1 s later: its presuspend runs while the link still
#     counts as up, then dm waits for the writes in flight, which the
#     watchdog gives up T after the stall (the link is lost, the primary
#     freezes).  dm waits for every bio, so none of them may be held now:
#       <P>/suspend-frozen/in-flight  writes were pending when the suspend
#                                     began (the case is real)
#       <P>/suspend-frozen/returned   `dmsetup suspend` returned within
#                                     T + 8 s of the stall
#       <P>/suspend-frozen/waited     no earlier than T - 500 ms after the
#                                     stall (it waited for the drop)
#     then resume_io if it had not, the stall ends, the primary resumes:
#     resynced, identical.  1.13.4 held the given-up writes and the
#     suspend hung until resume_io (returned fails under A, B and C).
# Target 1.13.2 restarted the clock at a partial read or at the other
# reader's progress: it failed 8 of these checks (h-stall-hdr 2 T on either
# role, h-progress-silent 1.5 T under B and C, node b 3.5 s after the
# stall under B and C); 1.13.3's watchdog passes them all.
# vms: 1
# layers: fio
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

# left_at VAR DEV MS: VAR, if still empty, becomes MS once DEV has left
# "connected"
left_at() {
	eval "[ -z \"\$$1\" ]" || return 0
	[ "$(nm_status "$2" connection)" = connected ] || eval "$1=$3"
}

# the pair after the fault: both in sync, nothing pending, equal disks
settled() {
	check_wait resynced 60 "nm_synced nma && nm_synced nmb && [ \$(nm_status nma pending) = 0 ]"
	check_wait identical 20 "[ \"\$(dev_sum $1)\" = \"\$(dev_sum $2)\" ]"
}

# stall_pair: both directions stalled under a 1 MiB write stream
stall_pair() {
	local t0 t ta='' tb=''
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
		left_at ta nma $((t - t0))
		left_at tb nmb $((t - t0))
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
	settled /dev/ram0 /dev/ram1
	dmsetup remove nma && dmsetup remove nmb || fail "$P: remove the pair"
	NM_CHECK_PREFIX=
}

# slow_disk NAME TA: the secondary's disk stops for 3 T under a write
# stream; the secondary's timeout is T, the primary's TA
slow_disk() {
	local name=$1 ta_ms=$2 t0 t ta='' tb='' blamed='' rxq=0 q l e='' F=$((3 * T))
	NM_CHECK_PREFIX=$P/$name/
	dmsetup create slowb --table "0 $S linear /dev/ram1 0" || fail "$P: create slowb"
	nm_local_pair "$P" flush "$S" /dev/ram0 /dev/mapper/slowb "timeout $ta_ms ping 500" "timeout $T ping 500"
	rm -f /tmp/sd.rc
	( fio --name=slowdisk --filename=/dev/mapper/nma --rw=write --bs=1M --iodepth=32 \
		--ioengine=libaio --direct=1 --time_based --runtime=$((F / 1000 + 4)) \
		--output=/tmp/sd.out > /dev/null 2>&1
	  echo $? > /tmp/sd.rc ) &
	sleep 1
	dmsetup suspend slowb || fail "$P: suspend slowb"
	t0=$(now_ms)
	while :; do
		t=$(now_ms)
		[ $((t - t0)) -ge $F ] && break
		q=$(pair_rxq)
		[ "$q" -gt "$rxq" ] && rxq=$q
		if [ -z "$ta" ]; then
			left_at ta nma $((t - t0))
			[ -z "$ta" ] || e=$(nm_status nma last_error)
		fi
		left_at tb nmb $((t - t0))
		[ -z "$blamed" ] && [ "$(nm_status nmb last_error)" = peer_timeout ] && blamed=$((t - t0))
		sleep 0.1
	done
	dmsetup resume slowb || fail "$P: resume slowb"
	log "$P $name: largest receive queue $rxq bytes; a left connected after ${ta:--} ms (${e:--}), b after ${tb:--} ms; b blamed the peer after ${blamed:--} ms (T $T, a's $ta_ms)"
	if [ "$ta_ms" = "$T" ]; then
		if [ -n "$ta" ] && [ "$e" = peer_timeout ]; then
			check_ok a-dropped
		else
			check_bad a-dropped "node a left connected after ${ta:-more than $F} ms, last_error ${e:--}, want peer_timeout"
		fi
	else
		if [ "$rxq" -ge 262144 ]; then
			check_ok backed-up
		else
			check_bad backed-up "largest receive queue $rxq bytes, want >= 262144"
		fi
	fi
	l=$(dmsetup status nmb)
	_nm_sf "$l" last_error
	[ -z "$blamed" ] && [ "$nm_sv" = peer_timeout ] && blamed=after
	if [ -z "$blamed" ]; then
		check_ok b-not-blamed
	else
		check_bad b-not-blamed "node b reported peer_timeout (${blamed} ms into the freeze of its own disk)"
	fi
	wait_for "[ -f /tmp/sd.rc ]" 120 || fail "$P: fio did not end"
	check_eq writes "$(cat /tmp/sd.rc)" 0
	if [ "$ta_ms" != "$T" ]; then
		l=$(dmsetup status nma)
		_nm_sf "$l" last_error
		check_eq stayed-connected "a ${ta:-none} b ${tb:-none} $nm_sv" "a none b none -"
	fi
	settled /dev/ram0 /dev/ram1
	nm_local_unpair
	dmsetup remove slowb || fail "$P: remove slowb"
	NM_CHECK_PREFIX=
}

# suspend_frozen: see 4. at the top
suspend_frozen() {
	local t0 t1 r p
	NM_CHECK_PREFIX=$P/suspend-frozen/
	NM_PAIR_TO_B=127.0.0.1:7791 NM_PAIR_TO_A=127.0.0.1:7792 nm_local_pair "$P" flush "$S" \
		/dev/ram0 /dev/ram1 "timeout $T ping 500 fencing freeze" "timeout $T ping 500"
	rm -f /tmp/sw.rc /tmp/su.rc
	echo "a b" > $CTL
	t0=$(now_ms)
	( pattern write /dev/mapper/nma $((600 + ${#P})) 24M --bs-min 1048576 --bs-max 1048576 --direct --quiet
	  echo $? > /tmp/sw.rc ) &
	sleep 1
	# writes wait for the stalled peer when the suspend begins
	p=$(nm_status nma pending)
	if [ "${p:-0}" -gt 0 ]; then
		check_ok in-flight
	else
		check_bad in-flight "no write pending 1 s into the stall: $(dmsetup status nma)"
	fi
	( dmsetup suspend nma; echo $? > /tmp/su.rc ) &
	wait_for "[ -f /tmp/su.rc ]" $((T / 1000 + 7))
	t1=$(now_ms)
	if [ -f /tmp/su.rc ]; then
		r=$(cat /tmp/su.rc)
		log "$P suspend-frozen: the suspend returned $r after $((t1 - t0)) ms (T $T)"
		check_eq returned "$r" 0
		if [ $((t1 - t0)) -ge $((T - 500)) ]; then
			check_ok waited
		else
			check_bad waited "the suspend returned after $((t1 - t0)) ms, before the link could drop (T $T)"
		fi
	else
		check_bad returned "dmsetup suspend still waiting $((t1 - t0)) ms after the stall: $(dmsetup status nma)"
		dmsetup message nma 0 resume_io
		wait_for "[ -f /tmp/su.rc ]" 30 || fail "$P: the suspend did not return after resume_io"
	fi
	: > $CTL
	dmsetup resume nma || fail "$P: resume nma"
	wait_for "[ -f /tmp/sw.rc ]" 120 || fail "$P: the write stream did not end"
	settled /dev/ram0 /dev/ram1
	nm_local_unpair
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
	slow_disk slowdisk $T
	slow_disk slowdisk-long $((4 * T))
	suspend_frozen
done
kill $fwd 2>/dev/null
exit 0
