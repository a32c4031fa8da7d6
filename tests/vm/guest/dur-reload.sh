# Issue 10, defect 2: a table reload (`dmsetup load` + `resume`) must not
# lose a write, with or without a metadata device.  Both nodes in this VM
# over 127.0.0.1; for each protocol A, B, C, on fresh zeroed disks
# ("sync none" is true), one case each:
#   meta-sec-conn     meta devices; reload the secondary while the primary
#                     writes (O_DIRECT, random 4 KiB..256 KiB)
#   meta-pri-conn     the same, reloading the primary
#   meta-pri-disc     meta; secondary disconnected; the primary writes
#                     region 1, `load` (changed option: ping 1500), writes
#                     regions 2 and 3 and a random load, `resume`, writes
#                     region 4 (same bitmap block), then `connect`
#   meta-sec-disc     meta; secondary disconnected, the primary writes, the
#                     secondary is loaded, the primary writes, it is resumed
#   nometa-pri-disc   no meta, "sync none": as meta-pri-disc (the writes
#                     missed while the peer was away must still be resynced)
#   nometa-sec-disc   no meta, "sync none": as meta-sec-disc
#   nometa-pri-conn   no meta, "sync none": as meta-pri-conn
# After each: connected, uptodate/uptodate, N/N, and the named check
# dur-reload-<P>-<case> compares sha256 of both backing devices.
# vms: 1
# disks: none
# timeout: 480
# mem: 1024
load_netmirror
. /tests/nmlib.sh
. /tests/dur-lib.sh
$DD if=/dev/urandom of=/tmp/blk bs=64k count=1 status=none

# table of node X (a: primary, b: secondary) with meta yes|no and extra words
tbl() {
	local x=$1 meta=$2 w n
	shift 2
	if [ "$x" = a ]; then
		w="listen 127.0.0.1:7789 role primary"
		[ "$meta" = yes ] && w="$w meta /dev/ram2"
		set -- $w sync none "$@"
		echo "0 $SZ netmirror /dev/ram0 127.0.0.1:7790 $P flush $# $*"
	else
		w="listen 127.0.0.1:7790"
		[ "$meta" = yes ] && w="$w meta /dev/ram3"
		set -- $w sync none "$@"
		echo "0 $SZ netmirror /dev/ram1 127.0.0.1:7789 $P flush $# $*"
	fi
}

up() {
	brd_setup 64 4		# ram0/1 data, ram2/3 meta: zeroed
	SZ=$(( $(dev_size /dev/ram0) / 512 ))
	dmsetup create nmb --table "$(tbl b "$1")" || fail "$P $case: create nmb: $(tbl b "$1")"
	dmsetup create nma --table "$(tbl a "$1")" || fail "$P $case: create nma: $(tbl a "$1")"
	nm_wait_synced nma 60 && nm_wait_synced nmb 30 || fail "$P $case: no connection: $(dmsetup status nma)"
}

# 64 KiB of the same random block into region R (at a per-region offset)
wr_region() {
	$DD if=/tmp/blk of=/dev/mapper/nma bs=64k count=1 seek=$(( $1 * 8 + $1 % 7 )) oflag=direct conv=notrunc status=none ||
		fail "$P $case: write region $1"
}

load_bg() {
	pattern write /dev/mapper/nma "$1" "$2" --bs-min 4096 --bs-max 262144 --direct --quiet > /tmp/load.out 2>&1 &
	lp=$!
}

load_wait() {
	wait $lp || fail "$P $case: write load on the primary failed: $(cat /tmp/load.out)"
}

reload() {
	dmsetup load "$1" --table "$2" || fail "$P $case: load $1: $2"
}

resume() {
	dmsetup resume "$1" || fail "$P $case: resume $1"
}

finish() {
	# a reloaded node connects again by itself; after disconnect it may not
	[ "$(nm_field nmb 2)" = standalone ] && dmsetup message nmb 0 connect
	if dur_settle 90; then
		dur_same "dur-reload-$P-$case" /dev/ram0 /dev/ram1
	else
		dur_check "dur-reload-$P-$case" FAIL "no settled resync: nma $(dmsetup status nma | cut -d' ' -f4-) | nmb $(dmsetup status nmb | cut -d' ' -f4-)"
	fi
	nm_local_unpair
}

disc() {
	dmsetup message nmb 0 disconnect || fail "$P $case: disconnect"
	nm_wait_conn nma connecting 15 || fail "$P $case: nma did not notice the disconnect: $(dmsetup status nma)"
}

seed=2000
for P in A B C; do
	for meta in yes no; do
		# reload while connected and written
		for who in sec pri; do
			[ $meta = no ] && [ $who = sec ] && continue
			case=$( [ $meta = yes ] && echo meta || echo nometa )-$who-conn
			seed=$((seed + 1))
			up $meta
			load_bg $seed 12M
			sleep 1
			if [ $who = sec ]; then x=b; n=nmb; else x=a; n=nma; fi
			reload $n "$(tbl $x $meta)"
			resume $n
			load_wait
			finish
		done
		# reload while disconnected, writes between load and resume
		for who in pri sec; do
			case=$( [ $meta = yes ] && echo meta || echo nometa )-$who-disc
			seed=$((seed + 1))
			up $meta
			disc
			wr_region 1
			if [ $who = sec ]; then x=b; n=nmb; else x=a; n=nma; fi
			reload $n "$(tbl $x $meta ping 1500)"
			wr_region 2
			wr_region 3
			load_bg $seed 2M
			load_wait
			resume $n
			wr_region 4
			log "$P $case: before connect: nma $(dmsetup status nma | cut -d' ' -f4-7) | nmb $(dmsetup status nmb | cut -d' ' -f4-7)"
			finish
		done
	done
done
dur_end
