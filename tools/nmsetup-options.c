// SPDX-License-Identifier: GPL-2.0-only
/*
 * nmsetup options: the tables of nm_params.h (table options, nmsetup's
 * flags, messages, status fields) printed as text, JSON, or the
 * fragments of the man pages and of docs/netmirror.rst
 * (scripts/gen-docs.sh).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nmsetup.h"

/* "--region-size" for keyword "region_size" */
void flag_name(const char *kw, char *buf, size_t len)
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
void opt_limits(const struct nm_opt_def *d, char *buf, size_t len)
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

/* ,"KEY":"VAL" (VAL escaped) */
static void json_field(const char *key, const char *val)
{
	printf(",\"%s\":", key);
	json_str(val);
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

/* an entry's last fields: "want" (if any), "help"; its end */
static void json_end(const char *want, const char *help)
{
	if (want)
		json_field("want", want);
	json_field("help", help);
	printf("}");
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
		printf("]");
		json_end(d[i].want, d[i].help);
	}
	printf("],\n\"messages\":[");
	for (i = 0; i < NM_MSG_COUNT; i++) {
		printf("%s\n {\"word\":\"%s\",\"args\":%u,\"since\":\"%d.%u\"",
		       i ? "," : "", m[i].word, m[i].nargs, NM_TARGET_MAJOR,
		       m[i].min_minor);
		json_field("arg", m[i].arg_help);
		json_end(m[i].want, m[i].help);
	}
	printf("],\n\"status_fields\":[");
	for (i = 0; i < NSF; i++) {
		printf("%s\n {\"name\":\"%s\",\"position\":%zu,\"since\":\"%d.%u\"",
		       i ? "," : "", sfields[i].name, i + 1, NM_TARGET_MAJOR,
		       sfields[i].since);
		json_end(NULL, sfields[i].help);
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
		opt_limits(&d[i], lim, sizeof(lim));
		printf(".TP\n.B%s ", d[i].type == NM_PT_ENUM ? "R" : "I");
		man_word(f);
		printf(" \" %s\"\n%s (table option\n.BR %s ;\n%s%starget %d.%u).\n",
		       d[i].value_help, d[i].help, d[i].keyword, lim,
		       lim[0] ? "; " : "", NM_TARGET_MAJOR, d[i].min_minor);
	}
	for (i = 0; want_table(which, "options") && i < NM_OPT_COUNT; i++) {
		opt_limits(&d[i], lim, sizeof(lim));
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

/*
 * A table's header row: NCOL column names, separated from the table
 * before it (*first: none yet) by an empty line.
 */
static void rst_head(struct rst *t, int *first, unsigned ncol,
		     const char *const *names)
{
	unsigned c;

	if (!*first)
		putchar('\n');
	*first = 0;
	memset(t, 0, sizeof(*t));
	t->ncol = ncol;
	for (c = 0; c < ncol; c++)
		snprintf(t->cell[0][c], 256, "%s", names[c]);
}

/* Row @r's last two columns (from @c): since which target version, meaning. */
static void rst_since(struct rst *t, size_t r, unsigned c, unsigned minor,
		      const char *help)
{
	snprintf(t->cell[r][c], 256, "%d.%u", NM_TARGET_MAJOR, minor);
	snprintf(t->cell[r][c + 1], 256, "%s", help);
}

/* The table's rows are filled: its header and @nrow - 1 rows, printed */
static void rst_end(struct rst *t, unsigned nrow)
{
	t->nrow = nrow;
	rst_print(t);
}

static void options_rst(const char *which)
{
	static const char *const opt_cols[] = { "option", "range, default", "since", "meaning" };
	static const char *const msg_cols[] = { "message", "since", "meaning" };
	static const char *const sf_cols[] = { "#", "field", "since", "meaning" };
	const struct nm_opt_def *d = nm_opt_defs(NULL);
	const struct nm_msg_def *m = nm_msg_defs(NULL);
	static struct rst t;
	char lim[128];
	size_t i;
	int first = 1;

	if (want_table(which, "options")) {
		rst_head(&t, &first, 4, opt_cols);
		for (i = 0; i < NM_OPT_COUNT; i++) {
			opt_limits(&d[i], lim, sizeof(lim));
			snprintf(t.cell[i + 1][0], 256, "``%s %s``", d[i].keyword,
				 d[i].value_help);
			snprintf(t.cell[i + 1][1], 256, "%s", lim[0] ? lim : "-");
			rst_since(&t, i + 1, 2, d[i].min_minor, d[i].help);
		}
		rst_end(&t, NM_OPT_COUNT + 1);
	}
	if (want_table(which, "messages")) {
		rst_head(&t, &first, 3, msg_cols);
		for (i = 0; i < NM_MSG_COUNT; i++) {
			snprintf(t.cell[i + 1][0], 256, "``%s%s%s``", m[i].word,
				 m[i].nargs ? " " : "", m[i].arg_help);
			rst_since(&t, i + 1, 1, m[i].min_minor, m[i].help);
		}
		rst_end(&t, NM_MSG_COUNT + 1);
	}
	if (want_table(which, "status")) {
		rst_head(&t, &first, 4, sf_cols);
		for (i = 0; i < NSF; i++) {
			snprintf(t.cell[i + 1][0], 256, "%zu", i + 1);
			snprintf(t.cell[i + 1][1], 256, "``%s``", sfields[i].name);
			rst_since(&t, i + 1, 2, sfields[i].since, sfields[i].help);
		}
		rst_end(&t, NSF + 1);
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
		opt_limits(&d[i], lim, sizeof(lim));
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

int cmd_options(void)
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
