#!/bin/bash
# shellcheck disable=SC2015
# Host-side dry run of the benchmark's guest script, no VM: runs
# tests/vm/tools/bench.sh under busybox sh (the guest's shell: the host's
# busybox is the one the VM image copies) with every device, module and
# network command replaced by a stub (fio copies a fio 3.33 JSON fixture),
# and checks the flow: rounds and their order, one sample per configuration
# and workload, the fio options, the integrity records and checks, the stage
# records, the null_blk configfs setup, the report at the end.  What it
# cannot check: everything the stubs stand for (see tests/bench/README.md).
#
#   tests/bench/test-flow.sh [-v]     -v: print the guest's console output
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
verbose=0
[ "${1:-}" = -v ] && verbose=1
busybox sh -c 'exit 0' 2>/dev/null || { echo "test-flow: no busybox: skipped"; exit 0; }
pass=0 failn=0
ok() { pass=$((pass + 1)); }
bad() { failn=$((failn + 1)); echo "FAIL: $*"; }
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
mkdir -p "$t/tests" "$t/cfg" "$t/tmp" "$t/sys/block/ram0" "$t/sys/block/dm-0" "$t/sys/block/drbd0"
# block device counters (field 5: writes completed) and the clock
for d in ram0 dm-0 drbd0; do echo "1 0 8 0 500 0 4000 0 0 0 0" > "$t/sys/block/$d/stat"; done
echo "100.00 50.00" > "$t/uptime"
cp "$top"/tests/vm/guest-lib/bench* "$t/tests/"
# the guest's absolute paths, into the sandbox
sed -e "s#/tmp/#$t/tmp/#g" -e "s#/tests/#$t/tests/#g" -e "s#^DRBDSETUP=.*#DRBDSETUP=drbdsetup_stub#" \
	-e "s#/proc/drbd#$t/procdrbd#g" -e "s#/proc/uptime#$t/uptime#g" -e "s#/sys/block/#$t/sys/block/#g" -e "s#^\\. $t/tests/nmlib.sh#:#" -e "s#^NL_CFG=.*#NL_CFG=$t/cfg#" \
	"$top/tests/vm/tools/bench.sh" > "$t/tests/bench.sh"
cat > "$t/procdrbd" <<'EOF'
version: 8.4.11 (api:1/proto:86-101)
srcversion: 0123456789ABCDEF
 0: cs:Connected ro:Primary/Secondary ds:UpToDate/UpToDate C r-----
    ns:100 nr:0 dw:100 dr:0 al:1 bm:0 lo:0 pe:0 ua:0 ap:0 ep:1 wo:f oos:0
 1: cs:Connected ro:Secondary/Primary ds:UpToDate/UpToDate C r-----
    ns:0 nr:100 dw:100 dr:0 al:0 bm:0 lo:0 pe:0 ua:0 ap:0 ep:1 wo:f oos:0
