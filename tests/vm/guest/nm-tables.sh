# Bad and good table lines against the netmirror target: every invalid line
# fails "dmsetup create" with its own message in the kernel log; valid lines
# are created and "dmsetup table" reprints them exactly.
# vms: 1
# disks: none
# timeout: 180
load_netmirror
brd_setup 16 3
. /tests/nmlib.sh
S=32768
D=$(cat /sys/block/ram0/dev)
M=$(cat /sys/block/ram2/dev)
dmsetup create nmtiny --table "0 8 linear /dev/ram1 0" || fail "create nmtiny"

# "<params>|<expected fragment of the kernel's error>"
cat > /tmp/bad <<BAD
|Not enough arguments
/dev/ram0|Not enough arguments
/dev/ram0 127.0.0.1:7789|Not enough arguments
/dev/ram0 127.0.0.1:7789 C|Not enough arguments
/dev/nonexistent 127.0.0.1:7789 C flush|Cannot open local device
/dev/ram0 127.0.0.1 C flush|Invalid peer address
/dev/ram0 127.0.0.1: C flush|Invalid peer address
/dev/ram0 127.0.0.1:0 C flush|Invalid peer address
/dev/ram0 127.0.0.1:65536 C flush|Invalid peer address
/dev/ram0 127.0.0.1:77x9 C flush|Invalid peer address
/dev/ram0 256.0.0.1:7789 C flush|Invalid peer address
/dev/ram0 1.2.3:7789 C flush|Invalid peer address
/dev/ram0 [::1:7789 C flush|Invalid peer address
/dev/ram0 [zz::1]:7789 C flush|Invalid peer address
/dev/ram0 host.example:7789 C flush|Invalid peer address
/dev/ram0 127.0.0.1:7789 D flush|Invalid protocol
/dev/ram0 127.0.0.1:7789 c flush|Invalid protocol
/dev/ram0 127.0.0.1:7789 AB flush|Invalid protocol
/dev/ram0 127.0.0.1:7789 C barrier|Invalid ordering
/dev/ram0 127.0.0.1:7789 C FLUSH|Invalid ordering
/dev/ram0 127.0.0.1:7789 C flush 1|Invalid number of optional arguments
/dev/ram0 127.0.0.1:7789 C flush 2 role|Invalid number of optional arguments
/dev/ram0 127.0.0.1:7789 C flush 1 role primary|Optional argument count does not match
/dev/ram0 127.0.0.1:7789 C flush 1 role|Optional argument is missing its value
/dev/ram0 127.0.0.1:7789 C flush 3 role primary x|Optional argument is missing its value
/dev/ram0 127.0.0.1:7789 C flush 2 role master|Invalid role
/dev/ram0 127.0.0.1:7789 C flush 2 listen 1.2.3.4|Invalid listen address
/dev/ram0 127.0.0.1:7789 C flush 2 listen [::1]:7789|Listen and peer addresses must be of one family
/dev/ram0 127.0.0.1:7789 C flush 2 speed 10|Unknown optional argument
/dev/ram0 127.0.0.1:7789 C flush 4 role primary role secondary|Duplicate optional argument: role
/dev/ram0 127.0.0.1:7789 C flush 4 listen 127.0.0.1:1 listen 127.0.0.1:2|Duplicate optional argument: listen
/dev/ram0 127.0.0.1:7789 C flush 23 a b c d e f g h i j k l m n o p q r s t u v w|Invalid number of optional arguments
/dev/ram0 127.0.0.1:7789 C flush 6 role primary listen 127.0.0.1:1 role primary|Duplicate optional argument: role
/dev/ram0 127.0.0.1:7789 C flush x|Invalid number of optional arguments
/dev/ram0 127.0.0.1:7789 C flush -1|Invalid number of optional arguments
/dev/ram0 127.0.0.1:7789 C flush 2 meta /dev/nonexistent|Cannot open metadata device
/dev/ram0 127.0.0.1:7789 C flush 2 meta /dev/mapper/nmtiny|Metadata device too small
/dev/ram0 127.0.0.1:7789 C flush 2 region_size 1000|Invalid region_size
/dev/ram0 127.0.0.1:7789 C flush 2 region_size 4|Invalid region_size
/dev/ram0 127.0.0.1:7789 C flush 2 region_size 4096|Invalid region_size
/dev/ram0 127.0.0.1:7789 C flush 2 region_size 8x|Invalid region_size
/dev/ram0 127.0.0.1:7789 C flush 2 sync partial|Invalid sync
/dev/ram0 127.0.0.1:7789 C flush 2 resync_rate fast|Invalid resync_rate
/dev/ram0 127.0.0.1:7789 C flush 2 resync_rate -5|Invalid resync_rate
/dev/ram0 127.0.0.1:7789 C flush 4 sync full sync none|Duplicate optional argument: sync
BAD
. /tests/tables.sh
nm_refuse_tables bad-table "$S" < /tmp/bad
log "$NM_TBL_N invalid tables tried, $NM_TBL_BAD not refused with their message"
dmsetup remove nmtiny

# bigger than the local device
check_fail bigger-than-local-refused dmsetup create nmbad --table "0 $((S + 8)) netmirror /dev/ram0 127.0.0.1:7789 C flush"
dmsetup remove nmbad 2>/dev/null

# valid lines: reprinted exactly (local_dev as major:minor, like every target)
cat > /tmp/good <<GOOD
$D 127.0.0.1:7789 C flush
$D 127.0.0.1:7789 A drain
$D 127.0.0.1:7789 B none
$D [::1]:7789 C flush
$D [fe80::1:2]:65535 C flush
$D 127.0.0.1:7789 C flush 2 role primary
$D 127.0.0.1:7789 C flush 2 listen 127.0.0.1:7790
$D 127.0.0.1:7789 C flush 4 listen 127.0.0.1:7790 role primary
$D 127.0.0.1:7789 C flush 2 sync none
$D 127.0.0.1:7789 C flush 4 region_size 8 resync_rate 1000
$D 127.0.0.1:7789 C flush 12 listen 127.0.0.1:7790 role primary meta $M region_size 2048 sync full resync_rate 0
GOOD
m=0
while read -r params; do
	m=$((m + 1))
	check "good-table/$m/accepted" dmsetup create nmgood --table "0 $S netmirror $params" || continue
	check_eq "good-table/$m/reprint" "$(dmsetup table nmgood)" "0 $S netmirror $params"
	dmsetup remove nmgood || fail "remove nmgood"
done < /tmp/good
# option order and an empty group are canonicalised
dmsetup create nmgood --table "0 $S netmirror /dev/ram0 127.0.0.1:7789 C flush 4 role primary listen 127.0.0.1:7790" || fail "reordered options refused"
check_eq canonical-order "$(dmsetup table nmgood)" "0 $S netmirror $D 127.0.0.1:7789 C flush 4 listen 127.0.0.1:7790 role primary"
dmsetup remove nmgood
dmsetup create nmgood --table "0 $S netmirror /dev/ram0 127.0.0.1:7789 C flush 0" || fail "empty group refused"
check_eq empty-group-dropped "$(dmsetup table nmgood)" "0 $S netmirror $D 127.0.0.1:7789 C flush"
# I/O maps to the local device (standalone primary)
dmsetup reload nmgood --table "0 $S netmirror /dev/ram0 127.0.0.1:7789 C flush 2 role primary" || fail "reload"
dmsetup resume nmgood || fail "resume after reload"
pattern write /dev/mapper/nmgood 7 8M --direct --quiet || fail "write through a standalone primary"
check standalone-primary-io pattern verify /dev/ram0 7 8M --direct --quiet
# the module cannot go while a device uses it
check_fail rmmod-refused-while-used rmmod dm_netmirror
dmsetup remove nmgood || fail "remove"
check rmmod-after-last-device rmmod dm_netmirror
log "$m valid tables reprinted exactly"
exit 0
