# shellcheck shell=bash
# Host-side library of the netmirror VM testbed (bash).  Source it:
#   . tests/vm/lib.sh
#
#   vm_build                 base layer (cached) + overlay -> $NM_INITRD
#                            (vm_start calls it once per process)
#   vm_start [opts]          boot a VM in the background; sets VM_PID and
#                            VM_LOG and prints "PID LOG".  opts as vm.sh:
#                            --name N --node a|b --tests t1,t2 --timeout S
#                            --disk PATH[:SIZE] (repeat) --net LOCAL:PEER
#                            --env k=v (repeat) --mem MB --smp N (default 2)
#                            The VM is SIGKILLed after --timeout seconds
#                            (default 600), "NMHOST: host timeout" is then
#                            appended to its log.
#   vm_wait_marker LOG MARKER TIMEOUT [PID]
#                            wait for a console line containing MARKER;
#                            1 on timeout or if PID exits first
#   vm_wait PID TIMEOUT      wait for the VM to end; 1 (and SIGKILL) on timeout
#   vm_kill PID              SIGKILL the VM (and wait for it to be gone)
#   vm_verdict LOG TESTS     print "PASS t" / "FAIL t: reason" / "SKIP t" for
#                            each test of the comma list TESTS from the console
#                            log; TESTS "-" = no tests (peer VM): only crashes
#                            count.  Returns 1 if anything failed.
#   vm_cleanup               SIGKILL every VM this shell started
#   vm_traps                 trap vm_cleanup on EXIT, and exit on INT/TERM
#   vm_checks LOG...         the named checks (NMCHECK lines) of these console
#                            logs, one "PASS check" / "FAIL check" line per
#                            name in first-seen order (a name seen several
#                            times: FAIL if any failed)
#   nm_test_file NAME        path of the guest script NAME (guest/, nodes/,
#                            selftest/, tools/), or status 1
#   nm_result VERDICT NAME [REASON]   human line + $NM_RESULTS line
#
# With NM_VM_LOGS set (a file; run-test.sh sets it per test), vm_start
# appends each console log path to it, so the runner finds the checks of
# every VM and phase a scenario booted.
#
# Another kernel (the debug kernel, scripts/debug-kernel.sh env):
#   NM_KERNEL_IMAGE=vmlinux   boot it instead of $NM_CACHE/vmlinux-$KVER
#   NM_EXTRA_CPIO=file.cpio   laid over base + overlay (its /lib/modules);
#                             a:b: both, b last (run-test.sh adds a test's
#                             "# cpio:" layer this way)
#   NM_DEBUG=1                nm_debug=1 kmemleak.verbose=1 (...) on the kernel
#                             command line (init.sh: kmemleak scan per test)
#   NM_TIMEOUT_SCALE=N        host and guest timeouts (vm_start --timeout,
#                             nm_timeout=, vm_wait, vm_wait_marker, and in the
#                             guest wait_for/wait_eval via nm_tscale=N) times N
#   NM_MEM_EXTRA=MB           added to every VM's memory
#   NM_VM_OUT=DIR             logs, disks, initrd there, not in build/vm/
#
# Optional layers (cached cpios laid over base + overlay):
#   NM_LAYERS="cluster"       scripts/mkclustercpio.sh: Corosync, Pacemaker,
#                             resource-agents (run-test.sh sets it from a
#                             guest test's "# layers:" header; a scenario
#                             sets it before vm_start)
#   NM_LAYERS="fio"           mkbase.sh --fio: fio and the libraries only it
#                             needs (the benchmark, dur-overlap, prof-write,
#                             dur-fault-soak, tools); "cluster fio" for both

NM_VMDIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
NM_TOP=$(cd "$NM_VMDIR/../.." && pwd)
NM_CACHE=${NM_CACHE:-$HOME/.cache/netmirror}
NM_OUT=${NM_VM_OUT:-$NM_TOP/build/vm}
# a scenario run by run-test.sh takes the image its runner built this run
# (NM_INITRD_READY, with its layers); anything else builds its own
NM_INITRD=
NM_INITRD_LAYERS=
if [ -n "${NM_INITRD_READY:-}" ] && [ -s "$NM_INITRD_READY" ]; then
	NM_INITRD=$NM_INITRD_READY
	NM_INITRD_LAYERS=${NM_INITRD_READY_LAYERS:-}
fi
NM_VM_PIDS=()
mkdir -p "$NM_OUT"
# NM_DMESG_BAD, NM_CONSOLE_BAD: shared with the guest
. "$NM_VMDIR/guest-lib/dmesg-bad.sh"
# where guest scripts live (all installed flat as /tests/NAME.sh in the VM)
NM_GUEST_DIRS="guest nodes selftest tools"

