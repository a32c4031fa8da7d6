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
check_fail secondary-write-refused $DD if=/dev/zero of=/dev/mapper/nmb bs=4k count=1 oflag=direct status=none
check rejected-write-counted [ "$(nm_status nmb writes_rejected)" -ge 1 ]
# reads from either node return the right data
check read-secondary pattern verify /dev/mapper/nmb 11 8M --direct --quiet
check read-primary pattern verify /dev/mapper/nma 11 8M --direct --quiet
# a second primary is refused while connected
check_fail second-primary-refused dmsetup message nmb 0 primary
check_eq second-primary-role "$(nm_status nmb role)" secondary
# switch over
dmsetup message nma 0 secondary || fail "demote nma"
wait_eval "[ \$(nm_status nmb role) = secondary ] && dmsetup message nmb 0 primary" 10 || fail "promote nmb: $(dmsetup status nmb)"
check_eq demoted-role "$(nm_status nma role)" secondary
check_fail demoted-write-refused $DD if=/dev/zero of=/dev/mapper/nma bs=4k count=1 oflag=direct status=none
pattern write /dev/mapper/nmb 12 8M --direct --quiet || fail "write through new primary nmb"
check_wait switched-replicated 10 "[ \"\$(dev_sum /dev/ram0)\" = \"\$(dev_sum /dev/ram1)\" ]"
check switched-data pattern verify /dev/ram0 12 8M --direct --quiet
check switched-received [ "$(nm_status nma writes_received)" -gt 0 ]
# and back
dmsetup message nmb 0 secondary || fail "demote nmb"
wait_eval "dmsetup message nma 0 primary" 10 || fail "promote nma again"
pattern write /dev/mapper/nma 13 4M --direct --quiet || fail "write after switching back"
check_eq switched-back-identical "$(dev_sum /dev/ram0)" "$(dev_sum /dev/ram1)"
# bad messages
check_fail unknown-message-refused dmsetup message nma 0 promote
check_fail extra-words-refused dmsetup message nma 0 primary now
nm_local_unpair
exit 0
