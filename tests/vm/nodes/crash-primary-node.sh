# Node a of the crash-primary scenario (tests/vm/scenarios/crash-primary.sh):
# a primary with a metadata device; each phase recreates the device on the
# same disks, waits for the resync the crash left behind, checks that both
# backing devices are identical, then (but in the last phase) starts a write
# load and asks the host to SIGKILL this VM in the middle of it.
# (Run by the scenario, which sets the VMs, disks (64M data + 4M metadata)
# and timeouts; no runner header.)
load_netmirror
. /tests/nmlib.sh
S=$(( $(dev_size /dev/vda) / 512 ))
phase=${nm_phase:-1}
phases=${nm_phases:-6}
if [ "$phase" = 1 ]; then
	on_peer ". /tests/lib.sh; load_netmirror; dmsetup create nm0 --table '0 $S netmirror /dev/vda 169.254.0.1:7789 C flush 4 meta /dev/vdb sync full'" ||
		fail "peer create"
fi
dmsetup create nm0 --table "0 $S netmirror /dev/vda 169.254.0.2:7789 C flush 6 role primary meta /dev/vdb sync full" ||
	fail "phase $phase: create the primary on the old metadata"
before=$(nm_status nm0 regions)
nm_wait_synced nm0 180 || fail "phase $phase: no connection/resync: $(dmsetup status nm0)"
on_peer ". /tests/lib.sh; . /tests/nmlib.sh; nm_wait_synced nm0 30" || fail "phase $phase: peer: $(on_peer 'dmsetup status nm0')"
mine=$(dev_sum /dev/vda)
theirs=$(on_peer ". /tests/lib.sh; dev_sum /dev/vda")
check_eq "phase$phase/identical" "$theirs" "$mine"
log "phase $phase: in_sync at start $before, resynced $(nm_status nm0 resync_bytes) bytes, identical $mine"
[ "$phase" -lt "$phases" ] || exit 0
seed=$(( phase * 1000 + $(cut -d' ' -f1 /proc/uptime | tr -d .) % 997 ))
pattern write /dev/mapper/nm0 "$seed" 512M --direct --quiet > /dev/null 2>&1 &
sleep $(( 2 + phase % 3 ))
echo "NMMARK: crash-me $phase"
sleep 600
fail "phase $phase: not killed"
