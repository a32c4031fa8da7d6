# One benchmark sample from fio's JSON output (--output-format=json, one job
# writing).  POSIX awk (busybox awk in the guest, mawk/gawk on the host);
# installed as /tests/bench-fio.awk, tested by tests/bench/test-report.sh.
#
#   awk -v snap="B0 T0 C0 U0 B1 T1 C1 U1" -v ncpu=N [-v dir=read] -f bench-fio.awk fio.json
#   awk -v snap=".." -v ncpu=N -v rate=R -f bench-fio.awk
#     (no JSON: only the CPU us per operation of a run of R operations/s
#     between the two snapshots, as cpu= below; nothing without a figure)
#
# snap: two /proc/stat snapshots taken inside the measured window (busy and
# total jiffies of the "cpu" line, ctxt, /proc/uptime seconds), optional.
# dir: the direction to report, write (default) or read (then iops/mbs/...
# are the reads', and "nowrites" means no reads).
# Prints one line of key=value words:
#   iops=  write IOPS                       mbs=  write MB/s (10^6 B/s)
#   p50= p99= p999=  completion latency percentiles, us (fio clat_ns)
#   mean=  mean completion latency, us      ios=  writes in the measured window
#   cpu=   CPU us per write, all CPUs of the VM (both nodes, fio, kernel threads,
#          interrupts): busy fraction x ncpu / IOPS
#   ctx=   context switches per write (ctxt per second / IOPS)
#   err=   fio's error number (only when not 0, or "nojob" / "nowrites")
#
# The JSON is read as fio pretty-prints it: one key per line, objects and
# arrays opened at the end of a line ("key" : {) and closed on a line of
# their own.  Every scalar is stored under its path, e.g.
# jobs.0.write.clat_ns.percentile.99.000000; lines that are not JSON (fio's
# notes) are ignored.

function push(name) { path[++depth] = name; isarr[depth] = 0; nidx[depth] = 0 }
function pathstr(   i, s) {
	s = ""
	for (i = 1; i <= depth; i++)
		if (path[i] != "") s = s (s == "" ? "" : ".") path[i]
	return s
}
function num(x) { return x != "" && x ~ /^-?[0-9.]+([eE][-+]?[0-9]+)?$/ }
# CPU us per operation at RATE operations/s between the snapshots of SNAP:
# busy fraction x ncpu / rate; "" without two snapshots, time, busy time
# (no jiffy of work counted: no figure, not zero) or a rate
function cpu_us(snap, ncpu, rate,   n, s) {
	n = split(snap, s, " ")
	if (n != 8 || !num(rate) || rate <= 0 || s[6] <= s[2] || s[5] <= s[1] || ncpu <= 0) return ""
	return sprintf("%.1f", (s[5] - s[1]) / (s[6] - s[2]) * ncpu * 1e6 / rate)
}

BEGIN {
	depth = 0
	if (rate != "") {	# the CPU per operation only
		cpuonly = 1
		x = cpu_us(snap, ncpu, rate)
		if (x != "") print x
		exit
	}
}
{
	line = $0
	sub(/^[ \t]+/, "", line)
	sub(/[ \t\r]+$/, "", line)
	if (line == "{" || line == "[") {
		# the root, or an element of an array: named by its index
		name = ""
		if (depth > 0 && isarr[depth]) name = nidx[depth]++
		push(name)
		if (line == "[") isarr[depth] = 1
		next
	}
	if (line ~ /^[]}],?$/) {
		if (depth > 0) depth--
		next
	}
	if (substr(line, 1, 1) != "\"") next
	i = index(line, "\" : ")
	if (i == 0) next
	key = substr(line, 2, i - 2)
	val = substr(line, i + 4)
	if (val == "{" || val == "[") {
		push(key)
		if (val == "[") isarr[depth] = 1
		next
	}
	sub(/,$/, "", val)
	if (val ~ /^".*"$/) val = substr(val, 2, length(val) - 2)
	p = pathstr()
	v[(p == "" ? "" : p ".") key] = val
}
END {
	if (cpuonly) exit
	w = "jobs.0." (dir == "" ? "write" : dir) "."
	if (!(("jobs.0.jobname") in v)) { print "err=nojob"; exit }
	out = ""
	if (v["jobs.0.error"] != "" && v["jobs.0.error"] != 0) out = out " err=" v["jobs.0.error"]
	ios = v[w "total_ios"]
	if (ios == "" || ios == 0) out = out " err=nowrites"
	iops = v[w "iops"]
	if (num(iops)) out = out sprintf(" iops=%.1f", iops)
	if (num(v[w "bw_bytes"])) out = out sprintf(" mbs=%.2f", v[w "bw_bytes"] / 1e6)
	pc = w "clat_ns.percentile."
	if (num(v[pc "50.000000"])) out = out sprintf(" p50=%.1f", v[pc "50.000000"] / 1000)
	if (num(v[pc "99.000000"])) out = out sprintf(" p99=%.1f", v[pc "99.000000"] / 1000)
	if (num(v[pc "99.900000"])) out = out sprintf(" p999=%.1f", v[pc "99.900000"] / 1000)
	if (num(v[w "clat_ns.mean"])) out = out sprintf(" mean=%.1f", v[w "clat_ns.mean"] / 1000)
	if (num(ios)) out = out " ios=" ios
	x = num(iops) ? cpu_us(snap, ncpu, iops) : ""
	if (x != "") {
		out = out " cpu=" x
		split(snap, s, " ")
		if (s[8] > s[4])
			out = out sprintf(" ctx=%.2f", (s[7] - s[3]) / (s[8] - s[4]) / iops)
	}
	sub(/^ /, "", out)
	print out
}
