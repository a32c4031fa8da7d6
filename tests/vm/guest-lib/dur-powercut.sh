# shellcheck shell=sh disable=SC3043
# One power cut of a node of a one-VM pair under a logged load: the
# scenario of tests/vm/guest/dur-powerloss.sh (O_DIRECT|O_DSYNC writes) and
# dur-powerbuf.sh (buffered writes, fsync'ed, merged); installed as
# /tests/dur-powercut.sh.  busybox ash; source after lib.sh, nmlib.sh,
# dur-lib.sh and dur-power-lib.sh.  Not a test itself.
#
# Both nodes in this VM over 127.0.0.1 on cached null_blks nla / nlb (MB
# MiB; dur-power-lib.sh), metadata (meta) on /dev/ram0 / ram1 (non-volatile
# brd).  Set by the caller:
#   P         protocol A, B or C
#   PC_ORD    ordering of both nodes (default flush); drain and none send
#             no flush with the barrier, so an fsync's durability on the
#             secondary rests on its empty flush alone (dur-powerbuf.sh)
#   MB J      MiB of each disk, seqw writer jobs
#   LOAD_MS   milliseconds of load before the cut
#   NMOPTS    table options of both nodes ("timeout 2000 ping 500")
#   PC_WRITE  seqw write options of the load besides size, jobs, log and
#             stop: "--sync" (O_DIRECT|O_DSYNC), "--buffered N" (fsync
#             every N) or "--buffered N --range" (sync_file_range)
#   PC_DURABLE  yes (default): the load's acknowledged writes are durable
#             (O_DSYNC, fsync); no: only completed (sync_file_range: written
#             back, not flushed), promised only where no cache they may
#             sit in lost power (see the checks)
#   PC_TAG    optional: the checks are named <P>/<PC_TAG>/<SIDE>-<META>/...
#   PC_ACKCHECK  yes: the writer (seqw --buffered only) reads each write
#             back from the secondary's backing device right when its
#             fsync / sync_file_range returned (--ack-check /dev/nlb), for
#             the check on-peer-at-ack below
#   seed      seqw seed (pc_scenario adds 1)
#
# pc_scenario SIDE META   SIDE sec|pri loses power, META meta|nometa:
#   the load on the primary (seqw --linear: the regions written early go
#   idle and are confirmed stable), then the cut: the writers' logs are
#   copied (= acknowledged before the cut), the wire freezes (lo down:
#   nothing the dying node does reaches its peer), the node's null_blk
#   loses power, its netmirror is removed, the survivor sees the link
#   dead, the wire comes back, power comes back, the node's netmirror is
#   created again on the same disks (the primary without metadata: with
#   "sync full", a restart being a first connection); resync.
#   Named checks <P>/<SIDE>-<META>/...:
#     cut/primary     right after the cut, every write acknowledged before
#                     it is on the primary's disk (every protocol; not
#                     durable writes after the primary's own power loss:
#                     only logged)
#     cut/secondary   the same on the secondary's disk where the protocol
#                     promises it (docs/design.md, "What each protocol
#                     promises"): under C (durable: FUA/flush applied
#                     there before the ack; not durable: a completed write
#                     is on both disks, so on the secondary when the
#                     primary lost power, not when the secondary did);
#                     under A and B only logged
#     resynced/primary, resynced/secondary   after the resync every write
#                     acknowledged before the cut (secondary cut: every
#                     write acknowledged at all) is on both disks (not
#                     durable writes after a primary power loss: only
#                     logged; the primary's lost cache is resynced over
#                     them)
#     identical       both backing devices byte-identical (dur_same)
#     on-peer-at-ack  (PC_ACKCHECK=yes) every write acknowledged before the
#                     cut was on the secondary's disk when acknowledged:
#                     under C (a completed write is on both disks); under
#                     A and B the count is only logged
#   and sets, for the caller's own checks: PC_NAME (<P>/<SIDE>-<META>),
#   PC_ACKED (writes acknowledged before the cut), PC_SENT (writes the
#   primary sent from the start of the load to the cut: status
#   writes_sent), PC_RUNNING (yes if the writer was still writing at the cut),
#   PC_PROBES, PC_SWITCHES (the secondary's reader controller, fast_rx_probe:
#   the probes of its other reader and the switches it made during the load,
#   read just before the cut; 0 under A, where it never runs)

