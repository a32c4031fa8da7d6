# Bad input from the administrator, from the shared corpus (tests/corpus,
# guest-lib/tables.sh): the refused messages of messages.txt (all of them,
# or one of each kind) sent to a device in each state (connecting, standalone, connected primary and
# secondary, sync_source/sync_target held by pause_resync, suspended) fails
# with its text in the kernel log and leaves table, role, connection and
# suspension unchanged (state/<state>/<name>); refused role changes in those
# states likewise.  Then table reloads (suspend, load, resume): resync_rate
# and role changed live; every refused line of table-lines.txt loaded into
# the live, connected primary fails with its text, leaves no inactive table
# and the old table running (reload/<name>); region_size changed against
# the peer refused at the handshake, an inconsistent metadata device refused
# as primary; data intact throughout.  No kernel warning (checked by the
# testbed).  (nm-tables runs every corpus line through "dmsetup create".)
# vms: 1
# disks: none
# timeout: 900
load_netmirror
brd_setup 16 5
. /tests/nmlib.sh
S=32768
ntab=0 nmsg=0
. /tests/tables.sh
nm_corpus_init /dev/ram0 /dev/ram2 "$S"

# ---- messages: bad ones in every state ----
# the short list for some states (time): one of each kind of refusal
short='^(unknown|primary-extra-arg|resync_rate-no-arg|resync_rate-word|resync_rate-two-args|disconnect-extra-arg|resync_rate-neg)$'
state_of() { echo "$(dmsetup table "$1")|$(nm_status "$1" role)|$(nm_status "$1" connection)|$(dmsetup info -c --noheadings -o attr "$1")"; }
msg_bad() { # msg_bad DEV WORDS WANT
	local before after got
	before=$(state_of "$1")
	nmsg=$((nmsg + 1))
	echo "NMLOG-MARK m$nmsg" > /dev/kmsg
	# shellcheck disable=SC2086
	dmsetup message "$1" 0 $2 >/tmp/out 2>&1 && fail "message '$2' to $1 ($before) succeeded"
	got=$(dmesg | sed -n "/NMLOG-MARK m$nmsg\$/,\$p" | grep 'netmirror' | tail -1)
	case $got in
	*"$3"*) ;;
	*) fail "message '$2' to $1: want '$3' in the kernel log, got '$got'" ;;
	esac
	after=$(state_of "$1")
	[ "$before" = "$after" ] || fail "message '$2' changed $1: '$before' -> '$after'"
}
# every refused message of the corpus to the connected primary, the short
# list in the other states (nm-tables sends all of them to a connecting
# primary): state/<STATE>/<name>
msgs_all() { # msgs_all DEV STATE [short]
	nm_corpus_messages "$1" "state/$2" err ${3:+"$short"}
	nmsg=$((nmsg + NM_CORPUS_N))
	log "$1 ($2): $NM_CORPUS_N bad messages, $NM_CORPUS_BAD failed checks"
}

# connecting (no peer), then standalone
dmsetup create nmx --table "0 $S netmirror /dev/ram3 127.0.0.1:7799 C flush 4 listen 127.0.0.1:7798 role primary" || fail "create nmx"
nm_wait_conn nmx connecting 10 || fail "nmx not connecting"
msgs_all nmx connecting short
dmsetup message nmx 0 disconnect || fail "disconnect nmx"
nm_wait_conn nmx standalone 10 || fail "nmx not standalone"
msgs_all nmx standalone short
dmsetup remove nmx || fail "remove nmx"
# an inconsistent standalone secondary (sync full, no history) cannot be primary
dmsetup create nmx --table "0 $S netmirror /dev/ram3 127.0.0.1:7799 C flush 2 listen 127.0.0.1:7798" || fail "create nmx secondary"
[ "$(nm_status nmx disk)" = inconsistent ] || fail "fresh secondary not inconsistent: $(dmsetup status nmx)"
msg_bad nmx primary "local disk is inconsistent; force_primary overrides"
dmsetup remove nmx || fail "remove nmx"

