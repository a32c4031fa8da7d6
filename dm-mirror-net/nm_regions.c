// SPDX-License-Identifier: GPL-2.0
/*
 * netmirror regions: see nm_regions.h for the object, its context rules
 * and its invariants.
 */
#ifdef __KERNEL__
#include <linux/bitmap.h>
#include <linux/slab.h>
#include <linux/mm.h>
#include <linux/log2.h>
#include <linux/string.h>
#endif
#include "nm_regions.h"

/*
 * Memory the state of a device needs: its bitmaps (NM_REGIONS_MAPS), the
 * in-flight counters and, with a metadata device, its two bitmaps.
 */
static_assert(offsetof(struct nm_regions, inflight) -
	      offsetof(struct nm_regions, oos) ==
	      NM_REGIONS_MAPS * sizeof(unsigned long *),
	      "NM_REGIONS_MAPS counts the bitmaps of struct nm_regions");

u64 nm_regions_bytes(u64 sectors, u32 region_sectors, bool meta)
{
	u64 nr = (sectors + region_sectors - 1) >> ilog2(region_sectors);
	u64 map = BITS_TO_LONGS(nr) * (u64)sizeof(long);

	return map * (NM_REGIONS_MAPS + (meta ? 2 : 0)) + nr * sizeof(u32);
}

/*
 * Large, and checked against the machine's memory by the caller: fail
 * rather than wake the OOM killer, and let the caller say why.
 */
#define NM_RG_GFP (GFP_KERNEL | __GFP_RETRY_MAYFAIL | __GFP_NOWARN)

/* The bitmaps of @rg, oos .. active, into @maps. */
static void nm_regions_maps(struct nm_regions *rg,
			    unsigned long **maps[NM_REGIONS_MAPS])
{
	unsigned long **m[] = {
		&rg->oos, &rg->rs_busy, &rg->touched, &rg->cand,
		&rg->rs_dirty, &rg->rs_writing, &rg->rs_hold, &rg->rs_failed,
		&rg->sent, &rg->syncing, &rg->lost, &rg->active,
		&rg->rs_unflushed, &rg->failed_here,
	};

	static_assert(ARRAY_SIZE(m) == NM_REGIONS_MAPS,
		      "every bitmap of struct nm_regions is named here");
	memcpy(maps, m, sizeof(m));
}

int nm_regions_init(struct nm_regions *rg, u64 sectors, u32 region_sectors)
{
	unsigned long **maps[NM_REGIONS_MAPS];
	unsigned long words;
	bool ok = true;
	unsigned int i;

	nm_regions_maps(rg, maps);
	rg->shift = ilog2(region_sectors);
	rg->nr = (sectors + region_sectors - 1) >> rg->shift;
	words = BITS_TO_LONGS(rg->nr);
	for (i = 0; i < NM_REGIONS_MAPS; i++) {
		*maps[i] = kvcalloc(words, sizeof(long), NM_RG_GFP);
		ok = ok && *maps[i];
	}
	rg->inflight = kvcalloc(rg->nr, sizeof(u32), NM_RG_GFP);
	if (!ok || !rg->inflight) {
		nm_regions_exit(rg);
		return -ENOMEM;
	}
	return 0;
}

void nm_regions_exit(struct nm_regions *rg)
{
	unsigned long **maps[NM_REGIONS_MAPS];
	unsigned int i;

	nm_regions_maps(rg, maps);
	kvfree(rg->inflight);
	rg->inflight = NULL;
	for (i = 0; i < NM_REGIONS_MAPS; i++) {
		kvfree(*maps[i]);
		*maps[i] = NULL;
	}
}

bool nm_regions_range(const struct nm_regions *rg, u64 sector, u32 sectors,
		      unsigned long *first, unsigned long *last)
{
	if (!sectors || !rg->nr || sector >= ((u64)rg->nr << rg->shift))
		return false;
	*first = sector >> rg->shift;
	*last = (sector + sectors - 1) >> rg->shift;
	if (*last >= rg->nr)
		*last = rg->nr - 1;
	return true;
}

void nm_regions_mark_oos(struct nm_regions *rg, unsigned long first,
			 unsigned long last)
{
	bitmap_set(rg->oos, first, last - first + 1);
}

