# Protocol C and O_DSYNC / FUA / flush: when a synchronous write returns on
# the primary, the data is already on the secondary's backing device (read
# right after, without waiting).  Also an fsync'ed buffered write.
# vms: 1
# disks: none
# timeout: 300
load_netmirror
. /tests/nmlib.sh
brd_setup 32 2
for ord in flush drain none; do
	nm_local_pair C "$ord"
	i=0 bad=
	while [ $i -lt 50 ]; do
		off=$(( (i * 37) % 8000 ))
		$DD if=/dev/urandom of=/tmp/blk bs=4k count=1 status=none
		$DD if=/tmp/blk of=/dev/mapper/nma bs=4k seek=$off count=1 oflag=direct,dsync conv=notrunc status=none ||
			fail "$ord: dsync write $i"
		got=$($DD if=/dev/ram1 bs=4k skip=$off count=1 iflag=direct status=none | $MD5SUM)
		want=$($MD5SUM < /tmp/blk)
		[ "$got" = "$want" ] || bad="$bad $i@$off"
		i=$((i + 1))
	done
	# one check for the 50 writes (which ones failed: the detail)
	if [ -z "$bad" ]; then check_ok "$ord/dsync-on-peer"; else check_bad "$ord/dsync-on-peer" "not on the peer when they returned (write@block):$bad"; fi
	# buffered write + fsync (conv=fsync): REQ_PREFLUSH through the target
	$DD if=/dev/urandom of=/tmp/big bs=64k count=16 status=none
	$DD if=/tmp/big of=/dev/mapper/nma bs=64k seek=100 conv=fsync,notrunc status=none || fail "$ord: fsync write"
	got=$($DD if=/dev/ram1 bs=64k skip=100 count=16 iflag=direct status=none | $MD5SUM)
	check_eq "$ord/fsync-on-peer" "$got" "$($MD5SUM < /tmp/big)"
	nm_local_unpair
done
exit 0
