# shellcheck shell=sh disable=SC2034
# The one definition of the log lines that fail a VM test (extended regexes,
# grep -E).  Sourced by the guest library (guest-lib/lib.sh, as
# /tests/dmesg-bad.sh) and by the host library (tests/vm/lib.sh).
#
# NM_DMESG_BAD: new kernel log lines since a test started (/init, after each
# test) and node b's since the last look (peer_check).  The unsigned-module
# taint message is not a failure.
# Lockdep reports ("WARNING: possible circular locking dependency detected",
# "WARNING: possible recursive locking detected"), DEBUG_ATOMIC_SLEEP's "BUG:
# sleeping function called from invalid context" and "BUG: KASAN: ..." come
# with the first words; kmemleak counts only its leak reports and failures
# (the debug kernel logs "kmemleak: Kernel memory leak detector initialized"
# at boot).
NM_DMESG_BAD='BUG:|Oops|WARNING:|Call Trace:|blocked for more than|soft lockup|general protection|KASAN|kmemleak: [0-9]+ new suspected|kmemleak: .*(disabled|[Cc]annot|[Ff]ail|unknown object|pool empty)'
# NM_CONSOLE_BAD: the host's scan of a whole console log (outside NMDUMP
# sections and the NM* protocol lines), for crashes the guest could not
# report.  Narrower on purpose: the tests' own stderr is on the console too
# (lvm prints "WARNING: ..."), and a kernel WARNING is already caught by the
# dmesg check above.  The host adds its own "NMHOST: host timeout".
NM_CONSOLE_BAD='Kernel panic - not syncing|BUG: |Oops: |general protection fault'