# options of node a or b: KIND = meta|nometa, SYNC = none|full
pc_opts() {
	echo "$([ "$2" = meta ] && echo "meta /dev/ram$([ "$1" = a ] && echo 0 || echo 1) ")sync $3 $NMOPTS"
}

pc_table_b() {
	local w
	w="listen 127.0.0.1:7790 $(pc_opts b "$1" none)"
	# shellcheck disable=SC2086
	echo "0 $((MB * 2048)) netmirror /dev/nlb 127.0.0.1:7789 $P ${PC_ORD:-flush} $(echo $w | wc -w) $w"
}

pc_table_a() {
	local w
	w="listen 127.0.0.1:7789 role primary $(pc_opts a "$1" "$2")"
	# shellcheck disable=SC2086
	echo "0 $((MB * 2048)) netmirror /dev/nla 127.0.0.1:7790 $P ${PC_ORD:-flush} $(echo $w | wc -w) $w"
}

# verify the writes listed in LOG on DEV: check NAME, or (logonly) a log line
pc_verify() {
	local name=$1 dev=$2 lg=$3 out rc
	out=$(seqw verify "$dev" "$seed" --size ${MB}M --jobs $J --linear --log "$lg" 2>&1)
	rc=$?
	if [ "${4:-}" = logonly ]; then
		log "$name (not promised): $(echo "$out" | tail -n 2 | tr '\n' ' ')"
	elif [ $rc = 0 ]; then
		log "$name: $out"
		check_ok "$name"
	else
		check_bad "$name" "$(echo "$out" | tail -n 3 | tr '\n' ' ')"
	fi
}

