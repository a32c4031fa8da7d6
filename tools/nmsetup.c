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
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "libdmnet.h"

#define NMSETUP_VERSION "1.0.0"

enum {
	EX_OK = 0, EX_USAGE = 1, EX_CONFIG = 2, EX_DEVICE = 3, EX_TIMEOUT = 4,
	EX_NODEV = 5, EX_UNSUPPORTED = 6, EX_DIFFER = 7,
};

/* Groups of flags; a command lists the groups it takes. */
enum {
	F_TABLE = 1 << 0,	/* --protocol, --ordering, --size, -o, --<option> */
	F_JSON = 1 << 1,	/* --json */
	F_WAIT = 1 << 2,	/* --wait-timeout */
	F_DOC = 1 << 3,		/* --man, --rst */
	F_DISCARD = 1 << 4,	/* connect --discard-my-data */
	F_FORCE = 1 << 5,	/* primary --force; create/up/adjust --force */
	F_FENCE = 1 << 6,	/* fence --handler, --unfence-handler, --once */
	F_VWAIT = 1 << 7,	/* verify --wait */
	F_EVENTS = 1 << 8,	/* events --now, --timestamps */
	F_NGROUPS = 9
};

#define MAX_OPTS 64

/* A table option from "--<keyword>" (keyword with '_' -> '-') or -o. */
struct cli_opt {
	char flag[40];			/* as given (without "=V"), for messages */
	char kw[32];
	const char *val;
};

static struct {
	const char *config;
	const char *host;
	int dry_run;
	int verbose;
	int help;
	unsigned given;			/* F_* groups seen */
	const char *first[F_NGROUPS];	/* first flag seen of each group */
	const char *protocol, *ordering, *size;
	struct cli_opt opts[MAX_OPTS];
	unsigned nopts;
	int json, man, rst;
	int discard;			/* connect --discard-my-data */
	const char *handler;		/* fence --handler PROG */
	const char *unfence;		/* fence --unfence-handler PROG */
	int once;			/* fence --once */
	int force;			/* primary: force_primary; create:
					 * internal metadata over a signature */
	int vwait;			/* verify --wait */
	int now, timestamps;		/* events --now, --timestamps */
	double wait_timeout;		/* seconds, 0 = none */
	int argc;
	char **argv;			/* positional arguments after command */
} g;

struct cmd {
	const char *name;		/* message commands: the message word */
	int (*fn)(void);
	unsigned flags;			/* F_* */
	int min_args, max_args;		/* max -1 = unlimited */
	const char *args;		/* usage after the command name */
	const char *help;
	int msg;			/* message commands: NM_MSG_*, else -1 */
};

static const struct cmd *cur;
static void cmd_usage(FILE *f, const struct cmd *c);
static void cmd_name(const struct cmd *c, char *buf, size_t len);

