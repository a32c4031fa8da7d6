/* SPDX-License-Identifier: GPL-2.0 */
/*
 * netmirror data generations: which node's data is newer.
 *
 * Each node with a metadata device keeps (persistently) a pair identity
 * and data generations, random 64-bit tags (0 = none/unknown):
 *   cur         the generation of its data now;
 *   bitmap      the generation when its out-of-sync bitmap started, i.e.
 *               the last generation it had in common with the peer
 *               (0 while in sync);
 *   history[2]  older current generations.
 * A new generation starts when a primary writes while disconnected and on
 * promotion of a disconnected node (nm_gens_new); a resync target takes
 * the source's current generation at the end (nm_gens_synced_target), and
 * the source forgets its bitmap generation (nm_gens_synced_source).
 *
 * nm_gens_compare() decides, from both nodes' generations, the direction
 * of the resync, as DRBD's UUID comparison does: the node whose data
 * descends from the other's is the source; if both changed since their
 * last common generation it is a split brain; a node with no history
 * (no metadata device, or a fresh one) gives "unknown", and the roles and
 * disk states decide as before generations existed.
 *
 * Pure functions over caller-owned structures: shared by the kernel and
 * the unit tests (tests/unit/test_gens.c).  No locking here.
 */
#ifndef NM_GENS_H
#define NM_GENS_H

#include "nm_params.h"

#ifdef __KERNEL__
#include <linux/types.h>
#else
#include <stdint.h>
#include <stdbool.h>
#endif

struct nm_gens {
	__u64 pair;
	__u64 cur;
	__u64 bitmap;
	__u64 history[2];
	__u32 offered;		/* cur went to the peer (P_RS_DONE), unconfirmed */
	__u32 bitmap_pri;	/* "older primary": primary when bitmap began */
	__u32 hist_held;	/* bit i: the peer may hold history[i] */
};

enum nm_gen_cmp {
	NM_GC_UNKNOWN = 0,	/* a side has no history: roles decide */
	NM_GC_EQUAL,		/* same data generation */
	NM_GC_SOURCE,		/* ours is newer: we are the source */
	NM_GC_TARGET,		/* the peer's is newer: we are the target */
	NM_GC_SPLIT,		/* both changed since the last common one */
	NM_GC_UNRELATED,	/* no common generation */
	NM_GC_OTHER_PAIR,	/* the metadata belongs to another pair */
};

static inline bool nm_gens_has(const struct nm_gens *g, __u64 v)
{
	return v && (g->bitmap == v || g->history[0] == v ||
		     g->history[1] == v);
}

static inline enum nm_gen_cmp nm_gens_compare(const struct nm_gens *l,
					      const struct nm_gens *p)
{
	if (l->pair && p->pair && l->pair != p->pair)
		return NM_GC_OTHER_PAIR;
	if (!l->cur || !p->cur)
		return NM_GC_UNKNOWN;
	if (l->cur == p->cur)
		return NM_GC_EQUAL;
	/* both moved on from one common generation: split brain */
	if (l->bitmap && (l->bitmap == p->bitmap ||
			  nm_gens_has(p, l->bitmap)) &&
	    p->bitmap && nm_gens_has(l, p->bitmap))
		return NM_GC_SPLIT;
	if (nm_gens_has(l, p->cur))
		return NM_GC_SOURCE;
	if (nm_gens_has(p, l->cur))
		return NM_GC_TARGET;
	return NM_GC_UNRELATED;
}

/*
 * A new data generation (@fresh: a random non-zero tag).  The one it
 * replaces is remembered only if the peer may hold it: it is the last
 * common one (bitmap), or it was offered to the peer at the end of a resync
 * without a confirmation.  A generation the peer never saw is dropped, so
 * disconnections without a finished resync cannot push the one the peer
 * holds out of the history.
 */
