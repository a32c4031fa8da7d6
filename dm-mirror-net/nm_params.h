/* SPDX-License-Identifier: GPL-2.0 */
/*
 * netmirror parameters: the one place where the table line's options, the
 * target messages, the status fields and the state words are defined.
 *
 * Included by the kernel module (parser, canonical reprint, message
 * dispatch, status), by libdmnet (table model, config keys, status parser),
 * by nmsetup (flags, help, "nmsetup options"), and through "nmsetup options
 * --man/--rst" by the man pages and docs/netmirror.rst (generated, checked
 * by `make check`).  No dependencies: only X-macros and string literals.
 *
 * Adding a table option: one row in NM_OPTIONS plus a typed field where the
 * option is stored (struct nm_dev in the kernel, struct nm_table in
 * libdmnet), then bump NM_TARGET_MINOR.  See docs/design.md.
 *
 * Rules shared by kernel and library (the canonical reprint is the
 * contract, so parsing is strict):
 *   - keywords, enum words and message words match exactly (lower case);
 *   - numbers are decimal digits only, no sign, no leading zero (except "0"
 *     itself), and must fit the row's min..max (32 bits);
 *   - each option may be given once; the reprint lists the options that
 *     were given, in row order, with their canonical value.
 */
#ifndef NM_PARAMS_H
#define NM_PARAMS_H

/* Target version ("dmsetup targets"); bump the minor with every change. */
#define NM_TARGET_MAJOR		1
#define NM_TARGET_MINOR		18
#define NM_TARGET_PATCH		22

/* "meta internal" (a value, not a row: the meta row is 1.2) needs 1.11. */
#define NM_META_INTERNAL	"internal"
#define NM_META_INTERNAL_SINCE	11

/* Value types of table options. */
enum nm_param_type {
	NM_PT_ADDR,		/* a.b.c.d:port or [v6]:port */
	NM_PT_ENUM,		/* one of the words in the row's word list */
	NM_PT_DEV,		/* a block device path or major:minor */
	NM_PT_POW2,		/* a power of two in min..max */
	NM_PT_U32,		/* a decimal number in min..max */
	NM_PT_KEYDESC,		/* a key description, min..max characters */
};

/*
 * Split-brain recovery policies (after_sb_0pri, after_sb_1pri; see
 * nm_gens_after_sb() in nm_gens.h): enum value = index of the word.
 */
#define NM_ASB0_LIST	"disconnect|discard_younger_primary|"		\
			"discard_older_primary|discard_zero_changes|"	\
			"discard_least_changes"
enum nm_asb0 {
	NM_ASB0_DISCONNECT,
	NM_ASB0_DISCARD_YOUNGER_PRIMARY,
	NM_ASB0_DISCARD_OLDER_PRIMARY,
	NM_ASB0_DISCARD_ZERO_CHANGES,
	NM_ASB0_DISCARD_LEAST_CHANGES,
};

#define NM_ASB1_LIST	"disconnect|consensus|discard_secondary"
enum nm_asb1 {
	NM_ASB1_DISCONNECT,
	NM_ASB1_CONSENSUS,
	NM_ASB1_DISCARD_SECONDARY,
};

/*
 * Table options, in canonical (reprint) order.
 *
 * X(keyword, ID, type, min, max, default, since, value_help, words, want,
 *   help)
 *   keyword     the word in the table line (and the config-file key)
 *   ID          suffix of NM_OPT_<ID>, the option's index
 *   type        NM_PT_<type>
 *   min, max    numbers: range; KEYDESC: length; others 0
 *   default     numbers: the value when absent; ENUM: index into words
 *   since       target minor version that introduced the option
 *   value_help  what the value looks like, for usage and errors
 *   words       ENUM: the accepted words separated by '|', in the order of
 *               their index (role: the wire's enum nm_role); others ""
 *   want        the kernel's (and libdmnet's) refusal of a bad value is
 *               exactly "Invalid <keyword> (want <want>)"
 *   help        one line for usage, man and rst
 */
