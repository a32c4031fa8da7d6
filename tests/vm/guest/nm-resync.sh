# Resync after a disconnect, in two VMs: (1) by message, (2) by cutting the
# link.  While apart the primary writes N random regions; after reconnect
# the secondary becomes identical, the resync counter shows about N regions
# resent (not the whole device), and in_sync/total goes from (total-N)/total
# to total/total without ever decreasing.
# vms: 2
# disks: none
# timeout: 600
load_netmirror
. /tests/nmlib.sh
brd_setup 128 1
on_peer ". /tests/lib.sh; load_netmirror; brd_setup 128 1" || fail "peer setup"
S=$(( $(dev_size /dev/ram0) / 512 ))
RS=1024			# region size, sectors (512 KiB)
on_peer "dmsetup create nm0 --table '0 $S netmirror /dev/ram0 169.254.0.1:7789 C flush 2 sync none'" || fail "peer create"
dmsetup create nm0 --table "0 $S netmirror /dev/ram0 169.254.0.2:7789 C flush 4 role primary sync none" || fail "create"
nm_wait_conn nm0 connected 30 || fail "no connection: $(dmsetup status nm0)"
total=$(nm_status nm0 total_regions)
check_eq sync-none/in-sync-at-start "$(nm_status nm0 in_sync_regions)" "$total"
check_eq sync-none/nothing-resent "$(nm_status nm0 resync_bytes)" 0

# write one 4 KiB block into each of N distinct random regions
write_regions() {
	local n=$1 seed=$2 i=0 r
	: > /tmp/regions
	while [ $i -lt $n ]; do
		r=$(( (seed * 7919 + i * 104729) % total ))
		grep -qx "$r" /tmp/regions && { seed=$((seed + 1)); continue; }
		echo "$r" >> /tmp/regions
		$DD if=/dev/urandom of=/dev/mapper/nm0 bs=4k count=1 seek=$(( r * RS / 8 + (i % 100) )) oflag=direct conv=notrunc status=none ||
			fail "write to region $r"
		i=$((i + 1))
	done
}

# watch in_sync on this node while the resync runs; fail if it ever drops
# watch in_sync on one node while the resync runs (from the moment that
# node enters sync_source/sync_target: before, the bitmap exchange may still
# add the peer's regions); fail if it ever drops
watch_resync() {
	local who=$1 prev=0 cur st started=0 n=0
	while :; do
		n=$((n + 1))
		[ $n -lt 600 ] || fail "$who: resync did not run to the end in 120 s: $st"
		if [ "$who" = peer ]; then st=$(on_peer "dmsetup status nm0"); else st=$(dmsetup status nm0); fi
		cur=$(echo "$st" | nm_status_pick in_sync_regions)
		case $st in *sync_source*|*sync_target*) started=1 ;; esac
		if [ $started = 1 ]; then
			[ "$cur" -ge "$prev" ] || fail "$who in_sync went down during the resync: $prev -> $cur ($st)"
			prev=$cur
			echo "$st" >> /tmp/watch.$who
		fi
		[ $started = 1 ] && [ "$cur" = "$total" ] && echo "$st" | grep -q ' connected ' && break
		sleep 0.2
	done
}

check_round() {
	local name=$1 n=$2 before
	before=$(nm_status nm0 resync_bytes)
	insync=$(nm_status nm0 in_sync_regions)
	check_eq "$name/in-sync-before" "$insync" $((total - n))
	: > /tmp/watch.me
	[ "$3" = message ] && { dmsetup message nm0 0 connect || fail "connect"; }
	watch_resync me
	on_peer ". /tests/lib.sh; . /tests/nmlib.sh; nm_wait_conn nm0 connected 30" || fail "$name: peer not connected"
	resent=$(( $(nm_status nm0 resync_bytes) - before ))
	want=$((n * RS * 512))
	if [ "$resent" -ge "$want" ] && [ "$resent" -le $((want + RS * 512)) ]; then
		check_ok "$name/resent-only-those"
	else
		check_bad "$name/resent-only-those" "resent $resent bytes, want about $want ($n regions x $((RS * 512)))"
	fi
	mine=$(dev_sum /dev/ram0)
	theirs=$(on_peer ". /tests/lib.sh; dev_sum /dev/ram0")
	check_eq "$name/identical" "$theirs" "$mine"
	check_eq "$name/peer-disks" "$(on_peer "dmsetup status nm0" | nm_status_pick disks)" uptodate/uptodate
	log "$name: $n regions, in_sync $((total - n))/$total -> $total/$total, resent $resent bytes, $(wc -l < /tmp/watch.me) samples, both $mine"
}

# 1. by message, with a rate cap so the progress is observable
dmsetup message nm0 0 resync_rate 4096 || fail "resync_rate message"
dmsetup message nm0 0 disconnect || fail "disconnect"
nm_wait_conn nm0 standalone 10 || fail "not standalone"
write_regions 24 3
check_round message 24 message

# 2. by cutting the link for 20 s on the peer
link_cut 20 || fail "could not reach the peer to cut the link"
nm_wait_conn nm0 connecting 20 || fail "link cut not detected: $(dmsetup status nm0)"
write_regions 17 11
check_round link-cut 17 link
dmsetup message nm0 0 resync_rate 0 || fail "resync_rate 0"

# the peer's own view of progress during a resync never decreases either
dmsetup message nm0 0 disconnect
nm_wait_conn nm0 standalone 10 || fail "not standalone (3)"
write_regions 30 5
dmsetup message nm0 0 resync_rate 2048
dmsetup message nm0 0 connect
: > /tmp/watch.peer
watch_resync peer
nm_wait_synced nm0 60 || fail "round 3 not connected and in sync"
check_eq peer-view/identical "$(on_peer '. /tests/lib.sh; dev_sum /dev/ram0')" "$(dev_sum /dev/ram0)"
first=$(head -1 /tmp/watch.peer)
log "peer view: $(wc -l < /tmp/watch.peer) samples, first: $(for f in role connection regions resync_kibs eta_seconds resync_bytes; do echo "$first" | nm_status_pick $f; done | tr '\n' ' ')"
dmsetup remove nm0 || fail "remove"
on_peer "dmsetup remove nm0" || fail "peer remove"
exit 0
