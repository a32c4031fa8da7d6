# A secondary whose disk is slow holds a bounded amount of memory for the
# writes it received (review F17).  Up to 1.14 it waited only for the count
# of writes in flight (1024), so 1 MiB writes could pin 1 GiB of pages:
# under A and B the primary is not held back by the secondary's disk, so
# the secondary read on until its GFP_NOIO allocations failed (link dropped
# with bad_packet) or the VM ran out of memory.  Since 1.15 the secondary
# stops reading once max_buffers KiB (default 16 MiB) are held, and TCP
# holds the primary back.
#
# One VM, both nodes on loopback, ordering none (flush and drain drain the
# secondary at each epoch, which bounds it by an epoch); the secondary's disk is dm-delay over brd
# (5 s per write); for each protocol A, B, C: fio writes 1 MiB O_DIRECT at
# depth 16 for 6 s on the primary while MemAvailable is polled.  Checks
# <P>/...:
#   bounded        MemAvailable never fell more than 96 MiB below its value
#                  before fio (fio's own buffers are 16 MiB, the cap 16
#                  MiB, the sockets a few); over it, the test stops the
#                  delay at once so that the VM keeps its memory
#   link-kept      the pair stayed connected throughout (polled)
#   no-error-lines no allocation failure, OOM, rejected packet or dropped
#                  link in the kernel log
#   fio-ok         every write completed without error
#   identical      after the pair settles, both backing devices are equal
# Under C fio's depth bounds what is in flight anyway: those checks passed
# before 1.15 too; A and B failed `bounded`.  The devices are 128 MiB and
# fio writes them in order: a write overlapping one still in flight stops
# the secondary's reader too, which on a device smaller than what the
# old code read ahead in 5 s hid the defect (a 32 MiB run passed on 1.14).
# vms: 1
# disks: none
# layers: fio
# timeout: 420
# mem: 1024
load_netmirror
. /tests/nmlib.sh
. /tests/dur-lib.sh

avail() { awk '/^MemAvailable:/ { print int($2 / 1024) }' /proc/meminfo; }
LIMIT=80
# slowb's writes no longer delayed (the delayed ones are flushed)
undelay() {
	dmsetup suspend slowb && dmsetup load slowb --table "0 $S linear /dev/ram1 0" &&
		dmsetup resume slowb || fail "$P: undelay slowb"
}

for P in $(nm_protos); do
	NM_CHECK_PREFIX=$P/
	brd_setup 128 2
	# brd allocates its pages at the first write: now, not during the load
	for d in /dev/ram0 /dev/ram1; do
		$DD if=/dev/zero of=$d bs=1M count=128 oflag=direct status=none ||
			fail "zero $d"
	done
	S=$(( $(dev_size /dev/ram1) / 512 ))
	dur_delay slowb /dev/ram1 5000
	nm_local_pair "$P" none "" /dev/ram0 /dev/mapper/slowb "sync none" "sync none"
	dmesg -c > /dev/null
	base=$(avail)
	fio --name=buffers --filename=/dev/mapper/nma --rw=write --bs=1M --size=128M \
		--ioengine=libaio --direct=1 --iodepth=16 --time_based --runtime=6 \
		> /tmp/fio.out 2>&1 &
	fpid=$!
	low=$base conn=yes over=no
	while kill -0 $fpid 2> /dev/null; do
		a=$(avail)
		[ "$a" -lt "$low" ] && low=$a
		[ "$(nm_status nma connection)" = connected ] || conn=no
		if [ $((base - a)) -gt $LIMIT ]; then
			over=yes
			break
		fi
		sleep 0.2
	done
	if [ $over = yes ]; then
		# give the memory back before it is gone: the delay off
		kill $fpid 2> /dev/null
		undelay
	fi
	wait $fpid
	frc=$?
	log "$P: MemAvailable $base MiB before, lowest $low MiB; $(grep -m1 -o 'IOPS=[^,]*' /tmp/fio.out)"
	check_eq bounded "$((base - low > LIMIT ? base - low : 0))" 0
	check_eq link-kept "$conn" yes
	check_fail no-error-lines sh -c \
		"dmesg | grep -E 'page allocation failure|Out of memory|rejected|dropping link|bad_packet'"
	check_eq fio-ok "$frc" 0
	[ $over = yes ] || undelay
	dur_settled_same identical 120 /dev/ram0 /dev/ram1
	nm_local_unpair
	dmsetup remove slowb || fail "remove slowb"
done
NM_CHECK_PREFIX=
exit 0
