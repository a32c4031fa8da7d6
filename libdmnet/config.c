// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * /etc/netmirror.conf parser (see man/netmirror.conf.5).  Pure code.
 *
 *   # comment
 *   resource r0 {
 *       protocol C;             # A|B|C, default C
 *       ordering flush;         # flush|drain|none, default flush
 *       region_size 1024;       # any table option (not listen) ...
 *       on alpha {
 *           device nm0;         # dm name -> /dev/mapper/nm0
 *           disk /dev/vdb;      # local_dev
 *           address 169.254.0.1:7789;   # this host; the peer connects here
 *           role primary;       # ... per-host options override
 *           size 2097152;       # optional, sectors; default: disk size
 *       }
 *       on beta { device nm0; disk /dev/vdb; address 169.254.0.2:7789; }
 *   }
 *
 * Tokens: words, "double quoted words", '{', '}', ';'.
 */
#include <ctype.h>
#include <stdarg.h>
#include <stddef.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libdmnet.h"
#include "internal.h"

enum tok { T_EOF, T_WORD, T_LBRACE, T_RBRACE, T_SEMI, T_ERR };

struct lexer {
	const char *p;
	unsigned line;
	const char *fname;
	char word[NM_DEV_MAX];
	unsigned tok_line;
	char *err;
	size_t errlen;
};

