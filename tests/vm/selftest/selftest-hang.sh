# Testbed self-test (not in suite.list; make vm-selftest): the test never ends; the guest
# timeout must fire and the runner must report FAIL.
# vms: 1
# disks: none
# timeout: 20
echo "selftest-hang: sleeping forever"
sleep 100000
exit 0
