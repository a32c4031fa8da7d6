# The benchmark report (tests/vm/tools/bench.sh): reads the sample lines of
# a run and prints the report.  POSIX awk (busybox awk in the guest, where
# it is installed as /tests/bench-report.awk; mawk or gawk on the host):
#
#   awk -f tests/vm/guest-lib/bench-report.awk build/bench/samples.txt
#
# reprints the report of a finished run from its samples.  Tested without a
# VM by tests/bench/test-report.sh.
#
# Input: one record a line, "KIND key=value ...", optionally behind
# "NMLOG: bench " (a console log line) or "bench "; anything else is skipped.
#   meta k=v ...          header facts: git kernel fio ncpu mem backing size_mb
#                         meta data rounds time ramp configs workloads
#                         (configs, workloads: comma-separated, report order)
#   sample r=R cfg=C wl=W iops= mbs= p50= p99= p999= mean= ios= cpu= ctx= [err=]
#                         one fio run (tests/vm/guest-lib/bench-fio.awk)
#   limit r=R rr4k= rr4k_p99= rr512= rr512_p99= stream= [diskread=]
#                         [rr4kq32= rr4kq32_cpu=] [rr4kq32c2= rr4kq32c2_cpu=]
#                         tcprr, us and MB/s; diskread: fio 1 MiB O_DIRECT
#                         sequential read of a backing device, MB/s;
#                         rr4kq32: 4096 -> 32 B exchanges/s with 32 in
#                         flight, rr4kq32_cpu: the VM's CPU us per exchange;
#                         rr4kq32c2*: the same over two connections of 16
#   sample r=R cfg=C wl=rs-full|rs-part connect= transfer= secs= [mibs= mbs=]
#                         mibs_all= mbs_all= seen= [clock=klog|poll]
#                         [pconnect= ptransfer= psecs=] bytes= [rsbytes=] [err=]
#                         a full (invalidate) or partial (disconnect, writes,
#                         reconnect) resync: seconds from the trigger until it
#                         starts (connect), from then until in sync
#                         (transfer), in all (secs).  clock=klog: the kernel
#                         log's timestamps (a marker at the trigger, the
#                         source's "resync started"/"Began resync" and
#                         "resync finished"/"Resync done" lines), the polled
#                         times in pconnect/ptransfer/psecs; clock=poll (or
#                         no clock: older samples): 0.1 s polling, start =
#                         first seen running.  seen: a poll saw it running.
#                         MiB/s and MB/s over the transfer (none when
#                         clock=poll and seen=no: over between two polls
#                         before one saw it running) and over the total (_all)
#   sample r=R cfg=C wl=rs-app iops= window= rs_mibs= [rs_clock=] rs_mib=
#                         connect= transfer= secs= seen= [clock= ...] done=
#                         (window=none and no iops, rs_mibs, rs_mib: the
#                         resync was not seen running while the application
#                         ran) the application (w4k-q1) during a full
#                         resync: its IOPS in the window (resync seen running
#                         to its end or the application's, polled), the
#                         resync's MiB/s (rs_clock=klog: the device's bytes
#                         over the kernel log's transfer, the resync having
#                         ended in the window; poll: resynced in the window /
#                         its length) and MiB resynced in the window
#   sample r=R cfg=C wl=nbd-w1m|nbd-w4k ...   fio through nbd-server/nbd0
#   sample r=R cfg=C wl=nbdr-w1m|nbdr-w4k ... the same, the client (fio,
#                         /dev/nbd0) in the other VM; cpu/ctx: the exporter's
#   sample r=R cfg=C wl=ov-full ovsecs= ovmibs= ovmbs= [kms= kmibs=] clock=
#                         psecs= bytes= sectors= total= diffs= [kdiffs=] [err=]
#                         an online verify of a pair of its own (1 GiB per
#                         node): seconds from its "verify started" to its
#                         "verify done" kernel log line (clock=klog; poll:
#                         the message to the first poll that saw it over,
#                         psecs), MiB/s and MB/s of the compared bytes over
#                         them, kmibs over the kernel's own ms (kms, the done
#                         line's); diffs: status verify_diffs, kdiffs: the
#                         done line's count (both must be 0: else err=)
#   limit r=R ovread=     fio 1 MiB O_DIRECT sequential read of a verify
#                         device, MB/s
#   integrity r=R cfg=C ok=yes|no    md5 of both replicas after config C
#   stage r=R cfg=C wl=W node=a|b name=STAGE count=N p50= p90= p99= max=
#                         netmirror's "latency" message (us)
#
# Every cell is the median [min..max] over the rounds (the mean of the two
# middle values for an even count; "n=K" when only K of the rounds have a
# value).  A ratio is computed per round from the two configurations of the
# same round, then summarised the same way (the median of paired ratios,
# not the ratio of the medians).  The goals use those medians.

function fmt(x,   a) {
	a = x < 0 ? -x : x
	if (a >= 100) return sprintf("%.0f", x)
	if (a >= 10) return sprintf("%.1f", x)
	if (a >= 1) return sprintf("%.2f", x)
	return sprintf("%.3f", x)
}
function isnum(x) { return x != "" && x ~ /^-?[0-9]+(\.[0-9]*)?([eE][-+]?[0-9]+)?$/ }

