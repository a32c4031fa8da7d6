# vms: 1
# disks: none
# timeout: 600
# mem: 1024
# (header keys first: run-test.sh reads them from the first 30 lines only)
# A resync target loses power in the middle of its resync.  The target
# acknowledges a resync region once its disk completed the write, in the
# disk's volatile cache, and the source counts the region in sync then;
# the data is stable only at the target's next flush (a stable point, about
# once a second, or P_RS_DONE).  A power cut in between loses it, and the
# pair must resync it again: from the target's metadata (a region resynced
# is clean there only after a flush of its data) or from the source's.
# fault-rsflush covers the same loss through a failed flush, with the old
# data put back by hand; here the cache really loses power.
#
# One VM, both nodes on loopback, each on a cached configfs null_blk
# (guest-lib/dur-power-lib.sh: 32 MiB, cache as big: nothing reaches the
# media before a flush; power 0 frees the cache unwritten), metadata on
# /dev/ram0 / ram1 (brd, no cache).  For each protocol A, B, C: 8 MiB of
# pattern 1 written and confirmed stable; nmb disconnected; 16 MiB of
# pattern 2 written on nma alone; nmb connects, and nma resyncs it at
# 2 MiB/s; once the regions in sync have grown by 2 since the last look,
# the wire freezes (lo down) and nlb loses power at once; nmb is removed,
# the wire and the power come back, and nmb is created again on the same
# disk and metadata.  Checks <P>/...:
#   resync-ran     nma counted regions in sync during the resync (premise)
#   target-stale   nmb's disk is not uptodate after the restart (its
#                  metadata says the resync was under way)
#   not-primary    a table making nmb primary is refused meanwhile
#   resynced       the pair is in sync again (resync at full rate)
#   pattern-2      pattern 2 reads back from nlb
#   identical      both backing devices equal (nla, nlb)
#   cache-lost     right after the cut, nlb differs from nla in more
#                  regions than nma still had to resync: the cut lost
#                  resync data nma had counted in sync (the premise; the
#                  cut comes at once after a region was acknowledged, a
#                  stable point about a second apart)
# (1.18.18: 3, 4 and 3 regions lost under A, B and C, all resynced.)
load_netmirror
. /tests/nmlib.sh
. /tests/dur-lib.sh
. /tests/dur-power-lib.sh
MB=32
S=$((MB * 2048))
OPTS="timeout 2000 ping 500"

# nmb's table, with the optional arguments EXTRA (two words) if given
table_b() {
	echo "0 $S netmirror /dev/nlb 127.0.0.1:7789 $P flush $((8 + $#)) listen 127.0.0.1:7790 meta /dev/ram1 $OPTS${1:+ $*}"
}

for P in $(nm_protos); do
	NM_CHECK_PREFIX=$P/
	nl_create nla $MB
	nl_create nlb $MB
	brd_setup 4 2
	nm_local_pair "$P" flush "$S" /dev/nla /dev/nlb "meta /dev/ram0 $OPTS" "meta /dev/ram1 $OPTS"
	pattern write /dev/mapper/nma 1 8M --size 32M --direct --quiet || fail "$P: first write"
	nm_wait_confirmed nma 30 || fail "$P: writes unconfirmed: $(dmsetup status nma)"
	dmsetup message nmb 0 disconnect || fail "$P: disconnect nmb"
	nm_wait_conn nma connecting 30 || fail "$P: nma still connected: $(dmsetup status nma)"
	pattern write /dev/mapper/nma 2 16M --size 32M --direct --quiet || fail "$P: write apart"
	dmsetup message nma 0 resync_rate 2048 || fail "$P: resync_rate 2048"
	in0=$(nm_status nma in_sync_regions)
	dmsetup message nmb 0 connect || fail "$P: connect nmb"
	nm_wait_conn nma sync_source 30 || fail "$P: no resync: $(dmsetup status nma)"
	# a region counted in sync just now is in nlb's cache, very likely
	# after the last stable point
	in1=$(nm_status nma in_sync_regions)
	wait_eval "[ \$(nm_status nma in_sync_regions) -ge $((in1 + 2)) ]" 30 ||
		fail "$P: the resync did not progress: $(dmsetup status nma)"
	wire_cut
	nl_power nlb 0
	st=$(dmsetup status nma)
	in2=$(nm_status_of "$st" in_sync_regions)
	check resync-ran [ "$in2" -gt "$in0" ]
	remove_retry nmb "after its power cut"
	wait_eval "[ \"\$(nm_status nma connection)\" = connecting ]" 30 ||
		fail "$P: nma did not see the link die: $(dmsetup status nma)"
	wire_restore
	nl_power nlb 1
	log "$P: at the cut: nma $st"
	# the premise that makes the rest mean something: nlb differs from nla
	# in more regions than nma still had to resync
	d=$(dur_diff_regions /dev/nla /dev/nlb)
	left=$(( $(nm_status_of "$st" total_regions) - in2 ))
	log "$P: after the cut: $d; $left regions still to resync at the cut"
	check cache-lost [ "${d%% of *}" -gt "$left" ]
	dmsetup message nma 0 pause_resync || fail "$P: pause_resync"
	dmsetup create nmb --table "$(table_b)" || fail "$P: create nmb again: $(table_b)"
	wait_eval "[ \"\$(nm_status nmb connection)\" != connecting ]" 30 ||
		fail "$P: nmb did not connect again: $(dmsetup status nmb)"
	log "$P: nmb again: $(dmsetup status nmb)"
	check target-stale [ "$(nm_status nmb disk)" != uptodate ]
	if dmsetup load nmb --table "$(table_b role primary)" 2>/dev/null; then
		check_bad not-primary "loaded: $(table_b role primary)"
		dmsetup clear nmb
	else
		check_ok not-primary
	fi
	dmsetup message nma 0 resync_rate 0 || fail "$P: resync_rate 0"
	dmsetup message nma 0 resume_resync || fail "$P: resume_resync"
	check resynced nm_wait_synced nma 120
	check pattern-2 pattern verify /dev/nlb 2 16M --size 32M --direct --quiet
	dur_settled_same identical 60 /dev/nla /dev/nlb
	log "$P: nma $(dmsetup status nma); nmb $(dmsetup status nmb)"
	nm_local_unpair
	nl_destroy nla
	nl_destroy nlb
done
NM_CHECK_PREFIX=
exit 0
