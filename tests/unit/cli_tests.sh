#!/bin/bash
# nmsetup command-line tests that need neither root nor device-mapper:
# table printing, --dry-run output, config mode and exit codes.
# Usage: cli_tests.sh PATH/TO/nmsetup.  One line per case; appends
# "PASS unit/cli/<case>" / "FAIL ..." to $NM_RESULTS if set.
set -u
NM=${1:?path to nmsetup}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

NM_UNIT_GROUP=cli
# shellcheck source=tests/unit/results.sh
. "$(dirname "$0")/results.sh"

# out NAME EXPECTED_RC EXPECTED_STDOUT -- ARGS...
out() {
	local name=$1 rc=$2 want=$3 got r
	shift 4
	got=$("$NM" "$@" 2>"$tmp/err"); r=$?
	if [ "$r" = "$rc" ] && [ "$got" = "$want" ]; then
		result "$name" 1
	else
		result "$name" 0 "rc=$r (want $rc) out=[$got] want=[$want] err=[$(cat "$tmp/err")]"
	fi
}

# code NAME EXPECTED_RC STDERR_FRAGMENT -- ARGS...
code() {
	local name=$1 rc=$2 frag=$3 r
	shift 4
	"$NM" "$@" >/dev/null 2>"$tmp/err"; r=$?
	if [ "$r" = "$rc" ] && grep -qF -- "$frag" "$tmp/err"; then
		result "$name" 1
	else
		result "$name" 0 "rc=$r (want $rc) err=[$(cat "$tmp/err")] want fragment [$frag]"
	fi
}

cat > "$tmp/nm.conf" <<'CONF'
resource r0 {
    protocol C;
    ordering drain;
    on alpha { device nm0; disk /dev/vdb; address 169.254.0.1:7789; role primary; size 2048; }
    on beta  { device nm0; disk /dev/vdb; address 169.254.0.2:7789; size 2048; }
}
CONF
printf 'resource r0 {\n protocol D;\n}\n' > "$tmp/bad.conf"
C="$tmp/nm.conf"

out table-basic 0 "0 2048 netmirror /dev/vdb 169.254.0.2:7789 C flush" -- \
	table nm0 /dev/vdb 169.254.0.2:7789 --size 2048
out table-options 0 "0 8 netmirror 8:16 [fd00::2]:7789 A none 4 listen [fd00::1]:7789 role primary" -- \
	table nm0 8:16 [fd00::2]:7789 --size 8 --protocol A --ordering=none --role primary --listen [fd00::1]:7789
out table-role-secondary 0 "0 8 netmirror /dev/vdb 1.2.3.4:1 C flush" -- \
	table nm0 /dev/vdb 1.2.3.4:1 --size 8 --role secondary
out table-o 0 "0 8 netmirror /dev/vdb 1.2.3.4:1 C flush 4 meta /dev/vdc region_size 64" -- \
	table nm0 /dev/vdb 1.2.3.4:1 --size 8 -o region_size=64 -o meta=/dev/vdc
out create-dry-run 0 "dmsetup create nm0 --uuid NETMIRROR-nm0 --table '0 8 netmirror /dev/vdb 1.2.3.4:1 B flush'" -- \
	-n create nm0 /dev/vdb 1.2.3.4:1 --size 8 --protocol B