pc_scenario() {
	local side=$1 meta=$2 name wp acked t0 t1 i s0 dur=${PC_DURABLE:-yes} lp ls lr
	name=$P/${PC_TAG:+$PC_TAG/}$side-$meta
	# which checks are promised (else logonly): cut/primary, cut/secondary, resynced
	lp='' ls=logonly lr=''
	if [ "$dur" = yes ]; then
		[ "$P" = C ] && ls=
	elif [ "$side" = pri ]; then
		lp=logonly lr=logonly
		[ "$P" = C ] && ls=
	fi
	PC_NAME=$name
	nl_create nla $MB
	nl_create nlb $MB
	brd_setup 4 2
	nm_local_pair "$P" "${PC_ORD:-flush}" "" /dev/nla /dev/nlb "$(pc_opts a "$meta" none)" "$(pc_opts b "$meta" none)"
	rm -f /tmp/stop /tmp/w.* /tmp/c.*
	s0=$(nm_status nma writes_sent)
	# shellcheck disable=SC2086
	seqw write /dev/mapper/nma "$seed" --size ${MB}M --jobs $J --linear $PC_WRITE \
		$([ "${PC_ACKCHECK:-no}" = yes ] && echo "--ack-check /dev/nlb") \
		--log /tmp/w --stop /tmp/stop --quiet > /tmp/w.out 2>&1 &
	wp=$!
	sleep "$(awk -v m="$LOAD_MS" 'BEGIN { printf "%.3f", m / 1000 }')"
	# the cut: what was acknowledged until now, then wire and power
	PC_SENT=$(( $(nm_status nma writes_sent) - s0 ))
	seqw_snap /tmp/w $J /tmp/c
	# after the log: a write in it has its .late line (if any) written
	cat /tmp/w.*.late > /tmp/c.late 2>/dev/null || : > /tmp/c.late
	if kill -0 $wp 2>/dev/null; then PC_RUNNING=yes; else PC_RUNNING=no; fi
	i=$(dmsetup message nmb 0 latency 2>/dev/null | sed -n 's/^rx_probe count=\([0-9]*\) switches=\([0-9]*\)$/\1 \2/p')
	PC_PROBES=${i% *} PC_SWITCHES=${i#* }
	wire_cut
	t0=$(now_ms)
	if [ "$side" = sec ]; then
		nl_power nlb 0
		dmsetup remove nmb || fail "$name: remove nmb after its power cut"
		wait_eval "[ \"\$(nm_status nma connection)\" != connected ]" 30 ||
			fail "$name: the primary did not see the link die: $(dmsetup status nma)"
		t1=$(now_ms)
		touch /tmp/stop
		wait $wp || fail "$name: the writer on the primary failed: $(cat /tmp/w.out)"
	else
		nl_power nla 0
		touch /tmp/stop
		wait $wp	# its writes after the cut fail: not acknowledged
		remove_retry nma "$name: after its power cut"
		wait_eval "[ \"\$(nm_status nmb connection)\" != connected ]" 30 ||
			fail "$name: the secondary did not see the link die: $(dmsetup status nmb)"
		t1=$(now_ms)
	fi
	wire_restore
	acked=$(seqw_acked /tmp/c $J)
	PC_ACKED=$acked
	log "$name: cut after $acked acknowledged writes ($(seqw_acked /tmp/w $J) in all; $PC_SENT sent by the primary); link seen dead after $((t1 - t0)) ms; the secondary's reader controller made ${PC_PROBES:-?} probes and ${PC_SWITCHES:-?} switches before the cut"
	if [ "${PC_ACKCHECK:-no}" = yes ]; then
		# late: acknowledged before the cut, not on the secondary's disk then
		i=$(cat /tmp/c.[0-9]* | awk 'NR == FNR { late[$1] = 1; next } ($1 in late) { n++ } END { print n + 0 }' /tmp/c.late -)
		if [ "$P" != C ]; then
			log "$name/on-peer-at-ack (not promised): $i of $acked writes not on the secondary's disk when acknowledged"
		elif [ "$i" = 0 ]; then
			log "$name/on-peer-at-ack: all $acked on the secondary's disk when acknowledged"
			check_ok "$name/on-peer-at-ack"
		else
			check_bad "$name/on-peer-at-ack" "$i of $acked writes acknowledged before the cut were not on the secondary's disk when acknowledged: seq $(head -n 8 /tmp/c.late | tr '\n' ' ')"
		fi
	fi
	if [ "$side" = sec ]; then nl_power nlb 1; else nl_power nla 1; fi
	pc_verify "$name/cut/primary" /dev/nla /tmp/c $lp
	pc_verify "$name/cut/secondary" /dev/nlb /tmp/c $ls
	# the node comes back on the same disks (and metadata device)
	if [ "$side" = sec ]; then
		dmsetup create nmb --table "$(pc_table_b "$meta")" || fail "$name: create nmb again: $(pc_table_b "$meta")"
	else
		dmsetup create nma --table "$(pc_table_a "$meta" "$([ "$meta" = meta ] && echo none || echo full)")" ||
			fail "$name: create nma again"
	fi
	if dur_settle 120; then
		log "$name: resynced $(( $(nm_status nma resync_bytes) / DUR_RS )) regions; $(( $(seqw_acked /tmp/w $J) * 4096 / DUR_RS + 1 )) regions written; nma $(dmsetup status nma | cut -d' ' -f4-)"
	else
		check_bad "$name/settled" "no settled resync: nma $(dmsetup status nma) | nmb $(dmsetup status nmb)"
	fi
	if [ "$side" = sec ]; then
		pc_verify "$name/resynced/primary" /dev/nla /tmp/w
		pc_verify "$name/resynced/secondary" /dev/nlb /tmp/w
	else
		pc_verify "$name/resynced/primary" /dev/nla /tmp/c $lr
		pc_verify "$name/resynced/secondary" /dev/nlb /tmp/c $lr
	fi
	dur_same "$name/identical" /dev/nla /dev/nlb
	nm_local_unpair
	nl_destroy nla
	nl_destroy nlb
	seed=$((seed + 1))
}
