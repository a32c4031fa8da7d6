// SPDX-License-Identifier: GPL-2.0
/*
 * netmirror online verify: the two nodes compare their copies of a range,
 * 4 KiB block by block, by digest, while the application keeps writing.
 *
 * The source (the node given the "verify" message: the primary, or either
 * node when neither is primary) walks the range one region at a time, at
 * most NM_RS_WINDOW regions unanswered, throttled like the resync
 * (nm_rs_throttle: resync_rate, or adaptive).  For each region it
 *   - marks it busy (rg.rs_busy): new application writes to it park on
 *     rs_wait, as behind a region in resync;
 *   - waits until the writes already in flight to it ended here
 *     (rg.inflight[] == 0: their P_DATA left before what follows) and,
 *     as a secondary, until the peer's writes to it are on our disk;
 *   - reads it into resync slot 0 (free: verify and resync never run
 *     together), sends P_CSUM_REQ with a digest per block.
 * The target (nm_peer_csum, in its receiver) waits for its overlapping
 * writes in flight (nm_peer_wait_overlaps: every write the source sent
 * before the request), reads the range, compares and answers
 * P_CSUM_REPLY with a bitmap of the blocks that differ.  The reply frees
 * the region for writes again (nm_ov_reply).  Both copies are thus read
 * with no write to the range anywhere between the two reads: a
 * difference is never an application write in progress.
 *
 * A differing block is counted (status verify_diffs), logged (the first
 * NM_OV_LOG_MAX of a run, with its sector) and its region marked out of
 * sync on both nodes, in memory and on the metadata device.  The source
 * starts no resync on this link afterwards (ov_hold): a disconnect and
 * connect repairs exactly those regions, from the source of that resync.
 * A link loss stops a running verify (status "stopped").
 *
 * Context: nm_verify_start/stop from the message handler; nm_ov_step and
 * nm_ov_tick in the nm_sync thread; nm_peer_csum and nm_ov_reply in the
 * nm_conn thread; __nm_ov_link_down under nm->lock.  Lock order as in
 * dm-netmirror.h: tx_mutex, then nm->lock, then the metadata spinlock.
 */
#include <linux/slab.h>
#include <linux/bitmap.h>
#include <linux/blkdev.h>
#include <linux/mm.h>
#include <linux/crc32c.h>
#include <linux/lockdep.h>
#include <crypto/hash.h>
#include "dm-netmirror.h"

#define NM_OV_DIGESTS_BYTES	(NM_CSUM_MAX_BLOCKS * NM_CSUM_MAX_LEN)

const char *nm_ov_state_name(enum nm_ov_state s)
{
	static const char *const names[] = {
		[NM_OV_NONE] = "none",
		[NM_OV_RUNNING] = "running",
		[NM_OV_DONE] = "done",
		[NM_OV_STOPPED] = "stopped",
	};

	return (unsigned int)s < ARRAY_SIZE(names) ? names[s] : "none";
}

/* ctr: the digest buffers; sha256 if the kernel has it (optional). */
int nm_ov_init(struct nm_dev *nm)
{
	struct crypto_shash *sha;

	nm->ov_digests = kmalloc(NM_OV_DIGESTS_BYTES, GFP_KERNEL);
	nm->ov_rx_digests = kmalloc(NM_OV_DIGESTS_BYTES, GFP_KERNEL);
	if (!nm->ov_digests || !nm->ov_rx_digests) {
		nm_ov_exit(nm);
		return -ENOMEM;
	}
	sha = crypto_alloc_shash("sha256", 0, 0);
	nm->ov_sha = IS_ERR(sha) ? NULL : sha;
	return 0;
}

void nm_ov_exit(struct nm_dev *nm)
{
	kfree(nm->ov_digests);
	kfree(nm->ov_rx_digests);
	nm->ov_digests = NULL;
	nm->ov_rx_digests = NULL;
	if (nm->ov_sha)
		crypto_free_shash(nm->ov_sha);
	nm->ov_sha = NULL;
}

/* The digest of @len bytes at @p into @out (nm_csum_len(alg) bytes). */
static int nm_ov_digest(struct nm_dev *nm, u16 alg, const void *p, u32 len,
			u8 *out)
{
	if (alg == NM_CSUM_CRC32C) {
		__be32 c = cpu_to_be32(crc32c(~0U, p, len));

		memcpy(out, &c, sizeof(c));
		return 0;
	}
	if (alg == NM_CSUM_SHA256 && nm->ov_sha) {
		SHASH_DESC_ON_STACK(desc, nm->ov_sha);

		desc->tfm = nm->ov_sha;
		return crypto_shash_digest(desc, p, len, out);
	}
	return -EOPNOTSUPP;
}