EOF
# nbd-server and nbd-client: not shell function names, so commands in PATH
mkdir -p "$t/bin"
cat > "$t/bin/nbd-server" <<EOF
#!/bin/sh
echo "nbd-server \$*" >> $t/calls
[ "\$3" = -p ] && echo 4242 > "\$4"
exit 0
EOF
cat > "$t/bin/nbd-client" <<EOF
#!/bin/sh
echo "nbd-client \$*" >> $t/calls
EOF
chmod +x "$t/bin/nbd-server" "$t/bin/nbd-client"
cat > "$t/stubs.sh" <<EOF
PATH=$t/bin:\$PATH
FIX=$top/tests/bench/fixtures
T=$t
EOF
cat >> "$t/stubs.sh" <<'EOF'
# lib.sh / nmlib.sh
log() { echo "NMLOG: $*"; }
fail() { echo "FAIL: $*" >&2; exit 1; }
check_ok() { echo "NMCHECK: PASS $1"; }
check_bad() { echo "NMCHECK: FAIL $1: $2"; }
wait_for() { :; }
wait_eval() { eval "$1"; }
load_netmirror() { :; }
brd_setup() { echo "brd_setup $*" >> $T/calls; }
dev_size() { case $1 in /dev/drbd0) echo 133136384 ;; *) echo 134217728 ;; esac; }
nm_local_pair() { echo "nm_local_pair $*" >> $T/calls; }
nm_local_unpair() { echo "nm_local_unpair" >> $T/calls; }
nm_status() { case $2 in connection) echo standalone ;; pending) echo 0 ;; esac; }
DD=true HEAD=head MD5SUM=md5sum
# /tests/nm-status-fields.sh (generated from nm_params.h)
NM_SF_role=0 NM_SF_connection=1 NM_SF_disks=2 NM_SF_regions=3 NM_SF_pending=6 NM_SF_resync_bytes=13
pidof() { return 1; }
# the machine
sleep() { :; }
modprobe() { :; }
mount() { :; }
drbdmeta() { :; }
nmhostile() { echo "nmhostile $*" >> $T/calls; }
drbdsetup_stub() {
	echo "drbdsetup $*" >> $T/calls
	case $1 in cstate) echo Connected ;; dstate) echo UpToDate/UpToDate ;; esac
}
dmsetup() {
	echo "dmsetup $*" >> $T/calls
	case "$1 $4" in
	"info "*) echo "  0" ;;
	"message latency") printf 'p_queue count=10 p50_us=5 p90_us=6 p99_us=7 max_us=8\ns_ack count=0\n' ;;
	"status "*) echo "0 262144 netmirror primary connected uptodate/uptodate 256/256 1 0 0 1 1 0 - 0 0 0 - running" ;;
	esac
	return 0
}
tcprr() {
	case $1 in
	rr) echo "tcprr: rr req=4096 resp=32 count=1800 p50_us=120 p99_us=300 mean_us=130 tps=7000" ;;
	stream) echo "tcprr: stream bytes=268435456 chunk=1048576 mb_s=180.5" ;;
	esac
}
fio() {
	local a out name
	for a in "$@"; do
		case $a in --output=*) out=${a#--output=} ;; --name=*) name=${a#--name=} ;; --version) echo fio-3.33; return 0 ;; esac
	done
	echo "fio $*" >> $T/calls
	case $name in
	rw4k-q32) cp $FIX/fio-3.33-rw4k-q32.json "$out" ;;
	w1m-q1) cp $FIX/fio-3.33-w1m-q1.json "$out" ;;
	*) cp $FIX/fio-3.33-w4k-dsync.json "$out" ;;
	esac
}
EOF

