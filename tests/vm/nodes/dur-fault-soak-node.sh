# shellcheck shell=sh disable=SC3043
# Node a of the durability fault soak (issue 10, first test bullet;
# host side: tests/vm/scenarios/dur-fault-soak.sh, which boots one VM pair
# per protocol and SIGKILLs/reboots node b when asked).
#
# Node a is the primary, node b the secondary, protocol $nm_proto, flush
# ordering, a metadata device on both (/dev/vdb; data /dev/vda), "timeout
# $nm_peer_timeout" (default 4000 ms).  Under a verifying random-write load
# (fio, libaio, O_DIRECT, queue depth 16, 4..64 KiB, one job per 8 MiB
# window: guest-lib/dur-soak-lib.sh), for each fault kind of $nm_kinds
# (comma list; default all five), $nm_faults faults (default 3):
#   disconnect  "disconnect" on the secondary, 0.2..2.5 s, "connect"
#   suspend     "dmsetup suspend" of the secondary, 0.2..2.5 s, "resume"
#   reload      "dmsetup load" of the secondary with its own table (same
#               line, with its metadata device), 0.2..2.5 s, "resume"
#   linkcut     eth0 down for timeout + 1..3 s, on node b and node a in turn
#   kill        node b's QEMU SIGKILLed by the host ("NMMARK: kill-peer K
#               now"), booted again with the same disks, its table created
#               again on its data and metadata
# After each fault node a waits until the link is back (connected or
# resyncing), then lets the load run 0.3..1.5 s.  After the kind's last
# fault the load stops and, per kind, named checks <P>/<kind>/...:
#   faults      every fault was injected and the link came back each time
#   load        every fio job wrote and verified its window (no I/O error,
#               no verify failure) while the faults went on
#   resync      connected, N/N, uptodate/uptodate on both, nothing pending
#   identical   sha256 of both backing devices (O_DIRECT) equal; otherwise
#               the differing 512 KiB regions (and their windows) are named
#   switchover  node a "secondary", node b "primary"
#   verify-new-primary   fio --verify_only of every window's last job on
#               node b's /dev/mapper/nm0
#   switchback  node b "secondary", node a "primary" again
#   a-dmesg, b-dmesg   no kernel warning on either node during the kind
#   linkcut/link-dropped   every cut longer than the timeout dropped the link
#   kill/b-dmesg-before-kill   node b's dmesg clean before each kill
# A failed check dumps both status lines and both dmesgs (NMDUMP sections).
# (No runner header: the scenario sets disks, memory and timeouts.)
load_netmirror
. /tests/nmlib.sh
. /tests/dur-soak-lib.sh
P=${nm_proto:-C}
N=${nm_faults:-3}
KINDS=$(echo "${nm_kinds:-disconnect,suspend,reload,linkcut,kill}" | tr ',' ' ')
TMO=${nm_peer_timeout:-4000}
NW=6			# windows of 8 MiB: the load covers the first 48 of 64 MiB
S=$(( $(dev_size /dev/vda) / 512 ))
[ $((NW * SOAK_WIN)) -le $((S * 512)) ] || fail "data disk too small: $S sectors"
TA="0 $S netmirror /dev/vda 169.254.0.2:7789 $P flush 10 role primary meta /dev/vdb sync none timeout $TMO ping 1000"
TB="0 $S netmirror /dev/vda 169.254.0.1:7789 $P flush 8 meta /dev/vdb sync none timeout $TMO ping 1000"
case $P in A) SEED0=1000000 ;; B) SEED0=2000000 ;; *) SEED0=3000000 ;; esac
RNG=$(( ($(cut -d' ' -f1 /proc/uptime | tr -d .) + SEED0) % 100000 ))
R=0
rand() { # rand MIN MAX: sets R (no subshell: the state must advance)
	RNG=$(( (RNG * 1103515245 + 12345) % 2147483648 ))
	R=$(( $1 + (RNG / 7) % ($2 - $1 + 1) ))
}
msleep() { sleep "$(awk -v m="$1" 'BEGIN { printf "%.3f", m / 1000 }')"; }
now() { cut -d. -f1 /proc/uptime; }
log "protocol $P, $N faults of each of: $KINDS; timeout $TMO ms; seed $RNG"

