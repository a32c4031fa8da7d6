#!/bin/bash
# Soak: the durability fault soak of issue 10 (tests/vm/scenarios/
# dur-fault-soak.sh) with the issue's count: NM_FAULTS (default 30) faults
# of each kind (secondary disconnect/connect, suspend/resume, table reload,
# a link cut longer than the timeout, a SIGKILL of node b's VM) under
# protocols A, B and C (NM_PROTOS), each under a verifying QD-16 fio load,
# then resync, identical disks, switch-over and fio --verify_only on the new
# primary.  Not in make check; make soak-durability runs it.  Under TCG on
# a shared 2-CPU host it takes one to two hours.  Results per named check
# as for any VM test (NM_RESULTS); console logs build/vm/dur-fault-soak-*.
#
#   tests/vm/soak-durability.sh            NM_FAULTS=30
#   NM_FAULTS=5 NM_PROTOS=A NM_KINDS=kill,linkcut tests/vm/soak-durability.sh
set -uo pipefail
NM_FAULTS=${NM_FAULTS:-30}
export NM_FAULTS
exec "$(dirname "$0")/run-test.sh" dur-fault-soak
