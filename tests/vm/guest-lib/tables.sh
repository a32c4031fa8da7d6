# shellcheck shell=sh disable=SC3043
# Table-line checks shared by nm-tables and fault-badinput (busybox ash);
# source after lib.sh (installed as /tests/tables.sh):
#
#   nm_refuse_tables PREFIX SECTORS < LINES
#                         LINES: "PARAMS|WANT" per line; PARAMS are the
#                         words after "netmirror".  One named check per
#                         line, PREFIX/<n>: "dmsetup create" of
#                         "0 SECTORS netmirror PARAMS" must fail, the
#                         kernel's "device-mapper: table" line logged since
#                         must contain WANT, and no device may be left.
#                         Sets NM_TBL_N (lines read) and NM_TBL_BAD (failed).

nm_refuse_tables() {
	local pre=$1 sz=$2 params want got t n
	NM_TBL_N=0 NM_TBL_BAD=0
	while IFS='|' read -r params want; do
		NM_TBL_N=$((NM_TBL_N + 1))
		n=$NM_TBL_N
		echo "NMLOG-MARK $pre$n" > /dev/kmsg
		if dmsetup create nmbad --table "0 $sz netmirror $params" >/tmp/nm_tbl_out 2>&1; then
			t=$(dmsetup table nmbad)
			dmsetup remove nmbad
			check_bad "$pre/$n" "accepted: '$params' (reprinted as '$t')" || NM_TBL_BAD=$((NM_TBL_BAD + 1))
			continue
		fi
		got=$(dmesg | sed -n "/NMLOG-MARK $pre$n\$/,\$p" | grep 'device-mapper: table' | tail -1)
		if dmsetup info nmbad >/dev/null 2>&1; then
			check_bad "$pre/$n" "'$params' left a device behind" || NM_TBL_BAD=$((NM_TBL_BAD + 1))
			dmsetup remove nmbad
			continue
		fi
		case $got in
		*"$want"*) check_ok "$pre/$n" ;;
		*) check_bad "$pre/$n" "'$params': want '$want', kernel said '$got'" || NM_TBL_BAD=$((NM_TBL_BAD + 1)) ;;
		esac
	done
}
