# Shared by the shell unit tests (cli_tests.sh, completion_tests.sh,
# pkg_tests.sh): one named result per check, counted in $pass/$fail and
# appended to $NM_RESULTS as "PASS|FAIL|SKIP unit/<group>/<name>".
# Set NM_UNIT_GROUP before sourcing.
pass=0 fail=0

result() {	# result NAME 1|0|SKIP [detail]
	local v
	case $2 in
	1) v=PASS; echo "PASS $1"; pass=$((pass + 1)) ;;
	SKIP) v=SKIP; echo "SKIP $1: ${3:-}" ;;
	*) v=FAIL; echo "FAIL $1: ${3:-}"; fail=$((fail + 1)) ;;
	esac
	[ -z "${NM_RESULTS:-}" ] || echo "$v unit/$NM_UNIT_GROUP/$1" >> "$NM_RESULTS"
}
