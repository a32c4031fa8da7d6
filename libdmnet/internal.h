/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Internal helpers shared by libdmnet's .c files; not installed. */
#ifndef LIBDMNET_INTERNAL_H
#define LIBDMNET_INTERNAL_H

#include <stddef.h>

#define NM_HIDDEN __attribute__((visibility("hidden")))
#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

/* util.c */
NM_HIDDEN void nm_seterr(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Lazy whitespace-separated word reader; idx = number of the last word
 * returned (1-based, counting from base). */
struct nm_words {
	const char *p;
	unsigned idx;
};
NM_HIDDEN void nm_words_init(struct nm_words *w, const char *s, unsigned base);
NM_HIDDEN int nm_words_next(struct nm_words *w, char *buf, size_t len,
			    char *err, size_t errlen);
NM_HIDDEN unsigned nm_words_remaining(const struct nm_words *w);

#endif
