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
static inline void nm_gens_new(struct nm_gens *g, __u64 fresh)
{
	if (!g->bitmap) {
		g->bitmap = g->cur;
	} else if (g->offered) {
		g->history[1] = g->history[0];
		g->history[0] = g->cur;
	}
	g->cur = fresh;
	g->offered = 0;
}

/* P_RS_DONE sent: the peer may take cur from now on. */
static inline void nm_gens_offered(struct nm_gens *g)
{
	g->offered = 1;
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
	g->offered = 0;
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
	g->offered = 0;
}

#endif
