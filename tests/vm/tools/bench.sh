# Benchmark (not in suite.list, not part of make check): GNU dd O_DIRECT
# write throughput of the seed workloads (512 B x 1000, 4 KiB x 1000,
# 1 MiB x 64) on brd ramdisks, in one VM:
#   bare /dev/ram0, netmirror disconnected (primary without a peer),
#   netmirror connected over 127.0.0.1 with protocol A, B, C (ordering
#   flush), C with every write sent by the sender thread (module parameter
#   inline_send=N: nm-Cthr), and C with "secret" (a MAC on every packet:
#   nm-Cmac),
#   in-kernel DRBD 8.4 disconnected and connected with A, B, C.
# and the physical limits of this boot (tests/vm/src/tcprr.c: loopback TCP
# request/response 4096 or 512 B -> 32 B, one stream), with the floor of a
# protocol C 4 KiB write at queue depth 1 (bare p50 + request/response p50).
# Each measurement is repeated $nm_bench_reps times (default 3); the median
# is reported.  Result lines start with "NMBENCH: " (tests/bench/run.sh
# extracts them); per-run samples are NMLOG lines.
# vms: 1
# disks: none
# timeout: 1500
# mem: 1024
REPS=${nm_bench_reps:-3}
RES=/tmp/bench.res
LAT=/tmp/bench.lat
: > $RES
: > $LAT
DRBDSETUP=/usr/lib/drbd/drbdsetup-84
NMP=7790   # netmirror ports 7789/7790 (nmlib.sh); DRBD uses 7800/7801
DA=ipv4:127.0.0.1:7800
DB=ipv4:127.0.0.1:7801

load_netmirror
. /tests/nmlib.sh
modprobe drbd usermode_helper=/bin/true || fail "modprobe drbd failed"
brd_setup 128 4
S=$(( $(dev_size /dev/ram0) / 512 ))

# fill every ramdisk once so no measurement pays for brd page allocation
for i in 0 1 2 3; do
	$DD if=/dev/zero of=/dev/ram$i bs=1M oflag=direct 2>/dev/null
done

# one_dd DEV BS COUNT: prints MB/s (10^6 bytes/s) from GNU dd's own timing
one_dd() {
	local out line bytes secs
	out=$($DD if=/dev/zero of="$1" bs="$2" count="$3" oflag=direct 2>&1) || {
		log "dd $1 bs=$2 failed: $out"
		echo 0
		return 1
	}
	line=$(echo "$out" | grep ' copied, ')
	bytes=${line%% bytes*}
	secs=$(echo "$line" | sed 's/.* copied, \([0-9.e+-]*\) s,.*/\1/')
	awk -v b="$bytes" -v s="$secs" 'BEGIN { if (s > 0) printf "%.2f\n", b / s / 1e6; else print 0 }'
}

median() { # values on stdin, one a line
	sort -n | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)]; else print 0 }'
}

# settle COL: between runs let async protocols drain before the next one
settle() {
	case $1 in
	nm-*) [ -b /dev/mapper/nma ] && wait_eval "[ \$(nm_status nma pending) = 0 ]" 30 ;;
	drbd-*) sleep 0.3 ;;
	esac
	return 0
}

# measure COL DEV: every workload REPS times, medians to $RES; 4k p50 (wlat) to $LAT
measure() {
	local col=$1 dev=$2 wl bs cnt r v all lat
	for wl in 512B:512:1000 4k:4k:1000 1M:1M:64; do
		bs=$(echo $wl | cut -d: -f2)
		cnt=$(echo $wl | cut -d: -f3)
		wl=${wl%%:*}
		all=""
		r=1
		while [ $r -le "$REPS" ]; do
			settle "$col"
			v=$(one_dd "$dev" "$bs" "$cnt")
			all="$all $v"
			r=$((r + 1))
		done
		v=$(echo $all | tr ' ' '\n' | median)
		log "bench $col $wl MB/s:$all -> median $v"
		echo "$col $wl $v" >> $RES
	done
	all=""
	r=1
	while [ $r -le "$REPS" ]; do
		settle "$col"
		all="$all $(wlat "$dev" 4096 1000 | sed -n 's/.* p50_us=\([0-9]*\).*/\1/p')"
		r=$((r + 1))
	done
	lat=$(echo $all | tr ' ' '\n' | median)
	log "bench $col 4k p50 us:$all -> median $lat"
	echo "$col $lat" >> $LAT
}

