# A buffer changed while its O_DIRECT write is in flight (review F18) is
# not a corrupted packet: with `integrity crc32c` the primary sums the
# bytes it sends, not a page that may change between the sum and the
# send (B and C send pages by reference; A copies them after the sum).
# Up to 1.15.1 the secondary saw a crc mismatch, the link dropped
# (integrity_error) and a resync followed, again and again: a replication
# stall any user who can write to the device could cause.
#
# One VM, both nodes on loopback, integrity crc32c on both; for each
# protocol A, B, C: flipwrite (tests/vm/src/flipwrite.c) writes a 64 KiB
# buffer that a second process keeps changing, O_DIRECT at random offsets
# of 16 MiB for 4 s.  Checks <P>/...:
#   writes-ok        every write completed
#   link-kept        the pair stayed connected throughout (polled)
#   no-integrity-error   last_error on neither node is integrity_error,
#                    and no "crc mismatch"/"dropping link" in the kernel log
#   identical        the 16 MiB written again with stable data: both
#                    backing devices equal once settled.  What the changing
#                    buffer left on each disk before that is undefined, as
#                    with md raid1 and DRBD (each disk may get other bytes
#                    of the same write): docs/design.md, "A buffer changed
#                    during its write".
# vms: 1
# disks: none
# timeout: 300
# mem: 1024
load_netmirror
. /tests/nmlib.sh
. /tests/dur-lib.sh
for P in $(nm_protos); do
	NM_CHECK_PREFIX=$P/
	brd_setup 32 2
	nm_local_pair "$P" flush "" /dev/ram0 /dev/ram1 "integrity crc32c" "integrity crc32c"
	dmesg -c > /dev/null
	flipwrite /dev/mapper/nma 4 --size $((16 << 20)) > /tmp/flip.out 2>&1 &
	fpid=$!
	conn=yes
	while kill -0 $fpid 2> /dev/null; do
		[ "$(nm_status nma connection)" = connected ] || conn=no
		sleep 0.2
	done
	wait $fpid
	frc=$?
	log "$P: $(cat /tmp/flip.out)"
	check_eq writes-ok "$frc" 0
	check_eq link-kept "$conn" yes
	check_eq no-integrity-error "$(nm_status nma last_error) $(nm_status nmb last_error)" "- -"
	check_fail no-error-lines sh -c "dmesg | grep -E -i 'crc|dropping link|integrity'"
	$DD if=/dev/urandom of=/dev/mapper/nma bs=1M count=16 oflag=direct status=none ||
		fail "$P: rewrite"
	dur_settled_same identical 60 /dev/ram0 /dev/ram1
	nm_local_unpair
done
NM_CHECK_PREFIX=
exit 0
