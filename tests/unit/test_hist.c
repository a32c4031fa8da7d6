// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the latency histogram (dm-mirror-net/nm_hist.h): every
 * value lands in the bucket whose range holds it, buckets are at most 25%
 * wide from 8 us up, and percentiles pick the right bucket.
 */
#include <stdio.h>
#include <string.h>
#include "nm_hist.h"

#define NM_CHECK_GROUP "test_hist"
#include "nmcheck.h"

int main(void)
{
	u64 n[NM_HIST_BUCKETS], us;
	unsigned int b, prev = 0;
	int in_range = 1, monotone = 1, narrow = 1, lower_ok = 1;

	for (us = 0; us < (1u << 22); us++) {
		b = nm_hist_bucket(us);
		if (b < prev)
			monotone = 0;
		prev = b;
		if (nm_hist_lower(b) > us ||
		    (b + 1 < NM_HIST_BUCKETS && nm_hist_lower(b + 1) <= us))
			in_range = 0;
	}
	for (b = 8; b + 1 < NM_HIST_BUCKETS; b++)
		if ((nm_hist_lower(b + 1) - nm_hist_lower(b)) * 4 > nm_hist_lower(b))
			narrow = 0;
	for (b = 0; b < NM_HIST_BUCKETS; b++)
		if (nm_hist_bucket(nm_hist_lower(b)) != b)
			lower_ok = 0;
	check("small_values_exact", nm_hist_bucket(0) == 0 && nm_hist_bucket(7) == 7);
	check("value_in_its_bucket", in_range);
	check("buckets_monotone", monotone);
	check("buckets_at_most_25pct_wide", narrow);
	check("lower_bound_round_trips", lower_ok);
	check("huge_values_in_last_bucket",
	      nm_hist_bucket(~0ull) == NM_HIST_BUCKETS - 1 &&
	      nm_hist_bucket(1ull << 40) == NM_HIST_BUCKETS - 1);

	/* 90 values of 100 us, 10 of 1000 us */
	memset(n, 0, sizeof(n));
	n[nm_hist_bucket(100)] = 90;
	n[nm_hist_bucket(1000)] = 10;
	check("p50", nm_hist_pct(n, 100, 50) == nm_hist_lower(nm_hist_bucket(100)));
	check("p90_still_low", nm_hist_pct(n, 100, 90) == nm_hist_lower(nm_hist_bucket(100)));
	check("p91_high", nm_hist_pct(n, 100, 91) == nm_hist_lower(nm_hist_bucket(1000)));
	check("p99_high", nm_hist_pct(n, 100, 99) == nm_hist_lower(nm_hist_bucket(1000)));
	check("p100_high", nm_hist_pct(n, 100, 100) == nm_hist_lower(nm_hist_bucket(1000)));
	memset(n, 0, sizeof(n));
	n[3] = 1;
	check("one_value", nm_hist_pct(n, 1, 50) == 3 && nm_hist_pct(n, 1, 99) == 3);
	return nm_check_done();
}
