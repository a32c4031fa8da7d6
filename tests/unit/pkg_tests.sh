#!/bin/bash
# Packaging checks on the host, no root, no VM: the DKMS configuration and
# the source it ships, the version that dkms.conf and debian/changelog
# share, the systemd units (systemd-analyze verify, and the nmsetup
# commands they run), and libdmnet.pc (a program built with
# "pkg-config --cflags --libs libdmnet" against an installed libdmnet).
# Usage: pkg_tests.sh PATH/TO/nmsetup.  One line per case; appends
# "PASS unit/pkg/<case>" / "FAIL ..." / "SKIP ..." to $NM_RESULTS if set.
set -u
NM=$(cd "$(dirname "${1:?path to nmsetup}")" && pwd)/$(basename "$1")
TOP=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

NM_UNIT_GROUP=pkg
# shellcheck source=tests/unit/results.sh
. "$(dirname "$0")/results.sh"
eq() {	# eq NAME GOT WANT
	if [ "$2" = "$3" ]; then result "$1" 1; else result "$1" 0 "got [$2], want [$3]"; fi
}

# --- DKMS: version, module name, the shipped source
conf=$TOP/dm-mirror-net/dkms.conf
dv=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"$/\1/p' "$conf")
cv=$(sed -n '1s/^netmirror (\([^)]*\)).*/\1/p' "$TOP/debian/changelog")
eq version/dkms-is-changelog "$dv" "${cv%-*}"
eq version/script "$("$TOP/scripts/dkms.sh" version)" "$dv"
eq dkms/name "$(sed -n 's/^PACKAGE_NAME="\(.*\)"$/\1/p' "$conf")" netmirror
obj=$(sed -n 's/^obj-m *:= *\(.*\)\.o$/\1/p' "$TOP/dm-mirror-net/Kbuild")
eq dkms/module-is-kbuild-obj "$(sed -n 's/^BUILT_MODULE_NAME\[0\]="\(.*\)"$/\1/p' "$conf")" "$obj"
# the exclusive kernels: the testbed's (Debian 12's 6.1) matches, 6.5+ not
re=$(sed -n 's/^BUILD_EXCLUSIVE_KERNEL="\(.*\)"$/\1/p' "$conf")
kver=$(cat "${NM_CACHE:-$HOME/.cache/netmirror}/kver" 2>/dev/null || echo 6.1.0-57-amd64)
if [[ $kver =~ $re ]] && ! [[ 6.12.0-1-amd64 =~ $re ]]; then result dkms/exclusive-kernel 1
else result dkms/exclusive-kernel 0 "BUILD_EXCLUSIVE_KERNEL=$re vs $kver and 6.12"; fi
# bash reads it as DKMS does, and nothing in it is unknown to DKMS 3
# shellcheck source=/dev/null
if (set -e; . "$conf"; [ "$PACKAGE_NAME" = netmirror ] && [ "$AUTOINSTALL" = yes ]) 2>/dev/null
then result dkms/sources-as-bash 1; else result dkms/sources-as-bash 0 "sourcing $conf failed"; fi
"$TOP/scripts/dkms.sh" stage "$tmp/src"
# Kbuild, dkms.conf and the module's C files and headers: git's list, or
# (not in git) the folder's less the generated *.mod.c
if ! srcs=$(cd "$TOP/dm-mirror-net" && git ls-files '*.c' '*.h' 2>/dev/null) || [ -z "$srcs" ]; then
	srcs=$(cd "$TOP/dm-mirror-net" && find . -maxdepth 1 \( -name '*.c' -o -name '*.h' \) ! -name '*.mod.c' | sed 's|^\./||')
fi
want=$(printf 'Kbuild\ndkms.conf\n%s\n' "$srcs" | LC_ALL=C sort | tr '\n' ' ')
eq dkms/stage-files "$(cd "$tmp/src" && find . -mindepth 1 | sed 's|^\./||' | LC_ALL=C sort | tr '\n' ' ')" "$want"
miss=
for o in $(sed -n 's/^dm-netmirror-y *:= *//p' "$TOP/dm-mirror-net/Kbuild"); do
	[ -f "$tmp/src/${o%.o}.c" ] || miss="$miss ${o%.o}.c"
done
eq dkms/stage-has-every-object "$miss" ""

# netmirror-dkms's postinst, after DKMS's part: what it says when the
# running kernel got no module (a fake uname; kernels not on this host)
mkdir -p "$tmp/bin"
hint=$(sed -n '/^#DEBHELPER#$/,$p' "$TOP/debian/netmirror-dkms.postinst")
for k in 6.1.0-99-amd64:"apt-get install linux-headers-6.1.0-99-amd64" \
	6.12.9-amd64:"builds for Linux 6.1 kernels"; do
	printf '#!/bin/sh\necho %s\n' "${k%%:*}" > "$tmp/bin/uname"
	chmod 755 "$tmp/bin/uname"
	out=$(PATH=$tmp/bin:$PATH sh -c "$hint" postinst configure 2>&1)
	if [[ $out == *"${k#*:}"* ]]; then result "dkms/postinst-hint-${k%%:*}" 1
	else result "dkms/postinst-hint-${k%%:*}" 0 "said [$out], want [${k#*:}]"; fi