# ---- evidence for a failed check
evidence() {
	echo "NMDUMP-BEGIN evidence $P: $1"
	echo "a status: $(dmsetup status nm0 2>&1)"
	echo "b status: $(on_peer_wait 10 'dmsetup status nm0' 2>&1)"
	echo "a table:  $(dmsetup table nm0 2>&1)"
	echo "--- fio (last job) ---"
	tail -c 1500 /tmp/soak-fio.out 2>/dev/null
	echo "--- dmesg of node a (last 150 lines) ---"
	dmesg | tail -n 150
	echo "--- dmesg of node b (last 150 lines) ---"
	on_peer_wait 10 "dmesg | tail -n 150" 2>&1
	echo "NMDUMP-END"
}
bad() { # bad NAME DETAIL: a failed check with evidence
	check_bad "$1" "$2"
	evidence "$1: $2"
}

peer() { # a command on node b, bounded
	on_peer_wait 30 "$TIMEOUT 90 sh -c '$*'"
}

peer_create() {
	on_peer_wait 30 ". /tests/lib.sh; load_netmirror; dmsetup create nm0 --table '$TB'"
}

conn_back() { # the link is up again (replicating or resyncing) within SECS
	wait_eval "case \$(nm_status nm0 connection) in connected|sync_source) true ;; *) false ;; esac" "$1"
}

# ---- the load
load_start() {
	rm -f /tmp/stop /tmp/loadfail
	(
		i=$(cat /tmp/soak-round 2>/dev/null || echo 0)
		while [ ! -f /tmp/stop ]; do
			i=$((i + 1))
			w=$((i % NW)) seed=$((SEED0 + i))
			# the window is being rewritten: not verifiable until done
			rm -f /tmp/win.$w
			if soak_fio write $w $seed; then
				echo $seed > /tmp/win.$w
				echo $i > /tmp/soak-round
			else
				echo "job $i (window $w, seed $seed) failed, status $?: $(grep -iE 'verify|err' /tmp/soak-fio.out | head -3 | tr '\n' ' ')" > /tmp/loadfail
				echo $i > /tmp/soak-round
				break
			fi
		done
	) &
	loadpid=$!
}
load_stop() {
	touch /tmp/stop
	wait $loadpid
}
rounds() { cat /tmp/soak-round 2>/dev/null || echo 0; }

# ---- the faults (each returns 1 and leaves $why when it could not be done)
fault_disconnect() {
	peer "dmsetup message nm0 0 disconnect" > /tmp/f.out 2>&1 || { why="disconnect: $(cat /tmp/f.out)"; return 1; }
	rand 200 2500; msleep $R
	peer "dmsetup message nm0 0 connect" > /tmp/f.out 2>&1 || { why="connect: $(cat /tmp/f.out)"; return 1; }
}
fault_suspend() {
	peer "dmsetup suspend nm0" > /tmp/f.out 2>&1 || { why="suspend: $(cat /tmp/f.out)"; return 1; }
	rand 200 2500; msleep $R
	peer "dmsetup resume nm0" > /tmp/f.out 2>&1 || { why="resume: $(cat /tmp/f.out)"; return 1; }
}
fault_reload() {
	peer "dmsetup load nm0 --table \"$TB\"" > /tmp/f.out 2>&1 || { why="load: $(cat /tmp/f.out)"; return 1; }
	rand 200 2500; msleep $R
	peer "dmsetup resume nm0" > /tmp/f.out 2>&1 || { why="resume after load: $(cat /tmp/f.out)"; return 1; }
}
cuts=0
fault_linkcut() {
	local s
	rand $((TMO + 1000)) $((TMO + 3000))
	s=$(awk -v m="$R" 'BEGIN { printf "%.3f", m / 1000 }')
	cuts=$((cuts + 1))
	if [ $((cuts % 2)) = 1 ]; then
		link_cut "$s" b || { why="could not reach node b to cut its link"; return 1; }
		cutside=b
		sleep 0.5
	else
		link_cut "$s" a
		cutside=a
	fi
	sleep "$s"
	wait_for "ip link show eth0 | grep -q ',UP'" 10 || { why="eth0 still down"; return 1; }
	on_peer_wait 30 true || { why="node b unreachable after the cut"; return 1; }
	cutms=$R
}
kills=0
fault_kill() {
	local out t0
	out=$(on_peer_wait 10 ". /tests/lib.sh; nm_peer_dmesg_check" 2>&1)
	case $out in
	*"NMPEER: CLEAN"*) ;;
	*) kill_dirty="$kill_dirty $((kills + 1))" ;;
	esac
	kills=$((kills + 1))
	t0=$(now)
	echo "NMMARK: kill-peer $kills now"
	# the primary notices within the timeout (and keeps writing)
	wait_eval "case \$(nm_status nm0 connection) in connected|sync_source) false ;; *) true ;; esac" $((TMO / 1000 + 60)) ||
		{ why="kill $kills: node a did not notice: $(dmsetup status nm0)"; return 1; }
	on_peer_wait 300 true || { why="kill $kills: node b did not come back"; return 1; }
	peer_create > /tmp/f.out 2>&1 || { why="kill $kills: create on node b again: $(cat /tmp/f.out)"; return 1; }
	killsecs=$(( $(now) - t0 ))
}

