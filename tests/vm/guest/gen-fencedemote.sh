# A fenced primary that is demoted fails every write whose peer part is
# not confirmed, also one still on its way to its own disk (review of
# 1.17.7, finding 2 of the primary path).  Under "fencing freeze" a write
# the peer has not confirmed is not acknowledged until the peer is fenced
# or back, and `secondary` fails the held ones; but a write whose local
# part was still in flight at the demotion completed later, after the
# freeze had ended, and was acknowledged although the peer, which may be
# promoted next, never had it.
#
# One VM, both nodes on loopback with metadata devices, 32 MiB, no initial
# resync; nma's disk behind dm-delay with 6 s writes, nmb's with 3 s.  For
# each protocol: one 4 KiB O_DIRECT write to nma starts; half a second
# later nmb disconnects (its ack never leaves: it shuts the link before
# its disk is done), nma freezes; nma is made secondary while its write is
# still on its way to its disk.  Checks <P>/...:
#   frozen         nma holds writes (io frozen) after the link loss
#   demoted        `secondary` on nma succeeds
#   write-result   C: the write fails (the peer never confirmed it); A and
#                  B: it succeeds (the peer confirmed it at send / receipt,
#                  before the link was lost: nothing was held)
#   identical      delays lifted, nmb back, both backing devices equal
# Fails on 1.17.7 under C (write-result: the write succeeded).
# vms: 1
# disks: none
# timeout: 400
load_netmirror
. /tests/nmlib.sh
. /tests/dur-lib.sh
modprobe dm-delay || fail "modprobe dm-delay"

delay() {	# NAME DEV MS: dm-delay NAME's writes take MS ms
	local sz
	sz=$(( $(dev_size "$2") / 512 ))
	dmsetup load "$1" --table "0 $sz delay $2 0 0 $2 0 $3 $2 0 0" &&
		dmsetup suspend "$1" && dmsetup resume "$1" || fail "$1: $3 ms writes"
}

scenario() {
	local rc want
	NM_CHECK_PREFIX=$P/
	brd_setup 32 4
	nm_zero /dev/ram2 /dev/ram3
	dur_delay slowa /dev/ram0 0
	dur_delay slowb /dev/ram1 0
	nm_local_pair "$P" flush "" /dev/mapper/slowa /dev/mapper/slowb \
		"meta /dev/ram2 fencing freeze sync none" "meta /dev/ram3 sync none"
	nm_wait_synced nma 60 || fail "$P: not synced: $(dmsetup status nma)"
	delay slowb /dev/ram1 3000
	delay slowa /dev/ram0 6000
	( $DD if=/dev/urandom of=/dev/mapper/nma bs=4k seek=10 count=1 oflag=direct conv=notrunc status=none
	  echo $? > /tmp/w.rc ) &
	wp=$!
	sleep 0.5
	dmsetup message nmb 0 disconnect || fail "$P: disconnect nmb"
	nm_wait_conn nma connecting 20 || fail "$P: nma did not notice the link loss: $(dmsetup status nma)"
	check_eq frozen "$(nm_status nma io)" frozen
	check demoted dmsetup message nma 0 secondary
	wait $wp
	rc=$(cat /tmp/w.rc)
	log "$P: write rc $rc; nma $(dmsetup status nma)"
	want=0
	[ "$P" = C ] && want=failed
	check_eq write-result "$([ "$rc" = 0 ] && echo 0 || echo failed)" "$want"
	delay slowa /dev/ram0 0
	delay slowb /dev/ram1 0
	dmsetup message nmb 0 connect || fail "$P: connect nmb"
	dur_settled_same identical 60 /dev/ram0 /dev/ram1
	nm_local_unpair
	dmsetup remove slowa && dmsetup remove slowb || fail "$P: remove the delays"
}

for P in $(nm_protos); do
	scenario
done
NM_CHECK_PREFIX=
exit 0
