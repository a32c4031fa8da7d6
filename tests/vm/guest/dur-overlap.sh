# Issue 10, defect 7: overlapping writes in flight together must be applied
# in the same order on both nodes.  Both nodes in this VM over 127.0.0.1;
# for each protocol A, B, C (flush ordering, "sync none" on zeroed disks):
# fio, 16 jobs x iodepth 32 (libaio, O_DIRECT, 4..64 KiB random writes, no
# random map) on the same 64 KiB for 4 s.  Check <P>/identical: after the
# pair settles (connected, uptodate/uptodate, N/N, nothing pending) both
# backing devices are byte-identical; C/acks-batched: the secondary sent
# acks of bursts together (ack_batch), A and B held none.  Passed on 82d5965 (IOPS 1829 A,
# 874 B, 1299 C: about 3,500-7,000 overlapping writes per protocol).
# vms: 1
# disks: none
# layers: fio
# timeout: 240
# mem: 1024
load_netmirror
. /tests/nmlib.sh
. /tests/dur-lib.sh
for P in A B C; do
	brd_setup 32 2
	nm_local_pair "$P" flush "" /dev/ram0 /dev/ram1 "sync none" "sync none"
	fio --name=overlap --filename=/dev/mapper/nma --rw=randwrite --bsrange=4k-64k --size=64k \
		--offset=1m --norandommap --ioengine=libaio --direct=1 --iodepth=32 --numjobs=16 \
		--time_based --runtime=4 --refill_buffers --group_reporting > /tmp/fio.out 2>&1 ||
		fail "$P: fio: $(tail -5 /tmp/fio.out)"
	log "$P: $(grep -m1 -o 'IOPS=[^,]*' /tmp/fio.out)"
	dur_settled_same "$P/identical" 60 /dev/ram0 /dev/ram1
	# ack_batch (1.12.3): under C, at this depth, the secondary held acks
	# for later packets (brd completes in its submit_bio); A and B send no
	# write acks, so none are held
	n=$(dmsetup message nmb 0 latency | sed -n 's/^ack_batched count=//p')
	if [ "$P" = C ]; then
		check "$P/acks-batched" [ "${n:-0}" -gt 0 ]
	else
		check_eq "$P/no-acks-batched" "$n" 0
	fi
	log "$P: ack_batched $n, nmb writes_received $(nm_status nmb writes_received 2>/dev/null)"
	nm_local_unpair
done
exit 0