# xs[1..n] -> med, lo, hi
function summ(n,   i, j, t) {
	for (i = 2; i <= n; i++) {
		t = xs[i]
		for (j = i - 1; j >= 1 && xs[j] > t; j--) xs[j + 1] = xs[j]
		xs[j + 1] = t
	}
	if (n == 0) { med = lo = hi = ""; return 0 }
	lo = xs[1]
	hi = xs[n]
	med = (n % 2) ? xs[(n + 1) / 2] : (xs[n / 2] + xs[n / 2 + 1]) / 2
	return n
}
function cell(n) {
	if (!summ(n)) return "-"
	return fmt(med) " [" fmt(lo) ".." fmt(hi) "]" (n < R ? " n=" n : "")
}
# the value of metric M of config C, workload W, round r ("" if none)
function get(c, w, m, r,   k) {
	k = c SUBSEP w SUBSEP m SUBSEP r
	return ((k in val) && isnum(val[k])) ? val[k] + 0 : ""
}
function collect(c, w, m,   r, n, x) {
	n = 0
	for (r = 1; r <= R; r++) {
		x = get(c, w, m, r)
		if (x != "") xs[++n] = x
	}
	return n
}
# per-round ratios of metric M: config A / config B on workload W
function ratios(a, b, w, m) { return xratios(a, w, b, w, m) }
function limit(k, r,   key) {
	key = k SUBSEP r
	return ((key in lim) && isnum(lim[key])) ? lim[key] + 0 : ""
}
# per round: bare's p50 on workload W + the request/response p50 of limit K
function floors(w, k,   r, n, x, y) {
	n = 0
	for (r = 1; r <= R; r++) {
		x = get("bare", w, "p50", r)
		y = limit(k, r)
		if (x != "" && y != "") xs[++n] = x + y
	}
	return n
}
# per round: config C's p50 on W / the floor of that round
function floor_ratios(c, w, k,   r, n, x, y, z) {
	n = 0
	for (r = 1; r <= R; r++) {
		x = get(c, w, "p50", r)
		y = get("bare", w, "p50", r)
		z = limit(k, r)
		if (x != "" && y != "" && z != "" && y + z > 0) xs[++n] = x / (y + z)
	}
	return n
}
# per round: the highest C/bare rate a device that adds one request/response
# of limit K to each write of W can reach at QD1: bare p50 / (bare p50 + K)
function rt_bound(w, k,   r, n, y, z) {
	n = 0
	for (r = 1; r <= R; r++) {
		y = get("bare", w, "p50", r)
		z = limit(k, r)
		if (y != "" && z != "" && y + z > 0) xs[++n] = y / (y + z)
	}
	return n
}
# per round: the most IOPS the VM's CPUs allow a C device at rw4k-q32 if
# each write costs at least the bare write's CPU plus one 4 KiB -> 32 B
# exchange at depth 32: ncpu x 1e6 / (bare cpu + rr4kq32_cpu) (kind "all");
# or, kind "busy", as busy as the exchange kept them: the exchange's rate
# x rr4kq32_cpu / (bare cpu + rr4kq32_cpu) (its CPUs' busy share, spent on
# writes that each cost bare's CPU more); kind "busy2": the same with the
# exchange over two connections (rr4kq32c2, rr4kq32c2_cpu)
function q32_cap(r, kind,   x, y, z, k) {
	k = kind == "busy2" ? "rr4kq32c2" : "rr4kq32"
	x = get("bare", "rw4k-q32", "cpu", r)
	y = limit(k "_cpu", r)
	if (x == "" || y == "" || y <= 0 || x < 0) return ""	# no exchange CPU: no bound
	if (kind != "all") {
		z = limit(k, r)
		return z != "" ? z * y / (x + y) : ""
	}
	return meta["ncpu"] + 0 > 0 ? meta["ncpu"] * 1e6 / (x + y) : ""
}
# xs[] <- q32_cap of every round that has one
function q32_caps(kind,   r, n, y) {
	n = 0
	for (r = 1; r <= R; r++) {
		y = q32_cap(r, kind)
		if (y != "") xs[++n] = y
	}
	return n
}
# per round: M x config C's IOPS at rw4k-q32 / q32_cap
function q32_cap_ratios(c, m, kind,   r, n, x, y) {
	n = 0
	for (r = 1; r <= R; r++) {
		x = get(c, "rw4k-q32", "iops", r)
		y = q32_cap(r, kind)
		if (x != "" && y != "") xs[++n] = m * x / y
	}
	return n
}
# per round: config C's MB/s on W / the loopback stream of that round
function stream_ratios(c, w,   r, n, x, y) {
	n = 0
	for (r = 1; r <= R; r++) {
		x = get(c, w, "mbs", r)
		y = limit("stream", r)
		if (x != "" && y != "" && y > 0) xs[++n] = x / y
	}
	return n
}
function has(list, word,   a, n, i) {
	n = split(list, a, " ")
	for (i = 1; i <= n; i++) if (a[i] == word) return 1
	return 0
}
# the throughput metric of a workload (ratios, goals)
function tput(w) { return (w ~ /w1m/) ? "mbs" : "iops" }
# per round: config C's rs-full MB/s (metric M: mbs over the transfer,
# mbs_all over the total) / min(disk read, stream) of that round
function rs_limit_ratios(c, m,   r, n, x, y, z) {
	n = 0
	for (r = 1; r <= R; r++) {
		x = get(c, "rs-full", m, r)
		y = limit("diskread", r)
		z = limit("stream", r)
		if (x == "" || y == "" || z == "") continue
		if (z < y) y = z
		if (y > 0) xs[++n] = x / y
	}
	return n
}
# per round: metric M of config A on workload WA / metric M of config B on WB
function xratios(a, wa, b, wb, m,   r, n, x, y) {
	n = 0
	for (r = 1; r <= R; r++) {
		x = get(a, wa, m, r)
		y = get(b, wb, m, r)
		if (x != "" && y != "" && y > 0) xs[++n] = x / y
	}
	return n
}
# per round: config C's ov-full MB/s / limit K of that round
function ov_limit_ratios(c, k,   r, n, x, y) {
	n = 0
	for (r = 1; r <= R; r++) {
		x = get(c, "ov-full", "ovmbs", r)
		y = limit(k, r)
		if (x != "" && y != "" && y > 0) xs[++n] = x / y
	}
	return n
}
function anylimit(k,   r) {
	for (r = 1; r <= R; r++) if (limit(k, r) != "") return 1
	return 0
}
# any value of workload W (any config, any metric but err)?
function anywl(w,   k, p) {
	for (k in val) {
		split(k, p, SUBSEP)
		if (p[2] == w && p[3] != "err") return 1
	}
	return 0
}
function anycw(c, w,   k, p) {
	for (k in val) {
		split(k, p, SUBSEP)
		if (p[1] == c && p[2] == w && p[3] != "err") return 1
	}
	return 0
}
# rounds of config C's rs-app whose resync was not seen running while the
# application ran (window=none)
function nowin(c,   r, n) {
	n = 0
	for (r = 1; r <= R; r++) if (val[c, "rs-app", "window", r] == "none") n++
	return n
}
# a cell of config C, workload W, metric M: "n/a" when no round has a value
# because no round of rs-app had a window; rs-*'s "seen": rounds that saw
# the resync running / rounds with a sample
function wcell(c, w, m,   n, r, y, x, t) {
	if (m == "seen") {
		n = y = 0
		for (r = 1; r <= R; r++) if ((c SUBSEP w SUBSEP m SUBSEP r) in val) { n++; if (val[c, w, m, r] == "yes") y++ }
		return n ? y "/" n : "-"
	}
	# rounds timed by the kernel log / rounds with times (no clock: poll)
	if (m == "clock") {
		n = y = 0
		for (r = 1; r <= R; r++) if ((c SUBSEP w SUBSEP (w ~ /^ov-/ ? "ovsecs" : "connect") SUBSEP r) in val) { n++; if (val[c, w, m, r] == "klog") y++ }
		return n ? y "/" n : "-"
	}
	# ov-*: the blocks found differing over the rounds, and in how many
	# rounds none were ("0 (3/3 rounds)")
	if (m == "diffs") {
		n = y = 0
		for (r = 1; r <= R; r++) {
			x = get(c, w, m, r)
			if (x == "") continue
			n++; t += x
			if (x == 0) y++
		}
		return n ? t " (" y "/" n " rounds with none)" : "-"
	}
	n = collect(c, w, m)
	if (!n && w == "rs-app" && m != "secs" && m != "connect" && m != "transfer" && nowin(c)) return "n/a"
	return cell(n)
}