out remove-dry-run 0 "dmsetup remove --retry nm0" -- -n remove nm0
out primary-dry-run 0 "dmsetup message nm0 0 primary" -- -n primary nm0
out disconnect-dry-run 0 "dmsetup message nm0 0 disconnect" -- --dry-run disconnect nm0
out connect-discard-dry-run 0 "dmsetup message nm0 0 discard_my_data
dmsetup message nm0 0 connect" -- --dry-run connect nm0 --discard-my-data
out discard-my-data-dry-run 0 "dmsetup message nm0 0 discard_my_data" -- --dry-run discard-my-data nm0
code discard-only-on-connect 1 "is not valid for primary" -- --dry-run primary nm0 --discard-my-data
out primary-force-dry-run 0 "dmsetup message nm0 0 force_primary" -- --dry-run primary nm0 --force
out force-primary-dry-run 0 "dmsetup message nm0 0 force_primary" -- --dry-run force-primary nm0
code force-only-on-primary 1 "--force is not valid for connect" -- --dry-run connect nm0 --force
code fence-needs-handler 1 "fence needs --handler PROG" -- fence nm0
code fence-once-only-on-fence 1 "--once is not valid for status" -- status --once
code handler-only-on-fence 1 "--handler is not valid for connect" -- connect nm0 --handler /bin/true
code unfence-handler-only-on-fence 1 "--unfence-handler is not valid for connect" -- connect nm0 --unfence-handler /bin/true
code fence-unfence-needs-handler 1 "fence needs --handler PROG" -- fence nm0 --unfence-handler /bin/true
out message-dry-run 0 "dmsetup message nm0 0 resync_rate 100" -- -n message nm0 resync_rate 100
out conf-table-alpha 0 "0 2048 netmirror /dev/vdb 169.254.0.2:7789 C drain 4 listen 169.254.0.1:7789 role primary" -- \
	-c "$C" --host alpha table r0
out conf-table-beta 0 "0 2048 netmirror /dev/vdb 169.254.0.1:7789 C drain 2 listen 169.254.0.2:7789" -- \
	-c "$C" --host beta table r0
out conf-up-dry-run 0 "dmsetup create nm0 --uuid NETMIRROR-nm0 --table '0 2048 netmirror /dev/vdb 169.254.0.1:7789 C drain 2 listen 169.254.0.2:7789'" -- \
	-c "$C" --host beta -n up r0
out conf-down-dry-run 0 "dmsetup remove --retry nm0" -- -c "$C" --host alpha -n down r0
out table-1.2-options 0 "0 8 netmirror /dev/vdb 1.2.3.4:1 C flush 10 role primary meta 8:3 region_size 2048 sync none resync_rate 0" -- \
	table nm0 /dev/vdb 1.2.3.4:1 --size 8 --resync-rate 0 --sync none --region-size 2048 --meta 8:3 --role primary
out create-meta-dry-run 0 "dmsetup create nm0 --uuid NETMIRROR-nm0 --table '0 8 netmirror /dev/vdb 1.2.3.4:1 C flush 4 meta /dev/vdc sync full'" -- \
	-n create nm0 /dev/vdb 1.2.3.4:1 --size 8 --meta /dev/vdc --sync=full
out resync-rate-dry-run 0 "dmsetup message nm0 0 resync_rate 2048" -- -n resync-rate nm0 2048
out resync-rate-0-dry-run 0 "dmsetup message nm0 0 resync_rate 0" -- -n resync-rate nm0 0
out pause-sync-dry-run 0 "dmsetup message nm0 0 pause_resync" -- -n pause-sync nm0
out resume-sync-dry-run 0 "dmsetup message nm0 0 resume_resync" -- -n resume-sync nm0
out help 0 "$("$NM" --help)" -- -h
# every table option as a flag, generated from the rows; -o still works
out table-all-flags 0 "0 8 netmirror /dev/vdb 1.2.3.4:1 C flush 22 listen 0.0.0.0:1 role primary meta /dev/vdc region_size 64 sync none resync_rate 7 timeout 10000 ping 500 on_io_error pass_on integrity crc32c secret nm:r0" -- \
	table nm0 /dev/vdb 1.2.3.4:1 --size 8 --secret nm:r0 --integrity crc32c --on-io-error=pass_on --ping 500 \
	--timeout 10000 --resync-rate 7 --sync none --region-size 64 --meta /dev/vdc --role primary --listen 0.0.0.0:1
out table-flag-and-o 0 "0 8 netmirror /dev/vdb 1.2.3.4:1 C flush 4 timeout 9000 ping 1000" -- \
	table nm0 /dev/vdb 1.2.3.4:1 --size 8 -o ping=1000 --timeout 9000
out table-reprint-order 0 "0 8 netmirror /dev/vdb 1.2.3.4:1 C flush 4 on_io_error detach integrity crc32c" -- \
	table nm0 /dev/vdb 1.2.3.4:1 --size 8 --integrity crc32c --on-io-error detach
