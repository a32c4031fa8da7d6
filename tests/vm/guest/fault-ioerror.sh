# Local disk errors (on_io_error; dm-netmirror 1.4), with dm-flakey (every
# I/O failing) swapped in by a table reload under a node's backing device
# (dm-linear lowa over /dev/ram0, lowb over /dev/ram1):
#  - detach (the default) on the primary: the write that hits the failing
#    disk completes (its copy reached the peer), the disk shows "diskless"
#    (last_error disk_failed), later writes and all reads are served through
#    the peer and stay correct; after the fault is removed, "attach" takes
#    the disk back, the peer resyncs it, both identical, the writes made while
#    diskless are on the primary's own disk; bytes_received counts what
#    the reads brought once (read-bytes-counted-once).
#  - pass_on on the primary: the failing write returns EIO to the writer,
#    the disk stays uptodate and the connection up, the region is counted
#    out of sync; after the fault is removed it is resynced: identical.
#  - the secondary's disk fails (protocol C and A): it detaches, the primary
#    counts the regions out of sync; attach + resync: identical.
# vms: 1
# disks: none
# timeout: 600
load_netmirror
. /tests/nmlib.sh
modprobe dm-flakey || fail "modprobe dm-flakey"
brd_setup 32 2
S=65536
dmsetup create nmprobe --table "0 $S netmirror /dev/ram1 127.0.0.1:7799 C flush 2 on_io_error pass_on" 2>/dev/null ||
	fail "the module refuses the on_io_error option"
dmsetup remove nmprobe || fail "remove nmprobe"
dmsetup create lowa --table "0 $S linear /dev/ram0 0" || fail "create lowa"
dmsetup create lowb --table "0 $S linear /dev/ram1 0" || fail "create lowb"
same() { check_eq "$1" "$(dev_sum /dev/ram0)" "$(dev_sum /dev/ram1)" || log "nma $(dmsetup status nma); nmb $(dmsetup status nmb)"; }
blk_sum() { $DD if="$1" bs=64k skip=40 count=1 iflag=direct status=none | $MD5SUM; }
$DD if=/dev/urandom of=/tmp/blk bs=64k count=1 status=none
BLK=$($MD5SUM < /tmp/blk)

# ---- detach (default) on the primary ----
nm_local_pair C flush "" /dev/mapper/lowa /dev/mapper/lowb
pattern write /dev/mapper/nma 1 8M --direct --quiet || fail "detach: write before the fault"
lower bad lowa /dev/ram0
check detach/failed-write-completes $DD if=/tmp/blk of=/dev/mapper/nma bs=64k seek=40 count=1 oflag=direct conv=notrunc status=none
check_wait detach/diskless 10 "[ \"\$(nm_status nma disk)\" = diskless ]"
check_eq detach/last-error "$(nm_status nma last_error)" disk_failed
log "detach: $(dmsetup status nma)"
# later writes and every read go through the peer
check detach/write-diskless pattern write /dev/mapper/nma 2 8M --size 16M --offset 8M --direct --quiet
check detach/read-diskless pattern verify /dev/mapper/nma 2 8M --size 16M --offset 8M --direct --quiet
check detach/peer-has-writes pattern verify /dev/ram1 2 8M --size 16M --offset 8M --direct --quiet
# reads of 4 MiB through the peer: one P_READ carries at most 1 MiB
check_eq detach/read-4m-diskless \
	"$($DD if=/dev/mapper/nma bs=4M count=6 iflag=direct status=none | $MD5SUM)" \
	"$($DD if=/dev/ram1 bs=4M count=6 iflag=direct status=none | $MD5SUM)"
