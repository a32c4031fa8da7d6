# shellcheck shell=sh disable=SC3043
# Helpers of the power-loss, ordering, teardown and slow-metadata durability
# tests (tests/vm/guest/dur-powerloss.sh, dur-ordering.sh, dur-teardown.sh,
# dur-slowmeta.sh; issue 10); installed as /tests/dur-power-lib.sh.  busybox
# ash; source after lib.sh, nmlib.sh and dur-lib.sh.  Not a test itself.
#
# A volatile write cache that loses power: configfs null_blk (6.1) with
# memory_backed=1 and cache_size=<MB>.  Writes land in the cache, a flush
# (or FUA) moves them to the "media"; `power` 0 deletes the disk and frees
# the cache unwritten (null_del_dev -> null_free_device_storage(dev, true),
# drivers/block/null_blk/main.c), the media lives in the configfs item and
# is there again after `power` 1, as /dev/NAME.  dur-powerloss checks this
# first (nullblk/*).
#
#   nl_create NAME MB [CMB]   fresh (zeroed) cached null_blk /dev/NAME of MB
#                         MiB (cache CMB MiB, default as big as the device:
#                         nothing is written back before a flush; 0: no
#                         cache, a completed write is on the media)
#   nl_power NAME 0|1     cut / restore power (0: unflushed writes are lost,
#                         the disk disappears; I/O to it fails)
#   nl_destroy NAME       power off and remove it (its media freed)
#   wire_cut / wire_restore   "ip link set lo down|up": both nodes of a
#                         one-VM pair (127.0.0.1) stop hearing each other at
#                         once, TCP connections stay (a frozen wire, as when a
#                         node loses power: nothing it does afterwards reaches
#                         its peer)
#   now_ms                milliseconds since boot (busybox date has no %N)
#   remove_retry DEV WHAT   dmsetup remove DEV, retried for 10 s (a device
#                         whose disk lost power ends its I/O first); fails
#                         the test naming WHAT
#   seqw_snap PREFIX J SNAP   copy the J log files of a running seqw writer
#                         (PREFIX.j) to SNAP.j: the writes acknowledged so far
#   seqw_acked PREFIX J   number of writes listed in PREFIX.0..J-1
#   flushes_setup         /dev/ram0 (32 MiB) and, for the flushes below,
#                         lowb, a linear over a fresh cached null_blk nlb
#                         of 32 MiB ($S sectors); flushes_teardown removes
#                         lowb and nlb
#   flushes_good DM DEV   dm device DM (of $S sectors) all linear over DEV
#   flushes_bad DM DEV    the same, its last MiB a dm-flakey segment "down":
#                         every flush of DM fails (dm sends a flush to every
#                         target), writes to the linear part succeed; DEV
#                         needs a write cache, or the block layer completes
#                         the flush before dm sees it (fault-flushfail,
#                         fault-rsflush)
#   lowb_set ok|bad|slowbad   nmb's disk lowb, $S sectors over /dev/ram1,
#                         whose MiB at sector $BAD is good, dm "error", or
#                         a dm-delay (3 s) over the dm device errb (created
#                         by the caller: "0 2048 error"); lowb_held prints
#                         how many writes sit in that delay
#   secfail_write_cut     nma writes /tmp/w (64 KiB) at $BAD in the
#                         background (its exit status in /tmp/w.rc, the
#                         caller waits), lowb slowbad: once the write is held
#                         in nmb's delay (at most 10 s) the wire is cut, so
#                         that nmb's disk fails it after the link is lost;
#                         1 if it was never held (the wire cut anyway)
#                         (fault-secfailcut, dur-secfailpower)

NL_CFG=/sys/kernel/config/nullb

nl_init() {
	grep -q '^null_blk ' /proc/modules || modprobe null_blk nr_devices=0 || fail "modprobe null_blk"
	[ -d $NL_CFG ] || mount -t configfs none /sys/kernel/config 2>/dev/null
	[ -d $NL_CFG ] || fail "no null_blk configfs ($NL_CFG)"
}

