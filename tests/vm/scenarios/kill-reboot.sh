#!/bin/bash
# Scenario: data written with O_DIRECT+O_DSYNC survives a SIGKILL of QEMU.
# Phase 1 boots VM A with a file-backed disk; the guest (tests/vm/nodes/
# persist.sh) writes a seeded pattern and prints "NMMARK: written"; the host
# SIGKILLs qemu.  Phase 2 boots the same disk again and verifies the pattern.
# Exit 0 = PASS.
set -uo pipefail
. "$(dirname "$0")/../lib.sh"
vm_traps

name=kill-reboot
disk=$NM_OUT/$name.img
rm -f "$disk"
seed=$((RANDOM * 32768 + RANDOM))

vm_start --name "$name-1" --tests persist --disk "$disk:64M" --timeout 180 \
	--env nm_phase=1 --env nm_seed=$seed --env nm_timeout=150 > /dev/null || exit 1
if ! vm_wait_marker "$VM_LOG" "NMMARK: written" 150 "$VM_PID"; then
	echo "FAIL $name: phase 1 did not reach the marker (log $VM_LOG)"
	tail -n 40 "$VM_LOG" | tr -d '\r'
	exit 1
fi
vm_kill "$VM_PID"
echo "phase 1: pattern written (seed $seed), qemu SIGKILLed"

vm_start --name "$name-2" --tests persist --disk "$disk" --timeout 180 \
	--env nm_phase=2 --env nm_seed=$seed --env nm_timeout=150 > /dev/null || exit 1
vm_wait "$VM_PID" 190
out=$(vm_verdict "$VM_LOG" persist)
rc=$?
echo "phase 2: $out"
if [ $rc != 0 ]; then
	echo "    log: $VM_LOG"
	tail -n 40 "$VM_LOG" | tr -d '\r' | sed 's/^/    | /'
	exit 1
fi
case $out in SKIP*) exit 77 ;; esac
rm -f "$disk"
exit 0
