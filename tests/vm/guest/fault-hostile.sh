# Hostile client (nmhostile, tests/vm/src/nmhostile.c) against netmirror's
# listen ports: garbage, truncated headers, bad magic/flags/seq, unknown
# types, oversized lengths, bad P_HELLOs, slowloris, many connections, and
# after a valid handshake (the node keeps the link) every kind of malformed
# packet: P_DATA out of range / odd size / size vs length, wrong seq, bad
# bitmap/ack/state/resync packets.  Targets:
#   A. nma, the primary of a C/flush pair (its secondary nmb disconnected
#      for the case, so nma listens alone), then nmb reconnects;
#   B. nmb, the pair's secondary (nma disconnected for the case), subset;
#   C. nmc, a lone secondary listening for a peer that never came.
# After each case: the node's last_error is the expected word (bad_packet
# after every malformed packet on a live link; bad_handshake etc. before),
# the node closed the connection within 3 s, the real peer reconnects, a
# pattern write through the primary replicates (md5 of ram0 == ram1), the
# lone secondary's data is untouched, disks stay uptodate.
# Suite: every case against nmc, one pre-handshake case of each kind and a
# subset of the post-handshake ones against the pair; nm_hostile_full=1:
# all against all.
# nm_hostile_workaround=1 (diagnosis) reloads the pair when a known kernel
# bug keeps it apart, and goes on.  nm_hostile_cases=N limits each part to its first N cases, nm_hostile_skip=
# case1,case2 skips cases (debugging).
# vms: 1
# disks: none
# timeout: 900
load_netmirror
. /tests/nmlib.sh
brd_setup 16 4
S=$(( $(dev_size /dev/ram0) / 512 ))
nm_local_pair C flush
pattern write /dev/ram2 99 4M --direct --quiet || fail "seed ram2"
sumc=$(dev_sum /dev/ram2)
dmsetup create nmc --table "0 $S netmirror /dev/ram2 127.0.0.1:7792 C flush 2 listen 127.0.0.1:7791" || fail "create nmc"
nm_wait_conn nmc connecting 10 || fail "nmc not connecting"

ncases=0 npkts=0 nbytes=0 seed=1000

# expected last_error word for CASE on a primary (p) or secondary (s) target;
# "skip": the case does not apply; "*": any
expect() {
	case $1 in
	trunc-*|slowloris|drip|h-trunc-hdr) echo - ;;
	h-data-trunc) if [ "$2" = p ]; then echo bad_packet; else echo '*'; fi ;;
	many-*) echo '*' ;;
	hello-version) echo version_mismatch ;;
	hello-protocol-mismatch) echo protocol_mismatch ;;
	hello-region-mismatch) echo region_size_mismatch ;;
	hello-self) echo connected_to_self ;;
	hello-small|hello-dev-0) echo peer_too_small ;;
	hello-both-primary|h-state-primary)
		if [ "$2" = p ]; then echo both_primary; else echo skip; fi ;;
	h-data-to-primary)
		if [ "$2" = p ]; then echo bad_packet; else echo skip; fi ;;
	h-silent) echo peer_timeout ;;
	h-*) echo bad_packet ;;
	*) echo bad_handshake ;;
	esac
}

