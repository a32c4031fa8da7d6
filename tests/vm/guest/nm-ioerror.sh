# Local disk errors (on_io_error), with dm-flakey swapped in under the
# primary's backing device by a table reload:
#  - detach (default): writes keep working (they go to the peer), the node
#    shows "diskless", reads are served by the peer; after the fault is
#    removed, "attach" resyncs the disk from the peer and both backing
#    devices are identical.
#  - pass_on: the error reaches the writer; the region is marked out of
#    sync and, once the disk works again, resynced: identical at the end.
#  - a secondary whose disk fails detaches and reports the failed writes;
#    the primary counts those regions out of sync.
# vms: 1
# disks: none
# timeout: 400
load_netmirror
modprobe dm-flakey || fail "modprobe dm-flakey"
. /tests/nmlib.sh
brd_setup 32 2
S=65536
T=127.0.0.1
lower_ok() { dmsetup reload "$1" --table "0 $S linear $2 0" && dmsetup resume "$1"; }
lower_bad() { dmsetup reload "$1" --table "0 $S flakey $2 0 0 1" && dmsetup resume "$1"; }
dmsetup create lowa --table "0 $S linear /dev/ram0 0" || fail "create lowa"
dmsetup create lowb --table "0 $S linear /dev/ram1 0" || fail "create lowb"

pair() {
	dmsetup create nmb --table "0 $S netmirror /dev/mapper/lowb $T:7789 C flush 2 listen $T:7790" || fail "create nmb"
	dmsetup create nma --table "0 $S netmirror /dev/mapper/lowa $T:7790 C flush $1 listen $T:7789 role primary $2" || fail "create nma"
	nm_wait_synced nma 60 || fail "pair did not sync: $(dmsetup status nma)"
}

# --- detach on the primary
pair 4 ""
pattern write /dev/mapper/nma 1 8M --direct --quiet || fail "write before the fault"
lower_bad lowa /dev/ram0 || fail "inject fault"
pattern write /dev/mapper/nma 2 16M --direct --quiet || fail "detach: writes failed with the local disk broken"
[ "$(nm_field nma 3 | cut -d/ -f1)" = diskless ] || fail "detach: not diskless: $(dmsetup status nma)"
pattern verify /dev/mapper/nma 2 16M --direct --quiet || fail "detach: reads from the peer wrong"
pattern verify /dev/ram1 2 16M --direct --quiet || fail "detach: the peer lacks the writes"
log "detach: diskless after the fault; 16 MiB written and read back through the peer"
lower_ok lowa /dev/ram0 || fail "remove fault"
dmsetup message nma 0 attach || fail "attach"
nm_wait_synced nma 120 || fail "detach: no resync after attach: $(dmsetup status nma)"
[ "$(nm_field nma 3)" = uptodate/uptodate ] || fail "detach: after attach: $(dmsetup status nma)"
[ "$(dev_sum /dev/ram0)" = "$(dev_sum /dev/ram1)" ] || fail "detach: devices differ after attach + resync"
pattern verify /dev/ram0 2 16M --direct --quiet || fail "detach: primary's disk lacks the writes after resync"
log "detach: attach resynced $(nm_field nmb 14) bytes from the secondary; identical"
nm_local_unpair

# --- pass_on on the primary
pair 6 "on_io_error pass_on"
lower_bad lowa /dev/ram0 || fail "inject fault (pass_on)"
if $DD if=/dev/urandom of=/dev/mapper/nma bs=4k count=1 seek=1000 oflag=direct status=none 2>/dev/null; then
	fail "pass_on: a write to a failing disk succeeded"
fi
[ "$(nm_field nma 3 | cut -d/ -f1)" = uptodate ] || fail "pass_on: disk state changed: $(dmsetup status nma)"
insync=$(nm_field nma 4 | cut -d/ -f1)
[ "$insync" -lt "$(nm_field nma 4 | cut -d/ -f2)" ] || fail "pass_on: failed write not counted out of sync"
lower_ok lowa /dev/ram0 || fail "remove fault (pass_on)"
nm_wait_synced nma 60 || fail "pass_on: region not resynced: $(dmsetup status nma)"
[ "$(dev_sum /dev/ram0)" = "$(dev_sum /dev/ram1)" ] || fail "pass_on: devices differ"
log "pass_on: EIO to the writer, region resynced after the fault, identical"
nm_local_unpair

# --- the secondary's disk fails (protocol C and A)
for proto in C A; do
	dmsetup create nmb --table "0 $S netmirror /dev/mapper/lowb $T:7789 $proto flush 2 listen $T:7790" || fail "create nmb"
	dmsetup create nma --table "0 $S netmirror /dev/ram0 $T:7790 $proto flush 4 listen $T:7789 role primary" || fail "create nma"
	nm_wait_synced nma 60 || fail "$proto: no sync"
	lower_bad lowb /dev/ram1 || fail "inject on the secondary"
	pattern write /dev/mapper/nma 3 4M --direct --quiet || fail "$proto: primary write failed when the secondary's disk broke"
	wait_eval "[ \"\$(nm_field nmb 3 | cut -d/ -f1)\" = diskless ]" 10 || fail "$proto: secondary not diskless: $(dmsetup status nmb)"
	wait_eval "[ \$(nm_field nma 4 | cut -d/ -f1) -lt \$(nm_field nma 4 | cut -d/ -f2) ]" 10 ||
		fail "$proto: failed secondary writes not counted out of sync: $(dmsetup status nma)"
	lower_ok lowb /dev/ram1 || fail "remove fault on the secondary"
	dmsetup message nmb 0 attach || fail "$proto: attach secondary"
	nm_wait_synced nma 60 || fail "$proto: no resync after the secondary's attach: $(dmsetup status nma)"
	wait_eval "[ \"\$(dev_sum /dev/ram0)\" = \"\$(dev_sum /dev/ram1)\" ]" 20 || fail "$proto: devices differ"
	log "secondary disk failure ($proto): detached, regions out of sync on the primary, attach + resync, identical"
	dmsetup remove nma; dmsetup remove nmb
done
exit 0
