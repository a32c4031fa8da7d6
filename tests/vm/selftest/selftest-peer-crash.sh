# Testbed self-test (not in suite.list; make vm-selftest): node b panics while node a's test
# goes on and passes; the runner must report FAIL (peer crash).
# vms: 2
# disks: none
# timeout: 60
on_peer 'hostname' > /dev/null || fail "on_peer failed"
on_peer_wait 5 '(sleep 0.5; echo c > /proc/sysrq-trigger) > /dev/null 2>&1 &'
sleep 3
exit 0
