/* SPDX-License-Identifier: GPL-2.0 */
/*
 * netmirror regions: the per-region state of one device, as an object.
 *
 * The device is cut into regions of 2^shift sectors.  This object owns the
 * region bitmaps and the in-flight counters and keeps their invariants; it
 * speaks in region ranges [first, last], never in bios.  It has no lock of
 * its own: every call but nm_regions_init/exit is made under the owner's
 * nm->lock (spinlock, irqsave) and never sleeps.  It compiles in userspace
 * (tests/unit/test_regions.c checks its invariants).
 *
 * Invariants (under nm->lock):
 *   - a bit set in rs_busy is set in oos (a region in resync is out of
 *     sync until its P_RS_ACK clears both), or the region is being
 *     compared by an online verify (nm_verify.c: never during a resync);
 *   - inflight[r] counts the primary's writes to r that were started and
 *     not yet ended; a region in resync (rs_busy) is read only when it is 0;
 *     active has the bit of every region whose count is not 0 (so that
 *     whole-device passes go word by word, never region by region);
 *   - rs_dirty/rs_writing/rs_hold are the resync target's: a region
 *     written by the application while inconsistent, a resync write being
 *     applied, a region whose resync data were refused (the application's
 *     writes to it wait for the next, so that it cannot be refused
 *     forever).
 *   - rs_failed is the source's: a region its disk could not read in this
 *     resync (on_io_error pass_on), or whose data the target refused with
 *     an error (it could not record itself inconsistent, its disk failed
 *     the write under pass_on, or it is diskless: then the resync stops
 *     anyway), skipped until the resync starts again.
 *   - failed_here is a secondary's: a region whose write of the peer's
 *     its disk failed (on_io_error pass_on), out of sync in its status
 *     (nm_regions_shown_oos) until a resync write into it succeeds.  Since
 *     1.18.19 also set in oos (the disk is inconsistent then: its marks
 *     never make it a resync source, nm_is_source).
 *   - sent/syncing are the primary's transfer log, by region: a write sent
 *     to the peer is in "sent" until a stable point (P_SYNC) is sent after
 *     it, then in "syncing" until that P_SYNC_ACK confirms it is on the
 *     peer's stable storage.  When the link ends, whatever is in either is
 *     out of sync (nm_regions_take_unconfirmed): nothing the peer may have
 *     lost is forgotten, under every protocol.  So is it when the peer
 *     fails a write or flush and the link stays (nm_regions_unconfirmed_oos).
 */
#ifndef NM_REGIONS_H
#define NM_REGIONS_H

#ifdef __KERNEL__
#include <linux/types.h>
#else
#include "kshim.h"
#endif

struct nm_regions {
	unsigned long nr;		/* number of regions */
	unsigned int shift;		/* log2(sectors per region) */
	unsigned long *oos;		/* out of sync: the peer misses it */
	unsigned long *rs_busy;		/* source: being resynced now */
	unsigned long *touched;		/* written since the last clear pass */
	unsigned long *cand;		/* sync thread: lazy-clear candidates */
	unsigned long *rs_dirty;	/* target: app-written during resync */
	unsigned long *rs_writing;	/* target: resync write in flight */
	unsigned long *rs_hold;		/* target: refused, writes wait */
	unsigned long *rs_failed;	/* source: unreadable or refused */
	unsigned long *sent;		/* primary: sent since the stable point */
	unsigned long *syncing;		/* primary: awaiting P_SYNC_ACK */
	unsigned long *lost;		/* conn thread: scratch at link loss */
	unsigned long *active;		/* primary: inflight[r] != 0 */
	unsigned long *rs_unflushed;	/* target: resynced, no flush since */
	unsigned long *failed_here;	/* secondary: its disk failed a write */
	u32 *inflight;			/* primary: writes in flight */
};

/* the bitmaps of struct nm_regions (oos .. active) */
#define NM_REGIONS_MAPS 14

u64 nm_regions_bytes(u64 sectors, u32 region_sectors, bool meta);
int nm_regions_init(struct nm_regions *rg, u64 sectors, u32 region_sectors);
void nm_regions_exit(struct nm_regions *rg);

/* The regions [*first, *last] of [sector, sector + sectors); false if none. */
bool nm_regions_range(const struct nm_regions *rg, u64 sector, u32 sectors,
		      unsigned long *first, unsigned long *last);
void nm_regions_mark_oos(struct nm_regions *rg, unsigned long first,
			 unsigned long last);
unsigned long nm_regions_oos_count(const struct nm_regions *rg);
unsigned long nm_regions_shown_oos(const struct nm_regions *rg);
bool nm_regions_any(const struct nm_regions *rg, const unsigned long *map,
		    unsigned long first, unsigned long last);

/* A primary write into [first, last] starts / ends. */
void nm_regions_write_start(struct nm_regions *rg, unsigned long first,
			    unsigned long last, bool inconsistent);
bool nm_regions_write_end(struct nm_regions *rg, unsigned long first,
			  unsigned long last);

/* The transfer log: a write was sent; a stable point; it was confirmed. */
void nm_regions_sent(struct nm_regions *rg, unsigned long first,
		     unsigned long last);
bool nm_regions_stable_point(struct nm_regions *rg);
void nm_regions_stable_done(struct nm_regions *rg);
unsigned long nm_regions_take_unconfirmed(struct nm_regions *rg);
void nm_regions_unconfirmed_oos(struct nm_regions *rg);
unsigned long nm_regions_unconfirmed(const struct nm_regions *rg);

#endif