out attach-dry-run 0 "dmsetup message nm0 0 attach" -- -n attach nm0
out pause-resync-dry-run 0 "dmsetup message nm0 0 pause_resync" -- -n pause-resync nm0
out resume-resync-dry-run 0 "dmsetup message nm0 0 resume_resync" -- -n resume-resync nm0
[ "$("$NM" --help | grep -c '^  attach NAME$')" = 1 ] && result help-attach 1 || result help-attach 0 "attach not in --help"
for kw in $("$NM" options --json | sed -n 's/.*"keyword":"\([a-z_]*\)".*/\1/p'); do
	flag=--$(echo "$kw" | tr _ -)
	"$NM" --help | grep -q -- "^  $flag " && result "help-flag-$kw" 1 || result "help-flag-$kw" 0 "$flag not in --help"
done
out wait-sync-help 0 "$(printf 'usage: nmsetup wait-sync NAME|RESOURCE [--wait-timeout SECONDS]\n\nWait until NAME is connected and fully in sync (exit 4 on timeout).\n--timeout SECONDS is a deprecated spelling of --wait-timeout here.')" -- wait-sync --help
# nmsetup options: the tables of nm_params.h
n=$("$NM" options --json | grep -c '"keyword":')
[ "$n" -ge 11 ] && result options-json-options 1 || result options-json-options 0 "$n options"
"$NM" options --json | grep -q '"word":"attach"' && result options-json-attach 1 || result options-json-attach 0
"$NM" options --json | grep -q '"disk_states":\["unknown","uptodate","inconsistent","outdated","diskless"\]' &&
	result options-json-disk-states 1 || result options-json-disk-states 0 "$("$NM" options --json | tail -n 2)"
if command -v python3 >/dev/null 2>&1; then
	"$NM" options --json | python3 -c 'import json,sys; json.load(sys.stdin)' &&
		result options-json-valid 1 || result options-json-valid 0 "not JSON"
fi
"$NM" options | grep -q '^  on_io_error ' && result options-text 1 || result options-text 0
"$NM" options --man options | grep -q '^\.BR "on_io_error " detach|pass_on$' && result options-man 1 ||
	result options-man 0 "$("$NM" options --man options | head -n 3)"
"$NM" options --man flags | grep -q '^\.BI \\-\\-region\\-size " SECTORS"$' && result options-man-flags 1 ||
	result options-man-flags 0 "$("$NM" options --man flags | head -n 3)"
"$NM" options --rst messages | grep -q '^``attach`` ' && result options-rst 1 || result options-rst 0
# the man pages and docs/netmirror.rst hold what "nmsetup options" prints
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
if NMSETUP=$(cd "$(dirname "$NM")" && pwd)/$(basename "$NM") "$ROOT/scripts/gen-docs.sh" --check > "$tmp/docs" 2>&1; then
	result docs-generated-current 1
else
	result docs-generated-current 0 "$(cat "$tmp/docs")"
fi
out cmd-help 0 "$(printf 'usage: nmsetup remove NAME\n\nRemove device NAME (retries while busy).')" -- remove --help

# events: its flags, and only its
[ "$("$NM" --help | grep -c '^  events \[NAME|RESOURCE\] \[--json\] \[--now\] \[--timestamps\]$')" = 1 ] &&
	result help-events 1 || result help-events 0 "events not in --help"
"$NM" events --help | grep -q 'one line per change as it happens' && result events-help 1 ||
	result events-help 0 "$("$NM" events --help)"
