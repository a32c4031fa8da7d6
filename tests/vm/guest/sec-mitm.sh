# A man in the middle of a link with a secret cannot turn a resync around
# (review of 1.17.7, open since).  The secret authenticated both nodes
# and, from the handshake on, every packet, but not the P_HELLO and
# P_GENS before it: an attacker on the path (nmrelay, tests/vm/src/
# nmrelay.c, on 127.0.0.1, so the addresses the secret binds stay right)
# could rewrite the data generations and make the node with the older
# data the resync source.  Wire version 9 (1.18.0) binds both P_HELLOs
# into the challenge-response and confirms both P_GENS with the link's
# keys before any verdict; a challenge tells a peer that was shown
# version 8 at most, so that a downgrade of the P_HELLOs is seen too.
#
# One VM, both nodes on loopback with metadata devices and a secret, each
# connecting through an nmrelay.  nma writes 4 MiB at 8 MiB while nmb is
# disconnected; then nma is demoted and nmb promoted (nmb holds the older
# data), and nmb connects again through relays that
#   flip:      tell nma that nmb's data descends from nma's, and nmb that
#              nma has no generation (nmb, primary, becomes the source);
#   down-flip: the same, with both P_HELLOs saying version 8 at most.
# Checks per protocol (A, B, C) and mode:
#   <P>/<mode>/kept          after 12 s, nma's disk still holds its write
#   <P>/<mode>/refused       nma refused the link (auth_failed)
#   <P>/<mode>/not-in-sync   the pair never showed in sync meanwhile
# then the relays pass bytes unchanged, nmb is demoted and gives up its
# data at the split brain its promotion alone began, and the pair
# resyncs from nma:
#   <P>/<mode>/synced, peer-has-write, identical
# vms: 1
# disks: none
# timeout: 900
load_netmirror
. /tests/nmlib.sh
brd_setup 32 4
S=65536
nmhostile addkey nm:mitm "a shared secret" >/dev/null || fail "add nm:mitm"

relays() {	# MODE-FOR-NMA-SIDE MODE-FOR-NMB-SIDE: both relays anew
	[ -n "${R1:-}" ] && kill "$R1" "$R2" 2>/dev/null
	wait "${R1:-}" "${R2:-}" 2>/dev/null
	nmrelay 7801 7790 "$1" >> /tmp/relay.log 2>&1 &
	R1=$!
	nmrelay 7802 7789 "$2" >> /tmp/relay.log 2>&1 &
	R2=$!
	sleep 0.3
}

# nma wrote 4 MiB at 8 MiB
w8() { pattern "$1" "$2" 7 4M --size 4M --offset 8M --direct --quiet; }

both_in_sync() {
	[ "$(nm_status nma disks)" = uptodate/uptodate ] &&
		[ "$(nm_status nma connection)" = connected ] &&
		[ "$(nm_status nmb disks)" = uptodate/uptodate ]
}

one_mode() {	# MODE (flip or down-flip)
	local m=$1 t seen=0
	nm_zero /dev/ram0 /dev/ram1 /dev/ram2 /dev/ram3
	relays pass pass
	NM_PAIR_TO_B=127.0.0.1:7801 NM_PAIR_TO_A=127.0.0.1:7802 \
		nm_local_pair "$P" flush "$S" /dev/ram0 /dev/ram1 \
		"meta /dev/ram2 secret nm:mitm" "meta /dev/ram3 secret nm:mitm"
	lose_link
	w8 write /dev/mapper/nma || fail "$P $m: write while disconnected"
	dmsetup message nma 0 secondary || fail "$P $m: demote nma"
	dmsetup message nmb 0 primary || fail "$P $m: promote nmb"
	relays "$m-client" "$m-server"
	dmsetup message nmb 0 connect || fail "$P $m: connect nmb"
	t=0
	while [ $t -lt 24 ]; do	# 12 s
		both_in_sync && seen=1
		sleep 0.5
		t=$((t + 1))
	done
	log "$P $m: nma $(dmsetup status nma); nmb $(dmsetup status nmb)"
	check "$m/kept" w8 verify /dev/ram0
	check_eq "$m/refused" "$(nm_status nma last_error)" auth_failed
	check_eq "$m/not-in-sync" "$seen" 0
	# the control: an honest path, the older node demoted
	relays pass pass
	dmsetup message nmb 0 secondary || fail "$P $m: demote nmb"
	# nmb's promotion alone began a generation: honestly a split brain,
	# resolved for nma's data
	dmsetup message nmb 0 disconnect || fail "$P $m: disconnect nmb"
	dmsetup message nmb 0 discard_my_data || fail "$P $m: discard_my_data"
	dmsetup message nmb 0 connect || fail "$P $m: connect nmb"
	dmsetup message nma 0 connect 2>/dev/null
	dmsetup message nma 0 primary || log "$P $m: nma not promoted: $(dmsetup status nma)"
	check "$m/synced" nm_wait_synced nma 90
	check "$m/peer-has-write" w8 verify /dev/ram1
	check_eq "$m/identical" "$(dev_sum /dev/ram0)" "$(dev_sum /dev/ram1)"
	nm_local_unpair
}

run_proto() {
	one_mode flip
	one_mode down-flip
}
nm_each_proto run_proto
kill "$R1" "$R2" 2>/dev/null
cat /tmp/relay.log
