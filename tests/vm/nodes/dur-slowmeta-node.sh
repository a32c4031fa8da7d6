# Node a of the dur-slowmeta scenario (tests/vm/scenarios/dur-slowmeta.sh;
# issue 10, "a slow metadata device plus a primary crash in the marking
# window").  A primary whose metadata device is slow: dm-delay over
# /dev/vdb, writes and flushes delayed nm_meta_ms (default 300) ms, so a
# write into an unmarked region waits that long for its mark.  Phase k
# (nm_phase of nm_phases; protocol of phase k: word ((k-1) mod 3) + 1 of
# nm_protos, default "A B C"):
#   k > 1   the primary is created again on the same data disk and slow
#           metadata device (after the host SIGKILLed this VM), resyncs from
#           its marks; then crash<k-1>/<P>/identical: both backing devices
#           (md5 of /dev/vda here and on node b) equal.  If the next
#           protocol differs, both nodes take the new table (same disks and
#           metadata: no resync).
#   k < nm_phases   a load that keeps marking regions: seqw (8 jobs,
#           O_DIRECT 4 KiB, each write to another region; a region idle for
#           a second is cleared lazily and marked again at its next write)
#           plus a random pattern load (4 KiB..64 KiB); after 2-4 s,
#           once the slow metadata device has a write in flight (a mark being
#           written), "NMMARK: crash-me k": the host SIGKILLs this VM.
# No region written before the crash may be unmarked: after the resync the
# devices are identical.  Node b: the secondary, 64M data + 4M metadata
# (its own, not slowed), stays up.  (Run by the scenario, which sets VMs,
# disks and timeouts; no runner header.)
load_netmirror
. /tests/nmlib.sh
. /tests/dur-lib.sh
modprobe dm-delay || fail "modprobe dm-delay"
S=$(( $(dev_size /dev/vda) / 512 ))
MS=$(( $(dev_size /dev/vdb) / 512 ))
phase=${nm_phase:-1}
phases=${nm_phases:-4}
# shellcheck disable=SC2086
set -- ${nm_protos:-A B C}
nprotos=$#
protos="$*"
proto_of() { # proto_of K
	local k=$(( ($1 - 1) % nprotos + 1 ))
	# shellcheck disable=SC2086
	echo $protos | cut -d' ' -f$k
}
P=$(proto_of "$phase")

# reads undelayed, writes and flushes (the 6-argument form) nm_meta_ms
dmsetup create slowmeta --table "0 $MS delay /dev/vdb 0 0 /dev/vdb 0 ${nm_meta_ms:-300}" ||
	fail "phase $phase: dm-delay over the metadata device"
SLOWDEV=dm-$(dmsetup info -c --noheadings -o minor slowmeta | tr -d " ")

primary() { # primary PROTO: create the primary on the old disks
	dmsetup create nm0 --table "0 $S netmirror /dev/vda 169.254.0.2:7789 $1 flush 6 role primary meta /dev/mapper/slowmeta sync none"
}
peer_table() { # peer_table PROTO
	echo "0 $S netmirror /dev/vda 169.254.0.1:7789 $1 flush 4 meta /dev/vdb sync none"
}
both_synced() {
	nm_wait_synced nm0 "$1" && on_peer ". /tests/lib.sh; . /tests/nmlib.sh; nm_wait_synced nm0 30" > /dev/null
}

if [ "$phase" = 1 ]; then
	# both disks fresh (zeroed): "sync none" is true
	on_peer ". /tests/lib.sh; load_netmirror; dmsetup create nm0 --table '$(peer_table "$P")'" || fail "peer create"
	primary "$P" || fail "phase 1: create the primary"
	both_synced 120 || fail "phase 1: no connection: $(dmsetup status nm0)"
else
	Q=$(proto_of $((phase - 1)))
	primary "$Q" || fail "phase $phase: create the primary on its old metadata (slow)"
	before=$(nm_status nm0 regions)
	if both_synced 240; then
		mine=$(dev_sum /dev/vda)
		theirs=$(on_peer ". /tests/lib.sh; dev_sum /dev/vda")
		if [ "$mine" = "$theirs" ]; then
			check_ok "crash$((phase - 1))/$Q/identical"
		else
			check_bad "crash$((phase - 1))/$Q/identical" "md5 primary $mine, secondary $theirs after resyncing $(nm_status nm0 resync_bytes) bytes (in sync at start $before): a region written before the crash was not marked"
		fi
		log "phase $phase: after the crash under $Q: in sync at start $before, resynced $(nm_status nm0 resync_bytes) bytes, primary $mine secondary $theirs"
	else
		check_bad "crash$((phase - 1))/$Q/identical" "no resync after the crash: $(dmsetup status nm0) | $(on_peer 'dmsetup status nm0')"
	fi
	[ "$phase" -lt "$phases" ] || exit 0
	if [ "$P" != "$Q" ]; then
		dmsetup remove nm0 || fail "phase $phase: remove for protocol $P"
		on_peer "dmsetup remove nm0 && dmsetup create nm0 --table '$(peer_table "$P")'" || fail "phase $phase: peer to protocol $P"
		primary "$P" || fail "phase $phase: primary with protocol $P"
		both_synced 120 || fail "phase $phase: protocol $P: $(dmsetup status nm0)"
	fi
fi

seed=$(( phase * 1000 + $(cut -d' ' -f1 /proc/uptime | tr -d .) % 997 ))
seqw write /dev/mapper/nm0 "$seed" --size 64M --jobs 8 --quiet > /dev/null 2>&1 &
pattern write /dev/mapper/nm0 $((seed + 1)) 512M --bs-min 4096 --bs-max 65536 --direct --quiet > /dev/null 2>&1 &
sleep $(( 2 + phase % 3 ))
# a mark in flight: the slow metadata device has a write queued
i=0
while [ $i -lt 100 ]; do
	set -- $(cat "/sys/block/$SLOWDEV/inflight")
	[ "${2:-0}" -gt 0 ] && break
	sleep 0.05
	i=$((i + 1))
done
log "phase $phase ($P): crashing with ${2:-?} metadata writes in flight; $(dmsetup status nm0 | cut -d' ' -f4-10)"
echo "NMMARK: crash-me $phase"
sleep 600
fail "phase $phase: not killed"
