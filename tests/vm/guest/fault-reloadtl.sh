# A planned reload of the primary (suspend, load, resume) right after it
# wrote: the writes the peer had not yet confirmed stable (the transfer
# log, retired by a stable point about once a second) are confirmed before
# the link stops, so the stop marks nothing, nothing is resynced after the
# reconnect, and the peer stays uptodate (promotable) throughout.  Up to
# 1.18.17 the suspend stopped the link at once: the transfer log went out
# of sync, the peer became the target of their resync after the reconnect
# and refused to be made primary meanwhile (the CI run of f8517df:
# fault-badinput's switch-over by reload, "The live table's disk is not
# uptodate: cannot be primary").
#
# One VM, both nodes on loopback, 16 MiB brd devices.  For each protocol
# A, B, C, ROUNDS rounds: 2 MiB written on nma; at once nma's status (the
# premise: "unconfirmed" > 0, writes in the transfer log) and nma reloaded
# with its own table.  Checks <P>/...:
#   unconfirmed      the premise held in at least one round
#   marked-nothing   right after each resume, every region of nma in sync
#   reconnected      the pair is in sync again after each round
#   no-resync        nmb received no resync data over all rounds
#   peer-uptodate    nmb's disk never left uptodate (kernel log)
#   identical        both backing devices equal at the end
# vms: 1
# disks: none
# timeout: 300
load_netmirror
brd_setup 16 2
. /tests/nmlib.sh
S=32768
ROUNDS=4

for P in $(nm_protos); do
	NM_CHECK_PREFIX=$P/
	nm_local_pair "$P" flush "$S"
	pattern write /dev/mapper/nma 1 4M --size 16M --direct --quiet || fail "$P: first write"
	nm_wait_confirmed nma 30 || fail "$P: writes unconfirmed: $(dmsetup status nma)"
	mb=$(nm_devno nmb)
	rb0=$(nm_status nmb resync_bytes)
	echo "NMLOG-MARK reloadtl-$P" > /dev/kmsg
	unc=0 marked="" r=0
	while [ $r -lt $ROUNDS ]; do
		r=$((r + 1))
		pattern write /dev/mapper/nma $((10 + r)) 2M --size 16M --direct --quiet || fail "$P: write $r"
		u=$(nm_status nma unconfirmed)
		[ "$u" -gt 0 ] && unc=$((unc + 1))
		t=$(dmsetup table nma)
		dmsetup suspend nma && dmsetup load nma --table "$t" && dmsetup resume nma ||
			fail "$P: reload $r of nma: $t"
		g=$(nm_status nma regions)
		[ "${g%%/*}" = "${g#*/}" ] || marked="$marked round $r: $g in sync (unconfirmed $u before);"
		nm_wait_synced nma 30 || fail "$P: no reconnect after reload $r: nma $(dmsetup status nma); nmb $(dmsetup status nmb)"
		log "$P: round $r: unconfirmed $u before the reload; nma $(dmsetup status nma)"
	done
	check_ok reconnected
	check unconfirmed [ $unc -gt 0 ]
	if [ -z "$marked" ]; then check_ok marked-nothing; else check_bad marked-nothing "$marked"; fi
	check no-resync [ "$(nm_status nmb resync_bytes)" = "$rb0" ]
	bad=$(dmesg | sed -n "/NMLOG-MARK reloadtl-$P\$/,\$p" | grep "$mb: disk uptodate -> ")
	if [ -z "$bad" ]; then check_ok peer-uptodate; else check_bad peer-uptodate "$bad"; fi
	check identical [ "$(dev_sum /dev/ram0)" = "$(dev_sum /dev/ram1)" ]
	nm_local_unpair
done
NM_CHECK_PREFIX=
exit 0
