#!/bin/bash
# shellcheck disable=SC2015,SC1091
# Host-side test of the benchmark's arithmetic, no VM:
#   tests/vm/guest-lib/bench-fio.awk     fio JSON -> one sample (fixtures:
#                                        real fio 3.33 output, tests/bench/fixtures/)
#   tests/vm/guest-lib/bench-report.awk  samples -> report: medians, [min..max],
#                                        paired ratios, floors, goals, integrity
#   tests/vm/guest-lib/benchlib.sh       round order, selection, estimate
# with every awk found here: busybox awk (the guest's), mawk, gawk.
#
#   tests/bench/test-report.sh [-v]      -v: print the synthetic report
# Exit 0 if every check passed.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
lib=$top/tests/vm/guest-lib
fix=$top/tests/bench/fixtures
verbose=0
[ "${1:-}" = -v ] && verbose=1
pass=0 failn=0
ok() { pass=$((pass + 1)); }
bad() { failn=$((failn + 1)); echo "FAIL: $*"; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

awks=()
busybox awk 'BEGIN {}' 2>/dev/null && awks+=("busybox awk")
for a in mawk gawk original-awk; do
	command -v $a >/dev/null && awks+=("$a")
done
[ ${#awks[@]} -gt 0 ] || { echo "test-report: no awk" >&2; exit 1; }

# expect FILE STRING...: each string is a line (fixed, whole line after
# trimming trailing blanks) of FILE
expect() {
	local f=$1 s
	shift
	sed 's/[[:space:]]*$//' "$f" > "$f.trim"
	for s in "$@"; do
		if grep -qxF -- "$s" "$f.trim"; then ok; else bad "$AWK: missing line: $s"; fi
	done
}
# expect_re FILE ERE...: a line of FILE matches each ERE
expect_re() {
	local f=$1 s
	shift
	for s in "$@"; do
		if grep -qE -- "$s" "$f"; then ok; else bad "$AWK: no line matches: $s"; fi
	done
}

# ---- synthetic samples: 3 rounds; the values are chosen so that the
# median of the paired ratios differs from the ratio of the medians
samples() {
	local r
	echo "meta git=abc1234 kernel=6.1.0-test fio=fio-3.33 ncpu=2 mem=987 backing=brd size_mb=128 meta=yes data=scramble rounds=3 time=10 ramp=2 configs=bare,nm-disc,drbd-disc,nm-C,drbd-C,nm-A,drbd-A,nm-B,drbd-B,drbd-Cdef workloads=w512-q1,w4k-q1,rw4k-q32,w1m-q1,w4k-dsync,rs-full,rs-part,rs-app,nbd-w1m,nbd-w4k"
	# round: nm-C iops, drbd-C iops, drbd-A iops, bare p50, nm-C p50, rr4k
	set -- 1 300 100 250 10 120 100 \
	       2 330 200 300 12 130 110 \
	       3 270 150 200 11 125 90
	while [ $# -gt 0 ]; do
		r=$1
		echo "sample r=$r cfg=nm-C wl=w4k-q1 iops=$2 mbs=1 p50=$6 p99=500 p999=900 cpu=40 ctx=3"
		echo "sample r=$r cfg=drbd-C wl=w4k-q1 iops=$3 mbs=1 p50=300 p99=700 p999=990 cpu=50 ctx=4"
		echo "sample r=$r cfg=drbd-A wl=w4k-q1 iops=$4 mbs=1 p50=200"
		echo "sample r=$r cfg=bare wl=w4k-q1 iops=50000 mbs=200 p50=$5 p99=30"
		echo "limit r=$r rr4k=$7 rr4k_p99=300 rr512=50 rr512_p99=200 stream=$(echo "250 200 230" | cut -d' ' -f"$r")"
		shift 7
	done
	# w512-q1: fails both clauses (ratio 1 and 0.5; p50 2x the floor)
	for r in 1 2 3; do
		echo "sample r=$r cfg=nm-C wl=w512-q1 iops=100 p50=120"
		echo "sample r=$r cfg=drbd-C wl=w512-q1 iops=100 p50=120"
		echo "sample r=$r cfg=drbd-A wl=w512-q1 iops=200 p50=60"
		echo "sample r=$r cfg=bare wl=w512-q1 iops=90000 p50=10"
	done
	# rw4k-q32: IOPS ratios 2.0 2.2 2.4, CPU ratios 0.5 1.2 1.0
	echo "NMLOG: bench sample r=1 cfg=nm-C wl=rw4k-q32 iops=2000 cpu=50 p99=800"
	echo "NMLOG: bench sample r=2 cfg=nm-C wl=rw4k-q32 iops=2200 cpu=60 p99=900"
	echo "NMLOG: bench sample r=3 cfg=nm-C wl=rw4k-q32 iops=2400 cpu=70 p99=700"
	for r in 1 2 3; do echo "bench sample r=$r cfg=drbd-C wl=rw4k-q32 iops=1000 cpu=$(echo "100 50 70" | cut -d' ' -f$r)"; done
	# the CPU bound at QD32: bare 10 us per write, an exchange at depth 32
	# 90 100 80 us: 2 x 1e6 / 100 110 90 = 20000 18182 22222 IOPS; 2x
	# drbd-C of it 0.100 0.110 0.090, nm-C 0.100 0.121 0.108; over two
	# connections 11000 12000 10000/s at 110 110 90 us: at their busy share
	# 10083 11000 9000 IOPS, 2x drbd-C 0.198 0.182 0.222, nm-C 0.198 0.200 0.267
	for r in 1 2 3; do
		echo "sample r=$r cfg=bare wl=rw4k-q32 iops=60000 cpu=10"
		echo "limit r=$r rr4kq32=$(echo "9000 8000 9500" | cut -d' ' -f$r) rr4kq32_cpu=$(echo "90 100 80" | cut -d' ' -f$r) rr4kq32c2=$(echo "11000 12000 10000" | cut -d' ' -f$r) rr4kq32c2_cpu=$(echo "110 110 90" | cut -d' ' -f$r)"
	done
	# w1m-q1: MB/s ratios to drbd-C 1.33 1.40 1.27; to the stream 0.8 1.05 0.826
	for r in 1 2 3; do
		echo "sample r=$r cfg=nm-C wl=w1m-q1 mbs=$(echo "200 210 190" | cut -d' ' -f$r)"
		echo "sample r=$r cfg=drbd-C wl=w1m-q1 mbs=150"
	done
	echo "sample r=3 cfg=drbd-B wl=w1m-q1 err=fio-exit-1"
	# w4k-dsync: nm-C only in rounds 1 and 3 (even count: mean of the middle two)
	echo "sample r=1 cfg=nm-C wl=w4k-dsync iops=50"
	echo "sample r=3 cfg=nm-C wl=w4k-dsync iops=70"
	for r in 1 2 3; do
		echo "integrity r=$r cfg=nm-C ok=yes"
		echo "integrity r=$r cfg=drbd-C ok=$([ $r = 2 ] && echo no || echo yes)"
		echo "stage r=$r cfg=nm-C wl=w4k-q1 node=a name=p_peer count=100 p50=$((90 + 10 * r)) p90=1 p99=$(echo "200 220 400" | cut -d' ' -f$r) max=1"
		echo "stage r=$r cfg=nm-C wl=w4k-q1 node=a name=p_queue count=0"
		# fast_ack: a count, the share of p_total's: 90 80 95 % (median 90)
		echo "stage r=$r cfg=nm-C wl=w4k-q1 node=a name=p_total count=200 p50=200 p90=1 p99=300 max=1"
		echo "stage r=$r cfg=nm-C wl=w4k-q1 node=a name=fast_ack count=$(echo "180 160 190" | cut -d' ' -f$r)"
		# fast_rx (the secondary's): 100 50 100 % of p_total's (median 100);
		# the secondary's own p_total line (count=0) changes nothing
		echo "stage r=$r cfg=nm-C wl=w4k-q1 node=b name=p_total count=0"
		echo "stage r=$r cfg=nm-C wl=w4k-q1 node=b name=fast_rx count=$(echo "200 100 200" | cut -d' ' -f$r)"
		# the reader controller's line: in the samples, not a column
		echo "stage r=$r cfg=nm-C wl=w4k-q1 node=b name=rx_probe count=3 switches=1"
	done
	# resync: disk read 300 150 260, stream 250 200 230: min 250 150 230.
	# nm-C rs-full (134217728 B): connect 1.20 0.50 0.80 s, transfer 0.56
	# 0.89 0.67 s: 240 150 200 MB/s, 0.96 1.0 0.870 of the min (median
	# 0.960); total 1.76 1.39 1.47 s: 76.26 96.56 91.30 MB/s incl. the
	# reconnect, 0.305 0.644 0.397 of the min (median 0.397: the goal would
	# fail on it).  drbd-Cdef: connect 0.10 0.20 0.10, transfer 1.92 3.36
	# 1.68: 70 40 80 MB/s, nm-C/drbd-Cdef 3.43 3.75 2.50 (median 3.43);
	# total 2.02 3.56 1.78: 66.44 37.70 75.40 MB/s, nm-C/drbd-Cdef 1.148
	# 2.561 1.211 (median 1.21: would fail).  rs-app 140 100 200 IOPS
	# against w4k-q1's 300 330 270: 0.467 0.303 0.741 (the goal FAILs on
	# it); drbd-Cdef's rs-app never had a window: n/a.  rs-part: nm-C 40 30
	# 20 MB/s over the transfer, 20 15 10 in all; drbd-C 20 20 - (round 3:
	# over before a poll saw it running), 10 10 20 in all: nm-C/drbd-C
	# 2.0 1.5 (1.75, n=2) and 2.0 1.5 0.5 (1.50).  Clocks: nm-C rs-full
	# and rs-app klog in every round; drbd-Cdef rs-full klog in rounds 1
	# and 2, round 3 without a clock (an older sample: poll); nm-C rs-part
	# without; drbd-C rs-part klog, poll in round 3; drbd-Cdef rs-app poll
	for r in 1 2 3; do
		echo "limit r=$r diskread=$(echo "300 150 260" | cut -d' ' -f$r)"
		echo "sample r=$r cfg=nm-C wl=rs-full connect=$(echo "1.20 0.50 0.80" | cut -d' ' -f$r) transfer=$(echo "0.56 0.89 0.67" | cut -d' ' -f$r) secs=$(echo "1.76 1.39 1.47" | cut -d' ' -f$r) mibs=$(echo "228.88 143.05 190.73" | cut -d' ' -f$r) mbs=$(echo "240 150 200" | cut -d' ' -f$r) mibs_all=$(echo "72.73 92.09 87.07" | cut -d' ' -f$r) mbs_all=$(echo "76.26 96.56 91.30" | cut -d' ' -f$r) seen=yes clock=klog pconnect=1.3 ptransfer=0.5 psecs=1.8 bytes=134217728"
		echo "sample r=$r cfg=drbd-Cdef wl=rs-full connect=$(echo "0.10 0.20 0.10" | cut -d' ' -f$r) transfer=$(echo "1.92 3.36 1.68" | cut -d' ' -f$r) secs=$(echo "2.02 3.56 1.78" | cut -d' ' -f$r) mibs=1 mbs=$(echo "70 40 80" | cut -d' ' -f$r) mibs_all=1 mbs_all=$(echo "66.44 37.70 75.40" | cut -d' ' -f$r) seen=yes$([ $r = 3 ] || echo " clock=klog pconnect=0.1 ptransfer=2 psecs=2.1")"
		echo "sample r=$r cfg=nm-C wl=rs-app iops=$(echo "140 100 200" | cut -d' ' -f$r) window=2 rs_mibs=$(echo "20 0 15" | cut -d' ' -f$r) rs_clock=klog rs_mib=30 connect=0.9 transfer=1.5 secs=2.4 seen=yes clock=klog pconnect=1.0 ptransfer=1.4 psecs=2.4 done=yes"
		echo "sample r=$r cfg=drbd-Cdef wl=rs-app window=none connect=0.2 transfer=20 secs=20.2 seen=yes clock=poll done=no"
		echo "sample r=$r cfg=nm-C wl=rs-part connect=$(echo "0.42 0.56 0.84" | cut -d' ' -f$r) transfer=$(echo "0.42 0.56 0.84" | cut -d' ' -f$r) secs=$(echo "0.84 1.12 1.68" | cut -d' ' -f$r) mibs=32 mbs=$(echo "40 30 20" | cut -d' ' -f$r) mibs_all=16 mbs_all=$(echo "20 15 10" | cut -d' ' -f$r) seen=yes bytes=16777216"
		if [ $r = 3 ]; then
			echo "sample r=$r cfg=drbd-C wl=rs-part connect=0.84 transfer=0.00 secs=0.84 mibs_all=16 mbs_all=20 seen=no clock=poll bytes=16777216"
		else
			echo "sample r=$r cfg=drbd-C wl=rs-part connect=0.84 transfer=0.84 secs=1.68 mibs=19.07 mbs=20 mibs_all=9.53 mbs_all=10 seen=yes clock=klog pconnect=0.9 ptransfer=0.8 psecs=1.7 bytes=16777216"
		fi
		# NBD: nm-C/bare 0.95 0.833 0.818 (MB/s, fails) and 0.95 0.92 0.99 (IOPS)
		echo "sample r=$r cfg=bare wl=nbd-w1m mbs=$(echo "100 120 110" | cut -d' ' -f$r)"
		echo "sample r=$r cfg=nm-C wl=nbd-w1m mbs=$(echo "95 100 90" | cut -d' ' -f$r)"
		# bare p50 900 against rr4k 100 110 90: bound 0.900 0.891 0.909
		echo "sample r=$r cfg=bare wl=nbd-w4k iops=1000 p50=900"
		echo "sample r=$r cfg=nm-C wl=nbd-w4k iops=$(echo "950 920 990" | cut -d' ' -f$r)"
	done
	echo "sample r=2 cfg=drbd-C wl=rs-full err=timeout"
	echo "noise that is not a record"
	echo "NMLOG: something else"
}

for AWK in "${awks[@]}"; do
	# ---- the report
	samples > "$tmp/s"
	$AWK -f "$lib/bench-report.awk" "$tmp/s" > "$tmp/out" 2> "$tmp/err" || bad "$AWK: report exited non-zero"
	[ -s "$tmp/err" ] && bad "$AWK: report wrote to stderr: $(head -3 "$tmp/err")"
	[ $verbose = 1 ] && { echo "==== $AWK"; cat "$tmp/out"; }
	expect "$tmp/out" \
		"# git abc1234  kernel 6.1.0-test  fio-3.33  2 CPUs  987 MiB" \
		"# 3 rounds, configurations interleaved (order rotated every round); 10 s measured after a 2 s ramp per point" \
		"failed runs:" \
		"  round 3 drbd-B w1m-q1: fio-exit-1" \
		"  round 2 drbd-C rs-full: timeout" \
		"goal full resync >= 90% of min(disk read, link) and >= 3x DRBD's default, application >= 50% of its idle rate during a resync that progresses: FAIL" \
		"  nm-C rs-full transfer MB/s/min(disk read, stream) 0.960 [0.870..1.00] (need >= 0.9: yes); nm-C/drbd-Cdef rs-full transfer MB/s 3.43 [2.50..3.75] (need >= 3: yes)" \
		"  nm-C rs-app IOPS/w4k-q1 IOPS 0.467 [0.303..0.741] (need >= 0.5: no); nm-C resync MiB/s during rs-app 15.0 [0.000..20.0] (need > 0: yes)" \
		"goal NBD export >= 90% of the bare device's: FAIL (the client in this VM: --nbd-remote puts it on the other side, as the goal says)" \
		"  nm-C/bare nbd-w1m MB/s 0.833 [0.818..0.950] (need >= 0.9: no); nm-C/bare nbd-w4k IOPS 0.950 [0.920..0.990] (need >= 0.9: yes)" \
		"  nbd-w4k at QD1 under C: each write adds one request/response, so nm-C/bare <= bare p50 / (bare p50 + rr4k p50) = 0.900 [0.891..0.909]" \
		"nm-C      yes (3/3 rounds)" \
		"drbd-C    NO: differ after round(s) 2 (2/3 equal)" \
		"### nm-C"
	expect_re "$tmp/out" \
		'^IOPS +50000 \[50000\.\.50000\] +- +- +300 \[270\.\.330\] +150 \[100\.\.200\] +- +250 \[200\.\.300\] +- +-$' \
		'^p50 us +11\.0 \[10\.0\.\.12\.0\] +- +- +125 \[120\.\.130\] +300 \[300\.\.300\]' \
		'^request/response 4096 -> 32 B p50 us +100 \[90\.0\.\.110\]$' \
		'^one stream MB/s +230 \[200\.\.250\]$' \
		'^floor of a protocol C 4 KiB write at QD1 = bare w4k-q1 p50 \+ rr4k p50 = 110 \[101\.\.122\] us \(~9091 IOPS\)$' \
		'^  nm-C w4k-q1 p50 125 \[120\.\.130\] us; nm-C/floor 1\.09 \[1\.07\.\.1\.24\]; drbd-C/floor 2\.73 \[2\.46\.\.2\.97\]$' \
		'^nm-C/drbd-C +1\.00 \[1\.00\.\.1\.00\] +1\.80 \[1\.65\.\.3\.00\] +2\.20 \[2\.00\.\.2\.40\] +1\.33 \[1\.27\.\.1\.40\] +-$' \
		'^nm-C/drbd-A +0\.500 \[0\.500\.\.0\.500\] +1\.20 \[1\.10\.\.1\.35\] +- +- +-$' \
		'^nm-C/drbd-C +- +0\.800 \[0\.800\.\.0\.800\] +1\.00 \[0\.500\.\.1\.20\] +- +-$' \
		'^goal C 4 KiB QD1 >= 2x drbd-C and >= drbd-A, or within 15% of the floor: PASS$' \
		'^  nm-C/drbd-C iops 1\.80 \[1\.65\.\.3\.00\] \(need >= 2: no\); nm-C/drbd-A iops 1\.20 \[1\.10\.\.1\.35\] \(need >= 1: yes\); or within 15% of the floor \(bare p50 \+ rr4k p50\): nm-C p50/floor 1\.09 \[1\.07\.\.1\.24\] \(need <= 1\.15: yes\)$' \
		'^goal C 512 B QD1 >= 2x drbd-C and >= drbd-A, or within 15% of the floor: FAIL$' \
		'nm-C p50/floor 2\.00 \[2\.00\.\.2\.00\] \(need <= 1\.15: no\)$' \
		'^goal C 4 KiB random QD32 >= 2x drbd-C, CPU per write <= drbd-C.s: PASS$' \
		'^  nm-C/drbd-C IOPS 2\.20 \[2\.00\.\.2\.40\] \(need >= 2: yes\); nm-C/drbd-C CPU per write 1\.00 \[0\.500\.\.1\.20\] \(need <= 1: yes\)$' \
		'^  rw4k-q32 in this VM: if a C write costs at least bare.s CPU per write \+ one 4 KiB -> 32 B exchange at depth 32 \(rr4kq32_cpu\), no C device exceeds 2 x 1e6 / \(bare cpu \+ rr4kq32_cpu\) = 20000 \[18182\.\.22222\] IOPS$' \
		'^    2x drbd-C / that: 0\.100 \[0\.090\.\.0\.110\]; nm-C / that: 0\.108 \[0\.100\.\.0\.121\]$' \
		'^  with the CPUs only as busy as the exchange kept them: rr4kq32 x rr4kq32_cpu / \(bare cpu \+ rr4kq32_cpu\) = 8100 \[7273\.\.8444\] IOPS$' \
		'^    2x drbd-C / that: 0\.247 \[0\.237\.\.0\.275\]; nm-C / that: 0\.284 \[0\.247\.\.0\.302\]$' \
		'^request/response 4096 -> 32 B, 32 in flight, per s +9000 \[8000\.\.9500\]$' \
		'^request/response 4096 -> 32 B, 32 in flight, CPU us each \(VM\) +90\.0 \[80\.0\.\.100\]$' \
		'^  the same over two connections of 16 \(several data connections\): rr4kq32c2 x rr4kq32c2_cpu / \(bare cpu \+ rr4kq32c2_cpu\) = 10083 \[9000\.\.11000\] IOPS$' \
		'^    2x drbd-C / that: 0\.198 \[0\.182\.\.0\.222\]; nm-C / that: 0\.200 \[0\.198\.\.0\.267\]$' \
		'^request/response 4096 -> 32 B, 32 in flight on two connections, per s +11000 \[10000\.\.12000\]$' \
		'^request/response 4096 -> 32 B, 32 in flight on two connections, CPU us each \(VM\) +110 \[90\.0\.\.110\]$' \
		'^goal C 1 MiB sequential QD1 >= 1\.2x drbd-C and >= 90% of one loopback stream: FAIL$' \
		'^  nm-C/drbd-C MB/s 1\.33 \[1\.27\.\.1\.40\] \(need >= 1\.2: yes\); nm-C/stream MB/s 0\.826 \[0\.800\.\.1\.05\] \(need >= 0\.9: no\)$' \
		'^IOPS +(- +)*60\.0 \[50\.0\.\.70\.0\] n=2( |$)' \
		'^workload +p_peer +p_total +fast_ack% +fast_rx%$' \
		'^w4k-q1 +110/220 +200/300 +90\.0 +100$' \
		'^disk read MB/s \(fio 1 MiB O_DIRECT sequential\) +260 \[150\.\.300\]$' \
		'^nm-C rs-full transfer / min\(disk read, stream\) +0\.960 \[0\.870\.\.1\.00\]$' \
		'^nm-C rs-full incl\. reconnect / min\(disk read, stream\) +0\.397 \[0\.305\.\.0\.644\]$' \
		'^nm-C/drbd-Cdef rs-full MB/s \(transfer\) +3\.43 \[2\.50\.\.3\.75\]$' \
		'^nm-C/drbd-Cdef rs-full MB/s \(incl\. reconnect\) +1\.21 \[1\.15\.\.2\.56\]$' \
		'^nm-C/drbd-C rs-part MB/s \(transfer\) +1\.75 \[1\.50\.\.2\.00\] n=2$' \
		'^nm-C/drbd-C rs-part MB/s \(incl\. reconnect\) +1\.50 \[0\.500\.\.2\.00\]$' \
		'^connect s +0\.800 \[0\.500\.\.1\.20\] +0\.100 \[0\.100\.\.0\.200\]$' \
		'^transfer s +0\.670 \[0\.560\.\.0\.890\] +1\.92 \[1\.68\.\.3\.36\]$' \
		'^total s +1\.47 \[1\.39\.\.1\.76\] +2\.02 \[1\.78\.\.3\.56\]$' \
		'^MiB/s \(transfer\) +191 \[143\.\.229\] +1\.00 \[1\.00\.\.1\.00\]$' \
		'^MiB/s \(incl\. reconnect\) +87\.1 \[72\.7\.\.92\.1\] +1\.00 \[1\.00\.\.1\.00\]$' \
		'^connect s +0\.560 \[0\.420\.\.0\.840\] +0\.840 \[0\.840\.\.0\.840\]$' \
		'^transfer s +0\.560 \[0\.420\.\.0\.840\] +0\.840 \[0\.000\.\.0\.840\]$' \
		'^MiB/s \(transfer\) +32\.0 \[32\.0\.\.32\.0\] +19\.1 \[19\.1\.\.19\.1\] n=2$' \
		'^seen running \(rounds\) +3/3 +2/3$' \
		'^kernel-log clock \(rounds\) +3/3 +2/3$' \
		'^kernel-log clock \(rounds\) +0/3 +2/3$' \
		'^kernel-log clock \(rounds\) +3/3 +0/3$' \
		'^\(s, MiB/s: kernel-log timestamps in the rounds that "kernel-log clock" counts ' \
		'^## transfer: resync started to in sync; incl\. reconnect: trigger to in sync; kernel-log times where there are, else polled\)$' \
		'^IOPS +140 \[100\.\.200\] +n/a$' \
		'^window s +2\.00 \[2\.00\.\.2\.00\] +n/a$' \
		'^total s +2\.40 \[2\.40\.\.2\.40\] +20\.2 \[20\.2\.\.20\.2\]$' \
		'^drbd-Cdef rs-app IOPS / drbd-C w4k-q1 IOPS \(idle\) +n/a$' \
		'^nm-C rs-app IOPS / nm-C w4k-q1 IOPS \(idle\) +0\.467 \[0\.303\.\.0\.741\]$' \
		'^metric +nm-C +drbd-Cdef$' \
		'^resync MiB/s in window +15\.0 \[0\.000\.\.20\.0\] +n/a$' \
		'^nm-C/bare +0\.833 \[0\.818\.\.0\.950\] +0\.950 \[0\.920\.\.0\.990\]$' \
		'^bare nbd/local +- +0\.0200 \[0\.0200\.\.0\.0200\]$|^bare nbd/local +- +0\.020 \[0\.020\.\.0\.020\]$'
	grep -q 'not judged' "$tmp/out" && bad "$AWK: a not-judged NBD line without nbdr-* samples"
	# the QD32 bound needs both the exchange at depth and bare's CPU per
	# write: without the first, neither its rows nor the bound; without the
	# second, the rows but no bound
	grep -v 'rr4kq32' "$tmp/s" > "$tmp/s9"
	$AWK -f "$lib/bench-report.awk" "$tmp/s9" > "$tmp/out9"
	grep -q 'in this VM: if a C write\|32 in flight\|as busy as the exchange' "$tmp/out9" && bad "$AWK: a QD32 bound or depth row without rr4kq32"
	grep -v 'cfg=bare wl=rw4k-q32' "$tmp/s" > "$tmp/s10"
	$AWK -f "$lib/bench-report.awk" "$tmp/s10" > "$tmp/out10"
	grep -q 'in this VM: if a C write\|as busy as the exchange\|over two connections of 16' "$tmp/out10" && bad "$AWK: a QD32 bound without bare's CPU per write"
	expect_re "$tmp/out10" '^request/response 4096 -> 32 B, 32 in flight, per s +9000 '
	# an exchange whose CPU counted as zero gives no bound (no division by it)
	sed 's/rr4kq32_cpu=[0-9.]*/rr4kq32_cpu=0.0/' "$tmp/s" > "$tmp/s11"
	$AWK -f "$lib/bench-report.awk" "$tmp/s11" > "$tmp/out11" 2> "$tmp/err11" || bad "$AWK: report exited non-zero with a zero exchange CPU"
	[ -s "$tmp/err11" ] && bad "$AWK: zero exchange CPU: $(head -2 "$tmp/err11")"
	grep -q 'in this VM: if a C write\|as busy as the exchange' "$tmp/out11" && bad "$AWK: a QD32 bound from a zero exchange CPU"
	# nor one over two connections whose CPU counted as zero
	sed 's/rr4kq32c2_cpu=[0-9.]*/rr4kq32c2_cpu=0.0/' "$tmp/s" > "$tmp/s12"
	$AWK -f "$lib/bench-report.awk" "$tmp/s12" > "$tmp/out12" 2> "$tmp/err12" || bad "$AWK: report exited non-zero with a zero two-connection CPU"
	grep -q 'over two connections of 16' "$tmp/out12" && bad "$AWK: a two-connection bound from a zero exchange CPU"
	expect_re "$tmp/out12" '^  with the CPUs only as busy as the exchange kept them: '
	expect_re "$tmp/out11" '^request/response 4096 -> 32 B, 32 in flight, per s +9000 '
	# ---- the client on the other side (nbdr-*): the goal is judged on it;
	# the client in this VM (nbd-*) printed, not judged.  nbdr: nm-C/bare
	# 0.95 0.90 0.92 (MB/s), 0.91 0.95 0.93 (IOPS): PASS; nbd: 0.5 (fails)
	for r in 1 2 3; do
		echo "sample r=$r cfg=bare wl=nbdr-w1m mbs=100 p50=9000"
		echo "sample r=$r cfg=nm-C wl=nbdr-w1m mbs=$(echo "95 90 92" | cut -d' ' -f$r)"
		echo "sample r=$r cfg=bare wl=nbdr-w4k iops=100 p50=9000"
		echo "sample r=$r cfg=nm-C wl=nbdr-w4k iops=$(echo "91 95 93" | cut -d' ' -f$r)"
		echo "sample r=$r cfg=bare wl=w1m-q1 mbs=200"
		echo "sample r=$r cfg=bare wl=nbd-w1m mbs=100"
		echo "sample r=$r cfg=nm-C wl=nbd-w1m mbs=50"
		echo "sample r=$r cfg=bare wl=nbd-w4k iops=100"
		echo "sample r=$r cfg=nm-C wl=nbd-w4k iops=50"
		# bare nbdr-w4k p50 9000 against rr4k 1000 500 1000: bound 0.900 0.947 0.900
		echo "limit r=$r rr4k=$(echo "1000 500 1000" | cut -d' ' -f$r)"
	done > "$tmp/sr"
	$AWK -f "$lib/bench-report.awk" "$tmp/sr" > "$tmp/outr"
	expect "$tmp/outr" \
		"goal NBD export >= 90% of the bare device's: PASS (the client on the other side)" \
		"  nm-C/bare nbdr-w1m MB/s 0.920 [0.900..0.950] (need >= 0.9: yes); nm-C/bare nbdr-w4k IOPS 0.930 [0.910..0.950] (need >= 0.9: yes)" \
		"  not judged, the client in this VM: nm-C/bare nbd-w1m MB/s 0.500 [0.500..0.500] (need >= 0.9: no); nm-C/bare nbd-w4k IOPS 0.500 [0.500..0.500] (need >= 0.9: no)" \
		"  nbdr-w4k at QD1 under C: each write adds one request/response, so nm-C/bare <= bare p50 / (bare p50 + rr4k p50) = 0.900 [0.900..0.947]"
	# nbd-w4k has no bare p50 in this fixture: no bound line for it
	grep -q '^  nbd-w4k at QD1' "$tmp/outr" && bad "$AWK: an nbd-w4k bound without a bare nbd-w4k p50"
	expect_re "$tmp/outr" '^pair +nbd-w1m +nbd-w4k +nbdr-w1m +nbdr-w4k$' \
		'^nm-C/bare +0\.500 \[0\.500\.\.0\.500\] +0\.500 \[0\.500\.\.0\.500\] +0\.920 \[0\.900\.\.0\.950\] +0\.930 \[0\.910\.\.0\.950\]$' \
		'^bare nbd/local +0\.500 \[0\.500\.\.0\.500\] +- +0\.500 \[0\.500\.\.0\.500\] +-$' \
		'^### nbdr-w1m: through NBD, the client on the other side ' '^metric +bare +nm-C$'
	# nbdr-* alone: judged on it, no in-VM line
	grep -v 'wl=nbd-' "$tmp/sr" > "$tmp/sr2"
	$AWK -f "$lib/bench-report.awk" "$tmp/sr2" > "$tmp/outr2"
	expect_re "$tmp/outr2" '^goal NBD export .*: PASS \(the client on the other side\)$' '^pair +nbdr-w1m +nbdr-w4k$'
	grep -q 'not judged' "$tmp/outr2" && bad "$AWK: a not-judged line without nbd-* samples"
	# the pair order of the table: ratio rows only for configurations present
	grep -q '^nm-Cmac/nm-C' "$tmp/out" && bad "$AWK: a ratio row for an absent configuration"

	# ---- an even number of rounds: the mean of the two middle values
	printf 'sample r=%s cfg=nm-B wl=w4k-q1 iops=%s\n' 1 10 2 40 3 20 4 30 > "$tmp/s4"
	$AWK -f "$lib/bench-report.awk" "$tmp/s4" > "$tmp/out4"
	expect_re "$tmp/out4" '^IOPS +25\.0 \[10\.0\.\.40\.0\]$' '^# 4 rounds'
	# no meta line: the configurations in their default order, all of them
	printf 'sample r=1 cfg=%s wl=w4k-q1 iops=10\n' drbd-C nm-C bare drbd-B nm-Cackthr > "$tmp/s6"
	$AWK -f "$lib/bench-report.awk" "$tmp/s6" > "$tmp/out6"
	expect_re "$tmp/out6" '^metric +bare +nm-C +nm-Cackthr +drbd-B +drbd-C$'
	# no data at all for a goal: n/a, not PASS or FAIL
	expect_re "$tmp/out4" '^goal C 4 KiB QD1 .*: n/a$' '^goal C 1 MiB sequential QD1 .*: n/a$' '^\(no integrity checks recorded\)$' \
		'^goal full resync .*: not measured \(run with --resync\)$' '^goal NBD export .*: not measured \(run with --nbd-remote or --nbd\)$'
	grep -q '^## resync' "$tmp/out4" && bad "$AWK: a resync section without resync samples"
	# resync data but no drbd-Cdef, no w4k-q1: those clauses n/a, not PASS
	printf 'limit r=1 diskread=100 stream=100\nsample r=1 cfg=nm-C wl=rs-full mbs=95\nsample r=1 cfg=nm-C wl=rs-app iops=5 rs_mibs=1\n' > "$tmp/s5"
	$AWK -f "$lib/bench-report.awk" "$tmp/s5" > "$tmp/out5"
	expect_re "$tmp/out5" '^goal full resync .*: n/a$' 'nm-C rs-full transfer MB/s/min\(disk read, stream\) 0\.950 \[0\.950\.\.0\.950\] \(need >= 0\.9: yes\); nm-C/drbd-Cdef rs-full transfer MB/s: no data$'
	# the goal uses the transfer rate: 95 MB/s over the transfer passes,
	# 50 MB/s incl. the reconnect would not; nm-C's rs-app never saw the
	# resync running while the application ran (2 rounds): not measured
	{
		echo "meta rounds=2"
		for r in 1 2; do
			echo "limit r=$r diskread=100 stream=100"
			echo "sample r=$r cfg=nm-C wl=rs-full connect=1 transfer=1 secs=2 mbs=$((80 + 10 * r)) mbs_all=50 seen=yes"
			echo "sample r=$r cfg=drbd-Cdef wl=rs-full connect=0 transfer=4 secs=4 mbs=30 mbs_all=30 seen=yes"
			echo "sample r=$r cfg=nm-C wl=w4k-q1 iops=100"
			echo "sample r=$r cfg=nm-C wl=rs-app window=none connect=5 transfer=1 secs=6 seen=yes done=no"
		done
	} > "$tmp/s6"
	$AWK -f "$lib/bench-report.awk" "$tmp/s6" > "$tmp/out6"
	expect "$tmp/out6" \
		"goal full resync >= 90% of min(disk read, link) and >= 3x DRBD's default, application >= 50% of its idle rate during a resync that progresses: n/a" \
		"  nm-C rs-full transfer MB/s/min(disk read, stream) 0.950 [0.900..1.00] (need >= 0.9: yes); nm-C/drbd-Cdef rs-full transfer MB/s 3.17 [3.00..3.33] (need >= 3: yes)" \
		"  nm-C rs-app IOPS/w4k-q1 IOPS: not measured (the resync was not seen running while the application ran: 2 of 2 rounds); nm-C resync MiB/s during rs-app: not measured"
	expect_re "$tmp/out6" '^IOPS +n/a$' '^nm-C rs-app IOPS / nm-C w4k-q1 IOPS \(idle\) +n/a$' '^connect s +5\.00 \[5\.00\.\.5\.00\]$'

	# ---- the online verify (ov-full), 3 rounds: nm-C 300 200 250 MB/s
	# (286.10 190.73 238.42 MiB/s) against the verify device's read 1000
	# 800 500 MB/s: 0.30 0.25 0.50 (median 0.300), the disk read 600 400
	# 250: 0.5 0.5 1.0 (0.500); drbd-C 143.05 95.37 59.60 MiB/s: nm-C/drbd-C
	# 2.0 2.0 4.0 (2.00).  nm-C round 3 polled (no kernel-log time, no kms):
	# 2/3 by the kernel log, kernel's MiB/s n=2 (mean of the two: 238)
	{
		echo "meta rounds=3 ov_mb=1024 ov_backing=null_blk,memory_backed=1,irqmode=0 configs=nm-C,drbd-C workloads=w4k-q1,ov-full"
		for r in 1 2 3; do
			echo "limit r=$r ovread=$(echo "1000 800 500" | cut -d' ' -f$r) diskread=$(echo "600 400 250" | cut -d' ' -f$r) stream=200"
			echo "sample r=$r cfg=nm-C wl=w4k-q1 iops=100"
			echo "sample r=$r cfg=nm-C wl=ov-full ovsecs=$(echo "3.579 5.369 4.29" | cut -d' ' -f$r) ovmibs=$(echo "286.10 190.73 238.42" | cut -d' ' -f$r) ovmbs=$(echo "300 200 250" | cut -d' ' -f$r)$([ $r = 3 ] || echo " kms=1 kmibs=$(echo "285 191" | cut -d' ' -f$r)") clock=$([ $r = 3 ] && echo poll || echo klog) psecs=4.3 bytes=1073741824 sectors=2097152 total=2097152 diffs=0$([ $r = 3 ] || echo " kdiffs=0")"
			echo "sample r=$r cfg=drbd-C wl=ov-full ovsecs=9 ovmibs=$(echo "143.05 95.37 59.60" | cut -d' ' -f$r) ovmbs=1 clock=klog diffs=0"
		done
	} > "$tmp/s7"
	$AWK -f "$lib/bench-report.awk" "$tmp/s7" > "$tmp/out7" 2> "$tmp/err7" || bad "$AWK: report (ov) exited non-zero"
	[ -s "$tmp/err7" ] && bad "$AWK: report (ov) wrote to stderr: $(head -3 "$tmp/err7")"
	[ $verbose = 1 ] && { echo "==== $AWK (ov)"; cat "$tmp/out7"; }
	expect "$tmp/out7" \
		"# verify (ov-*): 1024 MiB per node on null_blk,memory_backed=1,irqmode=0" \
		"verify differences: none (6 verifies)"
	expect_re "$tmp/out7" \
		'^verify device read MB/s \(fio 1 MiB O_DIRECT sequential\) +800 \[500\.\.1000\]$' \
		'^### ov-full: online verify of the whole device ' \
		'^metric +nm-C +drbd-C$' \
		'^verify MiB/s +238 \[191\.\.286\] +95\.4 \[59\.6\.\.143\]$' \
		'^verify s +4\.29 \[3\.58\.\.5\.37\] +9\.00 \[9\.00\.\.9\.00\]$' \
		"^MiB/s \\(kernel's ms\\) +238 \\[191\\.\\.285\\] n=2 +-$" \
		'^blocks differing +0 \(3/3 rounds with none\) +0 \(3/3 rounds with none\)$' \
		'^kernel-log clock \(rounds\) +2/3 +3/3$' \
		'^nm-C ov-full MB/s / verify device read MB/s +0\.300 \[0\.250\.\.0\.500\]$' \
		'^nm-C ov-full MB/s / disk read MB/s +0\.500 \[0\.500\.\.1\.00\]$' \
		'^nm-C/drbd-C ov-full MiB/s +2\.00 \[2\.00\.\.4\.00\]$' \
		'^\(MiB/s = bytes compared / verify s; '
	# the verify is not in the write ratio tables
	grep -q '^pair .*ov-full' "$tmp/out7" && bad "$AWK: ov-full in a ratio table"
	# blocks found differing (the two copies are equal): an error, in the
	# report and in its failed runs; a verify that failed has no values
	{
		echo "meta rounds=4"
		echo "sample r=1 cfg=nm-C wl=ov-full ovsecs=4 ovmibs=256 ovmbs=268 clock=klog diffs=0 kdiffs=0"
		echo "sample r=2 cfg=nm-C wl=ov-full ovsecs=4 ovmibs=256 ovmbs=268 clock=klog diffs=5 kdiffs=5 err=diffs-5"
		echo "sample r=3 cfg=nm-C wl=ov-full ovsecs=4 ovmibs=256 ovmbs=268 clock=klog diffs=0 kdiffs=2 err=logged-diffs-2"
		echo "sample r=4 cfg=nm-C wl=ov-full err=not-connected"
	} > "$tmp/s8"
	$AWK -f "$lib/bench-report.awk" "$tmp/s8" > "$tmp/out8"
	expect "$tmp/out8" \
		"verify differences: ERROR: the two copies are equal, the verify must find none" \
		"  nm-C round 2: 5 blocks differ (status 5, log 5)" \
		"  nm-C round 3: 2 blocks differ (status 0, log 2)" \
		"  round 2 nm-C ov-full: diffs-5" \
		"  round 4 nm-C ov-full: not-connected"
	expect_re "$tmp/out8" '^blocks differing +5 \(2/3 rounds with none\)$' '^verify MiB/s +256 \[256\.\.256\] n=3$'
	grep -q '^verify differences: none' "$tmp/out8" && bad "$AWK: differences reported as none"

	# ---- one fio run (fixtures: fio 3.33's JSON, the fio of the guest image)
	snap="100 1000 50 10.0 600 3000 5050 20.0"
	for f in "$fix"/fio-3.33-*.json; do
		o=$($AWK -v snap="$snap" -v ncpu=2 -f "$lib/bench-fio.awk" "$f")
		case $(basename "$f") in
		*rw4k-q32*) want="iops=1998.0 mbs=8.19 p50=0.7 p99=7.1 p999=21.4 mean=1.2 ios=2000 cpu=250.3 ctx=0.25" ;;
		*w1m-q1*) want="iops=50.0 mbs=52.43 p50=305.2 p99=544.8 p999=544.8 mean=330.8 ios=50 cpu=10000.0 ctx=10.00" ;;
		*w4k-dsync*) want="iops=501.0 mbs=2.05 p50=346.1 p99=4489.2 p999=7045.1 mean=751.5 ios=501 cpu=998.0 ctx=1.00" ;;
		esac
		if [ "$o" = "$want" ]; then ok; else bad "$AWK: $(basename "$f"): got '$o', want '$want'"; fi
	done
	# busy 1000 of 2000 jiffies on 2 CPUs (one CPU busy) at 501 IOPS:
	# 1996 us per write; 5010 switches in 10 s: 1 per write
	f=$fix/fio-3.33-w4k-dsync.json
	o=$($AWK -v snap="0 0 0 0 1000 2000 5010 10" -v ncpu=2 -f "$lib/bench-fio.awk" "$f")
	case $o in *" cpu=1996.0 ctx=1.00") ok ;; *) bad "$AWK: cpu per write: $o" ;; esac
	# the same arithmetic without JSON (bench.sh's depth-32 exchange):
	# one CPU busy of 2 at 501 operations/s; no figure without time passed
	o=$($AWK -v snap="0 0 0 0 1000 2000 5010 10" -v ncpu=2 -v rate=501 -f "$lib/bench-fio.awk" < /dev/null)
	[ "$o" = "1996.0" ] && ok || bad "$AWK: cpu per operation: '$o'"
	o=$($AWK -v snap="0 0 0 0 0 0 0 0" -v ncpu=2 -v rate=501 -f "$lib/bench-fio.awk" < /dev/null)
	[ -z "$o" ] && ok || bad "$AWK: cpu per operation without time: '$o'"
	o=$($AWK -v snap="0 0 0 0 0 2000 0 10" -v ncpu=2 -v rate=501 -f "$lib/bench-fio.awk" < /dev/null)
	[ -z "$o" ] && ok || bad "$AWK: cpu per operation without busy time: '$o'"
	# without snapshots: no cpu/ctx; with fio's notes before the JSON: parsed anyway
	o=$( { echo "note: both iodepth >= 1 and synchronous I/O engine are selected, queue depth will be capped at 1"; cat "$f"; } |
		$AWK -f "$lib/bench-fio.awk")
	[ "$o" = "iops=501.0 mbs=2.05 p50=346.1 p99=4489.2 p999=7045.1 mean=751.5 ios=501" ] && ok || bad "$AWK: fio JSON after a note: $o"
	# fio's error, no job, no writes
	o=$(sed 's/"error" : 0,/"error" : 5,/' "$f" | $AWK -f "$lib/bench-fio.awk")
	case $o in "err=5 "*) ok ;; *) bad "$AWK: fio error: $o" ;; esac
	o=$(echo '{ "fio version" : "fio-3.33" }' | $AWK -f "$lib/bench-fio.awk")
	[ "$o" = "err=nojob" ] && ok || bad "$AWK: no job: $o"
	o=$(sed 's/"total_ios" : 501,/"total_ios" : 0,/' "$f" | $AWK -f "$lib/bench-fio.awk")
	case $o in *err=nowrites*) ok ;; *) bad "$AWK: no writes: $o" ;; esac
