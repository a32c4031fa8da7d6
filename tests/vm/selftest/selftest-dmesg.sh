# Testbed self-test (not in suite.list; make vm-selftest): the test exits 0 but a "BUG:" line
# appears in dmesg; the runner must report FAIL.
# vms: 1
# disks: none
# timeout: 30
echo "<4>BUG: selftest-dmesg fake report" > /dev/kmsg
exit 0