# connected pair
nm_local_pair C flush
pattern write /dev/mapper/nma 1 4M --size 16M --direct --quiet || fail "write 1"
msgs_all nma connected-primary
msgs_all nmb connected-secondary short
msg_bad nmb primary "the peer is primary"

# resync held by pause_resync: sync_source / sync_target
dmsetup message nmb 0 disconnect || fail "disconnect nmb"
nm_wait_conn nma connecting 10 || fail "nma not connecting"
pattern write /dev/mapper/nma 2 4M --size 16M --direct --quiet || fail "write 2"
dmsetup message nma 0 pause_resync || fail "pause_resync"
dmsetup message nmb 0 connect || fail "connect nmb"
nm_wait_conn nma sync_source 20 || fail "nma not sync_source: $(dmsetup status nma)"
nm_wait_conn nmb sync_target 20 || fail "nmb not sync_target: $(dmsetup status nmb)"
msgs_all nma sync_source short
msgs_all nmb sync_target short
msg_bad nma secondary "refusing to become secondary during a resync"
msg_bad nmb primary "refusing to become primary"
dmsetup message nma 0 resume_resync || fail "resume_resync"
nm_wait_synced nma 60 || fail "resync did not finish: $(dmsetup status nma)"
nm_wait_synced nmb 20 || fail "nmb: $(dmsetup status nmb)"

# suspended
dmsetup suspend nma || fail "suspend nma"
msgs_all nma suspended short
dmsetup resume nma || fail "resume nma"
nm_wait_synced nma 30 || fail "after resume: $(dmsetup status nma)"
log "$nmsg bad messages refused in 7 states"

sums_equal() {
	[ "$(dev_sum /dev/ram0)" = "$(dev_sum /dev/ram1)" ] || fail "$1: ram0 and ram1 differ"
}
sums_equal "after the message tests"

# ---- reloads ----
A=$(cat /sys/block/ram0/dev) B=$(cat /sys/block/ram1/dev)
reload() { # reload DEV TABLE
	dmsetup suspend "$1" || fail "suspend $1"
	dmsetup load "$1" --table "$2" || { dmsetup resume "$1"; fail "load $1: $2"; }
	dmsetup resume "$1" || fail "resume $1"
}
# 1. resync_rate changed live
reload nma "0 $S netmirror /dev/ram0 127.0.0.1:7790 C flush 6 listen 127.0.0.1:7789 role primary resync_rate 5000"
[ "$(dmsetup table nma)" = "0 $S netmirror $A 127.0.0.1:7790 C flush 6 listen 127.0.0.1:7789 role primary resync_rate 5000" ] ||
	fail "reloaded table: $(dmsetup table nma)"