#define NM_OPTIONS(X)							\
	X(listen, LISTEN, ADDR, 0, 0, 0, 1, "ADDR:PORT", "", "a.b.c.d:port or [v6]:port",	\
	  "local address to listen on (default: any address, the peer's port)") \
	X(role, ROLE, ENUM, 0, 1, 0, 1, "primary|secondary",		\
	  "secondary|primary", "primary or secondary",			\
	  "role at creation; only \"role primary\" is reprinted")	\
	X(meta, META, DEV, 0, 0, 0, 2, "DEV|internal", "", "a block device other than the local device, or internal",	\
	  "persistent out-of-sync bitmap: on a metadata device (not the local device), or internal (1.11): at the front of the local device") \
	X(region_size, REGION_SIZE, POW2, 8, 2048, 1024, 2, "SECTORS", "", "a power of two, 8..2048 sectors",	\
	  "bitmap granularity in 512-byte sectors (power of two)")	\
	X(sync, SYNC, ENUM, 0, 1, 0, 2, "full|none", "full|none", "full or none",	\
	  "initial sync without metadata: full copy, or trust equal devices") \
	X(resync_rate, RESYNC_RATE, U32, 0, 4294967295u, 0, 2, "KIB_PER_S", "", "KiB/s, 0 = adaptive",	\
	  "resync rate limit in KiB/s; 0 adapts to application writes") \
	X(timeout, TIMEOUT, U32, 500, 600000, 6000, 3, "MS", "", "500..600000 ms",	\
	  "peer silent this long (ms): the link is declared dead")	\
	X(ping, PING, U32, 100, 60000, 2000, 3, "MS", "", "100..60000 ms",	\
	  "idle link: send a ping after this many ms (< timeout)")	\
	X(on_io_error, ON_IO_ERROR, ENUM, 0, 1, 0, 4, "detach|pass_on",	\
	  "detach|pass_on", "detach or pass_on",	\
	  "local disk error: detach and go on from the peer, or fail the bio") \
	X(integrity, INTEGRITY, ENUM, 0, 0, 0, 3, "crc32c", "crc32c", "crc32c",	\
	  "checksum every packet (both nodes must agree)")		\
	X(secret, SECRET, KEYDESC, 1, 63, 0, 3, "KEY_DESC", "", "a logon key description, 1..63 characters",	\
	  "logon key for HMAC-SHA256 peer authentication (both nodes)")	\
	X(after_sb_0pri, AFTER_SB_0PRI, ENUM, 0, 4, 0, 7, NM_ASB0_LIST,	\
	  NM_ASB0_LIST, "one of " NM_ASB0_LIST,			\
	  "split brain found with no primary: refuse, or whose changes go") \
	X(after_sb_1pri, AFTER_SB_1PRI, ENUM, 0, 2, 0, 7, NM_ASB1_LIST,	\
	  NM_ASB1_LIST, "one of " NM_ASB1_LIST,			\
	  "split brain found with one primary: refuse, or whose changes go") \
	X(fencing, FENCING, ENUM, 0, 1, 0, 7, "none|freeze", "none|freeze",	\
	  "none or freeze",						\
	  "a primary that loses its peer holds writes until resume_io or the peer is back") \
	X(csums, CSUMS, ENUM, 0, 2, 0, 12, "none|crc32c|sha256",	\
	  "none|crc32c|sha256", "none, crc32c or sha256",		\
	  "checksum-based resync: the target compares a digest per 4 KiB block, only differing blocks are sent (the resync source's setting decides)") \
	X(verify_alg, VERIFY_ALG, ENUM, 0, 1, 0, 12, "crc32c|sha256",	\
	  "crc32c|sha256", "crc32c or sha256",				\
	  "digest of online verify (the verify source's setting decides)") \
	X(max_buffers, MAX_BUFFERS, U32, 1024, 1048576, 16384, 15, "KIB", "", "1024..1048576 KiB",	\
	  "memory a secondary holds for received writes not yet on its disk (KiB); beyond it, it reads no more and TCP holds the primary back")