# a table: tab_set(row, col, text), then tab_print(); column 1 left-aligned
function tab_reset() { split("", tab); split("", tw); tnr = 0; tnc = 0 }
function tab_set(r, c, s) {
	tab[r, c] = s
	if (r > tnr) tnr = r
	if (c > tnc) tnc = c
	if (length(s) > tw[c]) tw[c] = length(s)
}
function tab_print(   r, c, s) {
	for (r = 1; r <= tnr; r++) {
		s = sprintf("%-" tw[1] "s", tab[r, 1])
		for (c = 2; c <= tnc; c++) s = s sprintf("  %" tw[c] "s", ((r SUBSEP c) in tab) ? tab[r, c] : "")
		sub(/ +$/, "", s)
		print s
	}
}

# one test of a goal: "NAME MED [LO..HI] (need OP LIMIT: yes|no)", with tok
# set to whether it holds; "NAME: no data" (and tok = -1) without values
function test(name, n, op, limitv) {
	if (!summ(n)) { tok = -1; return name ": no data" }
	tok = (op == ">=") ? (med >= limitv) : (op == ">") ? (med > limitv) : (med <= limitv)
	return name " " fmt(med) " [" fmt(lo) ".." fmt(hi) "] (need " op " " limitv ": " (tok ? "yes" : "no") ")"
}
# a clause of tests holds (1), fails (0) or is unknown (-1): all must hold
function all2(a, b) { return (a == 0 || b == 0) ? 0 : (a == 1 && b == 1) ? 1 : -1 }
# a goal of clauses, any of which is enough: PASS if one holds, FAIL if all
# fail, n/a otherwise
function verdict(a, b) { return (a == 1 || b == 1) ? "PASS" : (a == 0 && (b == 0 || b == "")) ? "FAIL" : "n/a" }
function qd1_goal(w, k, label,   t1, t2, t3, o1, o2, o3) {
	t1 = test("nm-C/drbd-C " tput(w), ratios("nm-C", "drbd-C", w, tput(w)), ">=", 2); o1 = tok
	t2 = test("nm-C/drbd-A " tput(w), ratios("nm-C", "drbd-A", w, tput(w)), ">=", 1); o2 = tok
	t3 = test("nm-C p50/floor", floor_ratios("nm-C", w, k), "<=", 1.15); o3 = tok
	printf "goal %s: %s\n  %s; %s; or within 15%% of the floor (bare p50 + %s p50): %s\n", label, verdict(all2(o1, o2), o3), t1, t2, k, t3
}

