# A primary whose disk failed (`detach`) and that then restarts without
# `attach` (removed and created again, as after a reboot or a crash, its
# disk repaired) must not come back `uptodate` with the data it missed.
# While it was diskless every write it acknowledged went to the peer only;
# the peer must remember that (a new data generation and every region out
# of sync on its metadata, as DRBD's secondary does when its primary loses
# its disk: "we have the only disk of the cluster"), so the handshake makes
# the returning node the resync target.  Up to 1.17.5 nothing recorded the
# detach: the restarted node's metadata still said consistent, both had
# the same generation, and the pair said in sync with the diskless
# period's writes on one disk only (and a region the failed node had
# marked was resynced from its stale disk over the peer's good copy).
# Fails on 1.17.5 (f828518): 15 of 51 checks, under A, B and C (peer-marked,
# identical; in part ab not-source, kept, kept-block).
#
# One VM, both nodes on loopback, 32 MiB devices, metadata on both, nma's
# disk a dm-linear swapped for an always-failing dm-flakey to detach it.
# For each protocol A, B, C and each restart (part a: nma only; part ab:
# nmb, then nma, so the peer's record must be on its metadata): a failed
# write detaches nma, the disk is repaired, 8 MiB are written through the
# diskless primary, then the restart(s), nma without `role primary`.
# Part again (1.18.3): before all that, on the same link, nma's disk
# failed once already, was repaired, attached and resynced from nmb, and
# nmb's generation of that detach handed over to nma; nma then returns
# with `role primary`.  Up to 1.18.2 the first detach's generation left
# nmb's gen_fresh set for the rest of the link, so the second detach began
# no generation (the log still said it did): nma came back with the same
# generation as nmb, became the resync source as primary, and resynced its
# stale disk over the diskless period's writes (not-source, kept,
# kept-block, identical failed with new-gen and refused).
# Part verify (1.18.3): a verify on the primary found a difference (the
# repair waits for the next link), then the secondary's disk fails, is
# repaired and attached: the resync of the attached disk starts on this
# link.  Up to 1.18.2 the verify's hold kept it from starting: nmb stayed
# inconsistent until a disconnect and connect.  Part lone (1.18.3): the
# same without the verify; once resynced (nmb took nma's generation of
# the detach), nma writes while disconnected: a new generation.  Up to
# 1.18.2 none (nma's generation of nmb's detach stayed "fresh" for the
# rest of the link): a peer promoted meanwhile would have looked newer,
# and its resync overwritten the write.  Checks <P>/verify/... and
# <P>/lone/...: found (verify: the verify found the block), detached,
# attach, resynced, lone-gen (lone), identical.
# Checks <P>/<part>/...:
#   detached        nma's disk diskless after the failing write
#   new-gen         nmb's generation changes with the detach
#   refused         (part again) nma, created again as primary, refuses
#                   the link: its data is older (stale_primary); then it
#                   is made secondary and connected
#   diskless-write  the writes through the diskless primary succeeded
#   diskless-write2 so did a rewrite of the block whose failure detached it
#   peer-marked     nmb counts every region out of sync (part a)
#   not-source      nma, created again, is not the resync source (its log
#                   has no "resync started" line)
#   resynced        both uptodate/uptodate and in sync (N/N)
#   kept            the diskless period's data reads back on nmb's disk
#   kept-block      and so does the rewritten block
#   identical       both backing devices equal
# vms: 1
# disks: none
# timeout: 600
load_netmirror
. /tests/nmlib.sh
. /tests/dur-lib.sh
modprobe dm-flakey || fail "modprobe dm-flakey"
S=65536

table() { # a|b [sec]
	local P=$P
	if [ "$1" = a ]; then
		echo "0 $S netmirror /dev/mapper/lowa 127.0.0.1:7790 $P flush $([ -n "${2:-}" ] && echo 4 || echo 6) listen 127.0.0.1:7789 $([ -n "${2:-}" ] || echo role primary) meta /dev/ram2"
	else
		echo "0 $S netmirror /dev/mapper/lowb 127.0.0.1:7789 $P flush 4 listen 127.0.0.1:7790 meta /dev/ram3"
	fi
}

# the pair on lowa/lowb (dm-linear over ram0/ram1), metadata on ram2/ram3,
# connected and in sync
pair_up() {
	brd_setup 32 4
	nm_zero /dev/ram2 /dev/ram3
	dmsetup create lowa --table "0 $S linear /dev/ram0 0" || fail "create lowa"
	dmsetup create lowb --table "0 $S linear /dev/ram1 0" || fail "create lowb"
	dmsetup create nmb --table "$(table b)" || fail "create nmb"
	dmsetup create nma --table "$(table a)" || fail "create nma"
	nm_wait_synced nma 60 && nm_wait_synced nmb 30 || fail "first sync: $(dmsetup status nma)"
}

