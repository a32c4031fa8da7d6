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
#include <time.h>
#include <unistd.h>

#include "libdmnet.h"

#define NMSETUP_VERSION "1.0.0"

enum {
	EX_OK = 0, EX_USAGE = 1, EX_CONFIG = 2, EX_DEVICE = 3, EX_TIMEOUT = 4,
	EX_NODEV = 5, EX_UNSUPPORTED = 6,
};

/* Per-command option bits. */
enum {
	O_PROTOCOL = 1 << 0, O_ORDERING = 1 << 1, O_LISTEN = 1 << 2,
	O_ROLE = 1 << 3, O_SIZE = 1 << 4, O_OPTION = 1 << 5, O_JSON = 1 << 6,
	O_TIMEOUT = 1 << 7, O_META = 1 << 8, O_REGION = 1 << 9, O_SYNC = 1 << 10,
	O_RATE = 1 << 11,
};
#define O_TABLE (O_PROTOCOL | O_ORDERING | O_LISTEN | O_ROLE | O_SIZE | O_OPTION | \
		 O_META | O_REGION | O_SYNC | O_RATE)

#define MAX_OPTS 32

static struct {
	const char *config;
	const char *host;
	int dry_run;
	int verbose;
	int help;
	unsigned given;			/* O_* bits seen */
	const char *protocol, *ordering, *listen, *role, *size;
	const char *meta, *region_size, *sync, *resync_rate;
	const char *opts[MAX_OPTS];	/* -o KEYWORD=VALUE */
	unsigned nopts;
	int json;
	double timeout;
	int argc;
	char **argv;			/* positional arguments after command */
} g = { .timeout = 0 };

struct cmd {
	const char *name;
	int (*fn)(void);
	unsigned opts;
	int min_args, max_args;		/* max -1 = unlimited */
	const char *usage;
	const char *help;
};

static const struct cmd *cur;

