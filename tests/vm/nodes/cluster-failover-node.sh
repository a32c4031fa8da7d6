# Node alpha (VM a) of the cluster-failover scenario
# (tests/vm/scenarios/cluster-failover.sh): netmirror under Corosync and
# Pacemaker with the configuration of docs/cluster.md, as written (the
# blocks marked "<!-- test: NAME -->"); node beta is VM b (nmrpc peer).
# One 64M disk per VM (/dev/vda, meta internal).
#
# Phase 1: both nodes set up from the doc (netmirror.conf, the first sync,
#   corosync.conf, the CIB), alpha promoted (beta in standby until then), the filesystem mounted on alpha;
#   checks promoted/*, scores/*; fence/*: beta drops the link, the fence
#   handler places its constraint (only alpha may be promoted) and alpha's
#   writes go on; beta reconnects, resyncs, and the fence daemon removes the
#   constraint at the resync's end (unfenced-by-daemon: its
#   --unfence-handler, not a monitor); then a verifying load (seqw: O_DSYNC
#   4 KiB writes into a file of the filesystem, each logged when
#   acknowledged, the log streamed to beta with nc); load/healthy: the pair
#   is connected, both uptodate, no fence constraint; "NMMARK: crash-me 1":
#   the host SIGKILLs this VM.
# Phase 2 (alpha booted again on the same disk): failover/*: Pacemaker on
#   beta has promoted it and mounted the filesystem, every write logged as
#   acknowledged before the kill is in the file; rejoin/*: only corosync
#   and pacemaker are started here (no netmirror command): alpha rejoins as
#   secondary, resyncs, beta stays promoted, both scores 10000, both backing
#   disks identical (the data after the 1 MiB metadata area).
load_netmirror
. /tests/nmlib.sh
. /tests/clusterlib.sh
phase=${nm_phase:-1}
SEED=4242
LOADSZ=16M
P=". /tests/lib.sh; . /tests/clusterlib.sh; . /tests/nmlib.sh;"
peer() { on_peer "$P $*"; }
t0=$(cut -d' ' -f1 /proc/uptime)
el() { awk -v a="$t0" -v b="$(cut -d' ' -f1 /proc/uptime)" 'BEGIN { printf "%.0f", b - a }'; }

# the doc's files on this node and on beta; the corosync key from $1
setup_files() {
	cl_prepare alpha
	peer "cl_prepare beta" || fail "peer: cl_prepare"
	cl_doc netmirror.conf > /etc/netmirror.conf
	cl_doc corosync.conf > /etc/corosync/corosync.conf
	[ -s /etc/netmirror.conf ] && [ -s /etc/corosync/corosync.conf ] || fail "docs/cluster.md: blocks missing"
	peer "cl_doc netmirror.conf > /etc/netmirror.conf; cl_doc corosync.conf > /etc/corosync/corosync.conf" ||
		fail "peer: config files"
}
dump_both() {
	cl_dump
	peer "cl_dump"
}

