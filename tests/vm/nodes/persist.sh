# Guest half of the kill-reboot scenario (tests/vm/scenarios/kill-reboot.sh);
# not useful on its own.  nm_phase=1: write a seeded pattern to /dev/vda with
# O_DIRECT|O_DSYNC plus a final flush, print NMMARK: written, then idle until
# the host SIGKILLs qemu.  nm_phase=2: verify the pattern after the "crash".
# vms: 1
# disks: 1x64M
# timeout: 120
SEED=${nm_seed:-4242}
BYTES=${nm_bytes:-24M}
[ -b /dev/vda ] || fail "no /dev/vda"
case ${nm_phase:-} in
1)
	pattern write /dev/vda "$SEED" "$BYTES" --sync || fail "pattern write"
	echo "NMMARK: written"
	sleep 100000
	fail "phase 1 was not killed"
	;;
2)
	check data-survives-sigkill pattern verify /dev/vda "$SEED" "$BYTES" --direct
	;;
*) skip "needs nm_phase=1|2 (run the kill-reboot scenario)" ;;
esac
exit 0
