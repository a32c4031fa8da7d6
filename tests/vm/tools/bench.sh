# shellcheck shell=sh disable=SC3043,SC1091,SC2317
# Benchmark (not in suite.list, not part of make check): fio O_DIRECT writes
# on netmirror and DRBD 8.4, one VM, both nodes of each pair on loopback TCP.
# tests/bench/README.md explains the method and how to read the report.
# The timeout is the default run's estimate (7 rounds of 10 s + 2 s ramp:
# ~78 min, benchlib.sh's bench_estimate) times 1.5; tests/bench/run.sh
# passes its own, from the options it was given.
# vms: 1
# disks: none
# timeout: 7200
# mem: 1024
#
# Configurations (tests/vm/guest-lib/benchlib.sh): bare (the backing device
# itself), nm-disc (a netmirror primary made standalone: never connected),
# nm-A/B/C (a netmirror pair, ordering flush), drbd-disc, drbd-A/B/C (DRBD
# 8.4, internal metadata, disconnected or connected); optional nm-Cmac.
# netmirror runs with a metadata device (nm_bench_meta=0: without), as DRBD
# runs with its internal metadata.
# Workloads: w512-q1 w4k-q1 rw4k-q32 w1m-q1 w4k-dsync (benchlib.sh has the
# fio options), each time-based: $nm_bench_ramp s of ramp (discarded), then
# $nm_bench_time s measured.
# Rounds: $nm_bench_rounds; each round measures every configuration once,
# every workload on it, in an order rotated every round; netmirror pairs are
# created for each configuration of each round (full sync first), DRBD is
# reconnected with the configuration's protocol (resync first).
# After each replicated configuration: md5 of both backing devices (a named
# check: the test FAILs if they differ).  Per round also the loopback TCP
# limits (tcprr) and, for netmirror, the "latency" stage histograms (target
# 1.8; skipped with a note on older targets).
# Output: every sample is an NMLOG line ("NMLOG: bench sample ..."); the
# report (tests/vm/guest-lib/bench-report.awk over those lines) is printed
# as "NMBENCH: " lines (tests/bench/run.sh extracts both).
#
# Kernel command line (tests/bench/run.sh sets them):
#   nm_bench_rounds=7 nm_bench_time=10 nm_bench_ramp=2   (whole seconds)
#   nm_bench_backing=brd | nullb | nullb-cache
#       brd: brd ramdisks; nullb: configfs null_blk, memory_backed=1,
#       irqmode=2 (timer), completion_nsec=20000, blocksize 512; nullb-cache:
#       the same with a volatile write cache of $nm_bench_nullb_cache MiB
#       (default 16) per device (flushes and FUA cost something)
#   nm_bench_size=128 (MiB per device)  nm_bench_meta=1  nm_bench_cmac=0
#   nm_bench_data=scramble | refill | pattern   (what fio writes, all non-zero)
#   nm_bench_configs=nm-C,drbd-C,... nm_bench_workloads=w4k-q1,...   subsets
#       (comma-separated: a kernel command line word has no spaces)
#   nm_bench_git=<sha>   printed in the header
. /tests/benchlib.sh

ROUNDS=${nm_bench_rounds:-7}
TIME=${nm_bench_time:-10}
RAMP=${nm_bench_ramp:-2}
BACKING=${nm_bench_backing:-brd}
SIZE_MB=${nm_bench_size:-128}
META=${nm_bench_meta:-1}
DATA=${nm_bench_data:-scramble}
NLCACHE=${nm_bench_nullb_cache:-16}
for v in "$ROUNDS" "$TIME" "$RAMP" "$SIZE_MB" "$NLCACHE"; do
	case $v in ''|*[!0-9]*) fail "bench: not a whole number: '$v' (nm_bench_rounds/time/ramp/size/nullb_cache)" ;; esac
