# A demoted primary's writes still on their way to its own disk keep the
# peer from becoming primary until they are done.  Up to 1.17.5 the
# demotion's P_STATE waited only for the writes queued to the peer: the
# peer could be promoted while the old primary's write was still going to
# its disk, and the new primary's write of the same blocks, applied on
# the old primary as a secondary, could then land before or after it
# there (the disk orders concurrent writes as it likes): the two disks
# would differ with status in sync.  (dm-delay keeps its writes in order,
# so the test checks the precondition, the promotion's moment, not the
# reordering itself.)  Fails on 1.17.5 (f828518): not-before-write under
# A, B and C (nmb primary 600-630 ms after the write started).
#
# One VM, both nodes on loopback, 32 MiB devices, no resync (sync none);
# nma's disk behind dm-delay with 3 s writes.  For each protocol A, B, C:
# one 4 KiB O_DIRECT write to nma starts (its peer part is done at once,
# its local one after 3 s), half a second later nma is made secondary,
# and nmb is asked to become primary every 100 ms until it accepts.
# Then (linkloss) the same write to nma with nmb's disk behind the delay,
# the link cut half a second later and nmb asked to become primary every
# 100 ms until it accepts.  Checks
# <P>/linkloss/...:
#   promoted         nmb becomes primary within 15 s
#   not-before-write no sooner than 2.5 s after the write started (its part
#                    on nmb's disk takes 3 s): the promotion waits for it
#   reads-write      a read through nmb returns the write
#   write-ok         the write succeeded on nma
# Checks <P>/...:
#   demoted          `secondary` on nma succeeds
#   promoted         nmb becomes primary within 15 s
#   not-before-write nmb became primary no sooner than 2.5 s after the
#                    write started (its local part takes 3 s)
#   write-ok         the write succeeded
#   identical        after a write through nmb and the delay lifted, both
#                    backing devices equal
# vms: 1
# disks: none
# timeout: 400
load_netmirror
. /tests/nmlib.sh
. /tests/dur-lib.sh
modprobe dm-delay || fail "modprobe dm-delay"

# nmb asked to become primary every 100 ms, up to 15 s: prints the time
# (ms since boot) it accepted, or nothing
promote_nmb() {
	local i=0
	while [ $i -lt 150 ]; do
		if dmsetup message nmb 0 primary 2> /dev/null; then
			now_ms
			return 0
		fi
		sleep 0.1
		i=$((i + 1))
	done
}

scenario() {
	local t0 tp rc S
	NM_CHECK_PREFIX=$P/
	brd_setup 32 2
	dur_delay slow /dev/ram0 0
	nm_local_pair "$P" flush "" /dev/mapper/slow /dev/ram1 "sync none" "sync none"
	S=$(( $(dev_size /dev/ram0) / 512 ))
	dmsetup load slow --table "0 $S delay /dev/ram0 0 0 /dev/ram0 0 3000 /dev/ram0 0 0" &&
		dmsetup suspend slow && dmsetup resume slow || fail "slow writes"
	t0=$(now_ms)
	( $DD if=/dev/urandom of=/dev/mapper/nma bs=4k seek=10 count=1 oflag=direct conv=notrunc status=none
	  echo $? > /tmp/w.rc ) &
	wp=$!
	sleep 0.5
	check demoted dmsetup message nma 0 secondary
	tp=$(promote_nmb)
	wait $wp
	rc=$(cat /tmp/w.rc)
	log "$P: write started at $t0 ms, ended rc $rc at $(now_ms) ms; nmb primary at ${tp:-never} ms"
	check promoted [ -n "$tp" ]
	if [ -n "$tp" ]; then
		check_eq not-before-write "$([ $((tp - t0)) -ge 2500 ] && echo yes || echo "after $((tp - t0)) ms")" yes
	fi
	check_eq write-ok "$rc" 0
	dmsetup load slow --table "0 $S delay /dev/ram0 0 0 /dev/ram0 0 0 /dev/ram0 0 0" &&
		dmsetup suspend slow && dmsetup resume slow || fail "lift the delay"
	if [ -n "$tp" ]; then
		pattern write /dev/mapper/nmb 9 1M --size 1M --direct --quiet || fail "write through nmb"
	fi
	dur_settled_same identical 60 /dev/ram0 /dev/ram1
	nm_local_unpair
	dmsetup remove slow || fail "remove slow"
}

# The secondary's side: the link ends while a write of the peer is still
# going to this node's disk (nmb behind dm-delay with 3 s writes), and
# this node is promoted as soon as it accepts.  Up to 1.18.3 the promotion did not wait
# for it (the teardown drains the peer's writes only after it changed the
# connection state): the new primary read the block without the write,
# acknowledged under A and B before the link ended, and a write of its
# own could be overtaken by it on a disk that reorders.
linkloss() {
	local t0 tp rc S
	NM_CHECK_PREFIX=$P/linkloss/
	brd_setup 32 2
	dur_delay slow /dev/ram1 0
	# ordering none: no barrier's flush (delayed as a write) holds nmb's
	# receiver, so the link's teardown begins while the write is on its way
	nm_local_pair "$P" none "" /dev/ram0 /dev/mapper/slow "sync none" "sync none"
	S=$(( $(dev_size /dev/ram1) / 512 ))
	dmsetup load slow --table "0 $S delay /dev/ram1 0 0 /dev/ram1 0 3000 /dev/ram1 0 0" &&
		dmsetup suspend slow && dmsetup resume slow || fail "slow writes"
	t0=$(now_ms)
	( pattern write /dev/mapper/nma 7 4k --size 4k --offset 40k --direct --quiet
	  echo $? > /tmp/w.rc ) &
	wp=$!
	sleep 0.5
	dmsetup message nmb 0 disconnect || fail "disconnect nmb"
	tp=$(promote_nmb)
	log "$P: write started at $t0 ms; link cut, nmb primary at ${tp:-never} ms"
	check promoted [ -n "$tp" ]
	if [ -n "$tp" ]; then
		check_eq not-before-write "$([ $((tp - t0)) -ge 2500 ] && echo yes || echo "after $((tp - t0)) ms")" yes
		check reads-write pattern verify /dev/mapper/nmb 7 4k --size 4k --offset 40k --direct --quiet
	fi
	wait $wp
	rc=$(cat /tmp/w.rc)
	check_eq write-ok "$rc" 0
	dmsetup load slow --table "0 $S delay /dev/ram1 0 0 /dev/ram1 0 0 /dev/ram1 0 0" &&
		dmsetup suspend slow && dmsetup resume slow || fail "lift the delay"
	nm_local_unpair
	dmsetup remove slow || fail "remove slow"
}

for P in $(nm_protos); do
	scenario
	linkloss
done
NM_CHECK_PREFIX=
exit 0
