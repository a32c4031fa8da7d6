# A primary that is a resync target (its disk detached, then taken back
# by a reload under on_io_error pass_on) and whose own disk fails a flush:
# the resync data its disk completed since its last good flush may be
# gone from its cache.  They must go out of sync again and come from the
# peer once more, as when a flush of the peer's fails on a secondary
# target (fault-rsflush, part peer).  Up to 1.18.21 the primary's failed
# flush set nothing of the kind (nm_local_flush_failed marked only the
# regions the application wrote): the good flush at P_RS_DONE then
# counted the lost regions stable, the pair said in sync, and the primary
# read its disk's old bytes where the application had written new ones
# (review helper-65 finding 3).
#
# One VM, both nodes on loopback, 32 MiB.  nma's disk: a volatile-cache
# null_blk (nla) under a dm table (lowa) that turns dm-flakey to detach
# the disk, and whose last MiB fails every flush while "bad".  nmb's disk:
# ram0.  For each protocol A, B, C, with no metadata (part nometa) and
# with metadata devices (part meta), checks <part>/<P>/...:
#   detached    8 MiB of seed 1 written and confirmed, then nma's disk
#               fails a write and is detached
#   reloaded    4 MiB of seed 2 at 0 written through nma (to nmb only);
#               nla's whole media saved; nma's table reloaded with
#               on_io_error pass_on, its disk taken back and resynced
#               from nmb at 2 MiB/s, paused once 6 MiB went
#   rs-wrote    premise: nla holds seed 2 at 0 (the resync wrote it, and
#               no flush of nma's disk made it stable since)
#   target      premise: nma is still the resync target, inconsistent
#   flush-failed  premise: an fsync of nma while lowa is bad fails (EIO)
#   then the flushes are good again, nla's media put back as saved (what a
#   cache that lost the unflushed writes leaves):
#   read-paused nma reads seed 2 at 0 while the resync is still paused
#               (from the peer: 5d00431 read its own disk's old bytes)
#   then the resync resumed at full rate:
#   resynced    nma in sync again
#   dropped     the flush at P_RS_DONE dropped the link (the regions lost,
#               flush_failed)
#   identical   both backing devices equal (1.18.21: the first 4 MiB
#               differ, while the status said in sync)
#   kept        nma reads seed 2 at 0
# vms: 1
# disks: none
# timeout: 500
load_netmirror
. /tests/nmlib.sh
. /tests/dur-lib.sh
. /tests/dur-power-lib.sh
modprobe dm-flakey || fail "modprobe dm-flakey"
S=65536
brd_setup 32 3

tablea() {
	local m= n=6
	[ "$M" = meta ] && m=" meta /dev/ram1" n=8
	echo "0 $S netmirror /dev/mapper/lowa 127.0.0.1:7790 $P none $n listen 127.0.0.1:7789 role primary on_io_error pass_on$m"
}

for M in nometa meta; do
	for P in $(nm_protos); do
		NM_CHECK_PREFIX=$M/$P/
		nm_zero /dev/ram0 /dev/ram1 /dev/ram2
		nl_create nla 32
		dmsetup create lowa --table "0 $S linear /dev/nla 0" || fail "create lowa"
		oa= ob=
		[ "$M" = meta ] && oa="meta /dev/ram1" ob="meta /dev/ram2"
		nm_local_pair "$P" none "$S" /dev/mapper/lowa /dev/ram0 "$oa" "$ob"
		pattern write /dev/mapper/nma 1 1M --size 8M --direct --quiet || fail "$M/$P: first write"
		nm_wait_confirmed nma 30 || fail "$M/$P: unconfirmed: $(dmsetup status nma)"
		nm_detach_lowa /dev/nla
		pattern write /dev/mapper/nma 2 1M --size 4M --direct --quiet || fail "$M/$P: write while detached"
		$DD if=/dev/nla of=/tmp/old.img bs=1M iflag=direct status=none || fail "$M/$P: save nla"
		dmsetup message nmb 0 resync_rate 2048 || fail "$M/$P: resync_rate 2048"
		rb0=$(nm_status nmb resync_bytes)
		check reloaded sh -c "dmsetup reload nma --table '$(tablea)' && dmsetup resume nma"
		wait_eval "[ \$(nm_status nmb resync_bytes) -ge $((rb0 + 6291456)) ]" 30 ||
			fail "$M/$P: no 6 MiB resynced: nma $(dmsetup status nma); nmb $(dmsetup status nmb)"
		dmsetup message nmb 0 pause_resync || fail "$M/$P: pause_resync"
		sleep 1		# the regions on their way land
		log "$M/$P: paused: nma $(dmsetup status nma); nmb $(dmsetup status nmb)"
		check rs-wrote pattern verify /dev/nla 2 1M --size 4M --direct --quiet
		check target [ "$(nm_status nma connection) $(nm_status nma disk)" = "sync_target inconsistent" ]
		flushes_bad lowa /dev/nla
		$DD if=/dev/zero of=/dev/mapper/nma bs=4k count=0 conv=fsync,notrunc status=none 2>/dev/null
		rc=$?
		flushes_good lowa /dev/nla
		check_fail flush-failed [ "$rc" = 0 ]
		# the cache lost what no flush made stable: the media as before
		$DD if=/tmp/old.img of=/dev/nla bs=1M oflag=direct conv=notrunc status=none ||
			fail "$M/$P: put nla back"
		check read-paused pattern verify /dev/mapper/nma 2 1M --size 4M --direct --quiet
		d0=$(dmesg | grep -c 'an earlier flush failed with resynced data unflushed')
		dmsetup message nmb 0 resync_rate 0 || fail "$M/$P: resync_rate 0"
		dmsetup message nmb 0 resume_resync || fail "$M/$P: resume_resync"
		check resynced nm_wait_synced nma 60
		check dropped [ "$(dmesg | grep -c 'an earlier flush failed with resynced data unflushed')" -gt "$d0" ]
		log "$M/$P: nma $(dmsetup status nma); nmb $(dmsetup status nmb)"
		dur_settled_same identical 60 /dev/mapper/lowa /dev/ram0
		check kept pattern verify /dev/mapper/nma 2 1M --size 4M --direct --quiet
		nm_local_unpair
		dmsetup remove lowa || fail "remove lowa"
		nl_destroy nla
	done
done
NM_CHECK_PREFIX=
exit 0
