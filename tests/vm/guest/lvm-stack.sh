# LVM stacking and the examples, in one VM:
#  (a) nm-lvcreate then nm-lvremove leave the VG as before (vgs/lvs output
#      compared); the device is named VG-LV-nm (LVM's escaping), so two VGs
#      with the same LV name both get one; failing nm-lvcreate calls (name
#      taken, bad peer, bad size,
#      no VG, LV too big, the kernel refusing the table) leave nothing behind;
#      nm-lvremove refuses while the device is open; examples/netmirror.conf
#      gives the expected tables on the LVs nm-lvcreate made;
#  (b)+(c) examples/lvm-stacking.sh as written: netmirror over LVs
#      replicated to a second netmirror node (loopback), and netmirror as
#      the PV of a VG with an ext2 filesystem on its LV, whose files are
#      read back on the other node
#      after demote/promote, backing devices identical.
# (examples/dmsetup-tables.txt is run by dmsetup-examples.)
# vms: 1
# disks: none
# timeout: 400
# mem: 1024
load_netmirror
. /tests/nmlib.sh
for t in nmsetup nm-lvcreate nm-lvremove; do
	command -v $t >/dev/null || fail "$t not in the image (make tools)"
done
[ -f /examples/lvm-stacking.sh ] || fail "examples/ not in the image"

# ---- (a) nm-lvcreate / nm-lvremove ----------------------------------
brd_setup 128 2
pvcreate -q /dev/ram0 >/dev/null || fail "pvcreate"
vgcreate -q vg0 /dev/ram0 >/dev/null || fail "vgcreate"
lvcreate -q -y -L 8M -n keep vg0 >/dev/null || fail "lvcreate keep"
vg_state() {
	vgs --noheadings -o vg_name,pv_count,lv_count,vg_size,vg_free,vg_tags vg0
	lvs --noheadings -o lv_name,lv_size,lv_attr,lv_tags,devices vg0
	dmsetup ls | sort
}
vg_state > /tmp/before || fail "vgs/lvs"
cat /tmp/before

out=$(nm-lvcreate -L 16M -n r0 --meta-size 4M --peer 127.0.0.1:7799 --listen 127.0.0.1:7798 --role primary vg0) ||
	fail "nm-lvcreate: $out"
check_eq lvcreate/prints-device "$out" /dev/mapper/vg0-r0-nm
[ -b /dev/mapper/vg0-r0-nm ] || fail "no /dev/mapper/vg0-r0-nm"
tbl=$(dmsetup table vg0-r0-nm)
lvmaj=$(dmsetup info -c --noheadings -o major,minor vg0-r0 | tr -d ' ')
metamaj=$(dmsetup info -c --noheadings -o major,minor vg0-r0_nmmeta | tr -d ' ')
check_eq lvcreate/table "$tbl" "0 32768 netmirror $lvmaj 127.0.0.1:7799 C flush 6 listen 127.0.0.1:7798 role primary meta $metamaj"
check_eq lvcreate/uuid "$(dmsetup info -c --noheadings -o uuid vg0-r0-nm)" NETMIRROR-vg0-r0-nm
check_match lvcreate/meta-lv-tagged "$(lvs --noheadings -o lv_name,lv_tags vg0)" "r0_nmmeta *netmirror"
# the example config, as written, on the LVs nm-lvcreate made
want="dmsetup create vg0-r0-nm --uuid NETMIRROR-vg0-r0-nm --table '0 32768 netmirror /dev/vg0/r0 192.168.10.2:7789 C flush 10 listen 192.168.10.1:7789 role primary meta /dev/vg0/r0_nmmeta region_size 1024 resync_rate 0'"
got=$(nmsetup -c /examples/netmirror.conf --host alpha -n up r0 2>&1)
check_eq example-conf/alpha "$got" "$want"
got=$(nmsetup -c /examples/netmirror.conf --host beta table r0 2>&1)
check_eq example-conf/beta "$got" "0 32768 netmirror /dev/vg0/r0 192.168.10.1:7789 C flush 8 listen 192.168.10.2:7789 meta /dev/vg0/r0_nmmeta region_size 1024 resync_rate 0"

