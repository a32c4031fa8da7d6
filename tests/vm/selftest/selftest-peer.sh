# Testbed self-test (not in suite.list; make vm-selftest): node b's dmesg gets a WARNING line;
# node a's test passes, but the runner must report FAIL (dirty peer).
# vms: 2
# disks: none
# timeout: 60
on_peer 'echo "<4>WARNING: selftest-peer fake report" > /dev/kmsg' || fail "on_peer failed"
exit 0
