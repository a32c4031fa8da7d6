// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Small helpers shared by libdmnet's pure models: error strings, the lazy
 * word reader, strict decimal numbers, device name check.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

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

/* ---- numbers -------------------------------------------------------- */

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

int nm_parse_u32(const char *s, uint32_t min, uint32_t max, uint32_t *v)
{
	uint64_t x;

	if (nm_parse_u64(s, &x) || x > UINT32_MAX || x < min || x > max)
		return -EINVAL;
	*v = (uint32_t)x;
	return 0;
}

/* ---- names ---------------------------------------------------------- */

int nm_stack_check_name(const char *name, char *err, size_t errlen)
{
	const char *p;
	size_t n = name ? strlen(name) : 0;

	if (!n || n >= NM_NAME_MAX) {
		nm_seterr(err, errlen, "device name must be 1..%d characters", NM_NAME_MAX - 1);
		return -EINVAL;
	}
	if (!strcmp(name, ".") || !strcmp(name, "..")) {
		nm_seterr(err, errlen, "device name must not be \".\" or \"..\"");
		return -EINVAL;
	}
	for (p = name; *p; p++) {
		if (*p == '/' || !isgraph((unsigned char)*p)) {
			nm_seterr(err, errlen, "device name \"%.40s\" must not contain '/', whitespace or control characters",
				  name);
			return -EINVAL;
		}
	}
	return 0;
}