# nm-lvremove refuses while the device is open, and keeps the LV
exec 3< /dev/mapper/vg0-r0-nm
check_fail lvremove/open-refused nm-lvremove r0 vg0
check_match lvremove/open-message "$(cat /tmp/nm_check_out)" "cannot remove netmirror device vg0-r0-nm; vg0/r0 kept"
check lvremove/open-lv-kept lvs vg0/r0
exec 3<&-
check_match lvremove/dry-run "$(nm-lvremove -t vg0/r0)" "lvremove -q -f vg0/r0_nmmeta"
check lvremove/dry-run-kept [ -b /dev/mapper/vg0-r0-nm ]
nm-lvremove vg0/r0 || fail "nm-lvremove"
vg_state > /tmp/after
check lvremove/vg-as-before cmp /tmp/before /tmp/after || log "$(diff /tmp/before /tmp/after)"
log "nm-lvcreate + nm-lvremove: VG as before ($(cut -d" " -f1 /proc/uptime)s)"

# failing nm-lvcreate calls: exit code, message, nothing left behind
# (expect_early: fails before any LVM change, so only the cheap dm check;
# the full vgs/lvs comparison runs after those, and after each expect)
nexp=0
expect_early() {	# expect_early RC MESSAGE ARGS...
	local rc=$1 msg=$2 r c
	shift 2
	nexp=$((nexp + 1))
	c=refused$nexp
	nm-lvcreate "$@" >/tmp/out 2>/tmp/err; r=$?
	log "$c: nm-lvcreate $*"
	check_eq "$c/rc" "$r" "$rc"
	check "$c/message" grep -qF -- "$msg" /tmp/err
	check_eq "$c/no-output" "$(cat /tmp/out)" ""
	check_eq "$c/no-device-left" "$(dmsetup ls | sort)" "$(tail -n "$(dmsetup ls | wc -l)" /tmp/before)"
}
expect() {	# expect RC MESSAGE ARGS...
	expect_early "$@"
	shift 2
	vg_state > /tmp/after
	check "refused$nexp/vg-as-before" cmp /tmp/before /tmp/after
}
P="--peer 127.0.0.1:7799"
expect 2 "logical volume vg0/keep already exists" -L 16M -n keep $P vg0
expect_early 2 "invalid peer" -L 16M -n m1 --peer nosuchhost:7789 vg0
expect_early 2 "invalid peer" -L 16M -n m1 --peer 127.0.0.1 vg0
expect_early 2 'PEER "1.2.3.4:0"' -L 16M -n m1 --peer 1.2.3.4:0 vg0
expect_early 2 'invalid size "12Q"' -L 12Q -n m1 $P vg0
expect_early 2 'invalid size "0"' -L 0 -n m1 $P vg0
expect_early 2 'invalid LV name' -L 16M -n 'bad/name' $P vg0
expect_early 2 'Invalid region_size (want a power of two' -L 16M -n m1 --region-size 100 $P vg0
vg_state > /tmp/after
check early-refusals/vg-as-before cmp /tmp/before /tmp/after
expect 5 'volume group "novg" not found' -L 16M -n m1 $P novg
expect_early 1 "-L SIZE is required" -n m1 $P vg0
expect 3 "lvcreate vg0/m1 failed" -L 1G -n m1 $P vg0
expect 3 "lvcreate vg0/m1_nmmeta failed" -L 100M -n m1 --meta-size 64M $P vg0
# the kernel refuses the table after both LVs were made (no logon key
# with that description; on a module < 1.3 nmsetup refuses "secret"):
# rolled back
expect 3 'creating the netmirror device failed' \
	-L 16M -n m1 --meta-size 4M -o secret=netmirror:no-such-key $P vg0
