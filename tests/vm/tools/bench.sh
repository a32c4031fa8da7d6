# shellcheck shell=sh disable=SC3043,SC1091,SC2317
# Benchmark (not in suite.list, not part of make check): fio O_DIRECT writes
# on netmirror and DRBD 8.4, one VM, both nodes of each pair on loopback TCP.
# tests/bench/README.md explains the method and how to read the report.
# The timeout is the default run's estimate (7 rounds of 10 s + 2 s ramp:
# ~78 min, benchlib.sh's bench_estimate) times 1.5; tests/bench/run.sh
# passes its own, from the options it was given.
# vms: 1
# disks: none
# layers: fio
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
# $nm_bench_time s measured.  Opt-in (nm_bench_resync=1): rs-full (the
# secondary invalidated), rs-part (disconnected, size/8 MiB of random 64 KiB
# writes, reconnected), rs-app (w4k-q1 while a full resync runs, its IOPS
# from when the resync is seen running) on nm-C, drbd-C and drbd-Cdef
# (DRBD's default resync controller), plus a disk read limit per round;
# each resync records connect seconds (trigger to the resync started:
# netmirror's invalidate and connect reconnect the link first), transfer
# seconds (started to in sync) and the total, from the kernel log's
# timestamps (a /dev/kmsg marker at the trigger, the source's start and
# finish lines: clock=klog) or, a line missing, polled every 0.1 s (started
# = first seen running: clock=poll; the polling also tells when it is over);
# its MiB/s over the transfer and over the total.  nm_bench_nbd=1: nbd-w1m,
# nbd-w4k (the device through nbd-server and /dev/nbd0) on bare, nm-C,
# drbd-C (and nm-Cnomerge, nm-Cnoprobe).  nm_bench_nbdr=1: nbdr-w1m,
# nbdr-w4k on the same configurations, with the client on the other side:
# nbd-server here, nbd-client and fio on node b (tests/bench/run.sh
# --nbd-remote boots it as the nmrpc peer) over the emulated link; the CPU
# and context switches per write are this VM's (the exporter's).
# nm_bench_verify=1: ov-full on nm-C and drbd-C, each on a pair of
# its own on two memory-backed null_blk devices of nm_bench_ov_size MiB
# (default 1024) holding the same data (filled once per run): nm-C's
# netmirror nmva/nmvb (protocol C, "sync none"), the "verify" message on the
# primary, timed from the kernel log's "verify started" to its "verify
# done" line; drbd-C's DRBD minors 2/3 (external metadata, verify-alg
# crc32c, initial sync skipped), "drbdsetup verify 2", from "Starting Online
# Verify" to "Online verify done" (clock=klog; polled otherwise); a verify
# that does not end, leaves sectors uncompared or finds a differing block
# FAILs its check verify/CFG/ov-full; plus the verify device's read limit
# per round.
# benchlib.sh's bench_applies says which point runs where.
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
#   nm_bench_resync=0 nm_bench_nbd=0 nm_bench_nbdr=0 nm_bench_verify=0
#                                   the opt-in workloads
#   nm_bench_ov_size=1024 (MiB per node of ov-*'s devices)
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
OV_MB=${nm_bench_ov_size:-1024}
for v in "$ROUNDS" "$TIME" "$RAMP" "$SIZE_MB" "$NLCACHE" "$OV_MB"; do
	case $v in ''|*[!0-9]*) fail "bench: not a whole number: '$v' (nm_bench_rounds/time/ramp/size/nullb_cache/ov_size)" ;; esac
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
[ "${nm_bench_cackthr:-0}" = 1 ] && WANT_CONFIGS="$WANT_CONFIGS nm-Cackthr"
[ "${nm_bench_cnomerge:-0}" = 1 ] && WANT_CONFIGS="$WANT_CONFIGS nm-Cnomerge"
[ "${nm_bench_cnobatch:-0}" = 1 ] && WANT_CONFIGS="$WANT_CONFIGS nm-Cnobatch"
[ "${nm_bench_crxthr:-0}" = 1 ] && WANT_CONFIGS="$WANT_CONFIGS nm-Crxthr"
[ "${nm_bench_cnoprobe:-0}" = 1 ] && WANT_CONFIGS="$WANT_CONFIGS nm-Cnoprobe"
[ "${nm_bench_resync:-0}" = 1 ] && [ -z "${nm_bench_configs:-}" ] && WANT_CONFIGS="$WANT_CONFIGS drbd-Cdef"
CGROUPS=$(bench_groups "$(echo "$WANT_CONFIGS" | tr ',' ' ')")
CONFIGS=$(echo "$CGROUPS" | tr ',' ' ')
WANT_WL=$(bench_want_workloads "${nm_bench_workloads:-}" "${nm_bench_resync:-0}" "${nm_bench_nbd:-0}" "${nm_bench_verify:-0}" "${nm_bench_nbdr:-0}")
WORKLOADS=$(bench_select "$BENCH_ALL_WORKLOADS" "$WANT_WL")
[ -n "$CONFIGS" ] || fail "bench: no known configuration in '$WANT_CONFIGS'"
[ -n "$WORKLOADS" ] || fail "bench: no known workload in '${nm_bench_workloads:-}'"
case " $WORKLOADS " in
*" nbdr-"*) [ -n "${nm_peer:-}" ] || fail "bench: nbdr-* needs the peer VM (tests/bench/run.sh --nbd-remote)" ;;
esac
NC=$(echo "$CONFIGS" | wc -w)
NW=$(echo "$WORKLOADS" | wc -w)
EST=$(bench_estimate "$ROUNDS" "$TIME" "$RAMP" "$CONFIGS" "$WORKLOADS")
HAS_RS=0
case " $WORKLOADS " in *" rs-"*) HAS_RS=1 ;; esac
# ov-* on a configuration of this run: the verify's devices are needed
HAS_OV=0
for c in $CONFIGS; do
	for w in $WORKLOADS; do
		case $w in ov-*) bench_applies "$c" "$w" && HAS_OV=1 ;; esac
	done