if [ "$phase" = 1 ]; then
	peer "load_netmirror" || fail "peer: load_netmirror"
	setup_files
	# --- the first sync, as the doc says
	peer "cl_doc init-both | sh -e" || fail "peer: init-both"
	cl_doc init-both | sh -e || fail "init-both"
	cl_doc init-alpha | sh -e || fail "init-alpha"
	peer "cl_doc init-beta | sh -e" || fail "peer: init-beta"
	log "first sync done at $(el)s"
	# --- corosync key (corosync-keygen here, copied as the doc says)
	corosync-keygen > /dev/null 2>&1 || fail "corosync-keygen"
	k=$(base64 < /etc/corosync/authkey | tr -d '\n')
	peer "echo $k | base64 -d > /etc/corosync/authkey && chmod 400 /etc/corosync/authkey" || fail "peer: authkey"
	log "corosync key copied at $(el)s"
	peer "cl_start" || fail "peer: cl_start"
	log "beta started at $(el)s"
	cl_start
	check_wait online 120 "cl_wait_online 2 1" || { dump_both; fail "cluster not online"; }
	log "cluster online at $(el)s"
	# alpha is to be the first primary: beta in standby until then
	$TIMEOUT 30 crm_attribute --node beta --name standby --update on || fail "beta standby"
	cl_doc cib | sh -e || { dump_both; fail "docs/cluster.md: the cib block failed"; }
	check_wait promoted/alpha 120 "[ \"\$(cl_promoted r0-clone)\" = alpha ] && [ \"\$(cl_running r0-fs)\" = alpha ]" ||
		{ dump_both; fail "alpha not promoted"; }
	$TIMEOUT 30 crm_attribute --node beta --name standby --update off || fail "beta online"
	check_wait promoted/beta-unpromoted 120 "[ \"\$(peer 'nm_status r0 role' | tr -d '\r')\" = secondary ]" || dump_both
	check promoted/mounted grep -q ' /srv/r0 ext4 ' /proc/mounts
	check_eq promoted/role "$(nm_status r0 role)" primary
	log "alpha promoted, filesystem mounted at $(el)s"
	# the load's file, now: the wait for the scores (beta's monitor, 20 s
	# apart) overlaps it (1 MiB at a time: no burst of writes queued for
	# the peer, which a loaded host may not acknowledge within the 3 s
	# timeout)
	$DD if=/dev/zero of=/srv/r0/load bs=1M count=16 oflag=dsync status=none || fail "preallocate the load file"
	sync
	check_wait scores/alpha 60 "[ \"\$(cl_score r0 alpha)\" = 10000 ]"
	check_wait scores/beta 60 "[ \"\$(cl_score r0 beta)\" = 10000 ]"
	check promoted/fence-daemon sh -c "ps | grep -v grep | grep -q 'nmsetup fence r0'"
	log "scores set at $(el)s"

	# --- fence: beta drops the link; alpha's writes are held, the handler
	# places its constraint and they go on
	peer "nmsetup disconnect r0" || fail "peer: disconnect"
	$DD if=/dev/urandom of=/srv/r0/during-fence bs=64k count=16 conv=fsync status=none 2>/dev/null &
	ddp=$!
	check_wait fence/constraint 60 "$TIMEOUT 15 cibadmin -Q --xpath \"//rsc_location[@id='nm-fence-r0-clone']\" 2>/dev/null | grep -q 'value=\"alpha\"'" ||
		dump_both
	log "fenced at $(el)s"
	check_wait fence/writes-released 60 "! kill -0 $ddp 2>/dev/null"
	wait $ddp
	check_eq fence/write-ok "$?" 0
	check_eq fence/io-running "$(nm_status r0 io)" running
	grep 'crm-fence-peer' /var/log/messages | tail -n 3 | sed 's/^/NMLOG: /'
	peer "nmsetup connect r0" || fail "peer: connect"
	check_wait fence/resynced 60 "nm_synced r0 && [ \"\$(nm_status r0 peer_disk)\" = uptodate ]"
	t_sync=$(el)
	# the fence daemon removes the constraint on the resync's end (its
	# --unfence-handler), not a monitor some time later
	# (a failed query is no answer: the constraints are read, then searched)
	check_wait fence/unfenced 30 "$TIMEOUT 15 cibadmin -Q -o constraints > /tmp/cons.xml && ! grep -q nm-fence-r0-clone /tmp/cons.xml" ||
		dump_both
	log "unfenced $(( $(el) - t_sync ))s after the resync's end"
	# the daemon logs the handler's exit once it has exited, which may be
	# after its constraint is gone (a clean-clone make check of 447f47b
	# read the log between the two)
	check_wait fence/unfenced-by-daemon 10 "sed -n '/(peer fenced): resume_io/,\$p' /run/resource-agents/netmirror-r0*.fence.log | grep -q 'unfence handler exit 0'"
	sed 's/^/NMLOG: fence daemon: /' /run/resource-agents/netmirror-r0*.fence.log
	check_eq fence/still-alpha "$(cl_promoted r0-clone)" alpha
	log "fence and unfence done at $(el)s"

	# --- the verifying load, its log of acknowledged writes streamed to beta
	peer "mkfifo /tmp/ncin; (sleep 100000 > /tmp/ncin &); (nc -l -p 7100 < /tmp/ncin > /tmp/acked.0 2>/dev/null &)" ||
		fail "peer: nc listener"
	# connect only once beta listens (port 7100 = 1BBC, state 0A, IPv4
	# or IPv6): connected earlier, nc is refused and no log reaches beta
	wait_for "peer \"cat /proc/net/tcp /proc/net/tcp6 2>/dev/null | grep -qE ':1BBC 0+:0000 0A'\"" 30 ||
		fail "peer: nc does not listen on 7100"
	: > /tmp/w.0
	(tail -f /tmp/w.0 | nc 169.254.0.2 7100 > /dev/null 2>&1 &)
	seqw write /srv/r0/load $SEED --size $LOADSZ --sync --log /tmp/w --quiet > /tmp/w.out 2>&1 &
	wait_for "[ \$(wc -l < /tmp/w.0) -gt 40 ]" 30 ||
		fail "the load is not writing ($(wc -l < /tmp/w.0) writes): $(cat /tmp/w.out)"
	# the kill is to find a healthy pair: connected, both disks uptodate,
	# no fence constraint.  A link lost under the load (a loaded host: the
	# peer silent for the 3 s timeout) fences again, and beta, fenced, is
	# rightly not promoted; the fence daemon removes the constraint once
	# the resync after it has ended.
	check_wait load/healthy 60 "[ \"\$(nm_status r0 connection)\" = connected ] && [ \"\$(nm_status r0 peer_disk)\" = uptodate ] &&
		$TIMEOUT 15 cibadmin -Q -o constraints > /tmp/cons.xml && ! grep -q nm-fence-r0-clone /tmp/cons.xml" ||
		{ dump_both; fail "the pair is not healthy before the kill"; }
	lost=$(dmesg | grep -c 'fencing: link lost')
	if [ "$lost" != 1 ]; then
		sed 's/^/NMLOG: fence daemon: /' /run/resource-agents/netmirror-r0*.fence.log
		echo "NMDUMP-BEGIN netmirror kernel log"
		dmesg | grep netmirror | tail -n 30
		echo "NMDUMP-END"
	fi
	# the log of acknowledged writes lags (tail -f reads once a second):
	# the kill waits until beta holds more than 40 of them, so that the
	# failover's check has writes to verify
	check_wait load/log-streamed 60 "[ \"\$(peer 'wc -l < /tmp/acked.0' | tr -d '\\r ')\" -gt 40 ]" ||
		fail "the log of acknowledged writes does not reach beta ($(peer 'wc -l < /tmp/acked.0' | tr -d '\r ') lines)"
	n=$(wc -l < /tmp/w.0)
	log "load: $n writes acknowledged at $(el)s; links lost in phase 1: $lost (the fence test's 1); killing alpha"
	echo "NMMARK: crash-me 1"
	sleep 600
	fail "not killed"
