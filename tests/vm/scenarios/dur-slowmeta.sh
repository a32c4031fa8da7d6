#!/bin/bash
# Scenario (issue 10): a slow metadata device (dm-delay, 300 ms writes and
# flushes) under the primary, and the primary VM SIGKILLed while a mark is
# being written, under a load that keeps marking new regions; the primary
# comes back on the same data and metadata disks, resyncs, and both backing
# devices must be identical (no region written before the crash unmarked).
# Crashes under protocols A, B, C, A, B (NM_CRASHES, default 5).
# Node b (secondary, its own metadata device) stays up.  The guest half:
# tests/vm/nodes/dur-slowmeta-node.sh (checks crash<N>/<P>/identical).
set -uo pipefail
. "$(dirname "$0")/../lib.sh"
vm_traps

name=dur-slowmeta
crashes=${NM_CRASHES:-5}
phases=$((crashes + 1))
pa=$((20000 + ($$ * 2 + RANDOM * 2) % 40000))
pb=$((pa + 1))
rm -f "$NM_OUT/$name"-[ab]-*.img
vm_start --name "$name-b" --node b --net "$pb:$pa" --env nm_role=peer --timeout $((phases * 200)) \
	--disk "$NM_OUT/$name-b-1.img:64M" --disk "$NM_OUT/$name-b-2.img:4M" > /dev/null || exit 1
pid_b=$VM_PID log_b=$VM_LOG
rc=0
for phase in $(seq 1 $phases); do
	vm_start --name "$name-a$phase" --node a --net "$pa:$pb" --tests dur-slowmeta-node \
		--env nm_peer=1 --env nm_phase=$phase --env nm_phases=$phases --env nm_timeout=260 \
		--timeout 300 --disk "$NM_OUT/$name-a-1.img:64M" --disk "$NM_OUT/$name-a-2.img:4M" > /dev/null || exit 1
	if [ "$phase" -lt "$phases" ]; then
		if ! vm_wait_marker "$VM_LOG" "NMMARK: crash-me $phase" 280 "$VM_PID"; then
			echo "FAIL $name: phase $phase did not reach the crash point (log $VM_LOG)"
			nm_console "$VM_LOG" | grep -E 'NMTEST|NMLOG|NMCHECK|FAIL' | tail -5
			rc=1
			break
		fi
		vm_kill "$VM_PID"
		# a failed check of this phase (the previous crash) stays in the log
		vm_checks "$VM_LOG" | grep -q '^FAIL' && rc=1
		echo "phase $phase: $(nm_console "$VM_LOG" | grep '^NMLOG' | tail -2 | tr '\n' ' '); SIGKILL"
	else
		vm_wait "$VM_PID" 300
		out=$(vm_verdict "$VM_LOG" dur-slowmeta-node) || rc=1
		echo "phase $phase: $(nm_console "$VM_LOG" | grep '^NMLOG' | tail -1)"
		echo "verdict: $out"
	fi
done
[ $rc = 0 ] || { vm_kill "$pid_b"; tail -n 30 "$VM_LOG" | tr -d '\r' | sed 's/^/    | /'; }
vm_wait "$pid_b" 30 || vm_kill "$pid_b"
vm_verdict "$log_b" - || rc=1
[ $rc = 0 ] && rm -f "$NM_OUT/$name"-[ab]-*.img
exit $rc