done
# rs-part: MiB written (random 64 KiB writes) while the pair is disconnected
PART_MB=$((SIZE_MB / 8))
[ "$PART_MB" -ge 1 ] || PART_MB=1

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
nl_make() { # NAME MB [inline|timer]: a configfs null_blk /dev/NAME; inline: no
	# timer (irqmode 0: completed in submit_bio, as brd) and no cache
	local d="$NL_CFG/$1"
	mkdir "$d" || fail "mkdir $d"
	if ! { echo "$2" > "$d/size" && echo 512 > "$d/blocksize" && echo 1 > "$d/memory_backed"; }; then
		fail "configure null_blk $1"
	fi
	if [ "${3:-}" = inline ]; then
		echo 0 > "$d/irqmode" || fail "null_blk $1: irqmode 0"
	elif ! { echo 2 > "$d/irqmode" && echo 20000 > "$d/completion_nsec"; }; then
		fail "configure null_blk $1"
	fi
	if [ "$BACKING" = nullb-cache ] && [ "${3:-}" != inline ]; then
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
# ov-*: V0/V1 (OV_MB each) under the verify's own pair, VM0/VM1 its
# metadata: configfs null_blk, memory_backed (every block written is held
# and read back from memory); irqmode 0 with brd (completed in submit_bio,
# as brd), the backing's timer completion with nullb/nullb-cache (no
# cache).  V0 is filled with fio's data once, then copied to V1: the two
# copies are equal, and the pair is created with "sync none"
OV_DESC=''
if [ "$HAS_OV" = 1 ]; then
	[ -d $NL_CFG ] || modprobe null_blk nr_devices=0 || fail "modprobe null_blk"
	[ -d $NL_CFG ] || mount -t configfs none /sys/kernel/config || fail "mount configfs"
	[ -d $NL_CFG ] || fail "no null_blk configfs ($NL_CFG)"
	OV_MODE=$([ "$BACKING" = brd ] && echo inline || echo timer)
	nl_make nlv0 "$OV_MB" "$OV_MODE"
	nl_make nlv1 "$OV_MB" "$OV_MODE"
	nl_make nlv2 8 "$OV_MODE"
	nl_make nlv3 8 "$OV_MODE"
	V0=/dev/nlv0 V1=/dev/nlv1 VM0=/dev/nlv2 VM1=/dev/nlv3 VM2='' VM3=''
	# DRBD's external metadata (drbd-C's ov-full)
	case " $CONFIGS " in
	*" drbd-C "*)
		nl_make nlv4 8 "$OV_MODE"
		nl_make nlv5 8 "$OV_MODE"
		VM2=/dev/nlv4 VM3=/dev/nlv5
		;;
	esac
	OVS=$(( $(dev_size "$V0") / 512 ))
	OV_DESC="null_blk,memory_backed=1,$([ "$BACKING" = brd ] && echo irqmode=0 || echo irqmode=2,completion_nsec=20000)"
	t=$(cut -d' ' -f1 /proc/uptime)
	# shellcheck disable=SC2086
	fio --name=ovfill --filename="$V0" --rw=write --bs=1m --ioengine=psync --direct=1 --size="${OV_MB}m" \
		--invalidate=0 --disk_util=0 $FIO_DATA --output-format=json --output=/tmp/fio-ovfill.json > /tmp/fio.err 2>&1 ||
		fail "fill $V0: $(tr '\n' ' ' < /tmp/fio.err | cut -c1-300)"
	$DD if="$V0" of="$V1" bs=1M count=$((OVS / 2048)) iflag=direct oflag=direct status=none || fail "copy $V0 to $V1"
	log "bench: verify devices $V0 $V1: $OVS sectors each ($OV_DESC), filled and copied in $(awk -v a="$t" '{ printf "%.1f", $1 - a }' /proc/uptime) s"
fi
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

