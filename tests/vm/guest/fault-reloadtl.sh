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
# One VM, both nodes on loopback, 16 MiB brd devices, nma with "fencing
# freeze" (a stop taken for a lost link would hold its writes).  For each protocol
# A, B, C, ROUNDS rounds: 2 MiB written on nma; at once nma's status (the
# premise: "unconfirmed" > 0, writes in the transfer log) and nma reloaded
# with its own table.  Checks <P>/...:
#   unconfirmed      the premise held in at least one round
#   marked-nothing   right after each resume, every region of nma in sync
#   reconnected      the pair is in sync again after each round
#   no-resync        nmb received no resync data over all rounds
#   peer-uptodate    nmb's disk never left uptodate (kernel log)
#   identical        both backing devices equal at the end
# The same again with metadata devices on both nodes (<P>/meta/...): the
# regions the rounds wrote are still marked on nma's metadata (a mark is
# cleared lazily, two stable points after its writes).  Up to 1.18.19 a
# reload with metadata took those marks for regions out of sync (the
# re-read metadata's bits were added to the predecessor's out-of-sync
# regions): each round resynced them and nmb went inconsistent
# (meta/marked-nothing, meta/no-resync, meta/peer-uptodate failed under C).
# Then the bound (without metadata): nmb's disk is lowb, a dm-delay over a cached null_blk
# (nlb: flushes reach it; guest-lib/dur-power-lib.sh); its flushes are
# made to take 5 s, one 64 KiB write is done on nma (its stable point not
# answered for 5 s), and nma reloaded at once:
#   hung/unconfirmed  the write was unconfirmed before the reload (premise)
#   hung/bounded     nma's suspend returned within 4 s (the wait is at
#                    most a second; the answer would take 5 s, the link's
#                    timeout is 10 s)
#   hung/logged      nma logged that the peer did not confirm in time
#   hung/running     nma's io is running after the resume (its own stop,
#                    not a lost link)
#   hung/resynced    flushes fast again: in sync (the unconfirmed region
#                    resynced)
#   hung/identical   both backing devices equal
# vms: 1
# disks: none
# timeout: 300
load_netmirror
brd_setup 16 3
. /tests/nmlib.sh
. /tests/dur-power-lib.sh
modprobe dm-delay || fail "modprobe dm-delay"
S=32768
ROUNDS=4

for P in $(nm_protos); do
for M in none meta; do
	NM_CHECK_PREFIX=$P/
	oa= ob=
	if [ $M = meta ]; then
		NM_CHECK_PREFIX=$P/meta/
		nm_zero /dev/ram1 /dev/ram2
		oa=" meta /dev/ram1" ob=" meta /dev/ram2"
	fi
	nl_create nlb 16
	dmsetup create lowb --table "0 $S delay /dev/nlb 0 0 /dev/nlb 0 0 /dev/nlb 0 0" || fail "create lowb"
	nm_local_pair "$P" flush "$S" /dev/ram0 /dev/mapper/lowb "fencing freeze timeout 10000$oa" "timeout 10000$ob"
	pattern write /dev/mapper/nma 1 4M --size 16M --direct --quiet || fail "$P: first write"
	nm_wait_confirmed nma 30 || fail "$P: writes unconfirmed: $(dmsetup status nma)"
	mb=$(nm_devno nmb)
	rb0=$(nm_status nmb resync_bytes)
	echo "NMLOG-MARK reloadtl-$P-$M" > /dev/kmsg
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
	bad=$(dmesg | sed -n "/NMLOG-MARK reloadtl-$P-$M\$/,\$p" | grep "$mb: disk uptodate -> ")
	if [ -z "$bad" ]; then check_ok peer-uptodate; else check_bad peer-uptodate "$bad"; fi
	check identical [ "$(dev_sum /dev/ram0)" = "$(dev_sum /dev/nlb)" ]
	if [ $M = meta ]; then
		nm_local_unpair
		dmsetup remove lowb || fail "remove lowb"
		nl_destroy nlb
		continue
	fi

	dmsetup suspend lowb && dmsetup load lowb --table "0 $S delay /dev/nlb 0 0 /dev/nlb 0 0 /dev/nlb 0 5000" &&
		dmsetup resume lowb || fail "$P: slow flushes on lowb"
	$DD if=/dev/urandom of=/dev/mapper/nma bs=64k seek=7 count=1 oflag=direct conv=notrunc status=none ||
		fail "$P: write before the hang"
	check hung/unconfirmed [ "$(nm_status nma unconfirmed)" -gt 0 ]
	echo "NMLOG-MARK reloadtl-hung-$P" > /dev/kmsg
	t=$(dmsetup table nma)
	t0=$(awk '{ print int($1 * 1000) }' /proc/uptime)
	dmsetup suspend nma || fail "$P: suspend nma (hung peer)"
	t1=$(awk '{ print int($1 * 1000) }' /proc/uptime)
	dmsetup load nma --table "$t" && dmsetup resume nma || fail "$P: reload nma (hung peer)"
	log "$P: hung peer: nma's suspend took $((t1 - t0)) ms; nma $(dmsetup status nma)"
	check hung/bounded [ $((t1 - t0)) -lt 4000 ]
	check hung/logged eval "dmesg | sed -n '/NMLOG-MARK reloadtl-hung-$P\$/,\$p' | grep -q '$(nm_devno nma): suspend: the peer did not confirm'"
	check_eq hung/running "$(nm_status nma io)" running
	dmsetup suspend lowb && dmsetup load lowb --table "0 $S delay /dev/nlb 0 0 /dev/nlb 0 0 /dev/nlb 0 0" &&
		dmsetup resume lowb || fail "$P: fast flushes on lowb"
	check hung/resynced nm_wait_synced nma 60
	nm_wait_synced nmb 30 || log "$P: nmb $(dmsetup status nmb)"
	check hung/identical [ "$(dev_sum /dev/ram0)" = "$(dev_sum /dev/nlb)" ]
	nm_local_unpair
	dmsetup remove lowb || fail "remove lowb"
	nl_destroy nlb
done
done
NM_CHECK_PREFIX=
exit 0
