# The base layer is complete: every shipped tool runs (all its libraries are
# there) and every shipped module loads with its dependencies.
# vms: 1
# disks: 1x64M
# timeout: 120
bad=
for c in "dmsetup version" "lvm version" "/usr/lib/drbd/drbdsetup-84 --version" \
	"/usr/lib/drbd/drbdadm-84 --version" "drbdmeta --version" "nbd-client --version" \
	"nbd-server --version" "fio --version" "/usr/sbin/ip -V" "kmod --version" \
	"$DD --version" "$MD5SUM --version" "$SHA256SUM --version" "$CMP --version" \
	"$HEAD --version" "$OD --version" "$TIMEOUT --version" "$STAT --version" \
	"pattern" "wlat" "nmrpc"; do
	out=$($c 2>&1)
	rc=$?
	# some print usage and exit non-zero (drbd tools: 20); only a missing
	# binary, loader or library counts
	case $out in
	*"error while loading shared libraries"*) bad="$bad [$c: $(echo "$out" | head -1)]" ;;
	*) [ $rc -lt 126 ] || bad="$bad [$c: exit $rc]" ;;
	esac
done
[ -z "$bad" ] || fail "tools broken:$bad"
for m in dm-mod dm-log dm-region-hash dm-mirror dm-flakey dm-delay dm-log-writes \
	dm-zero dm-snapshot brd loop null_blk nbd drbd libcrc32c sch_netem raid1; do
	modprobe "$m" || bad="$bad $m"
done
[ -z "$bad" ] || fail "modules do not load:$bad"
for t in mirror flakey delay log-writes zero snapshot linear striped error; do
	dmsetup targets | grep -q "^$t " || bad="$bad $t"
done
[ -z "$bad" ] || fail "dm targets missing:$bad"
# lvm works without udev
pvcreate -q /dev/vda >/dev/null || fail "pvcreate"
vgcreate -q nmvg /dev/vda >/dev/null || fail "vgcreate"
lvcreate -q -y -L 16M -n lv0 nmvg >/dev/null || fail "lvcreate"
[ -b /dev/nmvg/lv0 ] || [ -b /dev/mapper/nmvg-lv0 ] || fail "LV device node missing"
pattern write /dev/mapper/nmvg-lv0 9 4M --direct --quiet || fail "write to LV"
pattern verify /dev/mapper/nmvg-lv0 9 4M --direct --quiet || fail "verify LV"
vgchange -q -an nmvg >/dev/null || fail "vgchange -an"
log "tools, modules, dm targets and lvm ok"
exit 0