done

# ---- benchlib.sh (sh functions; awk inside is the first one found in PATH)
. "$lib/benchlib.sh"
AWK=benchlib
g=$(bench_groups "$BENCH_CONFIGS")
[ "$g" = "bare nm-disc,drbd-disc nm-C,drbd-C nm-A,drbd-A nm-B,drbd-B" ] && ok || bad "bench_groups: $g"
g2=$(bench_groups "nm-C drbd-C nm-Cmac bare")
[ "$g2" = "bare nm-C,drbd-C nm-Cmac" ] && ok || bad "bench_groups subset: $g2"
o=$(bench_round_order 1 "$g" | tr '\n' ' ')
[ "$o" = "bare nm-disc drbd-disc nm-C drbd-C nm-A drbd-A nm-B drbd-B " ] && ok || bad "round 1 order: $o"
o=$(bench_round_order 2 "$g" | tr '\n' ' ')
[ "$o" = "drbd-disc nm-disc drbd-C nm-C drbd-A nm-A drbd-B nm-B bare " ] && ok || bad "round 2 order: $o"
o=$(bench_round_order 3 "$g" | tr "\n" " ")
[ "$o" = "nm-C drbd-C nm-A drbd-A nm-B drbd-B bare nm-disc drbd-disc " ] && ok || bad "round 3 order: $o"
# every config exactly once per round, for rounds 1..10
for r in 1 2 3 4 5 6 7 8 9 10; do
	o=$(bench_round_order $r "$g" | sort | tr '\n' ' ')
	[ "$o" = "$(echo "$BENCH_CONFIGS" | tr ' ' '\n' | sort | tr '\n' ' ')" ] && ok || bad "round $r: $o"