emit "meta git=${nm_bench_git:-unknown} kernel=$(uname -r) fio=$(fio --version 2>/dev/null | tr ' ' _) ncpu=$NCPU mem=$(( $(awk '/^MemTotal:/ {print $2}' /proc/meminfo) / 1024 )) backing=$BACKING_DESC size_mb=$SIZE_MB meta=$([ "$META" = 1 ] && echo yes || echo no) data=$DATA rounds=$ROUNDS time=$TIME ramp=$RAMP$([ "$HAS_RS" = 1 ] && echo " part_mb=$PART_MB")$([ "$HAS_OV" = 1 ] && echo " ov_mb=$((OVS / 2048)) ov_backing=$OV_DESC") configs=$(csv "$CONFIGS") workloads=$(csv "$WORKLOADS")"

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
# the fast resync settings of every DRBD config but drbd-Cdef (attach)
DRBD_FAST="--c-plan-ahead=0 --resync-rate=4194304"
drbd_diskopts() { # fast | default: both minors
	local m
	for m in 0 1; do
		if [ "$1" = fast ]; then
			# shellcheck disable=SC2086
			$DRBDSETUP disk-options $m $DRBD_FAST || fail "drbd disk-options $m (fast)"
		else
			$DRBDSETUP disk-options $m --set-defaults || fail "drbd disk-options $m --set-defaults"
		fi
	done
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
		# shellcheck disable=SC2086
		$DRBDSETUP attach $m "$dev" "$dev" internal $DRBD_FAST || fail "drbd attach $m"
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
# nm_param CFG PARAM OFFCFG: module parameter PARAM is N for configuration
# OFFCFG, Y for the others; OFFCFG needs it (an older module lacks it)
nm_param() {
	local f=/sys/module/dm_netmirror/parameters/$2
	if [ -w "$f" ]; then
		if [ "$1" = "$3" ]; then echo N > "$f"; else echo Y > "$f"; fi
	elif [ "$1" = "$3" ]; then
		fail "bench: $3 needs the module parameter $2"
	fi
}
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
	nm-A|nm-B|nm-C|nm-Cmac|nm-Cthr|nm-Cackthr|nm-Cnomerge|nm-Cnobatch|nm-Crxthr|nm-Cnoprobe)
		zero_meta "$M0"
		zero_meta "$M1"
		# nm-Cthr: every write through the sender thread (target 1.8);
		# nm-Cackthr: every ack read by the receiver thread (1.9);
		# nm-Cnomerge: no write merging (1.12.1);
		# nm-Cnobatch: every ack sent right after its write (1.12.3);
		# nm-Crxthr: every packet read by the receiver thread (1.13.1);
		# nm-Cnoprobe: the worker reads whenever it may, never the
		# thread by the reader controller's choice (1.13.2)
		nm_param "$1" inline_send nm-Cthr
		nm_param "$1" fast_ack nm-Cackthr
		nm_param "$1" merge_writes nm-Cnomerge
		nm_param "$1" ack_batch nm-Cnobatch
		nm_param "$1" fast_rx nm-Crxthr
		nm_param "$1" fast_rx_probe nm-Cnoprobe
		if [ "$1" = nm-Cmac ]; then
			nm_local_pair C flush "$S" "$D0" "$D1" "$NM_META_A secret nm:bench" "$NM_META_B secret nm:bench"
		elif [ "$1" = nm-Cthr ] || [ "$1" = nm-Cackthr ] || [ "$1" = nm-Cnomerge ] || [ "$1" = nm-Cnobatch ] || [ "$1" = nm-Crxthr ] || [ "$1" = nm-Cnoprobe ]; then
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
	drbd-A|drbd-B|drbd-C|drbd-Cdef)
		# always a fresh connection, as netmirror's pairs are fresh
		[ "$DRBD_NOW" = disc ] || drbd_disconnect
		case $1 in
		drbd-Cdef)
			drbd_connect C
			drbd_diskopts default
			;;
		*) drbd_connect "${1#drbd-}" ;;
		esac
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
	nbd_down
	case $1 in
	nm-disc) dmsetup remove nmd || fail "remove nmd" ;;
	nm-*) nm_local_unpair ;;
	drbd-Cdef) drbd_diskopts fast ;;
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
	nm-A|nm-B|nm-C|nm-Cmac|nm-Cthr|nm-Cackthr|nm-Cnomerge|nm-Cnobatch|nm-Crxthr|nm-Cnoprobe)
		wait_eval "[ \$(nm_status nma pending) = 0 ]" 30 || log "bench: nma still has pending writes: $(dmsetup status nma)"
		same_sum "$1" "$2" "$D0" "$D1" $((S * 512))
		;;
	drbd-A|drbd-B|drbd-C|drbd-Cdef)
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
	PIN=
	if [ "${nm_bench_pin:-0}" = 1 ]; then
		PIN="taskset -c 0"
		for p in /proc/[0-9]*; do
			case $(cat "$p/comm" 2>/dev/null) in
			nm_*|drbd_*) taskset -pc 0 "${p#/proc/}" > /dev/null 2>&1 ;;
			esac
		done
	fi
	# shellcheck disable=SC2046,SC2086
	case $w in
	nbdr-*)
		# on the peer, whose /dev/nbd0 is DEV exported from here; its
		# JSON comes back on stdout
		on_peer "fio --name=$w --filename=/dev/nbd0 $(bench_fio_args "$w") $COMMON --output=/tmp/fio.json > /tmp/fio.err 2>&1; r=\$?; cat /tmp/fio.json; exit \$r" > /tmp/fio.json 2> /tmp/fio.err
		;;
	*) $PIN fio --name="$w" --filename="$DEV" $(bench_fio_args "$w") $COMMON --output=/tmp/fio.json > /tmp/fio.err 2>&1 ;;
	esac
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
	local rr4k rr512 st rrq rrq_tps rrq_cpu='' c0 c1
	rr4k=$(tcprr rr --req 4096 --count 2000 --port 7901)
	rr512=$(tcprr rr --req 512 --count 2000 --port 7902)
	st=$(tcprr stream --bytes 256M --port 7903)
	# the network's CPU per write at depth: 32 exchanges in flight, the
	# VM's CPU around them counted as a fio point's (cpu_snap)
	c0=$(cpu_snap)
	rrq=$(tcprr rr --req 4096 --depth 32 --count 10000 --port 7904) ||
		log "bench: the depth-32 request/response failed (no QD32 bound this round)"
	c1=$(cpu_snap)
	rrq_tps=$(echo "$rrq" | sed -n 's/.* tps=\([0-9]*\).*/\1/p')
	[ -n "$rrq_tps" ] && rrq_cpu=$(awk -v snap="$c0 $c1" -v ncpu="$NCPU" -v rate="$rrq_tps" -f /tests/bench-fio.awk)
	# the same 32 in flight over two connections of 16 (what several data
	# connections of one device could reach; tcprr --conns)
	local rrq2 rrq2_tps rrq2_cpu=''
	c0=$(cpu_snap)
	rrq2=$(tcprr rr --req 4096 --depth 32 --conns 2 --count 10000 --port 7905) ||
		log "bench: the depth-32 request/response over two connections failed"
	c1=$(cpu_snap)
	rrq2_tps=$(echo "$rrq2" | sed -n 's/.* tps=\([0-9]*\).*/\1/p')
	[ -n "$rrq2_tps" ] && rrq2_cpu=$(awk -v snap="$c0 $c1" -v ncpu="$NCPU" -v rate="$rrq2_tps" -f /tests/bench-fio.awk)
	local dr=
	# the resync's other limit: the source's sequential read (D0, where
	# nm-C's primary reads; D2 is DRBD's, the same kind of device)
	if [ "$HAS_RS" = 1 ]; then
		fio --name=diskread --filename="$D0" --rw=read --bs=1m --ioengine=psync --direct=1 \
			--time_based=1 --runtime=2 --invalidate=0 --output-format=json --output=/tmp/fio-read.json > /tmp/fio.err 2>&1
		dr=$(awk -v dir=read -f /tests/bench-fio.awk /tmp/fio-read.json 2>/dev/null | sed -n 's/.*mbs=\([0-9.]*\).*/\1/p')
		[ -n "$dr" ] || log "bench: disk read limit failed: $(head -c 300 /tmp/fio.err)"
	fi
	local ovr=
	# the verify's: a sequential read of one of its devices (V0: the
	# primary's copy; nothing uses it between the points)
	if [ "$HAS_OV" = 1 ]; then
		fio --name=ovread --filename="$V0" --rw=read --bs=1m --ioengine=psync --direct=1 \
			--time_based=1 --runtime=2 --invalidate=0 --output-format=json --output=/tmp/fio-read.json > /tmp/fio.err 2>&1
		ovr=$(awk -v dir=read -f /tests/bench-fio.awk /tmp/fio-read.json 2>/dev/null | sed -n 's/.*mbs=\([0-9.]*\).*/\1/p')
		[ -n "$ovr" ] || log "bench: verify device read limit failed: $(head -c 300 /tmp/fio.err)"
	fi
	emit "limit r=$1${dr:+ diskread=$dr}${ovr:+ ovread=$ovr} rr4k=$(echo "$rr4k" | sed -n 's/.* p50_us=\([0-9]*\).*/\1/p') rr4k_p99=$(echo "$rr4k" | sed -n 's/.* p99_us=\([0-9]*\).*/\1/p') rr512=$(echo "$rr512" | sed -n 's/.* p50_us=\([0-9]*\).*/\1/p') rr512_p99=$(echo "$rr512" | sed -n 's/.* p99_us=\([0-9]*\).*/\1/p') stream=$(echo "$st" | sed -n 's/.* mb_s=\([0-9.]*\).*/\1/p') rr4kq32=$rrq_tps rr4kq32_cpu=$rrq_cpu rr4kq32c2=$rrq2_tps rr4kq32c2_cpu=$rrq2_cpu"
}

