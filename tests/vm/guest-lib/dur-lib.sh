# shellcheck shell=sh disable=SC3043
# Helpers of the durability tests (tests/vm/guest/dur-*.sh, issue 10;
# installed as /tests/dur-lib.sh); busybox ash, source after lib.sh and
# nmlib.sh.  Not a test itself.  Pairs: nm_local_pair (nmlib.sh).
#
#   dur_settle [SECS]     wait until nma and nmb are connected, every region
#                         in sync, both disks uptodate/uptodate, nothing
#                         pending; 0 or 1
#   dur_same NAME DEV1 DEV2   named check: both devices byte-identical (GNU
#                         cmp of O_DIRECT copies; a few retries 1 s apart,
#                         for writes still in flight on the secondary).  On
#                         a difference the detail names the differing 512 KiB
#                         regions, both sha256 and both status lines
#   dur_settled_same NAME SECS DEV1 DEV2   dur_settle SECS (the test fails
#                         with both status lines if not), then dur_same
#   dur_diff_regions DEV1 DEV2   "n of N regions differ: r1 r2 ..." (first 12)
#   dur_delay NAME DEV MS dm-delay NAME over DEV: writes delayed MS ms,
#                         reads and flushes not delayed

DUR_RS=524288	# bytes per region (the default region_size 1024)

# NAME TABLE: create nma again with TABLE, then the check NAME that the
# pair resynced and settled (dur_settle); SINCE is where nma's kernel log
# begins, MMA its number (the log names a device by it)
dur_recreate_nma() {
	SINCE=$(dmesg | wc -l)
	dmsetup create nma --table "$2" || fail "create nma again: $2"
	MMA=$(nm_devno nma)
	if dur_settle 60; then
		check_ok "$1"
	else
		check_bad "$1" "nma $(dmsetup status nma) | nmb $(dmsetup status nmb)"
	fi
}

dur_settle() {
	local secs=${1:-90}
	nm_wait_synced nma "$secs" && nm_wait_synced nmb 30 &&
		wait_eval "[ \$(nm_status nma disks) = uptodate/uptodate ] && [ \$(nm_status nmb disks) = uptodate/uptodate ] && [ \$(nm_status nma pending) = 0 ]" 30
}

dur_settled_same() {
	dur_settle "$2" ||
		fail "${NM_CHECK_PREFIX}not settled: nma $(dmsetup status nma) | nmb $(dmsetup status nmb)"
	dur_same "$1" "$3" "$4"
}

# both devices read with O_DIRECT (the bdev page cache may be older than
# what a dm target wrote below it) into /tmp/dur_a and /tmp/dur_b
dur_copy() {
	$DD if="$1" of=/tmp/dur_a bs=1M iflag=direct status=none &&
		$DD if="$2" of=/tmp/dur_b bs=1M iflag=direct status=none
}

# after dur_copy: the differing regions, one GNU cmp per differing region
# (each starts at the region after the last difference found; GNU cmp says
# "differ: byte N" or, in the guest, "differ: char N")
dur_diff_regions() {
	local sz nr off=0 out at r list="" n=0
	[ $# = 2 ] && { dur_copy "$1" "$2" || return 1; }
	sz=$($STAT -c %s /tmp/dur_a)
	nr=$(( (sz + DUR_RS - 1) / DUR_RS ))
	while [ $off -lt "$sz" ]; do
		out=$($CMP --ignore-initial=$off /tmp/dur_a /tmp/dur_b 2>&1) && break
		at=$(echo "$out" | sed -n 's/.*differ: [a-z]* \([0-9]*\).*/\1/p')
		[ -n "$at" ] || { echo "cmp: $out"; return 1; }
		r=$(( (off + at - 1) / DUR_RS ))
		n=$((n + 1))
		[ $n -le 12 ] && list="$list $r"
		off=$(( (r + 1) * DUR_RS ))
	done
	echo "$n of $nr regions differ:$list"
}

dur_same() {
	local name=$1 a=$2 b=$3 i=0 same=no d
	while :; do
		dur_copy "$a" "$b" || fail "$name: reading $a and $b"
		$CMP -s /tmp/dur_a /tmp/dur_b && { same=yes; break; }
		i=$((i + 1))
		[ $i -lt 4 ] || break
		sleep 1
	done
	if [ $same = yes ]; then
		log "$name: $a and $b identical"
		check_ok "$name"
	else
		d="$(dur_diff_regions); sha256 $a $($SHA256SUM < /tmp/dur_a | cut -c1-16), $b $($SHA256SUM < /tmp/dur_b | cut -c1-16); nma $(dmsetup status nma 2>&1 | cut -d' ' -f4-10); nmb $(dmsetup status nmb 2>&1 | cut -d' ' -f4-10)"
		log "$name: $d"
		check_bad "$name" "$d"
	fi
	rm -f /tmp/dur_a /tmp/dur_b
}

dur_delay() {
	local name=$1 dev=$2 ms=$3 sz
	sz=$(( $(dev_size "$dev") / 512 ))
	dmsetup create "$name" --table "0 $sz delay $dev 0 0 $dev 0 $ms $dev 0 0" ||
		fail "dm-delay $name over $dev ($ms ms writes)"
}
