#!/bin/bash
# The testbed's debug kernel: Debian's linux-source-6.1 built with lockdep,
# KASAN, kmemleak and DEBUG_ATOMIC_SLEEP, everything the VM tests need built
# in, cached in $NM_CACHE/debug-kernel/ (never in the repository).
#
#   scripts/debug-kernel.sh [build]   build or refresh the kernel (idempotent:
#                                     nothing is rebuilt when the config
#                                     fragment below and the source tarball are
#                                     unchanged); prints the cache directory
#   scripts/debug-kernel.sh module    build dm-mirror-net against it, in a copy
#                                     under build/debug-module/ (the normal
#                                     dm-mirror-net/dm-netmirror.ko is left
#                                     alone), and make build/vm/debug-overlay.cpio:
#                                     /lib/modules/<debug kver>/ with the
#                                     kernel's few modules, modules.builtin and
#                                     extra/dm-netmirror.ko
#   scripts/debug-kernel.sh env       the environment that points tests/vm at
#                                     the debug kernel (sh syntax)
#   scripts/debug-kernel.sh selftest  the harness catches each kind of report:
#                                     boots one VM per bug of
#                                     scripts/debug-selftest/nmbug.c (lockdep
#                                     circular and recursive, KASAN oob and
#                                     uaf, kmemleak, sleep in atomic); each
#                                     must FAIL, the control (none) PASS
#   scripts/debug-kernel.sh check [TEST...]
#                                     build, module, then run the VM suite
#                                     (tests/vm/suite.sh) or the named tests on
#                                     the debug kernel (make check-debug)
#
# Cache layout ($NM_CACHE/debug-kernel/): linux-source-6.1/ (unpacked
# tarball), build/ (O= object tree, the M= target of external modules),
# vmlinux (booted by QEMU via PVH), kver (its uname -r), modules/
# (modules_install output), .stamp (hash of the config fragment + tarball).
#
# Modules in the guest: everything is built in except brd, null_blk, nbd and
# drbd, which the tests load with parameters (modprobe brd rd_nr=..., drbd
# usermode_helper=...) or unload (rmmod brd); they ship as .ko in the debug
# overlay.  modprobe of a built-in module (dm-flakey, raid1, ...) succeeds
# through modules.builtin.
#
# Variables: NM_CACHE (default ~/.cache/netmirror), NM_DEBUG_JOBS (make -j,
# default 2), NM_DEBUG_TIMEOUT_SCALE (guest/host test timeouts are multiplied
# by it on the debug kernel, default 3), NM_DEBUG_MEM_EXTRA (MB added to
# every VM's memory for KASAN's shadow and kmemleak, default 512).
set -euo pipefail

TOP=$(cd "$(dirname "$0")/.." && pwd)
CACHE=${NM_CACHE:-$HOME/.cache/netmirror}
D=$CACHE/debug-kernel
SRC=$D/linux-source-6.1
OBJ=$D/build
TARBALL=${NM_DEBUG_TARBALL:-/usr/src/linux-source-6.1.tar.xz}
JOBS=${NM_DEBUG_JOBS:-2}
MODBUILD=$TOP/build/debug-module
OVERLAY=$TOP/build/vm/debug-overlay.cpio

log() { echo "debug-kernel: $*" >&2; }