# wait until nma reports all regions in sync (no resync under the benchmark)
nm_wait_insync() {
	wait_eval "[ \"\$(nm_status nma in_sync_regions)\" = \"\$(nm_status nma total_regions)\" ]" 60 ||
		log "bench: nma not in sync after 60 s: $(dmsetup status nma)"
}

# ---- 1. bare ramdisk
measure bare /dev/ram0

# ---- 1b. the physical limits in this boot: loopback TCP request/response
# (a 4 KiB or 512 B write out, a 32 B ack back: the network part of one
# protocol C write) and a single loopback stream (tests/vm/src/tcprr.c)
STAGES=/tmp/bench.stages
: > $STAGES
LIM=/tmp/bench.lim
: > $LIM
for k in rr4k rr512 stream; do
	all=""
	r=1
	while [ $r -le "$REPS" ]; do
		case $k in
		rr4k) v=$(tcprr rr --req 4096 --count 2000 --port $((7900 + r)) | sed -n 's/.* p50_us=\([0-9]*\).*/\1/p') ;;
		rr512) v=$(tcprr rr --req 512 --count 2000 --port $((7910 + r)) | sed -n 's/.* p50_us=\([0-9]*\).*/\1/p') ;;
		stream) v=$(tcprr stream --bytes 256M --port $((7920 + r)) | sed -n 's/.* mb_s=\([0-9.]*\).*/\1/p') ;;
		esac
		all="$all ${v:-0}"
		r=$((r + 1))
	done
	v=$(echo $all | tr ' ' '\n' | median)
	log "bench limit $k:$all -> median $v"
	echo "$k $v" >> $LIM
done

# ---- 2. netmirror disconnected: a primary whose peer does not exist
# (a peer port nobody listens on and an explicit listen address: without
# them it listened on *:7790 and kept connecting to itself)
dmsetup create nmd --table "0 $S netmirror /dev/ram0 127.0.0.1:7799 C flush 4 role primary listen 127.0.0.1:7798" ||
	fail "create nmd (disconnected primary)"
log "bench nm-disc status: $(dmsetup status nmd)"
measure nm-disc /dev/mapper/nmd
dmsetup remove nmd || fail "remove nmd"

# ---- 3. netmirror connected, protocols A, B, C, ordering flush
for p in A B C; do
	nm_local_pair "$p" flush "$S"
	nm_wait_insync
	log "bench nm-$p status: $(dmsetup status nma)"
	dmsetup message nma 0 latency_reset && dmsetup message nmb 0 latency_reset ||
		log "bench: no latency message (target older than 1.8)"
	measure "nm-$p" /dev/mapper/nma
	log "bench nm-$p status after: $(dmsetup status nma)"
	# the stage latencies over all of nm-$p's workloads (nm_hist.h)
	{ dmsetup message nma 0 latency; dmsetup message nmb 0 latency; } 2>/dev/null |
		grep 'count=' | sed "s/^/nm-$p /" >> $STAGES
	nm_local_unpair
done

# ---- 3a. protocol C with every write sent by the sender thread (module
# parameter inline_send=N): what sending from the submitter's context gives
INL=/sys/module/dm_netmirror/parameters/inline_send
if [ -w $INL ]; then
	echo N > $INL
	nm_local_pair C flush "$S"
	nm_wait_insync
	dmsetup message nma 0 latency_reset && dmsetup message nmb 0 latency_reset
	measure nm-Cthr /dev/mapper/nma
	{ dmsetup message nma 0 latency; dmsetup message nmb 0 latency; } 2>/dev/null |
		grep 'count=' | sed "s/^/nm-Cthr /" >> $STAGES
	nm_local_unpair
	echo Y > $INL
