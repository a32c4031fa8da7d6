#!/bin/sh
# crm-fence-peer.sh: netmirror's fence-peer handler for Pacemaker (like
# DRBD's crm-fence-peer.sh).  Installed as $(PREFIX)/lib/netmirror/
# crm-fence-peer.sh, with crm-unfence-peer.sh (the same script, --unfence).
#
#   crm-fence-peer.sh [--clone ID] [--resource RES]      (fence)
#   crm-unfence-peer.sh [--clone ID] [--resource RES]    (or --unfence)
#
# Fence: run by "nmsetup fence DEVICE --handler crm-fence-peer.sh" on a
# primary with "fencing freeze" when it has lost its peer and holds the
# writes (the ocf:netmirror:netmirror agent runs that daemon while promoted,
# parameter fence_handler).  It places the location constraint
#
#   <rsc_location id="nm-fence-CLONE" rsc="CLONE">
#     <rule role="Promoted" score="-INFINITY">
#       <expression attribute="#uname" operation="ne" value="THIS NODE"/>
#
# that keeps every node but this one from being promoted: the peer, which
# misses the writes made from now on, is not promoted by a failover.  Exit
# codes (drbd's, understood by nmsetup fence: 4 and 5 release the writes):
#   4  constraint placed, the peer is a cluster member (it can no longer be
#      promoted: as good as outdated)
#   5  constraint placed, the peer is not a cluster member (down or cut off)
#   1  not fenced: no CIB, no such clone, or a constraint of the peer's that
#      excludes this node (the peer fenced us first: our data is the stale
#      one; the writes stay held)
# Unfence: removes the constraint (exit 0, also when there was none; 1 when
# the CIB could not be read or changed); the agent's "nmsetup fence" daemon
# runs it on the promoted node as its --unfence-handler, as soon as the
# device is connected with both disks uptodate (parameter
# unfence_if_all_uptodate), as DRBD runs crm-unfence-peer.sh after the
# resync.
#
# The promotable clone is --clone ID, else the clone of the primitive
# $NM_CRM_PRIMITIVE (set by the agent), else the clone of the
# ocf:netmirror:netmirror primitive whose parameter resource is --resource
# RES or $NM_RESOURCE.  Messages go to stderr and syslog (logger).
# SPDX-License-Identifier: GPL-2.0-only

PATH=$PATH:/usr/sbin:/usr/bin:/sbin:/bin
unfence=
case ${0##*/} in
*unfence*) unfence=1 ;;
esac
clone=''
res=${NM_RESOURCE:-}
while [ $# -gt 0 ]; do
	case $1 in
	--unfence) unfence=1; shift ;;
	--clone) clone=$2; shift 2 ;;
	--resource) res=$2; shift 2 ;;
	-h|--help) sed -n '2,/^# SPDX/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	*) echo "crm-fence-peer: unknown argument $1" >&2; exit 1 ;;
	esac
done

say() {
	echo "crm-fence-peer: $*" >&2
	logger -t crm-fence-peer -- "$*" 2> /dev/null
	return 0
}

# the first id="..." of cibadmin's answer (the element the XPath matched)
first_id() {
	sed -n 's/^[[:space:]]*<[a-z_]*[^>]* id="\([^"]*\)".*/\1/p' | head -n 1
}

if [ -z "$clone" ] && [ -n "${NM_CRM_PRIMITIVE:-}" ]; then
	clone=$(cibadmin --query --xpath "//clone[primitive[@id='$NM_CRM_PRIMITIVE']]" 2> /dev/null | first_id)
fi
if [ -z "$clone" ] && [ -n "$res" ]; then
	clone=$(cibadmin --query --xpath "//clone[primitive[@type='netmirror'][instance_attributes/nvpair[@name='resource'][@value='$res']]]" 2> /dev/null | first_id)
fi
if [ -z "$clone" ]; then
	say "no promotable clone found (--clone, NM_CRM_PRIMITIVE=${NM_CRM_PRIMITIVE:-}, resource ${res:-unset}): not fenced"
	exit 1
fi
id=nm-fence-$clone

if [ -n "$unfence" ]; then
	cibadmin --query --xpath "//rsc_location[@id='$id']" > /dev/null 2>&1
	rc=$?
	case $rc in
	0) ;;
	105) exit 0 ;;	# CRM_EX_NOSUCH: no such constraint
	*)
		# not "nothing to remove": the caller tries again
		say "could not read the CIB (cibadmin exit $rc): $id not removed"
		exit 1
		;;
	esac
	if cibadmin --delete --xml-text "<rsc_location id=\"$id\"/>" > /dev/null 2>&1; then
		say "removed $id: ${NM_DEVICE:-$clone} is in sync, the peer may be promoted again"
		exit 0
	fi
	say "could not remove the constraint $id"
	exit 1
fi

me=$(crm_node -n 2> /dev/null)
if [ -z "$me" ]; then
	say "crm_node -n failed (cluster not running?): not fenced"
	exit 1
fi
old=$(cibadmin --query --xpath "//rsc_location[@id='$id']" 2> /dev/null)
if [ -n "$old" ]; then
	case $old in
	*"value=\"$me\""*)
		say "$id already keeps every node but $me from being promoted"
		;;
	*)
		say "$id exists and excludes this node ($me): the peer fenced us first; our data may be stale: not fenced"
		exit 1
		;;
	esac
else
	xml="<rsc_location id=\"$id\" rsc=\"$clone\"><rule id=\"$id-rule\" role=\"Promoted\" score=\"-INFINITY\"><expression id=\"$id-expr\" attribute=\"#uname\" operation=\"ne\" value=\"$me\"/></rule></rsc_location>"
	if ! out=$(cibadmin --create --scope constraints --xml-text "$xml" 2>&1); then
		say "placing $id failed: $out: not fenced"
		exit 1
	fi
	say "placed $id: only $me may be promoted (${NM_DEVICE:+device $NM_DEVICE, }peer ${NM_PEER:-?} lost)"
fi

# is the peer still a member of the cluster?
peer_member=
for n in $(crm_node -l 2> /dev/null | awk -v me="$me" '$2 != me && $3 == "member" { print $2 }'); do
	peer_member=$n
done
if [ -n "$peer_member" ]; then
	say "peer $peer_member is a cluster member: it can no longer be promoted (exit 4)"
	exit 4
fi
say "the peer is not a cluster member (down or cut off) (exit 5)"
exit 5