static inline void nm_gens_new_as(struct nm_gens *g, __u64 fresh,
				  bool primary_before)
{
	if (!g->bitmap) {
		g->bitmap = g->cur;
		g->bitmap_pri = g->cur && primary_before;
	} else if (g->offered) {
		g->history[1] = g->history[0];
		g->history[0] = g->cur;
		g->hist_held = ((g->hist_held << 1) & 2) | 1;
	}
	g->cur = fresh;
	g->offered = 0;
}

/*
 * After nm_gens_compare() said SOURCE or TARGET (@cmp, from @l's side):
 * is a resync of the two bitmaps enough?  It is when the target's
 * generation is the source's bitmap generation, or one the source offered
 * and never saw replaced (hist_held): every change since is in the
 * source's bitmap.  A target presenting an older history entry, one it
 * had already replaced by a newer one (a restored backup of its disk and
 * metadata, an old snapshot), lacks changes no bitmap records: the whole
 * device must be resynced.
 */
static inline bool nm_gens_full(const struct nm_gens *l,
				const struct nm_gens *p, enum nm_gen_cmp cmp)
{
	const struct nm_gens *s = cmp == NM_GC_SOURCE ? l : p;
	const struct nm_gens *t = cmp == NM_GC_SOURCE ? p : l;
	int i;

	if (cmp != NM_GC_SOURCE && cmp != NM_GC_TARGET)
		return false;
	if (t->cur == s->bitmap)
		return false;
	for (i = 0; i < 2; i++)
		if (t->cur == s->history[i])
			return !(s->hist_held & (1u << i));
	return false;
}

/* As nm_gens_new_as(), for a node that was not primary before. */
static inline void nm_gens_new(struct nm_gens *g, __u64 fresh)
{
	nm_gens_new_as(g, fresh, false);
}

/* P_RS_DONE sent: the peer may take cur from now on. */
static inline void nm_gens_offered(struct nm_gens *g)
{
	g->offered = 1;
}

/*
 * Does a P_STATE from the peer carrying @peer_gen confirm our P_RS_DONE?
 * Only if it names the generation we offered: a P_STATE the peer sent
 * before it took P_RS_DONE names its old one.
 */
static inline bool nm_gens_confirms(const struct nm_gens *g, __u64 peer_gen)
{
	return g->offered && peer_gen && peer_gen == g->cur;
}

/* End of a resync into this node: it has the source's data now. */
static inline void nm_gens_synced_target(struct nm_gens *g,
					 const struct nm_gens *src)
{
	if (g->cur != src->cur) {
		g->history[1] = g->history[0];
		g->history[0] = g->cur;
	}
	g->cur = src->cur;
	g->bitmap = 0;
	g->bitmap_pri = 0;
	g->offered = 0;
	g->hist_held = 0;	/* the source never goes back to these */
	g->pair = src->pair;
}

/* The peer confirmed it has our cur: nothing older is needed as common. */
static inline void nm_gens_synced_source(struct nm_gens *g)
{
	if (g->bitmap && g->bitmap != g->history[0]) {
		g->history[1] = g->history[0];
		g->history[0] = g->bitmap;
	}
	g->bitmap = 0;
	g->bitmap_pri = 0;
	g->offered = 0;
	g->hist_held = 0;	/* the peer holds cur: all these are older */
}

/*
 * After a split brain (nm_gens_compare() said NM_GC_SPLIT), the automatic
 * recovery policies of the table options after_sb_0pri and after_sb_1pri
 * (enum nm_asb0/nm_asb1, nm_params.h), as DRBD's after-sb-0pri/1pri.  Each
 * node decides alone from both sides' facts (exchanged in P_GENS), so the
 * rule is symmetric: where one node says SOURCE the other says TARGET.
 * Returns NM_GC_SOURCE (the peer's changes go), NM_GC_TARGET (ours go) or
 * NM_GC_SPLIT (no decision: the connection is refused).  A primary is never
 * made the target: its data is in use.  Two primaries never connect
 * (both_primary), so there is no two-primary policy.
 */
