# `attach` under load loses no I/O (review F28).  A primary whose disk
# was detached serves reads and writes through the peer.  `attach` takes
# the disk back as inconsistent and starts a new handshake (the peer must
# learn the new disk state and the full bitmap); up to 1.15.4 it dropped
# the link at once: the reads and the writes without a local part in
# flight then ended with EIO, and so did every read until the new link
# was up (the disk is inconsistent, no peer).  An ext4 on the device
# aborts its journal on such an error.
#
# One VM, both nodes on loopback, 32 MiB devices, nma's disk a dm-linear
# swapped for an always-failing dm-flakey to detach it, then back.  For
# each protocol A, B, C, while a reader (pattern verify, 8 MiB, again and
# again) and a writer (pattern write, 4 MiB at 16 MiB, a new seed each
# round) run through the detached primary, `attach`.  Checks <P>/...:
#   detached      nma's disk diskless after the failing write
#   attach        the message succeeds
#   resynced      nma uptodate and in sync again
#   no-io-error   neither the reader nor the writer saw an error
#   no-link-drop  no node dropped the link for a packet it refused
#   rounds        both ran at least one round across the attach
#   last-write    the writer's last round reads back
#   identical     both backing devices equal
# vms: 1
# disks: none
# timeout: 400
load_netmirror
. /tests/nmlib.sh
. /tests/dur-lib.sh
modprobe dm-flakey || fail "modprobe dm-flakey"
S=65536
for P in $(nm_protos); do
	NM_CHECK_PREFIX=$P/
	brd_setup 32 2
	dmsetup create lowa --table "0 $S linear /dev/ram0 0" || fail "create lowa"
	dmsetup create lowb --table "0 $S linear /dev/ram1 0" || fail "create lowb"
	nm_local_pair "$P" flush "" /dev/mapper/lowa /dev/mapper/lowb
	pattern write /dev/mapper/nma 1 8M --size 8M --direct --quiet || fail "first write"
	lower bad lowa /dev/ram0
	$DD if=/dev/urandom of=/dev/mapper/nma bs=4k seek=100 count=1 oflag=direct conv=notrunc status=none
	check_wait detached 10 "[ \"\$(nm_status nma disk)\" = diskless ]"
	lower ok lowa /dev/ram0
	# the write above went to the peer only: the reader's data again
	pattern write /dev/mapper/nma 1 8M --size 8M --direct --quiet || fail "rewrite while diskless"

	rm -f /tmp/stop /tmp/ioerr /tmp/rd.n /tmp/wr.n
	(
		n=0
		while [ ! -e /tmp/stop ]; do
			pattern verify /dev/mapper/nma 1 8M --size 8M --direct --quiet ||
				echo "read round $n: exit $?" >> /tmp/ioerr
			n=$((n + 1))
			# atomic: read while it runs, never seen empty
			echo $n > /tmp/rd.t && mv -f /tmp/rd.t /tmp/rd.n
		done
	) &
	rpid=$!
	(
		n=0
		while [ ! -e /tmp/stop ]; do
			n=$((n + 1))
			if pattern write /dev/mapper/nma $((100 + n)) 4M --size 4M --offset 16M --direct --quiet; then
				echo $n > /tmp/wr.t && mv -f /tmp/wr.t /tmp/wr.n
			else
				echo "write round $n: exit $?" >> /tmp/ioerr
			fi
		done
	) &
	wpid=$!
	sleep 2
	r0=$(cat /tmp/rd.n 2> /dev/null || echo 0)
	w0=$(cat /tmp/wr.n 2> /dev/null || echo 0)
	d0=$(dmesg | grep -c "dropping link")
	check attach dmsetup message nma 0 attach
	check resynced nm_wait_synced nma 120
	check_wait uptodate 30 "[ \"\$(nm_status nma disks)\" = uptodate/uptodate ]"
	sleep 2
	touch /tmp/stop
	wait $rpid $wpid
	r1=$(cat /tmp/rd.n 2> /dev/null || echo 0)
	w1=$(cat /tmp/wr.n 2> /dev/null || echo 0)
	log "$P: reader rounds $r0 -> $r1, writer rounds $w0 -> $w1; errors: $(wc -l < /tmp/ioerr 2> /dev/null || echo 0), the first: $($HEAD -n 3 /tmp/ioerr 2> /dev/null | tr '\n' ';')"
	check_eq no-io-error "$($HEAD -n 3 /tmp/ioerr 2> /dev/null)" ""
	# neither node refused a packet: the peer serves no read to an
	# uptodate primary, so P_STATE(uptodate) after the resync must not
	# overtake reads still queued on nma
	check_eq no-link-drop "$(dmesg | grep "dropping link" | tail -n +$((d0 + 1)) | $HEAD -n 2)" ""
	check_eq rounds "$([ "$r1" -gt "$r0" ] && [ "$w1" -gt "$w0" ] && echo yes)" yes
	check last-write pattern verify /dev/mapper/nma $((100 + w1)) 4M --size 4M --offset 16M --direct --quiet
	dur_settled_same identical 60 /dev/ram0 /dev/ram1
	nm_local_unpair
	dmsetup remove lowa || fail "remove lowa"
	dmsetup remove lowb || fail "remove lowb"
done
NM_CHECK_PREFIX=
exit 0