# ---- resync points (rs-*: nm-C, drbd-C, drbd-Cdef) and the NBD export
# centiseconds since boot (busybox date has no %N)
now_cs() {
	local u
	read -r u _ < /proc/uptime
	echo "${u%.*}${u#*.}"
}
# DEV: F_conn F_disks F_reg F_rsb of a netmirror device, one dmsetup call
# (NM_SF_*: /tests/nm-status-fields.sh, through nmlib.sh)
F_conn='' F_disks='' F_reg='' F_rsb=''
# shellcheck disable=SC2154
nm_f() {
	local s
	s=$(dmsetup status "$1" 2>/dev/null) || return 1
	# shellcheck disable=SC2086
	set -- $s
	shift 3
	eval "F_conn=\${$((NM_SF_connection + 1))} F_disks=\${$((NM_SF_disks + 1))} F_reg=\${$((NM_SF_regions + 1))} F_rsb=\${$((NM_SF_resync_bytes + 1))}"
}
# RS_STATE of the resync, one look: "done" (both nodes connected,
# uptodate/uptodate, every region in sync; both: right after an invalidate
# the primary may still show the old connection for a moment), "running"
# (netmirror: nma sync_source or nmb sync_target), else "other" (netmirror
# after an invalidate or a connect: the link is reconnecting)
nm_rs_state() {
	local a b
	RS_STATE=other
	nm_f nma || return 0
	a="$F_conn $F_disks ${F_reg%/*} ${F_reg#*/}"
	nm_f nmb || return 0
	b="$F_conn $F_disks ${F_reg%/*} ${F_reg#*/}"
	case "$a|$b" in
	"sync_source "*|*"|sync_target "*) RS_STATE=running ;;
	"connected uptodate/uptodate "*"|connected uptodate/uptodate "*)
		# shellcheck disable=SC2086
		set -- $a $b
		[ "$3" = "$4" ] && [ "$7" = "$8" ] && RS_STATE="done"
		;;
	esac
}
# DRBD: done = both minors Connected UpToDate/UpToDate; running = minor 0
# SyncSource or minor 1 SyncTarget
drbd_rs_state() {
	RS_STATE=$(awk '/^ *[01]: cs:/ { n++; if ($2 != "cs:Connected" || $4 != "ds:UpToDate/UpToDate") bad = 1
			if (($1 == "0:" && $2 == "cs:SyncSource") || ($1 == "1:" && $2 == "cs:SyncTarget")) run = 1 }
		END { print (n == 2 && !bad) ? "done" : run ? "running" : "other" }' /proc/drbd)
}
rs_state() { # CFG
	case $1 in
	nm-*) nm_rs_state ;;
	*) drbd_rs_state ;;
	esac
}
# bytes resynced so far: netmirror: the secondary's resync_bytes counter;
# DRBD (after an invalidate, when all of it was out of sync): the bytes no
# longer out of sync on minor 0
rs_progress() { # CFG
	case $1 in
	nm-*) nm_f nmb && echo "$F_rsb" ;;
	*) echo $((DRBD_BYTES - $(drbd_field 0 oos) * 1024)) ;;
	esac
}
# the secondary throws its data away: all of it is resynced from the primary
rs_trigger() { # CFG
	case $1 in
	nm-*) dmsetup message nmb 0 invalidate ;;
	*) $DRBDSETUP invalidate 1 ;;
	esac
}
RS_TMO=${nm_bench_rs_timeout:-300}
# ---- the kernel log's clock (klog): dmesg's printk timestamps (seconds,
# microseconds).  A marker line written to /dev/kmsg right before the
# trigger ("nmbench trigger K CFG WL", K counts the resyncs of the run) is
# the trigger's time; after it, the source's first "started" line and the
# first "finished" line after that are the resync's start and end:
# netmirror's primary nma (its "253:N" in the log) "resync started: N
# regions to send" and "resync finished: the peer takes generation ...";
# DRBD's minor 0 "Began resync as SyncSource (...)" and "Resync done
# (total ...)".  A line missing (or dmesg without timestamps): the polled
# times (clock=poll).
[ -w /sys/module/printk/parameters/time ] && echo Y > /sys/module/printk/parameters/time 2>/dev/null
RS_K=0 RS_MARK=''
rs_mark() { # CFG WL
	RS_K=$((RS_K + 1))
	RS_MARK="nmbench trigger $RS_K $1 $2"
	echo "$RS_MARK" > /dev/kmsg 2>/dev/null || RS_MARK=''
}
# the source's two lines (fixed strings) of CFG: RS_KS RS_KE
rs_klog_pat() { # CFG
	local d
	case $1 in
	nm-*)
		d=$(dmsetup info -c --noheadings -o major,minor nma 2>/dev/null | tr -d ' ')
		RS_KS="netmirror: $d: resync started: " RS_KE="netmirror: $d: resync finished: "
		[ -n "$d" ] || RS_KS='' RS_KE=''
		;;
	*) RS_KS="block drbd0: Began resync as SyncSource" RS_KE="block drbd0: Resync done (" ;;
	esac
}
# RS_KT0 RS_KRUN RS_KEND: the marker's, the start's and the end's times
# (seconds) or empty; the end line may come a moment after the polls saw
# the resync over: up to 5 more looks 0.1 s apart
rs_klog() { # CFG
	local try=0 l
	RS_KT0='' RS_KRUN='' RS_KEND=''
	[ -n "$RS_MARK" ] || return 0
	rs_klog_pat "$1"
	[ -n "$RS_KS" ] || return 0
	while :; do
		l=$(dmesg 2>/dev/null | awk -v mark="$RS_MARK" -v s="$RS_KS" -v e="$RS_KE" '
			function ts(l,   x) {
				if (!match(l, /^\[ *[0-9]+\.[0-9]+\]/)) return ""
				x = substr(l, 2, RLENGTH - 2); gsub(/ /, "", x); return x
			}
			!m { n = length($0) - length(mark); if (n > 0 && substr($0, n + 1) == mark && substr($0, n, 1) == " ") { m = 1; t0 = ts($0) } next }
			run == "" { if (index($0, s)) run = ts($0); next }
			end == "" && index($0, e) { end = ts($0) }
			END { if (t0 != "" && run != "" && end != "") print t0, run, end }')
		if [ -n "$l" ]; then
			# shellcheck disable=SC2086
			set -- $l
			RS_KT0=$1 RS_KRUN=$2 RS_KEND=$3
			return 0
		fi
		try=$((try + 1))
		[ $try -le 5 ] || return 0
		sleep 0.1
	done
}
# The three times of a resync, in centiseconds of /proc/uptime (10 ms):
# RS_T0 the trigger (invalidate, or rs-part's connect), RS_RUN the first
# poll that saw it running, RS_END the first that saw it in sync.  connect
# = RS_RUN - RS_T0 (netmirror's invalidate and rs-part's connect: the
# reconnect and the bitmap exchange; DRBD's invalidate: its state change),
# transfer = RS_END - RS_RUN, total = RS_END - RS_T0.  A resync over between
# two polls before any poll saw it running: RS_RUN = RS_END (RS_SEEN=no),
# so connect is the total as observed and transfer 0 (its true length is
# below one poll interval: no transfer rate then).
rs_start() {
	RS_RUN='' RS_END='' RS_SEEN=''
	RS_T0=$(now_cs)
}
# one poll: sets RS_RUN, RS_END; true once in sync
rs_poll() { # CFG
	local t
	rs_state "$1"
	t=$(now_cs)
	case $RS_STATE in
	done)
		RS_END=$t
		[ -n "$RS_RUN" ] || RS_RUN=$t RS_SEEN=no
		return 0
		;;
	running) [ -n "$RS_RUN" ] || RS_RUN=$t RS_SEEN=yes ;;
	esac
	return 1
}
# poll every 0.1 s until the resync is over, or SECS
rs_wait() { # CFG SECS
	local end=$(( $(now_cs) + $2 * 100 ))
	while ! rs_poll "$1"; do
		[ "$(now_cs)" -lt "$end" ] || return 1
		sleep 0.1
	done
}
# "connect= transfer= secs= [mibs= mbs=] [mibs_all= mbs_all=] seen= clock=
# [pconnect= ptransfer= psecs=]" of BYTES resynced.  clock=klog (rs_klog
# found the marker and both lines): the three times from the kernel log
# (3 decimals), pconnect/ptransfer/psecs the polled ones; clock=poll: the
# polled times.  mibs/mbs over the transfer seconds (polled: none if it was
# never seen running), mibs_all/mbs_all over the total (incl. the
# reconnect); a time of 0 counts as the clock's resolution (1 cs polled, 1
# us klog); no BYTES: no rates.  Into RS_TIMES (not a subshell: also sets
# RS_CLOCK and RS_XFER, the clock and the transfer seconds, for rs-app)
rs_times() { # [BYTES]
	local o
	o=$(awk -v b="${1:-}" -v t0="$RS_T0" -v run="$RS_RUN" -v end="$RS_END" -v seen="$RS_SEEN" \
		-v k0="$RS_KT0" -v krun="$RS_KRUN" -v kend="$RS_KEND" 'BEGIN {
		c = (run - t0) / 100; x = (end - run) / 100; a = (end - t0) / 100; clk = "poll"; f = "%.2f"; res = 0.01
		if (k0 != "" && krun != "" && kend != "" && krun + 0 >= k0 + 0 && kend + 0 >= krun + 0) {
			pc = c; px = x; pa = a; clk = "klog"; f = "%.3f"; res = 0.000001
			c = krun - k0; x = kend - krun; a = kend - k0
		}
		printf "connect=" f " transfer=" f " secs=" f, c, x, a
		if (b != "" && (seen == "yes" || clk == "klog")) { if (x < res) x = res; printf " mibs=%.2f mbs=%.2f", b / 1048576 / x, b / 1e6 / x }
		if (a < res) a = res
		if (b != "") printf " mibs_all=%.2f mbs_all=%.2f", b / 1048576 / a, b / 1e6 / a
		printf " seen=%s clock=%s", seen, clk
		if (clk == "klog") printf " pconnect=%.2f ptransfer=%.2f psecs=%.2f", pc, px, pa
		printf "|%s %s\n", clk, x }')
	RS_CLOCK=${o##*|}
	RS_XFER=${RS_CLOCK#* } RS_CLOCK=${RS_CLOCK%% *}
	RS_TIMES=${o%|*}
}
rs_bad() { # R CFG WL WHY
	emit "sample r=$1 cfg=$2 wl=$3 err=$4"
	check_bad "resync/$2/$3" "round $1: $4: $(cfg_state "$2")"
}
# writes completed on DEV (field 5 of /sys/block/NAME/stat): the
# application's, as the resync reads and writes the backing devices
dev_writes() { # DEV
	local n
	case $1 in
	/dev/mapper/*) n=dm-$(dmsetup info -c --noheadings -o minor "${1#/dev/mapper/}" | tr -d ' ') ;;
	*) n=${1#/dev/} ;;
	esac
	awk '{ print $5 }' "/sys/block/$n/stat"
}
# rs-full: the secondary is invalidated; connect, transfer and total
# seconds (rs_start); MiB/s = the device's bytes / transfer seconds, and /
# total seconds (incl. the reconnect)
rs_full() { # R CFG
	local r="$1" c="$2" bytes b0=0 rsb=
	case $c in nm-*) bytes=$((S * 512)); b0=$(rs_progress "$c") ;; *) bytes=$DRBD_BYTES ;; esac
	rs_mark "$c" rs-full
	rs_start
	rs_trigger "$c" || { rs_bad "$r" "$c" rs-full trigger-failed; return 0; }
	rs_wait "$c" "$RS_TMO" || { rs_bad "$r" "$c" rs-full timeout; return 0; }
	case $c in nm-*) rsb=$(( $(rs_progress "$c") - b0 )) ;; esac
	rs_klog "$c"
	rs_times "$bytes"
	emit "sample r=$r cfg=$c wl=rs-full $RS_TIMES bytes=$bytes${rsb:+ rsbytes=$rsb}"
}
# rs-part: disconnected, PART_MB MiB of random 64 KiB writes on the primary
# (fio, fixed seed), reconnected; the three times from the reconnect;
# MiB/s = the bytes marked out of sync (netmirror: out-of-sync regions x
# region size; DRBD: minor 0's oos) / transfer seconds, and / total
rs_part() { # R CFG
	local r="$1" c="$2" marked b0=0 rsb='' tot ins
	case $c in
	nm-*)
		dmsetup message nmb 0 disconnect || fail "rs-part: disconnect nmb"
		wait_eval "[ \"\$(nm_status nmb connection)\" = standalone ] && [ \"\$(nm_status nma connection)\" != connected ]" 20 ||
			fail "rs-part: not disconnected: $(cfg_state "$c")"
		;;
	*) drbd_disconnect ;;
	esac
	# shellcheck disable=SC2046,SC2086
	fio --name=rs-part --filename="$DEV" $(bench_fio_args rs-part) --io_size="${PART_MB}m" --direct=1 \
		--invalidate=0 --disk_util=0 $FIO_DATA --output-format=json --output=/tmp/fio.json > /tmp/fio.err 2>&1 ||
		check_bad "fio/$c/rs-part" "round $r: $(tr '\n' ' ' < /tmp/fio.err | cut -c1-300)"
	case $c in
	nm-*)
		nm_f nma
		tot=${F_reg#*/} ins=${F_reg%/*}
		marked=$(( (tot - ins) * (S * 512 / tot) ))
		b0=$(rs_progress "$c")
		;;
	*) marked=$(( $(drbd_field 0 oos) * 1024 )) ;;
	esac
	rs_mark "$c" rs-part
	rs_start
	case $c in
	nm-*) dmsetup message nmb 0 connect || fail "rs-part: connect nmb" ;;
	*)
		$DRBDSETUP connect r0 $DA $DB --protocol=C || fail "rs-part: drbd connect r0"
		$DRBDSETUP connect r1 $DB $DA --protocol=C || fail "rs-part: drbd connect r1"
		DRBD_NOW=C
		;;
	esac
	rs_wait "$c" "$RS_TMO" || { rs_bad "$r" "$c" rs-part timeout; return 0; }
	case $c in nm-*) rsb=$(( $(rs_progress "$c") - b0 )) ;; esac
	rs_klog "$c"
	rs_times "$marked"
	emit "sample r=$r cfg=$c wl=rs-part $RS_TIMES bytes=$marked${rsb:+ rsbytes=$rsb} wmib=$PART_MB"
}
# rs-app: the application (w4k-q1's fio) runs RAMP s alone, then the
# secondary is invalidated.  The window starts when the resync is first
# seen running and ends when it is over or the application stops (RAMP +
# TIME s after its start), whichever is first: iops = the application's
# writes in the window (the device's write counter at its start and end) /
# its length; rs_mibs = resynced MiB in the window / its length.  If the
# resync was not seen running while the application ran (it was still
# reconnecting when the application stopped, or it was over between two
# polls before one saw it running): window=none, no iops/rs_mibs/rs_mib.
# connect, transfer, secs: the three times of the resync (it may outlast
# the application); done = yes if it ended inside the window
rs_app() { # R CFG
	local r="$1" c="$2" fp rc w0='' b0='' tw0='' tw ww bw done=no all win bytes
	rm -f /tmp/fio.json
	# shellcheck disable=SC2046,SC2086
	fio --name=rs-app --filename="$DEV" $(bench_fio_args rs-app) --direct=1 --time_based=1 \
		--runtime=$((RAMP + TIME)) --invalidate=0 --disk_util=0 $FIO_DATA \
		--output-format=json --output=/tmp/fio.json > /tmp/fio.err 2>&1 &
	fp=$!
	sleep "$RAMP"
	rs_mark "$c" rs-app
	rs_start
	if ! rs_trigger "$c"; then
		wait $fp
		rs_bad "$r" "$c" rs-app trigger-failed
		return 0
	fi
	while :; do
		if rs_poll "$c"; then
			[ "$RS_SEEN" = yes ] && done=yes
			break
		fi
		kill -0 $fp 2>/dev/null || break
		if [ -n "$RS_RUN" ] && [ -z "$tw0" ]; then
			# the window starts: the counters right after the poll
			tw0=$RS_RUN
			w0=$(dev_writes "$DEV")
			b0=$(rs_progress "$c")
		fi
		sleep 0.1
	done
	tw=$(now_cs)
	if [ -n "$tw0" ]; then
		ww=$(dev_writes "$DEV")
		bw=$(rs_progress "$c")
	fi
	wait $fp
	rc=$?
	[ $rc = 0 ] || check_bad "fio/$c/rs-app" "round $r: fio exit $rc: $(tr '\n' ' ' < /tmp/fio.err | cut -c1-300)"
	if [ -z "$RS_END" ] && ! rs_wait "$c" "$RS_TMO"; then
		rs_bad "$r" "$c" rs-app timeout
		return 0
	fi
	all=$(awk -f /tests/bench-fio.awk /tmp/fio.json 2>/dev/null | sed -n 's/.*iops=\([0-9.]*\).*/\1/p')
	rs_klog "$c"
	rs_times
	# the resync's rate: over the kernel log's transfer when there is one
	# and the resync ended inside the window (all of it ran with the
	# application): the device's bytes / those seconds; else the bytes
	# resynced in the (polled) window / its length
	case $c in nm-*) bytes=$((S * 512)) ;; *) bytes=$DRBD_BYTES ;; esac
	if [ -n "$tw0" ]; then
		win=$(awk -v w="$((ww - w0))" -v b="$((bw - b0))" -v cs="$((tw - tw0))" -v k="$([ "$RS_CLOCK$done" = klogyes ] && echo "$RS_XFER")" -v all="$bytes" 'BEGIN {
			if (cs < 1) cs = 1; s = cs / 100
			printf "iops=%.1f window=%.2f", w / s, s
			if (k != "") { if (k < 0.000001) k = 0.000001; printf " rs_mibs=%.2f rs_clock=klog", all / 1048576 / k }
			else printf " rs_mibs=%.2f rs_clock=poll", b / 1048576 / s
			printf " rs_mib=%.2f", b / 1048576 }')
	else
		win="window=none"
	fi
	emit "sample r=$r cfg=$c wl=rs-app $win $RS_TIMES done=$done${all:+ app_iops_all=$all}"
}

