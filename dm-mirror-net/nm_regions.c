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
#endif
#include "nm_regions.h"

int nm_regions_init(struct nm_regions *rg, u64 sectors, u32 region_sectors)
{
	unsigned long words;

	rg->shift = ilog2(region_sectors);
	rg->nr = (sectors + region_sectors - 1) >> rg->shift;
	words = BITS_TO_LONGS(rg->nr);
	rg->oos = kvcalloc(words, sizeof(long), GFP_KERNEL);
	rg->rs_busy = kvcalloc(words, sizeof(long), GFP_KERNEL);
	rg->touched = kvcalloc(words, sizeof(long), GFP_KERNEL);
	rg->cand = kvcalloc(words, sizeof(long), GFP_KERNEL);
	rg->rs_dirty = kvcalloc(words, sizeof(long), GFP_KERNEL);
	rg->rs_writing = kvcalloc(words, sizeof(long), GFP_KERNEL);
	rg->inflight = kvcalloc(rg->nr, sizeof(u32), GFP_KERNEL);
	if (!rg->oos || !rg->rs_busy || !rg->touched || !rg->cand ||
	    !rg->rs_dirty || !rg->rs_writing || !rg->inflight) {
		nm_regions_exit(rg);
		return -ENOMEM;
	}
	return 0;
}

void nm_regions_exit(struct nm_regions *rg)
{
	kvfree(rg->inflight);
	kvfree(rg->rs_writing);
	kvfree(rg->rs_dirty);
	kvfree(rg->cand);
	kvfree(rg->touched);
	kvfree(rg->rs_busy);
	kvfree(rg->oos);
	rg->oos = NULL;
	rg->rs_busy = NULL;
	rg->touched = NULL;
	rg->cand = NULL;
	rg->rs_dirty = NULL;
	rg->rs_writing = NULL;
	rg->inflight = NULL;
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
		rg->inflight[r]++;
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

	for (r = first; r <= last; r++)
		if (!--rg->inflight[r] && test_bit(r, rg->rs_busy))
			wake = true;
	return wake;
}
