#!/bin/sh
# /init of the netmirror test VM (busybox ash).  Kernel command line words
# reach us as environment variables:
#   nm_node=a|b         node name; a = 169.254.0.1, b = 169.254.0.2 on eth0
#   nm_role=tests|peer|shell
#                       tests: run $nm_tests (default when nm_tests is set)
#                       peer:  run the nmrpc server and idle (node b of a
#                              two-VM test)
#                       shell: interactive shell on the console
#   nm_tests=t1,t2      guest tests to run (/tests/NAME.sh)
#   nm_timeout=SECS     per-test timeout (default 300)
#   nm_peer=1           node a of a two-VM test: check the peer's dmesg after
#                       each test and power it off at the end
#   nm_debug=1          debug kernel (scripts/debug-kernel.sh): a kmemleak
#                       scan after each test, whole dmesg reports on FAIL
#   nm_phase=N, ...     anything else is left to the tests
# Console protocol (parsed by tests/vm/lib.sh on the host):
#   NMTEST: PASS name | NMTEST: FAIL name: reason | NMTEST: SKIP name
#   NMCHECK: PASS check | NMCHECK: FAIL check: detail   (the test's named
#                       checks, guest-lib/lib.sh; a failed one FAILs the test)
#   NMTEST-DONE
#   NMDUMP-BEGIN / NMDUMP-END around dmesg dumps
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/root TERM=${TERM:-vt100}
export DM_DISABLE_UDEV=1

mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mkdir -p /dev/pts /dev/shm /dev/mapper
mount -t devpts devpts /dev/pts
mount -t tmpfs tmpfs /tmp
mount -t tmpfs tmpfs /run
mount -t tmpfs tmpfs /dev/shm
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
mkdir -p /run/lock /var/lock /run/lvm
ln -sf /proc/self/fd /dev/fd 2>/dev/null
echo 1 > /proc/sys/kernel/sysrq

cat > /etc/lvm/lvm.conf <<'EOF'
activation {
	udev_sync = 0
	udev_rules = 0
	monitoring = 0
}
devices {
	obtain_device_list_from_udev = 0
}
global {
	use_lvmetad = 0
}
EOF

modprobe -a virtio_pci virtio_blk virtio_net 2>/dev/null
ip link set lo up
case ${nm_node:-a} in
a) nm_id=1 ;;
b) nm_id=2 ;;
*) nm_id=${nm_node:-1} ;;
esac
export nm_node=${nm_node:-a} nm_id
hostname "${nm_node}"
if [ -e /sys/class/net/eth0 ]; then
	ip addr add "169.254.0.$nm_id/16" dev eth0
	ip link set eth0 up
fi

. /tests/lib.sh
echo "NMBOOT: node $nm_node up at $(cut -d' ' -f1 /proc/uptime)s (kernel uptime)"

nm_done() {
	echo "NMTEST-DONE"
	sync
	poweroff -f
	sleep 5
	echo o > /proc/sysrq-trigger
}

role=${nm_role:-}
[ -n "$role" ] || { if [ -n "${nm_tests:-}" ]; then role=tests; elif [ "$nm_node" = b ]; then role=peer; else role=shell; fi; }

case $role in
peer)
	echo "NMPEER: READY"
	# the server execs a new /bin/sh per request; it forks per connection
	exec nmrpc serve 0.0.0.0 "${nm_rpc_port:-7000}"
	;;
shell)
	echo "NMSHELL: no tests given; interactive shell (poweroff -f to quit)"
	setsid sh -c 'exec sh </dev/ttyS0 >/dev/ttyS0 2>&1'
	nm_done
	;;
esac

# role=tests (NM_DMESG_BAD: from lib.sh, defined in dmesg-bad.sh)
T=${nm_timeout:-300}
for t in $(echo "$nm_tests" | tr ',' ' '); do
	f=/tests/$t.sh
	if [ ! -f "$f" ]; then
		echo "NMTEST: FAIL $t: no such test $f"
		continue
	fi
	rm -f /tmp/nm_fail_reason /tmp/nm_checks
	echo "NMTEST-START $t" > /dev/kmsg
	start=$(cut -d' ' -f1 /proc/uptime)
	# GNU timeout: own process group, the whole test tree gets the signal
	/usr/bin/timeout -k 5 "$T" sh -c "cd /tmp && . /tests/lib.sh && . $f" </dev/null
	rc=$?
	end=$(cut -d' ' -f1 /proc/uptime)
	secs=$(awk -v a="$start" -v b="$end" 'BEGIN{printf "%.1f", b-a}')
	verdict=PASS
	reason=
	case $rc in
	0) ;;
	77) verdict=SKIP; reason=$(cat /tmp/nm_fail_reason 2>/dev/null) ;;
	124|137)
		verdict=FAIL; reason="guest timeout after ${T}s"
		echo "--- timeout: blocked tasks ---"
		echo w > /proc/sysrq-trigger
		sleep 1
		;;
	*) verdict=FAIL; reason=$(cat /tmp/nm_fail_reason 2>/dev/null); reason=${reason:-exit status $rc} ;;
	esac
	nbad=$(grep -c '^FAIL ' /tmp/nm_checks 2>/dev/null)
	if [ "${nbad:-0}" -gt 0 ]; then
		verdict=FAIL
		reason="${reason:+$reason; }$nbad of $(wc -l < /tmp/nm_checks) checks failed: $(grep '^FAIL ' /tmp/nm_checks | cut -d' ' -f2 | head -5 | tr '\n' ' ' | sed 's/ $//')"
	fi
	nm_kmemleak_scan
	newlog=$(dmesg | sed -n "/NMTEST-START $t\$/,\$p")
	# marker gone (ring buffer wrapped): check all that is left
	[ -n "$newlog" ] || newlog=$(dmesg)
	bad=$(echo "$newlog" | grep -E "$NM_DMESG_BAD" | head -5)
	if [ -n "$bad" ]; then
		verdict=FAIL
		reason="${reason:+$reason; }dmesg: $(echo "$bad" | head -1 | sed 's/^\[[ 0-9.]*\] //')"
	fi
	if [ -n "${nm_peer:-}" ] && [ ! -e /tmp/nm_peer_off ]; then
		pc=$(peer_check 2>&1)
		case $pc in
		*"NMPEER: CLEAN"*) ;;
		*) verdict=FAIL; reason="${reason:+$reason; }peer: $(echo "$pc" | head -3 | tr '\n' ' ')" ;;
		esac
	fi
	if [ "$verdict" = FAIL ]; then
		echo "NMDUMP-BEGIN dmesg (last 80 lines)"
		if [ -n "${nm_debug:-}" ]; then echo "$newlog"; else dmesg | tail -n 80; fi
		echo "NMDUMP-END"
	fi
	case $verdict in
	PASS) echo "NMTEST: PASS $t (${secs}s)" ;;
	SKIP) echo "NMTEST: SKIP $t${reason:+: $reason}" ;;
	FAIL) echo "NMTEST: FAIL $t: $reason (${secs}s)" ;;
	esac
done
if [ -n "${nm_peer:-}" ] && [ ! -e /tmp/nm_peer_off ]; then
	peer_poweroff >/dev/null 2>&1
fi
nm_done