scenario() { # part
	local part=$1
	NM_CHECK_PREFIX=$P/$part/
	pair_up
	pattern write /dev/mapper/nma 1 32M --size 32M --direct --quiet || fail "first write"
	if [ "$part" = again ]; then
		# a first detach on this link, repaired, attached, resynced, and
		# the peer's new generation handed over to nma
		lower bad lowa /dev/ram0
		$DD if=/dev/urandom of=/dev/mapper/nma bs=4k seek=100 count=1 oflag=direct conv=notrunc status=none
		wait_for "[ \"\$(nm_status nma disk)\" = diskless ]" 10 || fail "first detach"
		lower ok lowa /dev/ram0
		dmsetup message nma 0 attach || fail "attach"
		dur_settle 60 || fail "first attach: nma $(dmsetup status nma) | nmb $(dmsetup status nmb)"
		wait_for "[ \"\$(nm_status nma generation)\" = \"\$(nm_status nmb generation)\" ]" 30 ||
			fail "handover: nma $(dmsetup status nma) | nmb $(dmsetup status nmb)"
	fi
	g0=$(nm_status nmb generation)
	lower bad lowa /dev/ram0
	$DD if=/dev/urandom of=/dev/mapper/nma bs=4k seek=100 count=1 oflag=direct conv=notrunc status=none
	check_wait detached 10 "[ \"\$(nm_status nma disk)\" = diskless ]"
	check_wait new-gen 10 "[ \"\$(nm_status nmb generation)\" != $g0 ]"
	lower ok lowa /dev/ram0
	check diskless-write pattern write /dev/mapper/nma 2 8M --size 8M --offset 8M --direct --quiet
	# the failed block, written again through the diskless primary
	check diskless-write2 pattern write /dev/mapper/nma 3 4k --size 4k --offset 400k --direct --quiet
	if [ "$part" = a ]; then
		check_wait peer-marked 10 "[ \"\$(nm_status nmb in_sync_regions)\" = 0 ]"
	fi
	log "$P/$part: before the restart: nma $(dmsetup status nma) | nmb $(dmsetup status nmb)"
	dmsetup remove nma || fail "remove nma"
	if [ "$part" = ab ]; then
		dmsetup remove nmb || fail "remove nmb"
		dmsetup create nmb --table "$(table b)" || fail "create nmb again"
	fi
	if [ "$part" = again ]; then
		# as a static "role primary" would: refused (its data is older
		# than the peer's), then made secondary and connected
		SINCE=$(dmesg | wc -l)
		dmsetup create nma --table "$(table a)" || fail "create nma again"
		MMA=$(nm_devno nma)
		check_wait refused 30 "nm_standalone nma stale_primary"
		dmsetup message nma 0 secondary || fail "demote nma"
		dmsetup message nma 0 connect || fail "connect nma"
		if dur_settle 60; then
			check_ok resynced
		else
			check_bad resynced "nma $(dmsetup status nma) | nmb $(dmsetup status nmb)"
		fi
	else
		dur_recreate_nma resynced "$(table a sec)"
	fi
	log "$P/$part: log: $(dmesg | tail -n +$((SINCE + 1)) | grep -E 'netmirror: .*(resync|generation|marked)' | tail -n 6 | tr '\n' ';')"
	check not-source eval "! dmesg | tail -n +$((SINCE + 1)) | grep -q \"netmirror: \$MMA: resync started\""
	check kept pattern verify /dev/ram1 2 8M --size 8M --offset 8M --direct --quiet
	check kept-block pattern verify /dev/ram1 3 4k --size 4k --offset 400k --direct --quiet
	dur_settled_same identical 60 /dev/ram0 /dev/ram1
	nm_local_unpair
	dmsetup remove lowa || fail "remove lowa"
	dmsetup remove lowb || fail "remove lowb"
}

# nmb's disk fails, is repaired and attached (nma, primary, the source).
# Part verify: first a verify on nma finds a block that differs (written
# on nmb's disk behind netmirror's back), which holds the repair for the
# next link (ov_hold).  Part lone: after the resync, nma writes while
# disconnected.
peer_attach() { # verify|lone
	NM_CHECK_PREFIX=$P/$1/
	pair_up
	pattern write /dev/mapper/nma 1 4M --size 4M --direct --quiet || fail "first write"
	if [ "$1" = verify ]; then
		$DD if=/dev/urandom of=/dev/ram1 bs=4k seek=2000 count=1 oflag=direct status=none || fail "behind its back"
		nmsetup verify nma --wait > /tmp/verify.out 2>&1 || true
		check_eq found "$(nm_status nma verify_diffs)" 1 || log "$(cat /tmp/verify.out)"
	fi
	lower bad lowb /dev/ram1
	$DD if=/dev/urandom of=/dev/mapper/nma bs=4k seek=100 count=1 oflag=direct conv=notrunc status=none
	check_wait detached 10 "[ \"\$(nm_status nmb disk)\" = diskless ]"
	lower ok lowb /dev/ram1
	check attach dmsetup message nmb 0 attach
	if dur_settle 60; then
		check_ok resynced
	else
		check_bad resynced "nma $(dmsetup status nma) | nmb $(dmsetup status nmb)"
	fi
	if [ "$1" = lone ]; then
		wait_for "[ \"\$(nm_status nma generation)\" = \"\$(nm_status nmb generation)\" ]" 30 ||
			fail "handover: nma $(dmsetup status nma) | nmb $(dmsetup status nmb)"
		ga=$(nm_status nma generation)
		lose_link
		pattern write /dev/mapper/nma 4 1M --size 1M --offset 20M --direct --quiet || fail "lone write"
		check lone-gen [ "$(nm_status nma generation)" != "$ga" ]
		dmsetup message nmb 0 connect || fail "connect nmb"
	fi
	dur_settled_same identical 60 /dev/ram0 /dev/ram1
	nm_local_unpair
	dmsetup remove lowa || fail "remove lowa"
	dmsetup remove lowb || fail "remove lowb"
}

for P in $(nm_protos); do
	scenario a
	scenario ab
	scenario again
	peer_attach lone
	peer_attach verify
done
NM_CHECK_PREFIX=
exit 0
