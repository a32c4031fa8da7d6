/* SPDX-License-Identifier: GPL-2.0 */
/*
 * netmirror metadata: the persistent region bitmap and node flags on a
 * metadata device, or at the front of the local device ("meta internal":
 * then the object also knows where the data area starts,
 * nm_meta_data_start).  The object is opaque; callers see only these calls.
 *
 * Context of each call:
 *   nm_meta_open, nm_meta_commit, nm_meta_reload, nm_meta_close: process
 *     context, may
 *     sleep (synchronous I/O to the metadata device), GFP_NOIO inside.
 *   nm_meta_commit_wait: process context, may sleep (waits for a commit
 *     under way), not under nm->lock.
 *   nm_meta_test, nm_meta_set, nm_meta_clear, nm_meta_copy_bits,
 *   nm_meta_copy_bits_except,
 *   nm_meta_or_bits, nm_meta_or_held, nm_meta_take_flush_failed,
 *   nm_meta_set_bits, nm_meta_clear_bits,
 *   nm_meta_flags, nm_meta_set_flags: any context, never sleep (an
 *     internal spinlock, irqsave).
 * nm_meta_commit calls are serialised internally (a mutex).
 *
 * Promises: nm_meta_test() is true only for a mark that a commit already
 * wrote (a mark is never trusted before it is durable); a cleared bit is
 * written only after @data_bdev (the data device the bitmap describes) was
 * flushed, inside nm_meta_commit.
 *
 * Lock order: the internal mutex, then the internal spinlock.  Callers may
 * hold nm->lock when calling the non-sleeping calls; the meta spinlock nests
 * inside nm->lock and never the other way round.
 *
 * On-disk format (little-endian), see docs/netmirror.rst:
 *   bytes 0..4095     superblock (struct nm_meta_sb, crc32c-protected)
 *   bytes 4096..      bitmap, one bit per region, as 64-bit LE words
 *   size = 4096 + round_up(ceil(nr_regions / 64) * 8, 4096) bytes
 * Internal metadata: the same at sector 0 of the local device, in an area
 * of that size rounded up to 1 MiB; the data follows it (nm_layout.h has
 * the rule, shared with userspace; the superblock records the data start).
 */
#ifndef NM_META_H
#define NM_META_H

#include <linux/blkdev.h>
#include "nm_gens.h"

struct nm_meta;

#define NM_MF_CONSISTENT	0x1	/* this node's data is consistent */
#define NM_MF_HISTORY		0x2	/* initial sync decided (full/none) */
#define NM_MF_OUTDATED		0x4	/* consistent, but the peer's is newer */
/*
 * 1.18.13: this node is primary, or was and the peer may not hold all its
 * writes yet (a crash, a remove, a demotion not yet confirmed): set at a
 * promotion before the primary's first write; cleared on a secondary
 * once no write of ours is in flight or unconfirmed and nothing is out of
 * sync (nm_stable_point), at the end of a resync (either side), or when
 * the handshake finds one generation and nothing marked.  Between two
 * secondaries of one generation with regions marked, the one that has it
 * is the resync source (DRBD's crashed primary, nm_gens_eq_marks).  An
 * older module keeps the bit as it finds it.
 */
#define NM_MF_PRIMARY		0x8

u64 nm_meta_size(unsigned long nr_regions);
sector_t nm_meta_internal_sectors(sector_t dev_sectors, u32 region_sectors);
struct nm_meta *nm_meta_open(struct block_device *bdev,
			     struct block_device *data_bdev, bool internal,
			     sector_t dev_sectors, u32 region_sectors,
			     unsigned long nr_regions, bool *fresh, char **error);
sector_t nm_meta_data_start(struct nm_meta *m);
void nm_meta_close(struct nm_meta *m);
int nm_meta_commit(struct nm_meta *m);
int nm_meta_reload(struct nm_meta *m);

bool nm_meta_test(struct nm_meta *m, unsigned long region);
bool nm_meta_set(struct nm_meta *m, unsigned long region);
void nm_meta_clear(struct nm_meta *m, unsigned long region);
void nm_meta_copy_bits(struct nm_meta *m, unsigned long *dst);
bool nm_meta_copy_bits_except(struct nm_meta *m, unsigned long *dst,
			      const unsigned long *const *skip, unsigned int n);
void nm_meta_or_bits(struct nm_meta *m, unsigned long *dst);
void nm_meta_or_held(struct nm_meta *m, unsigned long *dst);
bool nm_meta_take_flush_failed(struct nm_meta *m);
void nm_meta_commit_wait(struct nm_meta *m);
bool nm_meta_set_bits(struct nm_meta *m, const unsigned long *src);
bool nm_meta_clear_bits(struct nm_meta *m, const unsigned long *clear,
			const unsigned long *const *keep, unsigned int n);
u32 nm_meta_flags(struct nm_meta *m);
void nm_meta_set_flags(struct nm_meta *m, u32 set, u32 clear);
void nm_meta_gens(struct nm_meta *m, struct nm_gens *g);
void nm_meta_set_gens(struct nm_meta *m, const struct nm_gens *g);

#endif