fi

# --- phase 2: alpha is back; what did beta do?
check_wait failover/promoted 180 "[ \"\$(peer 'cl_promoted r0-clone' | tr -d '\r')\" = beta ] && [ \"\$(peer 'cl_running r0-fs' | tr -d '\r')\" = beta ]" ||
	{ peer "cl_dump"; fail "beta not promoted"; }
log "beta promoted (seen $(el)s after alpha's boot)"
check_wait failover/mounted 60 "peer \"grep -q ' /srv/r0 ext4 ' /proc/mounts\""
check_eq failover/role "$(peer "nm_status r0 role" | tr -d '\r')" primary
check_eq failover/score-primary-alone "$(peer "cl_score r0 beta" | tr -d '\r')" 10000
acked=$(peer "wc -l < /tmp/acked.0" | tr -d '\r ')
log "failover: $acked writes acknowledged before the kill reached beta"
[ "${acked:-0}" -gt 20 ] || check_bad failover/acked-log "only ${acked:-0} acknowledged writes logged"
check failover/acked-writes peer "seqw verify /srv/r0/load $SEED --size $LOADSZ --log /tmp/acked --quiet" ||
	peer "seqw verify /srv/r0/load $SEED --size $LOADSZ --log /tmp/acked | tail -n 3" | sed 's/^/NMLOG: /'

# --- rejoin: corosync and pacemaker only
setup_files
peer "cat /etc/corosync/authkey | base64" | tr -d '\r' | base64 -d > /etc/corosync/authkey
chmod 400 /etc/corosync/authkey
cl_start
check_wait rejoin/online 120 "cl_wait_online 2 1" || { dump_both; fail "alpha did not rejoin"; }
check_wait rejoin/secondary 120 "[ \"\$(nm_status r0 role 2>/dev/null)\" = secondary ]" || dump_both
check_wait rejoin/resynced 180 "nm_synced r0 && [ \"\$(nm_status r0 disk)\" = uptodate ] && [ \"\$(nm_status r0 peer_disk)\" = uptodate ]" ||
	dump_both
log "alpha rejoined and resynced ($(nm_status r0 resync_bytes) bytes) at $(el)s"
check_eq rejoin/beta-still-promoted "$(cl_promoted r0-clone)" beta
check_eq rejoin/fs-on-beta "$(cl_running r0-fs)" beta
# both backing disks: the data after the 1 MiB metadata area (beta writes
# nothing now; compare until equal, a few times)
data_sum() { $DD if=/dev/vda bs=1M skip=1 iflag=direct status=none | $MD5SUM | cut -d' ' -f1; }
i=0
while :; do
	peer "sync"
	wait_for "[ \"\$(nm_status r0 pending)\" = 0 ]" 10
	mine=$(data_sum)
	theirs=$(peer "\$DD if=/dev/vda bs=1M skip=1 iflag=direct status=none | \$MD5SUM | cut -d' ' -f1" | tr -d '\r')
	[ "$mine" = "$theirs" ] || [ $i -ge 4 ] || { i=$((i + 1)); sleep 2; continue; }
	break
done
check_eq rejoin/identical "$mine" "$theirs"
# (after the comparison: alpha's score waits for its next monitor, 20 s apart)
check_wait rejoin/score-alpha 60 "[ \"\$(cl_score r0 alpha)\" = 10000 ]"
check_wait rejoin/score-beta 60 "[ \"\$(cl_score r0 beta)\" = 10000 ]"
log "done at $(el)s"
exit 0