kmsg_conn() { dmesg | grep -c "netmirror: .*: connected to"; }

# ---- after the faults: resync, compare, switch over, verify
settled() {
	nm_wait_synced nm0 "$1" &&
		wait_eval "[ \$(nm_status nm0 disks) = uptodate/uptodate ] && [ \$(nm_status nm0 pending) = 0 ]" 60 &&
		on_peer_wait 30 ". /tests/lib.sh; . /tests/nmlib.sh; nm_wait_synced nm0 60 && wait_for '[ \$(nm_status nm0 disks) = uptodate/uptodate ]' 30"
}

compare() { # compare NAME
	local a b try=0
	while :; do
		on_peer_wait 30 ". /tests/lib.sh; . /tests/dur-soak-lib.sh; soak_sum /dev/vda" > /tmp/sum.b 2>&1 &
		sp=$!
		a=$(soak_sum /dev/vda)
		wait $sp
		b=$(cat /tmp/sum.b)
		[ "$a" = "$b" ] && break
		try=$((try + 1))
		[ $try -lt 3 ] || break
		sleep 2
	done
	if [ "$a" = "$b" ]; then
		log "$1: backing devices identical, sha256 $(echo "$a" | cut -c1-16)"
		check_ok "$1"
		return 0
	fi
	on_peer_wait 30 ". /tests/lib.sh; . /tests/dur-soak-lib.sh; soak_region_sums /dev/vda" > /tmp/rs.b 2>&1
	soak_region_sums /dev/vda > /tmp/rs.a
	diffs=$(paste /tmp/rs.a /tmp/rs.b | awk '$2 != $4 { n++; if (n <= 16) l = l " " $1 "(w" int($1 * 524288 / '"$SOAK_WIN"') ")" } END { printf "%d of %d regions differ:%s", n, NR, l }')
	bad "$1" "sha256 a $(echo "$a" | cut -c1-16) b $(echo "$b" | cut -c1-16); $diffs; a $(dmsetup status nm0 | cut -d' ' -f4-10); b $(on_peer 'dmsetup status nm0' | cut -d' ' -f4-10)"
	log "$1: $diffs"
}

