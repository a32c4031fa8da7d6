# Testbed self-test (run by make vm-selftest): one named check fails, the
# others pass, the test exits 0; the runner must report the test FAIL, the
# failed check as "FAIL vm/selftest-check/deliberate-fail", and the passing
# ones as PASS (selftest/run.sh looks at those result lines too).
# vms: 1
# disks: none
# timeout: 30
check_eq ok-eq a a
check ok-cmd true
check_fail ok-fail false
check_eq deliberate-fail got want
check_match ok-match "netmirror 1.5.0" '^netmirror [0-9.]+$'
exit 0