# Options on top of x86_64_defconfig.  Changing this text rebuilds the kernel.
fragment() {
	cat <<'EOF'
CONFIG_LOCALVERSION="-nmdebug"
# CONFIG_LOCALVERSION_AUTO is not set
# --- debugging
CONFIG_DEBUG_KERNEL=y
CONFIG_KALLSYMS=y
CONFIG_KALLSYMS_ALL=y
CONFIG_STACKTRACE=y
CONFIG_PROVE_LOCKING=y
CONFIG_DEBUG_SPINLOCK=y
CONFIG_DEBUG_MUTEXES=y
CONFIG_DEBUG_RWSEMS=y
CONFIG_DEBUG_LOCK_ALLOC=y
CONFIG_LOCKDEP_CHAINS_BITS=17
CONFIG_DEBUG_ATOMIC_SLEEP=y
CONFIG_KASAN=y
CONFIG_KASAN_GENERIC=y
CONFIG_KASAN_INLINE=y
CONFIG_KASAN_VMALLOC=y
CONFIG_DEBUG_KMEMLEAK=y
CONFIG_DEBUG_KMEMLEAK_MEM_POOL_SIZE=16000
# CONFIG_DEBUG_KMEMLEAK_DEFAULT_OFF is not set
# CONFIG_DEBUG_KMEMLEAK_AUTO_SCAN is not set
CONFIG_DEBUG_FS=y
CONFIG_DEBUG_LIST=y
CONFIG_DEBUG_OBJECTS=y
CONFIG_DEBUG_OBJECTS_FREE=y
CONFIG_DEBUG_OBJECTS_TIMERS=y
CONFIG_DEBUG_OBJECTS_WORK=y
CONFIG_DEBUG_OBJECTS_RCU_HEAD=y
CONFIG_DETECT_HUNG_TASK=y
CONFIG_SOFTLOCKUP_DETECTOR=y
CONFIG_MAGIC_SYSRQ=y
CONFIG_DEBUG_INFO_NONE=y
# CONFIG_FTRACE is not set
# CONFIG_KPROBES is not set
# --- boot: QEMU -kernel vmlinux (PVH), serial console
CONFIG_HYPERVISOR_GUEST=y
CONFIG_PARAVIRT=y
CONFIG_KVM_GUEST=y
CONFIG_PVH=y
CONFIG_SERIAL_8250=y
CONFIG_SERIAL_8250_CONSOLE=y
CONFIG_BLK_DEV_INITRD=y
CONFIG_RD_GZIP=y
CONFIG_DEVTMPFS=y
CONFIG_DEVTMPFS_MOUNT=y
CONFIG_TMPFS=y
CONFIG_PROC_FS=y
CONFIG_SYSFS=y
CONFIG_CONFIGFS_FS=y
CONFIG_ACPI=y
# --- modules: ours loads unsigned
CONFIG_MODULES=y
CONFIG_MODULE_UNLOAD=y
CONFIG_MODULE_FORCE_UNLOAD=y
# CONFIG_MODULE_SIG is not set
# CONFIG_MODVERSIONS is not set
# --- virtio
CONFIG_VIRTIO=y
CONFIG_VIRTIO_PCI=y
CONFIG_VIRTIO_BLK=y
CONFIG_VIRTIO_NET=y
CONFIG_NETDEVICES=y
CONFIG_NET_CORE=y
# --- block
CONFIG_BLOCK=y
CONFIG_BLK_DEV=y
CONFIG_BLK_DEV_LOOP=y
CONFIG_BLK_DEV_RAM=m
CONFIG_BLK_DEV_RAM_COUNT=16
CONFIG_BLK_DEV_RAM_SIZE=65536
CONFIG_BLK_DEV_NULL_BLK=m
CONFIG_BLK_DEV_NBD=m
CONFIG_BLK_DEV_DRBD=m
CONFIG_MD=y
CONFIG_BLK_DEV_MD=y
CONFIG_MD_RAID1=y
CONFIG_BLK_DEV_DM=y
CONFIG_DM_BUFIO=y
CONFIG_DM_SNAPSHOT=y
CONFIG_DM_THIN_PROVISIONING=y
CONFIG_DM_MIRROR=y
CONFIG_DM_ZERO=y
CONFIG_DM_DELAY=y
CONFIG_DM_FLAKEY=y
CONFIG_DM_LOG_WRITES=y
CONFIG_DM_UEVENT=y
CONFIG_EXT4_FS=y
CONFIG_EXT4_USE_FOR_EXT2=y
# --- network
CONFIG_NET=y
CONFIG_INET=y
CONFIG_IPV6=y
CONFIG_PACKET=y
CONFIG_UNIX=y
CONFIG_NET_SCHED=y
CONFIG_NET_SCH_NETEM=y
# --- crypto, keys (logon keys for the peer secret)
CONFIG_CRYPTO=y
CONFIG_CRYPTO_CRC32C=y
CONFIG_CRYPTO_CRC32C_INTEL=y
CONFIG_LIBCRC32C=y
CONFIG_CRYPTO_HMAC=y
CONFIG_CRYPTO_SHA256=y
CONFIG_CRYPTO_SHA1=y
CONFIG_CRYPTO_MD5=y
CONFIG_KEYS=y
# --- not needed in the testbed: shorter build
# CONFIG_DRM is not set
# CONFIG_AGP is not set
# CONFIG_SOUND is not set
# CONFIG_USB_SUPPORT is not set
# CONFIG_HID is not set
# CONFIG_WIRELESS is not set
# CONFIG_WLAN is not set
# CONFIG_CFG80211 is not set
# CONFIG_RFKILL is not set
# CONFIG_NETFILTER is not set
# CONFIG_ETHERNET is not set
# CONFIG_ATA is not set
# CONFIG_SCSI is not set
# CONFIG_NFS_FS is not set
# CONFIG_NETWORK_FILESYSTEMS is not set
# CONFIG_SECURITY is not set
# CONFIG_AUDIT is not set
# CONFIG_FB is not set
# CONFIG_INPUT_MOUSE is not set
# CONFIG_INPUT_JOYSTICK is not set
# CONFIG_INPUT_TABLET is not set
# CONFIG_INPUT_TOUCHSCREEN is not set
# CONFIG_LOGO is not set
# CONFIG_PCCARD is not set
# CONFIG_MACINTOSH_DRIVERS is not set
# CONFIG_HAMRADIO is not set
# CONFIG_IP_MULTICAST is not set
# CONFIG_IP_PNP is not set
# CONFIG_NETLABEL is not set
# CONFIG_XFRM_USER is not set
# CONFIG_INET_ESP is not set
# CONFIG_NET_KEY is not set
# CONFIG_X86_MCE is not set
# CONFIG_PROFILING is not set
# CONFIG_EFI is not set
# CONFIG_HIBERNATION is not set
# CONFIG_SUSPEND is not set
# CONFIG_DEBUG_STACK_USAGE is not set
# CONFIG_I2C is not set
# CONFIG_WATCHDOG is not set
# CONFIG_PTP_1588_CLOCK is not set
# CONFIG_PPS is not set
# CONFIG_DMADEVICES is not set
# CONFIG_HW_RANDOM is not set
# CONFIG_PHYLIB is not set
# CONFIG_ACPI_VIDEO is not set
# CONFIG_ACPI_BUTTON is not set
# CONFIG_ISO9660_FS is not set
# CONFIG_VFAT_FS is not set
# CONFIG_MSDOS_FS is not set
# CONFIG_FAT_FS is not set
# CONFIG_QUOTA is not set
CONFIG_EXPERT=y
# CONFIG_VT is not set
# CONFIG_INPUT is not set
# CONFIG_SERIO is not set
# CONFIG_VGA_CONSOLE is not set
# CONFIG_SERIAL_NONSTANDARD is not set
# CONFIG_SERIAL_8250_EXTENDED is not set
# CONFIG_SERIAL_8250_EXAR is not set
# CONFIG_SERIAL_8250_LPSS is not set
# CONFIG_SERIAL_8250_MID is not set
# CONFIG_SERIAL_8250_PERICOM is not set
# CONFIG_INET6_AH is not set
# CONFIG_INET6_ESP is not set
# CONFIG_IPV6_SIT is not set
# CONFIG_NET_CLS_ACT is not set
# CONFIG_NET_CLS_CGROUP is not set
# CONFIG_NET_EMATCH is not set
# CONFIG_NETCONSOLE is not set
# CONFIG_AMD_IOMMU is not set
# CONFIG_INTEL_IOMMU is not set
# CONFIG_X86_PLATFORM_DEVICES is not set
# CONFIG_HOTPLUG_PCI is not set
# CONFIG_ACPI_AC is not set
# CONFIG_ACPI_BATTERY is not set
# CONFIG_ACPI_FAN is not set
# CONFIG_ACPI_DOCK is not set
# CONFIG_ACPI_THERMAL is not set
EOF
}