# run_case DEV PORT CASE ROLE -> checks the outcome on DEV
run_case() {
	local dev=$1 port=$2 c=$3 role=$4 want out line acc cl p b err
	want=$(expect "$c" "$role")
	[ "$want" = skip ] && return 1
	# "-": no new error word (the one before the case stays; an accepted
	# handshake clears it)
	wword=$want
	case $c in h-*) ;; *) [ "$want" = - ] && wword=$(nm_status "$dev" last_error) ;; esac
	case ",${nm_hostile_skip:-}," in *",$c,"*) log "$dev $c: skipped (nm_hostile_skip)"; return 1 ;; esac
	out=$(nmhostile run 127.0.0.1 "$port" "$c") || fail "nmhostile $c against $dev: $out"
	line=$(echo "$out" | grep "^NMH case=")
	acc=$(echo "$line" | sed -n 's/.* accepted=\([0-9]*\).*/\1/p')
	cl=$(echo "$line" | sed -n 's/.* closed_ms=\(-*[0-9]*\).*/\1/p')
	p=$(echo "$line" | sed -n 's/.* packets=\([0-9]*\).*/\1/p')
	b=$(echo "$line" | sed -n 's/.* bytes=\([0-9]*\).*/\1/p')
	ncases=$((ncases + 1)) npkts=$((npkts + p)) nbytes=$((nbytes + b))
	case $c in
	h-*) [ "$acc" = 1 ] || fail "$dev $c: the valid hello was not accepted: $line; $(dmsetup status "$dev")" ;;
	esac
	case $want in
	bad_packet|both_primary)
		[ "$cl" -ge 0 ] && [ "$cl" -le 3000 ] || fail "$dev $c: connection not closed within 3 s: $line" ;;
	peer_timeout)
		[ "$cl" -ge 0 ] && [ "$cl" -le 9000 ] || fail "$dev $c: silent peer not dropped within 8 s: $line" ;;
	bad_handshake|*_mismatch|connected_to_self|peer_too_small)
		[ "$cl" -ge 0 ] && [ "$cl" -le 3000 ] || fail "$dev $c: refused peer not closed within 3 s: $line" ;;
	esac
	[ "$c" = slowloris ] && { [ "$cl" -ge 0 ] && [ "$cl" -le 4000 ] || fail "$dev slowloris held the handshake: $line"; }
	[ "$c" = drip ] && log "drip (1 byte / 400 ms): $line"
	if [ "$want" != '*' ]; then
		if ! wait_for "[ \"\$(nm_status $dev last_error)\" = '$wword' ]" 3; then
			[ -n "${nm_hostile_workaround:-}" ] ||
				fail "$dev $c: last_error $(nm_status "$dev" last_error), want $wword: $line; $(dmsetup status "$dev")"
			log "KNOWN-BUG $dev $c: last_error $(nm_status "$dev" last_error), want $wword"
			workarounds=$((workarounds + 1))
		fi
	fi
	err=$(nm_status "$dev" last_error)
	echo "NMLOG: $dev $c -> $err: $line"
}

# the pair is back and replicates: both connected and in sync, a write
# through the primary lands on both disks, both disks uptodate
pair_check() {
	local what=$1 a b
	if [ -n "${nm_hostile_workaround:-}" ] && ! nm_wait_synced nma 15; then
		# diagnosis only (nm_hostile_workaround=1): restart both instances
		# (new nonces, no history: full resync) to go on with the cases
		log "KNOWN-BUG $what: the pair did not reconnect: nma $(dmsetup status nma); nmb $(dmsetup status nmb)"
		workarounds=$((workarounds + 1))
		nm_reload_pair
	fi
	nm_wait_synced nma 40 || fail "$what: nma did not get its real peer back: nma $(dmsetup status nma); nmb $(dmsetup status nmb)"
	nm_wait_synced nmb 20 || fail "$what: nmb: $(dmsetup status nmb)"
	if [ -n "${nm_hostile_workaround:-}" ] && [ "$(nm_status nmb disks)" != uptodate/uptodate ]; then
		log "KNOWN-BUG $what: disks after reconnect: nma $(dmsetup status nma); nmb $(dmsetup status nmb)"
		workarounds=$((workarounds + 1))
		nm_reload_pair
		nm_wait_synced nma 40 || fail "$what: after the workaround reload: $(dmsetup status nma)"
	fi
	seed=$((seed + 1))
	pattern write /dev/mapper/nma $seed 256K --size 8M --direct --quiet || fail "$what: write through nma"
	nm_wait_synced nma 20 || fail "$what: nma after write: $(dmsetup status nma)"
	a=$(dev_sum /dev/ram0) b=$(dev_sum /dev/ram1)
	[ "$a" = "$b" ] || fail "$what: ram0 $a != ram1 $b; $(dmsetup status nma); $(dmsetup status nmb)"
	wait_eval '[ "$(nm_status nma disks)" = uptodate/uptodate ] && [ "$(nm_status nmb disks)" = uptodate/uptodate ]' 5 ||
		fail "$what: disks not uptodate/uptodate: nma $(dmsetup status nma); nmb $(dmsetup status nmb)"
}
workarounds=0
nm_reload_pair() {
	local d
	for d in nma nmb; do
		dmsetup suspend $d && dmsetup load $d --table "$(dmsetup table $d)" && dmsetup resume $d ||
			fail "workaround reload of $d"
	done
}

limit() { if [ -n "${nm_hostile_cases:-}" ]; then head -n "$nm_hostile_cases"; else cat; fi; }

# the silent-peer cases have their own test (fault-silence), at a short timeout
nmhostile list | grep -v -e "^h-stall-" -e "^h-progress-silent$" | limit > /tmp/cases
grep -v '^h-' /tmp/cases > /tmp/cases.pre
if [ -n "${nm_hostile_full:-}" ]; then
	grep '^h-' /tmp/cases > /tmp/cases.ha
	grep '^h-' /tmp/cases > /tmp/cases.hb
