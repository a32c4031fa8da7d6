# shellcheck shell=sh disable=SC3043
# The shared corpus (tests/corpus/README.md, shipped as /tests/corpus/)
# against the kernel and libdmnet, for nm-tables and fault-badinput (busybox
# ash); source after lib.sh (installed as /tests/tables.sh):
#
#   nm_corpus_init DEV META SECTORS
#                         DEV, META: block devices (paths) substituted for
#                         @DEV@/@META@ (as major:minor), SECTORS for
#                         @SECTORS@; META is zeroed before each line that
#                         names it (a fresh metadata device).  Adds the
#                         logon keys the corpus names (nmhostile addkey).
#   nm_corpus_tables [err]
#                         Every line of table-lines.txt (with "err": only
#                         the refused ones), one at a time as device nmc:
#                         table/<name>   "dmsetup create" succeeds and
#                                        "dmsetup table" reprints the
#                                        expected line exactly, or it fails,
#                                        leaves no device, and the kernel's
#                                        refusal ("device-mapper: table:
#                                        <dev>: netmirror: <text>") is the
#                                        expected text;
#                         agree/table/<name>  libdmnet (nmparse table) gives the
#                                        kernel's verdict: the same reprint,
#                                        or the same refusal text.
#   nm_corpus_load DEV    Every refused line of table-lines.txt loaded into
#                         the live device DEV ("dmsetup load"): reload/<name>
#                         fails with the expected text; then no inactive
#                         table is left and DEV's live table is unchanged
#                         (reload/DEV/no-inactive-table,
#                         reload/DEV/live-table-unchanged).
#   nm_corpus_messages DEV [PREFIX [err [ERE]]]
#                         Every line of messages.txt (with "err": only the
#                         refused ones; with ERE: only the names it matches)
#                         sent to DEV ("dmsetup message DEV 0
#                         WORDS"): PREFIX/<name> (default "message"): an ok
#                         message is not refused by the parser (the device's
#                         state may refuse it: logged, not part of the
#                         corpus); a refused one fails with a kernel log line
#                         "device-mapper: netmirror: <dev>: <text>..." that
#                         starts with the expected text, and leaves DEV's
#                         table, role, connection and suspended state as
#                         they were.  Without PREFIX (the first pass) also
#                         agree/message/<name>: libdmnet (nmparse message)
#                         accepts what the kernel's parser accepts and
#                         refuses the rest with a text the kernel's starts
#                         with.
#   nm_refuse_kernel NAME TEXT LINE
#                         A refusal only the kernel can see (devices, keys;
#                         not in the corpus): "dmsetup create nmc" of LINE
#                         fails with exactly TEXT and leaves no device.
#   NM_CORPUS_N           cases tried by the last call; NM_CORPUS_BAD: failed
#                         checks.  Names are the corpus names.

NM_CORPUS_DIR=${NM_CORPUS_DIR:-/tests/corpus}
NM_CORPUS_MARK=0

nm_corpus_init() {
	local dev meta
	dev=$(cat "/sys/class/block/${1##*/}/dev") || fail "nm_corpus_init: no device $1"
	meta=$(cat "/sys/class/block/${2##*/}/dev") || fail "nm_corpus_init: no device $2"
	NM_CORPUS_META=$2
	# substituted once: name TAB verdict TAB input TAB expected (no comments)
	for f in table-lines messages; do
		[ -s "$NM_CORPUS_DIR/$f.txt" ] || fail "no corpus: $NM_CORPUS_DIR/$f.txt"
		grep -v -e '^#' -e '^$' "$NM_CORPUS_DIR/$f.txt" |
			sed "s|@DEV@|$dev|g; s|@META@|$meta|g; s|@SECTORS@|$3|g" > "/tmp/corpus-$f.txt"
	done
	command -v nmparse >/dev/null || fail "nmparse missing (libdmnet not built?)"
	nmhostile addkey netmirror:corpus corpus-secret >/dev/null || fail "add key netmirror:corpus"
	nmhostile addkey "netmirror:$(printf '%053d' 0 | tr 0 k)" corpus-secret >/dev/null ||
		fail "add the 63-character key"
}