enum nm_opt_id {
#define NM_OPT_ENUM_ROW(kw, id, ...) NM_OPT_##id,
	NM_OPTIONS(NM_OPT_ENUM_ROW)
#undef NM_OPT_ENUM_ROW
	NM_OPT_COUNT
};

/* Words of the two positional arguments (index = wire value). */
#define NM_PROTOCOL_LIST	"A|B|C"
#define NM_ORDERING_LIST	"flush|drain|none"

/* Word @idx of a "|" list such as the two above: its start, *@len bytes. */
static inline const char *nm_word_at(const char *w, unsigned int idx,
				     int *len)
{
	const char *e;

	while (idx-- && *w) {
		while (*w && *w != '|')
			w++;
		if (*w)
			w++;
	}
	for (e = w; *e && *e != '|'; e++)
		;
	*len = (int)(e - w);
	return w;
}

/*
 * Target messages ("dmsetup message <dev> 0 <word> [<arg>]").
 * X(word, ID, nargs, since, arg_help, want, help)
 *   want: a bad argument is refused with "Invalid <word> (want <want>)";
 *   an unknown word or a wrong argument count with "unknown message".
 */
#define NM_MESSAGES(X)							\
	X(primary, PRIMARY, 0, 1, "", "",				\
	  "become primary (refused while the peer is primary, or the disk is outdated, inconsistent or detached)") \
	X(secondary, SECONDARY, 0, 1, "", "",			\
	  "become secondary (refused while this node is a resync source)") \
	X(connect, CONNECT, 0, 1, "", "", "(re)connect to the peer")	\
	X(disconnect, DISCONNECT, 0, 1, "", "",			\
	  "drop the link and stay standalone")				\
	X(resync_rate, RESYNC_RATE, 1, 2, "KIB_PER_S", "KiB/s, 0 = adaptive",	\
	  "change the resync rate limit (0 = adaptive)")		\
	X(pause_resync, PAUSE_RESYNC, 0, 2, "", "", "pause a running resync") \
	X(resume_resync, RESUME_RESYNC, 0, 2, "", "", "resume a paused resync") \
	X(attach, ATTACH, 0, 4, "", "",				\
	  "reattach the local device after a detach (resyncs from the peer)") \
	X(discard_my_data, DISCARD_MY_DATA, 0, 6, "", "",		\
	  "at the next connect, resolve a split brain by replacing this node's changes with the peer's") \
	X(force_primary, FORCE_PRIMARY, 0, 7, "", "",			\
	  "become primary even with an outdated or inconsistent disk (not while connected to an uptodate peer)") \
	X(outdate, OUTDATE, 0, 7, "", "",				\
	  "a disconnected secondary marks its data outdated (a fence handler runs it)") \
	X(resume_io, RESUME_IO, 0, 7, "", "",			\
	  "fencing freeze: the peer is fenced, release the held writes") \
	X(invalidate, INVALIDATE, 0, 7, "", "",			\
	  "a secondary discards its data: inconsistent, all of it resynced from the peer") \
	X(latency, LATENCY, 0, 8, "", "",				\
	  "print the write path's stage latencies (count, p50/p90/p99/max in us) since the load or latency_reset") \
	X(latency_reset, LATENCY_RESET, 0, 8, "", "", "zero the stage latencies") \
	X(verify, VERIFY, 0, 10, "", "",				\
	  "online verify: compare both copies block by block (4 KiB, by verify_alg) while in use; differing blocks are counted, logged and marked out of sync, and the next connect resyncs them (run on the primary)") \
	X(verify_range, VERIFY_RANGE, 2, 10, "START_SECTOR SECTORS",	\
	  "START_SECTOR SECTORS, decimal",				\
	  "verify only sectors START_SECTOR.. (SECTORS of them), widened to 4 KiB blocks") \
	X(verify_stop, VERIFY_STOP, 0, 10, "", "", "stop a running verify")