/*
 * Digests of the blocks of @bytes in @pages (one page per block): verify,
 * and the csums resync (nm_resync.c).
 */
int nm_csum_digests(struct nm_dev *nm, u16 alg, struct page **pages,
		    u32 bytes, u8 *out)
{
	u32 i, nb = nm_csum_blocks(bytes), dlen = nm_csum_len(alg);
	int r = 0;

	BUILD_BUG_ON(NM_CSUM_BLOCK != PAGE_SIZE);
	for (i = 0; i < nb && !r; i++)
		r = nm_ov_digest(nm, alg, page_address(pages[i]),
				 min_t(u32, bytes - i * NM_CSUM_BLOCK,
				       NM_CSUM_BLOCK), out + i * dlen);
	return r;
}

/*
 * Message "verify" / "verify_range": start comparing [start, start +
 * sectors), widened to whole 4 KiB blocks, clipped to the device.
 */
int nm_verify_start(struct nm_dev *nm, u64 start, u64 sectors)
{
	const char *why = NULL;
	unsigned long fl;
	u64 end;

	if (start >= nm->sectors || !sectors) {
		nm_err(nm, "verify: range %llu+%llu is outside the device (%llu sectors)",
		       start, sectors, (unsigned long long)nm->sectors);
		return -EINVAL;
	}
	end = sectors > nm->sectors - start ? nm->sectors : start + sectors;
	end = min_t(u64, round_up(end, NM_CSUM_BLOCK >> SECTOR_SHIFT),
		    nm->sectors);
	start = round_down(start, NM_CSUM_BLOCK >> SECTOR_SHIFT);

	spin_lock_irqsave(&nm->lock, fl);
	if (nm->cstate != NM_C_CONNECTED)
		why = nm->cstate < NM_C_CONNECTED ? "not connected" :
		      "a resync is running";
	else if (nm->disk != NM_DISK_UPTODATE ||
		 nm->peer_disk != NM_DISK_UPTODATE)
		why = "both disks must be uptodate";
	else if (nm->peer_role == NM_ROLE_PRIMARY)
		why = "run it on the primary";
	else if (nm->ov_state == NM_OV_RUNNING || nm->ov_inflight)
		why = "a verify is running";
	if (!why) {
		nm->ov_state = NM_OV_RUNNING;
		nm->ov_alg = nm->verify_alg + 1;
		nm->ov_start = start;
		nm->ov_end = end;
		nm->ov_cursor = start;
		nm->ov_done = 0;
		nm->ov_diffs = 0;
		nm->ov_logged = 0;
		nm->ov_t0 = jiffies;
	}
	spin_unlock_irqrestore(&nm->lock, fl);
	if (why) {
		nm_err(nm, "verify refused: %s", why);
		return -EBUSY;
	}
	nm_info(nm, "verify started: sectors %llu..%llu (%llu KiB), %s",
		start, end, (end - start) >> 1,
		nm->verify_alg ? "sha256" : "crc32c");
	nm_sync_kick(nm);
	dm_table_event(nm->ti->table);
	return 0;
}

/* Message "verify_stop". */
int nm_verify_stop(struct nm_dev *nm)
{
	unsigned long fl;
	bool was;

	spin_lock_irqsave(&nm->lock, fl);
	was = nm->ov_state == NM_OV_RUNNING;
	if (was)
		nm->ov_state = NM_OV_STOPPED;
	spin_unlock_irqrestore(&nm->lock, fl);
	if (!was) {
		nm_err(nm, "verify_stop: no verify is running");
		return -EINVAL;
	}
	nm_info(nm, "verify stopped by request");
	dm_table_event(nm->ti->table);
	return 0;
}

/* Under nm->lock (nm_sync_link_down): the link is gone, and the verify. */
void __nm_ov_link_down(struct nm_dev *nm)
{
	lockdep_assert_held(&nm->lock);
	nm->ov_inflight = 0;	/* rs_busy is cleared by the caller */
	nm->ov_hold = false;	/* the next link resyncs what we found */
	if (nm->ov_state != NM_OV_RUNNING)
		return;
	nm->ov_state = NM_OV_STOPPED;
	nm_warn(nm, "verify stopped: link lost after %llu of %llu sectors, %llu blocks differ so far",
		nm->ov_done, (u64)(nm->ov_end - nm->ov_start), nm->ov_diffs);
	/* on our own workqueue: the dtr waits for it (scripts/workqueues.sh) */
	queue_work(nm->wq, &nm->event_work);
}