static void lerr(struct lexer *l, unsigned line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void lerr(struct lexer *l, unsigned line, const char *fmt, ...)
{
	char m[NM_ERRLEN];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(m, sizeof(m), fmt, ap);
	va_end(ap);
	nm_seterr(l->err, l->errlen, "%s:%u: %s", l->fname, line, m);
}

static enum tok next(struct lexer *l)
{
	size_t n = 0;

	for (;;) {
		while (*l->p && isspace((unsigned char)*l->p)) {
			if (*l->p == '\n')
				l->line++;
			l->p++;
		}
		if (*l->p != '#')
			break;
		while (*l->p && *l->p != '\n')
			l->p++;
	}
	l->tok_line = l->line;
	switch (*l->p) {
	case '\0':
		return T_EOF;
	case '{':
		l->p++;
		return T_LBRACE;
	case '}':
		l->p++;
		return T_RBRACE;
	case ';':
		l->p++;
		return T_SEMI;
	case '"':
		l->p++;
		while (*l->p && *l->p != '"' && *l->p != '\n') {
			if (n + 1 >= sizeof(l->word)) {
				lerr(l, l->line, "word too long");
				return T_ERR;
			}
			l->word[n++] = *l->p++;
		}
		if (*l->p != '"') {
			lerr(l, l->line, "unterminated quoted string");
			return T_ERR;
		}
		l->p++;
		l->word[n] = '\0';
		return T_WORD;
	}
	while (*l->p && !isspace((unsigned char)*l->p) && !strchr("{};#\"", *l->p)) {
		if (n + 1 >= sizeof(l->word)) {
			lerr(l, l->line, "word too long");
			return T_ERR;
		}
		l->word[n++] = *l->p++;
	}
	l->word[n] = '\0';
	return T_WORD;
}

static const char *tokname(enum tok t)
{
	switch (t) {
	case T_EOF: return "end of file";
	case T_LBRACE: return "'{'";
	case T_RBRACE: return "'}'";
	case T_SEMI: return "';'";
	default: return "word";
	}
}

/* Read "<value> ;" into buf.  */
static int value_semi(struct lexer *l, const char *kw, char *buf, size_t len)
{
	enum tok t = next(l);

	if (t == T_ERR)
		return -EINVAL;
	if (t != T_WORD) {
		lerr(l, l->tok_line, "expected a value after \"%s\", got %s", kw, tokname(t));
		return -EINVAL;
	}
	if (strlen(l->word) >= len) {
		lerr(l, l->tok_line, "value of \"%s\" too long", kw);
		return -EINVAL;
	}
	strcpy(buf, l->word);
	t = next(l);
	if (t == T_ERR)
		return -EINVAL;
	if (t != T_SEMI) {
		lerr(l, l->tok_line, "expected ';' after \"%s %.40s\", got %s", kw, buf,
		     t == T_WORD ? l->word : tokname(t));
		return -EINVAL;
	}
	return 0;
}

static int add_opt(struct lexer *l, struct nm_conf_opt *opts, unsigned *nopts,
		   const char *kw)
{
	struct nm_table scratch;
	char e[NM_ERRLEN];
	unsigned i, line = l->tok_line;

	if (!strcmp(kw, "listen")) {
		lerr(l, line, "\"listen\" is not allowed here: it is the host's \"address\"");
		return -EINVAL;
	}
	for (i = 0; i < *nopts; i++) {
		if (!strcmp(opts[i].keyword, kw)) {
			lerr(l, line, "\"%s\" given twice (first on line %u)", kw, opts[i].line);
			return -EINVAL;
		}
	}
	if (*nopts >= NM_CONF_MAX_OPTS) {
		lerr(l, line, "too many options");
		return -EINVAL;
	}
	if (value_semi(l, kw, opts[*nopts].value, sizeof(opts[*nopts].value)))
		return -EINVAL;
	nm_table_init(&scratch);
	if (nm_table_set_option(&scratch, kw, opts[*nopts].value, e, sizeof(e))) {
		lerr(l, line, "%s", e);
		return -EINVAL;
	}
	strcpy(opts[*nopts].keyword, kw);	/* a static option keyword */
	opts[*nopts].line = line;
	(*nopts)++;
	return 0;
}

/*
 * The keywords of an "on HOST" section other than table options: each at
 * most once, then value, check, copy.
 */
static int set_device(struct nm_conf_host *h, const char *v, char *e, size_t el)
{
	if (nm_stack_check_name(v, e, el))
		return -EINVAL;
	snprintf(h->device, sizeof(h->device), "%s", v);
	return 0;
}

static int set_disk(struct nm_conf_host *h, const char *v, char *e, size_t el)
{
	char m[NM_ERRLEN];

	if (nm_parse_dev(v, h->disk, sizeof(h->disk), m, sizeof(m))) {
		nm_seterr(e, el, "disk: %s", m);
		return -EINVAL;
	}
	return 0;
}

static int set_address(struct nm_conf_host *h, const char *v, char *e, size_t el)
{
	struct nm_addr a;
	char m[NM_ERRLEN];

	if (nm_parse_addr(v, &a, m, sizeof(m))) {
		nm_seterr(e, el, "address: %s", m);
		return -EINVAL;
	}
	if (nm_format_addr(&a, h->address, sizeof(h->address)) < 0) {
		nm_seterr(e, el, "address too long");
		return -EINVAL;
	}
	return 0;
}

static int set_size(struct nm_conf_host *h, const char *v, char *e, size_t el)
{
	if (nm_parse_u64(v, &h->size) || !h->size) {
		nm_seterr(e, el, "size must be a decimal sector count > 0");
		return -EINVAL;
	}
	return 0;
}

static const struct host_kw {
	const char *kw;
	int (*set)(struct nm_conf_host *h, const char *v, char *e, size_t el);
} host_kws[] = {
	{ "device", set_device },
	{ "disk", set_disk },
	{ "address", set_address },
	{ "size", set_size },
};

static const struct host_kw *host_kw_find(const char *w)
{
	size_t i;

	for (i = 0; i < NELEM(host_kws); i++)
		if (!strcmp(host_kws[i].kw, w))
			return &host_kws[i];
	return NULL;
}

static int parse_host(struct lexer *l, struct nm_conf_resource *r)
{
	const struct host_kw *k;
	struct nm_conf_host *h;
	char e[NM_ERRLEN], tmp[NM_DEV_MAX];
	unsigned i, seen = 0;
	enum tok t;

	if (r->nhosts >= NM_CONF_MAX_HOSTS) {
		lerr(l, l->tok_line, "resource %s: more than %d \"on\" sections",
		     r->name, NM_CONF_MAX_HOSTS);
		return -EINVAL;
	}
	h = &r->hosts[r->nhosts];
	memset(h, 0, sizeof(*h));
	h->line = l->tok_line;
	t = next(l);
	if (t != T_WORD) {
		if (t != T_ERR)
			lerr(l, l->tok_line, "expected a host name after \"on\"");
		return -EINVAL;
	}
	if (strlen(l->word) >= sizeof(h->name)) {
		lerr(l, l->tok_line, "host name too long");
		return -EINVAL;
	}
	strcpy(h->name, l->word);
	for (i = 0; i < r->nhosts; i++) {
		if (!strcmp(r->hosts[i].name, h->name)) {
			lerr(l, l->tok_line, "host \"%s\" given twice in resource %s",
			     h->name, r->name);
			return -EINVAL;
		}
	}
	t = next(l);
	if (t != T_LBRACE) {
		if (t != T_ERR)
			lerr(l, l->tok_line, "expected '{' after \"on %s\"", h->name);
		return -EINVAL;
	}
	for (;;) {
		unsigned line;

		t = next(l);
		line = l->tok_line;
		if (t == T_RBRACE)
			break;
		if (t == T_ERR)
			return -EINVAL;
		if (t != T_WORD) {
			lerr(l, line, "expected a keyword or '}' in \"on %s\", got %s",
			     h->name, tokname(t));
			return -EINVAL;
		}
		k = host_kw_find(l->word);
		if (k) {
			if (seen & (1u << (k - host_kws))) {
				lerr(l, line, "\"%s\" given twice", k->kw);
				return -EINVAL;
			}
			if (value_semi(l, k->kw, tmp, sizeof(tmp)))
				return -EINVAL;
			if (k->set(h, tmp, e, sizeof(e))) {
				lerr(l, line, "%s", e);
				return -EINVAL;
			}
			seen |= 1u << (k - host_kws);
		} else if (nm_opt_find(l->word)) {
			if (add_opt(l, h->opts, &h->nopts,
				    nm_opt_find(l->word)->keyword))
				return -EINVAL;
		} else {
			lerr(l, line, "unknown keyword \"%.40s\" in \"on %s\" (expected device, disk, address, size or a table option)",
			     l->word, h->name);
			return -EINVAL;
		}
	}
	if (!h->device[0] || !h->disk[0] || !h->address[0]) {
		lerr(l, h->line, "\"on %s\" needs device, disk and address", h->name);
		return -EINVAL;
	}
	r->nhosts++;
	return 0;
}

/* The positional table words a resource may set (kept as text). */
static int check_protocol(const char *v)
{
	enum dmnet_protocol p;

	return nm_protocol_parse(v, &p);
}

static int check_ordering(const char *v)
{
	enum dmnet_ordering o;

	return nm_ordering_parse(v, &o);
}

static const struct res_kw {
	const char *kw;
	size_t offset;			/* char[8] in struct nm_conf_resource */
	int (*check)(const char *v);
	const char *want;		/* as the kernel's refusal */
} res_kws[] = {
	{ "protocol", offsetof(struct nm_conf_resource, protocol),
	  check_protocol, "A, B or C" },
	{ "ordering", offsetof(struct nm_conf_resource, ordering),
	  check_ordering, "flush, drain or none" },
};

static const struct res_kw *res_kw_find(const char *w)
{
	size_t i;

	for (i = 0; i < NELEM(res_kws); i++)
		if (!strcmp(res_kws[i].kw, w))
			return &res_kws[i];
	return NULL;
}

static int parse_resource(struct lexer *l, struct nm_conf *c)
{
	const struct res_kw *k;
	struct nm_conf_resource *r;
	enum tok t;
	unsigned i;

	if (c->nres >= NM_CONF_MAX_RES) {
		lerr(l, l->tok_line, "more than %d resources", NM_CONF_MAX_RES);
		return -EINVAL;
	}
	r = &c->res[c->nres];
	memset(r, 0, sizeof(*r));
	r->line = l->tok_line;
	t = next(l);
	if (t != T_WORD) {
		if (t != T_ERR)
			lerr(l, l->tok_line, "expected a resource name after \"resource\"");
		return -EINVAL;
	}
	if (nm_stack_check_name(l->word, NULL, 0)) {
		lerr(l, l->tok_line, "bad resource name \"%.40s\"", l->word);
		return -EINVAL;
	}
	strcpy(r->name, l->word);
	for (i = 0; i < c->nres; i++) {
		if (!strcmp(c->res[i].name, r->name)) {
			lerr(l, l->tok_line, "resource \"%s\" defined twice (first on line %u)",
			     r->name, c->res[i].line);
			return -EINVAL;
		}
	}
	t = next(l);
	if (t != T_LBRACE) {
		if (t != T_ERR)
			lerr(l, l->tok_line, "expected '{' after \"resource %s\"", r->name);
		return -EINVAL;
	}
	for (;;) {
		unsigned line;
		char v[16];

		t = next(l);
		line = l->tok_line;
		if (t == T_RBRACE)
			break;
		if (t == T_ERR)
			return -EINVAL;
		if (t != T_WORD) {
			lerr(l, line, "expected a keyword or '}' in resource %s, got %s",
			     r->name, tokname(t));
			return -EINVAL;
		}
		if (!strcmp(l->word, "on")) {
			if (parse_host(l, r))
				return -EINVAL;
		} else if ((k = res_kw_find(l->word))) {
			char *dst = (char *)r + k->offset;

			if (*dst) {
				lerr(l, line, "\"%s\" given twice", k->kw);
				return -EINVAL;
			}
			if (value_semi(l, k->kw, v, sizeof(v)))
				return -EINVAL;
			if (k->check(v)) {
				lerr(l, line, "Invalid %s (want %s)", k->kw, k->want);
				return -EINVAL;
			}
			strcpy(dst, v);
		} else if (nm_opt_find(l->word)) {
			if (add_opt(l, r->opts, &r->nopts,
				    nm_opt_find(l->word)->keyword))
				return -EINVAL;
		} else {
			lerr(l, line, "unknown keyword \"%.40s\" in resource %s",
			     l->word, r->name);
			return -EINVAL;
		}
	}
	if (r->nhosts != NM_CONF_MAX_HOSTS) {
		lerr(l, r->line, "resource %s needs exactly two \"on HOST { }\" sections, has %u",
		     r->name, r->nhosts);
		return -EINVAL;
	}
	{
		struct nm_addr a, b;

		nm_parse_addr(r->hosts[0].address, &a, NULL, 0);
		nm_parse_addr(r->hosts[1].address, &b, NULL, 0);
		if (a.family != b.family) {
			lerr(l, r->line, "resource %s: both addresses must be IPv4 or both IPv6",
			     r->name);
			return -EINVAL;
		}
	}
	c->nres++;
	return 0;
}

int nm_conf_parse(const char *text, const char *fname, struct nm_conf *c,
		  char *err, size_t errlen)
{
	struct lexer l = {
		.p = text ? text : "", .line = 1,
		.fname = fname ? fname : "netmirror.conf",
		.err = err, .errlen = errlen,
	};
	enum tok t;

	memset(c, 0, sizeof(*c));
	for (;;) {
		t = next(&l);
		if (t == T_EOF)
			return 0;
		if (t == T_ERR)
			return -EINVAL;
		if (t != T_WORD || strcmp(l.word, "resource")) {
			lerr(&l, l.tok_line, "expected \"resource\", got %s%.40s%s",
			     t == T_WORD ? "\"" : "", t == T_WORD ? l.word : tokname(t),
			     t == T_WORD ? "\"" : "");
			return -EINVAL;
		}
		if (parse_resource(&l, c))
			return -EINVAL;
	}
}

int nm_conf_load(const char *path, struct nm_conf *c, char *err, size_t errlen)
{
	FILE *f = fopen(path, "r");
	char *buf;
	size_t n;
	int r;

	if (!f) {
		r = -errno;
		nm_seterr(err, errlen, "%s: %s", path, strerror(errno));
		return r;
	}
	buf = malloc(1 << 20);
	if (!buf) {
		fclose(f);
		return -ENOMEM;
	}
	n = fread(buf, 1, (1 << 20) - 1, f);
	if (ferror(f) || !feof(f)) {
		nm_seterr(err, errlen, "%s: read error or file larger than 1 MiB", path);
		free(buf);
		fclose(f);
		return -EIO;
	}
	fclose(f);
	buf[n] = '\0';
	if (memchr(buf, '\0', n)) {
		nm_seterr(err, errlen, "%s: contains a NUL byte", path);
		free(buf);
		return -EINVAL;
	}
	r = nm_conf_parse(buf, path, c, err, errlen);
	free(buf);
	return r;
}

const struct nm_conf_resource *nm_conf_find(const struct nm_conf *c,
					    const char *res)
{
	unsigned i;

	for (i = 0; i < c->nres; i++)
		if (!strcmp(c->res[i].name, res))
			return &c->res[i];
	return NULL;
}

int nm_conf_build_table(const struct nm_conf_resource *r, const char *host,
			struct nm_table *t, char *devname, size_t devlen,
			char *err, size_t errlen)
{
	const struct nm_conf_host *me = NULL, *peer = NULL;
	struct nm_table tmp;
	char e[NM_ERRLEN];
	unsigned i;

	for (i = 0; i < r->nhosts; i++) {
		if (!strcmp(r->hosts[i].name, host))
			me = &r->hosts[i];
		else
			peer = &r->hosts[i];
	}
	if (!me || !peer) {
		nm_seterr(err, errlen, "resource %s has no \"on %s\" section (use --host)",
			  r->name, host);
		return -ENOENT;
	}
	nm_table_init(&tmp);
	strcpy(tmp.local_dev, me->disk);
	if (nm_parse_addr(peer->address, &tmp.peer, e, sizeof(e)) ||
	    nm_table_set_option(&tmp, "listen", me->address, e, sizeof(e))) {
		nm_seterr(err, errlen, "resource %s: %s", r->name, e);
		return -EINVAL;
	}
	if (r->protocol[0])
		nm_protocol_parse(r->protocol, &tmp.protocol);
	if (r->ordering[0])
		nm_ordering_parse(r->ordering, &tmp.ordering);
	for (i = 0; i < r->nopts; i++) {
		if (nm_table_set_option(&tmp, r->opts[i].keyword, r->opts[i].value, e, sizeof(e))) {
			nm_seterr(err, errlen, "resource %s: %s", r->name, e);
			return -EINVAL;
		}
	}
	for (i = 0; i < me->nopts; i++) {
		if (nm_table_set_option(&tmp, me->opts[i].keyword, me->opts[i].value, e, sizeof(e))) {
			nm_seterr(err, errlen, "resource %s: %s", r->name, e);
			return -EINVAL;
		}
	}
	tmp.start = 0;
	tmp.len = me->size;
	if (nm_table_validate(&tmp, e, sizeof(e))) {
		nm_seterr(err, errlen, "resource %s: %s", r->name, e);
		return -EINVAL;
	}
	if (devname) {
		if (strlen(me->device) >= devlen)
			return -ENOSPC;
		strcpy(devname, me->device);
	}
	*t = tmp;
	return 0;
}
