# Write merging (module parameter merge_writes, nm_merge.c): a block
# device's page cache is written back one 4 KiB bio per page under a plug;
# a connected primary sends each run of adjacent ones as one write.  Two
# nodes in one VM over 127.0.0.1; every data check compares the backing
# devices with the data written.
#   <P>/merged/...  A, B, C: 16 MiB buffered (dd, fsync) through the
#     primary: on both disks, and far fewer writes sent than pages
#     (writes_sent < pages/8);
#   <P>/unmerged/... the same with merge_writes=N: one write per page
#     (writes_sent >= 9/10 of the pages): the count above can fail;
#   <P>/direct/...  16 MiB of O_DIRECT 4 MiB writes, merging off: 1 to 2
#     writes sent per MiB (pieces of up to NM_MAX_DATA; cut at brd's
#     max_sectors it was 9 per MiB, 24 for 16 MiB with merging);
#   marks/...    C with metadata devices: merged writes wait for their
#     regions' marks (mark_wait) and re-enter the write path; random
#     buffered writes of mixed sizes (pattern --fsync) verified on the peer;
#   flush/...    C: a buffered write back while another task writes
#     O_DSYNC (FUA, on the peer when it returns) and fsyncs the device
#     (PREFLUSH) again and again;
#   suspend/...  C: a suspend and a noflush suspend during the write back;
#   requeue/...  C with "fencing freeze": the link lost during a 32 MiB
#     write back (held writes, merged ones among them), a noflush suspend
#     requeues them, resume_io releases them, the data is whole; the
#     secondary's writes take 500 ms (dm-delay) until the cut, so that
#     writes await their acks when it comes, however fast the VM runs
#     (it came after the whole write back once);
#   ioerror/...  C, "on_io_error pass_on", the primary's disk failing
#     (dm-flakey): the merged writes fail and so does every write they
#     carry (the buffered write's fsync gets EIO);
#   disconnected/...  C, the secondary away: nothing is sent or held
#     (merging is off), the data on the primary, resynced after.
# vms: 1
# disks: none
# timeout: 300
# mem: 1024
load_netmirror
. /tests/nmlib.sh
modprobe dm-flakey || fail "modprobe dm-flakey"
modprobe dm-delay || fail "modprobe dm-delay"
brd_setup 40 4
MW=/sys/module/dm_netmirror/parameters/merge_writes
[ -w $MW ] || fail "no module parameter merge_writes"
[ "$(cat $MW)" = Y ] || fail "merge_writes is not on by default"
S=$((34 * 2048))	# sectors of each pair: 32 MiB of data, the O_DSYNC blocks after
MB=16
PAGES=$((MB * 256))
$DD if=/dev/urandom of=/tmp/rnd bs=1M count=48 status=none || fail "random source"
K=0
t() { log "t=$(cut -d' ' -f1 /proc/uptime) $*"; }

# next: the next case's data, /tmp/rnd from MiB $K on (each case differs)
next() {
	K=$((K + 1))
	want=$($DD if=/tmp/rnd bs=1M skip=$K count=$MB status=none | $MD5SUM | cut -d' ' -f1)
}
# buffered: write it through nma's page cache, fsync'ed (dd's status: $?)
buffered() {
	$DD if=/tmp/rnd of=/dev/mapper/nma bs=1M skip=$K count=$MB conv=fsync,notrunc status=none
}
# writing_back: wait (busy, at most ~30 s) until the background write back
# sent its first write: a fault now hits merged writes in flight
writing_back() {
	local i=0
	while [ "$(nm_status nma writes_sent)" -le "$s0" ]; do
		i=$((i + 1))
		[ $i -lt 3000 ] || return 1
	done
}
head_sum() {
	$DD if="$1" bs=1M count=$MB iflag=direct status=none | $MD5SUM | cut -d' ' -f1
}
# data NAME: the case's data on both disks (the peer's: once it settled)
data() {
	check_eq "$1/primary-data" "$(head_sum /dev/ram0)" "$want"
	check_wait "$1/secondary-data" 30 "[ \"\$(head_sum /dev/ram1)\" = $want ]"
}

