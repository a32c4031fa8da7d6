#!/bin/bash
# Two-node netmirror demo: boots node b (peer) and node a, which runs
# tests/vm/tools/demo.sh; streams node a's console (kernel messages filtered
# out) to this terminal.  Logs: build/vm/demo-a.log, build/vm/demo-b.log.
#
#   tests/vm/demo.sh          (make demo)
set -uo pipefail
. "$(dirname "$0")/lib.sh"
vm_traps

echo "demo: building the VM image..."
vm_build || exit 1
tmo=$(sed -n 's/^#[[:space:]]*timeout:[[:space:]]*//p' "$NM_VMDIR/tools/demo.sh" | head -1)
tmo=${tmo:-300}
pa=$((20000 + ($$ * 2 + RANDOM * 2) % 40000))
pb=$((pa + 1))
rm -f "$NM_OUT"/demo-[ab]-1.img
vm_start --name demo-b --node b --net "$pb:$pa" --env nm_role=peer --timeout $((tmo + 120)) \
	--disk "$NM_OUT/demo-b-1.img:128M" > /dev/null || exit 1
pid_b=$VM_PID log_b=$VM_LOG
vm_start --name demo-a --node a --net "$pa:$pb" --tests demo --env nm_peer=1 \
	--env nm_timeout="$tmo" --timeout $((tmo + 120)) --disk "$NM_OUT/demo-a-1.img:128M" > /dev/null || exit 1
pid_a=$VM_PID log_a=$VM_LOG
echo "demo: node a pid $pid_a (log $log_a), node b pid $pid_b (log $log_b); booting..."
tail -n +1 -F --pid="$pid_a" "$log_a" 2>/dev/null | tr -d '\r' |
	sed -u 's/^.*Booting from ROM\.\.//' |
	grep --line-buffered -vE '^\[ *[0-9]+\.[0-9]+\]|SeaBIOS|^NMTEST-|^$|^\x1b' |
	awk '/^NMDUMP-BEGIN/{d=1} !d{print; fflush()} /^NMDUMP-END/{d=0}'
vm_wait "$pid_b" 15 || true
out=$(vm_verdict "$log_a" demo)
rc=$?
outb=$(vm_verdict "$log_b" -) || rc=1
echo "demo: $out${outb:+; peer: $outb}"
exit $rc
