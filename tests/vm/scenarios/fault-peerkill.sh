#!/bin/bash
# Scenario: the secondary VM is SIGKILLed during a protocol-C write load
# (NM_CYCLES times, default 1) and booted again with its disks.  Node a
# (tests/vm/nodes/fault-peerkill-node.sh) measures the longest single write
# latency around the kill (must stay below the peer timeout + 2 s), checks
# the primary notices the death within the timeout and keeps writing, and
# that after the peer returns (recreated on its old data and metadata) the
# resync makes both backing devices identical.  It prints "NMMARK:
# kill-peer N"; this script then kills node b and boots it again.
set -uo pipefail
. "$(dirname "$0")/../lib.sh"
vm_traps
vm_peer_kill_scenario fault-peerkill fault-peerkill-node "${NM_CYCLES:-1}"
