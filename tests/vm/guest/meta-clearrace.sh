# A write never completes while its region's mark is not on the
# metadata device, not even while a lazy clear of that region is being
# written.  One VM, both nodes on loopback, the primary's metadata device
# on dm-delay over /dev/ram2 (writes 3 s, set once the pair is in sync),
# under each protocol A, B, C (checks <P>/...):
#   - a 4 KiB write marks region 5 (its mark's commit takes 3 s), then the
#     region stays idle until lazy clearing (nm_stable_point, about once a
#     second) writes its cleared bit: clear-in-flight, a write in flight
#     held by the delayed metadata device within 10 s of the mark;
#   - W1, a write to region 5, waits for a new mark (mark_wait); its
#     commit waits behind the clear's; 0.3 s later W2, another write to
#     region 5;
#   - bitmap polled from /dev/ram2 (O_DIRECT) until both ended: no-unmarked-
#     write, never once a write to region 5 had completed (W2's end seen
#     before the read) the region's bit 0 on disk; clear-landed, the clear
#     was seen on disk (else the window was missed and the test proved
#     nothing);
#   - both writes succeed, the pair settles, identical: both backing
#     devices equal.
# Fails on 1.13.5 (nm_meta.c): the clear's commit left the old on-disk 1
# in "ondisk" until its write ended, so nm_meta_test trusted W1's new
# in-memory mark with it and W2 completed at once; the clear then landed,
# and until W1's commit did, a crash of the primary would have left a
# completed write in a region the metadata called clean (not resynced).
# vms: 1
# disks: none
# timeout: 300
load_netmirror
. /tests/nmlib.sh
. /tests/dur-lib.sh
modprobe dm-delay 2>/dev/null
brd_setup 16 3
S=$(( $(dev_size /dev/ram0) / 512 ))
R=5			# the region (512 KiB each)
OFF=$((R * 128))	# its first 4 KiB block

# the region's bit on the metadata device, read past every cache
disk_bit() {
	local b
	b=$($DD if=/dev/ram2 bs=4096 skip=1 count=1 iflag=direct status=none |
	    od -An -tu1 -j$((R / 8)) -N1 | tr -d ' ')
	echo $(( (b >> (R % 8)) & 1 ))
}
smeta_delay() {
	dmsetup load smeta --table "0 $(( $(dev_size /dev/ram2) / 512 )) delay /dev/ram2 0 0 /dev/ram2 0 $1 /dev/ram2 0 0" &&
		dmsetup resume smeta || fail "smeta: $1 ms writes"
}
# writes held by dm-delay on smeta (its status: reads writes flushes)
smeta_writes() { dmsetup status smeta | awk '{ print $5 }'; }
bg_write() { # NAME BLOCK
	rm -f "/tmp/$1.rc"
	( $DD if=/dev/urandom of=/dev/mapper/nma bs=4k seek="$2" count=1 oflag=direct conv=notrunc status=none
	  echo $? > "/tmp/$1.rc" ) &
}

for P in $(nm_protos); do
	nm_zero /dev/ram0 /dev/ram1 /dev/ram2
	dur_delay smeta /dev/ram2 0
	nm_local_pair "$P" flush "$S" /dev/ram0 /dev/ram1 "meta /dev/mapper/smeta"
	smeta_delay 3000
	$DD if=/dev/urandom of=/dev/mapper/nma bs=4k seek=$OFF count=1 oflag=direct conv=notrunc status=none ||
		fail "$P: the first write"
	# the mark is on disk; the region now idle: lazy clearing writes a 0
	if wait_eval "[ \$(smeta_writes) -gt 0 ]" 10; then
		check_ok "$P/clear-in-flight"
	else
		check_bad "$P/clear-in-flight" "no metadata write within 10 s of the mark (bit on disk: $(disk_bit))"
	fi
	bg_write w1 $((OFF + 1))
	sleep 0.3
	bg_write w2 $((OFF + 16))
	bad='' zero=no end=$(( $(cut -d. -f1 /proc/uptime) + 30 ))
	while [ ! -e /tmp/w1.rc ] || [ ! -e /tmp/w2.rc ]; do
		done_w=''
		[ -e /tmp/w1.rc ] && done_w="$done_w w1"
		[ -e /tmp/w2.rc ] && done_w="$done_w w2"
		b=$(disk_bit)
		[ "$b" = 0 ] && zero=yes
		[ "$b" = 0 ] && [ -n "$done_w" ] && [ -z "$bad" ] &&
			bad="region $R clean on disk after$done_w completed ($(cut -d' ' -f1 /proc/uptime) s)"
		[ "$(cut -d. -f1 /proc/uptime)" -lt $end ] || fail "$P: the writes did not end in 30 s"
		sleep 0.1
	done
	[ "$(disk_bit)" = 0 ] && bad="${bad:-region $R clean on disk after both writes completed}"
	if [ -z "$bad" ]; then check_ok "$P/no-unmarked-write"; else check_bad "$P/no-unmarked-write" "$bad"; fi
	check_eq "$P/clear-landed" "$zero" yes
	check_eq "$P/writes-ok" "$(cat /tmp/w1.rc) $(cat /tmp/w2.rc)" "0 0"
	smeta_delay 0
	check_wait "$P/settled" 30 "nm_synced nma && nm_synced nmb && [ \$(nm_status nma pending) = 0 ]"
	nm_local_unpair
	dmsetup remove smeta || fail "remove smeta"
	dur_same "$P/identical" /dev/ram0 /dev/ram1
done
exit 0
