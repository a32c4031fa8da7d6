# nmsetup events on a local pair (nma primary, nmb its peer, one VM):
# followers started before the peer exists (one for nma in JSON, one in
# text, one for every device) print the state ("exists", then the end
# marker), then, as they happen: the refused handshake of two primaries
# (last_error, the connection staying "connecting"), a new device
# ("create"), the connect, the full resync (sync_source, progress lines
# with a growing sync_percent, connected again at 100%), a suspend and a
# resume (dm's suspended flag), a disconnect, a role change and the
# removal ("destroy", the follower of nma ends by itself with exit 0).
# --now prints the state and exits; SIGINT and SIGTERM end a follower with
# exit 0; every JSON line is valid JSON.
# vms: 1
# disks: none
# timeout: 150
load_netmirror
. /tests/nmlib.sh
command -v nmsetup >/dev/null || fail "nmsetup not built (make tools)"
command -v jsoncheck >/dev/null || fail "jsoncheck helper missing from the image"
T0=$(cut -d' ' -f1 /proc/uptime)

# ev_find FILE FROM EVENT [KEY=VALUE...]: the number of the first line after
# line FROM that is event EVENT with each KEY=VALUE (as jsoncheck prints
# it); fails if there is none
ev_find() {
	local f="$1" from="$2" ev="$3" want="$3" keys='' kv n=0 l got
	shift 3
	for kv in "$@"; do
		keys="$keys ${kv%%=*}"
		want="$want ${kv#*=}"
	done
	while IFS= read -r l; do
		n=$((n + 1))
		[ $n -gt "$from" ] || continue
		# jsoncheck (a process) only for lines of that event
		case $l in *"\"event\":\"$ev\""*) ;; *) continue ;; esac
		# shellcheck disable=SC2086
		got=$(printf '%s\n' "$l" | jsoncheck event $keys 2>/dev/null) || continue
		# shellcheck disable=SC2086
		[ "$(echo $got)" = "$want" ] && { echo $n; return 0; }
	done < "$f"
	return 1
}
# ev_wait NAME SECS FILE FROM EVENT [KEY=VALUE...]: a named check that
# such a line comes; sets L to its number
ev_wait() {
	local name=$1 secs=$2
	shift 2
	L=
	if wait_eval "ev_find $* > /tmp/ev_line" "$secs"; then
		L=$(cat /tmp/ev_line)
		check_ok "$name"
	else
		check_bad "$name" "no line '$*' within $secs s: $(tr '\n' ' ' < "$1" | cut -c1-600)"
		L=0
	fi
}

brd_setup 64 2
S=$(( $(dev_size /dev/ram0) / 512 ))
# a resync rate cap makes the 64 MiB initial sync last ~4 s: its progress shows
dmsetup create nma --table "0 $S netmirror /dev/ram0 127.0.0.1:7790 C flush 6 listen 127.0.0.1:7789 role primary resync_rate 16384" ||
	fail "create nma"

nmsetup events --json > /tmp/ev.all 2> /tmp/ev.all.err &
ALL=$!
nmsetup events nma --json > /tmp/ev.a 2> /tmp/ev.a.err &
EVA=$!
nmsetup events nma --timestamps > /tmp/ev.txt 2>&1 &
TXT=$!

ev_wait exists/json 10 /tmp/ev.a 0 exists name=nma role=primary connection=connecting disk=uptodate peer_disk=unknown suspended=false io=running last_error=- verify=none
check_eq exists/json-end "$(sed -n 2p /tmp/ev.a)" '{"event":"exists"}'
ev_wait exists/all 10 /tmp/ev.all 0 exists name=nma role=primary
check_eq exists/all-end "$(sed -n 2p /tmp/ev.all)" '{"event":"exists"}'
check_wait exists/text 10 "grep -q 'exists -\$' /tmp/ev.txt"
check_match exists/text-line "$(head -n 1 /tmp/ev.txt)" \
	'^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:]{8}\.[0-9]{6}[+-][0-9]{2}:[0-9]{2} exists device name:nma role:primary connection:connecting disk:uptodate peer_disk:unknown suspended:no '

