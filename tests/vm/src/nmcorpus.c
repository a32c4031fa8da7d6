// SPDX-License-Identifier: GPL-2.0-only
/*
 * nmcorpus - the shared corpus (tests/corpus) against the kernel and
 * libdmnet in one process, for guest-lib/tables.sh.  Each corpus case used
 * to take three to eight dmsetup processes, and under TCG each costs 60 to
 * 120 ms: nm-tables spent three minutes starting dmsetup.  The kernel is
 * driven through libdevmapper (as dmsetup does; DM_DISABLE_UDEV=1 in the
 * test VMs: no udev), and its refusal texts are read from /dev/kmsg.
 * mkoverlay: dynamic -ldevmapper
 *
 *   nmcorpus tables FILE META [err]
 *        every line of FILE (substituted table-lines.txt: name TAB verdict
 *        TAB line TAB expected; "err": only the refused ones), created as
 *        device nmc: table/<name> (the kernel's verdict: reprint or refusal
 *        text) and agree/table/<name> (libdmnet's verdict is the kernel's).
 *        META's first 64 KiB are zeroed before each line naming " meta ".
 *   nmcorpus kernel FILE META
 *        the same for lines only the kernel can judge (devices, keys): the
 *        check is named <name>, and libdmnet is not asked.
 *   nmcorpus load DEV FILE
 *        every refused line loaded into the live device DEV: reload/<name>.
 *   nmcorpus messages DEV FILE PREFIX|- [err [ERE]]
 *        every message of FILE sent to DEV: PREFIX/<name> ("-": "message",
 *        and the agree/message/<name> checks too).
 *
 * Semantics are those of tables.sh (read its comments).  Output, one line
 * each: "PASS\tNAME", "FAIL\tNAME\tDETAIL", "LOG\tTEXT", and at the end
 * "COUNT\tCASES\tFAILED".  Exit 0, or 2 on a usage or setup error.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <regex.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <libdevmapper.h>

#include "libdmnet.h"

#define TXT 4096

static int kfd = -1;
static unsigned long ncases, nbad;

/* snprintf that truncates quietly (texts here are bounded by the corpus) */
static void fmt(char *d, size_t n, const char *f, ...)
	__attribute__((format(printf, 3, 4)));
static void fmt(char *d, size_t n, const char *f, ...)
{
	va_list ap;

	va_start(ap, f);
	vsnprintf(d, n, f, ap);
	va_end(ap);
}

