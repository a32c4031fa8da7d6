# Generations around a diskless peer: data a node made its own while its
# peer had no disk must never look like the peer's older data, nor the
# reverse (review helper-60, findings 1 and 3).
#
# Part forced: nma (primary) writes while nmb is away, so that nmb comes
# back as the inconsistent target of its resync (paused); then nma's disk
# fails and it detaches.  nma is made secondary and nmb force_primary:
# nmb's data, whatever it holds, is from now on the newest, and it writes.
# Then nmb is made secondary and nma comes back on its repaired disk (a
# remove and create, as after a reboot; its metadata still says consistent
# with its generation of before the failure).  Up to 1.18.19 the forced
# promotion, taken on a live link, began no generation: nma's older one
# looked newer, the handshake made nma the source, and nmb's forced writes
# were overwritten without a split brain being reported
# (forced/new-generation, forced/split, forced/kept failed).
#
# Part lone: nma's disk fails with the pair connected (nmb, uptodate,
# begins a generation: it has the only disk), nmb disconnects and is
# promoted alone, writes, is made secondary and connects again.  nma, a
# diskless primary whose users saw the data of nmb's generation of the
# detach, must refuse a peer whose data changed meanwhile
# (stale_primary).  Up to 1.18.19 the detach's generation stayed "fresh"
# after the link was lost, the promotion began none, and nma took the
# link: the data under its users changed without a word (lone/new-generation,
# lone/refused failed).
#
# One VM, both nodes on loopback, 8 MiB devices, metadata on both, nma's
# disk a dm-linear swapped for an always-failing dm-flakey.  For each
# protocol A, B, C, checks <P>/forced/... and <P>/lone/...:
#   target           (forced) nmb is the sync_target before the failure
#   detached         nma's disk is diskless
#   promoted         force_primary / primary on nmb accepted
#   new-generation   nmb's generation changed with that promotion
#   written          nmb's writes of 1 MiB at 4 MiB succeeded
#   split            (forced) nma back: a split brain (both data moved on
#                    from one generation), not a resync
#   kept             (forced) nmb's disk still holds its writes
#   refused          (lone) nma refuses nmb's link: stale_primary
# vms: 1
# disks: none
# timeout: 400
load_netmirror
. /tests/nmlib.sh
modprobe dm-flakey || fail "modprobe dm-flakey"
S=16384

table() { # a|b [role]
	local n=4
	[ -n "${2:-}" ] && n=6
	if [ "$1" = a ]; then
		echo "0 $S netmirror /dev/mapper/lowa 127.0.0.1:7790 $P flush $n listen 127.0.0.1:7789${2:+ role $2} meta /dev/ram2"
	else
		echo "0 $S netmirror /dev/ram1 127.0.0.1:7789 $P flush 4 listen 127.0.0.1:7790 meta /dev/ram3"
	fi
}

pair_up() {
	nm_zero /dev/ram0 /dev/ram1 /dev/ram2 /dev/ram3
	dmsetup create lowa --table "0 $S linear /dev/ram0 0" || fail "create lowa"
	dmsetup create nmb --table "$(table b)" || fail "create nmb"
	dmsetup create nma --table "$(table a primary)" || fail "create nma"
	nm_wait_synced nma 60 && nm_wait_synced nmb 30 || fail "$P: first sync: $(dmsetup status nma)"
	pattern write /dev/mapper/nma 1 8M --size 8M --direct --quiet || fail "$P: first write"
	nm_wait_confirmed nma 30 || fail "$P: unconfirmed: $(dmsetup status nma)"
}

pair_down() {
	dmsetup remove nma || fail "$P: remove nma"
	dmsetup remove nmb || fail "$P: remove nmb"
	dmsetup remove lowa || fail "$P: remove lowa"
}

# a failing write detaches nma
detach_a() {
	lower bad lowa /dev/ram0
	$DD if=/dev/urandom of=/dev/mapper/nma bs=4k seek=100 count=1 oflag=direct conv=notrunc status=none
	check_wait detached 10 "[ \"\$(nm_status nma disk)\" = diskless ]"
}

brd_setup 8 4
for P in $(nm_protos); do
	NM_CHECK_PREFIX=$P/forced/
	pair_up
	lose_link
	pattern write /dev/mapper/nma 2 1M --size 2M --direct --quiet || fail "$P: write apart"
	dmsetup message nma 0 pause_resync || fail "$P: pause_resync"
	dmsetup message nmb 0 connect || fail "$P: connect nmb"
	check_wait target 30 "[ \"\$(nm_status nmb connection)\" = sync_target ]"
	detach_a
	dmsetup message nma 0 secondary || fail "$P: nma secondary"
	g=$(nm_status nmb generation)
	check promoted dmsetup message nmb 0 force_primary
	check new-generation [ "$(nm_status nmb generation)" != "$g" ]
	check written pattern write /dev/mapper/nmb 3 1M --size 1M --offset 4M --direct --quiet
	log "$P: forced: nma $(dmsetup status nma) | nmb $(dmsetup status nmb)"
	dmsetup message nmb 0 secondary || fail "$P: nmb secondary"
	dmsetup remove nma || fail "$P: remove nma"
	lower ok lowa /dev/ram0
	dmsetup create nma --table "$(table a)" || fail "$P: create nma again"
	check_wait split 30 "nm_standalone nma split_brain || nm_standalone nmb split_brain"
	log "$P: after: nma $(dmsetup status nma) | nmb $(dmsetup status nmb)"
	check kept pattern verify /dev/ram1 3 1M --size 1M --offset 4M --direct --quiet
	pair_down

	NM_CHECK_PREFIX=$P/lone/
	pair_up
	g=$(nm_status nmb generation)
	detach_a
	wait_for "[ \"\$(nm_status nmb generation)\" != $g ]" 10 ||
		log "$P: nmb began no generation at the detach: $(dmsetup status nmb)"
	lower ok lowa /dev/ram0
	dmsetup message nmb 0 disconnect || fail "$P: disconnect nmb"
	nm_wait_conn nmb standalone 20 || fail "$P: nmb not standalone"
	g=$(nm_status nmb generation)
	check promoted dmsetup message nmb 0 primary
	check new-generation [ "$(nm_status nmb generation)" != "$g" ]
	check written pattern write /dev/mapper/nmb 4 1M --size 1M --offset 4M --direct --quiet
	dmsetup message nmb 0 secondary || fail "$P: nmb secondary"
	dmsetup message nmb 0 connect || fail "$P: connect nmb"
	check_wait refused 30 "nm_standalone nma stale_primary"
	log "$P: lone: nma $(dmsetup status nma) | nmb $(dmsetup status nmb)"
	pair_down
done
NM_CHECK_PREFIX=
exit 0
