#!/bin/bash
# Run VM tests by name.
#
#   tests/vm/run-test.sh NAME [NAME...]
#
# NAME is a guest test, tests/vm/guest/NAME.sh, or a host-side scenario,
# tests/vm/scenarios/NAME.sh (a guest test wins if both exist); a harness
# self-test (tests/vm/selftest/, expected to FAIL: make vm-selftest) or a
# tool (tests/vm/tools/: bench, demo, bootinfo) runs the same way.  The
# two-node scenario halves in tests/vm/nodes/ are run by their scenarios.
#
# A guest test's header comments (the comment lines it starts with) tell the runner:
#   # vms: 1|2          one VM, or node a (runs the test) + node b (nmrpc peer)
#   # disks: none|NxSIZE   N fresh file-backed disks per VM (/dev/vda...),
#                       e.g. 2x256M; created in build/vm/ for each run
#   # timeout: SECS     guest per-test timeout (default 300); the host kills
#                       qemu at SECS+120
#   # mem: MB           guest memory (default 1024)
#   # smp: N            guest CPUs (default 2)
#   # env: k=v ...      extra kernel command line words for every VM
#   # cpio: CMD         a layer laid over the image for this test only:
#                       CMD (run in the top folder, e.g. scripts/mkpkgcpio.sh)
#                       prints the path of a cpio, added to NM_EXTRA_CPIO
#   # layers: cluster   cached cpio layers laid over the image (cluster:
#                       Corosync + Pacemaker + resource-agents,
#                       scripts/mkclustercpio.sh)
# NM_PROTOS="A C" in the environment: tests that loop over the protocols
# (nmlib.sh nm_protos) run only those.
# A scenario is run with bash; exit 0 = PASS, 77 = SKIP, else FAIL.  It uses
# tests/vm/lib.sh (vm_start, vm_wait_marker, vm_kill, vm_wait, vm_verdict).
#
# Results, also appended to $NM_RESULTS when set: one line per test ("PASS
# vm/NAME", "FAIL vm/NAME", "SKIP vm/NAME") after one line per named check
# of the test ("PASS vm/NAME/CHECK", "FAIL vm/NAME/CHECK"; the guest's
# check helpers, guest-lib/lib.sh), collected from every console log the
# test's VMs wrote.  A failed check fails the test.  Only failed checks and
# a count are printed.  Console logs stay in build/vm/ (NAME.log, or
# NAME-a.log and NAME-b.log); a failed test's log path and last 40 lines
# are printed.
# Exit status: 0 if nothing failed.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

