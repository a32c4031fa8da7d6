# Issue 10, defect 2: a table reload (`dmsetup load` + `resume`) must not
# lose a write.  Both nodes in this VM over 127.0.0.1, each with a metadata
# device (dur_meta=no: without; dur-reload-nometa runs that).  For each
# protocol A, B, C, on fresh zeroed disks ("sync none" is true), flush
# ordering, one case each, named <P>/<meta|nometa>/<case>:
#   sec-conn   reload the secondary (same table) while the primary writes
#              (O_DIRECT, random 4 KiB..256 KiB)
#   pri-conn   the same, reloading the primary
#   pri-disc   secondary disconnected; the primary writes region 1, its
#              new table is loaded (changed option: ping 1500), it writes
#              regions 2 and 3 and a random load, is resumed, writes region
#              4 (same bitmap block), then `connect` on the secondary
#   sec-disc   secondary disconnected; the primary writes, the secondary's
#              new table is loaded, the primary writes, the secondary is
#              resumed (it connects again by itself)
# Without meta, sec-conn is left out (a secondary has nothing to remember),
# and pri-disc says: the writes missed while the peer was away must still be
# resynced even with "sync none".  Each check: after the resync
# (connected, uptodate/uptodate, N/N) sha256 of both backing devices equal.
# Today the primary's reload forgets the marks of the reload window (meta)
# or all of them (no meta): pri-disc fails under every protocol.
# vms: 1
# disks: none
# timeout: 360
# mem: 1024
load_netmirror
. /tests/nmlib.sh
. /tests/dur-lib.sh
meta=${dur_meta:-yes}
mname=$([ "$meta" = yes ] && echo meta || echo nometa)
$DD if=/dev/urandom of=/tmp/blk bs=64k count=1 status=none

# option words of node a (primary) or b, with the meta device if any
opts() {
	if [ "$1" = a ]; then
		echo "${2:+$2 }$([ "$meta" = yes ] && echo "meta /dev/ram2 ")sync none"
	else
		echo "${2:+$2 }$([ "$meta" = yes ] && echo "meta /dev/ram3 ")sync none"
	fi
}

up() {
	brd_setup 32 4		# ram0/1 data, ram2/3 meta: zeroed
	nm_local_pair "$P" flush "" /dev/ram0 /dev/ram1 "$(opts a)" "$(opts b)"
}

# the table of nma or nmb as nm_local_pair makes it, EXTRA option words added
table_of() {
	local n=$1 extra=$2 sz w
	sz=$(( $(dev_size /dev/ram0) / 512 ))
	if [ "$n" = nma ]; then
		w="listen 127.0.0.1:7789 role primary $(opts a "$extra")"
		# shellcheck disable=SC2086
		echo "0 $sz netmirror /dev/ram0 127.0.0.1:7790 $P flush $(echo $w | wc -w) $w"
	else
		w="listen 127.0.0.1:7790 $(opts b "$extra")"
		# shellcheck disable=SC2086
		echo "0 $sz netmirror /dev/ram1 127.0.0.1:7789 $P flush $(echo $w | wc -w) $w"
	fi
}

# 64 KiB of the same random block into region R (at a per-region offset)
wr_region() {
	$DD if=/tmp/blk of=/dev/mapper/nma bs=64k count=1 seek=$(( $1 * 8 + $1 % 7 )) oflag=direct conv=notrunc status=none ||
		fail "$name: write region $1"
}

load_bg() {
	pattern write /dev/mapper/nma "$seed" "$1" --bs-min 4096 --bs-max 262144 --direct --quiet > /tmp/load.out 2>&1 &
	lp=$!
}

load_wait() {
	wait $lp || fail "$name: write load on the primary failed: $(cat /tmp/load.out)"
}

reload() {
	dmsetup load "$1" --table "$(table_of "$1" "$2")" || fail "$name: load $1: $(table_of "$1" "$2")"
}

resume() {
	dmsetup resume "$1" || fail "$name: resume $1"
}

finish() {
	if [ "$(nm_status nmb connection)" = standalone ]; then
		dmsetup message nmb 0 connect || fail "$name: connect"
	fi
	if dur_settle 60; then
		dur_same "$name" /dev/ram0 /dev/ram1
	else
		check_bad "$name" "no settled resync: nma $(dmsetup status nma | cut -d' ' -f4-10) | nmb $(dmsetup status nmb | cut -d' ' -f4-10)"
	fi
	nm_local_unpair
}

disc() {
	dmsetup message nmb 0 disconnect || fail "$name: disconnect"
	nm_wait_conn nma connecting 15 || fail "$name: nma did not notice the disconnect: $(dmsetup status nma)"
}

seed=2000
for P in A B C; do
	for case in sec-conn pri-conn pri-disc sec-disc; do
		[ "$meta" = no ] && [ "$case" = sec-conn ] && continue
		name=$P/$mname/$case
		seed=$((seed + 1))
		case $case in sec-*) n=nmb ;; *) n=nma ;; esac
		up
		case $case in
		*-conn)
			load_bg 4M
			sleep 1
			reload $n
			resume $n
			load_wait
			;;
		*-disc)
			disc
			wr_region 1
			reload $n "ping 1500"
			wr_region 2
			wr_region 3
			load_bg 1M
			load_wait
			resume $n
			wr_region 4
			log "$name: before connect: nma $(dmsetup status nma | cut -d' ' -f4-7) | nmb $(dmsetup status nmb | cut -d' ' -f4-7)"
			;;
		esac
		finish
	done
done
exit 0
