# Local disk errors (on_io_error; dm-netmirror 1.4): dm-flakey (every I/O
# failing) swapped in by table reload under the primary's local device.
# pass_on: the failing write returns EIO to the submitter, the device stays
# up; after the fault is removed the pair resyncs to identical.
# detach: the failing write completes (its copy reached the peer), the
# disk shows "diskless" (last_error disk_failed), later writes and all reads
# are served through the peer and stay correct; after the fault is removed,
# "attach" takes the disk back, the peer resyncs it, both identical, the
# writes made while diskless are on the primary's own disk.
# vms: 1
# disks: none
# timeout: 400
load_netmirror
. /tests/nmlib.sh
modprobe dm-flakey || fail "modprobe dm-flakey"
brd_setup 16 2
S=$(( $(dev_size /dev/ram0) / 512 ))
dmsetup create nmprobe --table "0 $S netmirror /dev/ram1 127.0.0.1:7799 C flush 2 on_io_error pass_on" 2>/dev/null ||
	fail "the module refuses the on_io_error option"
dmsetup remove nmprobe
swap() { # swap linear|flakey: the primary's local device
	local t="0 $S linear /dev/ram0 0"
	[ "$1" = flakey ] && t="0 $S flakey /dev/ram0 0 0 3600"
	dmsetup suspend fa && dmsetup load fa --table "$t" && dmsetup resume fa || fail "swap fa to $1"
}
pair() { # pair MODE
	$DD if=/dev/zero of=/dev/ram0 bs=1M oflag=direct status=none 2>/dev/null
	$DD if=/dev/zero of=/dev/ram1 bs=1M oflag=direct status=none 2>/dev/null
	dmsetup create fa --table "0 $S linear /dev/ram0 0" || fail "create fa"
	dmsetup create nmb --table "0 $S netmirror /dev/ram1 127.0.0.1:7789 C flush 4 listen 127.0.0.1:7790 sync none" || fail "create nmb"
	dmsetup create nma --table "0 $S netmirror /dev/mapper/fa 127.0.0.1:7790 C flush 8 listen 127.0.0.1:7789 role primary sync none on_io_error $1" || fail "create nma ($1)"
	nm_wait_synced nma 60 || fail "$1: no connection: $(dmsetup status nma)"
	pattern write /dev/mapper/nma 1 4M --size 8M --direct --quiet || fail "$1: write 1"
	nm_wait_synced nma 30 || fail "$1: after write 1"
}
unpair() { dmsetup remove nma && dmsetup remove nmb && dmsetup remove fa || fail "remove"; }
same() { [ "$(dev_sum /dev/ram0)" = "$(dev_sum /dev/ram1)" ] || fail "$1: ram0 != ram1: nma $(dmsetup status nma); nmb $(dmsetup status nmb)"; }

# ---- pass_on ----
pair pass_on
swap flakey
$DD if=/dev/urandom of=/tmp/blk bs=64k count=1 status=none
if $DD if=/tmp/blk of=/dev/mapper/nma bs=64k seek=40 count=1 oflag=direct status=none 2>/dev/null; then
	fail "pass_on: a write to the failing disk succeeded: $(dmsetup status nma)"
fi
log "pass_on: write failed with an error as it should: $(dmsetup status nma)"
[ "$(nm_field nma 2)" != standalone ] || fail "pass_on: connection given up"
swap linear
pattern write /dev/mapper/nma 2 2M --size 8M --direct --quiet || fail "pass_on: write after the repair"
nm_wait_synced nma 60 || fail "pass_on: no resync after the repair: $(dmsetup status nma)"
nm_wait_synced nmb 30 || fail "pass_on: nmb $(dmsetup status nmb)"
same "pass_on after the repair"
pattern verify /dev/ram1 2 2M --size 8M --direct --quiet || fail "pass_on: seed 2 not on the peer"
log "pass_on: after the repair identical: $(dmsetup status nma)"
unpair

# ---- detach ----
pair detach
swap flakey
$DD if=/tmp/blk of=/dev/mapper/nma bs=64k seek=40 count=1 oflag=direct status=none ||
	fail "detach: the write that hit the failing disk failed: $(dmsetup status nma)"
wait_for "[ \"\$(dmsetup status nma | awk '{print \$6}' | cut -d/ -f1)\" = diskless ]" 10 ||
	fail "detach: disk not diskless: $(dmsetup status nma)"
[ "$(nm_field nma 11)" = disk_failed ] || fail "detach: last_error $(nm_field nma 11)"
log "detach: $(dmsetup status nma)"
# later writes and every read go through the peer
pattern write /dev/mapper/nma 3 2M --size 8M --offset 8M --direct --quiet || fail "detach: writes while diskless"
pattern verify /dev/mapper/nma 3 2M --size 8M --offset 8M --direct --quiet || fail "detach: reads while diskless"
pattern verify /dev/ram1 3 2M --size 8M --offset 8M --direct --quiet || fail "detach: seed 3 not on the peer"
got=$($DD if=/dev/mapper/nma bs=64k skip=40 count=1 iflag=direct status=none | $MD5SUM)
[ "$got" = "$($MD5SUM < /tmp/blk)" ] || fail "detach: the failed write does not read back"
# repair and attach: the peer resyncs the whole disk back
swap linear
dmsetup message nma 0 attach || fail "attach: $(dmsetup status nma)"
nm_wait_synced nma 120 || fail "detach: no resync after attach: $(dmsetup status nma)"
wait_for "[ \"\$(dmsetup status nma | awk '{print \$6}')\" = uptodate/uptodate ]" 30 ||
	fail "detach: disks after attach: $(dmsetup status nma); nmb $(dmsetup status nmb)"
same "detach after attach"
pattern verify /dev/ram0 3 2M --size 8M --offset 8M --direct --quiet || fail "detach: seed 3 not on the primary's disk after attach"
got=$($DD if=/dev/ram0 bs=64k skip=40 count=1 iflag=direct status=none | $MD5SUM)
[ "$got" = "$($MD5SUM < /tmp/blk)" ] || fail "detach: the failed write not on the primary's disk after attach"
log "detach: after attach identical: $(dmsetup status nma)"
unpair
exit 0
