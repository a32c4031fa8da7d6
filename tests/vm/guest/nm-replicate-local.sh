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
		check_wait "$proto/$ord/settled" 30 "[ \$(nm_status nma pending) = 0 ]"
		check_wait "$proto/$ord/identical" 20 "[ \"\$(dev_sum /dev/ram0)\" = \"\$(dev_sum /dev/ram1)\" ]"
		check "$proto/$ord/secondary-data" pattern verify /dev/ram1 "$seed" 64M --direct --quiet
		sent=$(nm_status nma writes_sent)
		recv=$(nm_status nmb writes_received)
		check "$proto/$ord/sent-gt-0" [ "$sent" -gt 0 ]
		check_eq "$proto/$ord/sent-eq-received" "$recv" "$sent"
		check_eq "$proto/$ord/regions-in-sync" "$(nm_status nma in_sync_regions)" "$(nm_status nma total_regions)"
		log "$proto/$ord $mode: $sent writes, $(nm_status nma bytes_sent) bytes on the wire, identical $(dev_sum /dev/ram1)"
		nm_local_unpair
		if [ "$mode" = --direct ]; then mode=--fsync; else mode=--direct; fi
	done
done
exit 0
