# Node a of the crash-primary scenario (tests/vm/scenarios/crash-primary.sh,
# and imeta-crash.sh: nm_meta=internal, nm_proto_cycle; see below):
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
# nm_meta=internal (scenario imeta-crash): the metadata at the front of
# /dev/vda (1 MiB for 64 MiB), the data after it; nm_proto_cycle=ABC: phase
# N uses the Nth protocol (cyclic), and the peer is recreated with it
P=C meta="meta /dev/vdb" skip=0
if [ "${nm_meta:-}" = internal ]; then
	meta="meta internal" skip=1 S=$((S - 2048))
fi
if [ -n "${nm_proto_cycle:-}" ]; then
	i=$(( (phase - 1) % ${#nm_proto_cycle} ))
	P=$(echo "$nm_proto_cycle" | cut -c$((i + 1)))
fi
# md5 of the data: the whole device, or what follows the metadata area
data_sum() {
	$DD if="$1" bs=1M skip="$skip" iflag=direct status=none | $MD5SUM | cut -d' ' -f1
}
if [ "$phase" = 1 ] || [ -n "${nm_proto_cycle:-}" ]; then
	[ "$phase" = 1 ] || on_peer "dmsetup remove nm0" || fail "phase $phase: peer remove"
	on_peer ". /tests/lib.sh; load_netmirror; dmsetup create nm0 --table '0 $S netmirror /dev/vda 169.254.0.1:7789 $P flush 4 $meta sync full'" ||
		fail "peer create"
fi
dmsetup create nm0 --table "0 $S netmirror /dev/vda 169.254.0.2:7789 $P flush 6 role primary $meta sync full" ||
	fail "phase $phase: create the primary on the old metadata"
before=$(nm_status nm0 regions)
nm_wait_synced nm0 180 || fail "phase $phase: no connection/resync: $(dmsetup status nm0)"
on_peer ". /tests/lib.sh; . /tests/nmlib.sh; nm_wait_synced nm0 30" || fail "phase $phase: peer: $(on_peer 'dmsetup status nm0')"
mine=$(data_sum /dev/vda)
theirs=$(on_peer ". /tests/lib.sh; \$DD if=/dev/vda bs=1M skip=$skip iflag=direct status=none | \$MD5SUM | cut -d' ' -f1")
check_eq "phase$phase/identical" "$theirs" "$mine"
log "phase $phase: protocol $P, $meta, in_sync at start $before, resynced $(nm_status nm0 resync_bytes) bytes, identical $mine"
if [ "$phase" = "$phases" ] && [ "${nm_meta:-}" = internal ]; then
	# netmirror as a PV on both nodes, no LVM filter: each node's pvs
	# lists it once (/dev/mapper/nm0), never the raw disk below it
	pvcreate -q -y /dev/mapper/nm0 >/dev/null || fail "pvcreate"
	vgcreate -q vgi /dev/mapper/nm0 >/dev/null || fail "vgcreate"
	lvcreate -q -y -Zn -L 16M -n lv vgi >/dev/null || fail "lvcreate"
	pattern write /dev/vgi/lv 77 8M --direct --quiet || fail "write lv"
	check_wait lvm/settled 30 "[ \$(nm_status nm0 pending) = 0 ]"
	check_eq lvm/pvs-a "$(pvs --noheadings -o pv_name 2>&1 | tr -d ' ')" /dev/mapper/nm0
	check_eq lvm/pvs-b "$(on_peer "LVM_SUPPRESS_FD_WARNINGS=1 pvs --noheadings -o pv_name 2>&1" | tr -d ' \r')" /dev/mapper/nm0
	check_fail lvm/raw-a-no-label pvs /dev/vda
	check_eq lvm/raw-b-no-label "$(on_peer "LVM_SUPPRESS_FD_WARNINGS=1 pvs /dev/vda >/dev/null 2>&1 && echo label || echo none")" none
	check_eq lvm/lvs-b "$(on_peer "LVM_SUPPRESS_FD_WARNINGS=1 lvs --noheadings -o lv_name vgi 2>&1" | tr -d ' \r')" lv
	vgchange -q -an vgi >/dev/null || fail "vgchange -an"
	mine=$(data_sum /dev/vda)
	theirs=$(on_peer ". /tests/lib.sh; \$DD if=/dev/vda bs=1M skip=$skip iflag=direct status=none | \$MD5SUM | cut -d' ' -f1")
	check_eq lvm/identical "$theirs" "$mine"
fi
[ "$phase" -lt "$phases" ] || exit 0
seed=$(( phase * 1000 + $(cut -d' ' -f1 /proc/uptime | tr -d .) % 997 ))
pattern write /dev/mapper/nm0 "$seed" 512M --direct --quiet > /dev/null 2>&1 &
sleep $(( 2 + phase % 3 ))
echo "NMMARK: crash-me $phase"
sleep 600
fail "phase $phase: not killed"
