// SPDX-License-Identifier: GPL-2.0-only
/*
 * nmsetup - manage netmirror devices (see nmsetup(8), netmirror.conf(5)).
 *
 * Exit codes (stable, documented in nmsetup(8)):
 *   0 ok, 1 usage, 2 config/parse error, 3 device operation failed,
 *   4 timeout, 5 no such device/resource/host, 6 target missing or too old
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "nmsetup.h"

#define NMSETUP_VERSION "1.0.0"

struct cmd {
	const char *name;		/* message commands: the message word */
	int (*fn)(void);
	unsigned flags;			/* F_* */
	int min_args, max_args;		/* max -1 = unlimited */
	const char *args;		/* usage after the command name */
	const char *help;
	int msg;			/* message commands: NM_MSG_*, else -1 */
};

struct nmsetup_args g;

static const struct cmd *cur;
static void cmd_usage(FILE *f, const struct cmd *c);
static void cmd_name(const struct cmd *c, char *buf, size_t len);

void die_usage(const char *fmt, ...)
{
	va_list ap;

	fputs("nmsetup: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	if (cur) {
		fputs("usage: nmsetup ", stderr);
		cmd_usage(stderr, cur);
		fputc('\n', stderr);
	} else
		fprintf(stderr, "try: nmsetup --help\n");
	exit(EX_USAGE);
}

