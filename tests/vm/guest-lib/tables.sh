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
#                         agree/table/<name>  libdmnet (nm_table_parse_line) gives the
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
#                         agree/message/<name>: libdmnet (nm_message_check)
#                         accepts what the kernel's parser accepts and
#                         refuses the rest with a text the kernel's starts
#                         with.
#   nm_refuse_kernel NAME TEXT LINE
#                         A refusal only the kernel can see (devices, keys;
#                         not in the corpus): "dmsetup create nmc" of LINE
#                         fails with exactly TEXT and leaves no device.
#   NM_CORPUS_N           cases tried by the last call; NM_CORPUS_BAD: failed
#                         checks.  Names are the corpus names.
#
# The corpus loops run in one process, nmcorpus (src/nmcorpus.c): it does
# what "dmsetup create/table/load/message/remove" do, through libdevmapper,
# reads the refusals from /dev/kmsg and asks libdmnet directly.  As a shell
# loop of dmsetup calls (60-120 ms each under TCG) nm-tables took 3 minutes.

NM_CORPUS_DIR=${NM_CORPUS_DIR:-/tests/corpus}

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
	command -v nmcorpus >/dev/null || fail "nmcorpus missing (libdmnet not built?)"
	nmhostile addkey netmirror:corpus corpus-secret >/dev/null || fail "add key netmirror:corpus"
	nmhostile addkey "netmirror:$(printf '%053d' 0 | tr 0 k)" corpus-secret >/dev/null ||
		fail "add the 63-character key"
}

# the checks nmcorpus printed (src/nmcorpus.c): PASS/FAIL lines, LOG lines,
# and COUNT (cases, failed checks)
_nm_corpus_report() {
	local tab v n d
	tab=$(printf '\t')
	NM_CORPUS_N=0 NM_CORPUS_BAD=0
	while IFS=$tab read -r v n d; do
		case $v in
		PASS) check_ok "$n" ;;
		FAIL) check_bad "$n" "$d" ;;
		LOG) log "$n" ;;
		COUNT) NM_CORPUS_N=$n NM_CORPUS_BAD=$d ;;
		*) check_bad "nmcorpus/output" "unexpected line: $v $n $d" ;;
		esac
	done < "$1"
}

nm_corpus_tables() {
	nmcorpus tables /tmp/corpus-table-lines.txt "$NM_CORPUS_META" ${1:+"$1"} > /tmp/corpus-res ||
		fail "nmcorpus tables: exit $?"
	_nm_corpus_report /tmp/corpus-res
}

nm_corpus_load() {
	local before dev="$1"
	before=$(dmsetup table "$dev")
	nmcorpus load "$dev" /tmp/corpus-table-lines.txt > /tmp/corpus-res ||
		fail "nmcorpus load: exit $?"
	_nm_corpus_report /tmp/corpus-res
	# (a refused load never fills the inactive slot; checked once, at the end)
	check_match "reload/$dev/no-inactive-table" "$(dmsetup info "$dev" | grep 'Tables present')" 'Tables present: *LIVE$' ||
		{ NM_CORPUS_BAD=$((NM_CORPUS_BAD + 1)); dmsetup clear "$dev"; }
	check_eq "reload/$dev/live-table-unchanged" "$(dmsetup table "$dev")" "$before" ||
		NM_CORPUS_BAD=$((NM_CORPUS_BAD + 1))
}

nm_corpus_messages() {
	nmcorpus messages "$1" /tmp/corpus-messages.txt "${2:--}" ${3:+"$3"} ${4:+"$4"} > /tmp/corpus-res ||
		fail "nmcorpus messages: exit $?"
	_nm_corpus_report /tmp/corpus-res
}

nm_refuse_kernel() {
	printf '%s\terr\t%s\t%s\n' "$1" "$3" "$2" > /tmp/corpus-kernel.txt
	nmcorpus kernel /tmp/corpus-kernel.txt "$NM_CORPUS_META" > /tmp/corpus-res ||
		fail "nmcorpus kernel: exit $?"
	_nm_corpus_report /tmp/corpus-res
}