# ---- ov-full: online verify of a 1 GiB pair of its own (V0, V1): nm-C's
# netmirror pair nmva/nmvb, or drbd-C's DRBD minors 2/3
OV_TMO=${nm_bench_ov_timeout:-600}
# DEV: F_ov F_ovs F_ovt F_ovd: verify, verify_sectors, verify_total,
# verify_diffs of a netmirror device, one dmsetup call
F_ov='' F_ovs='' F_ovt='' F_ovd=''
# shellcheck disable=SC2154
nm_ov_f() {
	local s
	s=$(dmsetup status "$1" 2>/dev/null) || return 1
	# shellcheck disable=SC2086
	set -- $s
	shift 3
	eval "F_ov=\${$((NM_SF_verify + 1))} F_ovs=\${$((NM_SF_verify_sectors + 1))} F_ovt=\${$((NM_SF_verify_total + 1))} F_ovd=\${$((NM_SF_verify_diffs + 1))}"
}
# The kernel log after the marker RS_MARK: OV_KT0 OV_KRUN OV_KEND (the
# marker's, the start line's and the done line's times, seconds),
# OV_KDIFFS (blocks found differing) and OV_KMS (the kernel's own ms), or
# empty.  nm DMDEV: netmirror's "verify started: " and "verify done: N
# sectors in M ms (K KiB/s), D blocks differ" of DMDEV (its 253:N); drbd
# MINOR: DRBD 8.4's "block drbdN: Starting Online Verify from sector" and
# "block drbdN: Online verify done (total N sec; ...)", D from its "Online
# verify found D 4k block out of sync!" line (none: 0), no M.  The done
# line may come a moment after the polls saw the verify over: up to 5 more
# looks 0.1 s apart
ov_klog() { # nm DMDEV | drbd MINOR
	local try=0 l d s e f=''
	OV_KT0='' OV_KRUN='' OV_KEND='' OV_KMS='' OV_KDIFFS=''
	[ -n "$RS_MARK" ] || return 0
	if [ "$1" = nm ]; then
		d=$(dmsetup info -c --noheadings -o major,minor "$2" 2>/dev/null | tr -d ' ')
		[ -n "$d" ] || return 0
		s="netmirror: $d: verify started: " e="netmirror: $d: verify done: "
	else
		s="block drbd$2: Starting Online Verify from sector" e="block drbd$2: Online verify done" f="block drbd$2: Online verify found "
	fi
	while :; do
		l=$(dmesg 2>/dev/null | awk -v mark="$RS_MARK" -v s="$s" -v e="$e" -v f="$f" -v mode="$1" '
			function ts(l,   x) {
				if (!match(l, /^\[ *[0-9]+\.[0-9]+\]/)) return ""
				x = substr(l, 2, RLENGTH - 2); gsub(/ /, "", x); return x
			}
			!m { n = length($0) - length(mark); if (n > 0 && substr($0, n + 1) == mark && substr($0, n, 1) == " ") { m = 1; t0 = ts($0) } next }
			run == "" { if (index($0, s)) run = ts($0); next }
			f != "" && end == "" && (i = index($0, f)) { split(substr($0, i + length(f)), a, " "); diffs = a[1] }
			end == "" && (i = index($0, e)) {
				end = ts($0)
				if (mode == "nm") { split(substr($0, i + length(e)), a, " "); ms = a[4]; diffs = a[8] }
				else { ms = "-"; if (diffs == "") diffs = 0 }
			}
			END { if (t0 != "" && run != "" && end != "" && ms ~ /^([0-9]+|-)$/ && diffs ~ /^[0-9]+$/) print t0, run, end, ms, diffs }')
		if [ -n "$l" ]; then
			# shellcheck disable=SC2086
			set -- $l
			OV_KT0=$1 OV_KRUN=$2 OV_KEND=$3 OV_KMS=$4 OV_KDIFFS=$5
			[ "$OV_KMS" != - ] || OV_KMS=''
			return 0
		fi
		try=$((try + 1))
		[ $try -le 5 ] || return 0
		sleep 0.1
	done
}
ov_bad() { # R CFG WL WHY
	emit "sample r=$1 cfg=$2 wl=$3 err=$4"
	check_bad "verify/$2/$3" "round $1: $4: $(ov_state "$2")"
}
ov_state() { # CFG
	case $1 in
	nm-*) echo "nmva $(dmsetup status nmva 2>/dev/null | cut -d' ' -f4-)" ;;
	*) tr '\n' ' ' < /proc/drbd | sed 's/^.*srcversion: [^ ]* *//' ;;
	esac
}
ov_down() { # CFG
	case $1 in
	nm-*)
		dmsetup remove nmva || fail "remove nmva"
		dmsetup remove nmvb || fail "remove nmvb"
		;;
	*)
		$DRBDSETUP down r2 || fail "drbd down r2"
		$DRBDSETUP down r3 || fail "drbd down r3"
		;;
	esac
}
# the sample and the check of a verify over: R CFG T0 T1 (polled, cs)
# BYTES SECTORS TOTAL DIFFS ERR; ERR empty: DIFFS (and the log's) must be 0
ov_emit() {
	local r="$1" c="$2" w=ov-full err="$9"
	[ -n "$err" ] || [ "$8" = 0 ] || err="diffs-$8"
	[ -n "$err" ] || [ -z "$OV_KDIFFS" ] || [ "$OV_KDIFFS" = 0 ] || err="logged-diffs-$OV_KDIFFS"
	emit "sample r=$r cfg=$c wl=$w $(awk -v b="$5" -v p0="$3" -v p1="$4" -v k0="$OV_KT0" -v krun="$OV_KRUN" \
		-v kend="$OV_KEND" -v kms="$OV_KMS" 'BEGIN {
		ps = (p1 - p0) / 100; s = ps; clk = "poll"; f = "%.2f"; res = 0.01
		if (k0 != "" && krun != "" && kend != "" && krun + 0 >= k0 + 0 && kend + 0 >= krun + 0) {
			s = kend - krun; clk = "klog"; f = "%.3f"; res = 0.000001
		}
		printf "ovsecs=" f, s
		if (s < res) s = res
		printf " ovmibs=%.2f ovmbs=%.2f", b / 1048576 / s, b / 1e6 / s
		if (kms != "") printf " kms=%d kmibs=%.2f", kms, b / 1048576 / (kms > 0 ? kms / 1000 : 0.001)
		printf " clock=%s psecs=%.2f", clk, ps }') bytes=$5 sectors=$6 total=$7 diffs=$8${OV_KDIFFS:+ kdiffs=$OV_KDIFFS}${err:+ err=$err}"
	if [ -n "$err" ]; then
		check_bad "verify/$c/$w" "round $r: $err: $(ov_state "$c")"
	else
		check_ok "verify/$c/$w"
	fi
}
# ov-full on nm-C: the pair nmva (primary, V0) / nmvb (V1), protocol C,
# ordering flush, metadata as the run's netmirror pairs (VM0, VM1, zeroed:
# a first connection), "sync none" (the copies are equal: no initial
# sync); the "verify" message on nmva, polled every 0.1 s until its status
# leaves "running".  secs: "verify started" to "verify done" in the kernel
# log (clock=klog), else the message to the first poll that saw it over
# (clock=poll); MiB/s = the sectors compared x 512 / secs; kmibs over the
# kernel's own ms of the done line.  A verify not "done", with sectors left
# uncompared, or with a differing block (status or log): err=, and the
# check verify/CFG/ov-full FAILs
ov_nm() { # R CFG
	local r="$1" c="$2" w=ov-full ma='' mb='' na nb t0 t1 err=''
	if [ "$META" = 1 ]; then
		zero_meta "$VM0"
		zero_meta "$VM1"
		ma="meta $VM0" mb="meta $VM1"
	fi
	# shellcheck disable=SC2086
	na=$((6 + $(echo $ma | wc -w))) nb=$((4 + $(echo $mb | wc -w)))
	dmsetup create nmvb --table "0 $OVS netmirror $V1 127.0.0.1:7791 C flush $nb listen 127.0.0.1:7792 sync none${mb:+ $mb}" ||
		fail "create nmvb"
	dmsetup create nmva --table "0 $OVS netmirror $V0 127.0.0.1:7792 C flush $na listen 127.0.0.1:7791 role primary sync none${ma:+ $ma}" ||
		fail "create nmva"
	if ! nm_wait_synced nmva 60 || ! nm_wait_synced nmvb 30; then
		ov_bad "$r" "$c" $w not-connected
		ov_down "$c"
		return 0
	fi
	log "bench round $r $c $w: nmva $(dmsetup status nmva | cut -d' ' -f4-) | nmvb $(dmsetup status nmvb | cut -d' ' -f4-)"
	rs_mark "$c" $w
	t0=$(now_cs)
	if ! dmsetup message nmva 0 verify; then
		ov_bad "$r" "$c" $w trigger-failed
		ov_down "$c"
		return 0
	fi
	t1=$((t0 + OV_TMO * 100))
	while nm_ov_f nmva && [ "$F_ov" = running ] && [ "$(now_cs)" -lt $t1 ]; do
		sleep 0.1
	done
	t1=$(now_cs)
	nm_ov_f nmva
	ov_klog nm nmva
	[ "$F_ov" = "done" ] || err="verify-$F_ov"
	if [ -z "$err" ] && { [ "$F_ovs" != "$F_ovt" ] || [ "$F_ovt" != "$OVS" ]; }; then
		err="incomplete-$F_ovs-of-$OVS"
	fi
	ov_emit "$r" "$c" "$t0" "$t1" $((F_ovs * 512)) "$F_ovs" "$F_ovt" "$F_ovd" "$err"
	ov_down "$c"
}
# ov-full on drbd-C: DRBD 8.4 minors 2 (V0) and 3 (V1), resources r2/r3,
# external metadata (flexible, on VM2/VM3: the whole 1 GiB is DRBD's
# device, as netmirror's), DRBD_FAST, connected over 127.0.0.1:7802/7803
# with --protocol=C --verify-alg=crc32c (netmirror's digest); the initial
# sync skipped (new-current-uuid --clear-bitmap: the copies are equal);
# "drbdsetup verify 2" polled every 0.1 s until minor 2 is no longer
# VerifyS.  secs: "Starting Online Verify" to "Online verify done" in the
# kernel log, else polled; differing: minor 2's oos (KiB / 4) and the
# log's "Online verify found" count; no kms (DRBD logs whole seconds)
OV_DA=ipv4:127.0.0.1:7802 OV_DB=ipv4:127.0.0.1:7803
ov_drbd() { # R CFG
	local r="$1" c="$2" w=ov-full m dev md t0 t1 err='' cs oos bytes
	for m in 2 3; do
		if [ $m = 2 ]; then dev=$V0 md=$VM2; else dev=$V1 md=$VM3; fi
		drbdmeta --force $m v08 "$md" flex-external create-md >/dev/null 2>&1 </dev/null ||
			fail "drbdmeta create-md $m ($md)"
		$DRBDSETUP new-resource r$m || fail "drbd new-resource r$m"
		$DRBDSETUP new-minor r$m $m 0 || fail "drbd new-minor $m"
		# shellcheck disable=SC2086
		$DRBDSETUP attach $m "$dev" "$md" flexible $DRBD_FAST || fail "drbd attach $m ($dev, meta $md)"
	done
	$DRBDSETUP connect r2 $OV_DA $OV_DB --protocol=C --verify-alg=crc32c || fail "drbd connect r2"
	$DRBDSETUP connect r3 $OV_DB $OV_DA --protocol=C --verify-alg=crc32c || fail "drbd connect r3"
	if ! wait_for "[ \"\$($DRBDSETUP cstate 2)\" = Connected ]" 30; then
		ov_bad "$r" "$c" $w not-connected
		ov_down "$c"
		return 0
	fi
	$DRBDSETUP new-current-uuid 2 --clear-bitmap || fail "drbd new-current-uuid 2 --clear-bitmap"
	if ! wait_for "[ \"\$($DRBDSETUP dstate 2)\" = UpToDate/UpToDate ] && [ \"\$($DRBDSETUP cstate 2)\" = Connected ]" 30; then
		ov_bad "$r" "$c" $w not-uptodate
		ov_down "$c"
		return 0
	fi
	# sysfs: a Secondary DRBD device cannot be opened (blockdev fails
	# with "Wrong medium type")
	bytes=$(( $(cat /sys/block/drbd2/size 2>/dev/null || echo 0) * 512 ))
	log "bench round $r $c $w: $(ov_state "$c")"
	rs_mark "$c" $w
	t0=$(now_cs)
	if ! $DRBDSETUP verify 2; then
		ov_bad "$r" "$c" $w trigger-failed
		ov_down "$c"
		return 0
	fi
	t1=$((t0 + OV_TMO * 100))
	while cs=$($DRBDSETUP cstate 2) && { [ "$cs" = VerifyS ] || [ "$cs" = VerifyT ]; } && [ "$(now_cs)" -lt $t1 ]; do
		sleep 0.1
	done
	t1=$(now_cs)
	cs=$($DRBDSETUP cstate 2)
	ov_klog drbd 2
	[ "$cs" = Connected ] || err="verify-$cs"
	[ "$bytes" = $((OVS * 512)) ] || err=${err:-size-$bytes}
	oos=$(drbd_field 2 oos)
	ov_emit "$r" "$c" "$t0" "$t1" "$bytes" $((bytes / 512)) $((bytes / 512)) $(( ${oos:-0} / 4 )) "$err"
	ov_down "$c"
}
ov_full() { # R CFG
	case $2 in
	nm-*) ov_nm "$@" ;;
	*) ov_drbd "$@" ;;
	esac
}

