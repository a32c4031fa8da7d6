# Issue 10, defect 5: a switch-over while the primary is written must not
# lose an acknowledged write.  Both nodes in this VM over 127.0.0.1,
# protocol C, flush ordering, each backing device under dm-delay (20 ms
# per write) and TCP buffers held to 64 KiB (sysctl tcp_rmem/tcp_wmem, as
# on a slow link: writes wait in the primary's send queue).  12 rounds (env dur_rounds=N): on
# the current primary 8 writers (GNU dd, O_DIRECT, 1 MiB blocks, each into
# its own 4 MiB stripe; the data is shifted by 1 MiB per round); after 0.3 s
# `secondary` on it and at once `primary` on the other node, retried at
# once while refused (the peer may not know yet), as a failover script
# does.  A writer stops at its first failed write; dd's "N+0 records
# out" are the acknowledged writes.  After the resync (connected,
# uptodate/uptodate, N/N) every acknowledged block must be on both backing
# devices; roles alternate.  Checks:
#   C/round<R>/acked      every write acknowledged in round R is on both
#                         disks (detail: writers whose blocks are missing)
#   C/identical           at the end both backing devices byte-identical
# Passed on 82d5965 in 16 rounds of this form and 20 rounds of an earlier
# one (8 writers of 64 KiB, 10 ms, no buffer limit): the peer's promotion
# was refused 1-4 times per round until it had read the demotion, and no
# queued write was seen refused.
# vms: 1
# disks: none
# timeout: 300
# mem: 1024
load_netmirror
. /tests/nmlib.sh
. /tests/dur-lib.sh
modprobe dm-delay || fail "modprobe dm-delay"
ROUNDS=${dur_rounds:-12}
W=8			# writers
NB=4			# 1 MiB blocks per writer and round
P=C
brd_setup 64 2
sysctl -w net.ipv4.tcp_rmem="4096 32768 65536" net.ipv4.tcp_wmem="4096 32768 65536" > /dev/null || fail "sysctl tcp_rmem/tcp_wmem"
WS=$(seq 1 $W)
$DD if=/dev/urandom of=/tmp/src bs=1M count=$((W * NB + ROUNDS)) status=none || fail "random source"
dur_delay slowa /dev/ram0 20
dur_delay slowb /dev/ram1 20
nm_local_pair $P flush "" /dev/mapper/slowa /dev/mapper/slowb "sync none" "sync none"

# writer w's stripe, in MiB: block j of it holds block (stripe + j + r) of
# /tmp/src in round r
stripe() {
	echo $(( ($1 - 1) * NB ))
}

# writer w's acknowledged blocks of round r are on device DEV
acked_on() {
	local w=$1 r=$2 dev=$3 n
	n=$(cat /tmp/acked$w)
	[ "$n" -gt 0 ] || return 0
	$DD if=/tmp/src of=/tmp/exp bs=1M skip=$(( $(stripe $w) + r )) count=$n status=none &&
		$DD if="$dev" of=/tmp/got bs=1M skip=$(stripe $w) count=$n iflag=direct status=none &&
		$CMP -s /tmp/exp /tmp/got
}

pri=nma sec=nmb
r=0
while [ $r -lt $ROUNDS ]; do
	for w in $WS; do
		$DD if=/tmp/src of=/dev/mapper/$pri bs=1M skip=$(( $(stripe $w) + r )) count=$NB seek=$(stripe $w) \
			oflag=direct conv=notrunc 2> /tmp/w$w.err &
	done
	sleep 0.3
	dmsetup message $pri 0 secondary || fail "round $r: secondary on $pri: $(dmsetup status $pri)"
	end=$(( $(cut -d. -f1 /proc/uptime) + 20 )) tries=1
	while ! dmsetup message $sec 0 primary 2>/dev/null; do
		[ "$(cut -d. -f1 /proc/uptime)" -lt $end ] || fail "round $r: primary on $sec refused for 20 s: $(dmsetup status $sec)"
		tries=$((tries + 1))
	done
	wait
	tot=0
	for w in $WS; do
		n=$(sed -n 's/^\([0-9]*\)+[0-9]* records out.*/\1/p' /tmp/w$w.err)
		[ -n "$n" ] || fail "round $r: writer $w: no record count: $(cat /tmp/w$w.err)"
		echo "$n" > /tmp/acked$w
		tot=$((tot + n))
	done
	dur_settle 60 || fail "round $r: no settled resync: nma $(dmsetup status nma) | nmb $(dmsetup status nmb)"
	bad=""
	for w in $WS; do
		acked_on $w $r /dev/ram0 || bad="$bad w$w($(cat /tmp/acked$w))@ram0"
		acked_on $w $r /dev/ram1 || bad="$bad w$w($(cat /tmp/acked$w))@ram1"
	done
	log "round $r: $pri -> $sec (promoted at try $tries), $tot of $((W * NB)) writes acknowledged${bad:+, missing:$bad}"
	if [ -z "$bad" ]; then check_ok "$P/round$r/acked"; else check_bad "$P/round$r/acked" "$tot acknowledged; missing:$bad"; fi
	t=$pri pri=$sec sec=$t
	r=$((r + 1))
done
dur_same "$P/identical" /dev/ram0 /dev/ram1
nm_local_unpair
dmsetup remove slowa && dmsetup remove slowb || fail "remove dm-delay"
exit 0
