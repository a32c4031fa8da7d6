# Two netmirror nodes in one VM over 127.0.0.1: for every protocol (A, B, C)
# and ordering (flush, drain, none), 64 MiB of random-offset writes of mixed
# sizes (512 B .. 1 MiB; O_DIRECT and buffered + fsync in turn) through the
# primary leave both backing devices byte-identical.
# vms: 1
# disks: none
# timeout: 900
# mem: 1024
load_netmirror
. /tests/nmlib.sh
brd_setup 80 2
seed=100
mode=--direct
for proto in A B C; do
	for ord in flush drain none; do
		seed=$((seed + 1))
		nm_local_pair "$proto" "$ord"
		pattern write /dev/mapper/nma "$seed" 64M $mode --quiet ||
			fail "$proto/$ord: pattern write through the primary ($mode)"
		# A and B complete before the peer's disk has the data: settle
		wait_eval "[ \$(nm_field nma 7) = 0 ]" 30 || fail "$proto/$ord: writes still pending: $(dmsetup status nma)"
		wait_eval "[ \"\$(dev_sum /dev/ram0)\" = \"\$(dev_sum /dev/ram1)\" ]" 20 ||
			fail "$proto/$ord ($mode): backing devices differ: $(dev_sum /dev/ram0) vs $(dev_sum /dev/ram1)"
		pattern verify /dev/ram1 "$seed" 64M --direct --quiet || fail "$proto/$ord: secondary's data wrong"
		sent=$(nm_field nma 5)
		recv=$(nm_field nmb 6)
		[ "$sent" -gt 0 ] && [ "$sent" = "$recv" ] || fail "$proto/$ord: writes sent $sent, received $recv"
		[ "$(nm_field nma 4)" = "$(nm_field nma 4 | cut -d/ -f2)/$(nm_field nma 4 | cut -d/ -f2)" ] ||
			fail "$proto/$ord: regions out of sync: $(dmsetup status nma)"
		log "$proto/$ord $mode: $sent writes, $(nm_field nma 8) bytes on the wire, identical $(dev_sum /dev/ram1)"
		nm_local_unpair
		if [ "$mode" = --direct ]; then mode=--fsync; else mode=--direct; fi
	done
done
exit 0