nl_create() {
	local n=$1 mb=$2 cmb=${3:-$2} d
	nl_init
	d=$NL_CFG/$n
	[ -d "$d" ] && nl_destroy "$n"
	mkdir "$d" || fail "mkdir $d"
	echo 1 > "$d/memory_backed" && echo "$mb" > "$d/size" && echo "$cmb" > "$d/cache_size" &&
		echo 512 > "$d/blocksize" || fail "configure null_blk $n"
	nl_power "$n" 1
}

nl_power() {
	local n=$1 p=$2
	echo "$p" > "$NL_CFG/$n/power" || fail "null_blk $n: power $p"
	if [ "$p" = 1 ]; then
		wait_for "[ -b /dev/$n ]" 10 || fail "/dev/$n did not appear"
	fi
}

nl_destroy() {
	local d=$NL_CFG/$1
	[ -d "$d" ] || return 0
	echo 0 > "$d/power"
	rmdir "$d" || fail "rmdir $d"
}

wire_cut() {
	ip link set lo down || fail "ip link set lo down"
}

wire_restore() {
	ip link set lo up || fail "ip link set lo up"
}

remove_retry() {
	local i=0
	until dmsetup remove "$1" 2>/dev/null; do
		i=$((i + 1))
		[ $i -lt 50 ] || fail "$2: remove $1: $(dmsetup status "$1")"
		sleep 0.2
	done
}

seqw_snap() {
	local j=0
	while [ $j -lt "$2" ]; do
		cp "$1.$j" "$3.$j" 2>/dev/null || : > "$3.$j"
		j=$((j + 1))
	done
}

seqw_acked() {
	local j=0 n=0 c
	while [ $j -lt "$2" ]; do
		c=$(wc -l < "$1.$j" 2>/dev/null || echo 0)
		n=$((n + c))
		j=$((j + 1))
	done
	echo $n
}

flushes_good() {
	dmsetup reload "$1" --table "0 $S linear $2 0" && dmsetup resume "$1" ||
		fail "$1 good"
}

flushes_bad() {
	printf '0 %s linear %s 0\n%s 2048 flakey %s %s 0 3600\n' \
		$((S - 2048)) "$2" $((S - 2048)) "$2" $((S - 2048)) |
		dmsetup reload "$1" && dmsetup resume "$1" || fail "$1: flushes fail"
}

flushes_setup() {
	brd_setup 32 1
	nl_create nlb 32
	dmsetup create lowb --table "0 $S linear /dev/nlb 0" || fail "create lowb"
}

flushes_teardown() {
	dmsetup remove lowb || fail "remove lowb"
	nl_destroy nlb
}

lowb_set() {
	local t="0 $S linear /dev/ram1 0" seg=
	case $1 in
	slowbad) seg="delay /dev/mapper/errb 0 3000" ;;
	bad) seg="error" ;;
	esac
	[ -n "$seg" ] && t="0 $BAD linear /dev/ram1 0
$BAD 2048 $seg
$((BAD + 2048)) $((S - BAD - 2048)) linear /dev/ram1 $((BAD + 2048))"
	echo "$t" | dmsetup reload lowb && dmsetup resume lowb || fail "lowb $1"
}

lowb_held() {
	dmsetup status lowb | awk -v b="$BAD" '$1 == b && $3 == "delay" { print $5 }'
}

secfail_write_cut() {
	local r=0
	lowb_set slowbad
	rm -f /tmp/w.rc
	( $DD if=/tmp/w of=/dev/mapper/nma bs=64k seek=$((BAD / 128)) count=1 oflag=direct conv=notrunc status=none
	  echo $? > /tmp/w.rc ) &
	wait_eval "[ \"\$(lowb_held)\" = 1 ]" 10 || r=1
	wire_cut
	return $r
}
