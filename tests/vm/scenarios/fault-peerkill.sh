#!/bin/bash
# Scenario: the secondary VM is SIGKILLed during a protocol-C write load
# (NM_CYCLES times, default 1) and booted again with its disks.  Node a
# (tests/vm/guest/fault-peerkill-node.sh) measures the longest single write
# latency around the kill (must stay below the peer timeout + 2 s), checks
# the primary notices the death within the timeout and keeps writing, and
# that after the peer returns (recreated on its old data and metadata) the
# resync makes both backing devices identical.  It prints "NMMARK:
# kill-peer N"; this script then kills node b and boots it again.
set -uo pipefail
. "$(dirname "$0")/../lib.sh"
vm_traps

name=fault-peerkill
cycles=${NM_CYCLES:-1}
pa=$((20000 + ($$ * 2 + RANDOM * 2) % 40000))
pb=$((pa + 1))
rm -f "$NM_OUT/$name"-[ab]-*.img
start_b() {
	vm_start --name "$name-b$1" --node b --net "$pb:$pa" --env nm_role=peer --timeout 900 \
		--disk "$NM_OUT/$name-b-1.img:64M" --disk "$NM_OUT/$name-b-2.img:4M" > /dev/null || exit 1
	pid_b=$VM_PID log_b=$VM_LOG
}
start_b 0
vm_start --name "$name-a" --node a --net "$pa:$pb" --tests fault-peerkill-node --env nm_peer=1 \
	--env nm_cycles=$cycles --env nm_timeout=860 --timeout 900 \
	--disk "$NM_OUT/$name-a-1.img:64M" --disk "$NM_OUT/$name-a-2.img:4M" > /dev/null || exit 1
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
	start_b "$i"
done
vm_wait "$pid_a" 900
out=$(vm_verdict "$log_a" fault-peerkill-node) || rc=1
nm_console "$log_a" | grep '^NMLOG' | sed 's/^/  /'
echo "verdict: $out"
vm_wait "$pid_b" 30 || vm_kill "$pid_b"
vm_verdict "$log_b" - || rc=1
[ $rc = 0 ] && rm -f "$NM_OUT/$name"-[ab]-*.img
exit $rc
