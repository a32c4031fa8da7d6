// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * netmirror table model: parse, validate and format the target parameters.
 *
 * The option table is generated from NM_OPTIONS (nm_params.h), the same
 * rows the kernel's parser is built from; values are parsed and printed
 * per type (ADDR, ENUM, DEV, POW2, U32, KEYDESC), never per option.
 * Pure code: no ioctls, no libdevmapper, no heap.  Words are read lazily
 * from the input string so there is no limit on the number of words, only
 * on the length of a single word (NM_DEV_MAX - 1).
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include "libdmnet.h"
#include "internal.h"

/* ---- addresses and devices ------------------------------------------ */

static int parse_port(const char *s, uint16_t *port)
{
	uint32_t v;

	if (nm_parse_u32(s, 1, 65535, &v))
		return -EINVAL;
	*port = (uint16_t)v;
	return 0;
}

static int parse_ipv4(const char *s, size_t n, uint8_t out[4])
{
	unsigned i;

	for (i = 0; i < 4; i++) {
		unsigned v = 0, digits = 0;

		while (n && *s >= '0' && *s <= '9') {
			if (digits && v == 0)
				return -EINVAL;	/* leading zero */
			v = v * 10 + (*s - '0');
			if (++digits > 3 || v > 255)
				return -EINVAL;
			s++;
			n--;
		}
		if (!digits)
			return -EINVAL;
		out[i] = (uint8_t)v;
		if (i < 3) {
			if (!n || *s != '.')
				return -EINVAL;
			s++;
			n--;
		}
	}
	return n ? -EINVAL : 0;
}

#define ADDR_SYNTAX "address must be a.b.c.d:port or [ipv6]:port"

int nm_parse_addr(const char *s, struct nm_addr *a, char *err, size_t errlen)
{
	const char *colon;
	struct nm_addr r;

	memset(&r, 0, sizeof(r));
	if (!s || !*s) {
		nm_seterr(err, errlen, ADDR_SYNTAX);
		return -EINVAL;
	}
	if (s[0] == '[') {
		const char *close = strchr(s, ']');
		char host[INET6_ADDRSTRLEN];
		size_t n;

		if (!close) {
			nm_seterr(err, errlen, "missing ']' after IPv6 address");
			return -EINVAL;
		}
		n = close - s - 1;
		if (n == 0 || n >= sizeof(host)) {
			nm_seterr(err, errlen, "bad IPv6 address");
			return -EINVAL;
		}
		memcpy(host, s + 1, n);
		host[n] = '\0';
		if (inet_pton(AF_INET6, host, r.addr) != 1) {
			nm_seterr(err, errlen, "bad IPv6 address");
			return -EINVAL;
		}
		r.family = AF_INET6;
		colon = close + 1;
		if (*colon != ':') {
			nm_seterr(err, errlen, *colon ? "expected ':port' after ']'" :
				  "missing port");
			return -EINVAL;
		}
	} else {
		colon = strchr(s, ':');
		if (!colon) {
			nm_seterr(err, errlen, "missing port (" ADDR_SYNTAX ")");
			return -EINVAL;
		}
		if (strchr(colon + 1, ':')) {
			nm_seterr(err, errlen, "IPv6 address must be in brackets: [ipv6]:port");
			return -EINVAL;
		}
		if (parse_ipv4(s, colon - s, r.addr)) {
			nm_seterr(err, errlen, "bad IPv4 address (four decimal octets 0..255, no leading zeros)");
			return -EINVAL;
		}
		r.family = AF_INET;
	}
	if (!colon[1]) {
		nm_seterr(err, errlen, "missing port");
		return -EINVAL;
	}
	if (parse_port(colon + 1, &r.port)) {
		nm_seterr(err, errlen, "port must be a decimal number 1..65535");
		return -EINVAL;
	}
	*a = r;
	return 0;
}

int nm_format_addr(const struct nm_addr *a, char *buf, size_t len)
{
	char host[INET6_ADDRSTRLEN];
	int n;

	if (a->family == AF_INET)
		n = snprintf(buf, len, "%u.%u.%u.%u:%u", a->addr[0], a->addr[1],
			     a->addr[2], a->addr[3], a->port);
	else if (a->family == AF_INET6 &&
		 inet_ntop(AF_INET6, a->addr, host, sizeof(host)))
		n = snprintf(buf, len, "[%s]:%u", host, a->port);
	else
		return -EINVAL;
	return (n < 0 || (size_t)n >= len) ? -ENOSPC : n;
}