static void out_check(int ok, const char *name, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void out_check(int ok, const char *name, const char *fmt, ...)
{
	char d[2 * TXT];
	va_list ap;
	char *p;

	if (ok) {
		printf("PASS\t%s\n", name);
		return;
	}
	nbad++;
	va_start(ap, fmt);
	vsnprintf(d, sizeof(d), fmt, ap);
	va_end(ap);
	for (p = d; *p; p++)
		if (*p == '\t' || *p == '\n')
			*p = ' ';
	printf("FAIL\t%s\t%s\n", name, d);
}

static void check_eq(const char *name, const char *got, const char *want)
{
	out_check(!strcmp(got, want), name, "got '%s', want '%s'", got, want);
}

/* --- the kernel log: records logged after kmsg_mark() --- */

static void kmsg_mark(void)
{
	lseek(kfd, 0, SEEK_END);
}

/*
 * The text after @after in the last record since the mark that contains
 * @needle ("" if none); the record's first line only.
 */
static void kmsg_last(const char *needle, char *out, size_t len)
{
	char rec[8192], *msg, *nl;
	ssize_t n;

	out[0] = '\0';
	for (;;) {
		n = read(kfd, rec, sizeof(rec) - 1);
		if (n < 0 && errno == EPIPE)
			continue;	/* overwritten records: read on */
		if (n <= 0)
			break;
		rec[n] = '\0';
		msg = strchr(rec, ';');
		if (!msg)
			continue;
		msg++;
		nl = strchr(msg, '\n');
		if (nl)
			*nl = '\0';
		if (strstr(msg, needle))
			fmt(out, len, "%s", msg);
	}
}

/* "...device-mapper: table: 253:0: netmirror: TEXT (-EINVAL)" -> TEXT */
static void ctr_text(char *out, size_t len)
{
	char rec[TXT], *p, *e;

	kmsg_last("device-mapper: table: ", rec, sizeof(rec));
	p = strstr(rec, "device-mapper: table: ");
	if (p) {
		p += strlen("device-mapper: table: ");
		p = strchr(p, ' ');	/* after "<dev>:" */
		if (p && !strncmp(p, " netmirror: ", 12))
			p += 12;
		else
			p = NULL;
	}
	if (!p) {
		out[0] = '\0';
		return;
	}
	e = strrchr(p, ' ');
	if (e && e[1] == '(' && e[2] == '-' && e[strlen(e) - 1] == ')')
		*e = '\0';
	fmt(out, len, "%s", p);
}

/* "...device-mapper: netmirror: 253:0: TEXT" -> TEXT */
static void msg_text(char *out, size_t len)
{
	char rec[TXT], *p;

	kmsg_last("device-mapper: netmirror: ", rec, sizeof(rec));
	p = strstr(rec, "device-mapper: netmirror: ");
	if (p) {
		p += strlen("device-mapper: netmirror: ");
		p += strspn(p, "0123456789");
		if (*p == ':')
			p++;
		p += strspn(p, "0123456789");
		if (*p == ':' && p[1] == ' ')
			p += 2;
		else
			p = NULL;
	}
	fmt(out, len, "%s", p ? p : "");
}

/* --- device-mapper through libdevmapper --- */

static void dm_quiet(int level, const char *file, int line, int dm_errno,
		     const char *f, ...)
{
	(void)level;
	(void)file;
	(void)line;
	(void)dm_errno;
	(void)f;
}

/* "START LEN TYPE PARAMS" as dmsetup reads a table line */
static int split_line(const char *line, uint64_t *start, uint64_t *size,
		      char *type, const char **params)
{
	int n = 0;

	if (sscanf(line, "%" SCNu64 " %" SCNu64 " %63s %n", start, size, type,
		   &n) < 3 || !n)
		return -1;
	*params = line + n;
	return 0;
}

static int dm_load(int op, const char *name, const char *line)
{
	const char *params;
	struct dm_task *t;
	uint64_t s, z;
	char type[64];
	int r;

	if (split_line(line, &s, &z, type, &params))
		return -1;
	t = dm_task_create(op);
	if (!t)
		return -1;
	r = dm_task_set_name(t, name) &&
	    dm_task_add_target(t, s, z, type, params) && dm_task_run(t);
	dm_task_destroy(t);
	return r ? 0 : -1;
}

static int dm_simple(int op, const char *name)
{
	struct dm_task *t = dm_task_create(op);
	int r;

	if (!t)
		return -1;
	if (op == DM_DEVICE_REMOVE)
		dm_task_retry_remove(t);
	r = dm_task_set_name(t, name) && dm_task_run(t);
	dm_task_destroy(t);
	return r ? 0 : -1;
}

/* the table (or status) as "dmsetup table|status" prints it */
static int dm_get(int op, const char *name, int inactive, char *out,
		  size_t len)
{
	char *type = NULL, *params = NULL;
	struct dm_task *t = dm_task_create(op);
	uint64_t s, z;
	size_t o = 0;
	void *next = NULL;
	int r;

	out[0] = '\0';
	if (!t)
		return -1;
	r = dm_task_set_name(t, name) &&
	    (!inactive || dm_task_query_inactive_table(t)) && dm_task_run(t);
	if (r) {
		do {
			next = dm_get_next_target(t, next, &s, &z, &type,
						  &params);
			if (type && o < len)
				o += snprintf(out + o, len - o,
					      "%s%" PRIu64 " %" PRIu64 " %s %s",
					      o ? "\n" : "", s, z, type,
					      params ? params : "");
		} while (next);
	}
	dm_task_destroy(t);
	return r ? 0 : -1;
}

static int dm_exists(const char *name)
{
	struct dm_task *t = dm_task_create(DM_DEVICE_INFO);
	struct dm_info i;
	int r;

	if (!t)
		return 0;
	r = dm_task_set_name(t, name) && dm_task_run(t) &&
	    dm_task_get_info(t, &i) && i.exists;
	dm_task_destroy(t);
	return r;
}

/* table | role | connection | table slots and suspension */
static void dm_state(const char *name, char *out, size_t len)
{
	char tab[TXT], st[TXT], role[64] = "", conn[64] = "";
	struct dm_task *t;
	struct dm_info i = { 0 };

	dm_get(DM_DEVICE_TABLE, name, 0, tab, sizeof(tab));
	dm_get(DM_DEVICE_STATUS, name, 0, st, sizeof(st));
	/* "START LEN netmirror ROLE CONNECTION ..." */
	sscanf(st, "%*s %*s %*s %63s %63s", role, conn);
	t = dm_task_create(DM_DEVICE_INFO);
	if (t) {
		if (!(dm_task_set_name(t, name) && dm_task_run(t) &&
		      dm_task_get_info(t, &i)))
			memset(&i, 0, sizeof(i));
		dm_task_destroy(t);
	}
	fmt(out, len, "%s|%s|%s|%c%c%c%c", tab, role, conn,
		 i.live_table ? 'L' : '-', i.inactive_table ? 'I' : '-',
		 i.suspended ? 's' : '-', i.read_only ? 'r' : 'w');
}

/* --- the corpus --- */

struct row {
	char *name, *verdict, *input, *want;
};

/* name TAB verdict TAB input [TAB expected]; the line is modified */
static int split_row(char *l, struct row *r)
{
	char *f[4] = { NULL, NULL, NULL, NULL };
	int i;

	l[strcspn(l, "\n")] = '\0';
	for (i = 0; i < 4 && l; i++) {
		f[i] = l;
		l = strchr(l, '\t');
		if (l)
			*l++ = '\0';
	}
	if (!f[2])
		return -1;
	r->name = f[0];
	r->verdict = f[1];
	r->input = f[2];
	r->want = f[3] ? f[3] : "";
	return 0;
}

static FILE *open_corpus(const char *path)
{
	FILE *f = fopen(path, "r");

	if (!f) {
		fprintf(stderr, "nmcorpus: %s: %s\n", path, strerror(errno));
		exit(2);
	}
	return f;
}

static void zero_meta(const char *meta)
{
	void *buf;
	int fd;

	if (posix_memalign(&buf, 4096, 65536))
		return;
	memset(buf, 0, 65536);
	fd = open(meta, O_WRONLY | O_DIRECT);
	if (fd < 0 || pwrite(fd, buf, 65536, 0) != 65536)
		printf("LOG\tcannot zero %s: %s\n", meta, strerror(errno));
	if (fd >= 0)
		close(fd);
	free(buf);
}

static void lib_table(const char *line, char *out, size_t len)
{
	char err[NM_ERRLEN] = "", buf[NM_LINE_MAX];
	struct nm_table t;

	if (nm_table_parse_line(line, &t, err, sizeof(err)))
		fmt(out, len, "err %s", err);
	else if (nm_table_format_line(&t, buf, sizeof(buf)) < 0)
		fmt(out, len, "err (nm_table_format_line failed)");
	else
		fmt(out, len, "ok %s", buf);
}

static void do_tables(const char *path, const char *meta, int err_only,
		      int agree)
{
	char l[2 * TXT], kgot[2 * TXT], lgot[2 * TXT], want[2 * TXT];
	char txt[TXT], tab[TXT], cn[TXT + 16];
	FILE *f = open_corpus(path);
	struct row r;

	while (fgets(l, sizeof(l), f)) {
		if (split_row(l, &r))
			continue;
		if (err_only && strcmp(r.verdict, "err"))
			continue;
		ncases++;
		lib_table(r.input, lgot, sizeof(lgot));
		if (strstr(r.input, " meta "))
			zero_meta(meta);
		kmsg_mark();
		if (!dm_load(DM_DEVICE_CREATE, "nmc", r.input)) {
			dm_get(DM_DEVICE_TABLE, "nmc", 0, tab, sizeof(tab));
			fmt(kgot, sizeof(kgot), "ok %s", tab);
			if (dm_simple(DM_DEVICE_REMOVE, "nmc") &&
			    dm_simple(DM_DEVICE_REMOVE, "nmc")) {
				fprintf(stderr, "table/%s: cannot remove nmc\n",
					r.name);
				exit(2);
			}
		} else {
			ctr_text(txt, sizeof(txt));
			fmt(kgot, sizeof(kgot), "err %s", txt);
			if (dm_exists("nmc")) {
				strncat(kgot, " (and left a device behind)",
					sizeof(kgot) - strlen(kgot) - 1);
				dm_simple(DM_DEVICE_REMOVE, "nmc");
			}
		}
		fmt(want, sizeof(want), "%s %s", r.verdict, r.want);
		fmt(cn, sizeof(cn), "%s%s", agree ? "table/" : "", r.name);
		check_eq(cn, kgot, want);
		if (!agree)
			continue;
		fmt(cn, sizeof(cn), "agree/table/%s", r.name);
		check_eq(cn, lgot, kgot);
	}
	fclose(f);
}

static void do_load(const char *dev, const char *path)
{
	char l[2 * TXT], kgot[2 * TXT], want[2 * TXT], txt[TXT], tab[TXT];
	char cn[TXT + 16];
	FILE *f = open_corpus(path);
	struct row r;

	while (fgets(l, sizeof(l), f)) {
		if (split_row(l, &r) || strcmp(r.verdict, "err"))
			continue;
		ncases++;
		kmsg_mark();
		if (!dm_load(DM_DEVICE_RELOAD, dev, r.input)) {
			dm_get(DM_DEVICE_TABLE, dev, 1, tab, sizeof(tab));
			fmt(kgot, sizeof(kgot), "ok (loaded: %s)", tab);
			dm_simple(DM_DEVICE_CLEAR, dev);
		} else {
			ctr_text(txt, sizeof(txt));
			fmt(kgot, sizeof(kgot), "err %s", txt);
		}
		fmt(want, sizeof(want), "err %s", r.want);
		fmt(cn, sizeof(cn), "reload/%s", r.name);
		check_eq(cn, kgot, want);
	}
	fclose(f);
}

/* the state once it stopped changing (a message before may act later) */
static void settled(const char *dev, char *out, size_t len)
{
	char b[3 * TXT];
	const struct timespec ts = { 0, 300000000 };
	int i;

	dm_state(dev, out, len);
	for (i = 0; i < 10; i++) {
		nanosleep(&ts, NULL);
		dm_state(dev, b, sizeof(b));
		if (!strcmp(out, b))
			break;
		fmt(out, len, "%s", b);
	}
}

/* the words of @in joined by one space, as dmsetup joins its arguments */
static void join_words(const char *in, char *out, size_t len)
{
	size_t o = 0, n;

	out[0] = '\0';
	for (;;) {
		in += strspn(in, " \t");
		n = strcspn(in, " \t");
		if (!n)
			break;
		if (o + n + 2 > len)
			break;
		if (o)
			out[o++] = ' ';
		memcpy(out + o, in, n);
		o += n;
		out[o] = '\0';
		in += n;
	}
}

static void do_messages(const char *dev, const char *path, const char *prefix,
			int err_only, const char *ere)
{
	char l[2 * TXT], msg[TXT], kgot[3 * TXT], ktext[TXT], want[2 * TXT];
	char before[3 * TXT], after[3 * TXT], lgot[TXT], first[64];
	char err[NM_ERRLEN], cn[TXT + 16], pre[256], tmp[4 * TXT];
	FILE *f = open_corpus(path);
	int agree_pass = !strcmp(prefix, "-"), last_ok = 1, is_err, r, agree;
	struct dm_task *t;
	regex_t re;
	struct row w;

	fmt(pre, sizeof(pre), "%s", agree_pass ? "message" : prefix);
	if (ere && regcomp(&re, ere, REG_EXTENDED | REG_NOSUB)) {
		fprintf(stderr, "nmcorpus: bad ERE %s\n", ere);
		exit(2);
	}
	while (fgets(l, sizeof(l), f)) {
		if (split_row(l, &w))
			continue;
		is_err = !strcmp(w.verdict, "err");
		if (err_only && !is_err)
			continue;
		if (ere && regexec(&re, w.name, 0, NULL, 0))
			continue;
		ncases++;
		if (is_err) {
			if (last_ok)
				settled(dev, before, sizeof(before));
			else
				dm_state(dev, before, sizeof(before));
		}
		last_ok = !is_err;
		join_words(w.input, msg, sizeof(msg));
		kmsg_mark();
		t = dm_task_create(DM_DEVICE_TARGET_MSG);
		r = t && dm_task_set_name(t, dev) && dm_task_set_sector(t, 0) &&
		    dm_task_set_message(t, msg) && dm_task_run(t);
		if (t)
			dm_task_destroy(t);
		ktext[0] = '\0';
		if (r) {
			fmt(kgot, sizeof(kgot), "ok");
		} else {
			msg_text(ktext, sizeof(ktext));
			first[0] = '\0';
			sscanf(msg, "%63s", first);
			fmt(tmp, sizeof(tmp), "Invalid %s ", first);
			if (!strncmp(ktext, "unknown message", 15) ||
			    !strncmp(ktext, tmp, strlen(tmp))) {
				fmt(kgot, sizeof(kgot), "err %s", ktext);
			} else if (!ktext[0]) {
				fmt(kgot, sizeof(kgot),
					 "err (nothing logged)");
			} else {
				/* refused by the device's state: parsed */
				printf("LOG\t%s/%s: '%s' refused by %s's state: %s\n",
				       pre, w.name, msg, dev, ktext);
				fmt(kgot, sizeof(kgot), "ok");
			}
		}
		if (is_err) {
			fmt(tmp, sizeof(tmp), "err %s", w.want);
			if (!strncmp(kgot, tmp, strlen(tmp)))
				fmt(kgot, sizeof(kgot), "%s", tmp);
			dm_state(dev, after, sizeof(after));
			if (strcmp(before, after)) {
				fmt(tmp, sizeof(tmp),
					 "%s (changed %s: '%s' -> '%s')", kgot,
					 dev, before, after);
				fmt(kgot, sizeof(kgot), "%s", tmp);
			}
		}
		fmt(want, sizeof(want), "%s%s%s", w.verdict,
			 w.want[0] ? " " : "", w.want);
		fmt(cn, sizeof(cn), "%s/%s", pre, w.name);
		check_eq(cn, kgot, want);
		if (!agree_pass)
			continue;
		err[0] = '\0';
		if (nm_message_check(msg, err, sizeof(err)))
			fmt(lgot, sizeof(lgot), "err %s", err);
		else
			fmt(lgot, sizeof(lgot), "ok");
		agree = 0;
		if (!strcmp(lgot, "ok")) {
			agree = !strcmp(kgot, "ok");
		} else {
			fmt(tmp, sizeof(tmp), "err %s", ktext);
			agree = !strncmp(tmp, lgot, strlen(lgot)) &&
				strcmp(kgot, "ok");
		}
		fmt(cn, sizeof(cn), "agree/message/%s", w.name);
		out_check(agree, cn, "libdmnet: '%s', kernel: '%s' (logged: '%s')",
			  lgot, kgot, ktext);
	}
	if (ere)
		regfree(&re);
	fclose(f);
}

static void usage(void)
{
	fprintf(stderr,
		"usage: nmcorpus tables FILE META [err]\n"
		"       nmcorpus kernel FILE META\n"
		"       nmcorpus load DEV FILE\n"
		"       nmcorpus messages DEV FILE PREFIX|- [err [ERE]]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	if (argc < 4)
		usage();
	setvbuf(stdout, NULL, _IOLBF, 0);
	dm_log_with_errno_init(dm_quiet);
	dm_udev_set_sync_support(0);
	kfd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK);
	if (kfd < 0) {
		fprintf(stderr, "nmcorpus: /dev/kmsg: %s\n", strerror(errno));
		return 2;
	}
	if (!strcmp(argv[1], "tables") && argc <= 5)
		do_tables(argv[2], argv[3], argc == 5 && !strcmp(argv[4], "err"), 1);
	else if (!strcmp(argv[1], "kernel") && argc == 4)
		do_tables(argv[2], argv[3], 0, 0);
	else if (!strcmp(argv[1], "load") && argc == 4)
		do_load(argv[2], argv[3]);
	else if (!strcmp(argv[1], "messages") && argc >= 5 && argc <= 7)
		do_messages(argv[2], argv[3], argv[4],
			    argc >= 6 && !strcmp(argv[5], "err"),
			    argc == 7 ? argv[6] : NULL);
	else
		usage();
	printf("COUNT\t%lu\t%lu\n", ncases, nbad);
	dm_lib_release();
	return 0;
}
