// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * netmirror table model: parse, validate and format the target parameters.
 *
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

void nm_seterr(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (!err || !errlen)
		return;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

/* ---- word reader ---------------------------------------------------- */

void nm_words_init(struct nm_words *w, const char *s, unsigned base)
{
	w->p = s ? s : "";
	w->idx = base;
}

static const char *skip_space(const char *p)
{
	while (*p && isspace((unsigned char)*p))
		p++;
	return p;
}

/* Next word into buf.  1 = got one, 0 = end of input, -EINVAL = too long
 * (err set). */
int nm_words_next(struct nm_words *w, char *buf, size_t len,
		  char *err, size_t errlen)
{
	const char *p = skip_space(w->p), *e = p;

	if (!*p) {
		w->p = p;
		return 0;
	}
	while (*e && !isspace((unsigned char)*e))
		e++;
	w->idx++;
	w->p = e;
	if ((size_t)(e - p) >= len) {
		nm_seterr(err, errlen, "word %u \"%.20s...\": too long (max %zu characters)",
			  w->idx, p, len - 1);
		return -EINVAL;
	}
	memcpy(buf, p, e - p);
	buf[e - p] = '\0';
	return 1;
}

unsigned nm_words_remaining(const struct nm_words *w)
{
	const char *p = w->p;
	unsigned n = 0;

	for (;;) {
		p = skip_space(p);
		if (!*p)
			return n;
		n++;
		while (*p && !isspace((unsigned char)*p))
			p++;
	}
}

/* ---- scalar syntax -------------------------------------------------- */

int nm_parse_u64(const char *s, uint64_t *v)
{
	uint64_t x = 0;

	if (!s || !*s)
		return -EINVAL;
	if (s[0] == '0' && s[1])
		return -EINVAL;		/* no leading zeros */
	for (; *s; s++) {
		unsigned d;

		if (*s < '0' || *s > '9')
			return -EINVAL;
		d = *s - '0';
		if (x > (UINT64_MAX - d) / 10)
			return -ERANGE;
		x = x * 10 + d;
	}
	*v = x;
	return 0;
}

static int parse_u64_range(const char *s, uint64_t min, uint64_t max,
			   uint64_t *v)
{
	if (nm_parse_u64(s, v) || *v < min || *v > max)
		return -EINVAL;
	return 0;
}

static int parse_port(const char *s, uint16_t *port)
{
	uint64_t v;

	if (parse_u64_range(s, 1, 65535, &v))
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

/* ---- enums ---------------------------------------------------------- */

static const char *const proto_names[] = { "A", "B", "C" };
static const char *const order_names[] = { "flush", "drain", "none" };
static const char *const role_names[] = { "secondary", "primary" };
static const char *const sync_names[] = { "full", "none" };
static const char *const ioerr_names[] = { "detach", "pass_on" };
static const char *const integ_names[] = { "crc32c" };

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

static int lookup(const char *const *names, size_t n, const char *s)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(names[i], s))
			return (int)i;
	return -1;
}

#define ENUM_FNS(type, prefix, names)					\
const char *prefix##_str(enum type v)					\
{									\
	return (unsigned)v < NELEM(names) ? names[v] : "?";		\
}									\
int prefix##_parse(const char *s, enum type *v)				\
{									\
	int i = lookup(names, NELEM(names), s);				\
	if (i < 0)							\
		return -EINVAL;						\
	*v = (enum type)i;						\
	return 0;							\
}

ENUM_FNS(nm_protocol, nm_protocol, proto_names)
ENUM_FNS(nm_ordering, nm_ordering, order_names)
ENUM_FNS(nm_role, nm_role, role_names)

/* ---- option table --------------------------------------------------- */

static int fmt_str(char *buf, size_t len, const char *s)
{
	int n = snprintf(buf, len, "%s", s);

	return (n < 0 || (size_t)n >= len) ? -ENOSPC : n;
}

static int fmt_u64(char *buf, size_t len, uint64_t v)
{
	int n = snprintf(buf, len, "%" PRIu64, v);

	return (n < 0 || (size_t)n >= len) ? -ENOSPC : n;
}

static int p_listen(struct nm_table *t, const char *v, char *err, size_t el)
{
	char e[NM_ERRLEN];

	if (nm_parse_addr(v, &t->listen, e, sizeof(e))) {
		nm_seterr(err, el, "listen: %s", e);
		return -EINVAL;
	}
	return 0;
}