# run ENV...: the guest script with these nm_bench_* settings
run() {
	rm -f "$t/calls" "$t"/tmp/*
	env "$@" busybox sh -c ". $t/stubs.sh; . $t/tests/bench.sh" > "$t/out" 2> "$t/err"
	rc=$?
	[ $verbose = 1 ] && cat "$t/out"
	[ $rc = 0 ] && ok || bad "$*: exit $rc: $(head -3 "$t/err")"
	[ -s "$t/err" ] && bad "$*: stderr: $(head -3 "$t/err")" || ok
}
count() { grep -c -- "$1" "$2"; }
want() { # WHAT GOT WANT
	[ "$2" = "$3" ] && ok || bad "$1: got '$2', want '$3'"
}

# ---- the default matrix, 2 rounds
run nm_bench_rounds=2 nm_bench_git=abc
want "samples" "$(count '^NMLOG: bench sample ' "$t/out")" 90
want "samples without err" "$(grep '^NMLOG: bench sample ' "$t/out" | grep -c -v 'err=')" 90
want "limit records" "$(count '^NMLOG: bench limit r=' "$t/out")" 2
want "integrity records" "$(count '^NMLOG: bench integrity r=[12] cfg=\(nm\|drbd\)-[ABC] ok=yes$' "$t/out")" 12
want "integrity checks" "$(count '^NMCHECK: PASS integrity/' "$t/out")" 12
want "failed checks" "$(count '^NMCHECK: FAIL' "$t/out")" 0
# stage records: 4 netmirror configs x 5 workloads x 2 rounds, p_queue of
# nma (and of nmb for the 3 pairs), s_ack has count=0
want "stage records" "$(count '^NMLOG: bench stage .* name=p_queue count=10 p50=5 p90=6 p99=7 max=8$' "$t/out")" $(((1 + 3 * 2) * 5 * 2))
want "round 1 order" "$(sed -n 's/^NMLOG: bench round 1 of 2: \(.*\) (uptime.*/\1/p' "$t/out")" "bare nm-disc drbd-disc nm-C drbd-C nm-A drbd-A nm-B drbd-B"
want "round 2 order" "$(sed -n 's/^NMLOG: bench round 2 of 2: \(.*\) (uptime.*/\1/p' "$t/out")" "drbd-disc nm-disc drbd-C nm-C drbd-A nm-A drbd-B nm-B bare"
want "fio runs" "$(count '^fio ' "$t/calls")" 90
want "rw4k-q32 options" "$(grep -c -- '^fio --name=rw4k-q32 --filename=[^ ]* --rw=randwrite --bs=4k --ioengine=libaio --iodepth=32 --direct=1 --time_based=1 --runtime=10 --ramp_time=2 ' "$t/calls")" 18
want "dsync options" "$(grep -c -- '--name=w4k-dsync .*--sync=dsync' "$t/calls")" 18
want "data option" "$(grep -c -- "--refill_buffers=0 --scramble_buffers=1 --output=$t/tmp/fio.json\$" "$t/calls")" 90
want "devices" "$(sed -n 's/^fio --name=w4k-q1 --filename=\([^ ]*\) .*/\1/p' "$t/calls" | sort | uniq -c | tr -s ' ' | tr '\n' ';')" " 8 /dev/drbd0; 6 /dev/mapper/nma; 2 /dev/mapper/nmd; 2 /dev/ram0;"
want "pairs" "$(grep -c '^nm_local_pair [ABC] flush 262144 /dev/ram0 /dev/ram1 meta /dev/ram4 meta /dev/ram5$' "$t/calls")" 6
want "nmd table" "$(grep -c '^dmsetup create nmd --table 0 262144 netmirror /dev/ram0 127.0.0.1:7799 C flush 6 role primary listen 127.0.0.1:7798 meta /dev/ram4$' "$t/calls")" 2
want "nmd standalone" "$(grep -c '^dmsetup message nmd 0 disconnect$' "$t/calls")" 2
want "drbd connects" "$(grep -c '^drbdsetup connect r0 .* --protocol=[ABC]$' "$t/calls")" 7
want "brd" "$(grep '^brd_setup' "$t/calls")" "brd_setup 128 6"
want "meta record" "$(grep -c '^NMLOG: bench meta git=abc .* backing=brd size_mb=128 meta=yes data=scramble rounds=2 time=10 ramp=2 configs=bare,nm-disc,drbd-disc,nm-C,drbd-C,nm-A,drbd-A,nm-B,drbd-B workloads=w512-q1,w4k-q1,rw4k-q32,w1m-q1,w4k-dsync$' "$t/out")" 1
want "report" "$(grep -c '^NMBENCH: ## goals' "$t/out")" 1
want "report integrity" "$(grep -c '^NMBENCH: nm-C *yes (2/2 rounds)$' "$t/out")" 1

# ---- a subset on null_blk with a cache, with nm-Cmac, no metadata, refill
run nm_bench_rounds=1 nm_bench_backing=nullb-cache nm_bench_configs=bare,nm-C,drbd-C nm_bench_cmac=1 \
	nm_bench_workloads=w4k-q1,w1m-q1 nm_bench_meta=0 nm_bench_data=refill nm_bench_time=3 nm_bench_ramp=1
want "subset samples" "$(count '^NMLOG: bench sample ' "$t/out")" 8
want "subset order" "$(sed -n 's/^NMLOG: bench round 1 of 1: \(.*\) (uptime.*/\1/p' "$t/out")" "bare nm-C drbd-C nm-Cmac"
want "nullb attributes" "$(cd "$t/cfg" && for f in nlb0/* nlb4/size; do echo "$f=$(cat "$f")"; done | tr '\n' ' ')" \
	"nlb0/blocksize=512 nlb0/cache_size=16 nlb0/completion_nsec=20000 nlb0/irqmode=2 nlb0/memory_backed=1 nlb0/power=1 nlb0/size=128 nlb4/size=8 "
want "Cmac pair" "$(grep -c '^nm_local_pair C flush 262144 /dev/nlb0 /dev/nlb1  secret nm:bench  secret nm:bench$' "$t/calls")" 1
want "refill" "$(grep -c -- '--runtime=3 --ramp_time=1 .*--refill_buffers=1 --output' "$t/calls")" 8
want "key" "$(grep -c '^nmhostile addkey nm:bench' "$t/calls")" 1

# ---- resync and NBD workloads (--resync --nbd), one round
run nm_bench_rounds=1 nm_bench_resync=1 nm_bench_nbd=1 nm_bench_configs=bare,nm-C,drbd-C,drbd-Cdef \
	nm_bench_workloads=w4k-q1,rs-full,rs-part,rs-app,nbd-w1m,nbd-w4k nm_bench_time=3 nm_bench_ramp=1
want "rs order" "$(sed -n 's/^NMLOG: bench round 1 of 1: \(.*\) (uptime.*/\1/p' "$t/out")" "bare nm-C drbd-C drbd-Cdef"
want "rs-full samples" "$(grep -c '^NMLOG: bench sample r=1 cfg=\(nm-C\|drbd-C\|drbd-Cdef\) wl=rs-full secs=0.01 mibs=[0-9.]* mbs=[0-9.]* bytes=[0-9]*' "$t/out")" 3
want "rs-part samples" "$(grep -c '^NMLOG: bench sample r=1 cfg=\(nm-C\|drbd-C\|drbd-Cdef\) wl=rs-part secs=.* wmib=16$' "$t/out")" 3
want "rs-app samples" "$(grep -c '^NMLOG: bench sample r=1 cfg=\(nm-C\|drbd-C\|drbd-Cdef\) wl=rs-app iops=[0-9.]* window=[0-9.]* rs_mibs=[0-9.]* rs_mib=[0-9.]* secs=[0-9.]* done=yes app_iops_all=501.0$' "$t/out")" 3
want "nbd samples" "$(grep -c '^NMLOG: bench sample r=1 cfg=\(bare\|nm-C\|drbd-C\) wl=nbd-w[14][mk] iops=' "$t/out")" 6
want "no rs/nbd elsewhere" "$(grep -c 'cfg=bare wl=rs-\|cfg=drbd-Cdef wl=\(nbd\|w4k\)' "$t/out")" 0
want "w4k-q1 samples" "$(grep -c 'wl=w4k-q1 iops=' "$t/out")" 3
want "all samples" "$(count '^NMLOG: bench sample ' "$t/out")" 18
want "integrity" "$(count '^NMCHECK: PASS integrity/' "$t/out")" 3
want "failed checks" "$(count '^NMCHECK: FAIL' "$t/out")" 0
want "disk read limit" "$(grep -c '^NMLOG: bench limit r=1 diskread=[0-9.]* rr4k=' "$t/out")" 1
want "diskread fio" "$(grep -c -- '^fio --name=diskread --filename=/dev/ram0 --rw=read --bs=1m ' "$t/calls")" 1
want "invalidate" "$(grep -c '^dmsetup message nmb 0 invalidate$' "$t/calls") $(grep -c '^drbdsetup invalidate 1$' "$t/calls")" "2 4"
want "nm reconnect" "$(grep -c '^dmsetup message nmb 0 disconnect$' "$t/calls") $(grep -c '^dmsetup message nmb 0 connect$' "$t/calls")" "1 1"
want "drbd defaults" "$(grep -c '^drbdsetup disk-options [01] --set-defaults$' "$t/calls") $(grep -c '^drbdsetup disk-options [01] --c-plan-ahead=0 --resync-rate=4194304$' "$t/calls")" "2 2"
want "rs-part fio" "$(grep -c -- '^fio --name=rs-part --filename=\(/dev/mapper/nma\|/dev/drbd0\) --rw=randwrite --bs=64k --ioengine=psync --iodepth=1 --randseed=4242 --io_size=16m ' "$t/calls")" 3
want "rs-app fio" "$(grep -c -- '^fio --name=rs-app .*--rw=write --bs=4k --ioengine=psync --iodepth=1 --direct=1 --time_based=1 --runtime=4 ' "$t/calls")" 3
want "nbd fio" "$(grep -c -- '^fio --name=nbd-w[14][mk] --filename=/dev/nbd0 ' "$t/calls")" 6
want "nbd servers" "$(grep -c "^nbd-server -C $t/tmp/nbd.conf -p $t/tmp/nbd.pid\$" "$t/calls") $(grep -c '^nbd-client 127.0.0.1 7810 /dev/nbd0 -N bench$' "$t/calls") $(grep -c '^nbd-client -d /dev/nbd0$' "$t/calls")" "3 3 3"
want "report goals" "$(grep -c '^NMBENCH: goal \(full resync\|NBD export\).*: \(PASS\|FAIL\|n/a\)$' "$t/out")" 2

# ---- bad settings fail early
run_bad() {
	if ! env "$@" busybox sh -c ". $t/stubs.sh; . $t/tests/bench.sh" > "$t/out" 2> "$t/err" &&
		grep -q '^FAIL: bench: ' "$t/err"; then
		ok
	else
		bad "$* was accepted"
	fi
}
run_bad nm_bench_rounds=x
run_bad nm_bench_rounds=0
run_bad nm_bench_backing=tape
run_bad nm_bench_data=zero
run_bad nm_bench_configs=nothing
run_bad nm_bench_workloads=r4k

echo "test-flow: $pass passed, $failn failed"
[ $failn = 0 ]
