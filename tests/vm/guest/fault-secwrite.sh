# A secondary whose disk fails a write of the primary's and stays
# (on_io_error pass_on) lacks those data from that moment: its status must
# not say in sync (connected, N/N regions) at any time after the failure,
# until a resync brought them.  Up to 1.18.15 the secondary marked nothing
# itself: it said in sync until the primary's P_RS_START reached it (about
# 100 ms: the failure's ack, the primary's mark, its sync thread), and
# again (connected, N/N, its disk inconsistent) once that resync failed on
# the region and stopped, while the primary, which counts the region out
# of sync from the ack on, was right (review helper-47, finding 2,
# 2026-12-07).
# One VM, both nodes on loopback, 32 MiB of brd each; nmb's disk is a dm
# table whose MiB at 8 MiB can be switched to dm "error".  For each
# protocol A, B, C:
#   <P>/failed          the 64 KiB write at 8 MiB failed on nmb's disk
#                       (its log line, counted by the sampler)
#   <P>/sampled         the sampler read nmb's status after the failure
#   <P>/never-in-sync   no status of nmb's read after the failure's log
#                       line said connected and N/N regions, what
#                       `nmsetup wait-sync` takes for in sync (a sampler
#                       reads the count of those lines, then the status,
#                       every few ms for 4 to 5 s)
#   <P>/primary-marked  nma counts a region out of sync
#   then nmb's disk is good again; the resync retried on the same link:
#   <P>/resynced        both in sync
#   <P>/identical       md5 of both backing devices
# 1.18.15 fails never-in-sync under A, B and C: its samples show nmb
# "connected inconsistent/uptodate 64/64" once the primary's resync of the
# region failed and stopped (until its retry ten seconds later); the
# uptodate/uptodate window before P_RS_START is shorter than the
# sampler's period here and was not caught.
# vms: 1
# disks: none
# timeout: 400
load_netmirror
. /tests/nmlib.sh
brd_setup 32 2
S=65536
BAD=16384	# the failing MiB: sectors 16384..18431

lowb() { # lowb ok|bad
	local t="0 $S linear /dev/ram1 0"
	[ "$1" = bad ] && t="0 $BAD linear /dev/ram1 0
$BAD 2048 error
$((BAD + 2048)) $((S - BAD - 2048)) linear /dev/ram1 $((BAD + 2048))"
	echo "$t" | dmsetup reload lowb && dmsetup resume lowb || fail "lowb $1"
}

failcount() {
	dmesg | grep -c 'write from the peer at sector'
}

dmsetup create lowb --table "0 $S linear /dev/ram1 0" || fail "create lowb"
for P in $(nm_protos); do
	NM_CHECK_PREFIX=$P/
	nm_local_pair "$P" none "$S" /dev/ram0 /dev/mapper/lowb "" "on_io_error pass_on"
	pattern write /dev/mapper/nma 1 4M --size 16M --direct --quiet || fail "first write"
	nm_wait_confirmed nma 30 || fail "writes unconfirmed: $(dmsetup status nma)"
	nm_wait_synced nmb 30 || fail "nmb not in sync: $(dmsetup status nmb)"
	lowb bad
	f0=$(failcount)
	: > /tmp/samples
	(
		_nm_up
		end=$((nm_up + 5))
		while [ "$nm_up" -lt "$end" ]; do
			_nm_up
			c=$(failcount)
			echo "$c|$(dmsetup status nmb)" >> /tmp/samples
		done
	) &
	sp=$!
	sleep 0.3
	$DD if=/dev/urandom of=/dev/mapper/nma bs=64k seek=128 count=1 \
		oflag=direct conv=notrunc status=none || log "$P: the write failed on nma"
	wait $sp
	check_wait failed 10 "[ \$(failcount) -gt $f0 ]"
	n=0 nbad=0 bad=
	while IFS='|' read -r c st; do
		[ "$c" -gt "$f0" ] || continue
		n=$((n + 1))
		_nm_sf "$st" connection
		conn=$nm_sv
		_nm_sf "$st" regions
		# in sync as nmsetup wait-sync says it (nm_status_is_synced)
		if [ "$conn" = connected ] && [ "${nm_sv%%/*}" = "${nm_sv#*/}" ]; then
			nbad=$((nbad + 1))
			[ -n "$bad" ] || bad="$st"
		fi
	done < /tmp/samples
	check sampled [ "$n" -gt 0 ]
	if [ -z "$bad" ]; then
		check_ok never-in-sync
	else
		check_bad never-in-sync "in sync in $nbad of $n samples after the failure, the first: $bad"
	fi
	log "$P: $n samples after the failure, $(wc -l < /tmp/samples) in all"
	check primary-marked [ "$(nm_status nma in_sync_regions)" -lt "$(nm_status nma total_regions)" ]
	lowb ok
	check resynced nm_wait_synced nma 60
	check_wait identical 30 "nm_synced nmb && [ \"\$(dev_sum /dev/ram0)\" = \"\$(dev_sum /dev/ram1)\" ]"
	log "$P: nma $(dmsetup status nma); nmb $(dmsetup status nmb)"
	nm_local_unpair
done
NM_CHECK_PREFIX=
dmsetup remove lowb || fail "remove lowb"
exit 0