# --now: the state and the end marker, then exit 0
$TIMEOUT 10 nmsetup events nma --now --json > /tmp/now; rc=$?
check_eq now/rc "$rc" 0
check_eq now/lines "$(wc -l < /tmp/now)" 2
check now/exists ev_find /tmp/now 0 exists name=nma connection=connecting
$TIMEOUT 10 nmsetup events nosuch --now > /tmp/now 2>&1; rc=$?
check_eq now/no-device-rc "$rc" 5

# nmb primary too: both refuse the link (both_primary); the connection
# stays "connecting", the new last_error word is the event
dmsetup create nmb --table "0 $S netmirror /dev/ram1 127.0.0.1:7789 C flush 4 listen 127.0.0.1:7790 role primary" ||
	fail "create nmb"
ev_wait refused/last-error 20 /tmp/ev.a 0 change last_error=both_primary
ev_wait all/create 10 /tmp/ev.all 0 create name=nmb role=primary
check refused/still-connecting [ "$(nm_status nma connection)" = connecting ]

# nmb secondary: the link, and the full resync from nma; nmsetup status
# shows it as a bar with the rate and the ETA
dmsetup message nmb 0 secondary || fail "nmb secondary"
wait_for "[ \"\$(nm_status nma connection)\" = sync_source ] && [ \"\$(nm_status nma resync_kibs)\" != 0 ]" 20 ||
	fail "no resync with a measured rate: $(dmsetup status nma)"
st=$(nmsetup status nma)
log "$st"
check_match status/resync-bar "$(echo "$st" | sed -n 2p)" \
	'^    resync \[#*\.*\] +[0-9]+\.[0-9]% +[0-9]+\.[0-9] MiB/s +ETA [0-9]+:[0-9]{2}:[0-9]{2}$'
nm_wait_synced nma 60 || fail "nma did not connect and sync: $(dmsetup status nma)"
ev_wait connect/connected 10 /tmp/ev.a 0 change connection=connected
ev_wait connect/error-cleared 10 /tmp/ev.a 0 change last_error=-
ev_wait resync/sync-source 10 /tmp/ev.a 0 change connection=sync_source
RS=$L
ev_wait resync/connected-again 10 /tmp/ev.a "$RS" change connection=connected
END=$L
ev_wait resync/peer-uptodate 10 /tmp/ev.a "$RS" change peer_disk=uptodate
ev_wait resync/done-100 10 /tmp/ev.a "$RS" progress sync_percent=100.00
# the progress lines of the resync: at least two below 100%, growing
: > /tmp/pct
n=0
while IFS= read -r l; do
	n=$((n + 1))
	[ $n -gt "$RS" ] && [ $n -lt "$END" ] || continue
	p=$(printf '%s\n' "$l" | jsoncheck event sync_percent resync_kibs 2>/dev/null) || continue
	# shellcheck disable=SC2086
	set -- $p
	[ "$1" = progress ] && echo "$2 $3" >> /tmp/pct
done < /tmp/ev.a
log "resync progress seen (percent KiB/s): $(tr '\n' ' ' < /tmp/pct)"
check resync/progress-lines [ "$(awk '$1 < 100' /tmp/pct | wc -l)" -ge 2 ]
check resync/progress-grows awk 'NR > 1 && $1 < prev { exit 1 } { prev = $1 }' /tmp/pct
check resync/progress-has-rate awk '$2 > 0 { ok = 1 } END { exit !ok }' /tmp/pct
ev_wait resync/peer-follower 10 /tmp/ev.all 0 change name=nmb connection=sync_target