fi

# ---- 3b. protocol C with "secret": the cost of a MAC on every packet
nmhostile addkey nm:bench "bench secret" >/dev/null || fail "add the logon key"
nm_local_pair C flush "$S" /dev/ram0 /dev/ram1 "secret nm:bench" "secret nm:bench"
nm_wait_insync
log "bench nm-Cmac status: $(dmsetup status nma)"
measure nm-Cmac /dev/mapper/nma
nm_local_unpair

# ---- 4. DRBD 8.4: minor 0 (/dev/ram2, primary) <-> minor 1 (/dev/ram3)
drbd_connect() { # PROTO
	$DRBDSETUP connect r0 $DA $DB --protocol="$1" || fail "drbd connect r0 ($1)"
	$DRBDSETUP connect r1 $DB $DA --protocol="$1" || fail "drbd connect r1 ($1)"
	wait_for "[ \"\$($DRBDSETUP cstate 0)\" = Connected ] || [ \"\$($DRBDSETUP cstate 0)\" = SyncSource ]" 30 ||
		fail "drbd ($1) did not connect: $($DRBDSETUP cstate 0)"
}
drbd_synced() {
	wait_for "[ \"\$($DRBDSETUP cstate 0)\" = Connected ] && [ \"\$($DRBDSETUP dstate 0)\" = UpToDate/UpToDate ]" 120 ||
		fail "drbd not synced: $($DRBDSETUP cstate 0) $($DRBDSETUP dstate 0)"
}
drbd_disconnect() {
	$DRBDSETUP disconnect $DA $DB || fail "drbd disconnect r0"
	$DRBDSETUP disconnect $DB $DA || fail "drbd disconnect r1"
}
for m in 0 1; do
	drbdmeta --force $m v08 /dev/ram$((m + 2)) internal create-md >/dev/null 2>&1 </dev/null ||
		fail "drbdmeta create-md $m"
	$DRBDSETUP new-resource r$m || fail "drbd new-resource r$m"
	$DRBDSETUP new-minor r$m $m 0 || fail "drbd new-minor $m"
	$DRBDSETUP attach $m /dev/ram$((m + 2)) /dev/ram$((m + 2)) internal \
		--c-plan-ahead=0 --resync-rate=4194304 || fail "drbd attach $m"
done
drbd_connect C
$DRBDSETUP primary 0 --force || fail "drbd primary --force"
t0=$(cut -d' ' -f1 /proc/uptime)
drbd_synced
log "bench drbd initial sync done (uptime $t0 -> $(cut -d' ' -f1 /proc/uptime))"
measure drbd-C /dev/drbd0
drbd_disconnect
log "bench drbd-disc state: $($DRBDSETUP cstate 0) $($DRBDSETUP dstate 0)"
measure drbd-disc /dev/drbd0
for p in B A; do
	drbd_connect "$p"
	drbd_synced
	measure "drbd-$p" /dev/drbd0
	drbd_disconnect
done
$DRBDSETUP down r0
$DRBDSETUP down r1