[ $# -gt 0 ] || { sed -n '2,/^set -/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 2; }

child=
nm_runner_cleanup() {
	[ -n "$child" ] && kill -TERM "$child" 2>/dev/null
	vm_cleanup
	rm -f "$tmpout" "$NM_VM_LOGS"
}
tmpout=$(mktemp)
NM_VM_LOGS=$(mktemp)
export NM_VM_LOGS
trap nm_runner_cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

hdr() { # hdr FILE KEY DEFAULT
	local v
	v=$(sed -n '/^#/!q; p' "$1" | sed -n "s/^#[[:space:]]*$2:[[:space:]]*//p" | head -1)
	echo "${v:-$3}"
}

show_log() {
	echo "    log: $1"
	tail -n 40 "$1" | tr -d '\r' | sed 's/^/    | /'
}

make_disks() { # make_disks SPEC PREFIX -> --disk args on stdout
	local spec=$1 prefix=$2 n size i
	[ "$spec" = none ] && return 0
	n=${spec%%x*}
	size=${spec#*x}
	for i in $(seq 1 "$n"); do
		rm -f "$prefix-$i.img"
		echo "--disk"
		echo "$prefix-$i.img:$size"
	done
}

run_guest() {
	local name=$1 f=$2 layer
	# cached layers over base + overlay (lib.sh vm_build: NM_LAYERS), set
	# before a "# cpio:" image is built so that vm_start keeps it
	NM_LAYERS=$(hdr "$f" layers "")
	layer=$(hdr "$f" cpio "")
	if [ -n "$layer" ]; then
		# this test's own image: NM_EXTRA_CPIO plus the layer, and a new
		# initrd (vm_build again), put back for the next test
		local cpio save_x=${NM_EXTRA_CPIO:-} save_i=$NM_INITRD
		cpio=$(cd "$NM_TOP" && $layer) || { echo "FAIL $name: its layer ($layer) failed"; return 1; }
		NM_EXTRA_CPIO=${save_x:+$save_x:}$cpio NM_INITRD=
		vm_build || { echo "FAIL $name: building the VM image failed"; return 1; }
		NM_EXTRA_CPIO=$save_x
		[ -n "$save_x" ] || unset NM_EXTRA_CPIO
		run_guest_vms "$@"
		local rc=$?
		NM_INITRD=$save_i
		return $rc
	fi
	run_guest_vms "$@"
}

run_guest_vms() {
	local name=$1 f=$2 vms disks tmo mem smp envs hto e out rc=0
	vms=$(hdr "$f" vms 1)
	disks=$(hdr "$f" disks none)
	tmo=$(hdr "$f" timeout 300)
	mem=$(hdr "$f" mem 1024)
	smp=$(hdr "$f" smp 2)
	envs=$(hdr "$f" env "")
	hto=$((tmo + 120))
	local common=(--timeout "$hto" --mem "$mem" --smp "$smp" --env "nm_timeout=$tmo")
	for e in $envs; do
		common+=(--env "$e")
	done
	# NM_PROTOS="C": tests that loop over the protocols (nm_protos) run only those
	# (commas on the kernel command line: a space would end the value)
	[ -z "${NM_PROTOS:-}" ] || common+=(--env "nm_protos=$(echo $NM_PROTOS | tr ' ' ,)")
	# NM_PROF_WL=w4k-q1,rw4k-q32: the workloads of prof-write; NM_PROF_SYMS its call chains
	[ -z "${NM_PROF_WL:-}" ] || common+=(--env "nm_prof_wl=$NM_PROF_WL")
	[ -z "${NM_PROF_SYMS:-}" ] || common+=(--env "nm_prof_syms=$NM_PROF_SYMS")
	if [ "$vms" = 1 ]; then
		local dargs=()
		mapfile -t dargs < <(make_disks "$disks" "$NM_OUT/$name")
		vm_start --name "$name" --node a --tests "$name" "${common[@]}" "${dargs[@]}" > /dev/null || return 1
		vm_wait "$VM_PID" $((hto + 10))
		out=$(vm_verdict "$VM_LOG" "$name") || rc=1
		echo "$out"
		[ $rc = 0 ] || show_log "$VM_LOG"
		return $rc
	fi
	# two VMs: node b (peer) first, then node a; UDP ports from our pid
	local pa=$((20000 + ($$ * 2 + RANDOM * 2) % 40000)) pb pid_b log_b pid_a log_a outb
	pb=$((pa + 1))
	local da=() db=()
	mapfile -t da < <(make_disks "$disks" "$NM_OUT/$name-a")
	mapfile -t db < <(make_disks "$disks" "$NM_OUT/$name-b")
	vm_start --name "$name-b" --node b --net "$pb:$pa" --env nm_role=peer "${common[@]}" "${db[@]}" > /dev/null || return 1
	pid_b=$VM_PID log_b=$VM_LOG
	vm_start --name "$name-a" --node a --net "$pa:$pb" --tests "$name" --env nm_peer=1 "${common[@]}" "${da[@]}" > /dev/null || return 1
	pid_a=$VM_PID log_a=$VM_LOG
	vm_wait "$pid_a" $((hto + 10))
	# node a powers node b off at its end; give it a moment, then kill it
	if grep -q '^NMTEST-DONE' "$log_a"; then
		vm_wait "$pid_b" 15 || true
	else
		vm_kill "$pid_b"
	fi
	out=$(vm_verdict "$log_a" "$name") || rc=1
	echo "$out"
	if ! outb=$(vm_verdict "$log_b" -); then
		echo "$outb (peer node b)"
		rc=1
	fi
	if [ $rc != 0 ]; then
		show_log "$log_a"
		show_log "$log_b"
	fi
	return $rc
}

fails=0
vm_build || { echo "run-test: building the VM image failed" >&2; exit 1; }
for name in "$@"; do
	t0=$SECONDS
	: > "$NM_VM_LOGS"
	# not in a $(...) subshell: the VMs must stay known to vm_cleanup
	if f=$(nm_test_file "$name"); then
		run_guest "$name" "$f" > "$tmpout" 2>&1
		rc=$?
	elif [ -f "$NM_VMDIR/scenarios/$name.sh" ]; then
		NM_INITRD_READY=$NM_INITRD NM_INITRD_READY_LAYERS=$NM_INITRD_LAYERS \
			bash "$NM_VMDIR/scenarios/$name.sh" > "$tmpout" 2>&1 &
		child=$!
		wait "$child"
		rc=$?
		child=
	else
		echo "no such test: $name" > "$tmpout"
		rc=1
	fi
	dt=$((SECONDS - t0))
	sed 's/^/  /' "$tmpout"
	reason=$(sed -n 's/.*NMTEST: FAIL [^:]*: \(.*\) ([0-9.]*s)$/\1/p' "$tmpout" | tail -n 1)
	mapfile -t checks < <(vm_checks $(sort -u "$NM_VM_LOGS"))
	cp=0 cf=0
	for c in "${checks[@]}"; do
		if [ "${c%% *}" = PASS ]; then
			cp=$((cp + 1))
			[ -n "${NM_RESULTS:-}" ] && echo "PASS vm/$name/${c#* }" >> "$NM_RESULTS"
		else
			cf=$((cf + 1))
			nm_result FAIL "vm/$name/${c#* }"
		fi
	done
	# a test stopped by fail() (or a crash) counts no failed check: say so
	# on the count line, which is what a reader of the totals sees
	ab=
	[ "$rc" != 0 ] && [ "$rc" != 77 ] && [ "$cf" = 0 ] &&
		ab="; STOPPED before its end (exit $rc${reason:+: $reason})"
	[ $((cp + cf)) -gt 0 ] && echo "  vm/$name: $((cp + cf)) checks, $cp passed, $cf failed$ab"
	# every check's failure fails the test (a scenario may have lost the
	# guest's verdict of a killed phase)
	[ "$cf" -gt 0 ] && [ "$rc" = 0 -o "$rc" = 77 ] && rc=1
	case $rc in
	0) nm_result PASS "vm/$name" "${dt}s" ;;
	77) nm_result SKIP "vm/$name" "${dt}s" ;;
	*) nm_result FAIL "vm/$name" "${dt}s"; fails=$((fails + 1)) ;;
	esac
done
[ "$fails" = 0 ]
