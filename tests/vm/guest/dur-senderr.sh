# vms: 1
# disks: none
# timeout: 600
# (header keys first: run-test.sh reads them from the first 30 lines only)
# A write whose send fails is given up by the teardown, not by the sender:
# after the link's freeze and new data generation, never before.  The
# primary's `disconnect` (a planned switch-over keeps the generation when
# every write was answered) while its sender sits in a send on a full
# socket: up to 1.17.5 the failed send itself gave the peer part up and
# completed the write at once, off the list the teardown reads, so the
# teardown saw nothing unanswered and kept the generation.  The write was
# acknowledged, on this node's disk only, as if the peer had it: the peer,
# promoted for the switch-over, wrote, and the next link made it the
# resync source of the old primary, whose acknowledged write was
# overwritten with no split brain reported.  Fails on 1.17.5 (f828518):
# acked-on-nma and no-silent-loss under A, B and C (6 of 9 checks).
#
# One VM, both nodes on loopback, metadata on both; the guest's TCP send
# buffers capped at 64 KiB (net.ipv4.tcp_wmem), so that a 1 MiB write
# cannot sit in the socket whole.  For each protocol A, B, C: a writer on
# nma (one 1 MiB O_DIRECT write at a time, a new seed and slot each round),
# the wire freezes (lo down) mid-load, nma `disconnect`s, the writer stops;
# nmb is promoted, writes elsewhere, and both become secondary; the wire
# comes back and nma `connect`s.  Checks <P>/...:
#   writer-wrote    the writer had rounds that succeeded
#   acked-on-nma    the last 4 rounds it saw succeed read back on nma's
#                   disk once the pair settled: either the pair refused
#                   the link (both changed the data: a split brain) or the
#                   resync kept them; never overwritten by nmb's older copy
#   no-silent-loss  the pair reports in sync only with both disks holding
#                   those rounds (or it refused the link)
load_netmirror
. /tests/nmlib.sh
. /tests/dur-lib.sh
. /tests/dur-power-lib.sh
OPTS="timeout 3000 ping 500"
WMEM=$(sysctl -n net.ipv4.tcp_wmem)
sysctl -qw net.ipv4.tcp_wmem="4096 16384 65536" || fail "cap tcp_wmem"

round_ok() { # DEV N: round N's 1 MiB (slot N % 24) reads back
	pattern verify "$1" $((seed + $2)) 1M --size 1M --offset $(( ($2 % 24) * 1048576 )) \
		--bs-min 1M --bs-max 1M --direct --quiet
}

rounds_on() { # DEV: the rounds W1-3..W1 all read back
	local n=$((W1 - 3))
	[ $n -ge 1 ] || n=1
	while [ $n -le "$W1" ]; do
		round_ok "$1" $n || { echo "round $n not on $1"; return 1; }
		n=$((n + 1))
	done
}

scenario() {
	local st i
	NM_CHECK_PREFIX=$P/
	brd_setup 64 4
	nm_zero /dev/ram2 /dev/ram3
	nm_local_pair "$P" flush "" /dev/ram0 /dev/ram1 "meta /dev/ram2 $OPTS" "meta /dev/ram3 $OPTS"
	rm -f /tmp/stop /tmp/wr.n /tmp/wfail
	(
		n=0
		while [ ! -e /tmp/stop ]; do
			n=$((n + 1))
			if pattern write /dev/mapper/nma $((seed + n)) 1M --size 1M \
				--offset $(( (n % 24) * 1048576 )) --bs-min 1M --bs-max 1M \
				--direct --quiet; then
				echo $n > /tmp/wr.t && mv -f /tmp/wr.t /tmp/wr.n
			else
				echo "round $n failed" >> /tmp/wfail
				break
			fi
		done
	) &
	wpid=$!
	sleep 1.5
	wire_cut
	# the sender fills the capped socket buffer and blocks in its send
	sleep 0.5
	log "$P: cut; nma $(dmsetup status nma | cut -d' ' -f4-12)"
	# no round after the blocked one: a write alone would start a new
	# generation by itself
	touch /tmp/stop
	dmsetup message nma 0 disconnect || fail "disconnect nma"
	wait $wpid
	W1=$(cat /tmp/wr.n 2> /dev/null || echo 0)
	log "$P: writer stopped after round $W1; failures: $(cat /tmp/wfail 2> /dev/null | tr '\n' ';')"
	check writer-wrote [ "$W1" -gt 0 ]
	wait_eval "[ \"\$(nm_status nmb connection)\" = connecting ]" 30 ||
		fail "nmb did not see the link die: $(dmsetup status nmb)"
	# the switch-over: nmb takes over and writes elsewhere, then both step down
	dmsetup message nmb 0 primary || fail "promote nmb: $(dmsetup status nmb)"
	pattern write /dev/mapper/nmb 777 1M --size 1M --offset 40M --direct --quiet ||
		fail "write through nmb"
	dmsetup message nmb 0 secondary || fail "demote nmb"
	dmsetup message nma 0 secondary || fail "demote nma"
	wire_restore
	dmsetup message nma 0 connect || fail "connect nma"
	# settled: in sync, or the link refused (standalone)
	i=0
	while [ $i -lt 60 ]; do
		st="$(nm_status nma connection)/$(nm_status nmb connection)"
		case $st in standalone/*|*/standalone) break ;; esac
		nm_synced nma && nm_synced nmb && break
		sleep 1
		i=$((i + 1))
	done
	log "$P: settled: nma $(dmsetup status nma | cut -d' ' -f4-14) | nmb $(dmsetup status nmb | cut -d' ' -f4-14); last_error $(nm_status nma last_error)/$(nm_status nmb last_error)"
	log "$P: log: $(dmesg | grep -E 'netmirror: .*(generation|split brain|resync started|refusing)' | tail -n 4 | tr '\n' ';')"
	if [ "$W1" -gt 0 ]; then
		check acked-on-nma rounds_on /dev/ram0
		case $st in
		standalone/*|*/standalone) check_ok no-silent-loss ;;
		*) check no-silent-loss rounds_on /dev/ram1 ;;
		esac
	fi
	nm_local_unpair
}

seed=5000
for P in $(nm_protos); do
	scenario
	seed=$((seed + 1000))
done
sysctl -qw net.ipv4.tcp_wmem="$WMEM"
NM_CHECK_PREFIX=
exit 0