nm_test_file() {
	local d
	for d in $NM_GUEST_DIRS; do
		[ -f "$NM_VMDIR/$d/$1.sh" ] && { echo "$NM_VMDIR/$d/$1.sh"; return 0; }
	done
	return 1
}

vm_build() {
	[ -n "$NM_INITRD" ] && [ "${NM_LAYERS:-}" = "$NM_INITRD_LAYERS" ] && return 0
	local base overlay l layers=()
	base=$("$NM_VMDIR/mkbase.sh") || return 1
	overlay=$("$NM_VMDIR/mkoverlay.sh") || return 1
	# optional cached layers (a test's "# layers:" header)
	for l in ${NM_LAYERS:-}; do
		case $l in
		cluster) layers+=("$("$NM_TOP/scripts/mkclustercpio.sh")") || return 1 ;;
		fio) layers+=("$("$NM_VMDIR/mkbase.sh" --fio)") || return 1 ;;
		*) echo "vm_build: unknown layer $l" >&2; return 1 ;;
		esac
	done
	NM_INITRD_LAYERS=${NM_LAYERS:-}
	NM_KVER=$(cat "$NM_CACHE/kver")
	NM_VMLINUX=${NM_KERNEL_IMAGE:-$NM_CACHE/vmlinux-$NM_KVER}
	# named by content: concurrent runners share it; qemu reads it at start,
	# so old ones can go (pruned after 30 min)
	local h
	# NM_EXTRA_CPIO: one file, or several separated by ':' (in that order)
	local extra=()
	[ -z "${NM_EXTRA_CPIO:-}" ] || IFS=: read -r -a extra <<< "$NM_EXTRA_CPIO"
	h=$( (basename "$base"; md5sum < "$overlay"; for l in "${layers[@]}"; do basename "$l"; done
		for x in "${extra[@]}"; do md5sum < "$x"; done) | md5sum | cut -c1-12)
	NM_INITRD=$NM_OUT/initrd-$h.img
	if [ ! -s "$NM_INITRD" ]; then
		cat "$base" "$overlay" "${layers[@]}" "${extra[@]}" > "$NM_INITRD.tmp.$$"
		mv "$NM_INITRD.tmp.$$" "$NM_INITRD"
	fi
	touch "$NM_INITRD"
	find "$NM_OUT" -maxdepth 1 -name 'initrd-*.img*' -mmin +30 -delete 2>/dev/null || true
	export NM_INITRD NM_VMLINUX NM_KVER
}

# tcg unless NM_ACCEL says otherwise: on this project's machines /dev/kvm
# exists but is unusable (QEMU 7.2 aborts on MSR 0x10a with -cpu max/host, and
# with -arch-capabilities the guest hangs in the firmware).  NM_ACCEL=kvm to try.
nm_accel() {
	echo "${NM_ACCEL:-tcg}"
}