static void die_usage(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void die_usage(const char *fmt, ...)
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

static int fail(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(int code, const char *fmt, ...)
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
static int dm_exit(int r)
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

static double now(void);
static void print_eta(uint64_t s);
static int resolve_name(const char *name, char *dev, size_t devlen);

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

static void print_eta(uint64_t eta)
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
static int resolve_name(const char *name, char *dev, size_t devlen)
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

static volatile sig_atomic_t interrupted;

static void on_signal(int sig)
{
	(void)sig;
	interrupted = 1;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int cmd_wait_sync(void)
{
	char err[NM_ERRLEN], dev[NM_NAME_MAX];
	int tty = isatty(STDOUT_FILENO), r;
	double start = now(), last_t = start, last_print = 0, rate = 0;
	uint64_t last_sync = 0;
	int have_last = 0;
	struct nm_status s;

	r = resolve_name(g.argv[0], dev, sizeof(dev));
	if (r)
		return r;
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	for (;;) {
		double t = now(), pct, eta = -1, kibs = 0;
		int kernel = 0;
		const char *cs;

		r = nm_dm_status(dev, &s, err, sizeof(err));
		if (r) {
			if (tty)
				putchar('\n');
			return fail(dm_exit(r) == EX_CONFIG ? EX_DEVICE : dm_exit(r), "%s", err);
		}
		cs = s.conn == DMNET_CONN_OTHER ? s.conn_str : nm_conn_str(s.conn);
		pct = nm_status_sync_percent(&s);
		/* our own estimate from the in-sync progress */
		if (have_last && t > last_t && s.in_sync_regions >= last_sync) {
			double d = (double)(s.in_sync_regions - last_sync) / (t - last_t);

			rate = rate ? 0.7 * rate + 0.3 * d : d;
		}
		if (rate > 0)
			eta = (double)(s.total_regions - s.in_sync_regions) / rate;
		if (s.ngroups > NM_SF_eta_seconds) {
			/* dm-netmirror >= 1.2: the kernel's resync rate and ETA
			 * (rate 0 until it has measured one: keep ours) */
			kernel = 1;
			kibs = (double)s.resync_kibs;
			if (s.resync_kibs)
				eta = (double)s.eta_seconds;
		}
		if (tty) {
			char bar[64];

			nm_progress_bar(pct, 40, bar, sizeof(bar));
			printf("\r%s %s %-11s ", dev, bar, cs);
			if (kernel)
				printf("%8.1f MiB/s ", kibs / 1024.0);
			printf("ETA ");
			if (eta >= 0)
				print_eta((uint64_t)eta);
			else
				printf("--:--:--");
			printf(" ");
			fflush(stdout);
		} else if (t - last_print >= 5 || nm_status_is_synced(&s)) {
			printf("%s: %s %.1f%% (%" PRIu64 "/%" PRIu64 " regions)", dev, cs,
			       pct, s.in_sync_regions, s.total_regions);
			if (kernel)
				printf(" rate %.0f KiB/s", kibs);
			if (eta >= 0)
				printf(" eta %.0fs", eta);
			putchar('\n');
			fflush(stdout);
			last_print = t;
		}
		if (nm_status_is_synced(&s)) {
			if (tty)
				putchar('\n');
			return EX_OK;
		}
		if (interrupted || (g.wait_timeout > 0 && t - start >= g.wait_timeout)) {
			if (tty)
				putchar('\n');
			return fail(EX_TIMEOUT, "%s: %s after %.0fs: %.1f%% in sync, connection %s",
				    dev, interrupted ? "interrupted" : "timed out", t - start, pct, cs);
		}
		last_t = t;
		last_sync = s.in_sync_regions;
		have_last = 1;
		usleep(500 * 1000);
	}
}

/*
 * fence NAME --handler PROG [--unfence-handler UPROG] [--once]: DRBD's
 * resource-level fencing for a "fencing freeze" primary.  Waits for the
 * device's events; when its writes are held (io frozen) it runs PROG through
 * /bin/sh with NM_DEVICE, NM_PEER (the peer's address) and NM_ROLE in the
 * environment.  PROG fences the peer (runs "outdate" on it, or powers it
 * off) and answers with drbd's fence-peer exit codes: 3 the peer is
 * inconsistent already, 4 it is outdated now, 5 it is down or unreachable,
 * 7 it was powered off (STONITH): then "resume_io" releases the held
 * writes.  Any other code leaves them held (an administrator decides; the
 * link coming back releases them too).
 *
 * UPROG (DRBD 9's unfence-peer, crm-unfence-peer.sh) undoes the fence: it
 * runs, the same way, as soon as the device is connected with both disks
 * uptodate (the resync that followed the fence has ended), after each run
 * of PROG and once at the start (a fence left by an earlier run).  It is
 * driven by the same events as the fence, so it is not late by a polling
 * interval, and a state reached while PROG still ran is seen on the status
 * read after it.  A failed UPROG (non-zero exit) is run again while the
 * state holds, UNFENCE_RETRY seconds later, then at twice the last delay
 * (at most UNFENCE_RETRY_MAX seconds apart).
 *
 * --once: handle one freeze and exit (0 released, 3 not); with
 * --unfence-handler, exit 0 only once UPROG has succeeded after it.
 */
#define UNFENCE_RETRY 5
#define UNFENCE_RETRY_MAX 60

/* SIGALRM only interrupts the wait for an event (a retry is due) */
static void on_alarm(int sig)
{
	(void)sig;
}

static int fence_released(int code)
{
	return code == 3 || code == 4 || code == 5 || code == 7;
}

/* connected, both disks uptodate, nothing held: no copy is stale */
static int fence_all_uptodate(const struct nm_status *s)
{
	return s->conn == DMNET_CONN_CONNECTED && s->disk == DMNET_DISK_UPTODATE &&
	       s->peer_disk == DMNET_DISK_UPTODATE && strcmp(s->io, "frozen");
}

static int run_handler(const char *prog, const char *dev, const char *peer, const char *role)
{
	pid_t pid;
	int st;

	fflush(NULL);
	pid = fork();
	if (pid < 0)
		return -1;
	if (!pid) {
		setenv("NM_DEVICE", dev, 1);
		setenv("NM_PEER", peer, 1);
		setenv("NM_ROLE", role, 1);
		execl("/bin/sh", "sh", "-c", prog, (char *)NULL);
		_exit(127);
	}
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static int cmd_fence(void)
{
	char err[NM_ERRLEN], dev[NM_NAME_MAX], peer[64] = "", resp[256];
	struct sigaction sa = { .sa_handler = on_signal };	/* no SA_RESTART */
	struct sigaction sal = { .sa_handler = on_alarm };
	struct nm_status s;
	struct nm_table t;
	uint32_t ev;
	int r, handled = 0;
	/* UPROG to run at the next all-uptodate state; --once: exit after it */
	int unfence_due = !!g.unfence, once_done = 0;
	unsigned retry = UNFENCE_RETRY;		/* s until the next try */
	double not_before = 0;			/* of that try (now()) */

	if (!g.handler)
		die_usage("fence needs --handler PROG");
	r = resolve_name(g.argv[0], dev, sizeof(dev));
	if (r)
		return r;
	r = nm_dm_table(dev, &t, err, sizeof(err));
	if (r)
		return fail(dm_exit(r) == EX_CONFIG ? EX_DEVICE : dm_exit(r), "%s", err);
	if (t.fencing != DMNET_FENCING_FREEZE)
		return fail(EX_CONFIG, "%s: the table has no \"fencing freeze\": nothing is ever held", dev);
	nm_format_addr(&t.peer, peer, sizeof(peer));
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigemptyset(&sal.sa_mask);
	sigaction(SIGALRM, &sal, NULL);
	for (;;) {
		int frozen, code, due;

		r = nm_dm_status_event(dev, &s, &ev, err, sizeof(err));
		if (r)
			return fail(dm_exit(r) == EX_CONFIG ? EX_DEVICE : dm_exit(r), "%s", err);
		frozen = s.ngroups > NM_SF_io && !strcmp(s.io, "frozen");
		if (!frozen)
			handled = 0;	/* a new freeze gets the handler again */
		if (frozen && !handled) {
			handled = 1;
			alarm(0);
			printf("%s: writes held (peer %s lost): running the fence handler\n", dev, peer);
			code = run_handler(g.handler, dev, peer, nm_role_str(s.role));
			if (code < 0)
				return fail(EX_DEVICE, "%s: cannot run the fence handler: %s", dev, strerror(errno));
			/* whatever it did, it is undone once no copy is stale */
			unfence_due = !!g.unfence;
			retry = UNFENCE_RETRY;
			not_before = 0;
			if (fence_released(code)) {
				printf("%s: fence handler exit %d (peer fenced): resume_io\n", dev, code);
				r = nm_dm_message(dev, "resume_io", resp, sizeof(resp), err,
						  sizeof(err));
				/* the link may have come back meanwhile: nothing held */
				if (r && nm_dm_status(dev, &s, err, sizeof(err)) == 0 &&
				    strcmp(s.io, "frozen"))
					r = 0;
				if (r)
					return fail(EX_DEVICE, "%s: resume_io: %s", dev, err);
				if (g.once && !g.unfence)
					return EX_OK;
				once_done = g.once;
			} else {
				printf("%s: fence handler exit %d: the peer is not fenced, writes stay held "
				       "(resume_io once it is, or the link comes back)\n", dev, code);
				if (g.once)
					return fail(EX_DEVICE, "%s: not fenced (handler exit %d)", dev, code);
			}
			fflush(stdout);
			continue;	/* its status again: the event may be ours */
		}
		due = unfence_due && s.ngroups > NM_SF_io && fence_all_uptodate(&s);
		if (due && now() < not_before) {
			/* after a failed try, another event came first: the
			 * next try when its delay is over */
			alarm((unsigned)(not_before - now()) + 1);
		} else if (due) {
			printf("%s: connected, both disks uptodate: running the unfence handler\n", dev);
			code = run_handler(g.unfence, dev, peer, nm_role_str(s.role));
			if (code < 0)
				return fail(EX_DEVICE, "%s: cannot run the unfence handler: %s", dev,
					    strerror(errno));
			if (code == 0) {
				printf("%s: unfence handler exit 0 (peer unfenced)\n", dev);
				unfence_due = 0;
				retry = UNFENCE_RETRY;
				alarm(0);
				if (once_done)
					return EX_OK;
			} else {
				printf("%s: unfence handler exit %d: again in %u s\n", dev, code,
				       retry);
				not_before = now() + retry;
				alarm(retry);
				retry = retry * 2 > UNFENCE_RETRY_MAX ? UNFENCE_RETRY_MAX : retry * 2;
			}
			fflush(stdout);
			continue;	/* the state may have changed meanwhile */
		}
		if (interrupted)
			return EX_OK;
		r = nm_dm_wait_event(dev, ev, err, sizeof(err));
		if (interrupted)
			return EX_OK;
		if (r && r != -EINTR)
			return fail(dm_exit(r) == EX_CONFIG ? EX_DEVICE : dm_exit(r), "%s", err);
	}
}

/*
 * events [NAME|RESOURCE] [--json] [--now] [--timestamps]: the state of
 * NAME (or of every netmirror device), "exists -", then one line per
 * change as it happens (libdmnet's nm_event_lines: change, progress,
 * create, destroy), in the manner of drbdsetup events2.  Each device is
 * followed by its dm table events (nm_dm_wait_event with the event
 * counter read in the same ioctl as the status, so no change is lost
 * between a read and the next wait); the module raises one for each state
 * change and for each 1% of a resync or verify, at most one a second.  dm
 * raises none when a resume clears its "suspended" flag: while a device
 * is suspended it is read again every second.  Without NAME, one child
 * process follows each device and the list of devices is read every 2 s
 * for new ones (create).  Ends with exit 0 on SIGINT/SIGTERM, or when
 * NAME is removed (destroy).
 */
static volatile sig_atomic_t ev_waiting;	/* a signal ends the wait */

static void ev_signal(int sig)
{
	if (sig == SIGALRM)
		return;			/* the suspended re-read */
	interrupted = 1;
	if (ev_waiting)
		_exit(EX_OK);		/* blocked in the wait: every line is out */
}

static void ev_signals(void)
{
	struct sigaction sa = { .sa_handler = ev_signal };	/* no SA_RESTART */

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGALRM, &sa, NULL);
}

/* ISO 8601 local time with microseconds, as drbdsetup --timestamps. */
static const char *ev_time(char *buf, size_t len)
{
	struct timespec ts;
	struct tm tm;
	char z[8];
	size_t n;

	if (!g.timestamps)
		return NULL;
	clock_gettime(CLOCK_REALTIME, &ts);
	localtime_r(&ts.tv_sec, &tm);
	n = strftime(buf, len, "%Y-%m-%dT%H:%M:%S", &tm);
	strftime(z, sizeof(z), "%z", &tm);	/* +hhmm */
	snprintf(buf + n, len - n, ".%06ld%.3s:%.2s", ts.tv_nsec / 1000, z, z + 3);
	return buf;
}

/* One write per event: lines of several followers never interleave. */
static void ev_write(const char *buf, int n)
{
	while (n > 0) {
		ssize_t w = write(STDOUT_FILENO, buf, (size_t)n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			_exit(EX_DEVICE);	/* the reader is gone */
		buf += w;
		n -= (int)w;
	}
}

static void ev_print(const char *name, const struct nm_event_state *prev,
		     const struct nm_event_state *cur, unsigned flags)
{
	char line[NM_LINE_MAX * 2], t[64];
	int n = nm_event_lines(name, prev, cur, flags | (g.json ? NM_EVENT_JSON : 0),
			       ev_time(t, sizeof(t)), line, sizeof(line));

	if (n > 0)
		ev_write(line, n);
}

static void ev_print_end(void)
{
	char line[128], t[64];
	int n = nm_event_exists_end(g.json ? NM_EVENT_JSON : 0,
				    ev_time(t, sizeof(t)), line, sizeof(line));

	if (n > 0)
		ev_write(line, n);
}

/* NAME's state now (*st) and its event counter; 0, or -ENODEV etc. */
static int ev_read(const char *name, struct nm_event_state *st, uint32_t *ev,
		   char *err, size_t errlen)
{
	struct nm_dm_info info;
	int r = nm_dm_status_info(name, &st->s, &info, err, errlen);

	if (!r) {
		st->suspended = info.suspended;
		*ev = info.event_nr;
	}
	return r;
}

/* Follow NAME from *st (event counter ev) until it goes or a signal. */
static int ev_follow(const char *name, struct nm_event_state *st, uint32_t ev)
{
	struct nm_event_state cur;
	char err[NM_ERRLEN];
	int r;

	for (;;) {
		if (st->suspended)
			alarm(1);
		ev_waiting = 1;
		if (interrupted)
			return EX_OK;
		r = nm_dm_wait_event(name, ev, err, sizeof(err));
		ev_waiting = 0;
		alarm(0);
		if (interrupted)
			return EX_OK;
		if (r && r != -EINTR && r != -ENODEV)
			return fail(EX_DEVICE, "%s", err);
		r = ev_read(name, &cur, &ev, err, sizeof(err));
		if (r == -ENODEV) {
			ev_print(name, st, NULL, 0);
			return EX_OK;
		}
		if (r)
			return fail(dm_exit(r) == EX_CONFIG ? EX_DEVICE : dm_exit(r), "%s", err);
		ev_print(name, st, &cur, 0);
		*st = cur;
	}
}

/* Every device: one follower process each. */
struct ev_dev {
	char name[NM_NAME_MAX];
	pid_t pid;			/* 0: not followed (yet) */
	uint32_t ev;
	struct nm_event_state st;
};

static struct {
	struct ev_dev *d;
	size_t n, cap;
} evs;

static int ev_list_cb(const char *name, void *arg)
{
	size_t i;

	(void)arg;
	for (i = 0; i < evs.n; i++)
		if (!strcmp(evs.d[i].name, name))
			return 0;
	if (evs.n == evs.cap) {
		size_t cap = evs.cap ? evs.cap * 2 : 16;
		struct ev_dev *d = realloc(evs.d, cap * sizeof(*d));

		if (!d)
			return -ENOMEM;
		evs.d = d;
		evs.cap = cap;
	}
	memset(&evs.d[evs.n], 0, sizeof(evs.d[0]));
	snprintf(evs.d[evs.n].name, sizeof(evs.d[0].name), "%s", name);
	evs.d[evs.n].pid = -1;		/* new: to read and print */
	evs.n++;
	return 0;
}

/* New entries (pid -1): read, print exists/create; keep those readable. */
static void ev_take_new(unsigned flags)
{
	char err[NM_ERRLEN];
	size_t i, k = 0;

	for (i = 0; i < evs.n; i++) {
		struct ev_dev *e = &evs.d[i];

		if (e->pid == -1) {
			if (ev_read(e->name, &e->st, &e->ev, err, sizeof(err)))
				continue;	/* gone already, or not ours */
			ev_print(e->name, NULL, &e->st, flags);
			e->pid = 0;
		}
		evs.d[k++] = *e;
	}
	evs.n = k;
}

static void ev_fork_all(void)
{
	size_t i;

	for (i = 0; i < evs.n; i++) {
		struct ev_dev *e = &evs.d[i];
		pid_t pid;

		if (e->pid)
			continue;
		pid = fork();
		if (pid == 0)
			_exit(ev_follow(e->name, &e->st, e->ev));
		if (pid < 0)
			fprintf(stderr, "nmsetup: %s: cannot fork a follower: %s\n",
				e->name, strerror(errno));
		e->pid = pid > 0 ? pid : 0;
	}
}

static int ev_all(void)
{
	char err[NM_ERRLEN];
	size_t i, k;
	pid_t pid;
	int r, st;

	r = nm_dm_list(ev_list_cb, NULL, err, sizeof(err));
	if (r)
		return fail(EX_DEVICE, "%s", err);
	ev_take_new(0);
	ev_print_end();
	if (g.now)
		return EX_OK;
	ev_fork_all();
	while (!interrupted) {
		nanosleep(&(struct timespec){ .tv_sec = 2 }, NULL);
		if (interrupted)
			break;
		/* a follower ended (destroy): the name may come back */
		while ((pid = waitpid(-1, &st, WNOHANG)) > 0) {
			for (i = k = 0; i < evs.n; i++)
				if (evs.d[i].pid != pid)
					evs.d[k++] = evs.d[i];
			evs.n = k;
		}
		if (nm_dm_list(ev_list_cb, NULL, err, sizeof(err)))
			continue;	/* next time */
		ev_take_new(NM_EVENT_CREATE);
		ev_fork_all();
	}
	for (i = 0; i < evs.n; i++)
		if (evs.d[i].pid > 0)
			kill(evs.d[i].pid, SIGTERM);
	while (wait(NULL) > 0 || errno == EINTR)
		;
	return EX_OK;
}

static int cmd_events(void)
{
	char err[NM_ERRLEN], dev[NM_NAME_MAX];
	struct nm_event_state st;
	uint32_t ev;
	int r;

	ev_signals();
	if (!g.argc)
		return ev_all();
	r = resolve_name(g.argv[0], dev, sizeof(dev));
	if (r)
		return r;
	r = ev_read(dev, &st, &ev, err, sizeof(err));
	if (r)
		return fail(dm_exit(r) == EX_CONFIG ? EX_DEVICE : dm_exit(r), "%s", err);
	ev_print(dev, NULL, &st, 0);
	ev_print_end();
	if (g.now)
		return EX_OK;
	return ev_follow(dev, &st, ev);
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

/* ---- nmsetup options: the tables of nm_params.h ------------------ */

/* "--region-size" for keyword "region_size" */
static void flag_name(const char *kw, char *buf, size_t len)
{
	size_t i;

	snprintf(buf, len, "--%s", kw);
	for (i = 2; buf[i]; i++)
		if (buf[i] == '_')
			buf[i] = '-';
}

static const char *type_name(enum nm_param_type t)
{
	switch (t) {
	case NM_PT_ADDR: return "addr";
	case NM_PT_ENUM: return "enum";
	case NM_PT_DEV: return "dev";
	case NM_PT_POW2: return "pow2";
	case NM_PT_U32: return "u32";
	case NM_PT_KEYDESC: return "keydesc";
	}
	return "?";
}

/* Range and default in words: "power of two, 8..2048; default 1024". */
static void limits(const struct nm_opt_def *d, char *buf, size_t len)
{
	char w[64];

	switch (d->type) {
	case NM_PT_POW2:
		snprintf(buf, len, "power of two, %u..%u; default %u",
			 (unsigned)d->min, (unsigned)d->max, (unsigned)d->def);
		break;
	case NM_PT_U32:
		snprintf(buf, len, "%u..%u; default %u", (unsigned)d->min,
			 (unsigned)d->max, (unsigned)d->def);
		break;
	case NM_PT_ENUM:
		/* a one-word enum is a switch: absent = off */
		if (nm_opt_word(d, 1, w, sizeof(w)) < 0) {
			buf[0] = '\0';
			break;
		}
		nm_opt_word(d, d->def, w, sizeof(w));
		snprintf(buf, len, "default %s", w);
		break;
	case NM_PT_KEYDESC:
		snprintf(buf, len, "%u..%u characters", (unsigned)d->min,
			 (unsigned)d->max);
		break;
	default:
		buf[0] = '\0';
	}
}

static void default_str(const struct nm_opt_def *d, char *buf, size_t len)
{
	switch (d->type) {
	case NM_PT_POW2:
	case NM_PT_U32:
		snprintf(buf, len, "%u", (unsigned)d->def);
		break;
	case NM_PT_ENUM:
		nm_opt_word(d, d->def, buf, len);
		break;
	default:
		snprintf(buf, len, "-");
	}
}

static void json_str(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			printf("\\%c", *s);
		else
			putchar(*s);
	}
	putchar('"');
}

/* groff: '-' as \- in flags and keywords */
static void man_word(const char *s)
{
	for (; *s; s++) {
		if (*s == '-')
			fputs("\\-", stdout);
		else
			putchar(*s);
	}
}

#define SF_ROW(name, since, help) { #name, since, help },
static const struct { const char *name; unsigned since; const char *help; }
sfields[] = { NM_STATUS_FIELDS(SF_ROW) };
#define NSF (sizeof(sfields) / sizeof(sfields[0]))

static int want_table(const char *which, const char *t)
{
	return !which || !strcmp(which, t);
}

static void options_json(void)
{
	const struct nm_opt_def *d = nm_opt_defs(NULL);
	const struct nm_msg_def *m = nm_msg_defs(NULL);
	char w[64], f[64];
	size_t i;
	unsigned j;

	printf("{\"target\":\"%d.%d.%d\",\n\"options\":[", NM_TARGET_MAJOR,
	       NM_TARGET_MINOR, NM_TARGET_PATCH);
	for (i = 0; i < NM_OPT_COUNT; i++) {
		flag_name(d[i].keyword, f, sizeof(f));
		printf("%s\n {\"keyword\":\"%s\",\"flag\":\"%s\",\"type\":\"%s\","
		       "\"min\":%u,\"max\":%u,", i ? "," : "", d[i].keyword, f,
		       type_name(d[i].type), (unsigned)d[i].min, (unsigned)d[i].max);
		default_str(&d[i], w, sizeof(w));
		printf("\"default\":");
		json_str(w);
		printf(",\"since\":\"%d.%u\",\"value\":", NM_TARGET_MAJOR, d[i].min_minor);
		json_str(d[i].value_help);
		printf(",\"words\":[");
		for (j = 0; nm_opt_word(&d[i], j, w, sizeof(w)) >= 0; j++)
			printf("%s\"%s\"", j ? "," : "", w);
		printf("],\"want\":");
		json_str(d[i].want);
		printf(",\"help\":");
		json_str(d[i].help);
		printf("}");
	}
	printf("],\n\"messages\":[");
	for (i = 0; i < NM_MSG_COUNT; i++) {
		printf("%s\n {\"word\":\"%s\",\"args\":%u,\"since\":\"%d.%u\",\"arg\":",
		       i ? "," : "", m[i].word, m[i].nargs, NM_TARGET_MAJOR,
		       m[i].min_minor);
		json_str(m[i].arg_help);
		printf(",\"want\":");
		json_str(m[i].want);
		printf(",\"help\":");
		json_str(m[i].help);
		printf("}");
	}
	printf("],\n\"status_fields\":[");
	for (i = 0; i < NSF; i++) {
		printf("%s\n {\"name\":\"%s\",\"position\":%zu,\"since\":\"%d.%u\",\"help\":",
		       i ? "," : "", sfields[i].name, i + 1, NM_TARGET_MAJOR,
		       sfields[i].since);
		json_str(sfields[i].help);
		printf("}");
	}
	printf("],\n\"connection_states\":[");
	for (j = 0; j < DMNET_CONN_OTHER; j++)
		printf("%s\"%s\"", j ? "," : "", nm_conn_str((enum dmnet_conn)j));
	printf("],\n\"disk_states\":[");
	for (j = 0; j < DMNET_DISK_OTHER; j++)
		printf("%s\"%s\"", j ? "," : "", nm_disk_str((enum dmnet_disk)j));
	printf("]}\n");
}

static void options_man(const char *which)
{
	const struct nm_opt_def *d = nm_opt_defs(NULL);
	const struct nm_msg_def *m = nm_msg_defs(NULL);
	char lim[128], f[64];
	size_t i;

	for (i = 0; want_table(which, "flags") && i < NM_OPT_COUNT; i++) {
		flag_name(d[i].keyword, f, sizeof(f));
		limits(&d[i], lim, sizeof(lim));
		printf(".TP\n.B%s ", d[i].type == NM_PT_ENUM ? "R" : "I");
		man_word(f);
		printf(" \" %s\"\n%s (table option\n.BR %s ;\n%s%starget %d.%u).\n",
		       d[i].value_help, d[i].help, d[i].keyword, lim,
		       lim[0] ? "; " : "", NM_TARGET_MAJOR, d[i].min_minor);
	}
	for (i = 0; want_table(which, "options") && i < NM_OPT_COUNT; i++) {
		limits(&d[i], lim, sizeof(lim));
		printf(".TP\n.B%s \"", d[i].type == NM_PT_ENUM ? "R" : "I");
		man_word(d[i].keyword);
		printf(" \" %s\n%s (%s%starget %d.%u).\n", d[i].value_help,
		       d[i].help, lim, lim[0] ? "; " : "", NM_TARGET_MAJOR,
		       d[i].min_minor);
	}
	for (i = 0; want_table(which, "messages") && i < NM_MSG_COUNT; i++) {
		printf(".TP\n");
		if (m[i].nargs)
			printf(".BI \"%s \" %s\n", m[i].word, m[i].arg_help);
		else
			printf(".B %s\n", m[i].word);
		printf("%s (target %d.%u).\n", m[i].help, NM_TARGET_MAJOR,
		       m[i].min_minor);
	}
	for (i = 0; want_table(which, "status") && i < NSF; i++)
		printf(".TP\n.B %zu. %s\n%s (target %d.%u).\n", i + 1, sfields[i].name,
		       sfields[i].help, NM_TARGET_MAJOR, sfields[i].since);
}

/* An rst simple table: ncol columns, rows of cells ("" for none). */
#define RST_ROWS 32
#define RST_COLS 5
struct rst {
	unsigned ncol, nrow;
	char cell[RST_ROWS][RST_COLS][256];
};

static void rst_rule(const size_t *wd, unsigned ncol)
{
	unsigned c;
	size_t k;

	for (c = 0; c < ncol; c++) {
		for (k = 0; k < wd[c]; k++)
			putchar('=');
		putchar(c + 1 < ncol ? ' ' : '\n');
	}
}

static void rst_print(const struct rst *t)
{
	size_t wd[RST_COLS] = { 0 };
	unsigned r, c;

	for (r = 0; r < t->nrow; r++)
		for (c = 0; c < t->ncol; c++)
			if (strlen(t->cell[r][c]) > wd[c])
				wd[c] = strlen(t->cell[r][c]);
	rst_rule(wd, t->ncol);
	for (r = 0; r < t->nrow; r++) {
		for (c = 0; c + 1 < t->ncol; c++)
			printf("%-*s ", (int)wd[c], t->cell[r][c]);
		printf("%s\n", t->cell[r][c]);
		if (r == 0)
			rst_rule(wd, t->ncol);
	}
	rst_rule(wd, t->ncol);
}

static void options_rst(const char *which)
{
	const struct nm_opt_def *d = nm_opt_defs(NULL);
	const struct nm_msg_def *m = nm_msg_defs(NULL);
	static struct rst t;
	char lim[128];
	size_t i;
	int first = 1;

	if (want_table(which, "options")) {
		memset(&t, 0, sizeof(t));
		t.ncol = 4;
		snprintf(t.cell[0][0], 256, "option");
		snprintf(t.cell[0][1], 256, "range, default");
		snprintf(t.cell[0][2], 256, "since");
		snprintf(t.cell[0][3], 256, "meaning");
		for (i = 0; i < NM_OPT_COUNT; i++) {
			limits(&d[i], lim, sizeof(lim));
			snprintf(t.cell[i + 1][0], 256, "``%s %s``", d[i].keyword,
				 d[i].value_help);
			snprintf(t.cell[i + 1][1], 256, "%s", lim[0] ? lim : "-");
			snprintf(t.cell[i + 1][2], 256, "%d.%u", NM_TARGET_MAJOR,
				 d[i].min_minor);
			snprintf(t.cell[i + 1][3], 256, "%s", d[i].help);
		}
		t.nrow = NM_OPT_COUNT + 1;
		rst_print(&t);
		first = 0;
	}
	if (want_table(which, "messages")) {
		if (!first)
			putchar('\n');
		memset(&t, 0, sizeof(t));
		t.ncol = 3;
		snprintf(t.cell[0][0], 256, "message");
		snprintf(t.cell[0][1], 256, "since");
		snprintf(t.cell[0][2], 256, "meaning");
		for (i = 0; i < NM_MSG_COUNT; i++) {
			snprintf(t.cell[i + 1][0], 256, "``%s%s%s``", m[i].word,
				 m[i].nargs ? " " : "", m[i].arg_help);
			snprintf(t.cell[i + 1][1], 256, "%d.%u", NM_TARGET_MAJOR,
				 m[i].min_minor);
			snprintf(t.cell[i + 1][2], 256, "%s", m[i].help);
		}
		t.nrow = NM_MSG_COUNT + 1;
		rst_print(&t);
		first = 0;
	}
	if (want_table(which, "status")) {
		if (!first)
			putchar('\n');
		memset(&t, 0, sizeof(t));
		t.ncol = 4;
		snprintf(t.cell[0][0], 256, "#");
		snprintf(t.cell[0][1], 256, "field");
		snprintf(t.cell[0][2], 256, "since");
		snprintf(t.cell[0][3], 256, "meaning");
		for (i = 0; i < NSF; i++) {
			snprintf(t.cell[i + 1][0], 256, "%zu", i + 1);
			snprintf(t.cell[i + 1][1], 256, "``%s``", sfields[i].name);
			snprintf(t.cell[i + 1][2], 256, "%d.%u", NM_TARGET_MAJOR,
				 sfields[i].since);
			snprintf(t.cell[i + 1][3], 256, "%s", sfields[i].help);
		}
		t.nrow = NSF + 1;
		rst_print(&t);
	}
}

static void options_text(void)
{
	const struct nm_opt_def *d = nm_opt_defs(NULL);
	const struct nm_msg_def *m = nm_msg_defs(NULL);
	char lim[128], f[64];
	size_t i;

	printf("table options (netmirror %d.%d; reprinted in this order):\n",
	       NM_TARGET_MAJOR, NM_TARGET_MINOR);
	for (i = 0; i < NM_OPT_COUNT; i++) {
		flag_name(d[i].keyword, f, sizeof(f));
		limits(&d[i], lim, sizeof(lim));
		printf("  %-12s %-18s %-15s since %d.%u  %s%s%s%s\n", d[i].keyword,
		       d[i].value_help, f, NM_TARGET_MAJOR, d[i].min_minor,
		       d[i].help, lim[0] ? " (" : "", lim, lim[0] ? ")" : "");
	}
	printf("\nmessages:\n");
	for (i = 0; i < NM_MSG_COUNT; i++)
		printf("  %-14s %-10s since %d.%u  %s\n", m[i].word, m[i].arg_help,
		       NM_TARGET_MAJOR, m[i].min_minor, m[i].help);
	printf("\nstatus fields:\n");
	for (i = 0; i < NSF; i++)
		printf("  %2zu %-16s since %d.%u  %s\n", i + 1, sfields[i].name,
		       NM_TARGET_MAJOR, sfields[i].since, sfields[i].help);
}

static int cmd_options(void)
{
	const char *which = g.argc ? g.argv[0] : NULL;

	if (which && strcmp(which, "options") && strcmp(which, "flags") &&
	    strcmp(which, "messages") && strcmp(which, "status"))
		die_usage("options: unknown table \"%s\" (options, flags, messages or status)",
			  which);
	if (g.json + g.man + g.rst > 1)
		die_usage("options: give one of --json, --man, --rst");
	if (g.json)
		options_json();
	else if (g.man)
		options_man(which);
	else if (g.rst) {
		if (which && !strcmp(which, "flags"))
			die_usage("options: --rst has no flags table");
		options_rst(which);
	} else
		options_text();
	return 0;
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
		limits(&d[i], lim, sizeof(lim));
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
