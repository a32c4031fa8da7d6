// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the data-generation rules (dm-mirror-net/nm_gens.h): who is
 * the resync source after each history, when it is a split brain.  One line
 * per case; with $NM_RESULTS set, "PASS unit/test_gens/<case>" or "FAIL ..."
 * is appended to that file.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/types.h>
#include "nm_gens.h"

#define NM_CHECK_GROUP "test_gens"
#include "nmcheck.h"

/* both sides' verdicts must mirror each other */
static int mirror(const struct nm_gens *a, const struct nm_gens *b,
		  enum nm_gen_cmp want_a)
{
	enum nm_gen_cmp ca = nm_gens_compare(a, b), cb = nm_gens_compare(b, a);
	enum nm_gen_cmp want_b = want_a == NM_GC_SOURCE ? NM_GC_TARGET :
				 want_a == NM_GC_TARGET ? NM_GC_SOURCE : want_a;

	return ca == want_a && cb == want_b;
}

/* both sides' after-split-brain verdicts, and that they mirror */
static int asb(unsigned int p0, unsigned int p1, const struct nm_sb_side *a,
	       const struct nm_sb_side *b, enum nm_gen_cmp want_a)
{
	enum nm_gen_cmp ca = nm_gens_after_sb(p0, p1, a, b);
	enum nm_gen_cmp cb = nm_gens_after_sb(p0, p1, b, a);
	enum nm_gen_cmp want_b = want_a == NM_GC_SOURCE ? NM_GC_TARGET :
				 want_a == NM_GC_TARGET ? NM_GC_SOURCE : want_a;

	return ca == want_a && cb == want_b;
}

static void test_after_sb(void)
{
	struct nm_sb_side a = { .cur = 0xa0, .changed = 3 };
	struct nm_sb_side b = { .cur = 0xb0, .changed = 5 };
	struct nm_gens g;
	unsigned int p;

	int ok = 1;

	a.primary = b.primary = true;
	for (p = 0; p <= NM_ASB0_DISCARD_LEAST_CHANGES; p++)
		ok = ok && asb(p, NM_ASB1_DISCARD_SECONDARY, &a, &b,
			       NM_GC_SPLIT);
	check("asb/two_primaries_never", ok);
	a.primary = b.primary = false;
	check("asb/0pri_disconnect", asb(NM_ASB0_DISCONNECT,
		NM_ASB1_DISCARD_SECONDARY, &a, &b, NM_GC_SPLIT));
	check("asb/0pri_least_changes_loses", asb(NM_ASB0_DISCARD_LEAST_CHANGES,
		0, &a, &b, NM_GC_TARGET));
	b.changed = 3;
	check("asb/0pri_least_tie_larger_gen_wins",
	      asb(NM_ASB0_DISCARD_LEAST_CHANGES, 0, &a, &b, NM_GC_TARGET) &&
	      asb(NM_ASB0_DISCARD_LEAST_CHANGES, 0, &b, &a, NM_GC_SOURCE));
	check("asb/0pri_zero_changes_both_changed",
	      asb(NM_ASB0_DISCARD_ZERO_CHANGES, 0, &a, &b, NM_GC_SPLIT));
	a.changed = 0;
	check("asb/0pri_zero_changes_unchanged_loses",
	      asb(NM_ASB0_DISCARD_ZERO_CHANGES, 0, &a, &b, NM_GC_TARGET));
	a.changed = 7;
	b.changed = 2;
	a.bitmap_pri = true;	/* a was primary at the split, b promoted later */
	check("asb/0pri_younger_primary_loses",
	      asb(NM_ASB0_DISCARD_YOUNGER_PRIMARY, 0, &a, &b, NM_GC_SOURCE));
	check("asb/0pri_older_primary_loses",
	      asb(NM_ASB0_DISCARD_OLDER_PRIMARY, 0, &a, &b, NM_GC_TARGET));
	b.bitmap_pri = true;
	check("asb/0pri_younger_undecided_least_changes",
	      asb(NM_ASB0_DISCARD_YOUNGER_PRIMARY, 0, &a, &b, NM_GC_SOURCE));

	/* one primary: a */
	a.primary = true;
	a.changed = 1;
	b.changed = 9;
	check("asb/1pri_disconnect", asb(NM_ASB0_DISCARD_LEAST_CHANGES,
		NM_ASB1_DISCONNECT, &a, &b, NM_GC_SPLIT));
	check("asb/1pri_discard_secondary", asb(NM_ASB0_DISCONNECT,
		NM_ASB1_DISCARD_SECONDARY, &a, &b, NM_GC_SOURCE));
	/* consensus: 0pri would discard the primary: no */
	check("asb/1pri_consensus_refuses_primary_loss",
	      asb(NM_ASB0_DISCARD_LEAST_CHANGES, NM_ASB1_CONSENSUS, &a, &b,
		  NM_GC_SPLIT));
	a.changed = 20;
	check("asb/1pri_consensus_agrees", asb(NM_ASB0_DISCARD_LEAST_CHANGES,
		NM_ASB1_CONSENSUS, &a, &b, NM_GC_SOURCE));
	check("asb/1pri_consensus_0pri_disconnect", asb(NM_ASB0_DISCONNECT,
		NM_ASB1_CONSENSUS, &a, &b, NM_GC_SPLIT));

	/* the "older primary" mark: set when the split begins, then kept */
	memset(&g, 0, sizeof(g));
	g.cur = 0x10;
	nm_gens_new_as(&g, 0x20, true);
	nm_gens_new_as(&g, 0x30, false);
	check("asb/bitmap_pri_from_the_split", g.bitmap == 0x10 && g.bitmap_pri);
	nm_gens_synced_source(&g);
	check("asb/bitmap_pri_cleared_in_sync", !g.bitmap_pri);
	memset(&g, 0, sizeof(g));
	nm_gens_new_as(&g, 0x20, true);
	check("asb/no_history_no_mark", !g.bitmap && !g.bitmap_pri);
}

