# vms: 1
# disks: none
# layers: fio
# timeout: 480
# mem: 1024
# (header keys first: run-test.sh reads them from the first 30 lines only)
# Review F25: the receivers sent inline, under tx_mutex, and could wait
# there while their own sender held it, blocked on a full socket whose
# peer's receiver was waiting the same way.  A primary being resynced from
# its secondary (after `attach`) with an application load closes that
# cycle: the secondary's sync thread (P_RS_DATA) and receiver (the
# P_READ_REPLY of reads the primary cannot serve) fill one direction, the
# primary's sender (P_DATA) the other, and the primary's receiver waits
# to send its P_RS_ACKs.  Nothing moved until the timeout dropped the
# link, and the primary's writes in flight then failed (EIO: its disk is
# being resynced).  Since 1.17.2 a receiver sends acks and ping answers
# only if the lock is free and the socket has room, else leaves them to
# the sender thread (ack_deferred counts that).
#
# One VM, both nodes on loopback over brd (64 MiB, region_size 2048, timeout
# 4 s), the guest's TCP buffers small (tcp_wmem/tcp_rmem max 64 KiB) so
# that the sockets fill; nma's disk a dm-linear, swapped for a failing
# dm-flakey to detach it.  For each protocol A, B, C, two rounds: nmb's
# resync paused, nma detached and attached again (inconsistent, every
# region to resync), fio randrw 1 MiB O_DIRECT at depth 16 for 12 s on
# nma, the resync resumed a second in.  A watcher dumps the blocked tasks
# (sysrq w) when nma's completed I/O stops moving for 2 s.  On 1.17.1
# (with 4542da0's module too) every round under A stalled (nma's nm_conn
# in nm_peer_send_acks, nmb's in nm_peer_read, both on tx_mutex), dropped
# the link and failed fio.  Then C with a csums resync (C-csums): the
# primary, its target, answers each region's P_CSUM with a P_CSUM_REPLY
# from its receiver; on 1.17.2 both rounds stalled the same way (nma's
# nm_conn in nm_peer_csum, on tx_mutex) and failed fio (1.17.3: ctrl_q).
# Checks <V>/round<N>/... (V: A, B, C, C-csums):
#   no-drop      no link loss during the round
#   fio-ok       fio saw no error
#   deferred     (last round) nma's receiver left acks to its sender at
#                least once in the test so far: the path ran
#   compared     (C-csums) nma, the target, compared regions by digest:
#                the csums path ran
#   identical    after the rounds, both backing devices equal
load_netmirror
. /tests/nmlib.sh
. /tests/dur-lib.sh
modprobe dm-flakey || fail "modprobe dm-flakey"
sysctl -w net.ipv4.tcp_wmem="4096 16384 65536" net.ipv4.tcp_rmem="4096 16384 65536" > /dev/null ||
	fail "sysctl tcp buffers"
OPTS="region_size 2048 timeout 4000 ping 500"
MB=64

# the writes completed on nma stop moving for 2 s: dump the blocked tasks once
watch_stall() {
	local last="" cur same=0 dumped=0
	while [ ! -e /tmp/stop ]; do
		cur=$(dm_ios nma)
		if [ "$cur" = "$last" ]; then
			same=$((same + 1))
			if [ $same -ge 4 ] && [ $dumped = 0 ]; then
				log "$V: no progress for 2 s: $(dmsetup status nma | cut -d' ' -f4-12)"
				echo w > /proc/sysrq-trigger
				dumped=1
			fi
		else
			same=0
		fi
		last=$cur
		sleep 0.5
	done
}

# each protocol, then C with a checksum-based resync (csums crc32c on the
# source, nmb): the primary, its target, answers each region's P_CSUM with
# a P_CSUM_REPLY from its receiver
VARIANTS=$(nm_protos)
case " $VARIANTS " in *" C "*) VARIANTS="$VARIANTS C-csums" ;; esac
for V in $VARIANTS; do
	P=${V%-csums}
	CS=
	[ "$V" = "$P" ] || CS="csums crc32c"
	NM_CHECK_PREFIX=$V/
	brd_setup $MB 2
	for d in /dev/ram0 /dev/ram1; do
		$DD if=/dev/zero of=$d bs=1M count=$MB oflag=direct status=none || fail "zero $d"
	done
	S=$(( $(dev_size /dev/ram1) / 512 ))
	dmsetup create lowa --table "0 $S linear /dev/ram0 0" || fail "create lowa"
	nm_local_pair "$P" none "$S" /dev/mapper/lowa /dev/ram1 "sync none $OPTS" "sync none $OPTS${CS:+ $CS}"
	for round in 1 2; do
		nm_reattach_paused /dev/ram0
		dmesg -c > /dev/null
		d0=$(drops)
		rm -f /tmp/stop
		watch_stall &
		wpid=$!
		fio --name=cycle --filename=/dev/mapper/nma --rw=randrw --bs=1M --size=${MB}M \
			--ioengine=libaio --direct=1 --iodepth=16 --time_based --runtime=12 \
			> /tmp/fio.out 2>&1 &
		fpid=$!
		sleep 1
		dmsetup message nmb 0 resume_resync || fail "resume_resync"
		wait $fpid
		frc=$?
		touch /tmp/stop
		wait $wpid
		log "$V/$round: fio rc $frc: $(grep -E 'IOPS|err' /tmp/fio.out | head -3 | tr '\n' ' ')"
		log "$V/$round: nma $(dmsetup status nma | cut -d' ' -f4-12)"
		dmesg | grep -E 'netmirror' | head -20 | sed 's/^/    /'
		dmesg | sed -n '/Show Blocked State/,$p' | grep -E 'task:|nm_|mutex|sk_stream' | head -60 | sed 's/^/    /'
		check_eq "round$round/no-drop" "$(drops)" "$d0"
		check "round$round/fio-ok" [ "$frc" = 0 ]
		nm_wait_synced nma 120 || fail "not synced: $(dmsetup status nma)"
		if [ -n "$CS" ]; then
			c=$(nm_status nma resync_compared)
			log "$V/$round: nma compared ${c:-none} bytes by digest"
			check "round$round/compared" [ "${c:-0}" -gt 0 ]
		fi
	done
	n=$(dmsetup message nma 0 latency | sed -n 's/^ack_deferred count=//p')
	log "$V: nma ack_deferred ${n:-none}"
	check deferred [ "${n:-0}" -gt 0 ]
	dur_settled_same identical 60 /dev/ram0 /dev/ram1
	nm_local_unpair
	dmsetup remove lowa || fail "remove lowa"
done
NM_CHECK_PREFIX=
exit 0