/* nm_sync thread, about once a second: the verify rate. */
void nm_ov_tick(struct nm_dev *nm)
{
	u64 b;

	if (!time_after(jiffies, nm->ov_rate_t + HZ))
		return;
	b = atomic64_read(&nm->ov_bytes);
	WRITE_ONCE(nm->ov_kibs,
		   div_u64((b - nm->ov_rate_last) * HZ,
			   1024 * (jiffies - nm->ov_rate_t)));
	nm->ov_rate_last = b;
	nm->ov_rate_t = jiffies;
}

/*
 * P_CSUM_REQ of the digests in ov_digests (nm_sync thread: verify, or the
 * csums resync with NM_CF_RESYNC), on link @gen only.
 */
int nm_csum_send(struct nm_dev *nm, sector_t sector, u32 bytes, u16 alg,
		 u16 flags, u32 gen)
{
	struct nm_p_csum c = {
		.sector = cpu_to_be64(sector),
		.size = cpu_to_be32(bytes),
		.alg = cpu_to_be16(alg),
		.flags = cpu_to_be16(flags),
	};
	struct kvec vec[2] = {
		{ .iov_base = &c, .iov_len = sizeof(c) },
		{ .iov_base = nm->ov_digests,
		  .iov_len = nm_csum_blocks(bytes) * nm_csum_len(alg) },
	};

	return nm_send_vec_gen(nm, gen, NM_P_CSUM_REQ, vec, 2);
}

static void nm_ov_finish(struct nm_dev *nm)
{
	unsigned long fl, ms;
	u64 done, diffs;

	spin_lock_irqsave(&nm->lock, fl);
	done = nm->ov_done;
	diffs = nm->ov_diffs;
	ms = jiffies_to_msecs(jiffies - nm->ov_t0) ?: 1;
	spin_unlock_irqrestore(&nm->lock, fl);
	nm_info(nm, "verify done: %llu sectors in %lu ms (%llu KiB/s), %llu blocks differ%s",
		done, ms, div_u64(done * 1000 / 2, ms), diffs,
		diffs ? ": marked out of sync, a disconnect/connect resyncs them" : "");
	dm_table_event(nm->ti->table);
}

/* nm_sync thread: send the next regions of a running verify. */
void nm_ov_step(struct nm_dev *nm, struct nm_rate *rt)
{
	unsigned long fl, region;
	sector_t sector, end;
	bool finish = false;
	u32 bytes, gen;
	u16 alg;
	int r;

	might_sleep();
	while (!kthread_should_stop()) {
		spin_lock_irqsave(&nm->lock, fl);
		if (nm->ov_state != NM_OV_RUNNING ||
		    nm->cstate != NM_C_CONNECTED ||
		    nm->ov_inflight >= NM_RS_WINDOW) {
			spin_unlock_irqrestore(&nm->lock, fl);
			return;
		}
		if (nm->ov_cursor >= nm->ov_end) {
			if (!nm->ov_inflight) {
				nm->ov_state = NM_OV_DONE;
				finish = true;
			}
			spin_unlock_irqrestore(&nm->lock, fl);
			break;
		}
		sector = nm->ov_cursor;
		region = sector >> nm->rg.shift;
		end = min_t(sector_t, (sector_t)(region + 1) << nm->rg.shift,
			    nm->ov_end);
		if (WARN_ON_ONCE(test_bit(region, nm->rg.rs_busy))) {
			spin_unlock_irqrestore(&nm->lock, fl);
			return;
		}
		__set_bit(region, nm->rg.rs_busy);	/* writes park */
		nm->ov_inflight++;
		nm->ov_cursor = end;
		gen = nm->conn_gen;
		alg = nm->ov_alg;
		spin_unlock_irqrestore(&nm->lock, fl);

		/* the writes in flight to the region end first, here ... */
		wait_event(nm->sync_wq, !READ_ONCE(nm->rg.inflight[region]) ||
			   !nm_link_up(nm) || kthread_should_stop());
		/* ... and the peer's on our disk (if we are its secondary) */
		bytes = (end - sector) << SECTOR_SHIFT;
		nm_peer_wait_overlaps(nm, sector, end - sector);
		nm_rs_throttle(nm, rt, bytes);
		r = nm_link_up(nm) ?
		    nm_read_local(nm, nm->rs_pages[0], sector, bytes) :
		    -ENOTCONN;
		if (r && r != -ENOTCONN)
			nm_detach(nm, r);	/* our disk failed the read */
		if (!r)
			r = nm_csum_digests(nm, alg, nm->rs_pages[0], bytes,
					    nm->ov_digests);
		if (!r)
			r = nm_csum_send(nm, sector, bytes, alg, NM_CF_VERIFY,
					 gen);
		if (r) {
			spin_lock_irqsave(&nm->lock, fl);
			/* not if the link went down: a new one may own it */
			if (nm->conn_gen == gen &&
			    __test_and_clear_bit(region, nm->rg.rs_busy))
				nm->ov_inflight--;
			if (nm->ov_state == NM_OV_RUNNING)
				nm->ov_state = NM_OV_STOPPED;
			spin_unlock_irqrestore(&nm->lock, fl);
			if (r != -ENOTCONN)
				nm_err(nm, "verify stopped at sector %llu (error %d)",
				       (unsigned long long)sector, r);
			dm_table_event(nm->ti->table);
			return;
		}
	}
	if (finish)
		nm_ov_finish(nm);
}