static void die_usage(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void die_usage(const char *fmt, ...)
{
	va_list ap;

	fputs("nmsetup: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	if (cur)
		fprintf(stderr, "usage: nmsetup %s\n", cur->usage);
	else
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
		return fail(EX_CONFIG, "--protocol \"%s\": protocol must be A, B or C", g.protocol);
	if (g.ordering && nm_ordering_parse(g.ordering, &t->ordering))
		return fail(EX_CONFIG, "--ordering \"%s\": ordering must be flush, drain or none", g.ordering);
	if (g.listen && nm_table_set_option(t, "listen", g.listen, err, sizeof(err)))
		return fail(EX_CONFIG, "--listen: %s", err);
	if (g.role && nm_table_set_option(t, "role", g.role, err, sizeof(err)))
		return fail(EX_CONFIG, "--role: %s", err);
	if (g.meta && nm_table_set_option(t, "meta", g.meta, err, sizeof(err)))
		return fail(EX_CONFIG, "--meta: %s", err);
	if (g.region_size && nm_table_set_option(t, "region_size", g.region_size, err, sizeof(err)))
		return fail(EX_CONFIG, "--region-size: %s", err);
	if (g.sync && nm_table_set_option(t, "sync", g.sync, err, sizeof(err)))
		return fail(EX_CONFIG, "--sync: %s", err);
	if (g.resync_rate && nm_table_set_option(t, "resync_rate", g.resync_rate, err, sizeof(err)))
		return fail(EX_CONFIG, "--resync-rate: %s", err);
	for (i = 0; i < g.nopts; i++) {
		char kw[64];
		const char *eq = strchr(g.opts[i], '=');

		if (!eq || (size_t)(eq - g.opts[i]) >= sizeof(kw))
			return fail(EX_USAGE, "-o \"%s\": expected KEYWORD=VALUE", g.opts[i]);
		memcpy(kw, g.opts[i], eq - g.opts[i]);
		kw[eq - g.opts[i]] = '\0';
		if (nm_table_set_option(t, kw, eq + 1, err, sizeof(err)))
			return fail(EX_CONFIG, "-o: %s", err);
	}
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

static int cmd_msg_word(void)
{
	return do_message(g.argv[0], cur->name);
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

/* resync-rate NAME KIB_PER_S: message "resync_rate N" (0 = adaptive) */
static int cmd_resync_rate(void)
{
	char msg[64];
	uint64_t v;

	if (nm_parse_u64(g.argv[1], &v) || v > UINT32_MAX)
		return fail(EX_USAGE, "resync-rate \"%s\": expected KiB/s (decimal, 0 = adaptive)",
			    g.argv[1]);
	snprintf(msg, sizeof(msg), "resync_rate %" PRIu64, v);
	return do_message(g.argv[0], msg);
}

/* pause-sync / resume-sync NAME: messages pause_resync / resume_resync */
static int cmd_pause_resume(void)
{
	return do_message(g.argv[0], !strcmp(cur->name, "pause-sync") ?
			  "pause_resync" : "resume_resync");
}

static void print_eta(uint64_t eta)
{
	printf("%" PRIu64 ":%02" PRIu64 ":%02" PRIu64, eta / 3600, eta / 60 % 60, eta % 60);
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
	       s->conn == NM_CONN_OTHER ? s->conn_str : nm_conn_str(s->conn),
	       s->disk == NM_DISK_OTHER ? s->disk_str : nm_disk_str(s->disk),
	       s->peer_disk == NM_DISK_OTHER ? s->peer_disk_str : nm_disk_str(s->peer_disk),
	       nm_status_sync_percent(s), s->in_sync_regions, s->total_regions);
	if (s->ngroups > NM_SG_BYTES_RECEIVED)
		printf("\n    writes sent %" PRIu64 " received %" PRIu64 " pending %" PRIu64
		       ", bytes sent %" PRIu64 " received %" PRIu64, s->writes_sent,
		       s->writes_received, s->pending, s->bytes_sent, s->bytes_received);
	if (s->ngroups > NM_SG_LAST_ERROR)
		printf("\n    writes rejected %" PRIu64 ", last error %s",
		       s->writes_rejected, s->last_error);
	if (s->ngroups > NM_SG_RESYNC_BYTES) {
		printf("\n    resync %" PRIu64 " KiB/s, eta ", s->resync_kibs);
		print_eta(s->eta_seconds);
		printf(", %" PRIu64 " bytes resynced", s->resync_bytes);
	}
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
		cs = s.conn == NM_CONN_OTHER ? s.conn_str : nm_conn_str(s.conn);
		pct = nm_status_sync_percent(&s);
		/* our own estimate from the in-sync progress */
		if (have_last && t > last_t && s.in_sync_regions >= last_sync) {
			double d = (double)(s.in_sync_regions - last_sync) / (t - last_t);

			rate = rate ? 0.7 * rate + 0.3 * d : d;
		}
		if (rate > 0)
			eta = (double)(s.total_regions - s.in_sync_regions) / rate;
		if (s.ngroups > NM_SG_ETA) {
			/* dm-netmirror >= 1.2: the kernel's resync rate and ETA
			 * (rate 0 until it has measured one: keep ours) */
			kernel = 1;
			kibs = (double)s.resync_kibs;
			if (s.resync_kibs)
				eta = (double)s.eta_seconds;
		}
		if (tty) {
			char bar[41];
			int i, fill = (int)(pct * 40 / 100);

			for (i = 0; i < 40; i++)
				bar[i] = i < fill ? '#' : '.';
			bar[40] = '\0';
			printf("\r%s [%s] %5.1f%% %-11s ", dev, bar, pct, cs);
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
		if (interrupted || (g.timeout > 0 && t - start >= g.timeout)) {
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
	if ((t->opts & NM_OPT_BIT(NM_OPT_META)) && t->meta_dev[0] == '/' &&
	    !stat(t->meta_dev, &st) && S_ISBLK(st.st_mode))
		snprintf(t->meta_dev, sizeof(t->meta_dev), "%u:%u",
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

static const struct cmd cmds[] = {
	{ "create", cmd_create, O_TABLE, 3, 3,
	  "create NAME LOCAL_DEV PEER [--protocol A|B|C] [--ordering flush|drain|none]\n"
	  "       [--listen ADDR:PORT] [--role primary|secondary] [--meta DEV]\n"
	  "       [--region-size SECTORS] [--sync full|none] [--resync-rate KIB_PER_S]\n"
	  "       [--size SECTORS] [-o KEY=VALUE]...",
	  "Create and activate netmirror device NAME over LOCAL_DEV, replicating to PEER." },
	{ "remove", cmd_remove, 0, 1, 1, "remove NAME", "Remove device NAME (retries while busy)." },
	{ "primary", cmd_msg_word, 0, 1, 1, "primary NAME", "Make NAME primary (message \"primary\")." },
	{ "secondary", cmd_msg_word, 0, 1, 1, "secondary NAME", "Make NAME secondary." },
	{ "connect", cmd_msg_word, 0, 1, 1, "connect NAME", "Let NAME connect to its peer." },
	{ "disconnect", cmd_msg_word, 0, 1, 1, "disconnect NAME", "Drop NAME's connection." },
	{ "resync-rate", cmd_resync_rate, 0, 2, 2, "resync-rate NAME KIB_PER_S",
	  "Set the resync rate limit of NAME in KiB/s, 0 = adaptive (message \"resync_rate N\")." },
	{ "pause-sync", cmd_pause_resume, 0, 1, 1, "pause-sync NAME",
	  "Pause a running resync of NAME (message \"pause_resync\")." },
	{ "resume-sync", cmd_pause_resume, 0, 1, 1, "resume-sync NAME",
	  "Resume a paused resync of NAME (message \"resume_resync\")." },
	{ "status", cmd_status, O_JSON, 0, 1, "status [NAME|RESOURCE] [--json]",
	  "Show status of NAME, or of every netmirror device." },
	{ "table", cmd_table, O_TABLE, 1, 3,
	  "table NAME LOCAL_DEV PEER [create options] | table RESOURCE",
	  "Print the table line create/up would load; changes nothing." },
	{ "wait-sync", cmd_wait_sync, O_TIMEOUT, 1, 1, "wait-sync NAME|RESOURCE [--timeout SECONDS]",
	  "Wait until NAME is connected and fully in sync (exit 4 on timeout)." },
	{ "message", cmd_message, 0, 2, -1, "message NAME WORD...",
	  "Send a raw target message to sector 0 of NAME; print any response." },
	{ "up", cmd_up, 0, 1, 1, "up RESOURCE", "Create this host's device for RESOURCE from the config file." },
	{ "down", cmd_down, 0, 1, 1, "down RESOURCE", "Remove this host's device for RESOURCE." },
	{ "adjust", cmd_adjust, 0, 1, 1, "adjust RESOURCE",
	  "Create the device, or reload it if its live table differs from the config." },
};

#define NCMDS (sizeof(cmds) / sizeof(cmds[0]))

static void usage(FILE *f)
{
	size_t i;

	fprintf(f, "usage: nmsetup [-c FILE] [--host NAME] [-n] [-v] COMMAND ARGS...\n\n"
		   "commands:\n");
	for (i = 0; i < NCMDS; i++)
		fprintf(f, "  %s\n", cmds[i].usage);
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

int main(int argc, char **argv)
{
	static char *pos[256];
	int i, npos = 0, only_pos = 0;
	const char *cmdname = NULL;
	size_t c;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i];
		unsigned bit = 0;

		if (only_pos || a[0] != '-' || !a[1]) {
			if (!cmdname)
				cmdname = a;
			else if (npos < 256)
				pos[npos++] = argv[i];
			else
				die_usage("too many arguments");
			if (cmdname && cur == NULL) {
				for (c = 0; c < NCMDS; c++)
					if (!strcmp(cmds[c].name, cmdname))
						cur = &cmds[c];
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
		} else if (match(a, NULL, "--protocol")) {
			g.protocol = optval(argc, argv, &i, "--protocol");
			bit = O_PROTOCOL;
		} else if (match(a, NULL, "--ordering")) {
			g.ordering = optval(argc, argv, &i, "--ordering");
			bit = O_ORDERING;
		} else if (match(a, NULL, "--listen")) {
			g.listen = optval(argc, argv, &i, "--listen");
			bit = O_LISTEN;
		} else if (match(a, NULL, "--role")) {
			g.role = optval(argc, argv, &i, "--role");
			bit = O_ROLE;
		} else if (match(a, NULL, "--meta")) {
			g.meta = optval(argc, argv, &i, "--meta");
			bit = O_META;
		} else if (match(a, NULL, "--region-size")) {
			g.region_size = optval(argc, argv, &i, "--region-size");
			bit = O_REGION;
		} else if (match(a, NULL, "--sync")) {
			g.sync = optval(argc, argv, &i, "--sync");
			bit = O_SYNC;
		} else if (match(a, NULL, "--resync-rate")) {
			g.resync_rate = optval(argc, argv, &i, "--resync-rate");
			bit = O_RATE;
		} else if (match(a, NULL, "--size")) {
			g.size = optval(argc, argv, &i, "--size");
			bit = O_SIZE;
		} else if (match(a, "-o", "--option")) {
			if (g.nopts >= MAX_OPTS)
				die_usage("too many -o options");
			g.opts[g.nopts++] = optval(argc, argv, &i, "-o");
			bit = O_OPTION;
		} else if (match(a, NULL, "--json")) {
			g.json = 1;
			bit = O_JSON;
		} else if (match(a, NULL, "--timeout")) {
			const char *v = optval(argc, argv, &i, "--timeout");
			char *end;

			g.timeout = strtod(v, &end);
			if (*end || g.timeout <= 0)
				die_usage("--timeout \"%s\": expected seconds > 0", v);
			bit = O_TIMEOUT;
		} else if (cur && !strcmp(cur->name, "message")) {
			if (npos < 256)
				pos[npos++] = argv[i];	/* e.g. "message nm0 -x" */
			continue;
		} else {
			die_usage("unknown option \"%s\"", a);
		}
		g.given |= bit;
	}
	if (!cur) {
		if (g.help) {
			usage(stdout);
			return EX_OK;
		}
		usage(stderr);
		return EX_USAGE;
	}
	if (g.help) {
		printf("usage: nmsetup %s\n\n%s\n", cur->usage, cur->help);
		return EX_OK;
	}
	if (g.given & ~cur->opts) {
		for (c = 0; c < 12; c++) {
			static const char *const names[] = {
				"--protocol", "--ordering", "--listen", "--role", "--size",
				"-o", "--json", "--timeout", "--meta", "--region-size",
				"--sync", "--resync-rate",
			};
			if (g.given & ~cur->opts & (1u << c))
				die_usage("%s is not valid for %s", names[c], cur->name);
		}
	}
	if (npos < cur->min_args || (cur->max_args >= 0 && npos > cur->max_args))
		die_usage("wrong number of arguments for %s", cur->name);
	g.argc = npos;
	g.argv = pos;
	nm_dm_set_verbose(g.verbose);
	return cur->fn();
}
