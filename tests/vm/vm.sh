#!/bin/bash
# Boot one netmirror test VM (Debian's 6.1 kernel in QEMU).
#
#   tests/vm/vm.sh [--name NAME] [--node a|b] [--tests t1,t2] [--timeout SECS]
#                  [--disk PATH[:SIZE]]... [--net LOCALPORT:PEERPORT]
#                  [--env k=v]... [--mem MB] [--smp N] [--bg] [--shell]
#
#   --name     console log goes to build/vm/NAME.log (default: vm)
#   --node     a (169.254.0.1, default) or b (169.254.0.2)
#   --tests    guest tests (tests/vm/guest/NAME.sh) run by /init
#   --timeout  host-side limit: qemu is SIGKILLed and the tests FAIL with
#              "host timeout" (default 600)
#   --disk     file-backed virtio-blk disk (/dev/vda, /dev/vdb, ... in order),
#              created sparse with SIZE if missing
#   --net      virtio-net over UDP on 127.0.0.1 to the peer VM's port
#   --env      k=v on the kernel command line (reaches /init and the tests)
#   --bg       start in the background, print "PID LOG" and exit; the caller
#              owns the qemu process (tests/vm/lib.sh: vm_wait, vm_kill)
#   --shell    interactive: console on this terminal, no tests
#
# Foreground: waits for the VM, prints its verdict lines ("PASS t",
# "FAIL t: reason", "SKIP t") and exits 0 only if nothing failed.
# Accelerator: tcg (NM_ACCEL=kvm to try kvm; see nm_accel in lib.sh).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

bg= shell= tests= name=vm timeout=600 args=()
while [ $# -gt 0 ]; do
	case $1 in
	--bg) bg=1; shift ;;
	--shell) shell=1; shift ;;
	--tests) tests=$2; args+=("$1" "$2"); shift 2 ;;
	--name) name=$2; args+=("$1" "$2"); shift 2 ;;
	--timeout) timeout=$2; args+=("$1" "$2"); shift 2 ;;
	--node|--disk|--net|--env|--mem|--smp) args+=("$1" "$2"); shift 2 ;;
	-h|--help) sed -n '2,/^set -e/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	*) echo "vm.sh: unknown option $1" >&2; exit 2 ;;
	esac
done

if [ -n "$shell" ]; then
	vm_build
	# same machine as vm_start, console on the terminal
	exec qemu-system-x86_64 -M pc -cpu max -smp 2 -m 1024 -accel "$(nm_accel)" \
		-kernel "$NM_VMLINUX" -initrd "$NM_INITRD" -nographic -no-reboot -nic none \
		-append "console=ttyS0 quiet panic=-1 nm_role=shell"
fi

if [ -n "$bg" ]; then
	vm_start "${args[@]}"
	exit 0
fi

vm_traps
vm_start "${args[@]}" > /dev/null
start=$SECONDS
vm_wait "$VM_PID" $((timeout + 5)) || true
echo "vm.sh: $name ended after $((SECONDS - start))s, log $VM_LOG" >&2
vm_verdict "$VM_LOG" "${tests:--}"
