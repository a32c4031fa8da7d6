# An ack of the wrong kind never completes a write (review of 1.17.8).
# A diskless primary (its disk detached after a failure) sends each write
# with NM_DF_ACK_DISK under A and B: it has no copy of its own, so the
# write may end only at the peer's P_WRITE_ACK (on its disk), never at a
# P_RECV_ACK (received, maybe never written).  The receiver thread refused
# a P_RECV_ACK for such a write, but the fast ack path (nm_fastack.c, B and
# C) took it and completed the write: acknowledged, on no disk.
#
# nmhostile ackkind (tests/vm/src/nmhostile.c) plays the uptodate
# secondary of a lone node nmc (force_primary, then linked with nmc's own
# generations echoed: the same data, no resync) and answers each write as
# a secondary would ("right"), or with a P_RECV_ACK wherever a P_WRITE_ACK
# is due ("wrong").  nmc's disk (dm-linear lowc) then fails under a 4 KiB
# write at 1 MiB, and nmc detaches; a 4 KiB write at 2 MiB follows.
# Under C the first write already waits for a P_WRITE_ACK, so "wrong" ends
# the link there, with no good copy of that write either.
# Checks per protocol (A, B, C) and kind:
#   <P>/<kind>-linked     the handshake was accepted, nmc connected to an
#                         uptodate peer
#   B/<kind>-fastpath     under B the fast ack path took the first
#                         write's P_RECV_ACK (armed: only under B does
#                         the wrong ack below meet it; A has no fast path,
#                         and under C it waits for P_WRITE_ACK only)
#   <P>/<kind>-detached   nmc diskless after the failed write
#   <P>/right-ok          the write after the detach completed with success
#   <P>/wrong-fails       it failed: no disk confirmed it
#   <P>/wrong-dropped     nmc dropped the link as bad_packet (before
#                         nmhostile's end would close it)
#   <P>/right-ackdisk     that write carried NM_DF_ACK_DISK: under A and
#                         B it asks for a P_WRITE_ACK; under C (wire
#                         protocol 11, 1.18.19) it changes no ack and says
#                         nmc's disk holds no copy (up to 1.18.18 none
#                         went under C)
# vms: 1
# disks: none
# timeout: 900
load_netmirror
. /tests/nmlib.sh
brd_setup 16 2
S=$(( $(dev_size /dev/ram0) / 512 ))

w4k() {	# MIB RCFILE: a 4 KiB direct write at MIB MiB of nmc, its status
	rm -f "$2"
	( $DD if=/dev/urandom of=/dev/mapper/nmc bs=4096 count=1 seek=$(($1 * 256)) \
		oflag=direct conv=notrunc 2>/dev/null; echo $? > "$2" ) &
	wait_for "[ -e $2 ]" 30
	cat "$2" 2>/dev/null || echo none
}

# acks taken by the fast path so far
fastacks() { dmsetup message nmc 0 latency 2>/dev/null | grep '^fast_ack'; }

one_kind() {	# KIND
	local k=$1 rc ad
	dmsetup create lowc --table "0 $S linear /dev/ram0 0" || fail "$P: create lowc"
	dmsetup create nmc --table "0 $S netmirror /dev/mapper/lowc 127.0.0.1:7792 $P flush 2 listen 127.0.0.1:7791" ||
		fail "$P: create nmc"
	nm_wait_conn nmc connecting 10 || fail "$P: nmc not connecting: $(dmsetup status nmc)"
	dmsetup message nmc 0 force_primary || fail "$P: force_primary nmc"
	rm -f /tmp/ak.out
	( nmhostile ackkind 127.0.0.1 7791 "$k" 12 > /tmp/ak.out 2>&1 ) &
	check_wait "$k-linked" 15 "grep -q linked /tmp/ak.out && [ \"\$(nm_status nmc connection)\" = connected ] && [ \"\$(nm_status nmc peer_disk)\" = uptodate ]"
	log "$P $k: linked: $(dmsetup status nmc)"
	rej0=$(dmesg | grep -c 'rejected (error')
	lower bad lowc /dev/ram0
	rc=$(w4k 1 /tmp/ak1.rc)
	log "$P $k: the failing write: rc=$rc; $(dmsetup status nmc); $(fastacks)"
	# under B the fast path took that write's P_RECV_ACK: it is armed,
	# so the wrong ack below meets it, not only the thread
	[ "$P" = B ] && check "$k-fastpath" test "$(fastacks | sed -n 's/.*count=\([0-9]*\).*/\1/p')" -ge 1
	check_wait "$k-detached" 15 "[ \"\$(nm_status nmc disk)\" = diskless ]"
	rc=$(w4k 2 /tmp/ak2.rc)
	log "$P $k: the write after the detach: rc=$rc; $(dmsetup status nmc); $(fastacks)"
	if [ "$k" = right ]; then
		check_eq right-ok "$rc" 0
	else
		check wrong-fails test "$rc" != 0 -a "$rc" != none
		# the kernel log too: the wrong ack may come before the local
		# failure, whose disk_failed then replaces bad_packet (a clean
		# clone of 8b438a1 saw that order once)
		check_wait wrong-dropped 5 "[ \"\$(nm_status nmc last_error)\" = bad_packet ] || [ \$(dmesg | grep -c 'rejected (error') -gt $rej0 ]"
	fi
	wait
	cat /tmp/ak.out
	ad=$(sed -n 's/.* ackdisk=\([0-9]*\).*/\1/p' /tmp/ak.out)
	if [ "$k" = wrong ]; then
		:
	else
		check right-ackdisk test "${ad:-0}" -ge 1
	fi
	dmsetup remove nmc || fail "$P: remove nmc"
	dmsetup remove lowc || fail "$P: remove lowc"
}

run_proto() {
	one_kind right
	one_kind wrong
}
nm_each_proto run_proto
