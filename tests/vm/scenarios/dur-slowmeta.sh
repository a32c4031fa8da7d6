#!/bin/bash
# Scenario (issue 10): a slow metadata device (dm-delay, 300 ms writes and
# flushes) under the primary, and the primary VM SIGKILLed while a mark is
# being written, under a load that keeps marking new regions; the primary
# comes back on the same data and metadata disks, resyncs, and both backing
# devices must be identical (no region written before the crash unmarked).
# Crashes under protocols A, B, C, A, B (NM_CRASHES, default 5).
# Node b (secondary, its own metadata device) stays up.  The guest half:
# tests/vm/nodes/dur-slowmeta-node.sh (checks crash<N>/<P>/identical).
# The phases are crash-primary's: the same script with this guest half.
NM_KILL_NAME=dur-slowmeta NM_KILL_NODE=dur-slowmeta-node NM_CRASHES=${NM_CRASHES:-5} \
	exec "$(dirname "$0")/crash-primary.sh"