code events-now-not-valid 1 "--now is not valid for status" -- status --now
code events-timestamps-not-valid 1 "--timestamps is not valid for remove" -- remove nm0 --timestamps
code events-args 1 "wrong number of arguments for events" -- events nm0 nm1 --now
code events-table-flag 1 "--protocol is not valid for events" -- events nm0 --protocol A
code usage-none 1 "usage: nmsetup" --
code usage-unknown-cmd 1 'unknown command "frobnicate"' -- frobnicate
code usage-unknown-opt 1 'unknown option "--frob"' -- status --frob
code usage-args 1 "wrong number of arguments for create" -- create nm0 /dev/vdb
code usage-opt-not-valid 1 "--json is not valid for remove" -- remove nm0 --json
code usage-missing-value 1 "--size needs a value" -- table nm0 /dev/vdb 1.2.3.4:1 --size
code usage-timeout 1 '--timeout "abc": expected seconds > 0' -- wait-sync nm0 --timeout abc
code usage-wait-timeout 1 '--wait-timeout "abc": expected seconds > 0' -- wait-sync nm0 --wait-timeout abc
code usage-wait-timeout-deprecated 1 'wait-sync --timeout is deprecated, use --wait-timeout' -- wait-sync nm0 --timeout abc
code usage-wait-timeout-not-valid 1 '--wait-timeout is not valid for status' -- status --wait-timeout 5
code usage-timeout-is-table-option 1 '--timeout is not valid for status' -- status --timeout 5
code parse-timeout-ms 2 '--timeout "499": Invalid timeout (want 500..600000 ms)' -- table nm0 /dev/vdb 1.2.3.4:1 --size 8 --timeout 499
code parse-ping-timeout 2 'ping must be shorter than timeout' -- table nm0 /dev/vdb 1.2.3.4:1 --size 8 --timeout 1000
code parse-leading-zero 2 '--resync-rate "010": Invalid resync_rate (want KiB/s, 0 = adaptive)' -- table nm0 /dev/vdb 1.2.3.4:1 --size 8 --resync-rate 010
code parse-o-upper 2 'Unknown optional argument "REGION_SIZE"' -- table nm0 /dev/vdb 1.2.3.4:1 --size 8 -o REGION_SIZE=8
code usage-attach-args 1 'wrong number of arguments for attach' -- -n attach nm0 x
code usage-message-upper 1 'unknown command "PRIMARY"' -- -n PRIMARY nm0
code usage-options-table 1 'options: unknown table "foo"' -- options foo
code usage-options-two 1 'options: give one of --json, --man, --rst' -- options --man --rst
code usage-man-not-valid 1 '--man is not valid for table' -- table nm0 /dev/vdb 1.2.3.4:1 --man
code usage-o-syntax 1 '-o "region_size": expected KEYWORD=VALUE' -- table nm0 /dev/vdb 1.2.3.4:1 --size 8 -o region_size
code usage-resync-rate 1 'resync-rate "fast": Invalid resync_rate (want KiB/s, 0 = adaptive)' -- -n resync-rate nm0 fast
code usage-resync-rate-args 1 "wrong number of arguments for resync-rate" -- -n resync-rate nm0
code usage-meta-not-valid 1 "--meta is not valid for status" -- status nm0 --meta /dev/vdc
code parse-region-size 2 '--region-size "4096": Invalid region_size (want a power of two, 8..2048 sectors)' -- \
	table nm0 /dev/vdb 1.2.3.4:1 --size 8 --region-size 4096
code parse-sync 2 '--sync "some": Invalid sync (want full or none)' -- table nm0 /dev/vdb 1.2.3.4:1 --size 8 --sync some
code parse-peer 2 'PEER "1.2.3.4": missing port' -- table nm0 /dev/vdb 1.2.3.4 --size 8
code parse-dev 2 'LOCAL_DEV "vdb": device must be an absolute path or major:minor' -- table nm0 vdb 1.2.3.4:1 --size 8
code parse-protocol 2 '--protocol "D": Invalid protocol (want A, B or C)' -- table nm0 /dev/vdb 1.2.3.4:1 --size 8 --protocol D
code parse-role 2 '--role "boss": Invalid role (want primary or secondary)' -- table nm0 /dev/vdb 1.2.3.4:1 --size 8 --role boss
code parse-option 2 'Unknown optional argument "colour"' -- table nm0 /dev/vdb 1.2.3.4:1 --size 8 -o colour=red
code parse-size 2 '--size "0": must be a sector count > 0' -- table nm0 /dev/vdb 1.2.3.4:1 --size 0
code parse-name 2 "NAME: device name" -- table a/b /dev/vdb 1.2.3.4:1 --size 8
code parse-listen-family 2 "Listen and peer addresses must be of one family" -- table nm0 /dev/vdb 1.2.3.4:1 --size 8 --listen [::1]:1
code conf-syntax 2 "bad.conf:2: Invalid protocol (want A, B or C)" -- -c "$tmp/bad.conf" table r0
code conf-missing-file 5 "No such file or directory" -- -c "$tmp/none.conf" up r0
code conf-missing-res 5 'no resource "r9"' -- -c "$C" --host alpha up r9
code conf-missing-host 5 'resource r0 has no "on gamma" section' -- -c "$C" --host gamma up r0
code size-missing-dev 3 "cannot get the size (use --size)" -- table nm0 /nonexistent/dev 1.2.3.4:1