# Source fixes, applied after unpacking (idempotent).  PVH + KASAN: QEMU's
# -kernel vmlinux enters at pvh_start_xen, which calls xen_prepare_pvh()
# (arch/x86/platform/pvh/enlighten.c) before kasan_early_init() has mapped
# the shadow: instrumented, it faults and the VM dies silently.
# It also calls memcmp() (lib/string.c, instrumented) through xen_cpuid_base():
# enlighten.c gets a byte loop instead.
PATCHES='pvh-enlighten-no-kasan-2'
patch_source() {
	local mk=$SRC/arch/x86/platform/pvh/Makefile c=$SRC/arch/x86/platform/pvh/enlighten.c
	grep -q '^KASAN_SANITIZE_enlighten.o' "$mk" || echo 'KASAN_SANITIZE_enlighten.o := n' >> "$mk"
	grep -q nm_xen_cpuid_base "$c" && return 0
	python3 - "$c" <<'PY'
import sys
p = sys.argv[1]
s = open(p).read()
fn = """
/* netmirror debug kernel: no memcmp() before the KASAN shadow exists */
static u32 __init nm_xen_cpuid_base(void)
{
	const char *sig = "XenVMMXenVMM";	/* XEN_SIGNATURE */
	u32 base, eax, r[3];
	int i;

	for (base = 0x40000000; base < 0x40010000; base += 0x100) {
		cpuid(base, &eax, &r[0], &r[1], &r[2]);
		for (i = 0; i < 12; i++)
			if (((const char *)r)[i] != sig[i])
				break;
		if (i == 12 && eax - base >= 2)
			return base;
	}
	return 0;
}

void __init xen_prepare_pvh(void)"""
assert s.count("void __init xen_prepare_pvh(void)") == 1
s = s.replace("void __init xen_prepare_pvh(void)", fn.lstrip("\n"), 1)
assert s.count("u32 msr = xen_cpuid_base();") == 1
s = s.replace("u32 msr = xen_cpuid_base();", "u32 msr = nm_xen_cpuid_base();")
open(p, "w").write(s)
PY
}

