// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the module's region object (dm-mirror-net/nm_regions.c,
 * compiled here in userspace with kshim.h): ranges, marking, and the
 * in-flight/rs_busy invariants.  One line per case; with $NM_RESULTS set,
 * "PASS unit/test_regions/<case>" or "FAIL ..." is appended to that file.
 */
#include <stdio.h>
#include <string.h>
#include "nm_regions.h"

#define NM_CHECK_GROUP "test_regions"
#include "nmcheck.h"

int main(void)
{
	struct nm_regions rg;
	unsigned long f = 99, l = 99, i;
	bool ok;

	/* 1000 sectors in regions of 8: 125 regions; 1001: 126 */
	check("init", !nm_regions_init(&rg, 1001, 8));
	check("count_rounds_up", rg.nr == 126 && rg.shift == 3);
	check("fresh_all_in_sync", nm_regions_oos_count(&rg) == 0);

	/* memory: 14 bitmaps of 2 words and 126 counters; with metadata 16 */
	check("bytes_small",
	      nm_regions_bytes(1001, 8, false) == 14 * 2 * 8 + 126 * 4);
	check("bytes_small_meta",
	      nm_regions_bytes(1001, 8, true) == 16 * 2 * 8 + 126 * 4);
	/* 512 GiB in regions of 8 sectors: 2^27 regions, 720 MiB */
	check("bytes_2p27",
	      nm_regions_bytes(1ULL << 30, 8, false) ==
	      14ULL * (1 << 24) + (4ULL << 27));
	/* 64 TiB in regions of 1 MiB: 2^26 regions; fits in 64 bits */
	check("bytes_64tib",
	      nm_regions_bytes(1ULL << 37, 2048, true) ==
	      16ULL * (1 << 23) + (4ULL << 26));

	check("range_one_sector",
	      nm_regions_range(&rg, 9, 1, &f, &l) && f == 1 && l == 1);
	check("range_spans",
	      nm_regions_range(&rg, 7, 2, &f, &l) && f == 0 && l == 1);
	check("range_exact_region",
	      nm_regions_range(&rg, 16, 8, &f, &l) && f == 2 && l == 2);
	check("range_empty_refused", !nm_regions_range(&rg, 16, 0, &f, &l));
	check("range_past_end_refused",
	      !nm_regions_range(&rg, 126 * 8, 1, &f, &l));
	check("range_clamped_to_last",
	      nm_regions_range(&rg, 1000, 100, &f, &l) && f == 125 &&
	      l == 125);

	nm_regions_mark_oos(&rg, 3, 5);
	check("mark_counts", nm_regions_oos_count(&rg) == 3);
	check("any_hit", nm_regions_any(&rg, rg.oos, 0, 3));
	check("any_miss_before", !nm_regions_any(&rg, rg.oos, 0, 2));
	check("any_miss_after", !nm_regions_any(&rg, rg.oos, 6, 125));
	nm_regions_mark_oos(&rg, 4, 4);
	check("mark_idempotent", nm_regions_oos_count(&rg) == 3);

	/* writes in flight: start/end balance; wake only for a busy region */
	nm_regions_write_start(&rg, 10, 12, false);
	nm_regions_write_start(&rg, 11, 11, true);
	ok = rg.inflight[10] == 1 && rg.inflight[11] == 2 &&
	     rg.inflight[12] == 1 && test_bit(11, rg.rs_dirty) &&
	     !test_bit(10, rg.rs_dirty);
	for (i = 10; i <= 12; i++)
		ok = ok && test_bit(i, rg.touched);
	check("write_start_counts", ok);
	ok = true;
	for (i = 0; i < rg.nr; i++)
		ok = ok && test_bit(i, rg.active) == (i >= 10 && i <= 12);
	check("active_is_inflight_nonzero", ok);
	__set_bit(11, rg.rs_busy);
	check("write_end_busy_not_idle_no_wake",
	      !nm_regions_write_end(&rg, 11, 11));
	check("active_kept_while_one_left", test_bit(11, rg.active));
	check("write_end_busy_idle_wakes",
	      nm_regions_write_end(&rg, 10, 12) && rg.inflight[11] == 0);
	ok = true;
	for (i = 0; i < rg.nr; i++)
		ok = ok && rg.inflight[i] == 0 && !test_bit(i, rg.active);
	check("write_balance_zero", ok);

	/* the transfer log: sent -> stable point -> confirmed, or lost */
	for (i = 0; i < rg.nr; i++)
		__clear_bit(i, rg.oos);
	check("tl_nothing_sent_no_point", !nm_regions_stable_point(&rg));
	nm_regions_sent(&rg, 20, 21);
	check("tl_point_after_send", nm_regions_stable_point(&rg) &&
	      test_bit(20, rg.syncing) && !test_bit(20, rg.sent) &&
	      nm_regions_unconfirmed(&rg) == 2);
	nm_regions_sent(&rg, 30, 30);	/* sent after the point */
	nm_regions_stable_done(&rg);
	check("tl_confirmed_cleared", !test_bit(20, rg.syncing) &&
	      test_bit(30, rg.sent) && nm_regions_unconfirmed(&rg) == 1);
	nm_regions_sent(&rg, 40, 40);
	nm_regions_stable_point(&rg);	/* 30, 40 now await an ack */
	nm_regions_sent(&rg, 50, 50);
	nm_regions_sent(&rg, 40, 40);	/* in both sent and syncing: once */
	check("tl_unconfirmed_counts_both", nm_regions_unconfirmed(&rg) == 3);
	nm_regions_unconfirmed_oos(&rg);
	check("tl_peer_failed_marks_unconfirmed",
	      nm_regions_oos_count(&rg) == 3 &&
	      test_bit(30, rg.oos) && test_bit(40, rg.oos) &&
	      test_bit(50, rg.oos) && !test_bit(20, rg.oos) &&
	      nm_regions_unconfirmed(&rg) == 3);
	for (i = 0; i < rg.nr; i++)
		__clear_bit(i, rg.oos);
	check("tl_link_loss_marks_all_unconfirmed",
	      nm_regions_take_unconfirmed(&rg) == 3 &&
	      test_bit(30, rg.oos) && test_bit(40, rg.oos) &&
	      test_bit(50, rg.oos) && !test_bit(20, rg.oos) &&
	      nm_regions_oos_count(&rg) == 3 &&
	      test_bit(50, rg.lost));
	check("tl_empty_after_loss", !nm_regions_stable_point(&rg) &&
	      nm_regions_unconfirmed(&rg) == 0);

	nm_regions_exit(&rg);
	check("exit_clears", !rg.oos && !rg.inflight);

	/* a large device: 1 TiB in 512 KiB regions */
	check("init_large", !nm_regions_init(&rg, 1ULL << 31, 1024));
	check("large_count", rg.nr == (1UL << 21));
	nm_regions_mark_oos(&rg, rg.nr - 1, rg.nr - 1);
	check("large_last_region",
	      nm_regions_any(&rg, rg.oos, rg.nr - 1, rg.nr - 1) &&
	      nm_regions_oos_count(&rg) == 1);
	nm_regions_sent(&rg, rg.nr - 1, rg.nr - 1);
	check("large_unconfirmed_last", nm_regions_unconfirmed(&rg) == 1);
	/* status counts oos and failed_here once each, the handshake oos */
	{
		struct nm_regions small;

		/* 100 regions: the last word has 36 bits past them */
		check("init_100", !nm_regions_init(&small, 800, 8) &&
		      small.nr == 100);
		bitmap_fill(small.oos, small.nr);
		check("shown_oos_filled_counts_regions_only",
		      nm_regions_shown_oos(&small) == 100);
		bitmap_zero(small.oos, small.nr);
		__set_bit(99, small.failed_here);
		check("shown_oos_failed_here_last",
		      nm_regions_shown_oos(&small) == 1 &&
		      nm_regions_oos_count(&small) == 0);
		nm_regions_exit(&small);
	}
	__set_bit(rg.nr - 1, rg.failed_here);
	__set_bit(7, rg.failed_here);
	check("shown_oos_union",
	      nm_regions_shown_oos(&rg) == 2 && nm_regions_oos_count(&rg) == 1);
	nm_regions_exit(&rg);
	check("exit_clears_failed_here", !rg.failed_here);

	return nm_check_done();
}
