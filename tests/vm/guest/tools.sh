# The base layer is complete: every shipped tool runs (all its libraries are
# there) and every shipped module loads with its dependencies.
# vms: 1
# disks: 1x64M
# layers: fio
# timeout: 120
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
	tool=$(basename "${c%% *}")
	case $out in
	*"error while loading shared libraries"*) check_bad "tool/$tool" "$c: $(echo "$out" | head -1)" ;;
	*) if [ $rc -lt 126 ]; then check_ok "tool/$tool"; else check_bad "tool/$tool" "$c: exit $rc"; fi ;;
	esac
done
for m in dm-mod dm-log dm-region-hash dm-mirror dm-flakey dm-delay dm-log-writes \
	dm-zero dm-snapshot brd loop null_blk nbd drbd libcrc32c sch_netem raid1; do
	check "module/$m" modprobe "$m"
done
for t in mirror flakey delay log-writes zero snapshot linear striped error; do
	check_match "target/$t" "$(dmsetup targets)" "^$t "
done
# lvm works without udev
check lvm/pvcreate pvcreate -q /dev/vda
check lvm/vgcreate vgcreate -q nmvg /dev/vda
check lvm/lvcreate lvcreate -q -y -L 16M -n lv0 nmvg
check lvm/lv-node sh -c '[ -b /dev/nmvg/lv0 ] || [ -b /dev/mapper/nmvg-lv0 ]'
check lvm/write pattern write /dev/mapper/nmvg-lv0 9 4M --direct --quiet
check lvm/verify pattern verify /dev/mapper/nmvg-lv0 9 4M --direct --quiet
check lvm/deactivate vgchange -q -an nmvg
log "tools, modules, dm targets and lvm ok"
exit 0