static int f_listen(const struct nm_table *t, char *buf, size_t len)
{
	return nm_format_addr(&t->listen, buf, len);
}

#define ENUM_OPT(name, field, type, names, msg)				\
static int p_##name(struct nm_table *t, const char *v, char *err, size_t el) \
{									\
	int i = lookup(names, NELEM(names), v);				\
	if (i < 0) {							\
		nm_seterr(err, el, msg);				\
		return -EINVAL;						\
	}								\
	t->field = (type)i;						\
	return 0;							\
}									\
static int f_##name(const struct nm_table *t, char *buf, size_t len)	\
{									\
	if ((unsigned)t->field >= NELEM(names))				\
		return -EINVAL;						\
	return fmt_str(buf, len, names[t->field]);			\
}

ENUM_OPT(role, role, enum nm_role, role_names,
	 "role must be primary or secondary")
ENUM_OPT(sync, sync, enum nm_sync, sync_names, "sync must be full or none")
ENUM_OPT(ioerr, on_io_error, enum nm_io_error, ioerr_names,
	 "on_io_error must be detach or pass_on")
ENUM_OPT(integ, integrity, enum nm_integrity, integ_names,
	 "integrity must be crc32c")

static int p_meta(struct nm_table *t, const char *v, char *err, size_t el)
{
	char e[NM_ERRLEN];

	if (nm_parse_dev(v, t->meta_dev, sizeof(t->meta_dev), e, sizeof(e))) {
		nm_seterr(err, el, "meta: %s", e);
		return -EINVAL;
	}
	return 0;
}

static int f_meta(const struct nm_table *t, char *buf, size_t len)
{
	return fmt_str(buf, len, t->meta_dev);
}

#define REGION_MIN	8ULL
#define REGION_MAX	2048ULL		/* 1 MiB: dm-netmirror 1.2 NM_MAX_REGION */

static int region_ok(uint64_t v)
{
	return v >= REGION_MIN && v <= REGION_MAX && !(v & (v - 1));
}

static int p_region(struct nm_table *t, const char *v, char *err, size_t el)
{
	uint64_t x;

	if (nm_parse_u64(v, &x) || !region_ok(x)) {
		nm_seterr(err, el, "region_size must be a power of two between 8 and %llu sectors",
			  (unsigned long long)REGION_MAX);
		return -EINVAL;
	}
	t->region_size = x;
	return 0;
}

static int f_region(const struct nm_table *t, char *buf, size_t len)
{
	return fmt_u64(buf, len, t->region_size);
}