/* Mark the regions of the blocks set in @diff out of sync (and durably). */
static void nm_ov_mark(struct nm_dev *nm, sector_t sector,
		       const unsigned long *diff, u32 nb, bool log)
{
	sector_t logged[NM_OV_LOG_MAX];
	unsigned int nlog = 0, i;
	unsigned long fl, b, r;

	spin_lock_irqsave(&nm->lock, fl);
	for_each_set_bit(b, diff, nb) {
		sector_t s = sector + b * (NM_CSUM_BLOCK >> SECTOR_SHIFT);

		r = s >> nm->rg.shift;
		nm_regions_mark_oos(&nm->rg, r, r);
		if (nm->meta)
			nm_meta_set(nm->meta, r);
		if (log && nm->ov_logged < NM_OV_LOG_MAX) {
			nm->ov_logged++;
			logged[nlog++] = s;
		}
	}
	spin_unlock_irqrestore(&nm->lock, fl);
	for (i = 0; i < nlog; i++)
		nm_warn(nm, "verify: block at sector %llu (4 KiB) differs",
			(unsigned long long)logged[i]);
	if (nm->meta && nm_meta_commit(nm->meta))
		nm_err_limit(nm, "verify: cannot record the differences on the metadata device");
}

/*
 * A block map's wire words (bit i of word w: block 64w + i: a P_CSUM_REPLY's
 * diff, a P_RS_BLOCKS's mask) and a bitmap; verify and the csums resync.
 */
void nm_blk_map_host(const __be64 *wire, unsigned long *out)
{
	unsigned int b;

	bitmap_zero(out, NM_CSUM_MAX_BLOCKS);
	for (b = 0; b < NM_CSUM_MAX_BLOCKS; b++)
		if (be64_to_cpu(wire[b / 64]) & (1ULL << (b % 64)))
			__set_bit(b, out);
}

void nm_blk_map_wire(const unsigned long *diff, __be64 *wire)
{
	u64 w[NM_CSUM_MAX_BLOCKS / 64] = { 0 };
	unsigned long b;

	for_each_set_bit(b, diff, NM_CSUM_MAX_BLOCKS)
		w[b / 64] |= 1ULL << (b % 64);
	for (b = 0; b < NM_CSUM_MAX_BLOCKS / 64; b++)
		wire[b] = cpu_to_be64(w[b]);
}

/*
 * Receiver (target): P_CSUM_REQ, fixed part checked; the digests follow.
 * Compare with our copy of the range, answer P_CSUM_REPLY.  For a verify
 * both disks are uptodate and the sender is not our secondary; for a
 * csums resync (NM_CF_RESYNC) we are its target, the range is one region
 * in resync, and the differences are the source's to send: nothing is
 * marked here.
 */
