# The OCF resource agent ocf:netmirror:netmirror (tools/ocf/netmirror) in
# one VM, without a cluster: the agent runs node "a" of a resource whose
# other half ("peer", device nmb) is on loopback (brd disks, metadata
# devices).  Checks:
#   meta-data/*: the meta-data is valid against ra-api-1.dtd (xmllint
#     --valid) and crm_resource --show-metadata reads it;
#   validate/*: validate-all's exit codes: 0 for a good configuration,
#     OCF_ERR_ARGS (2) for a configuration file missing on this node or a
#     host section missing, OCF_ERR_CONFIGURED (6) for a malformed file, an
#     unknown resource, "role primary", a missing resource parameter,
#     OCF_ERR_INSTALLED (5) without nmsetup; the reason on stderr;
#   ocf-tester: resource-agents' ocf-tester passes (start, stop, monitor,
#     promote, demote, notify, probes, repeated actions);
#   monitor/*: 7 stopped, 0 secondary, 8 primary;
#   refuse/outdated: promote fails on an outdated disk, saying so;
#   refuse/split-brain: promote fails on a standalone split brain, saying so.
# vms: 1
# disks: none
# layers: cluster
# timeout: 400
load_netmirror
. /tests/nmlib.sh
A=/usr/lib/ocf/resource.d/netmirror/netmirror
[ -x "$A" ] || fail "no agent $A"
[ -x /usr/sbin/ocf-tester ] || fail "no ocf-tester (cluster layer missing)"
brd_setup 16 4
export OCF_ROOT=/usr/lib/ocf OCF_RESOURCE_INSTANCE=nm
export OCF_RESKEY_resource=r0 OCF_RESKEY_config=/tmp/nm.conf
mkdir -p /run/resource-agents

# conf FILE [extra statement for node a]
conf() {
	cat > "$1" <<EOF
resource r0 {
    protocol C;
    on $(hostname) {
        device nma;
        disk /dev/ram0;
        meta /dev/ram2;
        address 127.0.0.1:7789;
        $2
    }
    on peer {
        device nmb;
        disk /dev/ram1;
        meta /dev/ram3;
        address 127.0.0.1:7790;
    }
}
EOF
}
conf /tmp/nm.conf
ra() { # ra ACTION [VAR=VALUE...]: the agent's exit code, its stderr in /tmp/ra.err
	local act=$1
	shift
	env "$@" "$A" "$act" > /tmp/ra.out 2> /tmp/ra.err
}

# --- meta-data
"$A" meta-data > /tmp/md.xml
check meta-data/exit [ $? = 0 ]
check meta-data/dtd sh -c "cd /usr/share/resource-agents && xmllint --noout --valid - < /tmp/md.xml"
crm_resource --show-metadata ocf:netmirror:netmirror > /tmp/md2.xml 2> /tmp/md2.err
check meta-data/crm_resource [ $? = 0 ]
check meta-data/crm_resource-name grep -q '<resource-agent name="netmirror"' /tmp/md2.xml ||
	log "crm_resource: $(head -c 300 /tmp/md2.err)"

# --- validate-all
vcode() { # vcode NAME WANT [VAR=VALUE...]
	local name=$1 want=$2
	shift 2
	ra validate-all "$@"
	check_eq "validate/$name" "$?" "$want" || log "validate $name: $(cat /tmp/ra.err)"
	log "validate $name: $(head -n 2 /tmp/ra.err | tr '\n' ' ')"
}
vcode ok 0
vcode no-file 2 OCF_RESKEY_config=/tmp/none.conf
check_match validate/no-file-says "$(cat /tmp/ra.err)" "not found"
printf 'resource r0 {\n    protocol X;\n}\n' > /tmp/bad.conf
vcode malformed 6 OCF_RESKEY_config=/tmp/bad.conf
check_match validate/malformed-says "$(cat /tmp/ra.err)" "bad.conf:2"
vcode no-resource 6 OCF_RESKEY_resource=r9
vcode no-host 2 OCF_RESKEY_host=gamma
conf /tmp/prim.conf "role primary;"
vcode role-primary 6 OCF_RESKEY_config=/tmp/prim.conf
check_match validate/role-primary-says "$(cat /tmp/ra.err)" "cluster decides the role"
vcode no-param 6 OCF_RESKEY_resource=
vcode bad-bool 6 OCF_RESKEY_unfence_if_all_uptodate=maybe
vcode no-nmsetup 5 OCF_RESKEY_nmsetup=/nonexistent/nmsetup
"$A" > /dev/null 2>&1
check_eq usage/no-action "$?" 2
"$A" frobnicate > /dev/null 2>&1
check_eq usage/unknown-action "$?" 3