check_eq detach/failed-write-reads-back "$(blk_sum /dev/mapper/nma)" "$BLK"
# 16 MiB read through the peer are 16 MiB received, plus headers: each
# P_READ_REPLY counted once (review F30; up to 1.17.5 its payload twice)
r0=$(nm_status nma bytes_received); s0=$(nm_status nmb bytes_sent)
$DD if=/dev/mapper/nma of=/dev/null bs=1M count=16 iflag=direct status=none || fail "read 16 MiB"
rd=$(( $(nm_status nma bytes_received) - r0 )); sd=$(( $(nm_status nmb bytes_sent) - s0 ))
log "16 MiB read through the peer: nma received $rd bytes, nmb sent $sd"
check detach/read-bytes-counted-once [ $rd -ge $((16 << 20)) -a $rd -le $((17 << 20)) ]
# repair and attach: the peer resyncs the disk back
lower ok lowa /dev/ram0
dmsetup message nma 0 attach || fail "attach: $(dmsetup status nma)"
check detach/resync-after-attach nm_wait_synced nma 120
check_wait detach/uptodate-after-attach 30 "[ \"\$(nm_status nma disks)\" = uptodate/uptodate ]"
same detach/identical-after-attach
check detach/writes-on-own-disk pattern verify /dev/ram0 2 8M --size 16M --offset 8M --direct --quiet
check_eq detach/failed-write-on-own-disk "$(blk_sum /dev/ram0)" "$BLK"
log "detach: attach resynced $(nm_status nmb resync_bytes) bytes from the secondary: $(dmsetup status nma)"
nm_local_unpair

# ---- pass_on on the primary ----
nm_local_pair C flush "" /dev/mapper/lowa /dev/mapper/lowb "on_io_error pass_on"
pattern write /dev/mapper/nma 3 4M --size 8M --direct --quiet || fail "pass_on: write before the fault"
lower bad lowa /dev/ram0
check_fail pass_on/write-gets-eio $DD if=/tmp/blk of=/dev/mapper/nma bs=64k seek=40 count=1 oflag=direct conv=notrunc status=none
log "pass_on: $(dmsetup status nma)"
check_eq pass_on/disk-stays-uptodate "$(nm_status nma disk)" uptodate
check pass_on/connection-kept [ "$(nm_status nma connection)" != standalone ]
check pass_on/failed-write-out-of-sync [ "$(nm_status nma in_sync_regions)" -lt "$(nm_status nma total_regions)" ]
lower ok lowa /dev/ram0
check pass_on/write-after-repair pattern write /dev/mapper/nma 4 2M --size 8M --offset 8M --direct --quiet
check pass_on/resync-after-repair nm_wait_synced nma 60
check pass_on/secondary-in-sync nm_wait_synced nmb 30
same pass_on/identical
check pass_on/peer-has-writes pattern verify /dev/ram1 4 2M --size 8M --offset 8M --direct --quiet
log "pass_on: EIO to the writer, region resynced after the repair: $(dmsetup status nma)"
nm_local_unpair

# ---- the secondary's disk fails (protocol C and A) ----
for proto in C A; do
	nm_local_pair "$proto" flush "" /dev/ram0 /dev/mapper/lowb
	lower bad lowb /dev/ram1
	check "secondary-$proto/primary-writes-go-on" pattern write /dev/mapper/nma 5 4M --direct --quiet
	check_wait "secondary-$proto/diskless" 10 "[ \"\$(nm_status nmb disk)\" = diskless ]"
	check_wait "secondary-$proto/out-of-sync-on-primary" 10 "[ \$(nm_status nma in_sync_regions) -lt \$(nm_status nma total_regions) ]"
	lower ok lowb /dev/ram1
	dmsetup message nmb 0 attach || fail "$proto: attach secondary"
	check "secondary-$proto/resync-after-attach" nm_wait_synced nma 60
	check_wait "secondary-$proto/identical" 20 "[ \"\$(dev_sum /dev/ram0)\" = \"\$(dev_sum /dev/ram1)\" ]"
	log "secondary disk failure ($proto): $(dmsetup status nma)"
	nm_local_unpair
done
dmsetup remove lowa || fail "remove lowa"
dmsetup remove lowb || fail "remove lowb"
exit 0