verify_on() { # verify_on a|b: every window's last completed job; prints failures
	local w=0 seed out fails=""
	while [ $w -lt $NW ]; do
		if [ -f /tmp/win.$w ]; then
			seed=$(cat /tmp/win.$w)
			if [ "$1" = b ]; then
				out=$(on_peer_wait 30 ". /tests/lib.sh; . /tests/dur-soak-lib.sh; soak_fio verify $w $seed || { echo status \$?; grep -iE 'verify|err' /tmp/soak-fio.out | head -3; exit 1; }" 2>&1) ||
					fails="$fails w$w/seed$seed: $(echo "$out" | tr '\n' ' ' | cut -c1-200);"
			else
				soak_fio verify $w $seed || fails="$fails w$w/seed$seed: $(grep -iE 'verify|err' /tmp/soak-fio.out | head -3 | tr '\n' ' ' | cut -c1-200);"
			fi
		fi
		w=$((w + 1))
	done
	echo "$fails"
}

role_is() { [ "$(nm_status nm0 role)" = "$1" ]; }
peer_role_is() { [ "$(on_peer 'dmsetup status nm0' | nm_status_pick role)" = "$1" ]; }

switch() { # switch NAME a|b: make that node the primary
	local ok=yes
	if [ "$2" = b ]; then
		dmsetup message nm0 0 secondary > /tmp/sw.out 2>&1 || ok="a secondary: $(cat /tmp/sw.out)"
		[ "$ok" = yes ] && { wait_for "on_peer 'dmsetup message nm0 0 primary'" 30 || ok="b primary refused: $(on_peer 'dmsetup message nm0 0 primary' 2>&1)"; }
		[ "$ok" = yes ] && { role_is secondary && peer_role_is primary || ok="roles: a $(nm_status nm0 role), b $(on_peer 'dmsetup status nm0' | nm_status_pick role)"; }
	else
		on_peer 'dmsetup message nm0 0 secondary' > /tmp/sw.out 2>&1 || ok="b secondary: $(cat /tmp/sw.out)"
		[ "$ok" = yes ] && { wait_for "dmsetup message nm0 0 primary" 30 || ok="a primary refused: $(dmsetup message nm0 0 primary 2>&1)"; }
		[ "$ok" = yes ] && { role_is primary && peer_role_is secondary || ok="roles: a $(nm_status nm0 role), b $(on_peer 'dmsetup status nm0' | nm_status_pick role)"; }
	fi
	if [ "$ok" = yes ]; then check_ok "$1"; else bad "$1" "$ok"; fi
	[ "$ok" = yes ]
}

# ---- setup: fresh zeroed disks on both nodes ("sync none" is true)
peer_create || fail "create on node b: $TB"
dmsetup create nm0 --table "$TA" || fail "create on node a: $TA"
settled 120 || fail "no connection: a $(dmsetup status nm0); b $(on_peer 'dmsetup status nm0')"
log "connected: $(dmsetup status nm0 | cut -d' ' -f4-10)"
total_faults=0
t_all=$(now)