done
if [ "$ROUNDS" -lt 1 ] || [ "$TIME" -lt 1 ]; then fail "bench: rounds and time must be >= 1"; fi
case $DATA in
scramble) FIO_DATA="--refill_buffers=0 --scramble_buffers=1" ;;
refill) FIO_DATA="--refill_buffers=1" ;;
pattern) FIO_DATA="--buffer_pattern=0x6e6d6972" ;;
*) fail "bench: nm_bench_data=$DATA (want scramble, refill or pattern)" ;;
esac
WANT_CONFIGS=${nm_bench_configs:-$BENCH_CONFIGS}
[ "${nm_bench_cmac:-0}" = 1 ] && WANT_CONFIGS="$WANT_CONFIGS nm-Cmac"
[ "${nm_bench_cthr:-0}" = 1 ] && WANT_CONFIGS="$WANT_CONFIGS nm-Cthr"
CGROUPS=$(bench_groups "$(echo "$WANT_CONFIGS" | tr ',' ' ')")
CONFIGS=$(echo "$CGROUPS" | tr ',' ' ')
WORKLOADS=$(bench_select "$BENCH_WORKLOADS" "${nm_bench_workloads:-}")
[ -n "$CONFIGS" ] || fail "bench: no known configuration in '$WANT_CONFIGS'"
[ -n "$WORKLOADS" ] || fail "bench: no known workload in '${nm_bench_workloads:-}'"
NC=$(echo "$CONFIGS" | wc -w)
NW=$(echo "$WORKLOADS" | wc -w)
EST=$(bench_estimate "$ROUNDS" "$TIME" "$RAMP" "$NC" "$NW")

SAMPLES=/tmp/bench.samples
: > $SAMPLES
# a record: into the samples file and onto the console
emit() {
	echo "$*" >> $SAMPLES
	log "bench $*"
}
csv() { echo "$1" | tr ' ' ','; }

log "bench: $ROUNDS rounds x $NC configurations x $NW workloads x (${TIME} s + ${RAMP} s ramp): estimated $((EST / 60)) min $((EST % 60)) s of VM time"
log "bench: configurations $CONFIGS; groups $CGROUPS; workloads $WORKLOADS"

DRBDSETUP=/usr/lib/drbd/drbdsetup-84
DA=ipv4:127.0.0.1:7800
DB=ipv4:127.0.0.1:7801
NCPU=$(grep -c '^cpu[0-9]' /proc/stat)

load_netmirror
. /tests/nmlib.sh
modprobe drbd usermode_helper=/bin/true || fail "modprobe drbd failed"

# ---- backing devices: D0/D1 netmirror's pair (nm-disc and bare use D0),
# D2/D3 DRBD's (internal metadata), M0/M1 netmirror's metadata devices
NL_CFG=/sys/kernel/config/nullb
nl_make() { # NAME MB: a configfs null_blk /dev/NAME
	local d="$NL_CFG/$1"
	mkdir "$d" || fail "mkdir $d"
	if ! { echo "$2" > "$d/size" && echo 512 > "$d/blocksize" && echo 1 > "$d/memory_backed" &&
		echo 2 > "$d/irqmode" && echo 20000 > "$d/completion_nsec"; }; then
		fail "configure null_blk $1"
	fi
	if [ "$BACKING" = nullb-cache ]; then
		echo "$NLCACHE" > "$d/cache_size" || fail "null_blk $1: cache_size"
	fi
	echo 1 > "$d/power" || fail "null_blk $1: power 1"
	wait_for "[ -b /dev/$1 ]" 10 || fail "/dev/$1 did not appear"
}
case $BACKING in
brd)
	brd_setup "$SIZE_MB" 6
	D0=/dev/ram0 D1=/dev/ram1 D2=/dev/ram2 D3=/dev/ram3 M0=/dev/ram4 M1=/dev/ram5
	BACKING_DESC="brd"
	;;
