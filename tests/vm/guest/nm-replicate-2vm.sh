# Two VMs over the emulated link: for every protocol and ordering, 32 MiB of
# random-offset mixed-size writes on node a (primary) leave the backing
# devices of both VMs byte-identical (checksums compared across the link).
# vms: 2
# disks: none
# timeout: 1200
# mem: 1024
load_netmirror
. /tests/nmlib.sh
brd_setup 48 1
on_peer ". /tests/lib.sh; load_netmirror; brd_setup 48 1" || fail "peer setup"
S=$(( $(dev_size /dev/ram0) / 512 ))
A=169.254.0.1:7789
B=169.254.0.2:7789
seed=200
mode=--direct
for proto in A B C; do
	for ord in flush drain none; do
		seed=$((seed + 1))
		# the first pair resyncs in full; each later one starts on disks
		# the pair before left byte-identical (its identical check), so
		# "sync none" is true there and spares a 48 MiB resync each
		if [ "$seed" = 201 ]; then sn= nb=2; else sn=" sync none" nb=4; fi
		on_peer "dmsetup create nm0 --table '0 $S netmirror /dev/ram0 $A $proto $ord${sn:+ 2$sn}'" || fail "peer create ($proto $ord)"
		dmsetup create nm0 --table "0 $S netmirror /dev/ram0 $B $proto $ord $nb role primary$sn" || fail "create ($proto $ord)"
		# the link within 30 s; the first full resync of 48 MiB over the
		# emulated wire may take longer (a debug kernel: 108 s once)
		wait_eval "[ \"\$(nm_status nm0 connection)\" = connected ] || [ \"\$(nm_status nm0 connection)\" = sync_source ]" 30 ||
			fail "$proto/$ord: no connection: $(dmsetup status nm0)"
		nm_wait_synced nm0 180 || fail "$proto/$ord: the first resync did not end: $(dmsetup status nm0)"
		pattern write /dev/mapper/nm0 "$seed" 32M $mode --quiet || fail "$proto/$ord: pattern write ($mode)"
		check_wait "$proto/$ord/settled" 30 "[ \$(nm_status nm0 pending) = 0 ]"
		mine=$(dev_sum /dev/ram0)
		check_wait "$proto/$ord/identical" 30 "[ \"\$(on_peer '. /tests/lib.sh; dev_sum /dev/ram0')\" = $mine ]"
		check "$proto/$ord/peer-data" on_peer "pattern verify /dev/ram0 $seed 32M --direct --quiet"
		log "$proto/$ord $mode: $(nm_status nm0 writes_sent) writes, $(nm_status nm0 bytes_sent) bytes sent, both $mine"
		dmsetup remove nm0 || fail "remove"
		on_peer "dmsetup remove nm0" || fail "peer remove"
		if [ "$mode" = --direct ]; then mode=--fsync; else mode=--direct; fi
	done
done
exit 0