# the kernel's refusal text of a table line logged since mark $1
_nm_corpus_ctr_text() {
	dmesg | sed -n "/NMLOG-MARK corpus$1\$/,\$p" | grep 'device-mapper: table: ' | tail -n 1 |
		sed 's/^.*device-mapper: table: [^ ]*: netmirror: //; s/ (-E[A-Z0-9]*)$//; s/ (-[0-9]*)$//'
}

# the kernel's log text of a message refusal since mark $1 (after "<dev>: ")
_nm_corpus_msg_text() {
	dmesg | sed -n "/NMLOG-MARK corpus$1\$/,\$p" | grep 'device-mapper: netmirror: ' | tail -n 1 |
		sed 's/^.*device-mapper: netmirror: [0-9]*:[0-9]*: //'
}

_nm_corpus_mark() {
	NM_CORPUS_MARK=$((NM_CORPUS_MARK + 1))
	echo "NMLOG-MARK corpus$NM_CORPUS_MARK" > /dev/kmsg
}

_nm_corpus_fresh_meta() { # zero the metadata device if the line names it
	case $1 in
	*" meta "*) $DD if=/dev/zero of="$NM_CORPUS_META" bs=64k count=1 oflag=direct status=none ;;
	esac
}

nm_corpus_tables() {
	local tab name verdict line want kgot lgot
	tab=$(printf '\t')
	NM_CORPUS_N=0 NM_CORPUS_BAD=0
	while IFS=$tab read -r name verdict line want; do
		[ "${1:-}" = err ] && [ "$verdict" != err ] && continue
		NM_CORPUS_N=$((NM_CORPUS_N + 1))
		_nm_corpus_fresh_meta "$line"
		_nm_corpus_mark
		if dmsetup create nmc --table "$line" >/tmp/corpus-out 2>&1; then
			kgot="ok $(dmsetup table nmc)"
			dmsetup remove nmc || dmsetup remove --retry nmc || fail "table/$name: cannot remove nmc"
		else
			kgot="err $(_nm_corpus_ctr_text $NM_CORPUS_MARK)"
			if dmsetup info nmc >/dev/null 2>&1; then
				kgot="$kgot (and left a device behind)"
				dmsetup remove nmc
			fi
		fi
		check_eq "table/$name" "$kgot" "$verdict $want" || NM_CORPUS_BAD=$((NM_CORPUS_BAD + 1))
		lgot=$(nmparse table "$line")
		check_eq "agree/table/$name" "$lgot" "$kgot" || NM_CORPUS_BAD=$((NM_CORPUS_BAD + 1))
	done < /tmp/corpus-table-lines.txt
}

nm_corpus_load() {
	local tab name verdict line want kgot before dev="$1"
	tab=$(printf '\t')
	NM_CORPUS_N=0 NM_CORPUS_BAD=0
	before=$(dmsetup table "$dev")
	while IFS=$tab read -r name verdict line want; do
		[ "$verdict" = err ] || continue
		NM_CORPUS_N=$((NM_CORPUS_N + 1))
		_nm_corpus_mark
		if dmsetup load "$dev" --table "$line" >/tmp/corpus-out 2>&1; then
			kgot="ok (loaded: $(dmsetup table --inactive "$dev"))"
			dmsetup clear "$dev"
		else
			kgot="err $(_nm_corpus_ctr_text $NM_CORPUS_MARK)"
		fi
		check_eq "reload/$name" "$kgot" "err $want" || NM_CORPUS_BAD=$((NM_CORPUS_BAD + 1))
	done < /tmp/corpus-table-lines.txt
	# (a refused load never fills the inactive slot; checked once, at the end)
	check_match "reload/$dev/no-inactive-table" "$(dmsetup info "$dev" | grep 'Tables present')" 'Tables present: *LIVE$' ||
		{ NM_CORPUS_BAD=$((NM_CORPUS_BAD + 1)); dmsetup clear "$dev"; }
	check_eq "reload/$dev/live-table-unchanged" "$(dmsetup table "$dev")" "$before" ||
		NM_CORPUS_BAD=$((NM_CORPUS_BAD + 1))
}