int nm_parse_dev(const char *s, char *out, size_t outlen, char *err,
		 size_t errlen)
{
	size_t n = s ? strlen(s) : 0;
	const char *p;

	if (!n) {
		nm_seterr(err, errlen, "device must not be empty");
		return -EINVAL;
	}
	if (n >= outlen || n >= NM_DEV_MAX) {
		nm_seterr(err, errlen, "device path too long");
		return -EINVAL;
	}
	for (p = s; *p; p++) {
		if (isspace((unsigned char)*p) || iscntrl((unsigned char)*p) ||
		    *p == '\\') {
			nm_seterr(err, errlen, "device contains whitespace, control character or backslash");
			return -EINVAL;
		}
	}
	if (s[0] == '/') {
		if (n < 2) {
			nm_seterr(err, errlen, "device path \"/\" is not a device");
			return -EINVAL;
		}
	} else {
		const char *colon = strchr(s, ':');
		char maj[16];
		uint64_t ma, mi;

		if (!colon || (size_t)(colon - s) >= sizeof(maj)) {
			nm_seterr(err, errlen, "device must be an absolute path or major:minor");
			return -EINVAL;
		}
		memcpy(maj, s, colon - s);
		maj[colon - s] = '\0';
		if (nm_parse_u64(maj, &ma) || nm_parse_u64(colon + 1, &mi)) {
			nm_seterr(err, errlen, "device must be an absolute path or major:minor");
			return -EINVAL;
		}
		if (ma > 4095 || mi > 1048575) {
			nm_seterr(err, errlen, "device number out of range (major <= 4095, minor <= 1048575)");
			return -EINVAL;
		}
	}
	memcpy(out, s, n + 1);
	return 0;
}

/* ---- positional words ----------------------------------------------- */

/*
 * The words of the positional arguments come from nm_params.h as lists
 * ("A|B|C"); split once at load time so that *_str() can return them.
 */
#define LIST_MAX 8
static char proto_names[LIST_MAX][8], order_names[LIST_MAX][8];
static unsigned nproto, norder;
#define STATE_STR(ID, w) #w,
static const char *const role_names[] = { NM_ROLE_WORDS(STATE_STR) };

/* Word i of "a|b|c" into buf; its length, -ENOENT past the end, -ENOSPC. */
static int list_word(const char *list, unsigned i, char *buf, size_t len)
{
	const char *p = list, *e;

	if (!*p)
		return -ENOENT;
	for (;;) {
		e = strchr(p, '|');
		if (!e)
			e = p + strlen(p);
		if (!i--) {
			if ((size_t)(e - p) >= len)
				return -ENOSPC;
			memcpy(buf, p, e - p);
			buf[e - p] = '\0';
			return (int)(e - p);
		}
		if (!*e)
			return -ENOENT;
		p = e + 1;
	}
}

static unsigned split_list(const char *list, char (*out)[8])
{
	unsigned n = 0;

	while (n < LIST_MAX && list_word(list, n, out[n], sizeof(out[n])) >= 0)
		n++;
	return n;
}

__attribute__((constructor)) static void split_lists(void)
{
	nproto = split_list(NM_PROTOCOL_LIST, proto_names);
	norder = split_list(NM_ORDERING_LIST, order_names);
}

const char *nm_protocol_str(enum dmnet_protocol p)
{
	return (unsigned)p < nproto ? proto_names[p] : "?";
}

const char *nm_ordering_str(enum dmnet_ordering o)
{
	return (unsigned)o < norder ? order_names[o] : "?";
}

int nm_protocol_parse(const char *s, enum dmnet_protocol *p)
{
	unsigned i;

	for (i = 0; s && i < nproto; i++)
		if (!strcmp(proto_names[i], s)) {
			*p = (enum dmnet_protocol)i;
			return 0;
		}
	return -EINVAL;
}

int nm_ordering_parse(const char *s, enum dmnet_ordering *o)
{
	unsigned i;

	for (i = 0; s && i < norder; i++)
		if (!strcmp(order_names[i], s)) {
			*o = (enum dmnet_ordering)i;
			return 0;
		}
	return -EINVAL;
}

const char *nm_role_str(enum dmnet_role r)
{
	return (unsigned)r < NELEM(role_names) ? role_names[r] : "?";
}