nm_wait_synced nma 30 || fail "no reconnect after reload: $(dmsetup status nma)"
pattern write /dev/mapper/nma 3 4M --size 16M --direct --quiet || fail "write 3"
pattern verify /dev/ram1 3 4M --size 16M --direct --quiet || fail "seed 3 not on the secondary after the reload"
sums_equal "resync_rate reload"
# 2. every refused line of the corpus is refused at load; the old table
# keeps running
nm_corpus_load nma
ntab=$((ntab + NM_CORPUS_N))
log "$NM_CORPUS_N refused lines loaded into nma, $NM_CORPUS_BAD failed checks"
dmsetup info nma | grep -q 'Tables present: *LIVE$' || fail "an inactive table was left: $(dmsetup info nma)"
pattern write /dev/mapper/nma 4 2M --size 16M --direct --quiet || fail "write after a refused reload"
nm_wait_synced nma 20 || fail "after a refused reload: $(dmsetup status nma)"
sums_equal "refused reload"
# 3. switch-over by reload: nma becomes secondary, nmb primary, right
# after nma wrote: its suspend has nmb confirm those writes stable before
# the link stops (1.18.18), so the reload marks nothing, and nmb stays
# uptodate, promotable at once.  (Up to 1.18.17 nma resynced them to nmb
# after the reconnect, and nmb, the target meanwhile, refused "role
# primary": the CI run of f8517df, when the reconnect beat nmb's suspend;
# fault-reloadtl.)
pattern write /dev/mapper/nma 45 1M --size 16M --direct --quiet || fail "write 45 before the switch-over"
reload nma "0 $S netmirror /dev/ram0 127.0.0.1:7790 C flush 2 listen 127.0.0.1:7789"
r=$(nm_status nma regions)
[ "${r%%/*}" = "${r#*/}" ] || fail "nma's planned reload marked regions out of sync: $r in sync"
nm_wait_synced nma 30 || fail "no reconnect after nma's reload: nma $(dmsetup status nma); nmb $(dmsetup status nmb)"
reload nmb "0 $S netmirror /dev/ram1 127.0.0.1:7789 C flush 4 listen 127.0.0.1:7790 role primary"
nm_wait_synced nmb 30 || fail "no connection after the switch-over: nmb $(dmsetup status nmb); nma $(dmsetup status nma)"
[ "$(nm_status nmb role)/$(nm_status nma role)" = primary/secondary ] || fail "roles after the switch-over: nmb $(nm_status nmb role) nma $(nm_status nma role)"
pattern write /dev/mapper/nmb 5 4M --size 16M --direct --quiet || fail "write through the new primary"
pattern verify /dev/ram0 5 4M --size 16M --direct --quiet || fail "seed 5 not on the new secondary"
$DD if=/dev/zero of=/dev/mapper/nma bs=4k count=1 oflag=direct status=none 2>/dev/null && fail "write to the new secondary accepted"
sums_equal "switch-over by reload"
# 4. region_size changed against the peer: refused at the handshake, named
reload nma "0 $S netmirror /dev/ram0 127.0.0.1:7790 C flush 4 listen 127.0.0.1:7789 region_size 512"
wait_for "[ \"\$(nm_status nma last_error)\" = region_size_mismatch ] || [ \"\$(nm_status nmb last_error)\" = region_size_mismatch ]" 20 ||
	fail "region_size change not refused by name: nma $(dmsetup status nma); nmb $(dmsetup status nmb)"
[ "$(nm_status nma connection)" != connected ] || fail "connected with different region sizes"
reload nma "0 $S netmirror /dev/ram0 127.0.0.1:7790 C flush 2 listen 127.0.0.1:7789"
nm_wait_synced nmb 30 || fail "no reconnect after restoring region_size: $(dmsetup status nmb)"
pattern write /dev/mapper/nmb 6 2M --size 16M --direct --quiet || fail "write 6"
sums_equal "region_size reload"
nm_local_unpair
# 5. metadata: inconsistent data refused as primary; region_size vs metadata
M=/dev/ram4
$DD if=/dev/zero of=$M bs=1M count=1 oflag=direct status=none
dmsetup create nmx --table "0 $S netmirror /dev/ram3 127.0.0.1:7799 C flush 4 listen 127.0.0.1:7798 meta $M" || fail "create nmx with meta"
dmsetup remove nmx
for l in "6 listen 127.0.0.1:7798 meta $M role primary|inconsistent" "6 listen 127.0.0.1:7798 meta $M region_size 512|"; do
	want=${l#*|}
	ntab=$((ntab + 1))
	echo "NMLOG-MARK x$ntab" > /dev/kmsg
	dmsetup create nmx --table "0 $S netmirror /dev/ram3 127.0.0.1:7799 C flush ${l%|*}" 2>/dev/null &&
		{ dmsetup remove nmx; fail "accepted against its metadata: ${l%|*}"; }
	got=$(dmesg | sed -n "/NMLOG-MARK x$ntab\$/,\$p" | grep 'device-mapper: table' | tail -1)
	[ -n "$got" ] && case $got in *"$want"*) ;; *) false ;; esac || fail "'${l%|*}': kernel said '$got'"
	log "refused: ${l%|*}: ${got#*netmirror: }"
done
log "badinput: $ntab table lines and $nmsg messages tried; reloads ok"
exit 0
