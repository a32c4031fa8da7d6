# Region state that the machine cannot hold (review F14): a table whose
# device and region_size need more memory for the per-region state than a
# limit of the machine's memory is refused at load with an error naming
# region_size, without waking the OOM killer or an allocation-failure
# trace (the testbed fails a test on "Call Trace:"), and without taking
# the memory first.  A large count that fits (the review's 16M regions)
# is created with fresh metadata, marks every region on it, reports its
# status and is removed.  A bystander process lives through all of it.
# vms: 1
# disks: none
# timeout: 600
# mem: 512
load_netmirror
brd_setup 16 2
. /tests/nmlib.sh
sleep 100000 &
bystander=$!

# 512 GiB of zeros, region_size 8: 2^27 regions, about 700 MiB of state
big=$((1 << 30))
dmsetup create zbig --table "0 $big zero" || fail "create zbig"
echo "NMLOG-MARK big" > /dev/kmsg
check_fail big-refused dmsetup create nmbig --table \
	"0 $big netmirror /dev/mapper/zbig 127.0.0.1:7799 C flush 4 region_size 8 listen 127.0.0.1:7798"
got=$(dmesg | sed -n '/NMLOG-MARK big$/,$p' | grep 'netmirror' | tail -1)
log "refusal: $got"
case $got in
*region_size*) check_ok big-error-names-region_size ;;
*) check_bad big-error-names-region_size "no region_size in: $got" ;;
esac
check_eq big-no-oom "$(dmesg | grep -c -i 'oom-killer\|Out of memory')" 0
check_eq big-no-alloc-failure "$(dmesg | grep -c 'allocation failure\|vmalloc error')" 0
check_eq big-no-table "$(dmsetup ls | grep -c nmbig)" 0

# less than the machine's memory, more than it can spare (about 450 MiB
# of state in 512 MiB): taken page by page, it would wake the OOM killer
near=$((88 << 23))
dmsetup create znear --table "0 $near zero" || fail "create znear"
check_fail near-refused dmsetup create nmnear --table \
	"0 $near netmirror /dev/mapper/znear 127.0.0.1:7799 C flush 4 region_size 8 listen 127.0.0.1:7798"
check_eq near-no-oom "$(dmesg | grep -c -i 'oom-killer\|Out of memory')" 0
check_eq near-no-alloc-failure "$(dmesg | grep -c 'allocation failure\|vmalloc error')" 0
check bystander-alive-near kill -0 "$bystander"
dmsetup remove znear

# with a metadata device too (its bitmap counts): refused as well
check_fail big-meta-refused dmsetup create nmbig --table \
	"0 $big netmirror /dev/mapper/zbig 127.0.0.1:7799 C flush 6 region_size 8 meta /dev/ram0 listen 127.0.0.1:7798"

# 64 GiB, region_size 8: 2^24 regions (about 90 MiB of state) fit: fresh
# metadata marks every region (sync full, no history), status, remove
mid=$((1 << 27))
dmsetup create zmid --table "0 $mid zero" || fail "create zmid"
$DD if=/dev/zero of=/dev/ram1 bs=1M count=16 status=none
check mid-create dmsetup create nmmid --table \
	"0 $mid netmirror /dev/mapper/zmid 127.0.0.1:7799 C flush 6 region_size 8 meta /dev/ram1 listen 127.0.0.1:7798"
check_eq mid-total "$(nm_status nmmid total_regions)" $((1 << 24))
check_eq mid-none-in-sync "$(nm_status nmmid in_sync_regions)" 0
check mid-remove dmsetup remove nmmid
check bystander-alive kill -0 "$bystander"
kill "$bystander"
dmsetup remove zmid
dmsetup remove zbig
exit 0
