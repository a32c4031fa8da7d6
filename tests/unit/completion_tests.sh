#!/bin/bash
# The bash completion of nmsetup (tools/bash-completion/nmsetup), on the
# host: source it, set COMP_WORDS/COMP_CWORD as bash would for a line, call
# _nmsetup and compare COMPREPLY.
# Usage: completion_tests.sh PATH/TO/nmsetup.  One line per case; appends
# "PASS unit/completion/<case>" / "FAIL ..." to $NM_RESULTS if set.
set -u
NM=$(cd "$(dirname "${1:?path to nmsetup}")" && pwd)/$(basename "$1")
COMPLETION=$(cd "$(dirname "$0")/../../tools/bash-completion" && pwd)/nmsetup
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

NM_UNIT_GROUP=completion
# shellcheck source=tests/unit/results.sh
. "$(dirname "$0")/results.sh"

# shellcheck source=/dev/null
. "$COMPLETION"
if [ "$(complete -p nmsetup 2>/dev/null)" = "complete -F _nmsetup nmsetup" ]; then
	result registered 1
else
	result registered 0 "complete -p nmsetup: $(complete -p nmsetup 2>&1)"
fi

# comp LINE: COMPREPLY for the cursor at the end of LINE (words split on
# blanks; a trailing blank starts an empty word; "=" is a word of its own,
# as bash's COMP_WORDBREAKS makes it), sorted, one line
comp() {
	local line=$1
	line=${line//=/ = }
	read -r -a COMP_WORDS <<< "$line"
	[[ $1 == *" " || $1 == *= ]] && COMP_WORDS+=("")
	COMP_WORDS[0]=$NM
	COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
	COMPREPLY=()
	_nmsetup
	printf '%s\n' "${COMPREPLY[@]}" | sed '/^$/d' | LC_ALL=C sort | tr '\n' ' ' | sed 's/ $//'
}

# is NAME: completing LINE gives exactly WANT (sorted, blank-separated)
is() {
	local got
	got=$(comp "$2")
	if [ "$got" = "$3" ]; then result "$1" 1; else result "$1" 0 "[$2] gave [$got], want [$3]"; fi
}

# has NAME LINE WORD...: completing LINE offers every WORD
has() {
	local name=$1 line=$2 got w miss=
	shift 2
	got=" $(comp "$line") "
	for w in "$@"; do
		[[ $got == *" $w "* ]] || miss="$miss $w"
	done
	if [ -z "$miss" ]; then result "$name" 1; else result "$name" 0 "[$line] lacks$miss: [$got]"; fi
}

# lacks NAME LINE WORD...: completing LINE offers none of WORD
lacks() {
	local name=$1 line=$2 got w bad=
	shift 2
	got=" $(comp "$line") "
	for w in "$@"; do
		[[ $got == *" $w "* ]] && bad="$bad $w"
	done
	if [ -z "$bad" ]; then result "$name" 1; else result "$name" 0 "[$line] offers$bad: [$got]"; fi
}

cat > "$tmp/nm.conf" <<'CONF'
# two resources, as in examples/netmirror.conf
resource r0 {
    protocol C;
    on alpha { device nm0; disk /dev/vdb; address 169.254.0.1:7789; role primary; }
    on beta  { device nm0; disk /dev/vdb; address 169.254.0.2:7789; }
}
resource web { # comment { resource notme }
    on alpha {
        device webdev;
        disk /dev/vdc;
        address 169.254.0.1:7790;
    }
    on gamma { device webdev; disk /dev/vdc; address 169.254.0.3:7790; }
}
CONF
C="-c $tmp/nm.conf"

# commands: every one of "nmsetup --help", and only those
want=$("$NM" --help | sed -n '/^commands:/,/^$/s/^  \([a-z][a-z0-9-]*\).*/\1/p' | LC_ALL=C sort | tr '\n' ' ' | sed 's/ $//')
is commands "nmsetup " "$want"
has commands-known "nmsetup " up down adjust create remove status wait-sync primary secondary options fence
is command-prefix "nmsetup wa" "wait-sync"
is command-prefix-2 "nmsetup re" "remove resume-io resume-resync resume-sync resync-rate"
is command-after-global "nmsetup $C -n u" "up"

# resources from the config of -c, comments ignored
is up-resources "nmsetup $C up " "r0 web"
is down-prefix "nmsetup $C down w" "web"
is config-after-command "nmsetup up --config=$tmp/nm.conf " "r0 web"
is no-config "nmsetup -c $tmp/missing.conf up " ""
is up-one-arg "nmsetup $C up r0 " ""
# NAME: resources and device names
is primary-names "nmsetup $C primary " "nm0 r0 web webdev"
is status-names "nmsetup $C status " "nm0 r0 web webdev"
is resync-rate-value "nmsetup $C resync-rate nm0 " ""
is options-tables "nmsetup options " "flags messages options status"

# options per command
is up-options "nmsetup up --f" "--force"
has up-options-all "nmsetup up --" --force --help --config --host --dry-run --verbose
lacks up-no-table-flags "nmsetup up --" --protocol --json --wait-timeout --version
is status-json "nmsetup status --j" "--json"
has wait-sync-timeout "nmsetup wait-sync --" --wait-timeout
has fence-options "nmsetup fence --" --handler --unfence-handler --once
has create-table-flags "nmsetup create -" --protocol --ordering --size --meta --region-size --role --fencing --force -o --option
lacks down-nothing "nmsetup down --" --force --json --protocol
is no-duplicates "nmsetup create --opt" "--option"
is global-version "nmsetup --vers" "--version"
has options-doc "nmsetup options --" --json --man --rst

# option values
is protocol-values "nmsetup create --protocol " "A B C"
is protocol-values-eq "nmsetup create --protocol=" "A B C"
is ordering-values "nmsetup create nm0 /dev/vdb 1.2.3.4:7789 --ordering d" "drain"
is role-values "nmsetup table --role " "primary secondary"
is after-sb-0pri-values "nmsetup create --after-sb-0pri discard_l" "discard_least_changes"
is fencing-values "nmsetup create --fencing " "freeze none"
is host-values "nmsetup $C --host " "alpha beta gamma"
has option-keywords "nmsetup create -o " region_size= role= meta= fencing=
is numeric-value "nmsetup create --region-size " ""
# a value does not count as an argument
is after-value "nmsetup $C --host alpha up " "r0 web"
is after-table-flag "nmsetup $C table --protocol A " "nm0 r0 web webdev"
# files: -c, LOCAL_DEV, --meta
touch "$tmp/other.conf"
is config-file "nmsetup -c $tmp/oth" "$tmp/other.conf"
is local-dev "nmsetup create nm0 $tmp/oth" "$tmp/other.conf"
has meta-values "nmsetup create --meta " internal

echo "completion_tests: $pass passed, $fail failed"
[ "$fail" = 0 ]
