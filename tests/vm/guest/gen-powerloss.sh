# Data generations through a power loss (issue 11): data AND metadata
# devices of both nodes on cached configfs null_blk (dur-power-lib.sh: power
# 0 drops what was not flushed), so a generation or a confirmation that was
# reported before it was on stable storage comes back older after the cut,
# and the pair then refuses itself (old_copy, split_brain), resyncs the
# wrong way, or says in sync while the disks differ.  For each protocol A, B,
# C (flush ordering, timeout 2000 ping 500) and each case:
#   pri-alone    the secondary disconnects, the primary writes alone (a new
#                generation), its power is cut right after the last durable
#                write returned: it comes back with that generation and is
#                the resync source
#   sec-midsync  the same writes, the secondary reconnects, its power is cut
#                in the middle of the resync (resync_rate 8 MiB/s)
#   pri-synced   the resync has just ended: the primary's power is cut
#   sec-synced   the resync has just ended: the secondary's power is cut
# Each: the cut node comes back on the same disks (same table), both
# connect with no refusal, resync, every write acknowledged before the cut
# is on both disks, and both backing devices are byte-identical.
# Checks <P>/<case>/{generation-kept,connected,primary-data,secondary-data,
# identical} (generation-kept: the cut node's generation after the power
# cycle is the one it reported before).
# vms: 1
# disks: none
# timeout: 500
# mem: 1024
load_netmirror
. /tests/nmlib.sh
. /tests/dur-lib.sh
. /tests/dur-power-lib.sh
MB=32
WMB=16
J=4
NMOPTS="timeout 2000 ping 500"

table_b() {
	local w="listen 127.0.0.1:7790 meta /dev/nlmb sync none $NMOPTS"
	# shellcheck disable=SC2086
	echo "0 $((MB * 2048)) netmirror /dev/nlb 127.0.0.1:7789 $P flush $(echo $w | wc -w) $w"
}

table_a() {
	local w="listen 127.0.0.1:7789 role primary meta /dev/nlma sync none resync_rate 8192 $NMOPTS"
	# shellcheck disable=SC2086
	echo "0 $((MB * 2048)) netmirror /dev/nla 127.0.0.1:7790 $P flush $(echo $w | wc -w) $w"
}

# verify NAME DEV: every write of /tmp/w (acknowledged, all durable) is there
verify() {
	local out
	if out=$(seqw verify "$2" "$seed" --size ${WMB}M --offset 8M --jobs $J --linear --log /tmp/w 2>&1); then
		check_ok "$1"
	else
		check_bad "$1" "$(echo "$out" | tail -n 3 | tr '\n' ' ')"
	fi
}

# power_cycle NODE (a|b): wire frozen, its data and metadata lose power, its
# netmirror is removed, the survivor sees the link die, wire and power back,
# the node is created again from the same table
power_cycle() {
	local n=$1 o i=0
	o=$([ "$n" = a ] && echo b || echo a)
	wire_cut
	nl_power "nl$n" 0
	nl_power "nlm$n" 0
	until dmsetup remove "nm$n" 2>/dev/null; do
		i=$((i + 1))
		[ $i -lt 50 ] || fail "$name: remove nm$n after its power cut: $(dmsetup status "nm$n")"
		sleep 0.2
	done
	wait_eval "[ \"\$(nm_status nm$o connection)\" != connected ] && [ \"\$(nm_status nm$o connection)\" != sync_source ] && [ \"\$(nm_status nm$o connection)\" != sync_target ]" 30 ||
		fail "$name: nm$o did not see the link die: $(dmsetup status "nm$o")"
	wire_restore
	nl_power "nl$n" 1
	nl_power "nlm$n" 1
	if [ "$n" = a ]; then
		dmsetup create nma --table "$(table_a)" || fail "$name: create nma again"
	else
		dmsetup create nmb --table "$(table_b)" || fail "$name: create nmb again"
	fi
}

# case NAME: one power cut, see the top
scenario() {
	local cs=$1 gen node
	name=$P/$cs
	nl_create nla $MB
	nl_create nlb $MB
	nl_create nlma 4
	nl_create nlmb 4
	dmsetup create nmb --table "$(table_b)" || fail "$name: create nmb"
	dmsetup create nma --table "$(table_a)" || fail "$name: create nma"
	nm_wait_synced nma 60 && nm_wait_synced nmb 30 || fail "$name: first sync: $(dmsetup status nma)"
	pattern write /dev/mapper/nma "$seed" 8M --direct --quiet || fail "$name: first write"
	nm_wait_confirmed nma || fail "$name: writes unconfirmed: $(dmsetup status nma)"
	dmsetup message nmb 0 disconnect || fail "$name: disconnect nmb"
	nm_wait_conn nmb standalone 20 || fail "$name: nmb not standalone"
	rm -f /tmp/w.*
	seqw write /dev/mapper/nma "$seed" --size ${WMB}M --offset 8M --jobs $J --linear --sync --log /tmp/w --quiet ||
		fail "$name: the primary's lone writes"
	case $cs in
	pri-alone)
		node=a
		;;
	sec-midsync)
		node=b
		dmsetup message nmb 0 connect || fail "$name: connect nmb"
		wait_eval "[ \"\$(nm_status nmb connection)\" = sync_target ]" 30 ||
			fail "$name: no resync: $(dmsetup status nmb)"
		sleep 0.5
		log "$name: cut during the resync: nmb $(dmsetup status nmb | cut -d' ' -f4-)"
		;;
	*-synced)
		node=$([ "$cs" = pri-synced ] && echo a || echo b)
		dmsetup message nmb 0 connect || fail "$name: connect nmb"
		nm_wait_synced nma 60 && nm_wait_synced nmb 30 || fail "$name: resync: $(dmsetup status nma)"
		;;
	esac
	gen=$(nm_status "nm$node" generation)
	power_cycle $node
	check_eq "$name/generation-kept" "$(nm_status "nm$node" generation)" "$gen"
	[ "$(nm_status nmb connection)" = standalone ] && dmsetup message nmb 0 connect
	if dur_settle 90; then
		check_ok "$name/connected"
	else
		check_bad "$name/connected" "nma $(dmsetup status nma) | nmb $(dmsetup status nmb)"
	fi
	verify "$name/primary-data" /dev/nla
	verify "$name/secondary-data" /dev/nlb
	dur_same "$name/identical" /dev/nla /dev/nlb
	nm_local_unpair
	nl_destroy nla
	nl_destroy nlb
	nl_destroy nlma
	nl_destroy nlmb
	seed=$((seed + 1))
}

seed=300
for P in $(nm_protos); do
	scenario pri-alone
	scenario sec-midsync
	scenario pri-synced
	scenario sec-synced
done
exit 0