BEGIN {
	ndefwl = split("w512-q1 w4k-q1 rw4k-q32 w1m-q1 w4k-dsync", defwl, " ")
	ndefcfg = split("bare nm-disc nm-A nm-B nm-C nm-Cmac nm-Cthr nm-Cackthr nm-Cnomerge nm-Cnobatch nm-Crxthr nm-Cnoprobe drbd-disc drbd-A drbd-B drbd-C", defcfg, " ")
	rows["w512-q1"] = "iops mbs p50 p99 cpu"
	rows["w4k-q1"] = "iops mbs p50 p99 p999 cpu ctx"
	rows["rw4k-q32"] = "iops mbs p50 p99 p999 cpu ctx"
	rows["w1m-q1"] = "mbs p50 p99 cpu"
	rows["w4k-dsync"] = "iops p50 p99 p999 cpu"
	label["iops"] = "IOPS"; label["mbs"] = "MB/s"; label["p50"] = "p50 us"
	label["p99"] = "p99 us"; label["p999"] = "p99.9 us"; label["mean"] = "mean us"
	label["cpu"] = "CPU us/write"; label["ctx"] = "ctx sw/write"
	desc["w512-q1"] = "sequential write, 512 B, psync, QD1"
	desc["w4k-q1"] = "sequential write, 4 KiB, psync, QD1"
	desc["rw4k-q32"] = "random write, 4 KiB, libaio, QD32"
	desc["w1m-q1"] = "sequential write, 1 MiB, psync, QD1"
	desc["w4k-dsync"] = "random write, 4 KiB, psync, QD1, O_DSYNC"
	rows["rs-full"] = "connect transfer secs mibs mibs_all seen clock"
	rows["rs-part"] = "connect transfer secs mibs mibs_all seen clock bytes rsbytes"
	rows["rs-app"] = "iops rs_mibs rs_mib window connect transfer secs seen clock"
	rows["nbd-w1m"] = "mbs p50 p99 cpu"
	rows["nbd-w4k"] = "iops mbs p50 p99 cpu"
	rows["nbdr-w1m"] = "mbs p50 p99 cpu"
	rows["nbdr-w4k"] = "iops mbs p50 p99 cpu"
	label["connect"] = "connect s"; label["transfer"] = "transfer s"; label["secs"] = "total s"
	label["mibs"] = "MiB/s (transfer)"; label["mibs_all"] = "MiB/s (incl. reconnect)"
	label["seen"] = "seen running (rounds)"; label["clock"] = "kernel-log clock (rounds)"
	label["bytes"] = "marked bytes"; label["rsbytes"] = "resynced bytes"
	label["rs_mibs"] = "resync MiB/s in window"; label["rs_mib"] = "resynced MiB in window"
	label["window"] = "window s"
	desc["rs-full"] = "full resync (secondary invalidated): connect = trigger to resync started, transfer = started to in sync"
	desc["rs-part"] = "partial resync: disconnected, random 64 KiB writes; connect = reconnect to resync started, transfer = started to in sync"
	desc["rs-app"] = "w4k-q1's fio during a full resync; IOPS in the window (resync seen running to its end or the application's; n/a: not seen running while the application ran); resync MiB/s: the device over the kernel log's transfer if the resync ended in the window, else the MiB resynced in the window / its length"
	# under every resync block
	rsnote = "(s, MiB/s: kernel-log timestamps in the rounds that \"kernel-log clock\" counts (the source's resync start and end lines, a marker at the trigger); else 0.1 s polling, started = first seen running)"
	desc["nbd-w1m"] = "through NBD (nbd-server on the device, /dev/nbd0 in the VM): w1m-q1"
	desc["nbd-w4k"] = "through NBD (nbd-server on the device, /dev/nbd0 in the VM): w4k-q1"
	desc["nbdr-w1m"] = "through NBD, the client on the other side (nbd-server on the device, /dev/nbd0 and fio in a second VM over the emulated link; CPU: the exporting VM's): w1m-q1"
	desc["nbdr-w4k"] = "through NBD, the client on the other side (nbd-server on the device, /dev/nbd0 and fio in a second VM over the emulated link; CPU: the exporting VM's): w4k-q1"
	rows["ov-full"] = "ovmibs ovsecs kmibs diffs clock"
	label["ovmibs"] = "verify MiB/s"; label["ovsecs"] = "verify s"
	label["kmibs"] = "MiB/s (kernel's ms)"; label["diffs"] = "blocks differing"
	desc["ov-full"] = "online verify of the whole device (a pair of its own; s = \"verify started\" to \"verify done\" in the kernel log)"
	ovnote = "(MiB/s = bytes compared / verify s; kernel's ms: the \"verify done\" line's own count; blocks differing must be 0 in every round)"
	maxr = 0
}

{
	line = $0
	sub(/\r$/, "", line)
	if (line ~ /NMLOG: bench /) sub(/^.*NMLOG: bench /, "", line)
	else sub(/^bench /, "", line)
	n = split(line, f, " ")
	kind = f[1]
	if (kind != "meta" && kind != "sample" && kind != "limit" && kind != "integrity" && kind != "stage") next
	split("", kv)
	for (i = 2; i <= n; i++) {
		j = index(f[i], "=")
		if (j > 1) kv[substr(f[i], 1, j - 1)] = substr(f[i], j + 1)
	}
	if (kind == "meta") {
		for (k in kv) meta[k] = kv[k]
		next
	}
	r = kv["r"] + 0
	if (r < 1) next
	if (r > maxr) maxr = r
	if (kind == "sample") {
		c = kv["cfg"]; w = kv["wl"]
		seencfg[c] = 1; seenwl[w] = 1
		for (k in kv) if (k != "r" && k != "cfg" && k != "wl") val[c, w, k, r] = kv[k]
		if (kv["err"] != "") fails = fails sprintf("  round %d %s %s: %s\n", r, c, w, kv["err"])
	} else if (kind == "limit") {
		for (k in kv) if (k != "r") lim[k, r] = kv[k]
	} else if (kind == "integrity") {
		integ[kv["cfg"], r] = kv["ok"]
		seenint[kv["cfg"]] = 1
	} else if (kind == "stage") {
		c = kv["cfg"]; w = kv["wl"]; s = kv["name"]
		# the primary's (the secondary's p_total line says count=0)
		if (s == "p_total" && kv["count"] + 0 > 0) ptc[c, w, r] = kv["count"] + 0
		# "inline count=N", "fast_ack count=N", "flush_local count=N",
		# "ack_batched count=N", "fast_rx count=N" (the secondary's) are
		# counts: the share of
		# p_total's writes, in %
		if ((s == "inline" || s == "fast_ack" || s == "flush_local" || s == "ack_batched" || s == "fast_rx") && kv["count"] + 0 > 0 && ptc[c, w, r] > 0) {
			kv["p50"] = kv["p99"] = sprintf("%.0f", 100 * kv["count"] / ptc[c, w, r])
			s = s "%"
		}
		# "rx_probe count=N switches=M" (the secondary's reader
		# controller) and "ack_deferred count=N": in the samples only
		if (kv["count"] + 0 > 0 && s != "inline" && s != "fast_ack" && s != "flush_local" && s != "ack_batched" && s != "ack_deferred" && s != "fast_rx" && s != "rx_probe") {
			val[c, w, "stage:" s ":p50", r] = kv["p50"]
			val[c, w, "stage:" s ":p99", r] = kv["p99"]
			if (!((c SUBSEP s) in seenstage)) {
				seenstage[c, s] = 1
				stages[c] = stages[c] (stages[c] == "" ? "" : " ") s
			}
		}
	}
}