done

# --- systemd units: the commands they run exist in nmsetup
U=$TOP/tools/systemd
eq unit/exec-start "$(sed -n 's/^ExecStart=//p' "$U/netmirror@.service")" "/usr/sbin/nmsetup up %i"
eq unit/exec-stop "$(sed -n 's/^ExecStop=//p' "$U/netmirror@.service")" "/usr/sbin/nmsetup down %i"
for c in up down; do
	if "$NM" "$c" --help 2>&1 | grep -q "^usage: nmsetup $c RESOURCE"; then result "unit/nmsetup-$c" 1
	else result "unit/nmsetup-$c" 0 "nmsetup $c --help: $("$NM" "$c" --help 2>&1 | head -1)"; fi
done
grep -q '^Before=.*local-fs-pre.target' "$U/netmirror@.service" &&
	grep -q '^DefaultDependencies=no' "$U/netmirror@.service"
eq unit/before-local-fs "$?" 0
# systemd-analyze verify in a root where the units are installed and
# ExecStart's programs exist (stand-ins: verify checks they are executable)
if command -v systemd-analyze > /dev/null; then
	R=$tmp/root
	make -s -C "$TOP/tools" install DESTDIR="$R" PREFIX=/usr SYSTEMDUNITDIR=/lib/systemd/system \
		> "$tmp/install.log" 2>&1 || cat "$tmp/install.log"
	mkdir -p "$R/sbin"
	printf '#!/bin/sh\n' > "$R/sbin/modprobe"
	chmod 755 "$R/sbin/modprobe"
	out=$(systemd-analyze verify --root="$R" --man=no netmirror@r0.service netmirror.target 2>&1)
	eq unit/systemd-analyze-verify "$out" ""
	# and "enable" sees the [Install] sections as meant
	out=$(SYSTEMD_OFFLINE=1 systemctl --root="$R" enable netmirror.target netmirror@r0.service 2>&1)
	if [ -L "$R/etc/systemd/system/multi-user.target.wants/netmirror.target" ] &&
		[ -L "$R/etc/systemd/system/netmirror.target.wants/netmirror@r0.service" ]; then
		result unit/enable 1
	else
		result unit/enable 0 "systemctl --root enable: $out"
	fi
else
	result unit/systemd-analyze-verify SKIP "no systemd-analyze on this host"
fi

# --- libdmnet.pc: a program built and linked with what pkg-config says
L=$tmp/lib
if make -s -C "$TOP/libdmnet" install DESTDIR="$L" PREFIX=/usr LIBDIR=/usr/lib/nm > "$tmp/lib.log" 2>&1; then
	pcpath=$(pkg-config --variable pc_path pkg-config)
	export PKG_CONFIG_SYSROOT_DIR=$L PKG_CONFIG_LIBDIR=$L/usr/lib/nm/pkgconfig:$pcpath
	flags=$(pkg-config --cflags --libs libdmnet 2>&1 | sed 's/ *$//')
	eq pc/flags "$flags" "-I$L/usr/include -L$L/usr/lib/nm -ldmnet"
	eq pc/version "$(pkg-config --modversion libdmnet)" "$(sed -n 's/^VERSION *= *//p' "$TOP/libdmnet/Makefile")"
	cat > "$tmp/t.c" <<'EOF'
#include <stdio.h>
#include <libdmnet.h>
int main(void)
{
	const struct nm_opt_def *d = nm_opt_find("role");

	printf("%d.%d %s\n", NM_TARGET_MAJOR, NM_TARGET_MINOR, d ? d->keyword : "-");
	return !d;
}
EOF
	# shellcheck disable=SC2086
	if cc -std=c11 -Wall -Werror -o "$tmp/t" "$tmp/t.c" $flags 2> "$tmp/cc.log"; then
		eq pc/program "$(LD_LIBRARY_PATH=$L/usr/lib/nm "$tmp/t" 2>&1)" \
			"$(sed -n 's/^#define NM_TARGET_MAJOR[[:space:]]*//p' "$TOP/dm-mirror-net/nm_params.h").$(sed -n 's/^#define NM_TARGET_MINOR[[:space:]]*//p' "$TOP/dm-mirror-net/nm_params.h") role"
	else
		result pc/program 0 "cc: $(head -c 300 "$tmp/cc.log")"
	fi
else
	result pc/install 0 "make -C libdmnet install: $(tail -3 "$tmp/lib.log")"
fi

echo "pkg_tests: $pass passed, $fail failed"
[ "$fail" = 0 ]
