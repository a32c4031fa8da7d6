# A write in flight when the primary's disk fails (detach, the default)
# is acknowledged only once a disk holds it, under each protocol A, B, C
# (docs/design.md, the fault table: "a diskless primary (detached), then
# either node crashes or the link drops": nothing).  Under A its peer part
# ends when it is sent, under B when the peer received it: neither says the
# peer's disk has it, and the primary's own copy is gone with its disk.
# dm-linear lowa over /dev/ram0 and lowb over /dev/ram1 under the nodes.
#  wait:   lowb suspended (the peer receives the write, its disk holds
#          it back), lowa swapped to dm-flakey failing all I/O, then one
#          64 KiB O_DIRECT write at block 40 (no O_DSYNC: its flush would
#          wait for the peer under A and B too); 2 s later the peer's
#          held write fails (lowb reloaded as "error" and resumed: the
#          peer's disk lost it, as in a power loss) and the peer detaches.
#          <P>/wait/not-acked-early  the write had not returned before the
#                                    peer's disk failed
#          <P>/wait/acked-is-on-a-disk  if the write returned 0, the
#                                    peer's disk has it (else it returned
#                                    an error: it was not acknowledged)
#  plain:  lowa fails with the peer's disk healthy: the write returns 0
#          (<P>/plain/write-completes, within 30 s) and is on the peer's
#          disk (<P>/plain/on-peer-disk): a disk failure is still masked.
# 1.18.14's module returned the "wait" write at once under A and B
# (not-acked-early and acked-is-on-a-disk FAIL: an acknowledged write on
# no disk); C waited for the peer's disk and failed the write.
# vms: 1
# disks: none
# timeout: 600
load_netmirror
. /tests/nmlib.sh
modprobe dm-flakey || fail "modprobe dm-flakey"
brd_setup 32 2
S=65536
dmsetup create lowa --table "0 $S linear /dev/ram0 0" || fail "create lowa"
dmsetup create lowb --table "0 $S linear /dev/ram1 0" || fail "create lowb"
blk_sum() { $DD if="$1" bs=64k skip=40 count=1 iflag=direct status=none | $MD5SUM; }
$DD if=/dev/urandom of=/tmp/blk bs=64k count=1 status=none
BLK=$($MD5SUM < /tmp/blk)

# the write at block 40, in the background: its exit status in /tmp/dd.rc
write_bg() {
	rm -f /tmp/dd.rc
	( $DD if=/tmp/blk of=/dev/mapper/nma bs=64k seek=40 count=1 oflag=direct conv=notrunc status=none
	  echo $? > /tmp/dd.rc ) &
}

pair() {
	nm_zero /dev/ram0 /dev/ram1
	nm_local_pair "$P" flush "" /dev/mapper/lowa /dev/mapper/lowb
	wait_eval "[ \"\$(nm_status nma pending)\" = 0 ]" 20 || fail "$P: pending"
}

unpair() {
	dmsetup remove nma || fail "$P: remove nma"
	dmsetup remove nmb || fail "$P: remove nmb"
	lower ok lowa /dev/ram0
	lower ok lowb /dev/ram1
}

for P in $(nm_protos); do
	NM_CHECK_PREFIX=$P/wait/
	pair
	dmsetup suspend lowb || fail "$P: suspend lowb"
	lower bad lowa /dev/ram0
	write_bg
	wait_eval "[ \"\$(nm_status nma disk)\" = diskless ]" 20 ||
		fail "$P: nma did not detach: $(dmsetup status nma)"
	sleep 2
	early=no
	[ -f /tmp/dd.rc ] && early=yes
	dmsetup reload lowb --table "0 $S error" || fail "$P: lowb error"
	dmsetup resume lowb || fail "$P: resume lowb"
	wait_eval "[ -f /tmp/dd.rc ]" 60 || fail "$P: the write did not return: $(dmsetup status nma)"
	rc=$(cat /tmp/dd.rc)
	log "$P wait: returned before the peer's disk failed: $early, exit $rc; nma $(dmsetup status nma)"
	check_eq not-acked-early "$early" no
	lower ok lowb /dev/ram1
	if [ "$rc" = 0 ]; then
		check_eq acked-is-on-a-disk "$(blk_sum /dev/ram1)" "$BLK"
	else
		check_ok acked-is-on-a-disk
	fi
	unpair

	NM_CHECK_PREFIX=$P/plain/
	pair
	lower bad lowa /dev/ram0
	write_bg
	wait_eval "[ -f /tmp/dd.rc ]" 30 || fail "$P: the write did not return: $(dmsetup status nma)"
	check_eq write-completes "$(cat /tmp/dd.rc)" 0
	check_eq on-peer-disk "$(blk_sum /dev/ram1)" "$BLK"
	log "$P plain: $(dmsetup status nma)"
	unpair
done
NM_CHECK_PREFIX=
dmsetup remove lowa || fail "remove lowa"
dmsetup remove lowb || fail "remove lowb"
exit 0