int main(void)
{
	struct nm_gens a, b, c;

	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	check("fresh_pair_unknown", mirror(&a, &b, NM_GC_UNKNOWN));
	b.cur = 0x10;
	check("one_without_history_unknown", mirror(&a, &b, NM_GC_UNKNOWN));

	/* a first sync: the source gets a generation, the target takes it */
	a.pair = 0x77;
	a.cur = 0x10;
	memset(&b, 0, sizeof(b));
	nm_gens_synced_target(&b, &a);
	nm_gens_synced_source(&a);
	check("after_first_sync_equal", mirror(&a, &b, NM_GC_EQUAL) &&
	      b.pair == 0x77 && !a.bitmap && !b.bitmap);

	/* the primary writes while disconnected: it is the source */
	c = a;
	nm_gens_new(&a, 0x20);
	check("new_gen_keeps_common_as_bitmap", a.cur == 0x20 &&
	      a.bitmap == 0x10);
	check("lone_writer_is_source", mirror(&a, &b, NM_GC_SOURCE));

	/* twice (a second disconnection before the resync ended) */
	nm_gens_new(&a, 0x30);
	/* 0x20 never reached the peer: it is not kept */
	check("second_new_gen_history", a.cur == 0x30 && a.bitmap == 0x10 &&
	      a.history[0] != 0x20 && a.history[1] != 0x20);
	check("two_gens_ahead_is_source", mirror(&a, &b, NM_GC_SOURCE));
	nm_gens_synced_target(&b, &a);
	nm_gens_synced_source(&a);
	check("resynced_equal", mirror(&a, &b, NM_GC_EQUAL) && !a.bitmap &&
	      b.history[0] == 0x10);

	/*
	 * same generation: the node that stopped as primary is the source;
	 * when neither or both did, the node that came with marks
	 */
	check("eq_marks_only_ours", nm_gens_eq_marks(3, 0, false, false) == 1);
	check("eq_marks_only_peer", nm_gens_eq_marks(0, 3, false, false) == -1);
	check("eq_marks_both_or_none", !nm_gens_eq_marks(2, 5, false, false) &&
	      !nm_gens_eq_marks(0, 0, false, false));
	check("eq_marks_mirrored", nm_gens_eq_marks(7, 0, false, false) ==
	      -nm_gens_eq_marks(0, 7, false, false) &&
	      nm_gens_eq_marks(1ULL << 40, 0, false, false) == 1);
	/* dur-crashpri, verify: a verify's marks on both nodes */
	check("eq_crashed_both_marked",
	      nm_gens_eq_marks(4, 1, true, false) == 1 &&
	      nm_gens_eq_marks(1, 4, false, true) == -1);
	check("eq_crashed_beats_marks",
	      nm_gens_eq_marks(0, 3, true, false) == 1 &&
	      nm_gens_eq_marks(3, 0, false, true) == -1 &&
	      nm_gens_eq_marks(0, 0, true, false) == 1);
	check("eq_crashed_both_marks_decide",
	      nm_gens_eq_marks(3, 0, true, true) == 1 &&
	      !nm_gens_eq_marks(2, 5, true, true));
	{
		static const __u64 c[] = { 0, 1, 9 };
		int i, j, x, y, ok = 1;

		for (i = 0; i < 3; i++)
			for (j = 0; j < 3; j++)
				for (x = 0; x < 2; x++)
					for (y = 0; y < 2; y++)
						ok &= nm_gens_eq_marks(c[i], c[j], x, y) ==
						      -nm_gens_eq_marks(c[j], c[i], y, x);
		check("eq_marks_mirrored_all", ok);
	}

	/* failover: b promoted alone and writes; a comes back unchanged */
	nm_gens_new(&b, 0x40);
	check("failover_node_is_source", mirror(&b, &a, NM_GC_SOURCE));

	/* split brain: both changed since 0x30 */
	nm_gens_new(&a, 0x50);
	check("both_changed_split", mirror(&a, &b, NM_GC_SPLIT));
	/* resolved: b discards its changes (target), then in sync */
	c = a;
	nm_gens_synced_target(&b, &a);
	nm_gens_synced_source(&a);
	check("split_resolved_equal", mirror(&a, &b, NM_GC_EQUAL) &&
	      b.cur == c.cur);

	/*
	 * A lost P_RS_DONE: offered, never taken; then three more disconnected
	 * writes.  The peer's generation must stay known (the 30-fault soak).
	 */
	{
		struct nm_gens s1 = a, t1 = a;

		nm_gens_synced_source(&s1);
		t1 = s1;
		nm_gens_new(&s1, 0x101);
		nm_gens_offered(&s1);		/* t1 never took it */
		nm_gens_new(&s1, 0x102);
		nm_gens_new(&s1, 0x103);
		nm_gens_new(&s1, 0x104);
		check("lost_rs_done_still_source", mirror(&s1, &t1, NM_GC_SOURCE));
		check("lost_rs_done_bitmap_enough",
		      !nm_gens_full(&s1, &t1, NM_GC_SOURCE) &&
		      !nm_gens_full(&t1, &s1, NM_GC_TARGET));

		/* the target took it, the confirmation was lost */
		s1 = a;
		nm_gens_synced_source(&s1);
		t1 = s1;
		nm_gens_new(&s1, 0x201);
		nm_gens_offered(&s1);
		nm_gens_synced_target(&t1, &s1);
		nm_gens_new(&s1, 0x202);
		nm_gens_new(&s1, 0x203);
		nm_gens_new(&s1, 0x204);
		check("lost_confirmation_still_source",
		      mirror(&s1, &t1, NM_GC_SOURCE));
		/* t1 holds the offered 0x201: our bitmap has all since */
		check("lost_confirmation_bitmap_enough",
		      !nm_gens_full(&s1, &t1, NM_GC_SOURCE) &&
		      !nm_gens_full(&t1, &s1, NM_GC_TARGET));
		/* and a split brain after it is still one */
		nm_gens_new(&t1, 0x301);
		check("lost_confirmation_split_detected",
		      mirror(&s1, &t1, NM_GC_SPLIT));
	}

	/* a restored old copy of a: its generation is in b's history */
	c.cur = 0x10;
	c.bitmap = 0;
	c.history[0] = c.history[1] = 0;
	check("old_copy_is_target", mirror(&c, &b, NM_GC_TARGET));
	/* ... and the bitmaps do not say what it lacks: a full resync */
	check("old_copy_full_resync", nm_gens_full(&b, &c, NM_GC_SOURCE) &&
	      nm_gens_full(&c, &b, NM_GC_TARGET));

	/*
	 * A restored backup, step by step: s and t in sync at 0x600; s
	 * writes alone (0x601), resyncs t, t confirms; t's disk and metadata
	 * are then restored from a copy made at 0x600.
	 */
	{
		struct nm_gens s = { .pair = 7, .cur = 0x600 }, t = s, old;

		old = t;
		nm_gens_new(&s, 0x601);
		check("backup/lone_writer_bitmap_only",
		      !nm_gens_full(&s, &t, NM_GC_SOURCE));
		nm_gens_offered(&s);
		nm_gens_synced_target(&t, &s);
		nm_gens_synced_source(&s);	/* confirmed */
		check("backup/in_sync", mirror(&s, &t, NM_GC_EQUAL));
		check("backup/restored_is_target", mirror(&s, &old, NM_GC_SOURCE));
		check("backup/restored_full_resync",
		      nm_gens_full(&s, &old, NM_GC_SOURCE) &&
		      nm_gens_full(&old, &s, NM_GC_TARGET));
	}

	/* another pair, and unrelated data */
	c = b;
	c.pair = 0x99;
	check("other_pair_refused", mirror(&c, &b, NM_GC_OTHER_PAIR));
	c.pair = b.pair;
	c.cur = 0x1234;
	c.bitmap = 0x5678;
	c.history[0] = c.history[1] = 0;
	check("unrelated_refused", mirror(&c, &b, NM_GC_UNRELATED));

	/* a P_RS_DONE is confirmed only by a P_STATE naming its generation */
	memset(&a, 0, sizeof(a));
	a.cur = 0x10;
	nm_gens_new(&a, 0x20);
	check("confirm_needs_offer", !nm_gens_confirms(&a, 0x20));
	nm_gens_offered(&a);
	check("confirm_stale_state_ignored", !nm_gens_confirms(&a, 0x10));
	check("confirm_no_gen_ignored", !nm_gens_confirms(&a, 0));
	check("confirm_by_our_gen", nm_gens_confirms(&a, 0x20));

	test_after_sb();
	return nm_check_done();
}