#define U32_OPT(name, field, min, max, msg)				\
static int p_##name(struct nm_table *t, const char *v, char *err, size_t el) \
{									\
	uint64_t x;							\
	if (parse_u64_range(v, min, max, &x)) {				\
		nm_seterr(err, el, msg " must be a decimal number " #min ".." #max); \
		return -EINVAL;						\
	}								\
	t->field = (uint32_t)x;						\
	return 0;							\
}									\
static int f_##name(const struct nm_table *t, char *buf, size_t len)	\
{									\
	return fmt_u64(buf, len, t->field);				\
}

/* resync_rate 0 = adaptive (dm-netmirror 1.2) */
U32_OPT(rate, resync_rate, 0, 4294967295, "resync_rate (KiB/s, 0 = adaptive)")
/* dm-netmirror 1.3 ranges; ping < timeout is checked in validate */
U32_OPT(timeout, timeout_ms, 500, 600000, "timeout (ms)")
U32_OPT(ping, ping_ms, 100, 60000, "ping (ms)")

static int p_secret(struct nm_table *t, const char *v, char *err, size_t el)
{
	size_t n = strlen(v);
	const char *p;

	if (!n || n > NM_SECRET_DESC_MAX) {
		nm_seterr(err, el, "secret key description must be 1..%d characters",
			  NM_SECRET_DESC_MAX);
		return -EINVAL;
	}
	for (p = v; *p; p++) {
		if (!isgraph((unsigned char)*p) || *p == '\\' || *p == '%') {
			nm_seterr(err, el, "secret key description must be printable, without backslash or '%%'");
			return -EINVAL;
		}
	}
	memcpy(t->secret, v, n + 1);
	return 0;
}

static int f_secret(const struct nm_table *t, char *buf, size_t len)
{
	return fmt_str(buf, len, t->secret);
}

/*
 * THE option table.  Order = canonical order the kernel reprints.  Adding a
 * keyword: one entry here (+ enum nm_opt_id + field in struct nm_table).
 */
static const struct nm_opt_def opt_defs[] = {
	{ "listen", NM_OPT_LISTEN, 1, "ADDR:PORT", p_listen, f_listen },
	{ "role", NM_OPT_ROLE, 1, "primary|secondary", p_role, f_role },
	{ "meta", NM_OPT_META, 2, "DEV", p_meta, f_meta },
	{ "region_size", NM_OPT_REGION_SIZE, 2, "SECTORS", p_region, f_region },
	{ "sync", NM_OPT_SYNC, 2, "full|none", p_sync, f_sync },
	{ "resync_rate", NM_OPT_RESYNC_RATE, 2, "KIB_PER_S", p_rate, f_rate },
	{ "timeout", NM_OPT_TIMEOUT, 3, "MS", p_timeout, f_timeout },
	{ "ping", NM_OPT_PING, 3, "MS", p_ping, f_ping },
	{ "on_io_error", NM_OPT_ON_IO_ERROR, 4, "detach|pass_on", p_ioerr, f_ioerr },
	{ "integrity", NM_OPT_INTEGRITY, 3, "crc32c", p_integ, f_integ },
	{ "secret", NM_OPT_SECRET, 3, "KEY_DESC", p_secret, f_secret },
};

_Static_assert(NELEM(opt_defs) == NM__OPT_COUNT, "option table incomplete");

const struct nm_opt_def *nm_opt_defs(size_t *n)
{
	if (n)
		*n = NELEM(opt_defs);
	return opt_defs;
}

const struct nm_opt_def *nm_opt_find(const char *kw)
{
	size_t i;

	for (i = 0; i < NELEM(opt_defs); i++)
		if (!strcmp(opt_defs[i].keyword, kw))
			return &opt_defs[i];
	return NULL;
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
	memset(t, 0, sizeof(*t));
	t->protocol = NM_PROTO_C;
	t->ordering = NM_ORDER_FLUSH;
	t->role = NM_ROLE_SECONDARY;
	t->sync = NM_SYNC_FULL;
	t->on_io_error = NM_IOERR_DETACH;
	t->integrity = NM_INTEGRITY_CRC32C;
}

/*
 * Options whose value is the default and that the kernel does not reprint:
 * "role secondary" (dm-netmirror 1.1 prints only "role primary").
 */
static void normalize(struct nm_table *t)
{
	if ((t->opts & NM_OPT_BIT(NM_OPT_ROLE)) && t->role == NM_ROLE_SECONDARY)
		t->opts &= ~NM_OPT_BIT(NM_OPT_ROLE);
}

int nm_table_set_option(struct nm_table *t, const char *kw, const char *val,
			char *err, size_t errlen)
{
	const struct nm_opt_def *d = nm_opt_find(kw);
	char e[NM_ERRLEN];

	if (!d) {
		char list[256];

		opt_list(list, sizeof(list));
		nm_seterr(err, errlen, "unknown option \"%s\" (known: %s)", kw, list);
		return -EINVAL;
	}
	if (!val) {
		nm_seterr(err, errlen, "option %s: missing value (%s)", kw, d->value_help);
		return -EINVAL;
	}
	if (d->parse(t, val, e, sizeof(e))) {
		nm_seterr(err, errlen, "option %s \"%s\": %s", kw, val, e);
		return -EINVAL;
	}
	t->opts |= NM_OPT_BIT(d->id);
	normalize(t);
	return 0;
}

/* "word N "X": why" */
static void werr(char *err, size_t errlen, unsigned idx, const char *word,
		 const char *fmt, ...) __attribute__((format(printf, 5, 6)));
static void werr(char *err, size_t errlen, unsigned idx, const char *word,
		 const char *fmt, ...)
{
	char m[NM_ERRLEN];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(m, sizeof(m), fmt, ap);
	va_end(ap);
	nm_seterr(err, errlen, "word %u \"%.64s\": %s", idx, word, m);
}
#define WERR(w, word, ...) werr(err, errlen, (w)->idx, (word), __VA_ARGS__)

#define MISSING(w, what) \
	nm_seterr(err, errlen, "word %u: missing %s", (w)->idx + 1, (what))

static int parse_params(struct nm_words *w, struct nm_table *t, char *err,
			size_t errlen)
{
	char word[NM_DEV_MAX], e[NM_ERRLEN];
	uint64_t count;
	unsigned rem, i, seen = 0;
	int r;

	/* local_dev */
	r = nm_words_next(w, word, sizeof(word), err, errlen);
	if (r < 0)
		return r;
	if (!r) {
		MISSING(w, "local_dev (path or major:minor)");
		return -EINVAL;
	}
	if (nm_parse_dev(word, t->local_dev, sizeof(t->local_dev), e, sizeof(e))) {
		WERR(w, word, "local_dev: %s", e);
		return -EINVAL;
	}

	/* peer_addr */
	r = nm_words_next(w, word, sizeof(word), err, errlen);
	if (r < 0)
		return r;
	if (!r) {
		MISSING(w, "peer_addr (a.b.c.d:port or [ipv6]:port)");
		return -EINVAL;
	}
	if (nm_parse_addr(word, &t->peer, e, sizeof(e))) {
		WERR(w, word, "peer_addr: %s", e);
		return -EINVAL;
	}

	/* protocol */
	r = nm_words_next(w, word, sizeof(word), err, errlen);
	if (r < 0)
		return r;
	if (!r) {
		MISSING(w, "protocol (A, B or C)");
		return -EINVAL;
	}
	if (nm_protocol_parse(word, &t->protocol)) {
		WERR(w, word, "protocol must be A, B or C");
		return -EINVAL;
	}

	/* ordering */
	r = nm_words_next(w, word, sizeof(word), err, errlen);
	if (r < 0)
		return r;
	if (!r) {
		MISSING(w, "ordering (flush, drain or none)");
		return -EINVAL;
	}
	if (nm_ordering_parse(word, &t->ordering)) {
		WERR(w, word, "ordering must be flush, drain or none");
		return -EINVAL;
	}

	/* optional group */
	r = nm_words_next(w, word, sizeof(word), err, errlen);
	if (r <= 0)
		return r;
	if (nm_parse_u64(word, &count)) {
		WERR(w, word, "option count must be a decimal number");
		return -EINVAL;
	}
	rem = nm_words_remaining(w);
	if (count != rem) {
		WERR(w, word, "option count is %llu but %u word%s follow%s",
		     (unsigned long long)count, rem, rem == 1 ? "" : "s",
		     rem == 1 ? "s" : "");
		return -EINVAL;
	}
	for (i = 0; i < rem; i++) {
		const struct nm_opt_def *d;
		char val[NM_DEV_MAX];

		r = nm_words_next(w, word, sizeof(word), err, errlen);
		if (r < 0)
			return r;
		i++;
		d = nm_opt_find(word);
		if (!d) {
			char list[256];

			opt_list(list, sizeof(list));
			WERR(w, word, "unknown option (known: %s)", list);
			return -EINVAL;
		}
		if (seen & NM_OPT_BIT(d->id)) {
			WERR(w, word, "option %s given twice", d->keyword);
			return -EINVAL;
		}
		r = nm_words_next(w, val, sizeof(val), err, errlen);
		if (r < 0)
			return r;
		if (!r) {
			WERR(w, word, "missing value for %s (%s)", d->keyword,
			     d->value_help);
			return -EINVAL;
		}
		if (d->parse(t, val, e, sizeof(e))) {
			WERR(w, val, "%s", e);
			return -EINVAL;
		}
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

	r = nm_words_next(&w, word, sizeof(word), err, errlen);
	if (r < 0)
		return r;
	if (!r) {
		MISSING(&w, "start sector");
		return -EINVAL;
	}
	if (nm_parse_u64(word, &tmp.start)) {
		WERR(&w, word, "start must be a decimal sector number");
		return -EINVAL;
	}
	r = nm_words_next(&w, word, sizeof(word), err, errlen);
	if (r < 0)
		return r;
	if (!r) {
		MISSING(&w, "length");
		return -EINVAL;
	}
	if (nm_parse_u64(word, &tmp.len) || !tmp.len) {
		WERR(&w, word, "length must be a decimal sector count > 0");
		return -EINVAL;
	}
	if (tmp.start + tmp.len < tmp.start) {
		WERR(&w, word, "start + length overflows");
		return -EINVAL;
	}
	r = nm_words_next(&w, word, sizeof(word), err, errlen);
	if (r < 0)
		return r;
	if (!r) {
		MISSING(&w, "target type \"" NM_TARGET_NAME "\"");
		return -EINVAL;
	}
	if (strcmp(word, NM_TARGET_NAME)) {
		WERR(&w, word, "target type must be \"" NM_TARGET_NAME "\"");
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
	char e[NM_ERRLEN], dev[NM_DEV_MAX];
	struct nm_table scratch;
	char val[NM_DEV_MAX];
	size_t i;

	if (nm_parse_dev(t->local_dev, dev, sizeof(dev), e, sizeof(e))) {
		nm_seterr(err, errlen, "local_dev: %s", e);
		return -EINVAL;
	}
	if (t->peer.family != AF_INET && t->peer.family != AF_INET6) {
		nm_seterr(err, errlen, "peer address not set");
		return -EINVAL;
	}
	if (!t->peer.port) {
		nm_seterr(err, errlen, "peer port must be 1..65535");
		return -EINVAL;
	}
	if ((unsigned)t->protocol > NM_PROTO_C) {
		nm_seterr(err, errlen, "protocol must be A, B or C");
		return -EINVAL;
	}
	if ((unsigned)t->ordering > NM_ORDER_NONE) {
		nm_seterr(err, errlen, "ordering must be flush, drain or none");
		return -EINVAL;
	}
	if (t->opts & ~((1u << NM__OPT_COUNT) - 1)) {
		nm_seterr(err, errlen, "unknown option bits 0x%x", t->opts);
		return -EINVAL;
	}
	/* Each set option must survive format -> parse (range checks). */
	for (i = 0; i < NELEM(opt_defs); i++) {
		const struct nm_opt_def *d = &opt_defs[i];

		if (!(t->opts & NM_OPT_BIT(d->id)))
			continue;
		if (d->format(t, val, sizeof(val)) < 0 ||
		    d->parse(&scratch, val, e, sizeof(e))) {
			nm_seterr(err, errlen, "option %s: invalid value", d->keyword);
			return -EINVAL;
		}
	}
	if ((t->opts & NM_OPT_BIT(NM_OPT_LISTEN)) &&
	    t->listen.family != t->peer.family) {
		nm_seterr(err, errlen, "listen and peer addresses must both be IPv4 or both IPv6");
		return -EINVAL;
	}
	if ((t->opts & NM_OPT_BIT(NM_OPT_META)) &&
	    !strcmp(t->meta_dev, t->local_dev)) {
		nm_seterr(err, errlen, "meta device must differ from local_dev");
		return -EINVAL;
	}
	if (t->opts & (NM_OPT_BIT(NM_OPT_TIMEOUT) | NM_OPT_BIT(NM_OPT_PING))) {
		uint32_t to = (t->opts & NM_OPT_BIT(NM_OPT_TIMEOUT)) ?
			      t->timeout_ms : NM_DEFAULT_TIMEOUT_MS;
		uint32_t pi = (t->opts & NM_OPT_BIT(NM_OPT_PING)) ?
			      t->ping_ms : NM_DEFAULT_PING_MS;

		if (pi >= to) {
			nm_seterr(err, errlen, "ping (%u ms) must be shorter than timeout (%u ms)",
				  pi, to);
			return -EINVAL;
		}
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
		if (t->opts & NM_OPT_BIT(opt_defs[i].id) &&
		    !(opt_defs[i].id == NM_OPT_ROLE && t->role == NM_ROLE_SECONDARY))
			nopts++;
	if (!nopts)
		return (int)o;
	n = snprintf(buf + o, len - o, " %u", nopts * 2);
	if (n < 0 || (size_t)n >= len - o)
		return -ENOSPC;
	o += (size_t)n;
	for (i = 0; i < NELEM(opt_defs); i++) {
		const struct nm_opt_def *d = &opt_defs[i];

		if (!(t->opts & NM_OPT_BIT(d->id)) ||
		    (d->id == NM_OPT_ROLE && t->role == NM_ROLE_SECONDARY))
			continue;
		if (d->format(t, val, sizeof(val)) < 0)
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
	return m;
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
	return 0;
}
