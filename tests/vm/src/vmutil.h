/* SPDX-License-Identifier: GPL-2.0 */
/* Shared by the guest helpers in tests/vm/src (each a static binary). */
#ifndef NM_VMUTIL_H
#define NM_VMUTIL_H

#include <stdint.h>
#include <stdlib.h>

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