nullb|nullb-cache)
	modprobe null_blk nr_devices=0 || fail "modprobe null_blk"
	[ -d $NL_CFG ] || mount -t configfs none /sys/kernel/config || fail "mount configfs"
	[ -d $NL_CFG ] || fail "no null_blk configfs ($NL_CFG)"
	for i in 0 1 2 3; do nl_make "nlb$i" "$SIZE_MB"; done
	# metadata: 8 MiB null_blk of the same kind (netmirror needs 8 KiB at 128 MiB)
	nl_make nlb4 8
	nl_make nlb5 8
	D0=/dev/nlb0 D1=/dev/nlb1 D2=/dev/nlb2 D3=/dev/nlb3 M0=/dev/nlb4 M1=/dev/nlb5
	BACKING_DESC="null_blk,irqmode=2,completion_nsec=20000"
	[ "$BACKING" = nullb-cache ] && BACKING_DESC="$BACKING_DESC,cache_size=${NLCACHE}MiB"
	;;
*) fail "bench: nm_bench_backing=$BACKING (want brd, nullb or nullb-cache)" ;;
esac
S=$(( $(dev_size "$D0") / 512 ))
# fill every data device once: no measurement pays for page allocation
for d in $D0 $D1 $D2 $D3; do
	# exactly its size: dd past the end fails with ENOSPC
	$DD if=/dev/zero of="$d" bs=1M count=$((S / 2048)) oflag=direct status=none || fail "fill $d"
done
if [ "$META" = 1 ]; then
	NM_META_A="meta $M0" NM_META_B="meta $M1"
else
	NM_META_A="" NM_META_B=""
fi

emit "meta git=${nm_bench_git:-unknown} kernel=$(uname -r) fio=$(fio --version 2>/dev/null | tr ' ' _) ncpu=$NCPU mem=$(( $(awk '/^MemTotal:/ {print $2}' /proc/meminfo) / 1024 )) backing=$BACKING_DESC size_mb=$SIZE_MB meta=$([ "$META" = 1 ] && echo yes || echo no) data=$DATA rounds=$ROUNDS time=$TIME ramp=$RAMP configs=$(csv "$CONFIGS") workloads=$(csv "$WORKLOADS")"

# ---- DRBD 8.4: minor 0 (D2, primary) <-> minor 1 (D3), created once; each
# configuration reconnects it with its protocol (or leaves it disconnected)
DRBD_NOW=none
drbd_field() { # MINOR FIELD: a field of /proc/drbd (cs ro ds ns nr lo pe ua ap oos ...)
	awk -v m="$1:" -v k="$2:" '$1 ~ /^[0-9]+:$/ { cur = $1 }
		cur == m { for (i = 1; i <= NF; i++) if (index($i, k) == 1) { print substr($i, length(k) + 1); exit } }' /proc/drbd
}
drbd_connect() { # PROTO
	$DRBDSETUP connect r0 $DA $DB --protocol="$1" || fail "drbd connect r0 ($1)"
	$DRBDSETUP connect r1 $DB $DA --protocol="$1" || fail "drbd connect r1 ($1)"
	wait_for "[ \"\$($DRBDSETUP cstate 0)\" = Connected ] && [ \"\$($DRBDSETUP dstate 0)\" = UpToDate/UpToDate ]" 120 ||
		fail "drbd ($1) not connected and synced: $($DRBDSETUP cstate 0) $($DRBDSETUP dstate 0)"
	DRBD_NOW=$1
}
drbd_disconnect() {
	$DRBDSETUP disconnect $DA $DB || fail "drbd disconnect r0"
	$DRBDSETUP disconnect $DB $DA || fail "drbd disconnect r1"
	DRBD_NOW=disc
}
drbd_setup() {
	local m dev
	for m in 0 1; do
		eval "dev=\$D$((m + 2))"
		drbdmeta --force $m v08 "$dev" internal create-md >/dev/null 2>&1 </dev/null ||
			fail "drbdmeta create-md $m"
		$DRBDSETUP new-resource r$m || fail "drbd new-resource r$m"
		$DRBDSETUP new-minor r$m $m 0 || fail "drbd new-minor $m"
		$DRBDSETUP attach $m "$dev" "$dev" internal \
			--c-plan-ahead=0 --resync-rate=4194304 || fail "drbd attach $m"
	done
	$DRBDSETUP connect r0 $DA $DB --protocol=C || fail "drbd connect r0"
	$DRBDSETUP connect r1 $DB $DA --protocol=C || fail "drbd connect r1"
	wait_for "[ \"\$($DRBDSETUP cstate 0)\" = Connected ]" 30 || fail "drbd did not connect: $($DRBDSETUP cstate 0)"
	$DRBDSETUP primary 0 --force || fail "drbd primary --force"
	wait_for "[ \"\$($DRBDSETUP cstate 0)\" = Connected ] && [ \"\$($DRBDSETUP dstate 0)\" = UpToDate/UpToDate ]" 300 ||
		fail "drbd initial sync: $($DRBDSETUP cstate 0) $($DRBDSETUP dstate 0)"
	DRBD_NOW=C
	DRBD_BYTES=$(dev_size /dev/drbd0)
	log "bench drbd: /dev/drbd0 $DRBD_BYTES bytes of $(dev_size "$D2"); $(tr '\n' ' ' < /proc/drbd)"
}
# nothing of the primary's writes is still on its way to the secondary
drbd_drained() {
	[ "$(drbd_field 0 pe)" = 0 ] && [ "$(drbd_field 0 ap)" = 0 ] && [ "$(drbd_field 0 oos)" = 0 ] &&
		[ "$(drbd_field 1 lo)" = 0 ] && [ "$(drbd_field 1 ua)" = 0 ]
}

