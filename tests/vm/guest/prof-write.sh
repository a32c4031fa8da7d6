# Profile (not a test: not in suite.list): where the guest's CPU goes while
# fio writes to a netmirror C pair on loopback (brd, metadata devices).
# Needs perf in the guest:
#   NM_EXTRA_CPIO=$(scripts/mkperfcpio.sh) tests/vm/run-test.sh prof-write
# NM_PROF_WL=w4k-q1,rw4k-q32 selects the workloads (bare-* on the bare
# device; nbd-w1m, nbd-w4k: fio on /dev/nbd0, the device exported by
# benchlib.sh's nbd_export as tests/bench does), NM_PROF_SYMS=sym1,sym2
# adds the full call chains into those symbols (who takes a contended lock, who reads the clock); the report
# (PROF lines) goes to the console log (build/vm/prof-write.log).  Each
# workload also prints the guest's TCP counters that moved, per write
# ("tcp" lines: segments, pure acks, coalescing; both ends of the
# loopback), and netmirror's stage latencies of both nodes; rr-q32 runs
# no fio but the benchmark's exchange at depth 32 (tcprr), for its TCP
# counters per exchange.  Under
# TCG with cpu-clock sampling, time spent with interrupts off shows at the
# function that turns them back on (_raw_spin_unlock_irqrestore).
# vms: 1
# disks: none
# layers: fio
# timeout: 900
load_netmirror
. /tests/nmlib.sh
. /tests/benchlib.sh
[ -x /usr/bin/perf ] || fail "no /usr/bin/perf in the guest (NM_EXTRA_CPIO)"
brd_setup 128 4
S=$(( $(dev_size /dev/ram0) / 512 ))
P=C
NBD_PID=
RT=8	# seconds of fio per workload
# the guest's TCP counters (both ends of the loopback), one "name value" a line
tcp_snap() {
	awk '/^Tcp: [0-9]/ { print "InSegs", $11; print "OutSegs", $12 }' /proc/net/snmp
	awk '/^TcpExt: [A-Z]/ { for (i = 2; i <= NF; i++) n[i] = $i; next }
	     /^TcpExt: [0-9]/ { for (i = 2; i <= NF; i++) print n[i], $i }' /proc/net/netstat
}
# per operation: the counters that moved, divided by @3 operations
tcp_delta() {
	awk -v n="$3" -v tag="$4" 'FNR == NR { a[$1] = $2; next }
	     { d = $2 - a[$1]; if (d > 0 && n > 0) printf "%s %s %.3f per op (%d)\n", tag, $1, d / n, d }' "$1" "$2"
}
for wl in $(echo "${nm_prof_wl:-rw4k-q32,w4k-q1,bare-rw4k-q32}" | tr ',' ' '); do
	case $wl in
	rr-q32)	# the exchange at depth 32, for its segments (no perf)
		tcp_snap > /tmp/tcp0
		n=$(tcprr rr --req 4096 --depth 32 --count 20000 --port 7911) || fail "tcprr"
		tcp_snap > /tmp/tcp1
		echo "PROF $wl rate $n"
		tcp_delta /tmp/tcp0 /tmp/tcp1 20000 "PROF $wl tcp"
		continue ;;
	bare-*) dev=/dev/ram0 ;;
	*) nm_local_pair "$P" flush "$S" /dev/ram0 /dev/ram1 "meta /dev/ram2" "meta /dev/ram3"
	   dev=/dev/mapper/nma ;;
	esac
	# fio's target: the device, or its NBD export
	w=${wl#bare-} target=$dev
	case $w in
	nbd-*)
		nbd_export "$dev" prof /tmp/nbd
		w=${w#nbd-}-q1 target=/dev/nbd0
		;;
	esac
	case $w in
	rw4k-q32) args="--rw=randwrite --bs=4k --iodepth=32" ;;
	w4k-q1) args="--rw=write --bs=4k --iodepth=1" ;;
	w1m-q1) args="--rw=write --bs=1M --iodepth=1" ;;
	esac
	if [ "$dev" != /dev/ram0 ]; then
		for d in nma nmb; do dmsetup message $d 0 latency_reset >/dev/null 2>&1; done
	fi
	tcp_snap > /tmp/tcp0
	# shellcheck disable=SC2086
	/usr/bin/perf record -q -a -g -e cpu-clock -F 999 -o /tmp/p.data -- \
		/usr/bin/fio --name=p --filename=$target --direct=1 --ioengine=libaio \
		$args --runtime=$RT --time_based --size=100M --output-format=terse \
		--terse-version=3 > /tmp/fio.out 2>&1 || fail "fio $wl"
	tcp_snap > /tmp/tcp1
	echo "PROF $wl fio: $(cut -d';' -f48-49 /tmp/fio.out | head -n 1) (write KiB/s;IOPS)"
	ios=$(( $(cut -d';' -f49 /tmp/fio.out | head -n 1) * RT ))
	tcp_delta /tmp/tcp0 /tmp/tcp1 "$ios" "PROF $wl tcp"
	if [ "$dev" != /dev/ram0 ]; then
		for d in nma nmb; do
			dmsetup message $d 0 latency 2>/dev/null | sed "s/^/PROF $wl $d /"
		done
	fi
	/usr/bin/perf report -i /tmp/p.data --stdio --no-children --sort comm -g none \
		--percent-limit 1 2>/dev/null | grep -v '^$' | grep -v '^#' | sed "s/^/PROF $wl comm /"
	/usr/bin/perf report -i /tmp/p.data --stdio --no-children --sort sym -g none \
		--percent-limit 0.4 2>/dev/null | grep -v '^$' | grep -v '^#' | sed "s/^/PROF $wl sym /"
	# inclusive cost per thread and function: where each thread's share goes
	/usr/bin/perf report -i /tmp/p.data --stdio --children --sort comm,sym -g none \
		--percent-limit 1.5 2>/dev/null | grep -v '^$' | grep -v '^#' | head -n 150 |
		sed "s/^/PROF $wl incl /"
	# callers of the top symbols (irq-off time shows at the irqrestore)
	/usr/bin/perf report -i /tmp/p.data --stdio --no-children --sort sym \
		-g caller,2,callee,function,percent --percent-limit 4 2>/dev/null |
		grep -v '^$' | grep -v '^#' | head -n 400 | sed "s/^/PROF $wl graph /"
	for s in $(echo "${nm_prof_syms:-}" | tr ',' ' '); do
		/usr/bin/perf report -i /tmp/p.data --stdio --no-children --sort sym \
			--symbols="$s" -g graph,0.5,callee,function,percent 2>&1 |
			grep -v '^$' | grep -v '^#' | head -n 300 | sed "s/^/PROF $wl chain $s /"
	done
	rm -f /tmp/p.data
	[ -z "$NBD_PID" ] || nbd_unexport /tmp/nbd || fail "nbd-server still running"
	[ "$dev" = /dev/ram0 ] || nm_local_unpair
done
check_ok profiled
exit 0
