# Smoke test: dm-linear over a brd ramdisk, O_DIRECT write/read, checksum.
# vms: 1
# disks: none
# timeout: 120
# mem: 1024
modprobe dm-mod || fail "modprobe dm-mod"
brd_setup 64 1
dmsetup create nmsmoke --table "0 $((64 * 2048)) linear /dev/ram0 0" || fail "dmsetup create"
[ -b /dev/mapper/nmsmoke ] || fail "/dev/mapper/nmsmoke is not a block device"
pattern write /dev/mapper/nmsmoke 1234 16M --direct || fail "pattern write"
check verify-linear pattern verify /dev/mapper/nmsmoke 1234 16M --direct
check verify-ramdisk pattern verify /dev/ram0 1234 16M --direct
$DD if=/dev/urandom of=/tmp/blob bs=1M count=8 status=none
$DD if=/tmp/blob of=/dev/mapper/nmsmoke bs=1M oflag=direct seek=8 status=none || fail "dd write"
got=$($DD if=/dev/mapper/nmsmoke bs=1M skip=8 count=8 iflag=direct status=none | $MD5SUM | cut -d' ' -f1)
want=$($MD5SUM < /tmp/blob | cut -d' ' -f1)
check_eq direct-roundtrip-md5 "$got" "$want"
check_eq dm-equals-ramdisk "$(dev_sum /dev/mapper/nmsmoke)" "$(dev_sum /dev/ram0)"
check wlat wlat /dev/mapper/nmsmoke 4096 200
dmsetup remove nmsmoke || fail "dmsetup remove"
check_eq removed "$(dmsetup ls | grep -c nmsmoke)" 0
exit 0