int nm_peer_csum(struct nm_dev *nm, const struct nm_p_csum *c, u32 len)
{
	sector_t sector = be64_to_cpu(c->sector);
	u32 size = be32_to_cpu(c->size), nb = nm_csum_blocks(size);
	u16 alg = be16_to_cpu(c->alg);
	bool rs = be16_to_cpu(c->flags) & NM_CF_RESYNC;
	u32 dlen = nm_csum_len(alg), i;
	unsigned int nr = DIV_ROUND_UP(size, PAGE_SIZE);
	struct nm_p_csum_reply rp = {
		.sector = c->sector,
		.size = c->size,
		.flags = c->flags,
	};
	DECLARE_BITMAP(diff, NM_CSUM_MAX_BLOCKS);
	struct page **pages = NULL;
	u8 mine[NM_CSUM_MAX_LEN];
	int r, status = 0;

	might_sleep();
	r = nm_rx(nm, nm->ov_rx_digests, len - sizeof(*c));
	if (!r)
		r = nm_rx_trailer(nm);
	if (r)
		return r;
	bitmap_zero(diff, NM_CSUM_MAX_BLOCKS);
	if (rs) {
		/* a whole region of the resync we receive */
		if (READ_ONCE(nm->cstate) != NM_C_SYNC_TARGET ||
		    sector & (nm->region_sectors - 1) ||
		    size != min_t(u64, nm->region_sectors,
				  nm->sectors - sector) << SECTOR_SHIFT) {
			status = EINVAL;
			goto reply;
		}
	} else if (READ_ONCE(nm->disk) != NM_DISK_UPTODATE) {
		status = ENODATA;
		goto reply;
	} else if (READ_ONCE(nm->role) == NM_ROLE_PRIMARY) {
		/* only the source's writes are held off the range: not ours */
		status = EBUSY;
		goto reply;
	}
	if (alg == NM_CSUM_SHA256 && !nm->ov_sha) {
		status = EOPNOTSUPP;
		goto reply;
	}
	pages = kcalloc(nr, sizeof(*pages), GFP_NOIO);
	if (!pages || nm_pool_get(nm, pages, nr)) {
		status = ENOMEM;
		goto out_pages;
	}
	/* what the source sent before the request lands first */
	nm_peer_wait_overlaps(nm, sector, size >> SECTOR_SHIFT);
	r = nm_read_local(nm, pages, sector, size);
	if (r) {
		nm_detach(nm, r);
		status = EIO;
		goto out_pages;
	}
	for (i = 0; i < nb && !status; i++) {
		r = nm_ov_digest(nm, alg, page_address(pages[i]),
				 min_t(u32, size - i * NM_CSUM_BLOCK,
				       NM_CSUM_BLOCK), mine);
		if (r)
			status = EOPNOTSUPP;
		else if (memcmp(mine, nm->ov_rx_digests + i * dlen, dlen))
			__set_bit(i, diff);
	}
out_pages:
	if (pages)
		nm_pool_put(nm, pages, nr);
	kfree(pages);
	if (status)
		bitmap_zero(diff, NM_CSUM_MAX_BLOCKS);
	else if (rs)
		atomic64_add(size, &nm->rs_compared);
	if (!bitmap_empty(diff, nb)) {
		if (!rs)
			nm_ov_mark(nm, sector, diff, nb, false);
		nm_blk_map_wire(diff, rp.diff);
	}
reply:
	rp.status = cpu_to_be32(status);
	return nm_send_ctrl_rx(nm, NM_P_CSUM_REPLY, &rp, sizeof(rp));
}

/* Receiver (source): P_CSUM_REPLY, checked; the region is free again. */
int nm_ov_reply(struct nm_dev *nm, const struct nm_p_csum_reply *rp)
{
	sector_t sector = be64_to_cpu(rp->sector);
	u32 size = be32_to_cpu(rp->size), status = be32_to_cpu(rp->status);
	unsigned long region = sector >> nm->rg.shift, fl, n;
	DECLARE_BITMAP(diff, NM_CSUM_MAX_BLOCKS);
	u32 nb = nm_csum_blocks(size);
	bool stop = false;

	nm_blk_map_host(rp->diff, diff);
	n = bitmap_weight(diff, nb);
	spin_lock_irqsave(&nm->lock, fl);
	if (!nm->ov_inflight || region >= nm->rg.nr ||
	    !__test_and_clear_bit(region, nm->rg.rs_busy)) {
		spin_unlock_irqrestore(&nm->lock, fl);
		return -EPROTO;		/* nothing asked */
	}
	nm->ov_inflight--;
	if (status) {
		stop = nm->ov_state == NM_OV_RUNNING;
		if (stop)
			nm->ov_state = NM_OV_STOPPED;
	} else {
		nm->ov_done += size >> SECTOR_SHIFT;
		nm->ov_diffs += n;
		if (n)
			nm->ov_hold = true;
	}
	spin_unlock_irqrestore(&nm->lock, fl);
	if (stop)
		nm_err(nm, "verify stopped: the peer could not compare sector %llu (%u)",
		       (unsigned long long)sector, status);
	if (!status) {
		atomic64_add(size, &nm->ov_bytes);
		if (n)
			nm_ov_mark(nm, sector, diff, nb, true);
	}
	nm_sync_kick(nm);	/* the parked writes, the next regions */
	if (stop)
		dm_table_event(nm->ti->table);
	return 0;
}
