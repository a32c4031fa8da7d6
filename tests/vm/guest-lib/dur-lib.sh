# shellcheck shell=sh disable=SC3043
# Helpers of the durability tests (tests/vm/guest/dur-*.sh, issue 10; installed as /tests/dur-lib.sh);
# busybox ash, source after lib.sh and nmlib.sh.  Not a test itself.
#
#   dur_check NAME OK|FAIL DETAIL   record one named check: prints
#                         "NMLOG: check NAME: ok|FAILED DETAIL"; failures are
#                         collected and dur_end fails the test with all names
#   dur_end               exit 0, or fail naming every failed check
#   dur_pair PROTO ORD DEV_A DEV_B [OPT...]
#                         nma (primary on DEV_A, listens 127.0.0.1:7789) and
#                         nmb (secondary on DEV_B, 127.0.0.1:7790) in this VM,
#                         OPT words added to both tables (e.g. "sync none");
#                         waits until connected and in sync
#   dur_settle            wait until both are connected, every region in
#                         sync, both disks uptodate/uptodate, nothing pending
#   dur_same NAME DEV1 DEV2   named check: sha256 of both devices equal (a few
#                         retries, 1 s apart, for writes still in flight on
#                         the secondary); on a difference the detail names the
#                         differing 512 KiB regions and both status lines
#   dur_delay NAME DEV MS     dm-delay NAME over DEV: writes delayed MS ms,
#                         reads and flushes not delayed

DUR_RS=524288	# bytes per region (the default region_size 1024)
: > /tmp/dur_failed

dur_check() {
	local name=$1 res=$2
	shift 2
	if [ "$res" = OK ]; then
		log "check $name: ok $*"
	else
		log "check $name: FAILED $*"
		echo "$name" >> /tmp/dur_failed
	fi
}

dur_end() {
	local n
	n=$(wc -l < /tmp/dur_failed)
	[ "$n" = 0 ] && exit 0
	fail "$n failed check(s): $(tr '\n' ' ' < /tmp/dur_failed)"
}

dur_pair() {
	local proto=$1 ord=$2 da=$3 db=$4 sz n
	shift 4
	sz=$(( $(dev_size "$da") / 512 ))
	n=$(( $# + 2 ))
	dmsetup create nmb --table "0 $sz netmirror $db 127.0.0.1:7789 $proto $ord $n listen 127.0.0.1:7790 $*" ||
		fail "create nmb ($proto $ord $*)"
	dmsetup create nma --table "0 $sz netmirror $da 127.0.0.1:7790 $proto $ord $((n + 2)) listen 127.0.0.1:7789 role primary $*" ||
		fail "create nma ($proto $ord $*)"
	nm_wait_synced nma 60 || fail "nma did not connect and sync ($proto $ord): $(dmsetup status nma)"
	nm_wait_synced nmb 30 || fail "nmb did not connect and sync ($proto $ord): $(dmsetup status nmb)"
}

# both connected, in sync, uptodate/uptodate, nothing pending; 0 or 1
dur_settle() {
	local secs=${1:-90}
	nm_wait_synced nma "$secs" && nm_wait_synced nmb 30 &&
		wait_eval "[ \$(nm_status nma disks) = uptodate/uptodate ] && [ \$(nm_status nmb disks) = uptodate/uptodate ] && [ \$(nm_status nma pending) = 0 ]" 30
}

dur_sha() {
	$DD if="$1" bs=1M iflag=direct status=none | $SHA256SUM | cut -c1-16
}

# regions (DUR_RS bytes) whose contents differ, as "n: r1 r2 ..." (first 12)
dur_diff_regions() {
	local a=$1 b=$2 sz r=0 nr list="" n=0
	sz=$(dev_size "$a")
	nr=$(( (sz + DUR_RS - 1) / DUR_RS ))
	while [ $r -lt $nr ]; do
		if [ "$($DD if="$a" bs=$DUR_RS skip=$r count=1 iflag=direct status=none | $MD5SUM)" != \
		     "$($DD if="$b" bs=$DUR_RS skip=$r count=1 iflag=direct status=none | $MD5SUM)" ]; then
			n=$((n + 1))
			[ $n -le 12 ] && list="$list $r"
		fi
		r=$((r + 1))
	done
	echo "$n of $nr regions differ:$list"
}

dur_same() {
	local name=$1 a=$2 b=$3 i=0 sa sb
	while :; do
		sa=$(dur_sha "$a")
		sb=$(dur_sha "$b")
		[ "$sa" = "$sb" ] && break
		i=$((i + 1))
		[ $i -lt 4 ] || break
		sleep 1
	done
	if [ "$sa" = "$sb" ]; then
		dur_check "$name" OK "sha256 $sa"
	else
		dur_check "$name" FAIL "sha256 $a $sa != $b $sb; $(dur_diff_regions "$a" "$b");" \
			"nma: $(dmsetup status nma 2>&1 | cut -d' ' -f4-) | nmb: $(dmsetup status nmb 2>&1 | cut -d' ' -f4-)"
	fi
}

dur_delay() {
	local name=$1 dev=$2 ms=$3 sz
	sz=$(( $(dev_size "$dev") / 512 ))
	dmsetup create "$name" --table "0 $sz delay $dev 0 0 $dev 0 $ms $dev 0 0" ||
		fail "dm-delay $name over $dev ($ms ms writes)"
}
