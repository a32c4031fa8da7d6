# Roles: writes to a secondary fail and are counted; reads work on both;
# a second primary while connected is refused; demote A, promote B, write
# through B and A's backing device gets the writes.
# vms: 1
# disks: none
# timeout: 300
load_netmirror
. /tests/nmlib.sh
brd_setup 32 2
nm_local_pair C flush
pattern write /dev/mapper/nma 11 8M --direct --quiet || fail "write through primary"
# writes to the secondary fail
nm_expect_fail "write to the secondary" $DD if=/dev/zero of=/dev/mapper/nmb bs=4k count=1 oflag=direct status=none
[ "$(nm_field nmb 10)" -ge 1 ] || fail "rejected write not counted: $(dmsetup status nmb)"
# reads from either node return the right data
pattern verify /dev/mapper/nmb 11 8M --direct --quiet || fail "read through the secondary"
pattern verify /dev/mapper/nma 11 8M --direct --quiet || fail "read through the primary"
# a second primary is refused while connected
nm_expect_fail "second primary" dmsetup message nmb 0 primary
[ "$(nm_field nmb 1)" = secondary ] || fail "nmb became primary: $(dmsetup status nmb)"
# switch over
dmsetup message nma 0 secondary || fail "demote nma"
wait_eval "[ \$(nm_field nmb 1) = secondary ] && dmsetup message nmb 0 primary" 10 || fail "promote nmb: $(dmsetup status nmb)"
[ "$(nm_field nma 1)" = secondary ] || fail "nma role: $(dmsetup status nma)"
nm_expect_fail "write to the demoted node" $DD if=/dev/zero of=/dev/mapper/nma bs=4k count=1 oflag=direct status=none
pattern write /dev/mapper/nmb 12 8M --direct --quiet || fail "write through new primary nmb"
wait_eval "[ \"\$(dev_sum /dev/ram0)\" = \"\$(dev_sum /dev/ram1)\" ]" 10 || fail "A's device did not get B's writes"
pattern verify /dev/ram0 12 8M --direct --quiet || fail "A's backing device has wrong data"
[ "$(nm_field nma 6)" -gt 0 ] || fail "nma received nothing"
# and back
dmsetup message nmb 0 secondary || fail "demote nmb"
wait_eval "dmsetup message nma 0 primary" 10 || fail "promote nma again"
pattern write /dev/mapper/nma 13 4M --direct --quiet || fail "write after switching back"
[ "$(dev_sum /dev/ram0)" = "$(dev_sum /dev/ram1)" ] || fail "devices differ after switching back"
# bad messages
nm_expect_fail "unknown message" dmsetup message nma 0 promote
nm_expect_fail "message with extra words" dmsetup message nma 0 primary now
nm_local_unpair
exit 0