stamp_want() {
	(fragment; echo "$PATCHES"; stat -c '%s %Y' "$TARBALL") | sha256sum | cut -c1-16
}

# the kernel build's own tools, from Debian (as scripts/deps.sh does)
build_deps() {
	local p missing=
	for p in linux-source-6.1 flex bison bc libelf-dev libssl-dev dwarves; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
			missing="$missing $p"
	done
	[ -z "$missing" ] && return 0
	log "installing$missing"
	$([ "$(id -u)" = 0 ] || echo sudo) apt-get install -y -q --no-install-recommends $missing
}

cmd_build() {
	local want
	build_deps
	[ -r "$TARBALL" ] || { log "$TARBALL missing: apt-get install linux-source-6.1"; exit 1; }
	want=$(stamp_want)
	if [ -s "$D/vmlinux" ] && [ -s "$D/kver" ] && [ "$(cat "$D/.stamp" 2>/dev/null)" = "$want" ]; then
		log "up to date: $D/vmlinux ($(cat "$D/kver"))"
		echo "$D"
		return 0
	fi
	mkdir -p "$D"
	if [ ! -e "$SRC/.unpacked" ] || [ "$TARBALL" -nt "$SRC/.unpacked" ]; then
		log "unpacking $TARBALL"
		rm -rf "$SRC" "$OBJ"
		(cd "$D" && nice -n 19 tar xJf "$TARBALL")
		touch "$SRC/.unpacked"
	fi
	patch_source
	mkdir -p "$OBJ"
	local t0=$SECONDS
	log "configuring (x86_64_defconfig + fragment)"
	fragment > "$D/fragment.config"
	make -s -C "$SRC" O="$OBJ" x86_64_defconfig > /dev/null
	"$SRC/scripts/kconfig/merge_config.sh" -m -O "$OBJ" "$OBJ/.config" "$D/fragment.config" > /dev/null
	make -s -C "$SRC" O="$OBJ" olddefconfig > /dev/null
	# every option of the fragment must have survived (a missing dependency
	# silently drops it)
	local bad=0 line opt val
	while read -r line; do
		case $line in
		CONFIG_*=*)
			opt=${line%%=*} val=${line#*=}
			grep -qxF "$opt=$val" "$OBJ/.config" || { log "config: want $opt=$val, got: $(grep -E "^(# )?$opt[= ]" "$OBJ/.config" || echo unset)"; bad=1; }
			;;
		"# CONFIG_"*" is not set")
			opt=${line#"# "} opt=${opt%% *}
			grep -q "^$opt=" "$OBJ/.config" && { log "config: want $opt off, got $(grep "^$opt=" "$OBJ/.config")"; bad=1; }
			;;
		esac
	done < "$D/fragment.config"
	[ $bad = 0 ] || { log "config fragment not applied"; exit 1; }
	log "building (nice -n 19, -j$JOBS)"
	nice -n 19 make -C "$SRC" O="$OBJ" -j"$JOBS" vmlinux modules > "$D/build.log" 2>&1 ||
		{ tail -n 30 "$D/build.log" >&2; log "build failed, log: $D/build.log"; exit 1; }
	# modules_prepare output (Module.symvers, scripts) for M= builds is part of vmlinux+modules
	rm -rf "$D/modules"
	nice -n 19 make -s -C "$SRC" O="$OBJ" INSTALL_MOD_PATH="$D/modules" INSTALL_MOD_STRIP=1 \
		DEPMOD=/sbin/depmod modules_install > /dev/null
	make -s -C "$SRC" O="$OBJ" kernelrelease > "$D/kver.tmp"
	mv "$D/kver.tmp" "$D/kver"
	cp "$OBJ/vmlinux" "$D/vmlinux.tmp"
	mv "$D/vmlinux.tmp" "$D/vmlinux"
	echo "$want" > "$D/.stamp"
	log "built $D/vmlinux ($(cat "$D/kver")) in $((SECONDS - t0))s"
	echo "$D"
}

need_kernel() {
	[ -s "$D/vmlinux" ] && [ -s "$D/kver" ] || { log "no debug kernel: run scripts/debug-kernel.sh"; exit 1; }
}

cmd_module() {
	need_kernel
	local kver st
	kver=$(cat "$D/kver")
	# a copy of the sources: the M= build writes its objects next to them
	mkdir -p "$MODBUILD/src"
	local f
	for f in "$MODBUILD"/src/*.[ch] "$MODBUILD/src/Kbuild"; do
		[ -e "$f" ] && [ ! -e "$TOP/dm-mirror-net/$(basename "$f")" ] && rm -f "$f"
	done
	# -p: unchanged files keep their mtime, make rebuilds only what changed
	cp -p "$TOP"/dm-mirror-net/Kbuild "$TOP"/dm-mirror-net/*.[ch] "$MODBUILD/src/"
	log "building dm-netmirror.ko against $kver"
	make -s -C "$OBJ" M="$MODBUILD/src" W=1 modules >&2
	# the overlay: /lib/modules/<kver>/ of the debug kernel + our module
	st=$(mktemp -d "$TOP/build/debug-overlay-stage.XXXXXX")
	trap 'rm -rf "$st"' RETURN
	mkdir -p "$st/usr/lib/modules"
	cp -a "$D/modules/lib/modules/$kver" "$st/usr/lib/modules/"
	rm -f "$st/usr/lib/modules/$kver/build" "$st/usr/lib/modules/$kver/source"
	mkdir -p "$st/usr/lib/modules/$kver/extra"
	cp "$MODBUILD/src/dm-netmirror.ko" "$st/usr/lib/modules/$kver/extra/"
	/sbin/depmod -b "$st/usr" "$kver"
	mkdir -p "$(dirname "$OVERLAY")"
	find "$st" -exec touch -h -d @0 {} +
	(cd "$st" && find . | LC_ALL=C sort | cpio -o -H newc --quiet --reproducible) > "$OVERLAY.tmp.$$"
	mv "$OVERLAY.tmp.$$" "$OVERLAY"
	log "overlay $OVERLAY"
}

cmd_env() {
	need_kernel
	echo "NM_KERNEL_IMAGE=$D/vmlinux"
	echo "NM_EXTRA_CPIO=$OVERLAY"
	echo "NM_DEBUG=1"
	echo "NM_TIMEOUT_SCALE=${NM_DEBUG_TIMEOUT_SCALE:-3}"
	echo "NM_MEM_EXTRA=${NM_DEBUG_MEM_EXTRA:-512}"
	echo "NM_VM_OUT=$TOP/build/vm-debug"
}

cmd_selftest() {
	need_kernel
	cmd_module
	local sb=$TOP/build/debug-selftest st w out rc=0 e
	mkdir -p "$sb/src"
	cp -p "$TOP"/scripts/debug-selftest/Kbuild "$TOP"/scripts/debug-selftest/nmbug.c "$sb/src/"
	make -s -C "$OBJ" M="$sb/src" modules >&2
	st=$(mktemp -d "$TOP/build/debug-selftest-stage.XXXXXX")
	trap 'rm -rf "$st"' RETURN
	mkdir -p "$st/tests"
	cp "$sb/src/nmbug.ko" "$st/tests/"
	for w in none circular recursive oob uaf leak atomic; do
		printf '# vms: 1\ninsmod /tests/nmbug.ko what=%s || fail "insmod nmbug what=%s"\nexit 0\n' "$w" "$w" \
			> "$st/tests/dbg-$w.sh"
	done
	(cd "$st" && find . | LC_ALL=C sort | cpio -o -H newc --quiet) > "$sb/tests.cpio"
	cat "$OVERLAY" "$sb/tests.cpio" > "$sb/overlay.cpio"
	while read -r e; do
		export "${e?}"
	done < <(cmd_env)
	export NM_EXTRA_CPIO=$sb/overlay.cpio
	for w in none circular recursive oob uaf leak atomic; do
		out=$("$TOP/tests/vm/vm.sh" --name "dbg-$w" --tests "dbg-$w" --timeout 300 2>/dev/null) || true
		case $w:$out in
		none:PASS*) echo "ok   $w: $out" ;;
		none:*) echo "BAD  $w: a clean run fails: $out"; rc=1 ;;
		*:FAIL*) echo "ok   $w: $out" ;;
		*) echo "BAD  $w: not caught: $out (log build/vm-debug/dbg-$w.log)"; rc=1 ;;
		esac
	done
	return $rc
}

cmd_check() {
	cmd_build > /dev/null
	cmd_module
	local e
	while read -r e; do
		export "${e?}"
	done < <(cmd_env)
	if [ $# -gt 0 ]; then
		exec "$TOP/tests/vm/run-test.sh" "$@"
	fi
	exec "$TOP/tests/vm/suite.sh"
}

case ${1:-build} in
build) cmd_build ;;
module) cmd_module ;;
env) cmd_env ;;
check) shift; cmd_check "$@" ;;
selftest) cmd_selftest ;;
-h|--help) sed -n '2,/^set -e/p' "$0" | sed '$d; s/^# \{0,1\}//' ;;
*) log "unknown command $1"; exit 2 ;;
esac
