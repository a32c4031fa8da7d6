# Two-node demo (make demo / tests/vm/demo.sh): node a (169.254.0.1) is the
# primary, node b (169.254.0.2) the secondary, each on a 128 MiB virtio disk
# (/dev/vda, a file on the host).  Shows creation, the initial sync, a
# write load, the checksums of both backing devices, a disconnect with
# catch-up resync, and a switch-over.
# vms: 2
# disks: 1x128M
# timeout: 400
. /tests/nmlib.sh
say() { echo "DEMO: $*"; }
show() { say "  a: $(dmsetup status nm0 | cut -d' ' -f4-)"; say "  b: $(on_peer 'dmsetup status nm0' | cut -d' ' -f4-)"; }
load_netmirror
on_peer '. /tests/lib.sh; load_netmirror' || fail "cannot load dm-netmirror on node b"
S=$(( $(dev_size /dev/vda) / 512 ))
say "netmirror $(dmsetup targets | awk '/netmirror/{print $2}') loaded on both nodes; $((S / 2048)) MiB disks"
TB="0 $S netmirror /dev/vda 169.254.0.1:7789 C flush"
TA="0 $S netmirror /dev/vda 169.254.0.2:7789 C flush 2 role primary"
say "node b: dmsetup create nm0 --table \"$TB\""
on_peer "dmsetup create nm0 --table '$TB'" || fail "create on b"
say "node a: dmsetup create nm0 --table \"$TA\""
dmsetup create nm0 --table "$TA" || fail "create on a"
say "dmsetup table nm0 (a): $(dmsetup table nm0)"
say "status fields: role connection disk/peer_disk in_sync/total sent recv pending bytes_sent bytes_recv rejected last_error resync_kibs eta resync_bytes"
sleep 1
show
say "initial full sync (sync full is the default)..."
nm_wait_synced nm0 300 || fail "initial sync did not finish: $(dmsetup status nm0)"
show
say "writing 64 MiB of random-offset, mixed-size O_DIRECT writes through node a (protocol C)..."
t0=$(cut -d' ' -f1 /proc/uptime)
pattern write /dev/mapper/nm0 42 64M --direct --quiet || fail "write load"
t1=$(cut -d' ' -f1 /proc/uptime)
say "  done in $(echo "$t0 $t1" | awk '{printf "%.1f", $2 - $1}') s"
show
a=$(dev_sum /dev/vda); b=$(on_peer '. /tests/lib.sh; dev_sum /dev/vda')
say "md5 of the backing devices: a $a, b $b"
[ "$a" = "$b" ] || fail "backing devices differ"
say "writes to the secondary are refused:"
if on_peer "$DD if=/dev/zero of=/dev/mapper/nm0 bs=4k count=1 oflag=direct status=none" 2>/dev/null; then fail "secondary accepted a write"; fi
say "  (write on b failed as it should; writes_rejected on b = $(on_peer 'dmsetup status nm0' | nm_status_pick writes_rejected))"
say "disconnect, write 8 regions on a, reconnect:"
dmsetup message nm0 0 disconnect
nm_wait_conn nm0 standalone 10
for r in 3 17 40 41 99 150 200 250; do
	$DD if=/dev/urandom of=/dev/mapper/nm0 bs=4k count=1 seek=$((r * 128)) oflag=direct conv=notrunc status=none
done
show
rs0=$(nm_status nm0 resync_bytes)
dmsetup message nm0 0 connect
nm_wait_synced nm0 60 || fail "catch-up resync"
show
say "  resync sent $(( $(nm_status nm0 resync_bytes) - rs0 )) bytes (8 regions x 512 KiB = 4194304)"
a=$(dev_sum /dev/vda); b=$(on_peer '. /tests/lib.sh; dev_sum /dev/vda')
say "md5 of the backing devices: a $a, b $b"
[ "$a" = "$b" ] || fail "backing devices differ after resync"
say "switch-over: a -> secondary, b -> primary, write on b"
dmsetup message nm0 0 secondary || fail "demote a"
wait_eval "on_peer 'dmsetup message nm0 0 primary'" 10 || fail "promote b"
on_peer "pattern write /dev/mapper/nm0 43 8M --direct --quiet" || fail "write on b"
show
a=$(dev_sum /dev/vda); b=$(on_peer '. /tests/lib.sh; dev_sum /dev/vda')
say "md5 of the backing devices: a $a, b $b"
[ "$a" = "$b" ] || fail "backing devices differ after switch-over"
dmsetup remove nm0 && on_peer 'dmsetup remove nm0' || fail "remove"
say "removed; demo complete"
exit 0