_nm_corpus_state() {
	echo "$(dmsetup table "$1")|$(nm_status "$1" role)|$(nm_status "$1" connection)|$(dmsetup info -c --noheadings -o attr "$1")"
}

# the state once it stopped changing: a valid message before (disconnect,
# connect) takes effect in the connection thread, a moment later (up to 3 s)
_nm_corpus_settled() {
	local a b i=0
	a=$(_nm_corpus_state "$1")
	while [ $i -lt 10 ]; do
		sleep 0.3
		b=$(_nm_corpus_state "$1")
		[ "$a" = "$b" ] && break
		a=$b
		i=$((i + 1))
	done
	echo "$a"
}

nm_corpus_messages() {
	local tab name verdict msg want kgot ktext lgot agree pre="${2:-message}" before after dev="$1" last=ok
	tab=$(printf '\t')
	NM_CORPUS_N=0 NM_CORPUS_BAD=0
	while IFS=$tab read -r name verdict msg want; do
		[ "${3:-}" = err ] && [ "$verdict" != err ] && continue
		[ -n "${4:-}" ] && ! echo "$name" | grep -qE -- "$4" && continue
		NM_CORPUS_N=$((NM_CORPUS_N + 1))
		if [ "$verdict" = err ]; then
			if [ "$last" = ok ]; then
				before=$(_nm_corpus_settled "$dev")
			else
				before=$(_nm_corpus_state "$dev")
			fi
		fi
		last=$verdict
		_nm_corpus_mark
		# ("--": a word like "-1" is the message's, not an option of dmsetup)
		# shellcheck disable=SC2086
		if dmsetup message "$dev" 0 -- $msg >/tmp/corpus-out 2>&1; then
			kgot=ok ktext=
		else
			ktext=$(_nm_corpus_msg_text $NM_CORPUS_MARK)
			case $ktext in
			"unknown message"*|"Invalid ${msg%% *} "*) kgot="err $ktext" ;;
			"") kgot="err (nothing logged; dmsetup: $($HEAD -c 200 /tmp/corpus-out | tr '\n' ' '))" ;;
			*)	# a refusal by the device's state: the parser took it
				log "$pre/$name: '$msg' refused by $dev's state: ${ktext:-(nothing logged)}"
				kgot=ok ;;
			esac
		fi
		if [ "$verdict" = err ]; then
			# the kernel may add detail after the corpus text
			case $kgot in "err $want"*) kgot="err $want" ;; esac
			after=$(_nm_corpus_state "$dev")
			[ "$before" = "$after" ] || kgot="$kgot (changed $dev: '$before' -> '$after')"
		fi
		check_eq "$pre/$name" "$kgot" "$verdict${want:+ $want}" || NM_CORPUS_BAD=$((NM_CORPUS_BAD + 1))
		[ -n "${2:-}" ] && continue
		lgot=$(nmparse message "$msg")
		agree=0
		case $lgot in
		ok) [ "$kgot" = ok ] && agree=1 ;;
		"err "*) case "err $ktext" in "$lgot"*) [ "$kgot" != ok ] && agree=1 ;; esac ;;
		esac
		if [ $agree = 1 ]; then
			check_ok "agree/message/$name"
		else
			check_bad "agree/message/$name" "libdmnet: '$lgot', kernel: '$kgot' (logged: '$ktext')"
			NM_CORPUS_BAD=$((NM_CORPUS_BAD + 1))
		fi
	done < /tmp/corpus-messages.txt
}

nm_refuse_kernel() {
	local kgot
	_nm_corpus_mark
	if dmsetup create nmc --table "$3" >/tmp/corpus-out 2>&1; then
		kgot="ok $(dmsetup table nmc)"
		dmsetup remove nmc
	else
		kgot="err $(_nm_corpus_ctr_text $NM_CORPUS_MARK)"
		dmsetup info nmc >/dev/null 2>&1 && { kgot="$kgot (and left a device behind)"; dmsetup remove nmc; }
	fi
	check_eq "$1" "$kgot" "err $2"
}