# nm-lvcreate / nm-lvremove: argument checks that fail before any LVM call
LVC=$(cd "$(dirname "$NM")" && pwd)/nm-lvcreate
LVR=$(cd "$(dirname "$NM")" && pwd)/nm-lvremove
lvc() {	# lvc NAME RC STDERR_FRAGMENT -- ARGS...
	local name=$1 rc=$2 frag=$3 r
	shift 4
	NMSETUP=$NM LVM=/nonexistent/lvm "$LVC" "$@" >"$tmp/out" 2>"$tmp/err"; r=$?
	if [ "$r" = "$rc" ] && grep -qF -- "$frag" "$tmp/err" && [ ! -s "$tmp/out" ]; then
		result "lvcreate-$name" 1
	else
		result "lvcreate-$name" 0 "rc=$r (want $rc) err=[$(cat "$tmp/err")] out=[$(cat "$tmp/out")] want [$frag]"
	fi
}
if [ -x "$LVC" ]; then
	[ "$("$LVC" --help | head -n 1)" = "usage: nm-lvcreate -L SIZE -n NAME --peer HOST:PORT [options] VG" ] &&
		result lvcreate-help-text 1 || result lvcreate-help-text 0 "$("$LVC" --help | head -n 1)"
	[ "$("$LVR" --help | head -n 1)" = "usage: nm-lvremove [-t] NAME VG" ] &&
		result lvremove-help-text 1 || result lvremove-help-text 0 "$("$LVR" --help | head -n 1)"
	lvc no-size 1 "-L SIZE is required" -- -n r0 --peer 1.2.3.4:1 vg0
	lvc no-peer 1 "--peer HOST:PORT is required" -- -L 1G -n r0 vg0
	lvc no-vg 1 "the volume group is required" -- -L 1G -n r0 --peer 1.2.3.4:1
	lvc two-vgs 1 'more than one VG given ("vg0", "vg1")' -- -L 1G -n r0 --peer 1.2.3.4:1 vg0 vg1
	lvc unknown-opt 1 'unknown option "--frob"' -- --frob -L 1G -n r0 --peer 1.2.3.4:1 vg0
	lvc missing-value 1 "--peer needs a value" -- -L 1G -n r0 vg0 --peer
	lvc bad-o 1 '-o "timeout": expected KEY=VALUE' -- -L 1G -n r0 --peer 1.2.3.4:1 -o timeout vg0
	lvc bad-size 2 'invalid size "1X"' -- -L 1X -n r0 --peer 1.2.3.4:1 vg0
	lvc zero-size 2 'invalid size "0M"' -- -L 0M -n r0 --peer 1.2.3.4:1 vg0
	lvc bad-meta-size 2 'invalid metadata size "4Q"' -- -L 1G --meta-size 4Q -n r0 --peer 1.2.3.4:1 vg0
	lvc bad-name 2 'invalid LV name "-r0"' -- -L 1G -n -r0 --peer 1.2.3.4:1 vg0
	lvc reserved-name 2 'invalid LV name "x_rimage_0"' -- -L 1G -n x_rimage_0 --peer 1.2.3.4:1 vg0
	lvc bad-vg 2 'invalid volume group name "a/b"' -- -L 1G -n r0 --peer 1.2.3.4:1 a/b
	lvc bad-peer 2 'invalid peer "1.2.3.4"' -- -L 1G -n r0 --peer 1.2.3.4 vg0
	lvc unknown-host 2 'invalid peer "no-such-host.invalid:7789"' -- -L 1G -n r0 --peer no-such-host.invalid:7789 vg0
	lvc bad-port 2 'PEER "1.2.3.4:70000"' -- -L 1G -n r0 --peer 1.2.3.4:70000 vg0
	lvc bad-protocol 2 '--protocol "D": Invalid protocol (want A, B or C)' -- -L 1G -n r0 --peer 1.2.3.4:1 --protocol D vg0
	lvc bad-region 2 'Invalid region_size (want a power of two, 8..2048 sectors)' -- -L 1G -n r0 --peer 1.2.3.4:1 --region-size=4096 vg0
	lvc bad-option 2 'Unknown optional argument "colour"' -- -L 1G -n r0 --peer 1.2.3.4:1 -o colour=red vg0
	lvc no-lvm 3 "lvm not found" -- -L 1G -n r0 --peer 1.2.3.4:1 vg0
	# table flags it does not own go to nmsetup unchanged
	lvc pass-timeout 2 '--timeout "499": Invalid timeout (want 500..600000 ms)' -- -L 1G -n r0 --peer 1.2.3.4:1 --timeout 499 vg0
	lvc pass-on-io-error 2 '--on-io-error "x": Invalid on_io_error' -- -L 1G -n r0 --peer 1.2.3.4:1 --on-io-error=x vg0
	lvc pass-ok-then-no-lvm 3 "lvm not found" -- -L 1G -n r0 --peer 1.2.3.4:1 --ping 500 --integrity=crc32c --secret k vg0
	lvc pass-missing-value 1 "--ping needs a value" -- -L 1G -n r0 --peer 1.2.3.4:1 vg0 --ping
	# the device is named after VG and LV, '-' doubled as LVM does:
	# two VGs with the same LV name get two names (a stand-in lvm: every
	# VG exists, no LV does; -t changes nothing)
	printf '#!/bin/sh\ncase $1 in vgs) exit 0 ;; *) exit 5 ;; esac\n' > "$tmp/lvm"
	chmod +x "$tmp/lvm"
	for v in vg0:r-0:vg0-r--0-nm vg-1:r-0:vg--1-r--0-nm; do
		IFS=: read -r vg lv dm <<EOF2
