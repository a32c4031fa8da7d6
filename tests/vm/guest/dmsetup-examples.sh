# examples/dmsetup-tables.txt as written: every pair of table lines is
# created with dmsetup (secondary first), syncs, the disks are identical
# after writes on the primary, and "dmsetup table" reprints each line
# canonically (devices as major:minor).
# vms: 1
# disks: none
# timeout: 300
load_netmirror
. /tests/nmlib.sh
[ -f /examples/dmsetup-tables.txt ] || fail "examples/ not in the image"
brd_setup 16 4
pattern write /dev/ram0 31 16M --direct --quiet || fail "pattern"
grep -E '^nm[ab]: ' /examples/dmsetup-tables.txt > /tmp/tables
n=0
while read -r name table; do
	name=${name%:}
	dmsetup create "$name" --table "$table" || fail "dmsetup create $name --table '$table'"
	# reprint: canonical, devices as major:minor
	want=$(echo "$table" | sed 's|/dev/ram\([0-3]\)|1:\1|g')
	check_eq "pair$((n + 1))/$name-reprint" "$(dmsetup table "$name")" "$want"
	[ "$name" = nma ] || continue
	n=$((n + 1))
	nm_wait_synced nma 90 || fail "pair $n: no sync: $(dmsetup status nma)"
	nm_wait_synced nmb 30 || fail "pair $n: nmb: $(dmsetup status nmb)"
	pattern write /dev/mapper/nma $((40 + n)) 2M --offset $((n * 2))M --direct --quiet || fail "pair $n: write"
	check_wait "pair$n/settled" 30 "[ \$(nm_status nma pending) = 0 ]"
	check_eq "pair$n/identical" "$(dev_sum /dev/ram0)" "$(dev_sum /dev/ram1)"
	log "pair $n: $(dmsetup table nma | cut -d' ' -f4-) ok"
	dmsetup remove nma || fail "remove nma"
	dmsetup remove nmb || fail "remove nmb"
done < /tmp/tables
check_eq pairs-run "$n" 4
log "examples/dmsetup-tables.txt: $n pairs ok ($(cut -d" " -f1 /proc/uptime)s)"
exit 0