int fail(int code, const char *fmt, ...)
{
	va_list ap;

	fputs("nmsetup: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return code;
}

/* Map a negative errno from libdmnet to an exit code. */
int dm_exit(int r)
{
	switch (-r) {
	case ENODEV:
	case ENXIO:
	case ENOENT:
		return EX_NODEV;
	case ENOTSUP:
		return EX_UNSUPPORTED;
	case EINVAL:
		return EX_CONFIG;
	default:
		return EX_DEVICE;
	}
}

/* ---- dry-run printing -------------------------------------------- */

static void print_quoted(const char *s)
{
	putchar('\'');
	for (; *s; s++) {
		if (*s == '\'')
			fputs("'\\''", stdout);
		else
			putchar(*s);
	}
	putchar('\'');
}

/* ---- table building ----------------------------------------------- */

static int apply_cli_opts(struct nm_table *t)
{
	char err[NM_ERRLEN];
	unsigned i;

	if (g.protocol && nm_protocol_parse(g.protocol, &t->protocol))
		return fail(EX_CONFIG, "--protocol \"%s\": Invalid protocol (want A, B or C)", g.protocol);
	if (g.ordering && nm_ordering_parse(g.ordering, &t->ordering))
		return fail(EX_CONFIG, "--ordering \"%s\": Invalid ordering (want flush, drain or none)", g.ordering);
	for (i = 0; i < g.nopts; i++)
		if (nm_table_set_option(t, g.opts[i].kw, g.opts[i].val, err, sizeof(err)))
			return fail(EX_CONFIG, "%s \"%s\": %s", g.opts[i].flag,
				    g.opts[i].val, err);
	if (g.size) {
		if (nm_parse_u64(g.size, &t->len) || !t->len)
			return fail(EX_CONFIG, "--size \"%s\": must be a sector count > 0", g.size);
		t->start = 0;
	}
	if (nm_table_validate(t, err, sizeof(err)))
		return fail(EX_CONFIG, "%s", err);
	return 0;
}

/* Table from "NAME LOCAL_DEV PEER" + options. */
static int table_from_args(struct nm_table *t)
{
	char err[NM_ERRLEN];
	int r;

	nm_table_init(t);
	if (nm_stack_check_name(g.argv[0], err, sizeof(err)))
		return fail(EX_CONFIG, "NAME: %s", err);
	if (nm_parse_dev(g.argv[1], t->local_dev, sizeof(t->local_dev), err, sizeof(err)))
		return fail(EX_CONFIG, "LOCAL_DEV \"%s\": %s", g.argv[1], err);
	if (nm_parse_addr(g.argv[2], &t->peer, err, sizeof(err)))
		return fail(EX_CONFIG, "PEER \"%s\": %s", g.argv[2], err);
	r = apply_cli_opts(t);
	if (r)
		return r;
	if (!t->len && nm_stack_fill_size(t, err, sizeof(err)))
		return fail(EX_DEVICE, "cannot get the size (use --size): %s", err);
	return 0;
}

static void hostname(char *buf, size_t len)
{
	if (g.host) {
		snprintf(buf, len, "%s", g.host);
		return;
	}
	if (gethostname(buf, len))
		snprintf(buf, len, "localhost");
	buf[len - 1] = '\0';
}

static struct nm_conf *conf;

static int load_conf(void)
{
	char err[NM_ERRLEN];
	const char *path = g.config ? g.config : NM_CONF_DEFAULT;
	int r;

	if (conf)
		return 0;
	conf = calloc(1, sizeof(*conf));
	if (!conf)
		return fail(EX_DEVICE, "out of memory");
	r = nm_conf_load(path, conf, err, sizeof(err));
	if (r) {
		free(conf);
		conf = NULL;
		return fail(r == -ENOENT ? EX_NODEV : EX_CONFIG, "%s", err);
	}
	return 0;
}

/* Table and dm name for resource RES on this host. */
static int table_from_conf(const char *res, struct nm_table *t, char *dev,
			   size_t devlen)
{
	const struct nm_conf_resource *rc;
	char err[NM_ERRLEN], host[NM_NAME_MAX];
	int r;

	r = load_conf();
	if (r)
		return r;
	rc = nm_conf_find(conf, res);
	if (!rc)
		return fail(EX_NODEV, "%s: no resource \"%s\"",
			    g.config ? g.config : NM_CONF_DEFAULT, res);
	hostname(host, sizeof(host));
	r = nm_conf_build_table(rc, host, t, dev, devlen, err, sizeof(err));
	if (r == -ENOENT && !g.host && strchr(host, '.')) {
		*strchr(host, '.') = '\0';	/* try the short host name */
		r = nm_conf_build_table(rc, host, t, dev, devlen, err, sizeof(err));
	}
	if (r)
		return fail(r == -ENOENT ? EX_NODEV : EX_CONFIG, "%s", err);
	if (!t->len && nm_stack_fill_size(t, err, sizeof(err)))
		return fail(EX_DEVICE, "resource %s: cannot get the size: %s", res, err);
	return 0;
}

/* ---- operations (honouring --dry-run) ----------------------------- */

static int do_create(const char *name, const struct nm_table *t)
{
	char line[NM_LINE_MAX], uuid[NM_UUID_MAX], err[NM_ERRLEN];
	int r;

	if (nm_table_format_line(t, line, sizeof(line)) < 0)
		return fail(EX_CONFIG, "table too long");
	nm_stack_uuid(name, uuid, sizeof(uuid));
	if (g.dry_run) {
		printf("dmsetup create %s --uuid %s --table ", name, uuid);
		print_quoted(line);
		putchar('\n');
		return 0;
	}
	r = nm_dm_check_table_version(t, err, sizeof(err));
	if (r)
		return fail(dm_exit(r) == EX_NODEV ? EX_UNSUPPORTED : dm_exit(r), "%s", err);
	/* meta internal: room for it, and nothing it would overwrite */
	r = nm_stack_imeta_check(t, g.force, err, sizeof(err));
	if (r)
		return fail(EX_DEVICE, "%s", err);
	r = nm_dm_create(name, uuid, t, err, sizeof(err));
	if (r)
		return fail(EX_DEVICE, "%s", err);
	if (g.verbose)
		fprintf(stderr, "created %s: %s\n", name, line);
	return 0;
}

static int do_reload(const char *name, const struct nm_table *t)
{
	char line[NM_LINE_MAX], err[NM_ERRLEN];
	int r;

	if (nm_table_format_line(t, line, sizeof(line)) < 0)
		return fail(EX_CONFIG, "table too long");
	if (g.dry_run) {
		printf("dmsetup reload %s --table ", name);
		print_quoted(line);
		printf("\ndmsetup suspend %s\ndmsetup resume %s\n", name, name);
		return 0;
	}
	r = nm_dm_check_table_version(t, err, sizeof(err));
	if (r)
		return fail(dm_exit(r) == EX_NODEV ? EX_UNSUPPORTED : dm_exit(r), "%s", err);
	r = nm_dm_reload(name, t, err, sizeof(err));
	if (r)
		return fail(EX_DEVICE, "%s", err);
	return 0;
}

static int do_remove(const char *name, int missing_ok)
{
	char err[NM_ERRLEN];
	int r;

	if (g.dry_run) {
		printf("dmsetup remove --retry %s\n", name);
		return 0;
	}
	r = nm_dm_remove(name, 50, err, sizeof(err));
	if (r == -ENODEV && missing_ok)
		return 0;
	if (r)
		return fail(dm_exit(r), "%s", err);
	return 0;
}

static int do_message(const char *name, const char *msg)
{
	char err[NM_ERRLEN], resp[4096];
	int r;

	if (g.dry_run) {
		printf("dmsetup message %s 0 %s\n", name, msg);
		return 0;
	}
	r = nm_dm_message(name, msg, resp, sizeof(resp), err, sizeof(err));
	if (resp[0])
		printf("%s\n", resp);
	if (r)
		return fail(dm_exit(r) == EX_CONFIG ? EX_DEVICE : dm_exit(r), "%s", err);
	return 0;
}

/* ---- commands ----------------------------------------------------- */

static int cmd_create(void)
{
	struct nm_table t;
	int r = table_from_args(&t);

	return r ? r : do_create(g.argv[0], &t);
}

static int cmd_table(void)
{
	char line[NM_LINE_MAX], dev[NM_NAME_MAX];
	struct nm_table t;
	int r;

	if (g.argc == 1)
		r = table_from_conf(g.argv[0], &t, dev, sizeof(dev));
	else if (g.argc == 3)
		r = table_from_args(&t);
	else
		die_usage("table takes NAME LOCAL_DEV PEER, or a resource name");
	if (r)
		return r;
	if (nm_table_format_line(&t, line, sizeof(line)) < 0)
		return fail(EX_CONFIG, "table too long");
	printf("%s\n", line);
	return 0;
}

static int cmd_remove(void)
{
	return do_remove(g.argv[0], 0);
}

/*
 * verify NAME|RESOURCE [--wait]: send the message; with --wait follow the
 * status until the verify ends: exit 0 (no difference), EX_DIFFER (blocks
 * differ: marked out of sync, a disconnect/connect resyncs them) or
 * EX_DEVICE (stopped: verify_stop, a link loss, an error).
 */
static int verify_msg(const char *msg)
{
	char err[NM_ERRLEN], dev[NM_NAME_MAX];
	int tty = isatty(STDOUT_FILENO), r;
	double start;
	struct nm_status s;

	r = resolve_name(g.argv[0], dev, sizeof(dev));
	if (r)
		return r;
	r = do_message(dev, msg);
	if (r || !g.vwait || g.dry_run)
		return r;
	start = now();
	for (;;) {
		r = nm_dm_status(dev, &s, err, sizeof(err));
		if (r)
			return fail(dm_exit(r) == EX_CONFIG ? EX_DEVICE : dm_exit(r), "%s", err);
		if (s.ngroups <= NM_SF_verify_eta)
			return fail(EX_UNSUPPORTED, "%s: the module has no verify status (1.10 or later)", dev);
		if (strcmp(s.verify, "running"))
			break;
		if (tty) {
			char line[256];

			nm_status_progress(&s, NM_PROGRESS_VERIFY, 40, line, sizeof(line));
			printf("\r%s verify %s ", dev, line);
			fflush(stdout);
		}
		usleep(500000);
	}
	if (tty)
		putchar('\n');
	printf("%s: verify %s: %" PRIu64 " of %" PRIu64 " sectors compared in %.1f s, %" PRIu64 " blocks (4 KiB) differ\n",
	       dev, s.verify, s.verify_sectors, s.verify_total, now() - start,
	       s.verify_diffs);
	if (strcmp(s.verify, "done"))
		return fail(EX_DEVICE, "%s: verify %s before its end", dev, s.verify);
	if (s.verify_diffs) {
		fprintf(stderr, "nmsetup: %s: differing blocks are marked out of sync; a disconnect/connect resyncs them\n", dev);
		return EX_DIFFER;
	}
	return EX_OK;
}

/* Message commands (one per NM_MESSAGES row): NAME [ARG] -> "word [ARG]" */
static int cmd_msg(void)
{
	const struct nm_msg_def *m = &nm_msg_defs(NULL)[cur->msg];
	char msg[256], err[NM_ERRLEN], name[64];
	size_t n = 0;
	int i;

	n = (size_t)snprintf(msg, sizeof(msg), "%s", m->word);
	for (i = 1; i < g.argc && n < sizeof(msg); i++)
		n += (size_t)snprintf(msg + n, sizeof(msg) - n, " %s", g.argv[i]);
	if (n >= sizeof(msg))
		return fail(EX_USAGE, "message too long");
	if (nm_message_check(msg, err, sizeof(err)))
		return fail(EX_USAGE, "%s \"%s\": %s",
			    (cmd_name(cur, name, sizeof(name)), name),
			    g.argc > 1 ? g.argv[1] : "", err);
	/* primary --force: the force_primary message (outdated or
	 * inconsistent data made primary) */
	if (g.force)
		n = (size_t)snprintf(msg, sizeof(msg), "%s",
				     nm_msg_defs(NULL)[NM_MSG_FORCE_PRIMARY].word);
	/* connect --discard-my-data: give up our changes at a split brain */
	if (g.discard) {
		int r = do_message(g.argv[0], "discard_my_data");

		if (r)
			return r;
	}
	if (cur->msg == NM_MSG_VERIFY || cur->msg == NM_MSG_VERIFY_RANGE)
		return verify_msg(msg);
	return do_message(g.argv[0], msg);
}

static int cmd_message(void)
{
	char msg[4096];
	size_t o = 0;
	int i;

	msg[0] = '\0';
	for (i = 1; i < g.argc; i++) {
		int n = snprintf(msg + o, sizeof(msg) - o, "%s%s", i > 1 ? " " : "",
				 g.argv[i]);
		if (n < 0 || (size_t)n >= sizeof(msg) - o)
			return fail(EX_USAGE, "message too long");
		o += (size_t)n;
	}
	return do_message(g.argv[0], msg);
}

void print_eta(uint64_t eta)
{
	printf("%" PRIu64 ":%02" PRIu64 ":%02" PRIu64, eta / 3600, eta / 60 % 60, eta % 60);
}

/* Why a device is standalone, from its last_error word. */
static const char *standalone_reason(const char *word)
{
	static const struct { const char *word, *why; } r[] = {
		{ "split_brain", "split brain: both nodes changed the data since their last common generation; "
		  "on the node whose changes go: nmsetup connect --discard-my-data" },
		{ "stale_primary", "this primary's data is older than the peer's: make it secondary to resync from the peer" },
		{ "unrelated_data", "the two nodes have no data generation in common (not this pair's data)" },
		{ "other_pair", "the peer's metadata belongs to another pair" },
		{ "old_copy", "one node's data is an old copy (a restored backup): "
		  "nmsetup invalidate on that node, then connect" },
		{ "both_primary", "both nodes are primary: make one secondary, then connect" },
		{ "version_mismatch", "the peer speaks another wire protocol version" },
		{ "auth_failed", "the peer failed authentication (secret)" },
	};
	size_t i;

	for (i = 0; i < sizeof(r) / sizeof(r[0]); i++)
		if (!strcmp(word, r[i].word))
			return r[i].why;
	return word;
}

static void print_status(const char *name, const struct nm_status *s)
{
	char buf[NM_LINE_MAX * 2];

	if (g.json) {
		nm_status_format_json(s, name, buf, sizeof(buf));
		printf("%s", buf);
		return;
	}
	printf("%s: role %s, connection %s, disk %s/%s, in sync %.1f%% (%" PRIu64
	       "/%" PRIu64 " regions)", name, nm_role_str(s->role),
	       s->conn == DMNET_CONN_OTHER ? s->conn_str : nm_conn_str(s->conn),
	       s->disk == DMNET_DISK_OTHER ? s->disk_str : nm_disk_str(s->disk),
	       s->peer_disk == DMNET_DISK_OTHER ? s->peer_disk_str : nm_disk_str(s->peer_disk),
	       nm_status_sync_percent(s), s->in_sync_regions, s->total_regions);
	/* a resync or a verify running: a bar, the rate and the ETA */
	if (nm_status_progress(s, NM_PROGRESS_RESYNC, 40, buf, sizeof(buf)) > 0)
		printf("\n    resync %s", buf);
	if (nm_status_progress(s, NM_PROGRESS_VERIFY, 40, buf, sizeof(buf)) > 0)
		printf("\n    verify %s", buf);
	if (s->ngroups > NM_SF_bytes_received)
		printf("\n    writes sent %" PRIu64 " received %" PRIu64 " pending %" PRIu64
		       ", bytes sent %" PRIu64 " received %" PRIu64, s->writes_sent,
		       s->writes_received, s->pending, s->bytes_sent, s->bytes_received);
	if (s->ngroups > NM_SF_last_error)
		printf("\n    writes rejected %" PRIu64 ", last error %s",
		       s->writes_rejected, s->last_error);
	if (s->ngroups > NM_SF_resync_bytes) {
		printf("\n    resync %" PRIu64 " KiB/s, eta ", s->resync_kibs);
		print_eta(s->eta_seconds);
		printf(", %" PRIu64 " bytes resynced", s->resync_bytes);
	}
	if (s->ngroups > NM_SF_generation)
		printf("\n    data generation %s", s->generation);
	if (s->ngroups > NM_SF_io && !strcmp(s->io, "frozen"))
		printf("\n    io frozen: writes are held until the peer is fenced "
		       "(nmsetup resume-io) or back");
	if (s->conn == DMNET_CONN_STANDALONE && s->ngroups > NM_SF_last_error &&
	    strcmp(s->last_error, "-"))
		printf("\n    standalone: %s", standalone_reason(s->last_error));
	if (s->nextra)
		printf("\n    further fields: %s", s->extra);
}

static int status_one(const char *name, int first)
{
	struct nm_status s;
	char err[NM_ERRLEN];
	int r;

	r = nm_dm_status(name, &s, err, sizeof(err));
	if (r)
		return fail(dm_exit(r) == EX_CONFIG ? EX_DEVICE : dm_exit(r), "%s", err);
	if (g.json && !first)
		printf(",\n");
	print_status(name, &s);
	if (!g.json)
		putchar('\n');
	return 0;
}

struct list_ctx {
	int n, rc;
};

static int list_cb(const char *name, void *arg)
{
	struct list_ctx *c = arg;
	int r = status_one(name, c->n == 0);

	if (r)
		c->rc = r;
	else
		c->n++;
	return 0;
}

/* A NAME that is not a dm device but a config resource maps to the
 * resource's device on this host. */
int resolve_name(const char *name, char *dev, size_t devlen)
{
	struct nm_table t;

	snprintf(dev, devlen, "%s", name);
	if (nm_dm_exists(name) == 1)
		return 0;
	if (access(g.config ? g.config : NM_CONF_DEFAULT, R_OK))
		return 0;
	if (load_conf() || !nm_conf_find(conf, name))
		return 0;
	return table_from_conf(name, &t, dev, devlen);
}

static int cmd_status(void)
{
	char err[NM_ERRLEN], dev[NM_NAME_MAX];
	struct list_ctx c = { 0, 0 };
	int r;

	if (g.argc == 1) {
		r = resolve_name(g.argv[0], dev, sizeof(dev));
		if (r)
			return r;
		r = status_one(dev, 1);
		if (!r && g.json)
			putchar('\n');
		return r;
	}
	if (g.json)
		printf("[");
	r = nm_dm_list(list_cb, &c, err, sizeof(err));
	if (g.json)
		printf("]\n");
	if (r)
		return fail(EX_DEVICE, "%s", err);
	return c.rc;
}
double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int cmd_up(void)
{
	char dev[NM_NAME_MAX];
	struct nm_table t;
	int r = table_from_conf(g.argv[0], &t, dev, sizeof(dev));

	if (r)
		return r;
	if (!g.dry_run && nm_dm_exists(dev) == 1)
		return fail(EX_DEVICE, "%s: device %s already exists (use adjust)",
			    g.argv[0], dev);
	return do_create(dev, &t);
}

static int cmd_down(void)
{
	char dev[NM_NAME_MAX];
	struct nm_table t;
	int r = table_from_conf(g.argv[0], &t, dev, sizeof(dev));

	return r ? r : do_remove(dev, 1);
}

/* Resolve a path local_dev to major:minor, as the kernel reprints it. */
static void to_devno(struct nm_table *t)
{
	struct stat st;

	if (t->local_dev[0] == '/' && !stat(t->local_dev, &st) && S_ISBLK(st.st_mode))
		snprintf(t->local_dev, sizeof(t->local_dev), "%u:%u",
			 major(st.st_rdev), minor(st.st_rdev));
	if ((t->opts & NM_OPT_BIT(NM_OPT_META)) && t->meta[0] == '/' &&
	    !stat(t->meta, &st) && S_ISBLK(st.st_mode))
		snprintf(t->meta, sizeof(t->meta), "%u:%u",
			 major(st.st_rdev), minor(st.st_rdev));
}

static int cmd_adjust(void)
{
	char dev[NM_NAME_MAX], err[NM_ERRLEN], want[NM_LINE_MAX], have[NM_LINE_MAX];
	struct nm_table t, live, cmp;
	int r = table_from_conf(g.argv[0], &t, dev, sizeof(dev));

	if (r)
		return r;
	r = nm_dm_exists(dev);
	if (r != 1) {
		if (r < 0 && !g.dry_run)
			return fail(EX_DEVICE, "%s: cannot query device %s", g.argv[0], dev);
		return do_create(dev, &t);
	}
	r = nm_dm_table(dev, &live, err, sizeof(err));
	if (r)
		return fail(EX_DEVICE, "%s", err);
	cmp = t;
	to_devno(&cmp);
	nm_table_format_line(&cmp, want, sizeof(want));
	nm_table_format_line(&live, have, sizeof(have));
	if (!strcmp(want, have)) {
		if (g.verbose)
			fprintf(stderr, "%s: up to date\n", dev);
		return 0;
	}
	if (g.verbose)
		fprintf(stderr, "%s: live table  %s\n%s: wanted table %s\n", dev, have, dev, want);
	return do_reload(dev, &t);
}

#define MSG_CMD(w, id, nargs, since, arg_help, want, help)		\
	{ #w, cmd_msg, NM_MSG_##id == NM_MSG_CONNECT ? F_DISCARD :	\
		       NM_MSG_##id == NM_MSG_PRIMARY ? F_FORCE :	\
		       NM_MSG_##id == NM_MSG_VERIFY ||			\
		       NM_MSG_##id == NM_MSG_VERIFY_RANGE ? F_VWAIT : 0,	\
	  1 + (nargs), 1 + (nargs), "NAME " arg_help,			\
	  help " (message \"" #w "\").", NM_MSG_##id },

static const struct cmd cmds[] = {
	{ "create", cmd_create, F_TABLE | F_FORCE, 3, 3, "NAME LOCAL_DEV PEER [table flags] [--force]",
	  "Create and activate netmirror device NAME over LOCAL_DEV, replicating to PEER.\n"
	  "--meta internal: refused if LOCAL_DEV shows a filesystem, PV or partition\n"
	  "table signature at its start; --force clears it and creates the metadata.", -1 },
	{ "remove", cmd_remove, 0, 1, 1, "NAME", "Remove device NAME (retries while busy).", -1 },
	NM_MESSAGES(MSG_CMD)
	{ "pause-sync", cmd_msg, 0, 1, 1, "NAME", "Alias of pause-resync.", NM_MSG_PAUSE_RESYNC },
	{ "resume-sync", cmd_msg, 0, 1, 1, "NAME", "Alias of resume-resync.", NM_MSG_RESUME_RESYNC },
	{ "status", cmd_status, F_JSON, 0, 1, "[NAME|RESOURCE] [--json]",
	  "Show status of NAME, or of every netmirror device.", -1 },
	{ "events", cmd_events, F_JSON | F_EVENTS, 0, 1,
	  "[NAME|RESOURCE] [--json] [--now] [--timestamps]",
	  "Print the state of NAME (or of every netmirror device), \"exists -\", then\n"
	  "one line per change as it happens, like drbdsetup events2: change (role,\n"
	  "connection, disk, peer_disk, suspended, io, last_error, generation, verify),\n"
	  "progress (resync and verify, about every 1%, at most once a second), create,\n"
	  "destroy.  --json: one JSON object per line; --now: the state only, then exit;\n"
	  "--timestamps: each line starts with the time.  Ends (exit 0) on SIGINT,\n"
	  "SIGTERM or when NAME is removed.", -1 },
	{ "table", cmd_table, F_TABLE, 1, 3,
	  "NAME LOCAL_DEV PEER [table flags] | table RESOURCE",
	  "Print the table line create/up would load; changes nothing.", -1 },
	{ "wait-sync", cmd_wait_sync, F_WAIT, 1, 1, "NAME|RESOURCE [--wait-timeout SECONDS]",
	  "Wait until NAME is connected and fully in sync (exit 4 on timeout).\n"
	  "--timeout SECONDS is a deprecated spelling of --wait-timeout here.", -1 },
	{ "message", cmd_message, 0, 2, -1, "NAME WORD...",
	  "Send a raw target message to sector 0 of NAME; print any response.", -1 },
	{ "up", cmd_up, F_FORCE, 1, 1, "RESOURCE [--force]",
	  "Create this host's device for RESOURCE from the config file\n"
	  "(--force: as for create with --meta internal).", -1 },
	{ "down", cmd_down, 0, 1, 1, "RESOURCE", "Remove this host's device for RESOURCE.", -1 },
	{ "adjust", cmd_adjust, F_FORCE, 1, 1, "RESOURCE [--force]",
	  "Create the device, or reload it if its live table differs from the config\n"
	  "(--force: as for create with --meta internal).", -1 },
	{ "fence", cmd_fence, F_FENCE, 1, 1,
	  "NAME|RESOURCE --handler PROG [--unfence-handler UPROG] [--once]",
	  "Resource-level fencing for \"fencing freeze\": when NAME holds writes, run PROG\n"
	  "(env NM_DEVICE, NM_PEER, NM_ROLE) to fence the peer; its exit 3, 4, 5 or 7\n"
	  "(drbd's fence-peer codes: inconsistent, outdated, down, powered off) sends\n"
	  "resume_io.  UPROG undoes the fence: run when NAME is connected with both\n"
	  "disks uptodate, after each fence and once at the start (while it fails:\n"
	  "again after 5 s, 10 s, ... 60 s).  Runs until SIGTERM; --once handles one\n"
	  "freeze (exit 0 released; with --unfence-handler, once UPROG has succeeded).",
	  -1 },
	{ "options", cmd_options, F_JSON | F_DOC, 0, 1,
	  "[--json|--man|--rst] [options|flags|messages|status]",
	  "Print the table options, messages and status fields of nm_params.h\n"
	  "(--man/--rst: the fragments of the man pages and docs/netmirror.rst).", -1 },
};

#define NCMDS (sizeof(cmds) / sizeof(cmds[0]))

/* Command name as typed: the message word with '_' -> '-'. */
static void cmd_name(const struct cmd *c, char *buf, size_t len)
{
	size_t i;

	snprintf(buf, len, "%s", c->name);
	for (i = 0; c->msg >= 0 && buf[i]; i++)
		if (buf[i] == '_')
			buf[i] = '-';
}

static void cmd_usage(FILE *f, const struct cmd *c)
{
	char n[64];

	size_t len = strlen(c->args);

	while (len && c->args[len - 1] == ' ')
		len--;			/* "NAME " "" of a message without argument */
	cmd_name(c, n, sizeof(n));
	fprintf(f, "%s %.*s", n, (int)len, c->args);
}

static void usage(FILE *f)
{
	const struct nm_opt_def *d = nm_opt_defs(NULL);
	char fl[64], lim[128];
	size_t i;

	fprintf(f, "usage: nmsetup [-c FILE] [--host NAME] [-n] [-v] COMMAND ARGS...\n\n"
		   "commands:\n");
	for (i = 0; i < NCMDS; i++) {
		fprintf(f, "  ");
		cmd_usage(f, &cmds[i]);
		fputc('\n', f);
	}
	fprintf(f, "\ntable flags (create, table):\n"
		   "  --protocol A|B|C          replication protocol (default C)\n"
		   "  --ordering flush|drain|none  write ordering (default flush)\n"
		   "  --size SECTORS            device size (default: size of LOCAL_DEV)\n"
		   "  -o, --option KEYWORD=VALUE  a table option by its keyword\n");
	for (i = 0; i < NM_OPT_COUNT; i++) {
		char left[96];

		flag_name(d[i].keyword, fl, sizeof(fl));
		opt_limits(&d[i], lim, sizeof(lim));
		snprintf(left, sizeof(left), "%s %s", fl, d[i].value_help);
		fprintf(f, "  %-25s %s%s%s%s\n", left, d[i].help,
			lim[0] ? " (" : "", lim, lim[0] ? ")" : "");
	}
	fprintf(f, "\nglobal options:\n"
		   "  -c, --config FILE  config file (default " NM_CONF_DEFAULT ")\n"
		   "      --host NAME    use the \"on NAME\" section (default: hostname)\n"
		   "  -n, --dry-run      print the dmsetup commands instead of running them\n"
		   "  -v, --verbose      more messages (twice: libdevmapper debug)\n"
		   "  -h, --help         help (after a command: help for that command)\n"
		   "      --version      print the version\n"
		   "\nexit codes: 0 ok, 1 usage, 2 config/parse, 3 device operation failed,\n"
		   "            4 timeout, 5 no such device/resource/host, 6 target missing or too old\n"
		   "See nmsetup(8) and netmirror.conf(5).\n");
}

/* Option with a value: "--opt VALUE" or "--opt=VALUE". */
static const char *optval(int argc, char **argv, int *i, const char *name)
{
	const char *a = argv[*i], *eq = strchr(a, '=');

	if (eq && a[1] == '-')
		return eq + 1;
	if (*i + 1 >= argc)
		die_usage("%s needs a value", name);
	return argv[++*i];
}

static int match(const char *a, const char *s, const char *l)
{
	size_t n = strcspn(a, "=");

	return (s && !strcmp(a, s)) || (l && strlen(l) == n && !strncmp(a, l, n));
}

/* "--region-size[=V]" -> the option region_size, or NULL. */
static const struct nm_opt_def *table_flag(const char *a)
{
	char kw[32];
	size_t n = strcspn(a, "="), i;

	if (a[0] != '-' || a[1] != '-' || n - 2 >= sizeof(kw))
		return NULL;
	memcpy(kw, a + 2, n - 2);
	kw[n - 2] = '\0';
	for (i = 0; kw[i]; i++)
		if (kw[i] == '-')
			kw[i] = '_';
	return nm_opt_find(kw);
}

static void add_opt(const char *flag, const char *kw, size_t kwlen, const char *val)
{
	struct cli_opt *o;

	if (g.nopts >= MAX_OPTS)
		die_usage("too many table options");
	if (kwlen >= sizeof(o->kw))
		die_usage("%s: keyword too long", flag);
	o = &g.opts[g.nopts++];
	snprintf(o->flag, sizeof(o->flag), "%.*s", (int)strcspn(flag, "="), flag);
	memcpy(o->kw, kw, kwlen);
	o->kw[kwlen] = '\0';
	o->val = val;
}

static double seconds(const char *flag, const char *v)
{
	char *end;
	double s = strtod(v, &end);

	if (!*v || *end || !(s > 0))
		die_usage("%s \"%s\": expected seconds > 0", flag, v);
	return s;
}

static void seen(unsigned group, const char *flag)
{
	unsigned i;

	for (i = 0; i < F_NGROUPS; i++)
		if (group == 1u << i && !g.first[i])
			g.first[i] = flag;
	g.given |= group;
}

int main(int argc, char **argv)
{
	static char *pos[256];
	int i, npos = 0, only_pos = 0;
	const char *cmdname = NULL;
	const struct nm_opt_def *d;
	unsigned j;
	size_t c;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (only_pos || a[0] != '-' || !a[1]) {
			if (!cmdname)
				cmdname = a;
			else if (npos < 256)
				pos[npos++] = argv[i];
			else
				die_usage("too many arguments");
			if (cmdname && cur == NULL) {
				char n[64];

				for (c = 0; c < NCMDS; c++) {
					cmd_name(&cmds[c], n, sizeof(n));
					if (!strcmp(n, cmdname))
						cur = &cmds[c];
				}
				if (!cur)
					die_usage("unknown command \"%s\"", cmdname);
			}
			continue;
		}
		if (!strcmp(a, "--")) {
			only_pos = 1;
		} else if (match(a, "-c", "--config")) {
			g.config = optval(argc, argv, &i, "--config");
		} else if (match(a, NULL, "--host")) {
			g.host = optval(argc, argv, &i, "--host");
		} else if (match(a, "-n", "--dry-run")) {
			g.dry_run = 1;
		} else if (match(a, "-v", "--verbose")) {
			g.verbose++;
		} else if (match(a, "-h", "--help")) {
			g.help = 1;
		} else if (match(a, NULL, "--version")) {
			printf("nmsetup " NMSETUP_VERSION " (netmirror target %d.%d)\n",
			       NM_TARGET_MAJOR, NM_TARGET_MINOR);
			return EX_OK;
		} else if (cur && !strcmp(cur->name, "message")) {
			if (npos < 256)
				pos[npos++] = argv[i];	/* e.g. "message nm0 -x" */
		} else if (match(a, NULL, "--handler")) {
			g.handler = optval(argc, argv, &i, "--handler");
			seen(F_FENCE, "--handler");
		} else if (match(a, NULL, "--unfence-handler")) {
			g.unfence = optval(argc, argv, &i, "--unfence-handler");
			seen(F_FENCE, "--unfence-handler");
		} else if (match(a, NULL, "--once")) {
			g.once = 1;
			seen(F_FENCE, "--once");
		} else if (match(a, NULL, "--protocol")) {
			g.protocol = optval(argc, argv, &i, "--protocol");
			seen(F_TABLE, "--protocol");
		} else if (match(a, NULL, "--ordering")) {
			g.ordering = optval(argc, argv, &i, "--ordering");
			seen(F_TABLE, "--ordering");
		} else if (match(a, NULL, "--size")) {
			g.size = optval(argc, argv, &i, "--size");
			seen(F_TABLE, "--size");
		} else if (match(a, "-o", "--option")) {
			const char *v = optval(argc, argv, &i, "-o");
			const char *eq = strchr(v, '=');

			if (!eq)
				die_usage("-o \"%s\": expected KEYWORD=VALUE", v);
			add_opt("-o", v, (size_t)(eq - v), eq + 1);
			seen(F_TABLE, "-o");
		} else if ((d = table_flag(a))) {
			const char *v = optval(argc, argv, &i, a);

			add_opt(a, d->keyword, strlen(d->keyword), v);
			seen(F_TABLE, a);
		} else if (match(a, NULL, "--json")) {
			g.json = 1;
			seen(F_JSON, "--json");
		} else if (match(a, NULL, "--man")) {
			g.man = 1;
			seen(F_DOC, "--man");
		} else if (match(a, NULL, "--rst")) {
			g.rst = 1;
			seen(F_DOC, "--rst");
		} else if (match(a, NULL, "--discard-my-data")) {
			g.discard = 1;
			seen(F_DISCARD, "--discard-my-data");
		} else if (match(a, NULL, "--now")) {
			g.now = 1;
			seen(F_EVENTS, "--now");
		} else if (match(a, NULL, "--timestamps")) {
			g.timestamps = 1;
			seen(F_EVENTS, "--timestamps");
		} else if (match(a, NULL, "--wait")) {
			g.vwait = 1;
			seen(F_VWAIT, "--wait");
		} else if (match(a, NULL, "--force")) {
			g.force = 1;
			seen(F_FORCE, "--force");
		} else if (match(a, NULL, "--wait-timeout")) {
			g.wait_timeout = seconds("--wait-timeout",
						 optval(argc, argv, &i, "--wait-timeout"));
			seen(F_WAIT, "--wait-timeout");
		} else {
			die_usage("unknown option \"%s\"", a);
		}
	}
	if (!cur) {
		if (g.help) {
			usage(stdout);
			return EX_OK;
		}
		usage(stderr);
		return EX_USAGE;
	}
	/* wait-sync: --timeout SECONDS, the deprecated spelling of
	 * --wait-timeout (everywhere else --timeout is the table option) */
	if (cur->fn == cmd_wait_sync) {
		unsigned k = 0;

		for (j = 0; j < g.nopts; j++) {
			if (!strcmp(g.opts[j].kw, "timeout") &&
			    !strcmp(g.opts[j].flag, "--timeout")) {
				fprintf(stderr, "nmsetup: wait-sync --timeout is deprecated, use --wait-timeout\n");
				g.wait_timeout = seconds("--timeout", g.opts[j].val);
				seen(F_WAIT, "--timeout");
			} else {
				g.opts[k++] = g.opts[j];
			}
		}
		g.nopts = k;
		if (!k && !g.protocol && !g.ordering && !g.size) {
			g.given &= ~F_TABLE;
			g.first[0] = NULL;
		}
	}
	if (g.help) {
		printf("usage: nmsetup ");
		cmd_usage(stdout, cur);
		printf("\n\n%s\n", cur->help);
		return EX_OK;
	}
	for (j = 0; j < F_NGROUPS; j++)
		if (g.given & ~cur->flags & (1u << j))
			die_usage("%s is not valid for %s", g.first[j], cmdname);
	if (npos < cur->min_args || (cur->max_args >= 0 && npos > cur->max_args))
		die_usage("wrong number of arguments for %s", cmdname);
	g.argc = npos;
	g.argv = pos;
	nm_dm_set_verbose(g.verbose);
	return cur->fn();
}