$v
EOF2
		got=$(NMSETUP=$NM LVM=$tmp/lvm "$LVC" -t -L 8M -n "$lv" --peer 1.2.3.4:1 "$vg" 2>&1); r=$?
		if [ $r = 0 ] && [ "$(echo "$got" | tail -n 1)" = "/dev/mapper/$dm" ] &&
		   echo "$got" | grep -qxF "$NM create $dm /dev/$vg/$lv 1.2.3.4:1"; then
			result "lvcreate-name-$vg" 1
		else
			result "lvcreate-name-$vg" 0 "rc=$r out=[$got] want /dev/mapper/$dm"
		fi
	done
	got=$(NMSETUP=$NM LVM=$tmp/lvm "$LVC" -t -L 8M -n r0 --device mine --peer 1.2.3.4:1 vg0 2>&1 | tail -n 1)
	[ "$got" = /dev/mapper/mine ] && result lvcreate-name-device 1 || result lvcreate-name-device 0 "$got"
	long=$(printf 'v%.0s' $(seq 1 70))
	lvc long-devname 2 "is too long (at most 127 characters; choose one with --device)" -- \
		-L 1G -n "$long" --peer 1.2.3.4:1 "$long"
	NMSETUP=$NM LVM=/nonexistent/lvm "$LVR" 2>"$tmp/err" >/dev/null; r=$?
	[ $r = 1 ] && grep -q "need NAME VG or VG/NAME" "$tmp/err" && result lvremove-usage 1 ||
		result lvremove-usage 0 "rc=$r $(cat "$tmp/err")"
fi

echo "cli_tests: $pass passed, $fail failed"
[ "$fail" = 0 ]