for P in A B C; do
	t "$P"
	nm_local_pair "$P" flush "$S"
	echo Y > $MW
	next
	s0=$(nm_status nma writes_sent)
	buffered || fail "$P: buffered write"
	check_wait "$P/merged/settled" 30 "[ \$(nm_status nma pending) = 0 ]"
	data "$P/merged"
	n=$(( $(nm_status nma writes_sent) - s0 ))
	log "$P merged: $n writes sent for $PAGES pages"
	check "$P/merged/fewer-writes" [ "$n" -gt 0 -a "$n" -lt $((PAGES / 8)) ]
	check_eq "$P/merged/sent-eq-received" "$(nm_status nmb writes_received)" "$(nm_status nma writes_sent)"

	echo N > $MW
	next
	s0=$(nm_status nma writes_sent)
	buffered || fail "$P: buffered write, merge_writes=N"
	check_wait "$P/unmerged/settled" 30 "[ \$(nm_status nma pending) = 0 ]"
	data "$P/unmerged"
	n=$(( $(nm_status nma writes_sent) - s0 ))
	log "$P unmerged: $n writes sent for $PAGES pages"
	check "$P/unmerged/page-writes" [ "$n" -ge $((PAGES * 9 / 10)) ]
	echo Y > $MW
	# O_DIRECT 4 MiB writes, merging off: dm hands the target up to 1 MiB
	# at a time (one P_DATA each), not pieces of the backing device's
	# max_sectors (127.5 KiB on brd: 9 per MiB).  How many exactly
	# depends on the bios blkdev builds from dd's buffer (a bio of more
	# than 1 MiB when its pages are physically contiguous is cut into 1
	# MiB and the rest), so: at least 1 and at most 2 per MiB
	echo N > $MW
	next
	s0=$(nm_status nma writes_sent)
	$DD if=/tmp/rnd of=/dev/mapper/nma bs=4M skip=$((K / 4)) count=$((MB / 4)) oflag=direct conv=notrunc status=none ||
		fail "$P: direct write"
	want=$($DD if=/tmp/rnd bs=4M skip=$((K / 4)) count=$((MB / 4)) status=none | $MD5SUM | cut -d' ' -f1)
	data "$P/direct"
	n=$(( $(nm_status nma writes_sent) - s0 ))
	log "$P direct: $n writes sent for $MB MiB"
	check "$P/direct/mib-writes" [ "$n" -ge "$MB" -a "$n" -le $((MB * 2)) ]
	echo Y > $MW
	nm_local_unpair
done

# --- metadata marks: merged writes park on mark_wait and come back
t marks
nm_zero /dev/ram2 /dev/ram3
nm_local_pair C flush "$S" /dev/ram0 /dev/ram1 "meta /dev/ram2" "meta /dev/ram3"
sleep 3		# the lazy clearing: regions unmarked, the next writes wait
next
s0=$(nm_status nma writes_sent)
buffered || fail "marks: buffered write"
data marks
n=$(( $(nm_status nma writes_sent) - s0 ))
check "marks/fewer-writes" [ "$n" -gt 0 -a "$n" -lt $((PAGES / 8)) ]
sleep 1.5
check "marks/pattern-write" pattern write /dev/mapper/nma 77 16M --size 32M --fsync --quiet
check_wait "marks/pattern-identical" 30 "[ \"\$(dev_sum /dev/ram0)\" = \"\$(dev_sum /dev/ram1)\" ]"
check "marks/pattern-secondary" pattern verify /dev/ram1 77 16M --size 32M --direct --quiet
nm_local_unpair

# --- FUA and flushes from another task during the write back
t flush
nm_local_pair C flush "$S"
next
( buffered; echo $? > /tmp/bg.rc ) &
i=0 bad=
while [ $i -lt 20 ]; do
	off=$(( 32 * 256 + i ))
	$DD if=/tmp/rnd of=/tmp/blk bs=4k skip=$((i * 7)) count=1 status=none
	$DD if=/tmp/blk of=/dev/mapper/nma bs=4k seek=$off count=1 oflag=direct,dsync conv=notrunc status=none ||
		fail "flush: dsync write $i"
	got=$($DD if=/dev/ram1 bs=4k skip=$off count=1 iflag=direct status=none | $MD5SUM)
	[ "$got" = "$($MD5SUM < /tmp/blk)" ] || bad="$bad $i"
	$DD of=/dev/mapper/nma count=0 conv=fsync,notrunc status=none || fail "flush: fsync $i"
	i=$((i + 1))
done
wait
if [ -z "$bad" ]; then check_ok flush/dsync-on-peer; else check_bad flush/dsync-on-peer "not on the peer when they returned:$bad"; fi
check_eq flush/buffered-ok "$(cat /tmp/bg.rc)" 0
data flush
nm_local_unpair