END {
	R = (isnum(meta["rounds"]) && meta["rounds"] >= maxr) ? meta["rounds"] + 0 : maxr
	# configurations and workloads, in report order
	nc = 0
	if (meta["configs"] != "") {
		nc = split(meta["configs"], cfg, ",")
	} else {
		for (i = 1; i <= ndefcfg; i++) if (defcfg[i] in seencfg) cfg[++nc] = defcfg[i]
		for (c in seencfg) if (!has("bare nm-disc nm-A nm-B nm-C nm-Cmac nm-Cthr nm-Cackthr nm-Cnomerge nm-Cnobatch nm-Crxthr nm-Cnoprobe drbd-disc drbd-A drbd-B drbd-C", c)) cfg[++nc] = c
	}
	cfgs = ""
	for (i = 1; i <= nc; i++) cfgs = cfgs " " cfg[i]
	nw = 0
	if (meta["workloads"] != "") {
		nw = split(meta["workloads"], wl, ",")
	} else {
		for (i = 1; i <= ndefwl; i++) if (defwl[i] in seenwl) wl[++nw] = defwl[i]
		for (w in seenwl) if (!has("w512-q1 w4k-q1 rw4k-q32 w1m-q1 w4k-dsync", w)) wl[++nw] = w
	}

	# ---- header
	print "# netmirror vs DRBD 8.4 write benchmark: fio, O_DIRECT, one VM, loopback TCP"
	printf "# git %s  kernel %s  %s  %s CPUs  %s MiB\n", d(meta["git"]), d(meta["kernel"]), d(meta["fio"]), d(meta["ncpu"]), d(meta["mem"])
	printf "# backing %s, %s MiB per device; netmirror metadata device: %s; data: %s\n", d(meta["backing"]), d(meta["size_mb"]), d(meta["meta"]), d(meta["data"])
	if (meta["ov_mb"] != "") printf "# verify (ov-*): %s MiB per node on %s\n", meta["ov_mb"], d(meta["ov_backing"])
	printf "# %d rounds, configurations interleaved (order rotated every round); %s s measured after a %s s ramp per point\n", R, d(meta["time"]), d(meta["ramp"])
	print "# cell = median [min..max] of the rounds (n=K: only K rounds have a value); MB/s = 10^6 B/s; latencies are fio clat percentiles"
	print "# CPU us/write: busy time of all CPUs of the VM (both nodes, fio, kernel threads, interrupts) per write"

	# ---- limits
	print ""
	print "## limits (this boot, every round; tcprr: loopback TCP, TCP_NODELAY)"
	tab_reset()
	nl = split("rr4k:request/response 4096 -> 32 B p50 us|rr4k_p99:request/response 4096 -> 32 B p99 us|rr512:request/response 512 -> 32 B p50 us|rr512_p99:request/response 512 -> 32 B p99 us|stream:one stream MB/s", lrow, "|")
	for (r = 1; r <= R; r++) if (limit("diskread", r) != "") { lrow[++nl] = "diskread:disk read MB/s (fio 1 MiB O_DIRECT sequential)"; break }
	for (r = 1; r <= R; r++) if (limit("ovread", r) != "") { lrow[++nl] = "ovread:verify device read MB/s (fio 1 MiB O_DIRECT sequential)"; break }
	for (r = 1; r <= R; r++) if (limit("rr4kq32", r) != "") {
		lrow[++nl] = "rr4kq32:request/response 4096 -> 32 B, 32 in flight, per s"
		lrow[++nl] = "rr4kq32_cpu:request/response 4096 -> 32 B, 32 in flight, CPU us each (VM)"
		break
	}
	for (r = 1; r <= R; r++) if (limit("rr4kq32c2", r) != "") {
		lrow[++nl] = "rr4kq32c2:request/response 4096 -> 32 B, 32 in flight on two connections, per s"
		lrow[++nl] = "rr4kq32c2_cpu:request/response 4096 -> 32 B, 32 in flight on two connections, CPU us each (VM)"
		break
	}
	for (i = 1; i <= nl; i++) {
		k = substr(lrow[i], 1, index(lrow[i], ":") - 1)
		n = 0
		for (r = 1; r <= R; r++) { x = limit(k, r); if (x != "") xs[++n] = x }
		tab_set(i, 1, substr(lrow[i], index(lrow[i], ":") + 1))
		tab_set(i, 2, cell(n))
	}
	tab_print()
	split("w4k-q1:rr4k:4 KiB|w512-q1:rr512:512 B", fl, "|")
	for (i = 1; i <= 2; i++) {
		split(fl[i], p, ":")
		n = floors(p[1], p[2])
		if (!summ(n)) { printf "floor of a protocol C %s write at QD1: n/a (no bare %s p50 or %s)\n", p[3], p[1], p[2]; continue }
		printf "floor of a protocol C %s write at QD1 = bare %s p50 + %s p50 = %s us (~%s IOPS)\n", p[3], p[1], p[2], cell(n), fmt(1e6 / med)
		printf "  nm-C %s p50 %s us; nm-C/floor %s; drbd-C/floor %s\n", p[1], cell(collect("nm-C", p[1], "p50")),
			cell(floor_ratios("nm-C", p[1], p[2])), cell(floor_ratios("drbd-C", p[1], p[2]))
	}

	# ---- results
	print ""
	print "## results: one block per workload, one column per configuration"
	for (i = 1; i <= nw; i++) {
		w = wl[i]
		print ""
		printf "### %s: %s\n", w, (w in desc) ? desc[w] : w
		tab_reset()
		tab_set(1, 1, "metric")
		# the resync and NBD blocks: only the configurations they ran on
		split("", bc); nb = 0
		for (j = 1; j <= nc; j++)
			if ((w !~ /^(rs|nbd|nbdr|ov)-/ && cfg[j] != "drbd-Cdef") || anycw(cfg[j], w)) bc[++nb] = cfg[j]
		for (j = 1; j <= nb; j++) tab_set(1, j + 1, bc[j])
		nm = split((w in rows) ? rows[w] : "iops mbs p50 p99 cpu", mets, " ")
		for (k = 1; k <= nm; k++) {
			tab_set(k + 1, 1, (mets[k] in label) ? label[mets[k]] : mets[k])
			for (j = 1; j <= nb; j++) tab_set(k + 1, j + 1, w ~ /^(rs|ov)-/ ? wcell(bc[j], w, mets[k]) : cell(collect(bc[j], w, mets[k])))
		}
		tab_print()
		if (w ~ /^rs-/) print rsnote
		if (w ~ /^ov-/) print ovnote
	}
	if (fails != "") {
		print ""
		print "failed runs:"
		printf "%s", fails
	}

	# ---- paired ratios
	print ""
	print "## ratios: median [min..max] of per-round paired ratios of IOPS (MB/s for w1m-*); > 1: the first is faster"
	np = split("nm-C/drbd-C nm-C/drbd-A nm-A/drbd-A nm-B/drbd-B nm-disc/drbd-disc nm-Cmac/nm-C nm-Cthr/nm-C nm-Cackthr/nm-C nm-Cnomerge/nm-C nm-Cnobatch/nm-C nm-Crxthr/nm-C nm-Cnoprobe/nm-C nm-A/nm-disc nm-B/nm-disc nm-C/nm-disc drbd-A/drbd-disc drbd-B/drbd-disc drbd-C/drbd-disc nm-disc/bare drbd-disc/bare", pairs, " ")
	tab_reset()
	tab_set(1, 1, "pair")
	nfw = 0
	for (i = 1; i <= nw; i++) if (wl[i] !~ /^(rs|nbd|nbdr|ov)-/) fw[++nfw] = wl[i]
	for (i = 1; i <= nfw; i++) tab_set(1, i + 1, fw[i])
	row = 1
	for (k = 1; k <= np; k++) {
		split(pairs[k], p, "/")
		if (!has(cfgs, p[1]) || !has(cfgs, p[2])) continue
		tab_set(++row, 1, pairs[k])
		for (i = 1; i <= nfw; i++) tab_set(row, i + 1, cell(ratios(p[1], p[2], fw[i], tput(fw[i]))))
	}
	tab_print()
	print "CPU per write, paired ratios (< 1: the first uses less):"
	tab_reset()
	tab_set(1, 1, "pair")
	for (i = 1; i <= nfw; i++) tab_set(1, i + 1, fw[i])
	row = 1
	split("nm-C/drbd-C nm-A/drbd-A nm-B/drbd-B nm-disc/drbd-disc", cpairs, " ")
	for (k = 1; k <= 4; k++) {
		split(cpairs[k], p, "/")
		if (!has(cfgs, p[1]) || !has(cfgs, p[2])) continue
		tab_set(++row, 1, cpairs[k])
		for (i = 1; i <= nfw; i++) tab_set(row, i + 1, cell(ratios(p[1], p[2], fw[i], "cpu")))
	}
	tab_print()

	# ---- resync and NBD: paired ratios of their own
	has_rs = anywl("rs-full") || anywl("rs-part") || anywl("rs-app")
	if (has_rs) {
		print ""
		print "## resync: median [min..max] of per-round ratios (MB/s = 10^6 B/s; disk read and stream: the limits above;"
		print "## transfer: resync started to in sync; incl. reconnect: trigger to in sync; kernel-log times where there are, else polled)"
		tab_reset()
		row = 0
		split("nm-C drbd-C drbd-Cdef", rc, " ")
		for (k = 1; k <= 3; k++) {
			if (!anycw(rc[k], "rs-full")) continue
			tab_set(++row, 1, rc[k] " rs-full transfer / min(disk read, stream)")
			tab_set(row, 2, cell(rs_limit_ratios(rc[k], "mbs")))
			tab_set(++row, 1, rc[k] " rs-full incl. reconnect / min(disk read, stream)")
			tab_set(row, 2, cell(rs_limit_ratios(rc[k], "mbs_all")))
		}
		split("nm-C/drbd-Cdef nm-C/drbd-C drbd-C/drbd-Cdef", rp, " ")
		for (k = 1; k <= 3; k++) {
			split(rp[k], p, "/")
			for (i = 1; i <= 2; i++) {
				ww = i == 1 ? "rs-full" : "rs-part"
				if (!anycw(p[1], ww) || !anycw(p[2], ww)) continue
				tab_set(++row, 1, rp[k] " " ww " MB/s (transfer)")
				tab_set(row, 2, cell(ratios(p[1], p[2], ww, "mbs")))
				tab_set(++row, 1, rp[k] " " ww " MB/s (incl. reconnect)")
				tab_set(row, 2, cell(ratios(p[1], p[2], ww, "mbs_all")))
			}
		}
		for (k = 1; k <= 3; k++) {
			if (!anycw(rc[k], "rs-app")) continue
			# drbd-Cdef runs no w4k-q1: its idle rate is drbd-C's (same protocol)
			ib = rc[k] == "drbd-Cdef" ? "drbd-C" : rc[k]
			tab_set(++row, 1, rc[k] " rs-app IOPS / " ib " w4k-q1 IOPS (idle)")
			n = xratios(rc[k], "rs-app", ib, "w4k-q1", "iops")
			tab_set(row, 2, !n && !collect(rc[k], "rs-app", "iops") && nowin(rc[k]) ? "n/a" : cell(n))
		}
		tab_print()
	}
	has_nbd = anywl("nbd-w1m") || anywl("nbd-w4k")
	has_nbdr = anywl("nbdr-w1m") || anywl("nbdr-w4k")
	if (has_nbd || has_nbdr) {
		print ""
		print "## NBD export: median [min..max] of per-round ratios (MB/s for *-w1m, IOPS for *-w4k; nbd-*: the client in this VM, nbdr-*: on the other side)"
		tab_reset()
		tab_set(1, 1, "pair")
		split("", nx); nn = 0
		if (has_nbd) { nx[++nn] = "nbd-w1m"; nx[++nn] = "nbd-w4k" }
		if (has_nbdr) { nx[++nn] = "nbdr-w1m"; nx[++nn] = "nbdr-w4k" }
		for (j = 1; j <= nn; j++) tab_set(1, j + 1, nx[j])
		row = 1
		split("nm-C/bare drbd-C/bare nm-C/drbd-C", np2, " ")
		for (k = 1; k <= 3; k++) {
			split(np2[k], p, "/")
			if (!has(cfgs, p[1]) || !has(cfgs, p[2])) continue
			tab_set(++row, 1, np2[k])
			for (j = 1; j <= nn; j++) tab_set(row, j + 1, cell(ratios(p[1], p[2], nx[j], tput(nx[j]))))
		}
		for (k = 1; k <= 3; k++) {
			c = k == 1 ? "bare" : k == 2 ? "nm-C" : "drbd-C"
			if (!has(cfgs, c)) continue
			tab_set(++row, 1, c " nbd/local")
			for (j = 1; j <= nn; j++)
				tab_set(row, j + 1, cell(xratios(c, nx[j], c, nx[j] ~ /w1m/ ? "w1m-q1" : "w4k-q1", tput(nx[j]))))
		}
		tab_print()
	}

	# ---- online verify: against the read limits, and nm-C/drbd-C
	if (anywl("ov-full")) {
		print ""
		print "## verify: median [min..max] of per-round ratios (MB/s = 10^6 B/s; the read limits above, same round)"
		tab_reset()
		row = 0
		split("nm-C drbd-C", oc, " ")
		for (k = 1; k <= 2; k++) {
			if (!anycw(oc[k], "ov-full")) continue
			tab_set(++row, 1, oc[k] " ov-full MB/s / verify device read MB/s")
			tab_set(row, 2, cell(ov_limit_ratios(oc[k], "ovread")))
			if (anylimit("diskread")) {
				tab_set(++row, 1, oc[k] " ov-full MB/s / disk read MB/s")
				tab_set(row, 2, cell(ov_limit_ratios(oc[k], "diskread")))
			}
		}
		if (anycw("nm-C", "ov-full") && anycw("drbd-C", "ov-full")) {
			tab_set(++row, 1, "nm-C/drbd-C ov-full MiB/s")
			tab_set(row, 2, cell(ratios("nm-C", "drbd-C", "ov-full", "ovmibs")))
		}
		tab_print()
		# a difference between two copies that are equal is an error
		bad = ""; nok = 0
		for (i = 1; i <= nc; i++) for (r = 1; r <= R; r++) {
			x = get(cfg[i], "ov-full", "diffs", r); y = get(cfg[i], "ov-full", "kdiffs", r)
			if (x == "" && y == "") continue
			if (x + 0 != 0 || y + 0 != 0) bad = bad sprintf("  %s round %d: %s blocks differ (status %s, log %s)\n", cfg[i], r, (x + 0 > y + 0) ? x : y, x == "" ? "-" : x, y == "" ? "-" : y)
			else nok++
		}
		if (bad != "") printf "verify differences: ERROR: the two copies are equal, the verify must find none\n%s", bad
		else printf "verify differences: none (%d verifies)\n", nok
	}

	# ---- goals (issue 12), each with the numbers it used
	print ""
	print "## goals (issue 12; medians of per-round paired ratios, same boot)"
	qd1_goal("w4k-q1", "rr4k", "C 4 KiB QD1 >= 2x drbd-C and >= drbd-A, or within 15% of the floor")
	qd1_goal("w512-q1", "rr512", "C 512 B QD1 >= 2x drbd-C and >= drbd-A, or within 15% of the floor")
	t1 = test("nm-C/drbd-C IOPS", ratios("nm-C", "drbd-C", "rw4k-q32", "iops"), ">=", 2); o1 = tok
	t2 = test("nm-C/drbd-C CPU per write", ratios("nm-C", "drbd-C", "rw4k-q32", "cpu"), "<=", 1); o2 = tok
	printf "goal C 4 KiB random QD32 >= 2x drbd-C, CPU per write <= drbd-C's: %s\n  %s; %s\n", verdict(all2(o1, o2), ""), t1, t2
	# what the VM's CPUs allow: not a verdict, the reason a rate is out of reach
	if (q32_caps("all")) {
		printf "  rw4k-q32 in this VM: if a C write costs at least bare's CPU per write + one 4 KiB -> 32 B exchange at depth 32 (rr4kq32_cpu), no C device exceeds %s x 1e6 / (bare cpu + rr4kq32_cpu) = %s IOPS\n", meta["ncpu"], cell(q32_caps("all"))
		printf "    2x drbd-C / that: %s; nm-C / that: %s\n", cell(q32_cap_ratios("drbd-C", 2, "all")), cell(q32_cap_ratios("nm-C", 1, "all"))
	}
	if (q32_caps("busy")) {
		printf "  with the CPUs only as busy as the exchange kept them: rr4kq32 x rr4kq32_cpu / (bare cpu + rr4kq32_cpu) = %s IOPS\n", cell(q32_caps("busy"))
		printf "    2x drbd-C / that: %s; nm-C / that: %s\n", cell(q32_cap_ratios("drbd-C", 2, "busy")), cell(q32_cap_ratios("nm-C", 1, "busy"))
	}
	if (q32_caps("busy2")) {
		printf "  the same over two connections of 16 (several data connections): rr4kq32c2 x rr4kq32c2_cpu / (bare cpu + rr4kq32c2_cpu) = %s IOPS\n", cell(q32_caps("busy2"))
		printf "    2x drbd-C / that: %s; nm-C / that: %s\n", cell(q32_cap_ratios("drbd-C", 2, "busy2")), cell(q32_cap_ratios("nm-C", 1, "busy2"))
	}
	t1 = test("nm-C/drbd-C MB/s", ratios("nm-C", "drbd-C", "w1m-q1", "mbs"), ">=", 1.2); o1 = tok
	t2 = test("nm-C/stream MB/s", stream_ratios("nm-C", "w1m-q1"), ">=", 0.9); o2 = tok
	printf "goal C 1 MiB sequential QD1 >= 1.2x drbd-C and >= 90%% of one loopback stream: %s\n  %s; %s\n", verdict(all2(o1, o2), ""), t1, t2
	g = "goal full resync >= 90% of min(disk read, link) and >= 3x DRBD's default, application >= 50% of its idle rate during a resync that progresses"
	if (!has_rs) print g ": not measured (run with --resync)"
	else {
		t1 = test("nm-C rs-full transfer MB/s/min(disk read, stream)", rs_limit_ratios("nm-C", "mbs"), ">=", 0.9); o1 = tok
		t2 = test("nm-C/drbd-Cdef rs-full transfer MB/s", ratios("nm-C", "drbd-Cdef", "rs-full", "mbs"), ">=", 3); o2 = tok
		if (!collect("nm-C", "rs-app", "iops") && nowin("nm-C")) {
			# rs-app ran, but no round saw its resync running while the application did
			t3 = "nm-C rs-app IOPS/w4k-q1 IOPS: not measured (the resync was not seen running while the application ran: " nowin("nm-C") " of " R " rounds)"
			t4 = "nm-C resync MiB/s during rs-app: not measured"
			o3 = o4 = -1
		} else {
			t3 = test("nm-C rs-app IOPS/w4k-q1 IOPS", xratios("nm-C", "rs-app", "nm-C", "w4k-q1", "iops"), ">=", 0.5); o3 = tok
			t4 = test("nm-C resync MiB/s during rs-app", collect("nm-C", "rs-app", "rs_mibs"), ">", 0); o4 = tok
		}
		printf "%s: %s\n  %s; %s\n  %s; %s\n", g, verdict(all2(all2(o1, o2), all2(o3, o4)), ""), t1, t2, t3, t4
	}
	# the issue's setup is the client on the other side (nbdr-*); with the
	# client in this VM (nbd-*) too, those are printed, not judged
	g = "goal NBD export >= 90% of the bare device's"
	if (!has_nbd && !has_nbdr) print g ": not measured (run with --nbd-remote or --nbd)"
	else {
		x = has_nbdr ? "nbdr" : "nbd"
		t1 = test("nm-C/bare " x "-w1m MB/s", ratios("nm-C", "bare", x "-w1m", "mbs"), ">=", 0.9); o1 = tok
		t2 = test("nm-C/bare " x "-w4k IOPS", ratios("nm-C", "bare", x "-w4k", "iops"), ">=", 0.9); o2 = tok
		printf "%s: %s (%s)\n  %s; %s\n", g, verdict(all2(o1, o2), ""),
			has_nbdr ? "the client on the other side" : "the client in this VM: --nbd-remote puts it on the other side, as the goal says", t1, t2
		if (has_nbdr && has_nbd) {
			t1 = test("nm-C/bare nbd-w1m MB/s", ratios("nm-C", "bare", "nbd-w1m", "mbs"), ">=", 0.9)
			t2 = test("nm-C/bare nbd-w4k IOPS", ratios("nm-C", "bare", "nbd-w4k", "iops"), ">=", 0.9)
			printf "  not judged, the client in this VM: %s; %s\n", t1, t2
		}
		# the most a protocol C device can reach at 4 KiB QD1: each write
		# adds at least one request/response to the bare export's latency
		split("nbdr nbd", xk, " ")
		for (k = 1; k <= 2; k++)
			if ((xk[k] == "nbdr" ? has_nbdr : has_nbd) && summ(rt_bound(xk[k] "-w4k", "rr4k")))
				printf "  %s-w4k at QD1 under C: each write adds one request/response, so nm-C/bare <= bare p50 / (bare p50 + rr4k p50) = %s [%s..%s]\n", xk[k], fmt(med), fmt(lo), fmt(hi)
	}

	# ---- integrity
	print ""
	print "## integrity: md5 of both backing devices equal after each replicated configuration"
	ni = 0
	for (i = 1; i <= nc; i++) {
		c = cfg[i]
		if (!(c in seenint)) continue
		ni++
		yes = 0; tot = 0; bad = ""
		for (r = 1; r <= R; r++) {
			if (!((c SUBSEP r) in integ)) continue
			tot++
			if (integ[c, r] == "yes") yes++
			else bad = bad " " r
		}
		if (yes == tot) printf "%-9s yes (%d/%d rounds)\n", c, yes, tot
		else printf "%-9s NO: differ after round(s)%s (%d/%d equal)\n", c, bad, yes, tot
	}
	if (!ni) print "(no integrity checks recorded)"

	# ---- netmirror stage latencies
	ns = 0
	for (i = 1; i <= nc; i++) if (stages[cfg[i]] != "") ns++
	if (ns) {
		print ""
		print "## netmirror stage latencies (dmsetup message <dev> 0 latency, per workload; p_* primary, s_* secondary)"
		print "## cell = median over the rounds of each round's p50/p99, us; inline% = writes sent from the submitter's context, fast_ack% = acks taken in data_ready, flush_local% = empty flushes kept local, ack_batched% = acks held for a later packet, fast_rx% = writes the secondary read in its receive worker; each % of p_total's"
		for (i = 1; i <= nc; i++) {
			c = cfg[i]
			if (stages[c] == "") continue
			print ""
			print "### " c
			tab_reset()
			tab_set(1, 1, "workload")
			nst = split(stages[c], stn, " ")
			for (k = 1; k <= nst; k++) tab_set(1, k + 1, stn[k])
			for (j = 1; j <= nw; j++) {
				tab_set(j + 1, 1, wl[j])
				for (k = 1; k <= nst; k++) {
					a = summ(collect(c, wl[j], "stage:" stn[k] ":p50")) ? fmt(med) : "-"
					b = summ(collect(c, wl[j], "stage:" stn[k] ":p99")) ? fmt(med) : "-"
					tab_set(j + 1, k + 1, stn[k] ~ /%$/ ? a : a "/" b)
				}
			}
			tab_print()
		}
	}
}
function d(x) { return x == "" ? "?" : x }