# ---- netmirror
LAT_OK=
lat_reset() { # DEV...: zero the stage histograms (target 1.8); LAT_OK=0 without
	local d
	[ "$LAT_OK" = 0 ] && return 0
	for d in "$@"; do
		if dmsetup message "$d" 0 latency_reset >/dev/null 2>&1; then
			LAT_OK=1
		else
			LAT_OK=0
			log "bench: no latency message on $d (target older than 1.8?): no stage latencies"
			return 0
		fi
	done
}
lat_dump() { # R CFG WL DEV[:node]...
	local r="$1" c="$2" w="$3" d
	shift 3
	[ "$LAT_OK" = 1 ] || return 0
	for d in "$@"; do
		dmsetup message "${d%%:*}" 0 latency 2>/dev/null | grep 'count=' |
			sed 's/_us=/=/g' | while read -r name rest; do
				emit "stage r=$r cfg=$c wl=$w node=${d#*:} name=$name $rest"
			done
	done
}
zero_meta() {
	[ "$META" = 1 ] || return 0
	# the first MiB: superblock and bitmap (8 KiB at 128 MiB): no history,
	# a first connection (full sync)
	$DD if=/dev/zero of="$1" bs=1M count=1 oflag=direct status=none || fail "zero $1"
}

# ---- one configuration up / down; DEV is what fio writes to
INL=/sys/module/dm_netmirror/parameters/inline_send
cfg_up() {
	case $1 in
	bare) DEV=$D0 ;;
	nm-disc)
		zero_meta "$M0"
		# a peer port nobody listens on, an explicit listen address, then
		# standalone: it never connects nor tries to
		# shellcheck disable=SC2086
		dmsetup create nmd --table "0 $S netmirror $D0 127.0.0.1:7799 C flush $((4 + $(echo $NM_META_A | wc -w))) role primary listen 127.0.0.1:7798${NM_META_A:+ $NM_META_A}" ||
			fail "create nmd (disconnected primary)"
		dmsetup message nmd 0 disconnect || fail "nmd: disconnect"
		wait_eval "[ \"\$(nm_status nmd connection)\" = standalone ]" 20 ||
			fail "nmd not standalone: $(dmsetup status nmd)"
		DEV=/dev/mapper/nmd
		;;
	nm-A|nm-B|nm-C|nm-Cmac|nm-Cthr)
		zero_meta "$M0"
		zero_meta "$M1"
		# nm-Cthr: every write through the sender thread (target 1.8)
		if [ -w "$INL" ]; then
			if [ "$1" = nm-Cthr ]; then echo N > "$INL"; else echo Y > "$INL"; fi
		elif [ "$1" = nm-Cthr ]; then
			fail "bench: nm-Cthr needs the module parameter inline_send"
		fi
		if [ "$1" = nm-Cmac ]; then
			nm_local_pair C flush "$S" "$D0" "$D1" "$NM_META_A secret nm:bench" "$NM_META_B secret nm:bench"
		elif [ "$1" = nm-Cthr ]; then
			nm_local_pair C flush "$S" "$D0" "$D1" "$NM_META_A" "$NM_META_B"
		else
			nm_local_pair "${1#nm-}" flush "$S" "$D0" "$D1" "$NM_META_A" "$NM_META_B"
		fi
		DEV=/dev/mapper/nma
		;;
	drbd-disc)
		[ "$DRBD_NOW" = disc ] || drbd_disconnect
		DEV=/dev/drbd0
		;;
	drbd-A|drbd-B|drbd-C)
		# always a fresh connection, as netmirror's pairs are fresh
		[ "$DRBD_NOW" = disc ] || drbd_disconnect
		drbd_connect "${1#drbd-}"
		DEV=/dev/drbd0
		;;
	*) fail "bench: unknown configuration $1" ;;
	esac
	log "bench round $R $1 up: $(cfg_state "$1")"
}
cfg_state() {
	case $1 in
	nm-disc) dmsetup status nmd ;;
	nm-*) echo "nma $(dmsetup status nma | cut -d' ' -f4-) | nmb $(dmsetup status nmb | cut -d' ' -f4-)" ;;
	drbd-*) tr '\n' ' ' < /proc/drbd | sed 's/^.*srcversion: [^ ]* *//' ;;
	*) echo "$DEV" ;;
	esac
}
cfg_down() {
	case $1 in
	nm-disc) dmsetup remove nmd || fail "remove nmd" ;;
	nm-*) nm_local_unpair ;;
	esac
}

