#!/bin/bash
# Soak: the fault-linkcut guest test (tests/vm/guest/fault-linkcut.sh) with
# many more link cuts over the full 0.1-10 s range.  Not in the suite.
#
#   tests/vm/soak-linkcut.sh [CYCLES [MIN_MS [MAX_MS [SLOW_CYCLES]]]]
#
# Defaults: 200 cycles of 100..10000 ms, then 20 slow (dm-delay) cycles.
# Console logs: build/vm/soak-linkcut-a.log, -b.log.  Exit 0 = PASS.
set -uo pipefail
. "$(dirname "$0")/lib.sh"
vm_traps

cycles=${1:-200} cmin=${2:-100} cmax=${3:-10000} slow=${4:-20}
name=soak-linkcut
# about (mean cut + 6 s) per cycle under TCG with resyncs (measured ~11 s at
# 0.1-10 s on a loaded host): generous limits
tmo=$(( 900 + (cycles + slow) * ((cmin + cmax) / 2000 + 9) ))
pa=$((20000 + ($$ * 2 + RANDOM * 2) % 40000))
pb=$((pa + 1))
envs=(--env nm_cycles="$cycles" --env nm_cut_min_ms="$cmin" --env nm_cut_max_ms="$cmax"
	--env nm_slow_cycles="$slow" --env nm_timeout="$tmo")
t0=$SECONDS
vm_start --name "$name-b" --node b --net "$pb:$pa" --env nm_role=peer "${envs[@]}" --timeout $((tmo + 120)) > /dev/null || exit 1
pid_b=$VM_PID log_b=$VM_LOG
vm_start --name "$name-a" --node a --net "$pa:$pb" --tests fault-linkcut --env nm_peer=1 "${envs[@]}" --timeout $((tmo + 120)) > /dev/null || exit 1
pid_a=$VM_PID log_a=$VM_LOG
echo "soak-linkcut: $cycles cuts of $cmin..$cmax ms + $slow slow cycles (guest timeout ${tmo}s); logs $log_a $log_b"
vm_wait "$pid_a" $((tmo + 130))
rc=0
if grep -q '^NMTEST-DONE' "$log_a"; then
	vm_wait "$pid_b" 15 || true
else
	vm_kill "$pid_b"
fi
out=$(vm_verdict "$log_a" fault-linkcut) || rc=1
nm_console "$log_a" | grep '^NMLOG' | grep -v ' cycle ' | sed 's/^/  /'
echo "$out"
vm_verdict "$log_b" - > /dev/null || { echo "node b: crash or dirty dmesg"; rc=1; }
echo "soak-linkcut: $((SECONDS - t0)) s"
exit $rc