# --- suspend and noflush suspend during the write back
t suspend
nm_local_pair C flush "$S"
next
s0=$(nm_status nma writes_sent)
( buffered; echo $? > /tmp/bg.rc ) &
check suspend/writing-back writing_back
check suspend/suspend dmsetup suspend nma
sleep 0.5
check suspend/resume dmsetup resume nma
sleep 0.3
check suspend/suspend-noflush dmsetup suspend --noflush nma
sleep 0.3
check suspend/resume-noflush dmsetup resume nma
wait
check_eq suspend/buffered-ok "$(cat /tmp/bg.rc)" 0
check_wait suspend/resynced 60 "nm_synced nma && nm_synced nmb"
data suspend
nm_local_unpair

# --- fencing: held writes requeued by a noflush suspend, then released
t requeue
MB=32
# slowb: ram1 with writes of DELAY ms (reads and flushes undelayed)
slowb() {
	dmsetup "$1" slowb --table "0 $(( $(dev_size /dev/ram1) / 512 )) delay /dev/ram1 0 0 /dev/ram1 0 $2 /dev/ram1 0 0"
}
slowb create 500 || fail "create slowb (dm-delay over ram1)"
nm_local_pair C flush "$S" /dev/ram0 /dev/mapper/slowb "fencing freeze"
next
dmesg -c > /dev/null
s0=$(nm_status nma writes_sent)
( buffered; echo $? > /tmp/bg.rc ) &
check requeue/writing-back writing_back
lose_link
n=$(( $(nm_status nma writes_sent) - s0 ))
log "requeue: $n writes sent before the link was lost, $(nm_status nma pending) pending"
# (the writes that await their acks at the cut: requeue/requeued below)
check "requeue/sent-before-cut" [ "$n" -gt 0 ]
check_eq requeue/io-frozen "$(nm_status nma io)" frozen
# the secondary's disk at full speed again (its last writes land first)
{ dmsetup suspend slowb && slowb load 0 && dmsetup resume slowb; } ||
	fail "slowb: no delay"
sleep 1
check requeue/suspend-noflush dmsetup suspend --noflush nma
check requeue/resume dmsetup resume nma
log "requeue: $(dmesg | grep 'held writes' | tr '\n' ' ')"
check_match requeue/requeued "$(dmesg)" "[1-9][0-9]* held writes requeued"
check requeue/resume-io dmsetup message nma 0 resume_io
wait
check_eq requeue/buffered-ok "$(cat /tmp/bg.rc)" 0
check_eq requeue/primary-data "$(head_sum /dev/ram0)" "$want"
dmsetup message nmb 0 connect || fail "connect nmb"
check_wait requeue/resynced 60 "nm_synced nma && nm_synced nmb"
data requeue
nm_local_unpair
dmsetup remove slowb || fail "remove slowb"

# --- a failing local disk: every write of a merged one fails
t ioerror
MB=8
PAGES=$((MB * 256))
dmsetup create lowa --table "0 $S linear /dev/ram0 0" || fail "create lowa"
nm_local_pair C flush "$S" /dev/mapper/lowa /dev/ram1 "on_io_error pass_on"
dmsetup reload lowa --table "0 $S flakey /dev/ram0 0 0 3600" && dmsetup resume lowa ||
	fail "lowa: flakey"
next
s0=$(nm_status nma writes_sent)
check_fail ioerror/buffered-fails buffered
n=$(( $(nm_status nma writes_sent) - s0 ))
log "ioerror: $n writes sent for $PAGES pages"
check ioerror/merged [ "$n" -gt 0 -a "$n" -lt $((PAGES / 8)) ]
# the link stays (the failed regions are out of sync: a resync may run)
check_match ioerror/linked "$(nm_status nma connection)" "^(connected|sync_source)$"
nm_local_unpair
dmsetup remove lowa || fail "remove lowa"

# --- disconnected: nothing sent, nothing held
t disconnected
nm_local_pair C flush "$S"
lose_link
next
s0=$(nm_status nma writes_sent)
check disconnected/buffered buffered
check_eq disconnected/none-sent "$(nm_status nma writes_sent)" "$s0"
check_eq disconnected/primary-data "$(head_sum /dev/ram0)" "$want"
dmsetup message nmb 0 connect || fail "connect nmb"
check_wait disconnected/resynced 60 "nm_synced nma && nm_synced nmb"
data disconnected
nm_local_unpair
t end
exit 0