# ---- table
COLS="bare nm-disc nm-A nm-B nm-C nm-Cthr nm-Cmac drbd-disc drbd-A drbd-B drbd-C"
awk -v cols="$COLS" -v reps="$REPS" -v latf=$LAT -v limf=$LIM '
function r(a, b) { return (a != "" && b > 0) ? sprintf("%.2f", a / b) : "-" }
function d(x) { return (x == "") ? "-" : x }
{ v[$1, $2] = $3 }
END {
	nc = split(cols, c, " ")
	while ((getline l < latf) > 0) { split(l, f, " "); lat[f[1]] = f[2] }
	printf "NMBENCH: GNU dd oflag=direct write MB/s (10^6 B/s), median of %d; brd 128 MiB, one VM (TCG)\n", reps
	h = sprintf("%-9s", "workload"); for (i = 1; i <= nc; i++) h = h sprintf(" %9s", c[i])
	print "NMBENCH: " h
	split("512B 4k 1M", w, " ")
	for (j = 1; j <= 3; j++) {
		s = sprintf("%-9s", w[j]); for (i = 1; i <= nc; i++) s = s sprintf(" %9s", d(v[c[i], w[j]]))
		print "NMBENCH: " s
	}
	s = sprintf("%-9s", "4k p50us"); for (i = 1; i <= nc; i++) s = s sprintf(" %9s", d(lat[c[i]]))
	print "NMBENCH: " s "   (wlat 4 KiB x 1000, median p50 latency in us)"
	while ((getline l < limf) > 0) { split(l, f, " "); lim[f[1]] = f[2] }
	print "NMBENCH:"
	printf "NMBENCH: limits in this boot (tcprr, median of %d): loopback TCP 4096->32 B p50 %s us, 512->32 B p50 %s us; one stream %s MB/s\n", reps, d(lim["rr4k"]), d(lim["rr512"]), d(lim["stream"])
	if (lat["bare"] != "" && lim["rr4k"] > 0)
		printf "NMBENCH: floor of a protocol C 4 KiB write at QD1 = bare p50 + request/response p50 = %d us (%.2f MB/s); nm-C p50 is %s us\n", lat["bare"] + lim["rr4k"], 4096 / (lat["bare"] + lim["rr4k"]), d(lat["nm-C"])
	print "NMBENCH:"
	print "NMBENCH: ratio netmirror / DRBD (same protocol)"
	printf "NMBENCH: %-9s %9s %9s %9s %9s\n", "workload", "disc", "A", "B", "C"
	for (j = 1; j <= 3; j++) {
		x = w[j]
		printf "NMBENCH: %-9s %9s %9s %9s %9s\n", x,
			r(v["nm-disc", x], v["drbd-disc", x]), r(v["nm-A", x], v["drbd-A", x]),
			r(v["nm-B", x], v["drbd-B", x]), r(v["nm-C", x], v["drbd-C", x])
	}
	print "NMBENCH:"
	print "NMBENCH: ratio connected / disconnected (same implementation)"
	printf "NMBENCH: %-9s %9s %9s %9s %9s %9s %9s\n", "workload", "nm-A", "nm-B", "nm-C", "drbd-A", "drbd-B", "drbd-C"
	for (j = 1; j <= 3; j++) {
		x = w[j]
		printf "NMBENCH: %-9s %9s %9s %9s %9s %9s %9s\n", x,
			r(v["nm-A", x], v["nm-disc", x]), r(v["nm-B", x], v["nm-disc", x]),
			r(v["nm-C", x], v["nm-disc", x]), r(v["drbd-A", x], v["drbd-disc", x]),
			r(v["drbd-B", x], v["drbd-disc", x]), r(v["drbd-C", x], v["drbd-disc", x])
	}
	print "NMBENCH:"
	print "NMBENCH: ratio disconnected / bare"
	printf "NMBENCH: %-9s %9s %9s\n", "workload", "nm-disc", "drbd-disc"
	for (j = 1; j <= 3; j++)
		printf "NMBENCH: %-9s %9s %9s\n", w[j], r(v["nm-disc", w[j]], v["bare", w[j]]), r(v["drbd-disc", w[j]], v["bare", w[j]])
}' $RES
if [ -s $STAGES ]; then
	echo "NMBENCH:"
	echo "NMBENCH: stage latencies over all workloads of each config (dmsetup message <dev> 0 latency; p_* on the primary, s_* on the secondary)"
	sed 's/^/NMBENCH: /' $STAGES
fi
exit 0