else
	# suite: a subset on the pair (every case runs against nmc, part C):
	# pre-handshake, one of each kind (the listener's code is the same
	# for a pair's primary and a lone secondary: 33 cases cost ~70 s)
	printf '%s\n' garbage bad-magic first-not-hello hello-len-huge hello-version \
		hello-small hello-both-primary slowloris | grep -xF -f /tmp/cases.pre > /tmp/cases.pre.s || true
	mv /tmp/cases.pre.s /tmp/cases.pre
	printf '%s\n' h-garbage h-seq-skip h-len-huge h-data-len-huge h-data-sector-wrap \
		h-data-huge-dev h-data-size-gt-len h-data-to-primary h-rs-start-then-junk \
		h-ack-unknown h-bitmap-all-then-junk h-state-primary h-pingflood-then-junk h-silent > /tmp/cases.ha
	printf '%s\n' h-garbage h-data-past-end h-data-size-odd h-data-trunc h-rs-start-then-junk \
		h-bitmap-all-then-junk h-barrier-epoch > /tmp/cases.hb
fi

# A. the pair's primary: pre-handshake cases in batches of 8 (the node has
# no link meanwhile), then each post-handshake case alone
k=0
dmsetup message nmb 0 disconnect || fail "disconnect nmb"
for c in $(cat /tmp/cases.pre); do
	nm_wait_conn nma connecting 15 || fail "A $c: nma not connecting: $(dmsetup status nma)"
	run_case nma 7789 "$c" p || continue
	k=$((k + 1))
	if [ $((k % 8)) = 0 ]; then
		dmsetup message nmb 0 connect || fail "connect nmb"
		pair_check "A (up to $c)"
		dmsetup message nmb 0 disconnect || fail "disconnect nmb"
	fi
done
dmsetup message nmb 0 connect || fail "connect nmb"
pair_check "A (pre-handshake cases)"
for c in $(cat /tmp/cases.ha); do
	dmsetup message nmb 0 disconnect || fail "disconnect nmb"
	nm_wait_conn nma connecting 15 || fail "A $c: nma not connecting: $(dmsetup status nma)"
	run_case nma 7789 "$c" p || { dmsetup message nmb 0 connect; nm_wait_synced nma 40; continue; }
	dmsetup message nmb 0 connect || fail "connect nmb"
	pair_check "A $c"
done
log "A: primary: $ncases cases, $npkts packets, $nbytes bytes"
na=$ncases

# B. the pair's secondary
for c in garbage hello-small slowloris $(cat /tmp/cases.hb); do
	dmsetup message nma 0 disconnect || fail "disconnect nma"
	nm_wait_conn nmb connecting 15 || fail "B $c: nmb not connecting: $(dmsetup status nmb)"
	run_case nmb 7790 "$c" s || { dmsetup message nma 0 connect; nm_wait_synced nma 40; continue; }
	dmsetup message nma 0 connect || fail "connect nma"
	pair_check "B $c"
done
log "B: secondary: $((ncases - na)) cases"
nb=$ncases

# C. a lone secondary
k=0
for c in $(cat /tmp/cases); do
	run_case nmc 7791 "$c" s || continue
	nm_wait_conn nmc connecting 10 || fail "C $c: nmc not back to connecting: $(dmsetup status nmc)"
	k=$((k + 1))
	if [ $((k % 10)) = 0 ]; then
		[ "$(dev_sum /dev/ram2)" = "$sumc" ] || fail "C (up to $c): the lone secondary's data changed"
	fi
done
[ "$(dev_sum /dev/ram2)" = "$sumc" ] || fail "C: the lone secondary's data changed"
log "C: lone secondary: $((ncases - nb)) cases, its data intact"
# its real peer arrives at last: full sync, identical
dmsetup create nmd --table "0 $S netmirror /dev/ram3 127.0.0.1:7791 C flush 4 listen 127.0.0.1:7792 role primary" || fail "create nmd"
nm_wait_synced nmd 60 || fail "nmc's real peer did not connect and sync: nmd $(dmsetup status nmd); nmc $(dmsetup status nmc)"
nm_wait_synced nmc 20 || fail "nmc: $(dmsetup status nmc)"
[ "$(dev_sum /dev/ram2)" = "$(dev_sum /dev/ram3)" ] || fail "nmc/nmd differ after sync"
[ "$(nm_status nmc disks)" = uptodate/uptodate ] || fail "nmc disks $(nm_status nmc disks)"
dmsetup remove nmd && dmsetup remove nmc || fail "remove nmc/nmd"
nm_local_unpair
[ "$workarounds" = 0 ] || fail "$workarounds cases needed the workaround (see KNOWN-BUG lines)"
log "hostile: $ncases cases, $npkts packets, $nbytes bytes sent; 0 mismatches"
exit 0
