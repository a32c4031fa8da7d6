#!/bin/bash
# Scenario: the secondary VM is SIGKILLed during a protocol-C write load and
# booted again with the same disks, NM_CYCLES times (default 2).  Node a
# (tests/vm/nodes/crash-secondary-node.sh) drives: it prints
# "NMMARK: kill-peer N", this script kills node b and boots it again.
set -uo pipefail
. "$(dirname "$0")/../lib.sh"
vm_traps
vm_peer_kill_scenario crash-secondary crash-secondary-node "${NM_CYCLES:-2}"
