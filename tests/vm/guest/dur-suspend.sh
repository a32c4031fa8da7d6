# Issue 10, defect 1 through a suspend: dur-proto-a-disconnect with the
# secondary suspended and resumed (`dmsetup suspend nmb; dmsetup resume
# nmb`) after each round of writes, instead of disconnect/connect.  Checks
# <P>/identical, <P>/round<R>/secondary, <P>/primary-data for A, B, C.
# vms: 1
# disks: none
# timeout: 420
# mem: 1024
dur_fault=suspend
. /tests/dur-proto-a-disconnect.sh