# md5 of both replicas: equal, after the writes in flight have landed (a few
# tries 1 s apart); a named check per configuration
same_sum() { # CFG R DEV_A DEV_B BYTES
	local i=0 a b
	while :; do
		( $DD if="$3" bs=1M iflag=direct status=none | $HEAD -c "$5" | $MD5SUM > /tmp/bench.md5a ) &
		b=$($DD if="$4" bs=1M iflag=direct status=none | $HEAD -c "$5" | $MD5SUM)
		wait $!
		a=$(cat /tmp/bench.md5a)
		[ "$a" = "$b" ] && break
		i=$((i + 1))
		[ $i -lt 4 ] || break
		sleep 1
	done
	if [ "$a" = "$b" ]; then
		emit "integrity r=$2 cfg=$1 ok=yes"
		check_ok "integrity/$1"
	else
		emit "integrity r=$2 cfg=$1 ok=no"
		check_bad "integrity/$1" "round $2: md5 $3 ${a%% *} != $4 ${b%% *}; $(cfg_state "$1")"
	fi
}
integrity() { # CFG R
	case $1 in
	nm-A|nm-B|nm-C|nm-Cmac|nm-Cthr)
		wait_eval "[ \$(nm_status nma pending) = 0 ]" 30 || log "bench: nma still has pending writes: $(dmsetup status nma)"
		same_sum "$1" "$2" "$D0" "$D1" $((S * 512))
		;;
	drbd-A|drbd-B|drbd-C)
		wait_eval drbd_drained 30 || log "bench: drbd not drained: $(tr '\n' ' ' < /proc/drbd)"
		# the data area only: the internal metadata at the end differs
		same_sum "$1" "$2" "$D2" "$D3" "$DRBD_BYTES"
		;;
	esac
}