# nbd-*: DEV exported as "bench" and attached as /dev/nbd0 in this VM
# (benchlib.sh's nbd_export: sync = true, every write reaches DEV before its
# reply); nbdr-*: attached on the peer VM instead (nbd_up remote); started
# at the configuration's first point of its kind, stopped at a point of the
# other kind and before the integrity check
NBD_PID='' NBD_AT=''
nbd_up() { # [remote]
	[ -n "$NBD_PID" ] && [ "$NBD_AT" = "${1:-}" ] && return 0
	nbd_down
	nbd_export "$DEV" bench /tmp/nbd ${1:+"$1"}
	NBD_AT=${1:-}
	log "bench: $DEV exported by nbd-server (pid $NBD_PID) as /dev/nbd0 $([ -n "$NBD_AT" ] && echo "on the peer, $(tail -n 1 /tmp/nbd-client.err)" || echo "here, $(dev_size /dev/nbd0)") bytes"
}
nbd_down() {
	[ -n "$NBD_PID" ] || return 0
	nbd_unexport /tmp/nbd ${NBD_AT:+"$NBD_AT"} || log "bench: nbd-server still running: $(pidof nbd-server)"
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
			bench_applies "$c" "$w" || continue
			case $w in
			rs-full) rs_full $R "$c" ;;
			rs-part) rs_part $R "$c" ;;
			rs-app) rs_app $R "$c" ;;
			ov-full) ov_full $R "$c" ;;
			nbd-*|nbdr-*)
				case $w in nbdr-*) nbd_up remote ;; *) nbd_up ;; esac
				DEV0=$DEV DEV=/dev/nbd0
				run_point $R "$c" "$w"
				DEV=$DEV0
				;;
			*) run_point $R "$c" "$w" ;;
			esac
		done
		nbd_down
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
