/* SPDX-License-Identifier: GPL-2.0 */
/* Shared by the guest helpers in tests/vm/src (each a static binary). */
#ifndef NM_VMUTIL_H
#define NM_VMUTIL_H

#include <stdint.h>
#include <stdlib.h>
#include <time.h>

/* CLOCK_MONOTONIC in seconds */
static inline double vm_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* qsort comparator of doubles, ascending */
static inline int vm_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* "4096", "64k", "16M", "1G" (powers of 1024), "0x..." */
static uint64_t parse_size(const char *s)
{
	char *e;
	uint64_t v = strtoull(s, &e, 0);

	switch (*e) {
	case 'k': case 'K': v <<= 10; break;
	case 'm': case 'M': v <<= 20; break;
	case 'g': case 'G': v <<= 30; break;
	default: break;
	}
	return v;
}

#endif