enum nm_msg_id {
#define NM_MSG_ENUM_ROW(w, id, ...) NM_MSG_##id,
	NM_MESSAGES(NM_MSG_ENUM_ROW)
#undef NM_MSG_ENUM_ROW
	NM_MSG_COUNT
};

/*
 * Status (STATUSTYPE_INFO) fields, in order; new fields are only appended.
 * X(name, since, help); name is also the key in "nmsetup status --json"
 * (disks and regions are split there into disk/peer_disk and
 * in_sync_regions/total_regions).
 */
#define NM_STATUS_FIELDS(X)						\
	X(role, 1, "this node's role: primary|secondary")		\
	X(connection, 1, "connection state word")				\
	X(disks, 1, "local/peer disk state words")			\
	X(regions, 1, "regions in sync / all regions")			\
	X(writes_sent, 1, "writes sent to the peer")			\
	X(writes_received, 1, "writes received from the peer")		\
	X(pending, 1, "writes the peer has not yet acknowledged")	\
	X(bytes_sent, 1, "bytes sent")					\
	X(bytes_received, 1, "bytes received")				\
	X(writes_rejected, 1, "writes the peer refused")		\
	X(last_error, 1, "last error word, or \"-\"")			\
	X(resync_kibs, 2, "resync rate now, KiB/s")			\
	X(eta_seconds, 2, "resync time left, seconds")			\
	X(resync_bytes, 2, "resync bytes sent or received")		\
	X(generation, 7, "this node's current data generation (16 hex digits), or \"-\" (none yet)") \
	X(io, 7, "running, or frozen (fencing freeze: writes held until resume_io or the peer is back)") \
	X(verify, 10, "online verify: none (never ran), running, done, or stopped (verify_stop, a link loss, an error)") \
	X(verify_sectors, 10, "sectors compared so far by the running or last verify") \
	X(verify_total, 10, "sectors in the running or last verify's range")	\
	X(verify_diffs, 10, "4 KiB blocks the running or last verify found different") \
	X(verify_kibs, 10, "verify rate now, KiB/s")			\
	X(verify_eta, 10, "verify time left, seconds")			\
	X(resync_marked, 12, "bytes of the regions the running or last resync began with") \
	X(resync_compared, 12, "bytes the running or last resync compared by digest (csums)") \
	X(resync_sent, 12, "data bytes the running or last resync sent (source) or received (target)") \
	X(unconfirmed, 13, "regions with writes sent to the peer and not yet confirmed stable there (a stable point's P_SYNC_ACK); out of sync if the link ends now")

enum nm_status_field_id {
#define NM_SF_ENUM_ROW(name, ...) NM_SF_##name,
	NM_STATUS_FIELDS(NM_SF_ENUM_ROW)
#undef NM_SF_ENUM_ROW
	NM_SF_COUNT
};

/* Connection state words (status field "cstate"), in enum order. */
#define NM_CSTATE_WORDS(X)						\
	X(STANDALONE, standalone)	/* not connected, not trying */	\
	X(CONNECTING, connecting)	/* listening / connecting */	\
	X(CONNECTED, connected)		/* handshake done, replicating */ \
	X(SYNC_SOURCE, sync_source)	/* connected, sending resync */	\
	X(SYNC_TARGET, sync_target)	/* connected, receiving resync */

/* Disk state words, in wire order (enum nm_disk in nm_wire.h). */
#define NM_DISK_WORDS(X)						\
	X(UNKNOWN, unknown)						\
	X(UPTODATE, uptodate)						\
	X(INCONSISTENT, inconsistent)					\
	X(OUTDATED, outdated)						\
	X(DISKLESS, diskless)

/* Role words, in wire order (enum nm_role in nm_wire.h). */
#define NM_ROLE_WORDS(X)						\
	X(SECONDARY, secondary)						\
	X(PRIMARY, primary)

#endif
