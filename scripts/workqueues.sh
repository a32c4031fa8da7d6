#!/bin/bash
# Fail if the module queues work anywhere but on its instances' own
# workqueues (nm->wq, nm->rx_wq).  The destructor destroys those, which
# waits for every work item on them, before it frees the instance; a work
# item queued on a system workqueue (schedule_work, system_wq, ...) may
# still run after that, on freed memory (review 2 of 2026-12-06, path F4:
# a verify stopped by the link loss of a "dmsetup remove" queued its event
# with schedule_work).
#
#   scripts/workqueues.sh         (run by `make check`)
set -euo pipefail
cd "$(dirname "$0")/../dm-mirror-net"

bad=$(grep -nE '\<(schedule_work|schedule_delayed_work|schedule_work_on|queue_work|queue_delayed_work|mod_delayed_work|queue_work_on)\(' nm_*.c |
	grep -vE '\<(queue_work|queue_delayed_work|mod_delayed_work)\((pr->)?nm->(wq|rx_wq),' |
	grep -vE '\<queue_work_on\([^,]+, nm->(wq|rx_wq),' || true)
if [ -n "$bad" ]; then
	echo "workqueues: FAIL: work queued outside the instance's own workqueues:" >&2
	echo "$bad" >&2
	exit 1
fi
echo "workqueues: ok, every work item goes to nm->wq or nm->rx_wq"