done
o=$(bench_select "$BENCH_WORKLOADS" "w4k-q1,w1m-q1 bogus")
[ "$o" = "w4k-q1 w1m-q1" ] && ok || bad "bench_select: $o"
o=$(bench_select "$BENCH_WORKLOADS" "")
[ "$o" = "$BENCH_WORKLOADS" ] && ok || bad "bench_select all: $o"
for w in $BENCH_ALL_WORKLOADS; do bench_fio_args "$w" >/dev/null && ok || bad "bench_fio_args $w"; done
bench_fio_args nope >/dev/null && bad "bench_fio_args accepted nope" || ok
# default run: 90 + 7 x (45 x 12 + 67 + 45 + 5) s
e=$(bench_estimate 7 10 2 "$BENCH_CONFIGS" "$BENCH_WORKLOADS")
[ "$e" = 4689 ] && ok || bad "estimate: $e"
# --resync, 1 round, nm-C drbd-C drbd-Cdef: fio w4k-q1 on nm-C and drbd-C
# (2 x 27 half-s), rs-full 16+16+50, rs-part 16+16+20, rs-app 40+40+90
# half-s: 358 / 2 = 179, + 15 + 5 + 3 (the disk read), + 90
e=$(bench_estimate 1 10 2 "nm-C drbd-C drbd-Cdef" "w4k-q1 $BENCH_RESYNC")
[ "$e" = 292 ] && ok || bad "estimate --resync: $e"
# --nbd on bare and nm-Cmac: nbd points only on bare (2 x 27 + 20 half-s)
e=$(bench_estimate 1 10 2 "bare nm-Cmac" "$BENCH_NBD")
[ "$e" = 142 ] && ok || bad "estimate --nbd: $e"
# --nbd-remote: as --nbd (2 x 27 + 20 half-s on bare)
e=$(bench_estimate 1 10 2 "bare nm-Cmac" "$BENCH_NBDR")
[ "$e" = 142 ] && ok || bad "estimate --nbd-remote: $e"
# both kinds on bare: 4 x 27 + 2 x 20 half-s: 74 + 5 + 5 + 90
e=$(bench_estimate 1 10 2 "bare" "$BENCH_NBD $BENCH_NBDR")
[ "$e" = 174 ] && ok || bad "estimate --nbd --nbd-remote: $e"
for p in nm-C/rs-full drbd-Cdef/rs-app bare/nbd-w1m drbd-C/nbd-w4k nm-Crxthr/nbd-w1m bare/nbdr-w1m nm-C/nbdr-w4k drbd-C/nbdr-w1m nm-A/w4k-q1 nm-C/ov-full drbd-C/ov-full; do
	bench_applies "${p%/*}" "${p#*/}" && ok || bad "bench_applies $p"