int nm_role_parse(const char *s, enum dmnet_role *r)
{
	unsigned i;

	for (i = 0; s && i < NELEM(role_names); i++)
		if (!strcmp(role_names[i], s)) {
			*r = (enum dmnet_role)i;
			return 0;
		}
	return -EINVAL;
}

/* ---- the option table, generated from NM_OPTIONS -------------------- */

#define FIELD(kw) (((struct nm_table *)0)->kw)
#define TYPE_OK_ADDR(kw)	(sizeof(FIELD(kw)) == sizeof(struct nm_addr))
#define TYPE_OK_ENUM(kw)	(sizeof(FIELD(kw)) == sizeof(unsigned))
#define TYPE_OK_DEV(kw)		(sizeof(FIELD(kw)) == NM_DEV_MAX)
#define TYPE_OK_POW2(kw)	(sizeof(FIELD(kw)) == sizeof(uint32_t))
#define TYPE_OK_U32(kw)		(sizeof(FIELD(kw)) == sizeof(uint32_t))
#define TYPE_OK_KEYDESC(kw)	(sizeof(FIELD(kw)) == NM_SECRET_MAX)

/* Every row has a field of its type in struct nm_table, named as the
 * keyword (adding an option: one row + one typed field). */
#define OPT_ASSERT_ROW(kw, id, type, min, max, ...)			\
	_Static_assert(TYPE_OK_##type(kw),				\
		       "struct nm_table field " #kw " does not fit type " #type); \
	_Static_assert(NM_PT_##type != NM_PT_KEYDESC || (max) < NM_SECRET_MAX, \
		       #kw ": NM_SECRET_MAX too small");
NM_OPTIONS(OPT_ASSERT_ROW)
_Static_assert(NM_OPT_COUNT <= 32, "nm_table.opts has 32 bits");

#define OPT_DEF_ROW(kw, id, type, min, max, def, since, vhelp, words, want, help) \
	{ #kw, NM_OPT_##id, NM_PT_##type, min, max, def, since, vhelp,	\
	  words, want, help, offsetof(struct nm_table, kw),		\
	  sizeof(FIELD(kw)) },
static const struct nm_opt_def opt_defs[] = { NM_OPTIONS(OPT_DEF_ROW) };

_Static_assert(NELEM(opt_defs) == NM_OPT_COUNT, "option table incomplete");

const struct nm_opt_def *nm_opt_defs(size_t *n)
{
	if (n)
		*n = NELEM(opt_defs);
	return opt_defs;
}

const struct nm_opt_def *nm_opt_find(const char *kw)
{
	size_t i;

	for (i = 0; kw && i < NELEM(opt_defs); i++)
		if (!strcmp(opt_defs[i].keyword, kw))
			return &opt_defs[i];
	return NULL;
}

int nm_opt_word(const struct nm_opt_def *d, unsigned i, char *buf, size_t len)
{
	return list_word(d->words, i, buf, len);
}

/* Index of word in an ENUM row's words, or -1. */
static int word_index(const struct nm_opt_def *d, const char *word)
{
	char w[64];
	unsigned i;

	for (i = 0; nm_opt_word(d, i, w, sizeof(w)) >= 0; i++)
		if (!strcmp(w, word))
			return (int)i;
	return -1;
}

static int keydesc_ok(const struct nm_opt_def *d, const char *v)
{
	size_t n = strlen(v);
	const char *p;

	if (n < d->min || n > d->max)
		return 0;
	for (p = v; *p; p++)
		if (!isgraph((unsigned char)*p) || *p == '\\' || *p == '%')
			return 0;
	return 1;
}

int nm_opt_parse(const struct nm_opt_def *d, struct nm_table *t,
		 const char *val, char *err, size_t errlen)
{
	char *f = (char *)t + d->offset;
	struct nm_addr a;
	uint32_t x;
	unsigned v;
	int i;

	if (!val)
		goto bad;
	switch (d->type) {
	case NM_PT_ADDR:
		if (nm_parse_addr(val, &a, NULL, 0))
			goto bad;
		memcpy(f, &a, sizeof(a));
		return 0;
	case NM_PT_ENUM:
		i = word_index(d, val);
		if (i < 0)
			goto bad;
		v = (unsigned)i;
		memcpy(f, &v, sizeof(v));
		return 0;
	case NM_PT_DEV:
		if (!strcmp(val, NM_META_INTERNAL)) {
			memcpy(f, val, strlen(val) + 1);
			return 0;
		}
		/* the kernel opens it (dm_get_device) and says so */
		if (nm_parse_dev(val, f, d->size, NULL, 0)) {
			nm_seterr(err, errlen, "Cannot open metadata device");
			return -EINVAL;
		}
		return 0;
	case NM_PT_POW2:
	case NM_PT_U32:
		if (nm_parse_u32(val, d->min, d->max, &x) ||
		    (d->type == NM_PT_POW2 && (x & (x - 1))))
			goto bad;
		memcpy(f, &x, sizeof(x));
		return 0;
	case NM_PT_KEYDESC:
		if (!keydesc_ok(d, val))
			goto bad;
		memcpy(f, val, strlen(val) + 1);
		return 0;
	}
bad:
	nm_seterr(err, errlen, "Invalid %s (want %s)", d->keyword, d->want);
	return -EINVAL;
}

static int fmt_str(char *buf, size_t len, const char *s)
{
	int n = snprintf(buf, len, "%s", s);

	return (n < 0 || (size_t)n >= len) ? -ENOSPC : n;
}

int nm_opt_format(const struct nm_opt_def *d, const struct nm_table *t,
		  char *buf, size_t len)
{
	const char *f = (const char *)t + d->offset;
	struct nm_addr a;
	uint32_t x;
	unsigned v;
	int n;

	switch (d->type) {
	case NM_PT_ADDR:
		memcpy(&a, f, sizeof(a));
		return nm_format_addr(&a, buf, len);
	case NM_PT_ENUM:
		memcpy(&v, f, sizeof(v));
		n = nm_opt_word(d, v, buf, len);
		return n == -ENOENT ? -EINVAL : n;
	case NM_PT_DEV:
	case NM_PT_KEYDESC:
		if (!memchr(f, '\0', d->size))
			return -EINVAL;
		return fmt_str(buf, len, f);
	case NM_PT_POW2:
	case NM_PT_U32:
		memcpy(&x, f, sizeof(x));
		n = snprintf(buf, len, "%" PRIu32, x);
		return (n < 0 || (size_t)n >= len) ? -ENOSPC : n;
	}
	return -EINVAL;
}

static void opt_list(char *buf, size_t len)
{
	size_t i, o = 0;

	buf[0] = '\0';
	for (i = 0; i < NELEM(opt_defs) && o < len; i++) {
		int n = snprintf(buf + o, len - o, "%s%s", i ? ", " : "",
				 opt_defs[i].keyword);
		if (n < 0)
			break;
		o += (size_t)n;
	}
}

/* ---- table ---------------------------------------------------------- */

void nm_table_init(struct nm_table *t)
{
	size_t i;

	memset(t, 0, sizeof(*t));
	t->protocol = DMNET_PROTO_C;
	t->ordering = DMNET_ORDER_FLUSH;
	for (i = 0; i < NELEM(opt_defs); i++) {
		const struct nm_opt_def *d = &opt_defs[i];
		char *f = (char *)t + d->offset;
		unsigned v;

		switch (d->type) {
		case NM_PT_ENUM:
			v = d->def;
			memcpy(f, &v, sizeof(v));
			break;
		case NM_PT_POW2:
		case NM_PT_U32:
			memcpy(f, &d->def, sizeof(d->def));
			break;
		default:
			break;
		}
	}
}

/* "role" is reprinted only as "role primary": the bit is kept only then. */
static void normalize(struct nm_table *t)
{
	if ((t->opts & NM_OPT_BIT(NM_OPT_ROLE)) && t->role != DMNET_ROLE_PRIMARY)
		t->opts &= ~NM_OPT_BIT(NM_OPT_ROLE);
}

static int reprinted(const struct nm_table *t, const struct nm_opt_def *d)
{
	return (t->opts & NM_OPT_BIT(d->id)) &&
	       !(d->id == NM_OPT_ROLE && t->role != DMNET_ROLE_PRIMARY);
}

int nm_table_set_option(struct nm_table *t, const char *kw, const char *val,
			char *err, size_t errlen)
{
	const struct nm_opt_def *d = nm_opt_find(kw);

	if (!d) {
		char list[256];

		opt_list(list, sizeof(list));
		nm_seterr(err, errlen, "Unknown optional argument \"%s\" (known: %s)",
			  kw ? kw : "", list);
		return -EINVAL;
	}
	if (!val) {
		nm_seterr(err, errlen, "Optional argument %s is missing its value (%s)",
			  kw, d->value_help);
		return -EINVAL;
	}
	if (nm_opt_parse(d, t, val, err, errlen))
		return -EINVAL;
	t->opts |= NM_OPT_BIT(d->id);
	normalize(t);
	return 0;
}

#define MISSING(w, what) \
	nm_seterr(err, errlen, "word %u: missing %s", (w)->idx + 1, (what))

/* Read the next word; 1 = got one, 0 = end (err set to "missing what"). */
static int need_word(struct nm_words *w, char *buf, size_t len,
		     const char *what, char *err, size_t errlen)
{
	int r = nm_words_next(w, buf, len, err, errlen);

	if (!r)
		MISSING(w, what);
	return r < 0 ? r : r ? 1 : -EINVAL;
}

/* The kernel's order of checks: at least 4 words; local_dev, peer,
 * protocol, ordering; the count word, count == words given; per option
 * pair: value present, keyword, duplicate, value; then (validate) ping <
 * timeout, meta != local_dev, listen of the peer's family. */
static int parse_params(struct nm_words *w, struct nm_table *t, char *err,
			size_t errlen)
{
	char word[NM_DEV_MAX], val[NM_DEV_MAX];
	uint32_t count;
	unsigned rem, i, seen = 0;
	int r;

	if (nm_words_remaining(w) < 4) {
		nm_seterr(err, errlen, "Not enough arguments (want <local_dev> <peer_addr> <protocol> <ordering>)");
		return -EINVAL;
	}
	r = nm_words_next(w, word, sizeof(word), err, errlen);
	if (r < 0)
		return r;
	if (nm_parse_dev(word, t->local_dev, sizeof(t->local_dev), NULL, 0)) {
		nm_seterr(err, errlen, "Cannot open local device");
		return -EINVAL;
	}
	r = nm_words_next(w, word, sizeof(word), err, errlen);
	if (r < 0)
		return r;
	if (nm_parse_addr(word, &t->peer, NULL, 0)) {
		nm_seterr(err, errlen, "Invalid peer address (want a.b.c.d:port or [v6]:port)");
		return -EINVAL;
	}
	r = nm_words_next(w, word, sizeof(word), err, errlen);
	if (r < 0)
		return r;
	if (nm_protocol_parse(word, &t->protocol)) {
		nm_seterr(err, errlen, "Invalid protocol (want A, B or C)");
		return -EINVAL;
	}
	r = nm_words_next(w, word, sizeof(word), err, errlen);
	if (r < 0)
		return r;
	if (nm_ordering_parse(word, &t->ordering)) {
		nm_seterr(err, errlen, "Invalid ordering (want flush, drain or none)");
		return -EINVAL;
	}

	/* optional group */
	r = nm_words_next(w, word, sizeof(word), err, errlen);
	if (r <= 0)
		return r;
	if (nm_parse_u32(word, 0, 2 * NM_OPT_COUNT, &count)) {
		nm_seterr(err, errlen, "Invalid number of optional arguments");
		return -EINVAL;
	}
	rem = nm_words_remaining(w);
	if (count != rem) {
		nm_seterr(err, errlen, "Optional argument count does not match the words given");
		return -EINVAL;
	}
	for (i = 0; i < rem; i += 2) {
		const struct nm_opt_def *d;

		r = nm_words_next(w, word, sizeof(word), err, errlen);
		if (r < 0)
			return r;
		if (i + 1 == rem) {
			nm_seterr(err, errlen, "Optional argument is missing its value");
			return -EINVAL;
		}
		d = nm_opt_find(word);
		if (!d) {
			nm_seterr(err, errlen, "Unknown optional argument");
			return -EINVAL;
		}
		if (seen & NM_OPT_BIT(d->id)) {
			nm_seterr(err, errlen, "Duplicate optional argument: %s", d->keyword);
			return -EINVAL;
		}
		r = nm_words_next(w, val, sizeof(val), err, errlen);
		if (r < 0)
			return r;
		if (nm_opt_parse(d, t, val, err, errlen))
			return -EINVAL;
		seen |= NM_OPT_BIT(d->id);
		t->opts |= NM_OPT_BIT(d->id);
	}
	normalize(t);
	return 0;
}

int nm_table_parse(const char *params, struct nm_table *t, char *err,
		   size_t errlen)
{
	struct nm_words w;
	struct nm_table tmp;
	int r;

	nm_table_init(&tmp);
	nm_words_init(&w, params, 0);
	r = parse_params(&w, &tmp, err, errlen);
	if (!r)
		r = nm_table_validate(&tmp, err, errlen);
	if (!r)
		*t = tmp;
	return r;
}

int nm_table_parse_line(const char *line, struct nm_table *t, char *err,
			size_t errlen)
{
	struct nm_words w;
	struct nm_table tmp;
	char word[NM_DEV_MAX];
	int r;

	nm_table_init(&tmp);
	nm_words_init(&w, line, 0);

	r = need_word(&w, word, sizeof(word), "start sector", err, errlen);
	if (r < 0)
		return r;
	if (nm_parse_u64(word, &tmp.start)) {
		nm_seterr(err, errlen, "word 1 \"%.64s\": start must be a decimal sector number",
			  word);
		return -EINVAL;
	}
	r = need_word(&w, word, sizeof(word), "length", err, errlen);
	if (r < 0)
		return r;
	if (nm_parse_u64(word, &tmp.len) || !tmp.len) {
		nm_seterr(err, errlen, "word 2 \"%.64s\": length must be a decimal sector count > 0",
			  word);
		return -EINVAL;
	}
	if (tmp.start + tmp.len < tmp.start) {
		nm_seterr(err, errlen, "word 2 \"%.64s\": start + length overflows", word);
		return -EINVAL;
	}
	r = need_word(&w, word, sizeof(word), "target type \"" NM_TARGET_NAME "\"",
		      err, errlen);
	if (r < 0)
		return r;
	if (strcmp(word, NM_TARGET_NAME)) {
		nm_seterr(err, errlen, "word 3 \"%.64s\": target type must be \"" NM_TARGET_NAME "\"",
			  word);
		return -EINVAL;
	}
	r = parse_params(&w, &tmp, err, errlen);
	if (!r)
		r = nm_table_validate(&tmp, err, errlen);
	if (!r)
		*t = tmp;
	return r;
}

int nm_table_validate(const struct nm_table *t, char *err, size_t errlen)
{
	char e[NM_ERRLEN], dev[NM_DEV_MAX], val[NM_DEV_MAX];
	const struct nm_opt_def *meta = &opt_defs[NM_OPT_META];
	struct nm_table scratch;
	size_t i;

	if (nm_parse_dev(t->local_dev, dev, sizeof(dev), e, sizeof(e))) {
		nm_seterr(err, errlen, "Cannot open local device");
		return -EINVAL;
	}
	if ((t->peer.family != AF_INET && t->peer.family != AF_INET6) ||
	    !t->peer.port) {
		nm_seterr(err, errlen, "Invalid peer address (want a.b.c.d:port or [v6]:port)");
		return -EINVAL;
	}
	if ((unsigned)t->protocol > DMNET_PROTO_C) {
		nm_seterr(err, errlen, "Invalid protocol (want A, B or C)");
		return -EINVAL;
	}
	if ((unsigned)t->ordering > DMNET_ORDER_NONE) {
		nm_seterr(err, errlen, "Invalid ordering (want flush, drain or none)");
		return -EINVAL;
	}
	if (t->opts & ~((1u << NM_OPT_COUNT) - 1)) {
		nm_seterr(err, errlen, "unknown option bits 0x%x", t->opts);
		return -EINVAL;
	}
	/* Each set option must survive format -> parse (range checks). */
	for (i = 0; i < NELEM(opt_defs); i++) {
		const struct nm_opt_def *d = &opt_defs[i];

		if (!(t->opts & NM_OPT_BIT(d->id)))
			continue;
		nm_table_init(&scratch);
		if (nm_opt_format(d, t, val, sizeof(val)) < 0 ||
		    nm_opt_parse(d, &scratch, val, NULL, 0)) {
			nm_seterr(err, errlen, "Invalid %s (want %s)", d->keyword, d->want);
			return -EINVAL;
		}
	}
	/* the fields hold the defaults when the options are not given */
	if (t->ping >= t->timeout) {
		nm_seterr(err, errlen, "ping must be shorter than timeout");
		return -EINVAL;
	}
	if ((t->opts & NM_OPT_BIT(NM_OPT_META)) && !strcmp(t->meta, t->local_dev)) {
		nm_seterr(err, errlen, "Invalid %s (want %s)", meta->keyword, meta->want);
		return -EINVAL;
	}
	if ((t->opts & NM_OPT_BIT(NM_OPT_LISTEN)) &&
	    t->listen.family != t->peer.family) {
		nm_seterr(err, errlen, "Listen and peer addresses must be of one family");
		return -EINVAL;
	}
	return 0;
}

int nm_table_format(const struct nm_table *t, char *buf, size_t len)
{
	char peer[NM_ADDR_MAX], val[NM_DEV_MAX];
	unsigned nopts = 0;
	size_t i, o;
	int n;

	if (nm_table_validate(t, NULL, 0))
		return -EINVAL;
	if (nm_format_addr(&t->peer, peer, sizeof(peer)) < 0)
		return -EINVAL;
	n = snprintf(buf, len, "%s %s %s %s", t->local_dev, peer,
		     nm_protocol_str(t->protocol), nm_ordering_str(t->ordering));
	if (n < 0 || (size_t)n >= len)
		return -ENOSPC;
	o = (size_t)n;
	for (i = 0; i < NELEM(opt_defs); i++)
		nopts += reprinted(t, &opt_defs[i]);
	if (!nopts)
		return (int)o;
	n = snprintf(buf + o, len - o, " %u", nopts * 2);
	if (n < 0 || (size_t)n >= len - o)
		return -ENOSPC;
	o += (size_t)n;
	for (i = 0; i < NELEM(opt_defs); i++) {
		const struct nm_opt_def *d = &opt_defs[i];

		if (!reprinted(t, d))
			continue;
		if (nm_opt_format(d, t, val, sizeof(val)) < 0)
			return -EINVAL;
		n = snprintf(buf + o, len - o, " %s %s", d->keyword, val);
		if (n < 0 || (size_t)n >= len - o)
			return -ENOSPC;
		o += (size_t)n;
	}
	return (int)o;
}

int nm_table_format_line(const struct nm_table *t, char *buf, size_t len)
{
	int n, m;

	n = snprintf(buf, len, "%" PRIu64 " %" PRIu64 " " NM_TARGET_NAME " ",
		     t->start, t->len);
	if (n < 0 || (size_t)n >= len)
		return -ENOSPC;
	m = nm_table_format(t, buf + n, len - (size_t)n);
	if (m < 0)
		return m;
	return n + m;
}

unsigned nm_table_required_minor(const struct nm_table *t)
{
	unsigned m = 0;
	size_t i;

	for (i = 0; i < NELEM(opt_defs); i++)
		if ((t->opts & NM_OPT_BIT(opt_defs[i].id)) &&
		    opt_defs[i].min_minor > m)
			m = opt_defs[i].min_minor;
	if (nm_table_meta_internal(t) && m < NM_META_INTERNAL_SINCE)
		m = NM_META_INTERNAL_SINCE;
	return m;
}

int nm_table_meta_internal(const struct nm_table *t)
{
	return (t->opts & NM_OPT_BIT(NM_OPT_META)) &&
	       !strcmp(t->meta, NM_META_INTERNAL);
}

int nm_table_check_version(const struct nm_table *t, unsigned major,
			   unsigned minor, char *err, size_t errlen)
{
	size_t i;

	if (major != NM_TARGET_MAJOR) {
		nm_seterr(err, errlen, "loaded netmirror module is %u.%u, this tool needs major version %u",
			  major, minor, NM_TARGET_MAJOR);
		return -ENOTSUP;
	}
	for (i = 0; i < NELEM(opt_defs); i++) {
		const struct nm_opt_def *d = &opt_defs[i];

		if ((t->opts & NM_OPT_BIT(d->id)) && d->min_minor > minor) {
			nm_seterr(err, errlen, "option \"%s\" needs netmirror %u.%u, loaded module is %u.%u",
				  d->keyword, NM_TARGET_MAJOR, d->min_minor, major, minor);
			return -ENOTSUP;
		}
	}
	if (nm_table_meta_internal(t) && minor < NM_META_INTERNAL_SINCE) {
		nm_seterr(err, errlen, "option \"meta internal\" needs netmirror %u.%u, loaded module is %u.%u",
			  NM_TARGET_MAJOR, NM_META_INTERNAL_SINCE, major, minor);
		return -ENOTSUP;
	}
	return 0;
}
