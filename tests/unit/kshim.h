/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The few kernel types and bitmap calls that dm-mirror-net/nm_regions.c
 * uses, for compiling it in userspace (tests/unit/test_regions.c).
 */
#ifndef NM_KSHIM_H
#define NM_KSHIM_H

#include <stdbool.h>
#include <assert.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <errno.h>
#include <string.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

typedef uint32_t u32;
typedef uint64_t u64;

#define GFP_KERNEL 0
#define __GFP_RETRY_MAYFAIL 0
#define __GFP_NOWARN 0
#define BITS_PER_LONG (8 * sizeof(long))
#define BITS_TO_LONGS(n) (((n) + BITS_PER_LONG - 1) / BITS_PER_LONG)

static inline void *kvcalloc(size_t n, size_t size, int gfp)
{
	(void)gfp;
	return calloc(n ? n : 1, size);
}

static inline void kvfree(const void *p)
{
	free((void *)p);
}

static inline unsigned int ilog2(unsigned long v)
{
	unsigned int r = 0;

	while (v >>= 1)
		r++;
	return r;
}

static inline bool test_bit(unsigned long nr, const unsigned long *map)
{
	return (map[nr / BITS_PER_LONG] >> (nr % BITS_PER_LONG)) & 1;
}

static inline void __set_bit(unsigned long nr, unsigned long *map)
{
	map[nr / BITS_PER_LONG] |= 1UL << (nr % BITS_PER_LONG);
}

static inline void __clear_bit(unsigned long nr, unsigned long *map)
{
	map[nr / BITS_PER_LONG] &= ~(1UL << (nr % BITS_PER_LONG));
}

static inline void bitmap_set(unsigned long *map, unsigned long start,
			      unsigned long n)
{
	while (n--)
		__set_bit(start++, map);
}

static inline unsigned long hweight_long(unsigned long w)
{
	return (unsigned long)__builtin_popcountl(w);
}

static inline unsigned long bitmap_weight(const unsigned long *map,
					  unsigned long nbits)
{
	unsigned long i, w = 0;

	for (i = 0; i < nbits; i++)
		w += test_bit(i, map);
	return w;
}

static inline void bitmap_zero(unsigned long *map, unsigned long nbits)
{
	unsigned long i;

	for (i = 0; i < BITS_TO_LONGS(nbits); i++)
		map[i] = 0;
}

/* as the kernel's: the whole last word, bits past @nbits too */
static inline void bitmap_fill(unsigned long *map, unsigned long nbits)
{
	unsigned long i;

	for (i = 0; i < BITS_TO_LONGS(nbits); i++)
		map[i] = ~0UL;
}

#define BITMAP_LAST_WORD_MASK(nbits) (~0UL >> (-(nbits) & (BITS_PER_LONG - 1)))

static inline bool bitmap_empty(const unsigned long *map,
				unsigned long nbits)
{
	unsigned long i;

	for (i = 0; i < nbits; i++)
		if (test_bit(i, map))
			return false;
	return true;
}

static inline void bitmap_or(unsigned long *dst, const unsigned long *a,
			     const unsigned long *b, unsigned long nbits)
{
	unsigned long i;

	for (i = 0; i < BITS_TO_LONGS(nbits); i++)
		dst[i] = a[i] | b[i];
}

static inline unsigned long find_next_bit(const unsigned long *map,
					  unsigned long size,
					  unsigned long off)
{
	for (; off < size; off++)
		if (test_bit(off, map))
			return off;
	return size;
}

#endif
