# Testbed self-test (not in suite.list; make vm-selftest): the kernel panics in the middle of
# the test; the runner must report FAIL.
# vms: 1
# disks: none
# timeout: 60
echo "selftest-oops: triggering a crash via sysrq"
echo c > /proc/sysrq-trigger
sleep 10
exit 0