# ---- measurements
# "busy total ctxt uptime": busy = user+nice+system+irq+softirq jiffies of
# all CPUs, total = busy+idle+iowait+steal
cpu_snap() {
	awk '/^cpu / { b = $2 + $3 + $4 + $7 + $8; t = b + $5 + $6 + $9 }
		/^ctxt / { c = $2 }
		END { getline u < "/proc/uptime"; split(u, x, " "); print b, t, c, x[1] }' /proc/stat
}
COMMON="--direct=1 --time_based=1 --runtime=$TIME --ramp_time=$RAMP --percentile_list=50:99:99.9 --output-format=json --invalidate=0 --disk_util=0 $FIO_DATA"
run_point() { # R CFG WL
	local r="$1" c="$2" w="$3" sp rc line
	case $c in
	nm-disc) lat_reset nmd ;;
	nm-*) lat_reset nma nmb ;;
	esac
	rm -f /tmp/bench.cpu /tmp/fio.json
	# CPU and context switches over a window inside fio's measured time
	( sleep "$RAMP"; s0=$(cpu_snap); sleep "$TIME"; echo "$s0 $(cpu_snap)" > /tmp/bench.cpu ) &
	sp=$!
	# shellcheck disable=SC2046,SC2086
	fio --name="$w" --filename="$DEV" $(bench_fio_args "$w") $COMMON --output=/tmp/fio.json > /tmp/fio.err 2>&1
	rc=$?
	[ $rc = 0 ] || kill $sp 2>/dev/null
	wait $sp
	line=$(awk -v snap="$(cat /tmp/bench.cpu 2>/dev/null)" -v ncpu="$NCPU" -f /tests/bench-fio.awk /tmp/fio.json 2>/dev/null)
	[ $rc = 0 ] || line="$line err=fio-exit-$rc"
	case $line in
	*err=*)
		check_bad "fio/$c/$w" "round $r: $line: $(tr '\n' ' ' < /tmp/fio.err | cut -c1-300)"
		log "bench fio output: $(head -c 2000 /tmp/fio.json | tr '\n' ' ')"
		;;
	esac
	emit "sample r=$r cfg=$c wl=$w $line"
	case $c in
	nm-disc) lat_dump "$r" "$c" "$w" nmd:a ;;
	nm-*) lat_dump "$r" "$c" "$w" nma:a nmb:b ;;
	esac
}
limits() { # R
	local rr4k rr512 st
	rr4k=$(tcprr rr --req 4096 --count 2000 --port 7901)
	rr512=$(tcprr rr --req 512 --count 2000 --port 7902)
	st=$(tcprr stream --bytes 256M --port 7903)
	emit "limit r=$1 rr4k=$(echo "$rr4k" | sed -n 's/.* p50_us=\([0-9]*\).*/\1/p') rr4k_p99=$(echo "$rr4k" | sed -n 's/.* p99_us=\([0-9]*\).*/\1/p') rr512=$(echo "$rr512" | sed -n 's/.* p50_us=\([0-9]*\).*/\1/p') rr512_p99=$(echo "$rr512" | sed -n 's/.* p99_us=\([0-9]*\).*/\1/p') stream=$(echo "$st" | sed -n 's/.* mb_s=\([0-9.]*\).*/\1/p')"
}

# ---- setup once, then the rounds
if echo " $CONFIGS " | grep -q ' drbd-'; then
	drbd_setup
fi
if echo " $CONFIGS " | grep -q ' nm-Cmac '; then
	nmhostile addkey nm:bench "bench secret" >/dev/null || fail "add the logon key"
fi
t0=$(cut -d. -f1 /proc/uptime)
R=1
while [ $R -le "$ROUNDS" ]; do
	ORDER=$(bench_round_order $R "$CGROUPS" | tr '\n' ' ')
	log "bench round $R of $ROUNDS: $ORDER(uptime $(cut -d' ' -f1 /proc/uptime) s)"
	limits $R
	for c in $ORDER; do
		cfg_up "$c"
		for w in $WORKLOADS; do
			run_point $R "$c" "$w"
		done
		integrity "$c" $R
		log "bench round $R $c done: $(cfg_state "$c")"
		cfg_down "$c"
	done
	R=$((R + 1))
done
log "bench: measured in $(( $(cut -d. -f1 /proc/uptime) - t0 )) s (estimate $EST s for the whole run, setup included)"
[ "$DRBD_NOW" = none ] || { $DRBDSETUP down r0; $DRBDSETUP down r1; }

awk -f /tests/bench-report.awk $SAMPLES | sed 's/^/NMBENCH: /'
exit 0