unsigned long nm_regions_oos_count(const struct nm_regions *rg)
{
	return bitmap_weight(rg->oos, rg->nr);
}

/*
 * Out of sync as status shows it: oos, and what our disk failed.  The
 * bits past the last region are not counted (bitmap_fill sets them).
 */
unsigned long nm_regions_shown_oos(const struct nm_regions *rg)
{
	unsigned long i, w, n = 0, words = BITS_TO_LONGS(rg->nr);

	for (i = 0; i < words; i++) {
		w = rg->oos[i] | rg->failed_here[i];
		if (i == words - 1)
			w &= BITMAP_LAST_WORD_MASK(rg->nr);
		n += hweight_long(w);
	}
	return n;
}

bool nm_regions_any(const struct nm_regions *rg, const unsigned long *map,
		    unsigned long first, unsigned long last)
{
	if (last >= rg->nr)
		last = rg->nr - 1;
	return first <= last && find_next_bit(map, last + 1, first) <= last;
}

void nm_regions_write_start(struct nm_regions *rg, unsigned long first,
			    unsigned long last, bool inconsistent)
{
	unsigned long r;

	for (r = first; r <= last; r++) {
		if (!rg->inflight[r]++)
			__set_bit(r, rg->active);
		__set_bit(r, rg->touched);
		if (inconsistent)
			__set_bit(r, rg->rs_dirty);
	}
}

/* Returns true if a region in resync became idle (wake the sync thread). */
bool nm_regions_write_end(struct nm_regions *rg, unsigned long first,
			  unsigned long last)
{
	unsigned long r;
	bool wake = false;

	for (r = first; r <= last; r++) {
		if (--rg->inflight[r])
			continue;
		__clear_bit(r, rg->active);
		if (test_bit(r, rg->rs_busy))
			wake = true;
	}
	return wake;
}

/* The sender transmitted a write into [first, last]. */
void nm_regions_sent(struct nm_regions *rg, unsigned long first,
		     unsigned long last)
{
	bitmap_set(rg->sent, first, last - first + 1);
}

/*
 * A stable point (P_SYNC) is being sent: what was sent before it now waits
 * for its acknowledgment.  Returns false if nothing was sent since the
 * last one (and nothing awaits one).
 */
bool nm_regions_stable_point(struct nm_regions *rg)
{
	bool any = !bitmap_empty(rg->sent, rg->nr);

	bitmap_or(rg->syncing, rg->syncing, rg->sent, rg->nr);
	bitmap_zero(rg->sent, rg->nr);
	return any || !bitmap_empty(rg->syncing, rg->nr);
}

/* The peer confirmed the last stable point: those writes are stable. */
void nm_regions_stable_done(struct nm_regions *rg)
{
	bitmap_zero(rg->syncing, rg->nr);
}

/* How many regions the transfer log holds (in sent or syncing). */
unsigned long nm_regions_unconfirmed(const struct nm_regions *rg)
{
	unsigned long i, n = 0;

	for (i = 0; i < BITS_TO_LONGS(rg->nr); i++)
		n += hweight_long(rg->sent[i] | rg->syncing[i]);
	return n;
}

/*
 * The peer failed a write or a flush of ours while the link stays (its
 * disk under on_io_error pass_on): what it has not confirmed stable may
 * be lost there, as at a link loss.  Those regions go out of sync and
 * stay in the transfer log (the link goes on).
 */
void nm_regions_unconfirmed_oos(struct nm_regions *rg)
{
	bitmap_or(rg->oos, rg->oos, rg->sent, rg->nr);
	bitmap_or(rg->oos, rg->oos, rg->syncing, rg->nr);
}

/*
 * The link ended: every region with a write the peer has not confirmed as
 * stable is out of sync.  They are also left in @rg->lost (for the caller
 * to mark on the metadata device); returns how many there are.
 */
unsigned long nm_regions_take_unconfirmed(struct nm_regions *rg)
{
	bitmap_or(rg->lost, rg->sent, rg->syncing, rg->nr);
	bitmap_or(rg->oos, rg->oos, rg->lost, rg->nr);
	bitmap_zero(rg->sent, rg->nr);
	bitmap_zero(rg->syncing, rg->nr);
	return bitmap_weight(rg->lost, rg->nr);
}