struct nm_sb_side {
	bool primary;		/* role now */
	bool bitmap_pri;	/* was primary when the split began */
	__u64 changed;		/* regions changed since the split */
	__u64 cur;		/* current generation (the tie-break) */
};

static inline enum nm_gen_cmp nm_asb_least(const struct nm_sb_side *me,
					   const struct nm_sb_side *peer)
{
	if (me->changed != peer->changed)
		return me->changed < peer->changed ? NM_GC_TARGET :
						     NM_GC_SOURCE;
	/* a tie: the larger generation tag wins (random, and not equal) */
	return me->cur > peer->cur ? NM_GC_SOURCE : NM_GC_TARGET;
}

static inline enum nm_gen_cmp nm_asb_0pri(unsigned int pol,
					  const struct nm_sb_side *me,
					  const struct nm_sb_side *peer)
{
	switch (pol) {
	case NM_ASB0_DISCARD_YOUNGER_PRIMARY:
	case NM_ASB0_DISCARD_OLDER_PRIMARY:
		if (me->bitmap_pri != peer->bitmap_pri) {
			bool win = me->bitmap_pri ==
				   (pol == NM_ASB0_DISCARD_YOUNGER_PRIMARY);

			return win ? NM_GC_SOURCE : NM_GC_TARGET;
		}
		/* both or neither was primary: the fewer changes go */
		return nm_asb_least(me, peer);
	case NM_ASB0_DISCARD_ZERO_CHANGES:
		if (me->changed && peer->changed)
			return NM_GC_SPLIT;
		return nm_asb_least(me, peer);
	case NM_ASB0_DISCARD_LEAST_CHANGES:
		return nm_asb_least(me, peer);
	default:
		return NM_GC_SPLIT;
	}
}

static inline enum nm_gen_cmp nm_gens_after_sb(unsigned int pol0,
					       unsigned int pol1,
					       const struct nm_sb_side *me,
					       const struct nm_sb_side *peer)
{
	enum nm_gen_cmp c;

	if (me->primary && peer->primary)
		return NM_GC_SPLIT;
	if (!me->primary && !peer->primary)
		return nm_asb_0pri(pol0, me, peer);
	switch (pol1) {
	case NM_ASB1_DISCARD_SECONDARY:
		return me->primary ? NM_GC_SOURCE : NM_GC_TARGET;
	case NM_ASB1_CONSENSUS:
		/* the 0pri policy decides, if it discards the secondary */
		c = nm_asb_0pri(pol0, me, peer);
		if ((c == NM_GC_SOURCE && me->primary) ||
		    (c == NM_GC_TARGET && !me->primary))
			return c;
		return NM_GC_SPLIT;
	default:
		return NM_GC_SPLIT;
	}
}

/*
 * Two nodes of the same generation (NM_GC_EQUAL), @n and @peer_n regions
 * out of sync on each when they connected, @crashed and @peer_crashed
 * whether each stopped as primary (NM_MF_PRIMARY, NM_GF_CRASHED_PRI):
 * +1 if this node is the one that was primary, else -1 if the peer is;
 * between two secondaries that node is the resync source (nm_is_source,
 * DRBD's "crashed primary"), its disk holding writes the other may lack
 * (under A acknowledged ones).  When neither or both say so, the marks
 * decide: +1 if only ours had some, -1 if only the peer's, else 0 (a
 * primary that lost its link with writes in flight, then was demoted, has
 * marks, and a peer that had none).  Up to 1.18.12 only the marks
 * decided, and a verify's marks on both nodes (held for the next link)
 * left a returning crashed primary no source: nothing was resynced, and a
 * promotion of the other node lost A's acknowledged writes
 * (dur-crashpri, verify).  The peer computes the mirror image from the
 * same four values.
 */
static inline int nm_gens_eq_marks(__u64 n, __u64 peer_n, bool crashed,
				   bool peer_crashed)
{
	if (crashed != peer_crashed)
		return crashed ? 1 : -1;
	if (n && !peer_n)
		return 1;
	if (!n && peer_n)
		return -1;
	return 0;
}

#endif
