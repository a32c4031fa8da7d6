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
trap '[ -n "${KEEP:-}" ] || rm -rf "$t"' EXIT
mkdir -p "$t/tests" "$t/cfg" "$t/tmp" "$t/printk" "$t/sys/block/ram0" "$t/sys/block/dm-0" "$t/sys/block/drbd0"
# block device counters (field 5: writes completed) and the clock
for d in ram0 dm-0 drbd0; do echo "1 0 8 0 500 0 4000 0 0 0 0" > "$t/sys/block/$d/stat"; done
# ov-full's DRBD minor 2: its size in sectors (a Secondary cannot be opened)
mkdir -p "$t/sys/block/drbd2"
echo 2097152 > "$t/sys/block/drbd2/size"
echo "100.00 50.00" > "$t/uptime"
echo N > "$t/printk/time"
cp "$top"/tests/vm/guest-lib/bench* "$t/tests/"
# the guest's absolute paths, into the sandbox
sed -e "s#/tmp/#$t/tmp/#g" -e "s#/tests/#$t/tests/#g" -e "s#^DRBDSETUP=.*#DRBDSETUP=drbdsetup_stub#" \
	-e "s#/proc/drbd#$t/procdrbd#g" -e "s#/proc/uptime#$t/uptime#g" -e "s#/sys/block/#$t/sys/block/#g" -e "s#/dev/kmsg#$t/tmp/kmsg#g" -e "s#/sys/module/printk/parameters/#$t/printk/#g" -e "s#^\\. $t/tests/nmlib.sh#:#" -e "s#^NL_CFG=.*#NL_CFG=$t/cfg#" \
	"$top/tests/vm/tools/bench.sh" > "$t/tests/bench.sh"
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
DB=ipv4:127.0.0.1:7801
EOF
cat >> "$t/stubs.sh" <<'EOF'
# ---- the clock and the resync: the stubbed sleep advances /proc/uptime
# (and every device's write counter: 1000 writes/s); a trigger (nmb's
# invalidate or connect, DRBD's invalidate 1 or connect r1) starts a resync
# that reconnects for NMS_CONNECT_CS (default 30) cs, runs (sync_source/
# sync_target, SyncSource/SyncTarget) for NMS_TRANSFER_CS (default 50) cs,
# then is over (connected, uptodate/uptodate, all regions in sync); nmb's
# or DRBD's disconnect until the next trigger: disconnected, 160 of nma's
# 256 regions (80 MiB) and 16 MiB of DRBD's minor 0 out of sync
clock_cs() {
	local u
	read -r u _ < $T/uptime
	echo "${u%.*}${u#*.}"
}
rs_phase() {
	local d
	[ -e $T/tmp/disc ] && { echo disc; return 0; }
	[ -s $T/tmp/rs_t0 ] || { echo done; return 0; }
	d=$(( $(clock_cs) - $(cat $T/tmp/rs_t0) ))
	if [ $d -lt "${NMS_CONNECT_CS:-30}" ]; then echo conn
	elif [ $d -lt $(( ${NMS_CONNECT_CS:-30} + ${NMS_TRANSFER_CS:-50} )) ]; then echo sync
	else echo done; fi
}
drbd_write() {
	local a b oos=0 oos0
	case $(rs_phase) in
	disc) a="StandAlone ro:Primary/Unknown ds:UpToDate/DUnknown" b="StandAlone ro:Secondary/Unknown ds:UpToDate/DUnknown" oos0=16384 ;;
	conn) a="WFConnection ro:Primary/Unknown ds:UpToDate/DUnknown" b="WFConnection ro:Secondary/Unknown ds:Inconsistent/DUnknown" ;;
	sync) a="SyncSource ro:Primary/Secondary ds:UpToDate/Inconsistent" b="SyncTarget ro:Secondary/Primary ds:Inconsistent/UpToDate" oos=65008 ;;
	*) a="Connected ro:Primary/Secondary ds:UpToDate/UpToDate" b="Connected ro:Secondary/Primary ds:UpToDate/UpToDate" ;;
	esac
	{
		echo "version: 8.4.11 (api:1/proto:86-101)"
		echo "srcversion: 0123456789ABCDEF"
		echo " 0: cs:$a C r-----"
		echo "    ns:100 nr:0 dw:100 dr:0 al:1 bm:0 lo:0 pe:0 ua:0 ap:0 ep:1 wo:f oos:${oos0:-$oos}"
		[ $oos = 0 ] || echo "	[=========>..........] sync'ed: 50.0% (63488/126976)K"
		echo " 1: cs:$b C r-----"
		echo "    ns:0 nr:100 dw:100 dr:0 al:0 bm:0 lo:0 pe:0 ua:0 ap:0 ep:1 wo:f oos:$oos"
	} > $T/procdrbd.new && mv $T/procdrbd.new $T/procdrbd
}
rs_trig() {
	rm -f $T/tmp/disc
	clock_cs > $T/tmp/rs_t0
	drbd_write
}
# the kernel log (dmesg): an older resync with an older marker (the parser
# must skip them: "nmbench trigger 11 ..." is not marker 1), then the last
# marker written to /dev/kmsg (a file here) at the trigger's time and the
# resync's lines of the phase it is in: the source's "started" 1.2 ms after
# the reconnect, its "finished" 4.6 ms before the end, each after the
# target's line (another device: nmb's 253:1, DRBD's drbd1), so that klog's
# connect is the polled one + 0.0012 s and its transfer the polled one -
# 0.0058 s.  NMS_KLOG=nostart | noend: that source line missing;
# notime: no timestamps (printk.time off); only on configuration
# NMS_KLOG_CFG if set
dmesg() {
	local p=''
	printf '[    0.900000] nmbench trigger 11 nm-C rs-full\n[    1.000000] device-mapper: netmirror: 253:0: resync started: 256 regions to send\n[    1.200000] device-mapper: netmirror: 253:0: resync finished: the peer takes generation 0000000000000002\n'
	printf '[    1.300000] block drbd0: Began resync as SyncSource (will sync 130016 KB [32504 bits set]).\n[    1.400000] block drbd0: Resync done (total 1 sec; paused 0 sec; 130016 K/sec)\n'
	# ov-full (NMS_KLOG_OV=nodone: its done line missing): the marker, its
	# "verify started" 1.0 ms after the message, "verify done" 4.0 ms
	# before the status says done (the done line's ms: that span); DRBD's
	# minor 2 lines after a drbd-C marker (NMS_OV_DIFFS: its "found" line)
	if [ -s $T/tmp/ov_t0 ] && grep -q ' ov-full$' $T/tmp/kmsg 2>/dev/null; then
		awk -v t0="$(cat $T/tmp/ov_t0)" -v now="$(clock_cs)" -v x="${NMS_OV_CS:-400}" -v m="$(cat $T/tmp/kmsg)" \
			-v dd="${NMS_OV_DIFFS:-0}" -v k="${NMS_KLOG_OV:-}" 'BEGIN {
			t0 /= 100; e = t0 + x / 100 - 0.004
			printf "[%12.6f] %s\n", t0 - 0.0001, m
			if (m ~ / drbd-/) {
				printf "[%12.6f] block drbd2: Starting Online Verify from sector 0\n", t0 + 0.001
				if (now < t0 * 100 + x || k == "nodone") exit
				if (dd > 0) printf "[%12.6f] block drbd2: Online verify found %d 4k block out of sync!\n", e - 0.0001, dd
				printf "[%12.6f] block drbd2: Online verify done (total 4 sec; paused 0 sec; 262144 K/sec)\n", e
				exit
			}
			printf "[%12.6f] device-mapper: netmirror: 253:2: verify started: sectors 0..2097152 (1048576 KiB), crc32c\n", t0 + 0.001
			if (now >= t0 * 100 + x && k != "nodone")
				printf "[%12.6f] device-mapper: netmirror: 253:2: verify done: 2097152 sectors in %d ms (%d KiB/s), %d blocks differ\n", e, (e - t0 - 0.001) * 1000 + 0.5, 1048576 / (e - t0 - 0.001), dd
		}'
		return 0
	fi
	[ -s $T/tmp/kmsg ] && [ -s $T/tmp/rs_t0 ] && p=$(rs_phase)
	[ -n "$p" ] || return 0
	awk -v t0="$(cat $T/tmp/rs_t0)" -v c="${NMS_CONNECT_CS:-30}" -v x="${NMS_TRANSFER_CS:-50}" -v p="$p" \
		-v m="$(cat $T/tmp/kmsg)" -v k="${NMS_KLOG:-}" -v kc="${NMS_KLOG_CFG:-}" 'function l(t, s) {
			if (k == "notime") print s; else printf "[%12.6f] %s\n", t, s }
		BEGIN {
			t0 /= 100; s = t0 + c / 100; e = s + x / 100
			if (kc != "" && index(m " ", " " kc " ") == 0) k = ""
			l(t0, m)
			if (p == "conn") exit
			if (m ~ / drbd-/) {
				l(s + 0.0008, "block drbd1: Began resync as SyncTarget (will sync 130016 KB [32504 bits set]).")
				if (k != "nostart") l(s + 0.0012, "block drbd0: Began resync as SyncSource (will sync 130016 KB [32504 bits set]).")
				if (p != "done") exit
				l(e - 0.0060, "block drbd1: Resync done (total 1 sec; paused 0 sec; 130016 K/sec)")
				if (k != "noend") l(e - 0.0046, "block drbd0: Resync done (total 1 sec; paused 0 sec; 130016 K/sec)")
			} else {
				l(s + 0.0008, "device-mapper: netmirror: 253:1: resync target: 256 regions to receive")
				if (k != "nostart") l(s + 0.0012, "device-mapper: netmirror: 253:0: resync started: 256 regions to send")
				if (p != "done") exit
				l(e - 0.0060, "device-mapper: netmirror: 253:1: resync target: done, disk uptodate, generation 0000000000000003")
				if (k != "noend") l(e - 0.0046, "device-mapper: netmirror: 253:0: resync finished: the peer takes generation 0000000000000003")
			}
		}'
}
# dmsetup status of nma/nmb in the current phase (fields: role connection
# disks regions 1 0 pending 1 1 0 - 0 0 resync_bytes - running verify
# verify_sectors verify_total verify_diffs verify_kibs verify_eta); nmb's
# resync_bytes: 128 MiB per resync of nmb (NMS_N of them), half of it
# while running.  nmva (ov-full's primary, 1 GiB): its verify, after the
# message, runs NMS_OV_CS (default 400) cs, then is done with
# NMS_OV_DIFFS (default 0) blocks differing
nm_status_line() {
	local p n rsb=0 ov="none 0 0 0 0 0"
	if [ "$1" = nmva ] || [ "$1" = nmvb ]; then
		if [ "$1" = nmva ] && [ -s $T/tmp/ov_t0 ]; then
			if [ $(( $(clock_cs) - $(cat $T/tmp/ov_t0) )) -lt "${NMS_OV_CS:-400}" ]; then
				ov="running 1048576 2097152 0 262144 4"
			else
				ov="done 2097152 2097152 ${NMS_OV_DIFFS:-0} 0 0"
			fi
		fi
		echo "0 2097152 netmirror $([ "$1" = nmva ] && echo primary || echo secondary) connected uptodate/uptodate 2048/2048 1 0 0 1 1 0 - 0 0 0 - running $ov"
		return 0
	fi
	n=$(cat $T/tmp/nm_n 2>/dev/null || echo 0)
	p=$(rs_phase)
	case $1/$p in
	nma/disc) p="primary connecting uptodate/dunknown 96/256" ;;
	nmb/disc) p="secondary standalone uptodate/dunknown 256/256" rsb=$((n * 134217728)) ;;
	nma/conn) p="primary connecting uptodate/dunknown 128/256" ;;
	nma/sync) p="primary sync_source uptodate/inconsistent 128/256" ;;
	nmb/conn) p="secondary connecting inconsistent/dunknown 0/256" rsb=$(( (n - 1) * 134217728 )) ;;
	nmb/sync) p="secondary sync_target inconsistent/uptodate 128/256" rsb=$(( (n - 1) * 134217728 + 67108864 )) ;;
	nmb/*) p="secondary connected uptodate/uptodate 256/256" rsb=$((n * 134217728)) ;;
	*) p="primary connected uptodate/uptodate 256/256" ;;
	esac
	echo "0 262144 netmirror $p 1 0 0 1 1 0 - 0 0 $rsb - running $ov"
}
# (in the shell itself: it runs hundreds of times per flow, a fork costs)
sleep() {
	local d u idle i f cs
	read -r u idle < $T/uptime
	i=${1%.*} f=
	case $1 in *.*) f=${1#*.} ;; esac
	f=${f}00
	f=${f%"${f#??}"}
	cs=$(( ${u%.*}${u#*.} + ${i:-0} * 100 + ${f#0} ))
	printf '%d.%02d %s\n' $((cs / 100)) $((cs % 100)) "$idle" > $T/uptime
	for d in ram0 dm-0 drbd0; do
		echo "1 0 8 0 $((cs * 10)) 0 4000 0 0 0 0" > $T/sys/block/$d/stat
	done
	drbd_write
}
# rs-app's fio (in the background) returns at once: "alive" until TIME s
# after the trigger (it started RAMP s before it, for RAMP + TIME s)
kill() {
	if [ "$1" = -0 ]; then
		[ -s $T/tmp/rs_t0 ] && [ "$(clock_cs)" -lt $(( $(cat $T/tmp/rs_t0) + ${nm_bench_time:-10} * 100 )) ]
		return
	fi
	command kill "$@"
}
# lib.sh / nmlib.sh
log() { echo "NMLOG: $*"; }
fail() { echo "FAIL: $*" >&2; exit 1; }
check_ok() { echo "NMCHECK: PASS $1"; }
check_bad() { echo "NMCHECK: FAIL $1: $2"; }
wait_for() { :; }
wait_eval() { eval "$1"; }
load_netmirror() { :; }
brd_setup() { echo "brd_setup $*" >> $T/calls; }
# (a Secondary DRBD device cannot be opened, as in the kernel: minor 2 of ov-full)
dev_size() { case $1 in /dev/drbd0) echo 133136384 ;; /dev/nlv[01]) echo 1073741824 ;; /dev/drbd2) echo "blockdev: can't open '/dev/drbd2': Wrong medium type" >&2; return 1 ;; /dev/nlv*) echo 8388608 ;; *) echo 134217728 ;; esac; }
nm_wait_synced() { :; }
nm_local_pair() { echo "nm_local_pair $*" >> $T/calls; }
nm_local_unpair() { echo "nm_local_unpair" >> $T/calls; }
nm_status() { case $2 in connection) echo standalone ;; pending) echo 0 ;; esac; }
DD=true HEAD=head MD5SUM=md5sum
# /tests/nm-status-fields.sh (generated from nm_params.h)
NM_SF_role=0 NM_SF_connection=1 NM_SF_disks=2 NM_SF_regions=3 NM_SF_pending=6 NM_SF_resync_bytes=13
NM_SF_verify=16 NM_SF_verify_sectors=17 NM_SF_verify_total=18 NM_SF_verify_diffs=19
pidof() { return 1; }
# the machine
modprobe() { :; }
mount() { :; }
drbdmeta() { :; }
nmhostile() { echo "nmhostile $*" >> $T/calls; }
drbdsetup_stub() {
	echo "drbdsetup $*" >> $T/calls
	case "$1 $2" in
	"invalidate 1"|"connect r1") rs_trig ;;
	"disconnect $DB") : > $T/tmp/disc; drbd_write ;;
	# ov-full on drbd-C: minor 2 VerifyS for NMS_OV_CS cs after "verify 2"
	"verify 2") clock_cs > $T/tmp/ov_t0 ;;
	"down r2") rm -f $T/tmp/ov_t0 ;;
	"cstate 2")
		if [ -s $T/tmp/ov_t0 ] && [ $(( $(clock_cs) - $(cat $T/tmp/ov_t0) )) -lt "${NMS_OV_CS:-400}" ]; then
			echo VerifyS
		else
			echo Connected
		fi
		return 0
		;;
	esac
	case $1 in cstate) echo Connected ;; dstate) echo UpToDate/UpToDate ;; esac
}
dmsetup() {
	echo "dmsetup $*" >> $T/calls
	case "$1 $2 $4" in
	"info "*) case "$*" in *major,minor\ nmva) echo "253:  2" ;; *major,minor*) echo "253:  0" ;; *) echo "  0" ;; esac ;;
	"message "*" latency") printf 'p_queue count=10 p50_us=5 p90_us=6 p99_us=7 max_us=8\ns_ack count=0\n' ;;
	"message nmb invalidate"|"message nmb connect")
		echo $(( $(cat $T/tmp/nm_n 2>/dev/null || echo 0) + 1 )) > $T/tmp/nm_n
		rs_trig
		;;
	"message nmb disconnect") : > $T/tmp/disc ;;
	"message nmva verify") clock_cs > $T/tmp/ov_t0 ;;
	"remove nmva ") rm -f $T/tmp/ov_t0 ;;
	"status "*) nm_status_line "$2" ;;
	esac
	return 0
}
tcprr() {
	case $1 in
	rr) case " $* " in
	    *" --conns 2"*) echo "tcprr: rr req=4096 resp=32 depth=32 conns=2 count=8998 tps=7400" ;;
	    *" --depth "*) echo "tcprr: rr req=4096 resp=32 depth=32 count=8999 tps=6500" ;;
	    *) echo "tcprr: rr req=4096 resp=32 count=1800 p50_us=120 p99_us=300 mean_us=130 tps=7000" ;;
	    esac ;;
	stream) echo "tcprr: stream bytes=268435456 chunk=1048576 mb_s=180.5" ;;
	esac
}
# the peer VM of nbdr-* (lib.sh's on_peer through nmrpc): its nbd-client's
# answer (the size it sees) and fio's JSON on stdout
my_ip() { echo 169.254.0.1; }
on_peer() {
	local a name=
	echo "on_peer $*" | tr '\n\t' '  ' | tr -s ' ' >> $T/calls
	echo >> $T/calls
	case $* in
	*"fio --name="*)
		for a in $*; do case $a in --name=*) name=${a#--name=} ;; esac; done
		case $name in
		*w1m*) cat $FIX/fio-3.33-w1m-q1.json ;;
		*) cat $FIX/fio-3.33-w4k-dsync.json ;;
		esac
		;;
	*dev_size*) echo 134217728 ;;
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
	# the verify device's read limit: the write fixture with "read" and
	# "write" swapped (501 IOPS, 2.05 MB/s read)
	ovread) sed 's/"read" :/"tmp" :/; s/"write" :/"read" :/; s/"tmp" :/"write" :/' $FIX/fio-3.33-w4k-dsync.json > "$out" ;;
	*) cp $FIX/fio-3.33-w4k-dsync.json "$out" ;;
	esac
}
EOF

# run ENV...: the guest script with these nm_bench_* settings
run() {
	rm -f "$t/calls" "$t"/tmp/*
	rm -rf "${t:?}"/cfg/*
	busybox sh -c ". $t/stubs.sh; drbd_write"
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
# the CPU is the host's around a stub that returns at once: a number, or
# none when no jiffy passed
want "limit at depth 32" "$(count '^NMLOG: bench limit r=[12] .* stream=180.5 rr4kq32=6500 rr4kq32_cpu=\([0-9][0-9.]*\)\? rr4kq32c2=7400 rr4kq32c2_cpu=\([0-9][0-9.]*\)\?$' "$t/out")" 2
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
# the stubbed resync: 0.3 s reconnecting, 0.5 s running (polls every 0.1 s
# of the stubbed clock): polled connect 0.30, transfer 0.50, total 0.80 s;
# the kernel log's (the stubbed dmesg): connect 0.3012, transfer 0.4942,
# total 0.7954 s (clock=klog); nm-C's 128 MiB: 259.00 MiB/s over the
# transfer, 160.93 incl. the reconnect; rs-part's 80 MiB marked (160
# regions of 512 KiB): 161.88 and 100.58; DRBD's 16 MiB: 32.38 and 20.12;
# rs-app: the window is the polled transfer, 500 writes in it (1000/s), 64
# MiB resynced in it; the resync's rate over klog's transfer: 259.00
KT='connect=0.301 transfer=0.494 secs=0.795'
KP='seen=yes clock=klog pconnect=0.30 ptransfer=0.50 psecs=0.80'
want "rs-full samples" "$(grep -c "^NMLOG: bench sample r=1 cfg=\\(nm-C\\|drbd-C\\|drbd-Cdef\\) wl=rs-full $KT mibs=[0-9.]* mbs=[0-9.]* mibs_all=[0-9.]* mbs_all=[0-9.]* $KP bytes=[0-9]*" "$t/out")" 3
want "rs-full nm-C" "$(grep -c "^NMLOG: bench sample r=1 cfg=nm-C wl=rs-full $KT mibs=259.00 mbs=271.59 mibs_all=160.93 mbs_all=168.74 $KP bytes=134217728 rsbytes=134217728\$" "$t/out")" 1
want "rs-part samples" "$(grep -c "^NMLOG: bench sample r=1 cfg=\\(nm-C\\|drbd-C\\|drbd-Cdef\\) wl=rs-part $KT .* $KP .*wmib=16\$" "$t/out")" 3
want "rs-part nm-C" "$(grep -c "^NMLOG: bench sample r=1 cfg=nm-C wl=rs-part $KT mibs=161.88 mbs=169.74 mibs_all=100.58 mbs_all=105.46 $KP bytes=83886080 rsbytes=[0-9]* wmib=16\$" "$t/out")" 1
want "rs-part drbd" "$(grep -c "^NMLOG: bench sample r=1 cfg=drbd-C\\(def\\)\\? wl=rs-part $KT mibs=32.38 mbs=33.95 mibs_all=20.12 mbs_all=21.09 $KP bytes=16777216 wmib=16\$" "$t/out")" 2
want "rs-app samples" "$(grep -c "^NMLOG: bench sample r=1 cfg=\\(nm-C\\|drbd-C\\|drbd-Cdef\\) wl=rs-app iops=1000.0 window=0.50 rs_mibs=[0-9.]* rs_clock=klog rs_mib=[0-9.]* $KT $KP done=yes app_iops_all=501.0\$" "$t/out")" 3
want "rs-app nm-C" "$(grep -c '^NMLOG: bench sample r=1 cfg=nm-C wl=rs-app iops=1000.0 window=0.50 rs_mibs=259.00 rs_clock=klog rs_mib=64.00 ' "$t/out")" 1
want "last marker" "$(cat "$t/tmp/kmsg")" "nmbench trigger 9 drbd-Cdef rs-app"
want "printk time" "$(cat "$t/printk/time")" Y
want "report clock rows" "$(grep -c '^NMBENCH: kernel-log clock (rounds) *1/1 *1/1 *1/1$' "$t/out")" 3
want "report rs rows" "$(grep -c '^NMBENCH: \(connect s\|transfer s\|MiB/s (transfer)\|MiB/s (incl. reconnect)\) ' "$t/out")" 10
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
want "report goals" "$(grep -c '^NMBENCH: goal \(full resync\|NBD export\).*: \(PASS\|FAIL\|n/a\)\( (the client in this VM: .*)\)\?$' "$t/out")" 2

# ---- NBD with the client on the other side (--nbd-remote: nm_peer=1),
# next to the client in this VM: each kind of point its own export
run nm_bench_rounds=1 nm_bench_nbd=1 nm_bench_nbdr=1 nm_peer=1 nm_bench_configs=bare,nm-C \
	nm_bench_workloads=nbd-w4k,nbdr-w1m,nbdr-w4k nm_bench_time=3 nm_bench_ramp=1
want "nbdr samples" "$(grep -c '^NMLOG: bench sample r=1 cfg=\(bare\|nm-C\) wl=nbdr-w[14][mk] iops=' "$t/out")" 4
want "nbdr fio on the peer" "$(grep -c -- '^on_peer fio --name=nbdr-w[14][mk] --filename=/dev/nbd0 --rw=write --bs=1\?[m4]k\? --ioengine=psync --iodepth=1 --direct=1 ' "$t/calls")" 4
want "no nbdr fio here" "$(grep -c -- '^fio --name=nbdr' "$t/calls")" 0
want "nbd fio here" "$(grep -c -- '^fio --name=nbd-w4k --filename=/dev/nbd0 ' "$t/calls")" 2
want "nbdr exports" "$(grep -c "^nbd-server -C $t/tmp/nbd.conf -p $t/tmp/nbd.pid\$" "$t/calls") $(grep -c '^nbd-client 127.0.0.1 7810 /dev/nbd0 -N bench$' "$t/calls") $(grep -c '^on_peer .*wait_eval .nbd-client 169.254.0.1 7810 /dev/nbd0 -N bench .* 120 .*dev_size /dev/nbd0' "$t/calls")" "4 2 2"
want "nbdr detach" "$(grep -c '^nbd-client -d /dev/nbd0$' "$t/calls") $(grep -c '^on_peer nbd-client -d /dev/nbd0 *$' "$t/calls")" "2 2"
want "nbdr listens on the link" "$(grep -c 'listenaddr = 169.254.0.1' "$t/tmp/nbd.conf")" 1
want "nbdr export log" "$(grep -c '^NMLOG: bench: /dev/[a-z0-9/]* exported by nbd-server (pid 4242) as /dev/nbd0 on the peer, 134217728 bytes$' "$t/out")" 2
want "nbdr goal" "$(grep -c "^NMBENCH: goal NBD export >= 90% of the bare device's: [A-Za-z/]* (the client on the other side)\$" "$t/out") $(grep -c '^NMBENCH:   not judged, the client in this VM: .*nbd-w1m MB/s: no data; .*nbd-w4k IOPS ' "$t/out")" "1 1"
want "nbdr failed checks" "$(count '^NMCHECK: FAIL' "$t/out")" 0

# ---- a resync over between two polls (0.25 s reconnecting, 0.03 s
# running): never seen running.  nm-C: the kernel log has it (connect
# 0.2512, transfer 0.0242: a transfer rate all the same); drbd-C: its
# "Began resync" line is missing: the polled times, connect = the total as
# observed, transfer 0, no transfer rate; rs-app: no window
NMS_CONNECT_CS=25 NMS_TRANSFER_CS=3 NMS_KLOG=nostart NMS_KLOG_CFG=drbd-C run nm_bench_rounds=1 nm_bench_resync=1 nm_bench_configs=nm-C,drbd-C \
	nm_bench_workloads=w4k-q1,rs-part,rs-app nm_bench_time=3 nm_bench_ramp=1
want "unseen rs-part klog" "$(grep -c '^NMLOG: bench sample r=1 cfg=nm-C wl=rs-part connect=0.251 transfer=0.024 secs=0.275 mibs=3305.79 mbs=3466.37 mibs_all=290.49 mbs_all=304.60 seen=no clock=klog pconnect=0.30 ptransfer=0.00 psecs=0.30 bytes=83886080 ' "$t/out")" 1
want "unseen rs-part poll" "$(grep -c '^NMLOG: bench sample r=1 cfg=drbd-C wl=rs-part connect=0.30 transfer=0.00 secs=0.30 mibs_all=53.33 mbs_all=55.92 seen=no clock=poll bytes=16777216 ' "$t/out")" 1
want "unseen rs-app" "$(grep -c '^NMLOG: bench sample r=1 cfg=nm-C wl=rs-app window=none connect=0.251 transfer=0.024 secs=0.275 seen=no clock=klog pconnect=0.30 ptransfer=0.00 psecs=0.30 done=no app_iops_all=501.0$' "$t/out") $(grep -c '^NMLOG: bench sample r=1 cfg=drbd-C wl=rs-app window=none connect=0.30 transfer=0.00 secs=0.30 seen=no clock=poll done=no app_iops_all=501.0$' "$t/out")" "1 1"
want "unseen clock rows" "$(grep -c '^NMBENCH: kernel-log clock (rounds) *1/1 *0/1$' "$t/out")" 2
want "unseen report" "$(grep -c '^NMBENCH: IOPS  *n/a  *n/a$' "$t/out")" 1
want "unseen checks" "$(count '^NMCHECK: FAIL' "$t/out")" 0

# ---- the reconnect outlasts the application (5 s reconnecting, the
# application stops 3 s after the trigger): rs-app has no window, the times
# still go on to the end of the resync; its goal clause is not measured.
# The source's "resync finished" line is missing: the polled times
NMS_CONNECT_CS=500 NMS_TRANSFER_CS=50 NMS_KLOG=noend run nm_bench_rounds=1 nm_bench_resync=1 nm_bench_configs=nm-C \
	nm_bench_workloads=w4k-q1,rs-app nm_bench_time=3 nm_bench_ramp=1
want "late rs-app" "$(grep -c '^NMLOG: bench sample r=1 cfg=nm-C wl=rs-app window=none connect=5.00 transfer=0.50 secs=5.50 seen=yes clock=poll done=no app_iops_all=501.0$' "$t/out")" 1
want "late goal" "$(grep -c '^NMBENCH:   nm-C rs-app IOPS/w4k-q1 IOPS: not measured (the resync was not seen running while the application ran: 1 of 1 rounds); nm-C resync MiB/s during rs-app: not measured$' "$t/out")" 1
want "late checks" "$(count '^NMCHECK: FAIL' "$t/out")" 0

# ---- the online verify (--verify): ov-full on nm-C and drbd-C, 2 rounds;
# nm-C's pair nmva/nmvb and drbd-C's minors 2/3 on the 1 GiB null_blk
# devices, filled once and copied.
# The stubbed verify runs 4.00 s (polled: the message to the first poll
# that saw it done); the kernel log's "verify started" 1 ms after the
# message and "verify done" 4 ms before the end: 3.995 s, 2^30 B / 3.995 s
# = 256.32 MiB/s = 268.77 MB/s; the done line's 3995 ms: 256.32 MiB/s;
# the read limit (the stubbed fio's) 2.05 MB/s: verify / read = 131
run nm_bench_rounds=2 nm_bench_verify=1 nm_bench_configs=nm-C,drbd-C nm_bench_workloads=w4k-q1,ov-full nm_bench_time=3 nm_bench_ramp=1
want "ov samples" "$(grep -c '^NMLOG: bench sample r=[12] cfg=nm-C wl=ov-full ovsecs=3.995 ovmibs=256.32 ovmbs=268.77 kms=3995 kmibs=256.32 clock=klog psecs=4.00 bytes=1073741824 sectors=2097152 total=2097152 diffs=0 kdiffs=0$' "$t/out")" 2
want "ov drbd samples" "$(grep -c '^NMLOG: bench sample r=[12] cfg=drbd-C wl=ov-full ovsecs=3.995 ovmibs=256.32 ovmbs=268.77 clock=klog psecs=4.00 bytes=1073741824 sectors=2097152 total=2097152 diffs=0 kdiffs=0$' "$t/out")" 2
want "ov no fio" "$(grep -c 'wl=ov-full' "$t/calls") $(grep -c '^NMLOG: bench sample .*wl=ov-full' "$t/out")" "0 4"
want "ov checks" "$(count '^NMCHECK: PASS verify/nm-C/ov-full$' "$t/out") $(count '^NMCHECK: PASS verify/drbd-C/ov-full$' "$t/out") $(count '^NMCHECK: FAIL' "$t/out")" "2 2 0"
want "ov drbd setup" "$(grep -c '^drbdsetup attach 2 /dev/nlv0 /dev/nlv4 flexible --c-plan-ahead=0 --resync-rate=4194304$' "$t/calls") $(grep -c '^drbdsetup attach 3 /dev/nlv1 /dev/nlv5 flexible ' "$t/calls") $(grep -c '^drbdsetup connect r2 ipv4:127.0.0.1:7802 ipv4:127.0.0.1:7803 --protocol=C --verify-alg=crc32c$' "$t/calls") $(grep -c '^drbdsetup connect r3 ipv4:127.0.0.1:7803 ipv4:127.0.0.1:7802 --protocol=C --verify-alg=crc32c$' "$t/calls")" "2 2 2 2"
want "ov drbd verify" "$(grep -c '^drbdsetup new-current-uuid 2 --clear-bitmap$' "$t/calls") $(grep -c '^drbdsetup verify 2$' "$t/calls") $(grep -c '^drbdsetup down r[23]$' "$t/calls")" "2 2 4"
want "ov tables" "$(grep -c '^dmsetup create nmvb --table 0 2097152 netmirror /dev/nlv1 127.0.0.1:7791 C flush 6 listen 127.0.0.1:7792 sync none meta /dev/nlv3$' "$t/calls") $(grep -c '^dmsetup create nmva --table 0 2097152 netmirror /dev/nlv0 127.0.0.1:7792 C flush 8 listen 127.0.0.1:7791 role primary sync none meta /dev/nlv2$' "$t/calls")" "2 2"
want "ov message" "$(grep -c '^dmsetup message nmva 0 verify$' "$t/calls") $(grep -c '^dmsetup remove nmv[ab]$' "$t/calls")" "2 4"
want "ov devices" "$(cd "$t/cfg" && for f in nlv0/* nlv2/size; do echo "$f=$(cat "$f")"; done | tr '\n' ' ')" \
	"nlv0/blocksize=512 nlv0/irqmode=0 nlv0/memory_backed=1 nlv0/power=1 nlv0/size=1024 nlv2/size=8 "
want "ov fill" "$(grep -c -- '^fio --name=ovfill --filename=/dev/nlv0 --rw=write --bs=1m --ioengine=psync --direct=1 --size=1024m ' "$t/calls")" 1
want "ov read limit" "$(grep -c '^NMLOG: bench limit r=[12] ovread=2.05 rr4k=' "$t/out") $(grep -c -- '^fio --name=ovread --filename=/dev/nlv0 --rw=read --bs=1m ' "$t/calls")" "2 2"
want "ov meta" "$(grep -c '^NMLOG: bench meta .* ov_mb=1024 ov_backing=null_blk,memory_backed=1,irqmode=0 configs=nm-C,drbd-C workloads=w4k-q1,ov-full$' "$t/out")" 1
want "ov marker" "$(cat "$t/tmp/kmsg")" "nmbench trigger 4 nm-C ov-full"
want "ov drbd meta devices" "$(cat "$t/cfg/nlv4/size") $(cat "$t/cfg/nlv5/size")" "8 8"
want "ov report" "$(grep -c '^NMBENCH: verify MiB/s *256 \[256\.\.256\] *256 \[256\.\.256\]$' "$t/out") $(grep -c '^NMBENCH: blocks differing *0 (2/2 rounds with none) *0 (2/2 rounds with none)$' "$t/out") $(grep -c '^NMBENCH: verify differences: none (4 verifies)$' "$t/out") $(grep -c '^NMBENCH: \(nm\|drbd\)-C ov-full MB/s / verify device read MB/s *131 \[131\.\.131\]$' "$t/out") $(grep -c '^NMBENCH: nm-C/drbd-C ov-full MiB/s *1\.00 \[1\.00\.\.1\.00\]$' "$t/out")" "1 1 1 2 1"
want "ov all samples" "$(count '^NMLOG: bench sample ' "$t/out")" 8

# ---- blocks differ (NMS_OV_DIFFS=3), nullb backing (the verify devices
# with its timer completion), the done line missing in the kernel log: the
# polled time; the check FAILs, the report says so
NMS_OV_DIFFS=3 NMS_KLOG_OV=nodone run nm_bench_rounds=1 nm_bench_verify=1 nm_bench_backing=nullb nm_bench_configs=nm-C nm_bench_workloads=ov-full
want "ov diffs sample" "$(grep -c '^NMLOG: bench sample r=1 cfg=nm-C wl=ov-full ovsecs=4.00 ovmibs=256.00 ovmbs=268.44 clock=poll psecs=4.00 bytes=1073741824 sectors=2097152 total=2097152 diffs=3 err=diffs-3$' "$t/out")" 1
want "ov diffs check" "$(count '^NMCHECK: FAIL verify/nm-C/ov-full: round 1: diffs-3: ' "$t/out")" 1
want "ov diffs report" "$(grep -c '^NMBENCH: verify differences: ERROR: ' "$t/out") $(grep -c '^NMBENCH:   nm-C round 1: 3 blocks differ (status 3, log -)$' "$t/out") $(grep -c '^NMBENCH:   round 1 nm-C ov-full: diffs-3$' "$t/out")" "1 1 1"
want "ov nullb" "$(cat "$t/cfg/nlv0/irqmode") $(cat "$t/cfg/nlv0/completion_nsec")" "2 20000"
# DRBD's verify finds blocks (its "found" line; the stubbed oos stays 0):
# logged-diffs
NMS_OV_DIFFS=3 run nm_bench_rounds=1 nm_bench_verify=1 nm_bench_configs=drbd-C nm_bench_workloads=ov-full
want "ov drbd diffs" "$(grep -c '^NMLOG: bench sample r=1 cfg=drbd-C wl=ov-full ovsecs=3.995 .* diffs=0 kdiffs=3 err=logged-diffs-3$' "$t/out") $(count '^NMCHECK: FAIL verify/drbd-C/ov-full: round 1: logged-diffs-3: ' "$t/out")" "1 1"
# without ov-* on a configuration of the run: no verify devices
run nm_bench_rounds=1 nm_bench_verify=1 nm_bench_configs=nm-A nm_bench_workloads=w4k-q1,ov-full nm_bench_time=3 nm_bench_ramp=1
want "no ov devices" "$(find "$t/cfg" -mindepth 1 -maxdepth 1 | wc -l) $(grep -c 'ov_mb=\|ovread=' "$t/out")" "0 0"

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
run_bad nm_bench_ov_size=1G
# nbdr-* without the peer VM
run_bad nm_bench_nbdr=1 nm_bench_workloads=nbdr-w4k

echo "test-flow: $pass passed, $failn failed"
[ $failn = 0 ]