for kind in $KINDS; do
	name=$P/$kind
	t0=$(now) r0=$(rounds) c0=$(kmsg_conn) kill_dirty="" done_n=0 failed_n=""
	echo "NMTEST-KIND $name" > /dev/kmsg
	on_peer "echo NMTEST-KIND $name > /dev/kmsg"
	load_start
	sleep 1
	n=0
	while [ $n -lt "$N" ]; do
		n=$((n + 1))
		why="" cutms="" killsecs=""
		st=$(dmsetup status nm0 | cut -d' ' -f4-6)
		if ! "fault_$kind"; then
			failed_n="$failed_n $n:$why"
			log "$name fault $n: FAILED: $why"
			break
		fi
		# the link is back
		tb=$(now)
		if ! conn_back 120; then
			failed_n="$failed_n $n:no reconnect within 120 s: $(dmsetup status nm0 | cut -d' ' -f4-10)"
			log "$name fault $n: no reconnect: $(dmsetup status nm0)"
			break
		fi
		done_n=$n
		total_faults=$((total_faults + 1))
		echo "NMLOG: $name fault $n/$N: before $st; ${cutms:+cut ${cutms} ms on node $cutside; }${killsecs:+node b back in ${killsecs} s; }reconnected in $(( $(now) - tb )) s; $(dmsetup status nm0 | cut -d' ' -f4-7); jobs $(rounds)"
		[ -f /tmp/loadfail ] && break
		rand 300 1500; msleep $R
	done
	load_stop
	tf=$(( $(now) - t0 ))
	if [ -z "$failed_n" ]; then
		check_ok "$name/faults"
	else
		bad "$name/faults" "$done_n of $N done;$failed_n"
	fi
	if [ -f /tmp/loadfail ]; then
		bad "$name/load" "$(cat /tmp/loadfail)"
	else
		check_ok "$name/load"
	fi
	if [ "$kind" = linkcut ] && [ "$done_n" -gt 0 ]; then
		drops=$(( $(kmsg_conn) - c0 ))
		check "$name/link-dropped" [ "$drops" -ge "$done_n" ]
	fi
	if [ "$kind" = kill ] && [ "$done_n" -gt 0 ]; then
		if [ -z "$kill_dirty" ]; then check_ok "$name/b-dmesg-before-kill"; else check_bad "$name/b-dmesg-before-kill" "node b's dmesg dirty before kill(s)$kill_dirty (its console log has the dump)"; fi
	fi
	# a failed fault may have left node b without its table or the link down
	if [ -n "$failed_n" ]; then
		on_peer_wait 120 "dmsetup status nm0" > /dev/null 2>&1 || { on_peer_wait 120 true && peer_create; }
		on_peer "dmsetup info nm0 | grep -q SUSPENDED && dmsetup resume nm0; dmsetup message nm0 0 connect" > /dev/null 2>&1
		ip link set eth0 up
		[ "$(nm_status nm0 connection)" = standalone ] && dmsetup message nm0 0 connect
		settle_secs=120
	else
		settle_secs=600
	fi
	ts=$(now)
	if settled $settle_secs; then
		check_ok "$name/resync"
	else
		bad "$name/resync" "not settled within $settle_secs s: a $(dmsetup status nm0 | cut -d' ' -f4-10); b $(on_peer 'dmsetup status nm0' | cut -d' ' -f4-10)"
		fail "$name: no resync, cannot go on"
	fi
	trs=$(( $(now) - ts ))
	compare "$name/identical"
	tv=$(now)
	if switch "$name/switchover" b; then
		f=$(verify_on b)
		if [ -z "$f" ]; then
			check_ok "$name/verify-new-primary"
		else
			# evidence: the same jobs on node a's disk (now secondary, read locally)
			bad "$name/verify-new-primary" "node b:$f node a's own copy:$(verify_on a)"
		fi
		switch "$name/switchback" a || fail "$name: node a is not primary again"
	else
		fail "$name: no switch-over"
	fi
	tv=$(( $(now) - tv ))
	# kernel warnings on either node during this kind
	badk=$(dmesg | awk -v m="NMTEST-KIND $name" 'index($0, m) { p = 1 } p' | grep -E "$NM_DMESG_BAD" | head -3)
	if [ -z "$badk" ]; then check_ok "$name/a-dmesg"; else bad "$name/a-dmesg" "$badk"; fi
	# a node b booted again during the kind has no marker: all of its dmesg
	badk=$(on_peer "if dmesg | grep -q 'NMTEST-KIND $name'; then dmesg | awk -v m='NMTEST-KIND $name' 'index(\$0, m) { p = 1 } p'; else dmesg; fi | grep -E '$NM_DMESG_BAD' | head -3")
	if [ -z "$badk" ]; then check_ok "$name/b-dmesg"; else bad "$name/b-dmesg" "$badk"; fi
	log "SUMMARY $name: $done_n/$N faults in ${tf} s, $(( $(rounds) - r0 )) fio jobs ($(( ($(rounds) - r0) * SOAK_WIN / 1048576 )) MiB written+verified), $(( $(kmsg_conn) - c0 )) reconnects; resync settled in ${trs} s; switch-over + verify in ${tv} s"
done
log "protocol $P: $total_faults faults in $(( $(now) - t_all )) s, $(rounds) fio jobs"
on_peer "dmsetup remove nm0" || fail "remove on node b"
dmsetup remove nm0 || fail "remove on node a"
exit 0
