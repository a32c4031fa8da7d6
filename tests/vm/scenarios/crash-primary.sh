#!/bin/bash
# Scenario: the primary VM is SIGKILLed during a protocol-C write load, three
# times.  Node b (secondary, metadata device) stays up.  Each new boot of
# node a recreates the primary on the same data and metadata disks; the
# regions that were in flight are resynced and both backing devices must be
# identical (checked by the guest, tests/vm/nodes/crash-primary-node.sh).
# NM_CRASHES (default 3) sets the number of crashes (the soak script sets
# more).  NM_KILL_NAME and NM_KILL_NODE run another guest half the same way
# (dur-slowmeta.sh).  NM_META=internal and NM_PROTO_CYCLE=ABC reach node a
# (imeta-crash.sh); NM_DATA_SIZE the data disks (default 64M).
set -uo pipefail
. "$(dirname "$0")/../lib.sh"
vm_traps

name=${NM_KILL_NAME:-crash-primary}
node=${NM_KILL_NODE:-crash-primary-node}
crashes=${NM_CRASHES:-3}
phases=$((crashes + 1))
pa=$((20000 + ($$ * 2 + RANDOM * 2) % 40000))
pb=$((pa + 1))
rm -f "$NM_OUT/$name"-[ab]-*.img
vm_start --name "$name-b" --node b --net "$pb:$pa" --env nm_role=peer --timeout $((phases * 200)) \
	--disk "$NM_OUT/$name-b-1.img:${NM_DATA_SIZE:-64M}" --disk "$NM_OUT/$name-b-2.img:4M" > /dev/null || exit 1
pid_b=$VM_PID log_b=$VM_LOG
rc=0
for phase in $(seq 1 $phases); do
	vm_start --name "$name-a$phase" --node a --net "$pa:$pb" --tests "$node" \
		--env nm_peer=1 --env nm_phase=$phase --env nm_phases=$phases --env nm_timeout=260 \
		${NM_META:+--env nm_meta=$NM_META} ${NM_PROTO_CYCLE:+--env nm_proto_cycle=$NM_PROTO_CYCLE} \
		--timeout 300 --disk "$NM_OUT/$name-a-1.img:${NM_DATA_SIZE:-64M}" --disk "$NM_OUT/$name-a-2.img:4M" > /dev/null || exit 1
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
		echo "phase $phase: $(nm_console "$VM_LOG" | grep '^NMLOG' | tail -2 | tr '\n' ' '); SIGKILL during load"
	else
		vm_wait "$VM_PID" 300
		out=$(vm_verdict "$VM_LOG" "$node") || rc=1
		echo "phase $phase: $(nm_console "$VM_LOG" | grep '^NMLOG' | tail -1)"
		echo "verdict: $out"
	fi
done
[ $rc = 0 ] || { vm_kill "$pid_b"; tail -n 30 "$VM_LOG" | tr -d '\r' | sed 's/^/    | /'; }
vm_wait "$pid_b" 30 || vm_kill "$pid_b"
vm_verdict "$log_b" - || rc=1
[ $rc = 0 ] && rm -f "$NM_OUT/$name"-[ab]-*.img
exit $rc