# --- the peer's half, and a first sync (the peer primary, then secondary)
nmsetup -c /tmp/nm.conf up r0 || fail "up r0 (node a)"
nmsetup -c /tmp/nm.conf --host peer up r0 || fail "up r0 (peer)"
nmsetup primary --force nmb || fail "primary --force nmb"
nm_wait_synced nmb 60 || fail "first sync: $(dmsetup status nmb)"
nmsetup secondary nmb || fail "secondary nmb"
nmsetup -c /tmp/nm.conf down r0 || fail "down r0 (node a)"

# --- ocf-tester
/usr/sbin/ocf-tester -n nm -o resource=r0 -o config=/tmp/nm.conf "$A" > /tmp/ocft.out 2>&1
check ocf-tester [ $? = 0 ] || sed 's/^/ocf-tester: /' /tmp/ocft.out | head -n 40
check_match ocf-tester/passed "$(tail -n 1 /tmp/ocft.out)" "passed all tests"

# --- monitor codes
ra monitor
check_eq monitor/stopped "$?" 7
ra start
check_eq monitor/start "$?" 0
ra monitor
check_eq monitor/secondary "$?" 0
check_wait monitor/connected 30 "nm_synced nma"
ra promote
check_eq monitor/promote "$?" 0
ra monitor
check_eq monitor/primary "$?" 8
check_eq monitor/role "$(nm_status nma role)" primary
ra demote
check_eq monitor/demote "$?" 0
ra monitor
check_eq monitor/demoted "$?" 0

# --- promote refused: outdated disk
nmsetup disconnect nma || fail "disconnect nma"
nmsetup outdate nma || fail "outdate nma"
ra promote
check_eq refuse/outdated "$?" 1
check_match refuse/outdated-says "$(cat /tmp/ra.err)" "disk is outdated, not uptodate"
check_eq refuse/outdated-still-secondary "$(nm_status nma role)" secondary
nmsetup connect nma || fail "connect nma"
check_wait refuse/resynced 60 "nm_synced nma && [ \$(nm_status nma disk) = uptodate ]"

# --- promote refused: split brain (both nodes wrote while apart)
nmsetup disconnect nma && nmsetup disconnect nmb || fail "disconnect both"
for d in nma nmb; do
	nmsetup primary "$d" || fail "primary $d"
	pattern write /dev/mapper/$d 3 1M --direct --quiet || fail "write $d"
	nmsetup secondary "$d" || fail "secondary $d"
done
nmsetup connect nma && nmsetup connect nmb || fail "connect both"
check_wait refuse/split-brain-seen 30 "[ \$(nm_status nma last_error) = split_brain ] && [ \$(nm_status nma connection) = standalone ]"
ra promote
check_eq refuse/split-brain "$?" 1
check_match refuse/split-brain-says "$(cat /tmp/ra.err)" "standalone after split_brain"
check_eq refuse/split-brain-still-secondary "$(nm_status nma role)" secondary
# nma's changes go
nmsetup connect nma --discard-my-data || fail "connect --discard-my-data"
nmsetup connect nmb 2>/dev/null
check_wait refuse/recovered 60 "nm_synced nma"
check_eq refuse/identical "$(dev_sum /dev/ram0)" "$(dev_sum /dev/ram1)"

ra stop
check_eq stop "$?" 0
ra stop
check_eq stop/again "$?" 0
check_fail stop/gone dmsetup status nma
nmsetup remove nmb
exit 0
