#!/bin/bash
# Scenario: crash-primary with "meta internal" (issue 13): the metadata at
# the front of each node's single data disk.  The primary VM is SIGKILLed
# during a write load three times, once under each protocol (A, B, C; the
# peer is recreated with the phase's protocol; NM_PROTOS narrows); each new
# boot recreates the primary on the same disk, the crash's regions are
# resynced and both nodes' data areas (after the 1 MiB metadata area) must
# be identical.  The last phase uses netmirror as the PV of a VG with no
# LVM filter: pvs on each node lists /dev/mapper/nm0 once and no raw disk.
# (tests/vm/nodes/crash-primary-node.sh with nm_meta=internal.)
set -uo pipefail
protos=$(echo "${NM_PROTOS:-A B C}" | tr -d ' ')
NM_KILL_NAME=imeta-crash NM_CRASHES=${NM_CRASHES:-${#protos}} NM_META=internal NM_DATA_SIZE=32M \
	NM_PROTO_CYCLE=$protos exec "$(dirname "$0")/crash-primary.sh"
