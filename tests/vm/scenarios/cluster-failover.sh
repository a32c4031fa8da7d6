#!/bin/bash
# Scenario: netmirror failed over by Corosync + Pacemaker (docs/cluster.md,
# as written).  VM b (beta) stays up; VM a (alpha) runs
# tests/vm/nodes/cluster-failover-node.sh: phase 1 sets up the cluster,
# alpha promoted with the filesystem, the fence handler's round trip, then a
# verifying write load, and asks to be killed; the host SIGKILLs its QEMU;
# phase 2 boots alpha again on the same disk: beta must have been promoted
# with every acknowledged write, and alpha rejoins (corosync + pacemaker
# only), resyncs, both disks identical.  Both VMs boot with the cluster
# layer (scripts/mkclustercpio.sh).  In the suite (make check); alone:
# make check-cluster.
set -uo pipefail
. "$(dirname "$0")/../lib.sh"
vm_traps
export NM_LAYERS=cluster

name=cluster-failover
node=cluster-failover-node
pa=$((20000 + ($$ * 2 + RANDOM * 2) % 40000))
pb=$((pa + 1))
rm -f "$NM_OUT/$name"-[ab]-*.img
t0=$SECONDS
vm_start --name "$name-b" --node b --net "$pb:$pa" --env nm_role=peer --timeout 900 --mem 1024 \
	--disk "$NM_OUT/$name-b-1.img:64M" > /dev/null || exit 1
pid_b=$VM_PID log_b=$VM_LOG
rc=0
for phase in 1 2; do
	vm_start --name "$name-a$phase" --node a --net "$pa:$pb" --tests "$node" --mem 1024 \
		--env nm_peer=1 --env nm_phase=$phase --env nm_timeout=560 \
		--timeout 600 --disk "$NM_OUT/$name-a-1.img:64M" > /dev/null || exit 1
	if [ $phase = 1 ]; then
		if ! vm_wait_marker "$VM_LOG" "NMMARK: crash-me 1" 560 "$VM_PID"; then
			echo "FAIL $name: phase 1 did not reach the kill (log $VM_LOG)"
			nm_console "$VM_LOG" | grep -E 'NMTEST|NMLOG|NMCHECK: FAIL' | tail -8
			rc=1
			break
		fi
		vm_kill "$VM_PID"
		vm_checks "$VM_LOG" | grep -q '^FAIL' && rc=1
		echo "phase 1 ($((SECONDS - t0))s): $(nm_console "$VM_LOG" | grep '^NMLOG' | tail -3 | tr '\n' ' '); SIGKILL"
	else
		vm_wait "$VM_PID" 600
		out=$(vm_verdict "$VM_LOG" "$node") || rc=1
		echo "phase 2: $(nm_console "$VM_LOG" | grep '^NMLOG' | tr '\n' ' ')"
		echo "verdict: $out"
	fi
done
[ $rc = 0 ] || { vm_kill "$pid_b"; tail -n 40 "$VM_LOG" | tr -d '\r' | sed 's/^/    | /'; }
vm_wait "$pid_b" 30 || vm_kill "$pid_b"
vm_verdict "$log_b" - || rc=1
echo "$name: $((SECONDS - t0))s wall time"
[ $rc = 0 ] && rm -f "$NM_OUT/$name"-[ab]-*.img
exit $rc