# a verify (capped by resync_rate too): its state and progress, and its bar
M=$(wc -l < /tmp/ev.a)
nmsetup verify nma || fail "verify"
ev_wait verify/running 10 /tmp/ev.a "$M" change verify=running
wait_for "[ \"\$(nm_status nma verify_kibs)\" != 0 ]" 10 || fail "no verify rate: $(dmsetup status nma)"
st=$(nmsetup status nma)
log "$st"
check_match status/verify-bar "$(echo "$st" | sed -n 2p)" \
	'^    verify \[#*\.*\] +[0-9]+\.[0-9]% +[0-9]+\.[0-9] MiB/s +ETA [0-9]+:[0-9]{2}:[0-9]{2} +0 blocks differ$'
ev_wait verify/done 20 /tmp/ev.a "$M" change verify=done
ev_wait verify/progress-100 5 /tmp/ev.a "$M" progress verify_percent=100.00 verify_diffs=0
ev_wait verify/progress-partial 5 /tmp/ev.a "$M" progress verify_diffs=0
check_match verify/progress-partial-below-100 "$(sed -n "${L}p" /tmp/ev.a)" '"verify_percent":[0-9]{1,2}\.'
check_match status/no-bar-after "$(nmsetup status nma | sed -n 2p)" '^    writes sent'
END=$(wc -l < /tmp/ev.a)

# dm suspend and resume: the suspended flag, both ways
dmsetup suspend nma || fail "suspend"
ev_wait suspend/yes 10 /tmp/ev.a "$END" change suspended=true
SUS=$L
dmsetup resume nma || fail "resume"
ev_wait suspend/no 10 /tmp/ev.a "$SUS" change suspended=false
nm_wait_synced nma 30 || fail "nma not back after the resume: $(dmsetup status nma)"

# disconnect, then a role change
M=$(wc -l < /tmp/ev.a)
nmsetup disconnect nma || fail "disconnect"
ev_wait disconnect/standalone 10 /tmp/ev.a "$M" change connection=standalone
nmsetup secondary nma || fail "secondary"
ev_wait role/secondary 10 /tmp/ev.a "$M" change role=secondary
check_wait text/role 10 "grep -q ' change device name:nma role:secondary\$' /tmp/ev.txt"

# SIGINT ends the text follower, exit 0
kill -INT $TXT
wait $TXT; rc=$?
check_eq sigint/rc "$rc" 0

# removal: destroy; the follower of nma ends by itself
dmsetup remove nma || fail "remove nma"
ev_wait remove/destroy 10 /tmp/ev.a 0 destroy name=nma
check_wait remove/follower-ended 10 "! kill -0 $EVA"
wait $EVA; rc=$?
check_eq remove/follower-rc "$rc" 0
ev_wait remove/all-destroy 10 /tmp/ev.all 0 destroy name=nma
dmsetup remove nmb || fail "remove nmb"
ev_wait remove/all-destroy-nmb 10 /tmp/ev.all 0 destroy name=nmb
kill -TERM $ALL
wait $ALL; rc=$?
check_eq sigterm/rc "$rc" 0
check_eq stderr/empty "$(cat /tmp/ev.a.err /tmp/ev.all.err)" ""

# every line is one valid JSON object
bad=0
for f in /tmp/ev.a /tmp/ev.all; do
	while IFS= read -r l; do
		printf '%s\n' "$l" | jsoncheck > /dev/null 2>&1 || { bad=$((bad + 1)); log "not JSON: $l"; }
	done < "$f"
done
check_eq json/valid "$bad" 0
log "nma: $(wc -l < /tmp/ev.a) lines, all devices: $(wc -l < /tmp/ev.all), text: $(wc -l < /tmp/ev.txt)"
sed 's/^/NMLOG: ev.a: /' /tmp/ev.a | $HEAD -n 40
log "nm-events took $(awk -v t0="$T0" '{ printf "%.0f", $1 - t0 }' /proc/uptime) s"
exit 0