vm_start() {
	local name=vm node=a tests= timeout=600 mem=1024 smp=2 net= envs=() disks=() a
	while [ $# -gt 0 ]; do
		case $1 in
		--name) name=$2; shift 2 ;;
		--node) node=$2; shift 2 ;;
		--tests) tests=$2; shift 2 ;;
		--timeout) timeout=$2; shift 2 ;;
		--disk) disks+=("$2"); shift 2 ;;
		--net) net=$2; shift 2 ;;
		--env) envs+=("$2"); shift 2 ;;
		--mem) mem=$2; shift 2 ;;
		--smp) smp=$2; shift 2 ;;
		*) echo "vm_start: unknown option $1" >&2; return 2 ;;
		esac
	done
	vm_build || return 1
	timeout=$((timeout * ${NM_TIMEOUT_SCALE:-1}))
	mem=$((mem + ${NM_MEM_EXTRA:-0}))
	local id=1
	[ "$node" = b ] && id=2
	local cmdline="console=ttyS0 quiet panic=-1 oops=panic softlockup_panic=1"
	cmdline+=" sysctl.kernel.hung_task_timeout_secs=30 sysctl.kernel.hung_task_panic=1"
	cmdline+=" nm_node=$node"
	[ -n "$tests" ] && cmdline+=" nm_tests=$tests"
	# extra kernel parameters for an experiment (e.g. idle=poll)
	[ -n "${NM_CMDLINE_EXTRA:-}" ] && cmdline+=" $NM_CMDLINE_EXTRA"
	[ -n "${NM_DEBUG:-}" ] && cmdline+=" nm_debug=1 kmemleak.verbose=1 kasan_multi_shot log_buf_len=8M"
	# the guest's wait_for/wait_eval deadlines too
	[ "${NM_TIMEOUT_SCALE:-1}" != 1 ] && cmdline+=" nm_tscale=$NM_TIMEOUT_SCALE"
	for a in "${envs[@]}"; do
		case $a in
		nm_timeout=*) a=nm_timeout=$((${a#nm_timeout=} * ${NM_TIMEOUT_SCALE:-1})) ;;
		esac
		cmdline+=" $a"
	done
	local args=(-M pc -cpu max -smp "$smp" -m "$mem" -accel "$(nm_accel)"
		-kernel "$NM_VMLINUX" -initrd "$NM_INITRD" -append "$cmdline"
		-nographic -no-reboot -monitor none)
	local d path size
	for d in "${disks[@]}"; do
		path=${d%%:*}
		size=
		[ "$path" != "$d" ] && size=${d#*:}
		if [ ! -e "$path" ]; then
			[ -n "$size" ] || { echo "vm_start: $path missing and no size" >&2; return 2; }
			truncate -s "$size" "$path"
		fi
		args+=(-drive "file=$path,format=raw,if=virtio,cache=writeback")
	done
	if [ -n "$net" ]; then
		args+=(-netdev "socket,id=n0,udp=127.0.0.1:${net#*:},localaddr=127.0.0.1:${net%%:*}"
			-device "virtio-net-pci,netdev=n0,mac=52:54:00:4e:4d:0$id,romfile=")
	else
		args+=(-nic none)
	fi
	VM_LOG=$NM_OUT/$name.log
	: > "$VM_LOG"
	[ -n "${NM_VM_LOGS:-}" ] && echo "$VM_LOG" >> "$NM_VM_LOGS"
	echo "NMHOST: $(date +%T) qemu ${args[*]}" > "$VM_LOG.cmd"
	qemu-system-x86_64 "${args[@]}" < /dev/null >> "$VM_LOG" 2>&1 &
	VM_PID=$!
	# no job-control "Killed" notices; vm_wait/vm_kill poll the pid instead
	disown "$VM_PID" 2>/dev/null || true
	NM_VM_PIDS+=("$VM_PID")
	# watchdog: SIGKILL after $timeout s; ends by itself when qemu is gone
	(
		t=0
		while kill -0 "$VM_PID" 2>/dev/null; do
			sleep 1
			t=$((t + 1))
			if [ "$t" -ge "$timeout" ]; then
				kill -9 "$VM_PID" 2>/dev/null && echo "NMHOST: host timeout after ${timeout}s" >> "$VM_LOG"
				break
			fi
		done
	) >/dev/null 2>&1 &
	echo "$VM_PID $VM_LOG"
}

vm_wait_marker() {
	local log=$1 marker=$2 timeout=$3 pid=${4:-} end=$((SECONDS + $3 * ${NM_TIMEOUT_SCALE:-1}))
	while [ "$SECONDS" -lt "$end" ]; do
		grep -qF -- "$marker" "$log" 2>/dev/null && return 0
		if [ -n "$pid" ] && ! kill -0 "$pid" 2>/dev/null; then
			grep -qF -- "$marker" "$log" 2>/dev/null && return 0
			return 1
		fi
		sleep 0.1
	done
	return 1
}

vm_wait() {
	local pid=$1 end=$((SECONDS + ${2:-600} * ${NM_TIMEOUT_SCALE:-1}))
	while kill -0 "$pid" 2>/dev/null; do
		if [ "$SECONDS" -ge "$end" ]; then
			vm_kill "$pid"
			return 1
		fi
		sleep 0.1
	done
	return 0
}

vm_kill() {
	local pid=$1 i
	kill -9 "$pid" 2>/dev/null || return 0
	for i in $(seq 50); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
}

vm_cleanup() {
	local p
	for p in "${NM_VM_PIDS[@]}"; do
		kill -9 "$p" 2>/dev/null || true
	done
	return 0
}

vm_traps() {
	trap vm_cleanup EXIT
	trap 'exit 130' INT
	trap 'exit 143' TERM
}

# console lines outside NMDUMP-BEGIN/END sections, CRs stripped
nm_console() {
	tr -d '\r' < "$1" | awk '/NMDUMP-BEGIN/{d=1;next} /NMDUMP-END/{d=0;next} !d'
}

vm_verdict() {
	local log=$1 tests=${2:--} con crash= t line rc=0 last=
	con=$(nm_console "$log")
	crash=$(echo "$con" | grep -E "NMHOST: host timeout|$NM_CONSOLE_BAD" |
		grep -vE '^NM(TEST|CHECK|LOG|PEER|MARK)' | head -1 | sed 's/^\[[ 0-9.]*\] //' || true)
	# not "echo | grep -q" under pipefail: grep -q leaves at the first match,
	# and echo, still writing a large console, dies of SIGPIPE (status 141)
	if ! grep -q '^NMTEST-DONE' <<<"$con" && [ -z "$crash" ] && [ "$tests" != - ]; then
		crash="VM ended without NMTEST-DONE"
	fi
	if [ "$tests" = - ]; then
		if [ -n "$crash" ]; then
			echo "FAIL $(basename "$log" .log): $crash"
			return 1
		fi
		return 0
	fi
	for t in ${tests//,/ }; do
		line=$(echo "$con" | grep -E "^NMTEST: (PASS|FAIL|SKIP) $t( |:|\$)" | tail -1 || true)
		if [ -n "$line" ]; then
			last=$t
		fi
	done
	for t in ${tests//,/ }; do
		line=$(echo "$con" | grep -E "^NMTEST: (PASS|FAIL|SKIP) $t( |:|\$)" | tail -1 || true)
		line=${line#NMTEST: }
		case $line in
		PASS*)
			if [ -n "$crash" ] && [ "$t" = "$last" ]; then
				echo "FAIL $t: after the test: $crash"
				rc=1
			else
				echo "$line"
			fi
			;;
		SKIP*) echo "$line" ;;
		FAIL*) echo "$line"; rc=1 ;;
		*) echo "FAIL $t: no result: ${crash:-unknown}"; rc=1 ;;
		esac
	done
	return $rc
}

vm_checks() {
	local l
	for l in "$@"; do
		[ -f "$l" ] && nm_console "$l"
	done | sed -n 's/^NMCHECK: \(PASS\|FAIL\) \([^ :]*\).*/\1 \2/p' |
		awk '{ if (!($2 in v)) { o[++n] = $2; v[$2] = $1 } else if ($1 == "FAIL") v[$2] = "FAIL" }
		END { for (i = 1; i <= n; i++) print v[o[i]], o[i] }'
}

# NAME is written as given (run-test.sh passes vm/<test>, vm/<test>/<check>)
nm_result() {
	local v=$1 name=$2 reason=${3:-}
	echo "[$v] $name${reason:+: $reason}"
	[ -n "${NM_RESULTS:-}" ] && echo "$v $name" >> "$NM_RESULTS"
	return 0
}

# Two VMs; node a runs the guest test $2 (env nm_cycles=$3), which prints
# "NMMARK: kill-peer N" whenever node b (the secondary, with a 64M data and
# a 4M metadata disk) is to be SIGKILLed; node b is then booted again with
# the same disks.  Used by scenarios/crash-secondary.sh and fault-peerkill.sh.
vm_peer_kill_scenario() {
	local name=$1 guest=$2 cycles=$3 pa pb pid_a log_a pid_b log_b rc i out
	pa=$((20000 + ($$ * 2 + RANDOM * 2) % 40000))
	pb=$((pa + 1))
	rm -f "$NM_OUT/$name"-[ab]-*.img
	start_b() {
		vm_start --name "$name-b$1" --node b --net "$pb:$pa" --env nm_role=peer --timeout 900 \
			--disk "$NM_OUT/$name-b-1.img:64M" --disk "$NM_OUT/$name-b-2.img:4M" > /dev/null || return 1
		pid_b=$VM_PID log_b=$VM_LOG
	}
	start_b 0 || return 1
	vm_start --name "$name-a" --node a --net "$pa:$pb" --tests "$guest" --env nm_peer=1 \
		--env nm_cycles=$cycles --env nm_timeout=860 --timeout 900 \
		--disk "$NM_OUT/$name-a-1.img:64M" --disk "$NM_OUT/$name-a-2.img:4M" > /dev/null || return 1
	pid_a=$VM_PID log_a=$VM_LOG
	rc=0
	for i in $(seq 1 $cycles); do
		if ! vm_wait_marker "$log_a" "NMMARK: kill-peer $i" 400 "$pid_a"; then
			echo "cycle $i: node a did not ask for the kill"
			rc=1
			break
		fi
		vm_kill "$pid_b"
		vm_verdict "$log_b" - > /dev/null || { echo "cycle $i: node b crashed before the kill"; rc=1; }
		echo "cycle $i: node b SIGKILLed during load, booting it again"
		start_b "$i" || { rc=1; break; }
	done
	vm_wait "$pid_a" 900
	out=$(vm_verdict "$log_a" "$guest") || rc=1
	nm_console "$log_a" | grep '^NMLOG' | sed 's/^/  /'
	echo "verdict: $out"
	vm_wait "$pid_b" 30 || vm_kill "$pid_b"
	vm_verdict "$log_b" - || rc=1
	[ $rc = 0 ] && rm -f "$NM_OUT/$name"-[ab]-*.img
	return $rc
}
