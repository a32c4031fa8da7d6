# The Debian packages, installed with dpkg (scripts/mkpkgcpio.sh: make deb,
# dpkg --unpack into a root laid over this VM, and the DKMS build that
# netmirror-dkms's postinst does): every file of every package is where
# dpkg put it, with dpkg's checksum (over the tree's own build in the
# image); the module DKMS built from the packaged source loads by name
# after depmod; the packaged nmsetup (on the packaged libdmnet.so.2) brings
# up a two-node resource from a config file - node a by the commands of
# the packaged netmirror@.service, node b by hand, both in this VM over
# loopback - and a write on a reads back on a and is on b's disk;
# netmirror@.service's ExecStop takes it down.
# vms: 1
# disks: none
# timeout: 120
# cpio: scripts/mkpkgcpio.sh
. /tests/nmlib.sh
t0=$(cut -d' ' -f1 /proc/uptime)
DB=/var/lib/dpkg
PKGS="netmirror-dkms libdmnet2 libdmnet-dev netmirror-utils"
[ -f $DB/status ] || fail "no $DB/status: the package layer is missing (# cpio: scripts/mkpkgcpio.sh)"
# the layer's DKMS build is for the testbed's kernel ($NM_CACHE/kver): on
# another (make check-debug's) there is no module to test
built=$(ls -d /lib/modules/*/updates/dkms 2>/dev/null | head -1 | cut -d/ -f4)
[ -z "$built" ] || [ -d "/lib/modules/$KVER/updates/dkms" ] ||
	skip "the package layer's DKMS module is for $built, this kernel is $KVER"
V=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"$/\1/p' /usr/src/netmirror-*/dkms.conf)
[ -n "$V" ] || fail "no /usr/src/netmirror-*/dkms.conf"

# --- files: dpkg's database says where each package put what, with md5sums
for p in $PKGS; do
	check_match "dpkg/$p" "$(sed -n "/^Package: $p\$/,/^\$/p" $DB/status)" "Status: install ok unpacked"
	l=$(ls $DB/info/"$p".list $DB/info/"$p":*.list 2>/dev/null | head -1)
	m=$(ls $DB/info/"$p".md5sums $DB/info/"$p":*.md5sums 2>/dev/null | head -1)
	[ -n "$l" ] && [ -n "$m" ] || { check_bad "files/$p" "no $DB/info/$p.list or .md5sums"; continue; }
	miss=$(while read -r f; do [ -e "$f" ] || [ -L "$f" ] || echo "$f"; done < "$l")
	check_eq "files/$p/present" "$miss" ""
	# every file's content is the package's: the packaged nmsetup, not the
	# image's build of tools/ (the layers are unpacked in order)
	check "files/$p/md5sums" sh -c "cd / && $MD5SUM --quiet -c '$m'"
done
for f in /usr/sbin/nmsetup /usr/sbin/nm-lvcreate /usr/lib/x86_64-linux-gnu/libdmnet.so.2 \
	/usr/include/libdmnet.h /usr/lib/x86_64-linux-gnu/pkgconfig/libdmnet.pc \
	/usr/share/bash-completion/completions/nmsetup /lib/systemd/system/netmirror@.service \
	/lib/systemd/system/netmirror.target /usr/share/man/man8/nmsetup.8.gz \
	"/usr/src/netmirror-$V/Kbuild" "/usr/src/netmirror-$V/dkms.conf"; do
	check "where/$f" test -s "$f"
done
check_eq where/nm-lvremove "$(readlink /usr/sbin/nm-lvremove)" nm-lvcreate

# --- the DKMS module: the image's own build of the tree goes, so that only
# DKMS's is there; depmod as "dkms install" runs it; then by name
rm -f "/lib/modules/$KVER/extra/dm-netmirror.ko"
KO=/lib/modules/$KVER/updates/dkms/dm-netmirror.ko
check dkms/built test -s "$KO"
# kmod's (busybox ash runs its own applet for a bare "depmod": no modules.dep.bin)
check dkms/depmod /usr/sbin/depmod -a
check_eq dkms/modinfo-path "$(/usr/sbin/modinfo -n dm-netmirror 2>&1)" "$KO"
check_match dkms/vermagic "$(modinfo -F vermagic "$KO")" "^$KVER "

# --- the packaged nmsetup and library (the image's copies of the tree's
# libdmnet.so* go: the packaged one in the multiarch folder must serve)
rm -f /usr/lib/libdmnet.so*
check_match nmsetup/version "$(nmsetup --version 2>&1)" "^nmsetup [0-9.]+ \\(netmirror target"
brd_setup 16 2
cat > /etc/netmirror.conf <<'EOF'
# both nodes in this VM, over loopback
resource r0 {
    protocol C;
    on a {
        device nm0;
        disk /dev/ram0;
        address 127.0.0.1:7789;
        role primary;
    }
    on b {
        device nm1;
        disk /dev/ram1;
        address 127.0.0.1:7790;
    }
}
EOF
pattern write /dev/ram1 3 16M --direct --quiet || fail "pattern on ram1"

# node a by the unit's own commands (%i = r0), as systemd runs them
UNIT=/lib/systemd/system/netmirror@.service
unit_cmds() { sed -n "s/^$1=//p" "$UNIT" | sed 's/%i/r0/g'; }
check_match unit/exec-start "$(unit_cmds ExecStart)" "^/usr/sbin/nmsetup up r0$"
check_match unit/exec-stop "$(unit_cmds ExecStop)" "^/usr/sbin/nmsetup down r0$"
check_eq unit/no-module-yet "$(grep -c '^dm_netmirror ' /proc/modules)" 0
unit_cmds ExecStartPre > /tmp/start.sh
unit_cmds ExecStart >> /tmp/start.sh
check unit/start sh -e /tmp/start.sh
check_match unit/module-loaded "$(cat /proc/modules)" "^dm_netmirror "
# the module loaded is DKMS's: the only dm-netmirror.ko left (no
# srcversion to compare: the module has no MODULE_VERSION)
check_eq unit/module-is-dkms "$(find "/lib/modules/$KVER/" -name 'dm-netmirror.ko*')" "$KO"
check nmsetup/up-b nmsetup --host b up r0
check nmsetup/synced nm_wait_synced nm0 60
check_match nmsetup/status "$(nmsetup status nm0 2>&1)" "connected"
$DD if=/dev/urandom of=/tmp/blob bs=1M count=4 status=none
$DD if=/tmp/blob of=/dev/mapper/nm0 bs=1M seek=2 oflag=direct status=none || fail "write to nm0"
want=$($MD5SUM < /tmp/blob | cut -d' ' -f1)
check_eq io/read-back "$($DD if=/dev/mapper/nm0 bs=1M skip=2 count=4 iflag=direct status=none | $MD5SUM | cut -d' ' -f1)" "$want"
check_eq io/on-peer-device "$($DD if=/dev/mapper/nm1 bs=1M skip=2 count=4 iflag=direct status=none | $MD5SUM | cut -d' ' -f1)" "$want"
check_eq io/disks-equal "$(dev_sum /dev/ram0)" "$(dev_sum /dev/ram1)"

unit_cmds ExecStop > /tmp/stop.sh
check unit/stop sh -e /tmp/stop.sh
check nmsetup/down-b nmsetup --host b down r0
check_eq removed "$(dmsetup ls --target netmirror 2>&1 | grep -c '^nm')" 0
log "pkg-install: $(awk -v a="$t0" -v b="$(cut -d' ' -f1 /proc/uptime)" 'BEGIN{printf "%.1f", b-a}')s"
exit 0
