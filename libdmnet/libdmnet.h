/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libdmnet - userspace library for the netmirror device-mapper target.
 *
 * Three layers, in three groups of files:
 *
 *   table.c, message.c, status.c Pure models: parse/validate/format the
 *   config.c, util.c, events.c   target's table line, messages, status line,
 *                                the event lines of "nmsetup events"
 *                                and /etc/netmirror.conf.  No ioctls, no
 *                                libdevmapper, no allocation on the parse
 *                                path: unit-testable and fuzzable as any user.
 *   dm.c                         Device operations through libdevmapper only
 *                                (create/reload/remove/status/message/
 *                                version/list), modelled on cryptsetup's
 *                                lib/libdevmapper.c.  Needs root.
 *   stack.c                      Helpers for stacking: size of a block device
 *                                (BLKGETSIZE64), default names/UUIDs, and the
 *                                conventions for using a netmirror device as an
 *                                LVM physical volume.
 *
 * Error reporting: every function that can fail takes (char *err, size_t
 * errlen) and writes one human-readable line there (no trailing newline);
 * err may be NULL.  Functions return 0 on success and a negative errno-style
 * value on failure (-EINVAL for parse errors).
 *
 * THE CONTRACT (must match dm-netmirror.ko exactly; see docs/netmirror.rst):
 * both sides are built from dm-mirror-net/nm_params.h (installed next to
 * this header): the option rows (keyword, type, range, default, target
 * version), the messages, the status fields and the state words.
 *
 * Table line:
 *   <start> <len> netmirror <local_dev> <peer_addr> <protocol> <ordering>
 *                           [<#opt_args> <opt_args>...]
 *
 *   local_dev  absolute path ("/...") or "major:minor" (decimal)
 *   peer_addr  "a.b.c.d:port" or "[ipv6]:port", port 1..65535
 *   protocol   A | B | C
 *   ordering   flush | drain | none
 *   options    "<count> <word>..." where count == number of following words
 *              (0..2 * NM_OPT_COUNT, even); each keyword at most once.  The
 *              kernel reprints options in NM_OPTIONS row order, omits
 *              "role secondary" and omits the group when no option is set.
 *
 * Strict syntax, as the kernel: keywords, enum words and message words
 * match exactly (lower case); numbers (option values, the option count,
 * IPv4 octets, ports) are decimal digits only, no sign, no leading zero
 * ("0" itself is fine), within the row's min..max.  So every accepted line
 * has exactly one canonical spelling and "table as loaded" == "table as
 * reprinted" for canonical input.
 *
 * Errors of nm_table_parse() for what the kernel also checks are the
 * kernel's texts, byte for byte (what "dmsetup create" prints after
 * "netmirror: "): "Not enough arguments (want ...)", "Cannot open local
 * device" (bad syntax only), "Unknown optional argument", "Duplicate optional
 * argument: <kw>", "Invalid <kw> (want <want>)", "Optional argument is
 * missing its value", "Invalid number of optional arguments", "Optional
 * argument count does not match the words given", "ping must be shorter
 * than timeout", "Invalid peer address (want ...)", "Invalid protocol (want
 * A, B or C)", "Invalid ordering (want flush, drain or none)", "Cannot open
 * metadata device" (bad syntax only), "Listen and peer addresses must be of
 * one family".  The shared
 * corpus tests/corpus/table-lines.txt holds the cases.
 *
 * Status line (after the target name): the fields of NM_STATUS_FIELDS, in
 * order; older modules may stop after any field from the 4th on; words of
 * newer modules are kept verbatim in nm_status.extra.
 */
#ifndef LIBDMNET_H
#define LIBDMNET_H

#include <stddef.h>
#include <stdint.h>

#include "nm_params.h"	/* NM_TARGET_MAJOR/MINOR, NM_OPT_*, NM_MSG_*, NM_SF_* */