dmesg | grep -q "netmirror: .*Secret: no logon key" || log "kernel did not log the refused secret"
# the netmirror device name is taken by another device-mapper device
dmsetup create vg0-m1-nm --table "0 8 zero" || fail "dmsetup create vg0-m1-nm"
vg_state > /tmp/before
expect 2 'device-mapper device "vg0-m1-nm" already exists (choose another name with --device)' -L 16M -n m1 $P vg0
dmsetup remove vg0-m1-nm || fail "remove vg0-m1-nm"
vg_state > /tmp/before
nm-lvremove nosuch vg0 2>/tmp/err; r=$?
check_eq lvremove/nosuch-rc "$r" 5
log "failing nm-lvcreate calls leave nothing behind ($(cut -d" " -f1 /proc/uptime)s)"

# two VGs with the same LV name (and a '-' in the names): two netmirror
# devices, each over its own LV, named apart from each other and from the
# LVs' own dm devices; nm-lvremove finds each
pvcreate -q /dev/ram1 >/dev/null || fail "pvcreate ram1"
vgcreate -q vg-1 /dev/ram1 >/dev/null || fail "vgcreate vg-1"
out0=$(nm-lvcreate -L 8M -n r-0 --peer 127.0.0.1:7797 --listen 127.0.0.1:7796 vg0 2>&1)
check_eq two-vgs/first "$out0" /dev/mapper/vg0-r--0-nm
out1=$(nm-lvcreate -L 8M -n r-0 --peer 127.0.0.1:7795 --listen 127.0.0.1:7794 vg-1 2>&1)
check_eq two-vgs/second "$out1" /dev/mapper/vg--1-r--0-nm
for d in vg0-r--0:vg0-r--0-nm vg--1-r--0:vg--1-r--0-nm; do
	lv=${d%%:*} nm=${d#*:}
	mm=$(dmsetup info -c --noheadings -o major,minor "$lv" | tr -d ' ')
	check_match "two-vgs/$nm-over-$lv" "$(dmsetup table "$nm" 2>&1)" "^0 16384 netmirror $mm 127\.0\.0\.1:"
done
check_eq two-vgs/dm-names "$(dmsetup ls | awk '/r--0/ { print $1 }' | sort | tr '\n' ' ')" \
	"vg--1-r--0 vg--1-r--0-nm vg0-r--0 vg0-r--0-nm "
check two-vgs/remove-first nm-lvremove vg0/r-0
check two-vgs/remove-second nm-lvremove r-0 vg-1
check_eq two-vgs/all-gone "$(dmsetup ls | grep -c 'r--0')" 0
vgremove -q vg-1 >/dev/null || fail "vgremove vg-1"
pvremove -q /dev/ram1 >/dev/null || fail "pvremove ram1"
vg_state > /tmp/after
check two-vgs/vg0-as-before cmp /tmp/before /tmp/after
lvremove -q -f vg0/keep >/dev/null || fail "lvremove keep"
vgremove -q vg0 >/dev/null || fail "vgremove"
pvremove -q /dev/ram0 >/dev/null || fail "pvremove"

# ---- (b)+(c) the walk-through, as written --------------------------------
modprobe ext4 || fail "modprobe ext4 (ext2 for the walk-through's filesystem)"
DISK_A=/dev/ram0 DISK_B=/dev/ram1 sh /examples/lvm-stacking.sh > /tmp/walk 2>&1; rc=$?
cat /tmp/walk
check_eq walkthrough/rc "$rc" 0
check walkthrough/file-one grep -q "^one: OK" /tmp/walk
check walkthrough/file-three grep -q "^three: OK" /tmp/walk
check_eq walkthrough/no-devices-left "$(dmsetup ls | grep -v 'No devices found')" ""
check_eq walkthrough/no-pvs-left "$(pvs --noheadings 2>/dev/null)" ""
log "examples/lvm-stacking.sh ok ($(cut -d" " -f1 /proc/uptime)s)"

exit 0
