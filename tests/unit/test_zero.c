// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the part of a discard that a device discards in whole
 * units (dm-mirror-net/nm_zero.h): the named cases (dm-thin's 64 KiB
 * blocks, the ranges of tests/vm/guest/nm-discard.sh) and every range of
 * a small space, against the units counted one by one.
 */
#include <stdio.h>
#include "nm_zero.h"

#define NM_CHECK_GROUP "test_zero"
#include "nmcheck.h"

/* sector x starts a unit */
static int unit_start(unsigned long long x, unsigned int gran,
		      unsigned int off)
{
	return gran ? (x % gran) == off % gran : 1;
}

/* the naive answer: the first and last unit boundaries inside [s, e] */
static int naive(unsigned long long s, unsigned long long e,
		 unsigned int gran, unsigned int off,
		 unsigned long long *first, unsigned long long *end)
{
	unsigned long long x;
	int have = 0;

	*first = *end = 0;
	for (x = s; x <= e; x++)
		if (unit_start(x, gran, off)) {
			if (!have)
				*first = x;
			*end = x;
			have = 1;
		}
	return have && *first < *end;
}

static int is(unsigned long long s, unsigned long long e, unsigned int gran,
	      unsigned int off, int want, unsigned long long wf,
	      unsigned long long we)
{
	unsigned long long f, l;
	int r = nm_zero_whole(s, e, gran, off, &f, &l);

	return r == want && (!want || (f == wf && l == we));
}

int main(void)
{
	unsigned int gran, off;
	unsigned long long s, e, f, l, nf, nl;
	int all = 1, edges_zeroed = 1;

	/* 64 KiB units (128 sectors), aligned at 0: nm-discard.sh's ranges */
	check("inside_one_unit", is(2048 + 8, 2048 + 24, 128, 0, 0, 0, 0));
	check("across_an_edge", is(4096 + 64, 4096 + 192, 128, 0, 0, 0, 0));
	check("unit_and_tail", is(6144, 6144 + 136, 128, 0, 1, 6144, 6272));
	check("exact_units", is(6144, 6144 + 1024, 128, 0, 1, 6144, 7168));
	check("head_units_tail", is(100, 1000, 128, 0, 1, 128, 896));
	check("alignment_offset", is(0, 1000, 128, 7, 1, 7, 903));
	check("alignment_above_gran", is(0, 1000, 128, 135, 1, 7, 903));
	check("gran_one_sector", is(5, 9, 1, 0, 1, 5, 9));
	check("gran_zero_as_one", is(5, 9, 0, 0, 1, 5, 9));
	check("huge_range", is(1ULL << 40, (1ULL << 41) + 3, 2048, 0, 1,
			       1ULL << 40, 1ULL << 41));

	/* every range of 0..300 for a few unit sizes and offsets */
	for (gran = 1; gran <= 24; gran += (gran < 4 ? 1 : 5))
		for (off = 0; off < gran + 2; off++)
			for (s = 0; s < 300; s++)
				for (e = s + 1; e <= 300; e++) {
					int r = nm_zero_whole(s, e, gran, off,
							      &f, &l);
					int n = naive(s, e, gran, off, &nf, &nl);

					if (r != n || (r && (f != nf || l != nl)))
						all = 0;
					/* what nm_zero_range leaves: [s, f)
					 * and [l, e) zeroed, each short of a
					 * unit, inside the range */
					if (r && (f < s || l > e ||
						  f - s >= gran ||
						  e - l >= gran))
						edges_zeroed = 0;
				}
	check("every_small_range_as_counted", all);
	check("edges_short_of_a_unit", edges_zeroed);
	return nm_check_done();
}