#ifdef __cplusplus
extern "C" {
#endif

#define NM_TARGET_NAME		"netmirror"
#define NM_UUID_PREFIX		"NETMIRROR-"	/* dm UUID = prefix + name */
#define NM_ERRLEN		256		/* a good size for err buffers */

#define NM_DEV_MAX		1024	/* local_dev / meta path incl. NUL */
#define NM_ADDR_MAX		64	/* "[ipv6]:port" incl. NUL */
#define NM_SECRET_MAX		256	/* key description incl. NUL */
#define NM_LINE_MAX		4096	/* formatted table/status line */
#define NM_NAME_MAX		128	/* dm device name incl. NUL (DM_NAME_LEN) */
#define NM_UUID_MAX		129	/* dm uuid incl. NUL (DM_UUID_LEN) */

/* ------------------------------------------------------------------ */
/* Table model (table.c)                                               */
/* ------------------------------------------------------------------ */

/*
 * libdmnet's enums carry the dmnet_/DMNET_ prefix so that a file can
 * include both this header and nm_wire.h; where the wire has the same
 * notion the values are the wire's (protocol, ordering, role, disk).
 */
enum dmnet_protocol { DMNET_PROTO_A, DMNET_PROTO_B, DMNET_PROTO_C };
enum dmnet_ordering { DMNET_ORDER_FLUSH, DMNET_ORDER_DRAIN, DMNET_ORDER_NONE };
/* Values of enum options = index of the word in the row's words (for
 * role that is the wire's value too). */
enum dmnet_role {
#define DMNET_ROLE_ROW(ID, word) DMNET_ROLE_##ID,
	NM_ROLE_WORDS(DMNET_ROLE_ROW)
#undef DMNET_ROLE_ROW
};
enum dmnet_sync { DMNET_SYNC_FULL, DMNET_SYNC_NONE };
enum dmnet_io_error { DMNET_IOERR_DETACH, DMNET_IOERR_PASS_ON };
enum dmnet_integrity { DMNET_INTEGRITY_CRC32C };
/* Split-brain policies: nm_params.h's enum nm_asb0 / nm_asb1 values. */
enum dmnet_after_sb_0pri {
	DMNET_ASB0_DISCONNECT = NM_ASB0_DISCONNECT,
	DMNET_ASB0_DISCARD_YOUNGER_PRIMARY = NM_ASB0_DISCARD_YOUNGER_PRIMARY,
	DMNET_ASB0_DISCARD_OLDER_PRIMARY = NM_ASB0_DISCARD_OLDER_PRIMARY,
	DMNET_ASB0_DISCARD_ZERO_CHANGES = NM_ASB0_DISCARD_ZERO_CHANGES,
	DMNET_ASB0_DISCARD_LEAST_CHANGES = NM_ASB0_DISCARD_LEAST_CHANGES,
};
enum dmnet_fencing { DMNET_FENCING_NONE, DMNET_FENCING_FREEZE };
/* 1.12: checksum-based resync and verify digests (the wire's NM_CSUM_*). */
enum dmnet_csums { DMNET_CSUMS_NONE, DMNET_CSUMS_CRC32C, DMNET_CSUMS_SHA256 };
enum dmnet_verify_alg { DMNET_VERIFY_CRC32C, DMNET_VERIFY_SHA256 };
enum dmnet_after_sb_1pri {
	DMNET_ASB1_DISCONNECT = NM_ASB1_DISCONNECT,
	DMNET_ASB1_CONSENSUS = NM_ASB1_CONSENSUS,
	DMNET_ASB1_DISCARD_SECONDARY = NM_ASB1_DISCARD_SECONDARY,
};

/* A network endpoint as written in a table ("1.2.3.4:7789", "[::1]:7789"). */
struct nm_addr {
	int family;			/* AF_INET or AF_INET6; 0 = unset */
	uint8_t addr[16];		/* network byte order; v4 uses 4 bytes */
	uint16_t port;			/* host byte order, 1..65535 */
};

/* Bit of option id (enum nm_opt_id of nm_params.h) in nm_table.opts. */
#define NM_OPT_BIT(id)	(1u << (id))

/*
 * One typed field per NM_OPTIONS row, named as the keyword:
 *   ADDR struct nm_addr, ENUM an enum (values above), DEV char[NM_DEV_MAX],
 *   POW2 and U32 uint32_t, KEYDESC char[NM_SECRET_MAX].
 * nm_table_init() sets every field to the row's default.
 */
struct nm_table {
	/* Only meaningful for full lines (nm_table_parse_line/format_line). */
	uint64_t start;			/* sectors */
	uint64_t len;			/* sectors */

	char local_dev[NM_DEV_MAX];
	struct nm_addr peer;
	enum dmnet_protocol protocol;
	enum dmnet_ordering ordering;

	unsigned opts;			/* NM_OPT_BIT()s of options given;
					 * the role bit only for primary */
	struct nm_addr listen;
	enum dmnet_role role;
	char meta[NM_DEV_MAX];
	uint32_t region_size;		/* sectors */
	enum dmnet_sync sync;
	uint32_t resync_rate;		/* KiB/s, 0 = adaptive */
	uint32_t timeout;		/* ms */
	uint32_t ping;			/* ms, < timeout */
	enum dmnet_io_error on_io_error;
	enum dmnet_integrity integrity;
	char secret[NM_SECRET_MAX];	/* logon key description */
	enum dmnet_after_sb_0pri after_sb_0pri;
	enum dmnet_after_sb_1pri after_sb_1pri;
	enum dmnet_fencing fencing;
	enum dmnet_csums csums;
	enum dmnet_verify_alg verify_alg;
	uint32_t max_buffers;		/* KiB */
};

/* One NM_OPTIONS row, plus where its value lives in struct nm_table. */
struct nm_opt_def {
	const char *keyword;
	enum nm_opt_id id;
	enum nm_param_type type;
	uint32_t min, max;		/* numbers: range; KEYDESC: length */
	uint32_t def;			/* numbers: default; ENUM: word index */
	unsigned min_minor;		/* target 1.<min_minor> introduced it */
	const char *value_help;		/* e.g. "MS", "primary|secondary" */
	const char *words;		/* ENUM: "a|b"; others "" */
	const char *want;		/* "Invalid <kw> (want <want>)" */
	const char *help;		/* one line */
	size_t offset, size;		/* the field in struct nm_table */
};

/* The option table, in canonical order; *n receives the entry count. */
const struct nm_opt_def *nm_opt_defs(size_t *n);
/* Look up an option by keyword (exact match); NULL if unknown. */
const struct nm_opt_def *nm_opt_find(const char *keyword);
/* Word i (0-based) of an ENUM option into buf; -ENOENT past the last. */
int nm_opt_word(const struct nm_opt_def *d, unsigned i, char *buf, size_t len);
/* Parse a value into its field of t per the row's type (t->opts is not
 * touched); the error is "Invalid <kw> (want <want>)". */
int nm_opt_parse(const struct nm_opt_def *d, struct nm_table *t,
		 const char *val, char *err, size_t errlen);
/* Print the field's value; returns the length, -ENOSPC or -EINVAL. */
int nm_opt_format(const struct nm_opt_def *d, const struct nm_table *t,
		  char *buf, size_t len);

/* Fill *t: protocol C, ordering flush, no options, every option field at
 * its row's default, start 0, len 0. */
void nm_table_init(struct nm_table *t);

/* Parse target params (everything after "netmirror").  On error returns
 * -EINVAL and writes the kernel's text (see above) where the kernel checks
 * the same thing. */
int nm_table_parse(const char *params, struct nm_table *t,
		   char *err, size_t errlen);
/* Parse a whole table line "<start> <len> netmirror <params>". */
int nm_table_parse_line(const char *line, struct nm_table *t,
			char *err, size_t errlen);

/* Cross-field checks that the syntax alone cannot express (meta !=
 * local_dev, listen/peer family, ping < timeout).  parse calls it; call it
 * yourself after filling a struct by hand. */
int nm_table_validate(const struct nm_table *t, char *err, size_t errlen);

/* Format canonical params / a whole line.  Returns the string length, or
 * -ENOSPC if buf is too small, -EINVAL if t fails validation. */
int nm_table_format(const struct nm_table *t, char *buf, size_t len);
int nm_table_format_line(const struct nm_table *t, char *buf, size_t len);

/* 1 if t has "meta internal" (the metadata at the front of local_dev). */
int nm_table_meta_internal(const struct nm_table *t);

/* Lowest target minor version (major NM_TARGET_MAJOR) that accepts t. */
unsigned nm_table_required_minor(const struct nm_table *t);
/* -ENOTSUP with "option \"meta\" needs netmirror 1.2, loaded module is 1.1"
 * if the loaded module (major.minor) cannot take this table. */
int nm_table_check_version(const struct nm_table *t, unsigned major,
			   unsigned minor, char *err, size_t errlen);

/* Set an option from keyword + value as if it were in the table (used by
 * the CLI and the config file): "Invalid <kw> (want ...)", or
 * "Unknown optional argument \"kw\" (known: ...)". */
int nm_table_set_option(struct nm_table *t, const char *keyword,
			const char *value, char *err, size_t errlen);

/* Helpers shared with the CLI / config parser. */
int nm_parse_addr(const char *s, struct nm_addr *a, char *err, size_t errlen);
int nm_format_addr(const struct nm_addr *a, char *buf, size_t len);
int nm_parse_dev(const char *s, char *out, size_t outlen,
		 char *err, size_t errlen);
int nm_parse_u64(const char *s, uint64_t *v);	/* strict decimal */
/* Strict decimal in min..max (no sign, no leading zero, 32 bits). */
int nm_parse_u32(const char *s, uint32_t min, uint32_t max, uint32_t *v);
const char *nm_protocol_str(enum dmnet_protocol p);
const char *nm_ordering_str(enum dmnet_ordering o);
const char *nm_role_str(enum dmnet_role r);
int nm_protocol_parse(const char *s, enum dmnet_protocol *p);
int nm_ordering_parse(const char *s, enum dmnet_ordering *o);
int nm_role_parse(const char *s, enum dmnet_role *r);

/* ------------------------------------------------------------------ */
/* Target messages (message.c)                                         */
/* ------------------------------------------------------------------ */

/* One NM_MESSAGES row. */
struct nm_msg_def {
	const char *word;
	enum nm_msg_id id;
	unsigned nargs;
	unsigned min_minor;
	const char *arg_help;		/* "" without an argument */
	const char *want;
	const char *help;
};
const struct nm_msg_def *nm_msg_defs(size_t *n);
const struct nm_msg_def *nm_msg_find(const char *word);
/* Check a message as the kernel parses it ("resync_rate 100"): -EINVAL
 * with "unknown message" (unknown word, wrong argument count) or
 * "Invalid <word> (want <want>)" (bad argument). */
int nm_message_check(const char *msg, char *err, size_t errlen);

/* ------------------------------------------------------------------ */
/* Status model (status.c)                                             */
/* ------------------------------------------------------------------ */

enum dmnet_conn {
#define DMNET_CONN_ROW(ID, word) DMNET_CONN_##ID,
	NM_CSTATE_WORDS(DMNET_CONN_ROW)
#undef DMNET_CONN_ROW
	DMNET_CONN_OTHER	/* word unknown to this library: see conn_str */
};
/* Disk states; values are the wire's (enum nm_disk of nm_wire.h). */
enum dmnet_disk {
#define DMNET_DISK_ROW(ID, word) DMNET_DISK_##ID,
	NM_DISK_WORDS(DMNET_DISK_ROW)
#undef DMNET_DISK_ROW
	DMNET_DISK_OTHER	/* word unknown to this library */
};

#define NM_STATUS_WORD_MAX	32
#define NM_STATUS_EXTRA_MAX	1024

/* Status fields: enum nm_status_field_id (NM_SF_*) of nm_params.h;
 * nm_status.ngroups counts those present. */
#define NM_STATUS_MIN_GROUPS	4

struct nm_status {
	unsigned ngroups;		/* known fields present (4..NM_SF_COUNT) */
	enum dmnet_role role;
	enum dmnet_conn conn;
	enum dmnet_disk disk, peer_disk;
	/* The words as printed; always filled, useful for NM_*_OTHER. */
	char role_str[NM_STATUS_WORD_MAX];
	char conn_str[NM_STATUS_WORD_MAX];
	char disk_str[NM_STATUS_WORD_MAX];
	char peer_disk_str[NM_STATUS_WORD_MAX];
	uint64_t in_sync_regions, total_regions;
	uint64_t writes_sent, writes_received, pending;
	uint64_t bytes_sent, bytes_received;
	uint64_t writes_rejected;
	/* "-" or one word (peer_timeout, bad_handshake, ...); "" if absent */
	char last_error[NM_STATUS_WORD_MAX * 2];
	/* 1.2.0: current resync rate (KiB/s, 0 = no resync running), the
	 * kernel's ETA in seconds, bytes copied by resync so far. */
	uint64_t resync_kibs, eta_seconds, resync_bytes;
	/* 1.7.0: the current data generation, 16 hex digits, or "-" (none
	 * yet); "" if absent (older module). */
	char generation[17];
	/* 1.7.0: "running", or "frozen" (fencing freeze holds writes);
	 * "" if absent. */
	char io[NM_STATUS_WORD_MAX];
	/* 1.10.0: online verify: "none", "running", "done" or "stopped"
	 * ("" if absent); sectors compared, sectors in the range, 4 KiB
	 * blocks found different, rate (KiB/s, 0 when not running), ETA (s). */
	char verify[NM_STATUS_WORD_MAX];
	uint64_t verify_sectors, verify_total, verify_diffs;
	uint64_t verify_kibs, verify_eta;
	/* 1.12.0: the running or last resync: bytes of the regions it began
	 * with, bytes compared by digest (csums), data bytes sent (source)
	 * or received (target). */
	uint64_t resync_marked, resync_compared, resync_sent;
	/* 1.13.0: regions holding writes sent to the peer that it has not
	 * yet confirmed stable (the transfer log; 0 on a node that sends no
	 * writes): out of sync if the link ends now. */
	uint64_t unconfirmed;
	/* Words after the last known group (newer module), space-joined. */
	unsigned nextra;
	char extra[NM_STATUS_EXTRA_MAX];
};

/* Parse status params (after the target name).  Unknown role/state words
 * are accepted if they look like identifiers ([a-z_]+) and map to *_OTHER;
 * the role must be primary or secondary. */
int nm_status_parse(const char *params, struct nm_status *s,
		    char *err, size_t errlen);
/* Reprint (only the groups present, then the extra words). */
int nm_status_format(const struct nm_status *s, char *buf, size_t len);
/* Print as one JSON object (no trailing newline). */
int nm_status_format_json(const struct nm_status *s, const char *name,
			  char *buf, size_t len);
/* Sync progress in percent (100.0 when total_regions is 0). */
double nm_status_sync_percent(const struct nm_status *s);
/* 1 if in sync and connected (what wait-sync waits for). */
int nm_status_is_synced(const struct nm_status *s);
const char *nm_conn_str(enum dmnet_conn c);
const char *nm_disk_str(enum dmnet_disk d);

/* ------------------------------------------------------------------ */
/* Events and progress (events.c): what "nmsetup events" and "nmsetup   */
/* status" print; pure code                                            */
/* ------------------------------------------------------------------ */

/* One device's state as it is followed: its status and dm's flag. */
struct nm_event_state {
	struct nm_status s;
	int suspended;			/* 1: suspended (dm INFO) */
};

#define NM_EVENT_JSON		0x1	/* one JSON object per line */
#define NM_EVENT_CREATE		0x2	/* prev NULL: "create", not "exists" */

/*
 * The event lines (each ending in '\n') for device NAME going from *prev
 * to *cur, in the form of drbdsetup events2:
 *   "exists device name:N role:.. connection:.. disk:.. peer_disk:..
 *    suspended:yes|no io:.. last_error:.. generation:.. verify:..
 *    sync_percent:.. in_sync_regions:.. total_regions:.."   (prev NULL;
 *    "create" with NM_EVENT_CREATE)
 *   "change device name:N <the state keys that changed>"
 *   "progress device name:N sync_percent:.. in_sync_regions:..
 *    total_regions:.. resync_kibs:.. eta_seconds:.."   when the regions in
 *    sync changed (or, after exists, while a resync runs), and/or
 *    "verify_percent:.. verify_sectors:.. verify_total:.. verify_diffs:..
 *    verify_kibs:.. verify_eta:.." while a verify runs or as it ends
 *   "destroy device name:N"   (cur NULL)
 * NM_EVENT_JSON: {"event":"change","name":"N",...} with the same keys
 * (numbers as numbers, "suspended" true/false).  time (or NULL) prefixes
 * each line / is the "time" key.  Keys of fields the module lacks are
 * left out.  Returns the length, 0 if nothing changed, or -ENOSPC.
 */
int nm_event_lines(const char *name, const struct nm_event_state *prev,
		   const struct nm_event_state *cur, unsigned flags,
		   const char *time, char *buf, size_t len);
/* The line after the initial dump: "exists -" / {"event":"exists"}. */
int nm_event_exists_end(unsigned flags, const char *time, char *buf,
			size_t len);

/* "[####....]  45.0%": a bar of width cells and the percentage. */
int nm_progress_bar(double pct, unsigned width, char *buf, size_t len);

enum nm_progress_kind { NM_PROGRESS_RESYNC, NM_PROGRESS_VERIFY };
/*
 * A person's progress line for a running resync (sync_source/sync_target)
 * or verify: the bar, then "  4.0 MiB/s  ETA 0:00:12" (the kernel's rate
 * and estimate; "-- MiB/s  ETA --:--:--" before it has measured one),
 * and for a verify "  N blocks differ".  Returns the length, 0 when that
 * kind is not running, or -ENOSPC.
 */
int nm_status_progress(const struct nm_status *s, enum nm_progress_kind k,
		       unsigned width, char *buf, size_t len);

/* ------------------------------------------------------------------ */
/* Configuration file (config.c), see netmirror.conf(5)                */
/* ------------------------------------------------------------------ */

#define NM_CONF_DEFAULT		"/etc/netmirror.conf"
#define NM_CONF_MAX_RES		32
#define NM_CONF_MAX_HOSTS	2
#define NM_CONF_MAX_OPTS	16

struct nm_conf_opt {
	char keyword[32];
	char value[256];
	unsigned line;
};

struct nm_conf_host {
	char name[NM_NAME_MAX];		/* "on NAME" */
	char device[NM_NAME_MAX];	/* dm name, e.g. nm0 */
	char disk[NM_DEV_MAX];		/* local_dev */
	char address[NM_ADDR_MAX];	/* this host's address:port */
	uint64_t size;			/* sectors; 0 = size of disk */
	unsigned nopts;			/* per-host options (role, meta...) */
	struct nm_conf_opt opts[NM_CONF_MAX_OPTS];
	unsigned line;
};

struct nm_conf_resource {
	char name[NM_NAME_MAX];
	char protocol[8];		/* "" = default */
	char ordering[8];
	unsigned nopts;			/* resource-wide options */
	struct nm_conf_opt opts[NM_CONF_MAX_OPTS];
	unsigned nhosts;
	struct nm_conf_host hosts[NM_CONF_MAX_HOSTS];
	unsigned line;
};

/* Large (~600 KiB): allocate with calloc, not on the stack. */
struct nm_conf {
	unsigned nres;
	struct nm_conf_resource res[NM_CONF_MAX_RES];
};

/* Parse config text; fname is only used in messages
 * ("netmirror.conf:12: expected ';' after \"C\"").  Checks syntax and
 * values (addresses, devices, option values) but not the host names. */
int nm_conf_parse(const char *text, const char *fname, struct nm_conf *c,
		  char *err, size_t errlen);
/* Read and parse a file (helper around nm_conf_parse). */
int nm_conf_load(const char *path, struct nm_conf *c, char *err, size_t errlen);
const struct nm_conf_resource *nm_conf_find(const struct nm_conf *c,
					    const char *res);
/* Build this host's table for resource r: local_dev = our disk, peer = the
 * other host's address, listen = our address, options = resource options
 * overridden by our host's.  devname receives the dm name; len is set from
 * the host's "size" (0 means: caller fills it from the disk size). */
int nm_conf_build_table(const struct nm_conf_resource *r, const char *host,
			struct nm_table *t, char *devname, size_t devlen,
			char *err, size_t errlen);

/* ------------------------------------------------------------------ */
/* Device operations (dm.c) - libdevmapper, needs root                 */
/* ------------------------------------------------------------------ */

/* Set by nm_dm_*() for stderr logging from libdevmapper (0 = quiet). */
void nm_dm_set_verbose(int level);

/* Target version of the loaded module (DM_DEVICE_LIST_VERSIONS).
 * -ENOENT if the netmirror target is not registered. */
int nm_dm_target_version(unsigned *major, unsigned *minor, unsigned *patch,
			 char *err, size_t errlen);
/* Check major == NM_TARGET_MAJOR and the table's options against the
 * module's minor. */
int nm_dm_check_table_version(const struct nm_table *t, char *err,
			      size_t errlen);

/* Create and activate NAME with UUID NM_UUID_PREFIX NAME (or uuid if not
 * NULL).  Waits for udev unless env DM_DISABLE_UDEV=1. */
int nm_dm_create(const char *name, const char *uuid, const struct nm_table *t,
		 char *err, size_t errlen);
/* Load a new table into the inactive slot, suspend, resume (swap). */
int nm_dm_reload(const char *name, const struct nm_table *t,
		 char *err, size_t errlen);
/* Remove; retries on EBUSY (retries * 100ms).  -ENODEV if absent. */
int nm_dm_remove(const char *name, int retries, char *err, size_t errlen);
/* Status (INFO) into the model. -ENODEV if no such device. */
int nm_dm_status(const char *name, struct nm_status *s, char *err,
		 size_t errlen);
/* The same, and the device's event counter (for nm_dm_wait_event). */
int nm_dm_status_event(const char *name, struct nm_status *s,
		       uint32_t *event_nr, char *err, size_t errlen);
/* What device-mapper's INFO says next to the status (same ioctl). */
struct nm_dm_info {
	uint32_t event_nr;		/* for nm_dm_wait_event */
	int suspended;			/* 1 while suspended */
};
/* Status and INFO of NAME in one call (a status read after event_nr). */
int nm_dm_status_info(const char *name, struct nm_status *s,
		      struct nm_dm_info *info, char *err, size_t errlen);
/* Block until NAME's event counter passes event_nr (a state change: the
 * target calls dm_table_event).  Returns 0, -EINTR if a signal came (the
 * handler must be installed without SA_RESTART), -ENODEV if NAME is gone. */
int nm_dm_wait_event(const char *name, uint32_t event_nr, char *err,
		     size_t errlen);
/* Live table into the model (TABLE). */
int nm_dm_table(const char *name, struct nm_table *t, char *err,
		size_t errlen);
/* Send a target message to sector 0; response (may be "") into resp. */
int nm_dm_message(const char *name, const char *msg, char *resp,
		  size_t resplen, char *err, size_t errlen);
/* 1 if NAME exists, 0 if not, <0 on error. */
int nm_dm_exists(const char *name);
/* Call cb for each device whose (only) target is netmirror. */
typedef int (*nm_dm_list_cb)(const char *name, void *arg);
int nm_dm_list(nm_dm_list_cb cb, void *arg, char *err, size_t errlen);

/* ------------------------------------------------------------------ */
/* Stacking helpers (stack.c)                                          */
/* ------------------------------------------------------------------ */
/*
 * Naming/UUID conventions (so LVM and udev can tell our devices apart):
 *   - dm name: the resource/device name given by the user (e.g. "nm0"),
 *     node /dev/mapper/<name>.
 *   - dm UUID: "NETMIRROR-<name>".  The prefix identifies the owner the
 *     way "CRYPT-" / "LVM-" do; the UUID never changes over reloads.
 *   - Using the result as an LVM PV: run pvcreate on /dev/mapper/<name>
 *     on the primary only.  With "meta internal" the data starts after
 *     the metadata area, the backing disk shows no PV label and no filter
 *     is needed.  Otherwise, on the secondary (and on the primary for the
 *     backing disk) the same PV label is visible on the lower device, so
 *     LVM must be told to ignore it: add a global_filter rejecting the
 *     backing disk, e.g. for disk /dev/vdb
 *         devices { global_filter = [ "r|^/dev/vdb$|" ] }
 *     (nm_stack_lvm_filter() prints that line).  If the backing device
 *     is itself an LV, LVM does not scan it (devices/scan_lvs = 0, the
 *     default), but the peer's netmirror device (secondary) must still be
 *     hidden when both nodes' devices are visible to one LVM: an accept
 *     list such as
 *         devices { global_filter = [ "a|^/dev/vdb$|",
 *                   "a|^/dev/mapper/pvm$|", "r|.*|" ] }
 *     (examples/lvm-stacking.sh, tested by the VM test lvm-stack).
 *   - Stacking over an LV: local_dev may be /dev/VG/LV or major:minor;
 *     size is taken from the LV.  Activate the LV before "up" and
 *     deactivate after "down".
 */

/* Size of a block device in 512-byte sectors (BLKGETSIZE64). Accepts a
 * path or "major:minor" (resolved via /dev/block/M:m). */
int nm_stack_dev_sectors(const char *dev, uint64_t *sectors, char *err,
			 size_t errlen);
/* Fill t->start = 0 and t->len from local_dev (if t->len is 0); with
 * "meta internal" the longest length that fits with its metadata area
 * (nm_layout.h, docs/netmirror.rst "Internal metadata"). */
int nm_stack_fill_size(struct nm_table *t, char *err, size_t errlen);
/* "meta internal": sectors of the metadata area in front of t->len sectors
 * of data (the data starts there on local_dev); 0 without it. */
uint64_t nm_stack_imeta_sectors(const struct nm_table *t);
/* The foreign signature (filesystem, PV, partition table) that the first
 * 4096 bytes of a device show, or NULL (netmirror metadata is not one). */
const char *nm_stack_signature(const unsigned char *block);
/* Before creating a table with "meta internal": local_dev must hold the
 * metadata area and t->len ("...it needs N sectors", -ENOSPC), and show no
 * foreign signature at its start ("<dev> holds a <what> signature...",
 * -EEXIST) unless force, which then clears that first 4 KiB block (the
 * kernel refuses to format over a signature too).  No-op without it. */
int nm_stack_imeta_check(const struct nm_table *t, int force, char *err,
			 size_t errlen);
/* Default dm UUID for NAME ("NETMIRROR-<name>"). */
int nm_stack_uuid(const char *name, char *buf, size_t len);
/* Device node path for NAME ("/dev/mapper/<name>"). */
int nm_stack_node(const char *name, char *buf, size_t len);
/* An lvm.conf global_filter line that hides the backing device. */
int nm_stack_lvm_filter(const char *local_dev, char *buf, size_t len);
/* Validate a dm device name (non-empty, < NM_NAME_MAX, no '/', no
 * whitespace, not "." / ".."). */
int nm_stack_check_name(const char *name, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif
#endif /* LIBDMNET_H */
