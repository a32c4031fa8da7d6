# shellcheck shell=sh disable=SC3043
# Corosync + Pacemaker in the test VM, without systemd (the cluster layer:
# scripts/mkclustercpio.sh, a test's "# layers: cluster" header).  busybox
# ash; source after lib.sh.  Installed as /tests/clusterlib.sh.
#
#   cl_doc NAME           print the code block of docs/cluster.md that follows
#                         its "<!-- test: NAME -->" line (the tests use the
#                         configuration as the doc writes it)
#   cl_prepare HOST       this VM becomes HOST (hostname; /etc/hosts knows
#                         alpha, beta and a, b), with the hacluster user, the
#                         haclient group, Pacemaker's and Corosync's
#                         directories, and busybox syslogd (/var/log/messages)
#   cl_start              start corosync and pacemakerd (logs in
#                         /var/log/corosync/, /var/log/pacemaker/)
#   cl_stop               stop pacemakerd (it stops its daemons), then corosync
#   cl_wait_online N SECS N nodes online and a DC elected
#   cl_promoted CLONE     the node where CLONE is promoted, or nothing
#   cl_running RSC        the node where primitive RSC runs, or nothing
#   cl_score RSC NODE     the promotion score of primitive RSC on NODE, or "-"
#   cl_dump               crm_mon, the tail of the cluster logs (on FAIL)

cl_doc() {
	awk -v n="$1" '
		$0 == "<!-- test: " n " -->" { f = 1; next }
		f == 1 && /^```/ { f = 2; next }
		f == 2 && /^```/ { exit }
		f == 2 { print }' /docs/cluster.md
}

cl_prepare() {
	hostname "$1"
	grep -q ' alpha$' /etc/hosts || printf '169.254.0.1 alpha\n169.254.0.2 beta\n' >> /etc/hosts
	grep -q '^hacluster:' /etc/passwd ||
		echo 'hacluster:x:101:101:Pacemaker:/var/lib/pacemaker:/bin/false' >> /etc/passwd
	grep -q '^haclient:' /etc/group || echo 'haclient:x:101:' >> /etc/group
	mkdir -p /var/lib/pacemaker/cib /var/lib/pacemaker/pengine /var/lib/pacemaker/blackbox \
		/var/lib/pacemaker/cores /var/log/pacemaker /var/lib/corosync /var/log/corosync \
		/var/log/cluster /etc/corosync /run/crm /run/resource-agents /var/run
	chown -R hacluster:haclient /var/lib/pacemaker /var/log/pacemaker
	chmod 750 /var/lib/pacemaker/cib /var/lib/pacemaker/pengine
	pidof syslogd > /dev/null || syslogd -O /var/log/messages
}

cl_start() {
	# both in the foreground, in their own sessions
	setsid corosync -f < /dev/null > /var/log/corosync/corosync.out 2>&1 &
	wait_for "corosync-cmapctl -g totem.cluster_name > /dev/null 2>&1" 30 ||
		fail "corosync did not start: $(tail -n 5 /var/log/corosync/corosync.out /var/log/corosync/corosync.log 2>/dev/null)"
	# pacemakerd stays in the foreground; it starts the other daemons
	setsid pacemakerd < /dev/null > /var/log/pacemaker/pacemakerd.out 2>&1 &
}

cl_stop() {
	local p
	p=$(pidof pacemakerd)
	[ -n "$p" ] && kill -TERM $p
	wait_for "! pidof pacemakerd >/dev/null && ! pidof pacemaker-controld >/dev/null" 120
	p=$(pidof corosync)
	[ -n "$p" ] && kill -TERM $p
	wait_for "! pidof corosync >/dev/null" 30
}

# crm_mon -1, bounded (the tools wait for daemons that are not up yet)
cl_mon() {
	$TIMEOUT 15 crm_mon -1 "$@" 2>/dev/null
}

cl_wait_online() {
	wait_for "[ \"\$(cl_mon | sed -n 's/.*Online: \\[ \\(.*\\) \\]/\\1/p' | wc -w)\" -ge $1 ] &&
		cl_mon | grep -q 'Current DC: [a-z].*partition'" "$2"
}

cl_promoted() {
	$TIMEOUT 15 crm_resource --locate -r "$1" 2>/dev/null |
		sed -n 's/.* is running on: \([^ ]*\) \(Promoted\|Master\).*/\1/p' | head -n 1
}

cl_running() {
	$TIMEOUT 15 crm_resource --locate -r "$1" 2>/dev/null | sed -n 's/.* is running on: \([^ ]*\).*/\1/p' | head -n 1
}

cl_score() {
	$TIMEOUT 15 crm_attribute -N "$2" -n "master-$1" -l reboot -G -q 2>/dev/null || echo -
}

cl_dump() {
	echo "NMDUMP-BEGIN cluster state of $(hostname)"
	cl_mon -r -A | head -n 60
	echo "--- constraints"
	$TIMEOUT 15 cibadmin -Q -o constraints 2>&1 | head -n 40
	echo "--- corosync"
	tail -n 15 /var/log/corosync/corosync.log 2>/dev/null
	echo "--- pacemaker.log"
	grep -E 'netmirror|Filesystem|error|warning|promot' /var/log/pacemaker/pacemaker.log 2>/dev/null | tail -n 60
	echo "--- messages"
	tail -n 40 /var/log/messages 2>/dev/null
	echo "NMDUMP-END"
}