done
for p in nm-A/rs-full bare/rs-part drbd-Cdef/w4k-q1 drbd-Cdef/nbd-w1m nm-disc/nbd-w4k nm-A/nbdr-w1m drbd-Cdef/nbdr-w4k bare/ov-full nm-A/ov-full drbd-A/ov-full drbd-Cdef/ov-full; do
	bench_applies "${p%/*}" "${p#*/}" && bad "bench_applies $p" || ok
done
o=$(bench_want_workloads "" 1 1)
[ "$o" = "$BENCH_WORKLOADS $BENCH_RESYNC $BENCH_NBD" ] && ok || bad "bench_want_workloads: $o"
[ "$(bench_want_workloads "w4k-q1,rs-app" 0 1)" = "w4k-q1,rs-app" ] && ok || bad "bench_want_workloads with a list"
o=$(bench_want_workloads "" 0 0 1)
[ "$o" = "$BENCH_WORKLOADS $BENCH_VERIFY" ] && ok || bad "bench_want_workloads --verify: $o"
o=$(bench_want_workloads "" 1 1 1)
[ "$o" = "$BENCH_WORKLOADS $BENCH_RESYNC $BENCH_NBD $BENCH_VERIFY" ] && ok || bad "bench_want_workloads all: $o"
o=$(bench_want_workloads "" 0 0 0 1)
[ "$o" = "$BENCH_WORKLOADS $BENCH_NBDR" ] && ok || bad "bench_want_workloads --nbd-remote: $o"
[ "$(bench_select "$BENCH_ALL_WORKLOADS" "$(bench_want_workloads "" 0 1 0 1)")" = "$BENCH_WORKLOADS nbd-w1m nbd-w4k nbdr-w1m nbdr-w4k" ] && ok || bad "select --nbd --nbd-remote"
[ "$(bench_select "$BENCH_ALL_WORKLOADS" "$(bench_want_workloads "" 0 0 1)")" = "$BENCH_WORKLOADS ov-full" ] && ok || bad "select --verify"
# --verify, 1 round, nm-C drbd-C: w4k-q1 on both (2 x 27 half-s), ov-full
# on both (70 + 100 half-s): 224 / 2 = 112, + 10 + 5 + 3 (its read
# limit), + 90 + 40 (filling its devices)
e=$(bench_estimate 1 10 2 "nm-C drbd-C" "w4k-q1 ov-full")
[ "$e" = 260 ] && ok || bad "estimate --verify: $e"
# ov-full selected but on no configuration of the run: no verify costs
# (90 + 27 / 2 + 5 + 5)
e=$(bench_estimate 1 10 2 "nm-A" "w4k-q1 ov-full")
[ "$e" = 113 ] && ok || bad "estimate ov-full without nm-C: $e"

echo "test-report: ${awks[*]}: $pass passed, $failn failed"
[ $failn = 0 ]
