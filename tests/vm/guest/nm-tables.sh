# The shared corpus (tests/corpus) against the kernel and libdmnet: every
# table line of table-lines.txt is created ("dmsetup create") and reprinted
# exactly ("dmsetup table"), or refused with exactly its text in the kernel
# log; every message of messages.txt sent to a live device is taken or
# refused with its text; and libdmnet (linked into nmcorpus) gives the kernel's verdict
# and text for every line (agree/table/<name>, agree/message/<name>).  Then
# the refusals only the kernel can see (devices, keys), canonical order,
# I/O through a standalone primary, and rmmod.
# vms: 1
# disks: none
# timeout: 600
load_netmirror
brd_setup 16 3
. /tests/nmlib.sh
. /tests/tables.sh
S=32768
D=$(cat /sys/block/ram0/dev)

nm_corpus_init /dev/ram0 /dev/ram2 "$S"
nm_corpus_tables
log "table-lines.txt: $NM_CORPUS_N lines, $NM_CORPUS_BAD failed checks (kernel or agreement)"
# messages: a standalone primary (consistent: sync none), so that every
# message the parser takes is also allowed by the state (but attach)
dmsetup create nmm --table "0 $S netmirror /dev/ram1 127.0.0.1:7799 C flush 6 listen 127.0.0.1:7798 role primary sync none" ||
	fail "create nmm"
nm_corpus_messages nmm
log "messages.txt: $NM_CORPUS_N messages, $NM_CORPUS_BAD failed checks (kernel or agreement)"
dmsetup remove nmm || fail "remove nmm"

# refusals only the kernel can see (not in the corpus)
dmsetup create nmtiny --table "0 8 linear /dev/ram1 0" || fail "create nmtiny"
nm_refuse_kernel kernel/local-missing "Cannot open local device" \
	"0 $S netmirror /dev/nonexistent 10.0.0.2:7789 C flush"
nm_refuse_kernel kernel/local-smaller "Local device is smaller than the target" \
	"0 $((S + 8)) netmirror /dev/ram0 10.0.0.2:7789 C flush"
nm_refuse_kernel kernel/meta-missing "Cannot open metadata device" \
	"0 $S netmirror /dev/ram0 10.0.0.2:7789 C flush 2 meta /dev/nonexistent"
nm_refuse_kernel kernel/meta-too-small "Metadata device too small (see docs: 4096 + bitmap bytes)" \
	"0 $S netmirror /dev/ram0 10.0.0.2:7789 C flush 2 meta /dev/mapper/nmtiny"
nm_refuse_kernel kernel/secret-no-key "Secret: no logon key with that description" \
	"0 $S netmirror /dev/ram0 10.0.0.2:7789 C flush 2 secret netmirror:no-such-key"
dmsetup remove nmtiny

# option order and an empty group are canonicalised
dmsetup create nmgood --table "0 $S netmirror /dev/ram0 127.0.0.1:7789 C flush 4 role primary listen 127.0.0.1:7790" || fail "reordered options refused"
check_eq canonical-order "$(dmsetup table nmgood)" "0 $S netmirror $D 127.0.0.1:7789 C flush 4 listen 127.0.0.1:7790 role primary"
dmsetup remove nmgood
dmsetup create nmgood --table "0 $S netmirror /dev/ram0 127.0.0.1:7789 C flush 0" || fail "empty group refused"
check_eq empty-group-dropped "$(dmsetup table nmgood)" "0 $S netmirror $D 127.0.0.1:7789 C flush"
# a secondary still waiting for its full sync, reloaded as primary: its
# disk is inconsistent (it took over the regions out of sync), so the
# table is refused, as "primary" refuses to promote an inconsistent disk
# (DRBD: no primary without an UpToDate disk).  Since 1.18.10 the load
# refuses it and the live secondary goes on; 1.18.9 refused only the
# resume, which left the device suspended with the refused table (dm had
# dropped the old one); up to 1.18.8 it became an inconsistent primary.
check_fail inconsistent-primary-load-refused dmsetup reload nmgood --table "0 $S netmirror /dev/ram0 127.0.0.1:7789 C flush 2 role primary"
check_eq inconsistent-primary-reason "$(dmesg | grep -c "netmirror: The live table's disk is not uptodate: cannot be primary")" 1
check_eq inconsistent-primary-active "$(dmsetup info nmgood | sed -n 's/^State: *//p')" ACTIVE
check_eq inconsistent-primary-no-inactive "$(dmsetup info nmgood | sed -n 's/^Tables present: *//p')" LIVE
check_eq inconsistent-secondary-disk "$(nm_status nmgood disk)" inconsistent
check_eq inconsistent-secondary-role "$(nm_status nmgood role)" secondary
# a secondary's table over it loads and resumes as before
check inconsistent-secondary-reload sh -c "dmsetup reload nmgood --table '0 $S netmirror /dev/ram0 127.0.0.1:7789 C flush 2 listen 127.0.0.1:7790' && dmsetup resume nmgood"
check_eq inconsistent-secondary-still "$(nm_status nmgood disk)" inconsistent
dmsetup remove nmgood
# I/O maps to the local device (a standalone primary, reloaded)
dmsetup create nmgood --table "0 $S netmirror /dev/ram0 127.0.0.1:7789 C flush 2 role primary" || fail "create primary"
dmsetup reload nmgood --table "0 $S netmirror /dev/ram0 127.0.0.1:7789 C flush 2 role primary" || fail "reload"
dmsetup resume nmgood || fail "resume after reload"
pattern write /dev/mapper/nmgood 7 8M --direct --quiet || fail "write through a standalone primary"
check standalone-primary-io pattern verify /dev/ram0 7 8M --direct --quiet
# the module cannot go while a device uses it
check_fail rmmod-refused-while-used rmmod dm_netmirror
dmsetup remove nmgood || fail "remove"
check rmmod-after-last-device rmmod dm_netmirror
exit 0
