# A region's mark is cleared on the metadata device only after the
# primary's data device was flushed: the writes whose stability on the
# peer allowed the clear may still sit in the primary's volatile cache,
# and once the mark is gone a power loss that drops them is never
# resynced.  This must hold when the clear is made while another commit
# (a new mark's, nm_mark_work) is already writing the bitmap.
#
# One VM, both nodes on loopback, 4 KiB regions (region_size 8) over
# 160 MiB, so regions 32768 and up are in the bitmap's second block.  The
# primary's data: dm-delay (flushes 3 s) over a cached null_blk nla
# (dur-power-lib.sh: a power cut drops what no flush reached); its
# metadata: dm-delay (writes 3 s, set once in sync) over /dev/ram0.  For
# each protocol A, B, C (checks <P>/...):
#   - one 4 KiB O_DIRECT write X into region 32773 (no FUA: it sits in
#     nla's cache), then a write every 0.5 s into a new region of the
#     first bitmap block, so a mark commit is writing block 0 nearly all
#     the time when lazy clearing (about once a second) clears X's region;
#   - the bitmap polled from /dev/ram0 (O_DIRECT): clear-landed, X's bit
#     seen on disk and then 0 (within 40 s);
#   - at once nla loses power; back on, x-kept: X is on nla's media.
# Fails on 1.13.5 (nm_meta_commit sampled "clears" once, at its start: a
# mark commit that had begun wrote the clear made meanwhile with the
# bitmap, before any data flush, and the clearing thread's own commit
# flushed only after it).
# vms: 1
# disks: none
# timeout: 400
# mem: 1024
load_netmirror
. /tests/nmlib.sh
. /tests/dur-lib.sh
. /tests/dur-power-lib.sh
modprobe dm-delay 2>/dev/null
MB=160
S=$((MB * 2048))
X=$((32768 + 5))	# X's region = its 4 KiB block

# X's bit on the metadata device (bitmap from 4096, 4 KiB per block)
disk_bit() {
	local b
	b=$($DD if=/dev/ram0 bs=4096 skip=$((1 + X / 32768)) count=1 iflag=direct status=none |
	    od -An -tu1 -j$(( (X % 32768) / 8 )) -N1 | tr -d ' ')
	echo $(( (b >> (X % 8)) & 1 ))
}
delay_table() { # DEV WRITE_MS FLUSH_MS
	echo "0 $(( $(dev_size "$1") / 512 )) delay $1 0 0 $1 0 $2 $1 0 $3"
}

seed=1
for P in $(nm_protos); do
	brd_setup $MB 2
	nl_create nla $MB
	dmsetup create sdata --table "$(delay_table /dev/nla 0 3000)" || fail "$P: create sdata"
	dmsetup create smeta --table "$(delay_table /dev/ram0 0 0)" || fail "$P: create smeta"
	nm_local_pair "$P" flush "$S" /dev/mapper/sdata /dev/ram1 \
		"meta /dev/mapper/smeta region_size 8 sync none" "region_size 8 sync none"
	dmsetup load smeta --table "$(delay_table /dev/ram0 3000 0)" && dmsetup resume smeta ||
		fail "$P: smeta 3 s writes"
	$DD if=/dev/urandom of=/tmp/x bs=4k count=1 status=none
	$DD if=/tmp/x of=/dev/mapper/nma bs=4k seek=$X count=1 oflag=direct conv=notrunc status=none ||
		fail "$P: write X"
	one=no
	[ "$(disk_bit)" = 1 ] && one=yes
	rm -f /tmp/stop
	( i=1
	  while [ ! -e /tmp/stop ] && [ $i -lt 60 ]; do
		$DD if=/dev/urandom of=/dev/mapper/nma bs=4k seek=$((i * 16)) count=1 oflag=direct conv=notrunc status=none 2>/dev/null &
		sleep 0.5
		i=$((i + 1))
	  done ) &
	sp=$!
	landed=no end=$(( $(cut -d. -f1 /proc/uptime) + 40 ))
	while [ "$(cut -d. -f1 /proc/uptime)" -lt $end ]; do
		b=$(disk_bit)
		[ "$b" = 1 ] && one=yes
		if [ "$b" = 0 ] && [ $one = yes ]; then
			landed=yes
			break
		fi
		sleep 0.1
	done
	# power lost right when the clear is on the metadata device
	[ $landed = yes ] && nl_power nla 0
	touch /tmp/stop
	log "$P: X's clear seen on disk: $landed at $(cut -d' ' -f1 /proc/uptime) s; nma $(dmsetup status nma | cut -d' ' -f4-)"
	check_eq "$P/clear-landed" "$landed" yes
	wait $sp
	sleep 1
	remove_retry nma "$P"
	dmsetup remove nmb || fail "$P: remove nmb"
	dmsetup remove sdata || fail "$P: remove sdata"
	dmsetup remove smeta || fail "$P: remove smeta"
	if [ $landed = yes ]; then
		nl_power nla 1
		check_eq "$P/x-kept" "$($DD if=/dev/nla bs=4k skip=$X count=1 iflag=direct status=none | $MD5SUM)" \
			"$($MD5SUM < /tmp/x)"
	fi
	nl_destroy nla
	seed=$((seed + 1))
done
exit 0
