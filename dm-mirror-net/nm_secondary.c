// SPDX-License-Identifier: GPL-2.0
/*
 * netmirror secondary: this node applying the primary's writes to its local
 * device, acknowledging them, and serving the primary's reads.
 *
 * Context: nm_peer_data(), nm_peer_barrier(), nm_peer_sync() and
 * nm_peer_read() run in the stream's owner, the nm_conn thread or its
 * receive worker (nm_fastack.c; may sleep); nm_peer_endio()
 * runs in bio completion (irq) context; nm_peer_send_acks() runs in the
 * nm_send thread (and in the owner for writes that completed at once).
 *
 * Ordering: writes of one epoch are issued as they arrive.  On P_BARRIER
 * the receiver stops reading until every write of the epoch completed
 * ("drain"), then flushes the backing device ("flush"), and only then reads
 * (and issues) the next epoch's writes.  Under protocol C there is nothing
 * to drain: a write X that completed on the primary before Y was submitted
 * had its P_WRITE_ACK sent from here, after X completed on this disk, and
 * before the barrier in front of Y arrived; only the flush is needed.
 * Ordering "none" sends no barriers; writes are issued as they come.  No
 * barrier is acknowledged: stable points are confirmed by P_SYNC_ACK.
 * Resync writes (P_RS_DATA) take the same path, outside the epochs; when
 * one completes, its region is in sync here and P_RS_ACK goes back.
 * P_ZERO (a discard or write-zeroes) and P_RS_ZERO (a resync region that
 * reads zeroes on the source) take it too, with no data: see
 * nm_peer_zero_submit() for what they become on this disk.
 *
 * Locks: nm->lock (irqsave) protects ack_q and peer_reqs; sends take
 * tx_mutex (never under nm->lock).  The metadata spinlock nests inside
 * nm->lock (nm_go_inconsistent).
 */
#include <linux/slab.h>
#include <linux/blkdev.h>
#include <linux/mm.h>
#include <linux/bitmap.h>
#include <linux/lockdep.h>
#include "dm-netmirror.h"
#include "nm_zero.h"

struct nm_peer_req {
	struct nm_dev *nm;
	struct list_head list;		/* ack_q */
	struct list_head inflight;	/* nm->peer_reqs while on disk */
	sector_t sector;
	unsigned int sectors;
	bool resync;			/* P_RS_DATA: answer P_RS_ACK */
	bool forced;			/* FUA or an empty flush: stable once done */
	bool stable;			/* the ack says NM_AF_STABLE (nm_peer_end) */
	bool zero;			/* P_ZERO, P_RS_ZERO */
	bool zero_pages;		/* written as zero pages (refused) */
	bool ack_disk;			/* A, B: NM_DF_ACK_DISK, P_WRITE_ACK */
	bool flush;			/* NM_DF_FLUSH: the disk's cache first */
	bool src_good;			/* the sender's disk was uptodate */
	u32 rs_seq;			/* resync: nm->rs_sub_seq at its start */
	struct work_struct work;	/* nm_peer_zero_pages_work */
	u64 id;
	int status;
	u64 t_rx, t_sub, t_done;	/* nm_clock_ns(): read, submitted, done */
	unsigned int nr_pages;
	struct page *pages[];
};

/*
 * The page pool: a write's pages go back to it when the write is done
 * (any context), up to NM_POOL_PAGES, and the next write takes them, so a
 * steady stream of writes allocates nothing.
 */
int nm_pool_get(struct nm_dev *nm, struct page **pages, unsigned int nr)
{
	unsigned long flags;
	unsigned int i = 0;

	spin_lock_irqsave(&nm->pool_lock, flags);
	for (; i < nr && nm->pool_nr; i++) {
		pages[i] = list_first_entry(&nm->pool, struct page, lru);
		list_del(&pages[i]->lru);
		nm->pool_nr--;
	}
	spin_unlock_irqrestore(&nm->pool_lock, flags);
	for (; i < nr; i++) {
		pages[i] = alloc_page(GFP_NOIO);
		if (!pages[i])
			return -ENOMEM;
	}
	return 0;
}

void nm_pool_put(struct nm_dev *nm, struct page **pages, unsigned int nr)
{
	unsigned long flags;
	unsigned int i = 0;

	spin_lock_irqsave(&nm->pool_lock, flags);
	for (; i < nr && pages[i] && nm->pool_nr < NM_POOL_PAGES; i++) {
		list_add(&pages[i]->lru, &nm->pool);
		nm->pool_nr++;
	}
	spin_unlock_irqrestore(&nm->pool_lock, flags);
	for (; i < nr && pages[i]; i++)
		__free_page(pages[i]);
}

/* dtr: every write is done; free the pool. */
void nm_pool_exit(struct nm_dev *nm)
{
	struct page *page, *tmp;

	list_for_each_entry_safe(page, tmp, &nm->pool, lru) {
		list_del(&page->lru);
		__free_page(page);
	}
	nm->pool_nr = 0;
}

static void nm_peer_free_pages(struct nm_peer_req *pr)
{
	nm_pool_put(pr->nm, pr->pages, pr->nr_pages);
	atomic_sub(pr->nr_pages, &pr->nm->peer_pages);
	pr->nr_pages = 0;
}

/*
 * May the reader take a write of @nr pages?  Not while NM_PEER_MAX_INFLIGHT
 * writes are on the disk, nor while the pages held would pass max_buffers
 * (a write larger than that is taken alone), nor while NM_ACK_Q_MAX acks
 * wait for the sender (a peer that sends writes and reads our acks slowly
 * would have each write's request kept until its ack left, fault-flood).
 * Otherwise it waits, reads nothing meanwhile, and TCP holds the primary
 * back (review F17: under A and B nothing else does).  Only the stream's
 * one reader adds pages; any context drops them (nm_peer_free_pages),
 * nm_peer_end and the acks' sender wake peer_wq.
 */
static bool nm_peer_room(struct nm_dev *nm, unsigned int nr)
{
	unsigned int held = atomic_read(&nm->peer_pages);

	return atomic_read(&nm->peer_inflight) < NM_PEER_MAX_INFLIGHT &&
	       READ_ONCE(nm->ack_q_len) < NM_ACK_Q_MAX &&
	       (!held || held + nr <= nm->max_buffers / (PAGE_SIZE >> 10));
}

/*
 * The reader waits for room (nm_peer_room).  Acks it holds (ack_batch) or
 * that wait for the sender are released first: they are what frees room
 * when the disk is not the reason.  A link shut down meanwhile (the
 * watchdog, a disconnect) ends the wait: the sender's failed sends empty
 * ack_q then, and the reader's next read fails.
 */
static void nm_peer_wait_room(struct nm_dev *nm, unsigned int nr)
{
	bool began;

	if (nm_peer_room(nm, nr))
		return;
	nm_peer_release_acks(nm, U32_MAX);
	nm_conn_kick(nm);
	began = nm_rx_wait_begin(nm);
	wait_event(nm->peer_wq, nm_peer_room(nm, nr));
	nm_rx_wait_end(nm, began);
}

/* submit_bio_wait, as a wait for our own disk (nm_rx_wait_begin) */
static int nm_rx_bio_wait(struct nm_dev *nm, struct bio *bio)
{
	bool began = nm_rx_wait_begin(nm);
	int r = submit_bio_wait(bio);

	nm_rx_wait_end(nm, began);
	return r;
}

/*
 * Did this write complete inside the receiver's own submit_bio (a RAM disk,
 * a synchronous stack)?  Then the receiver sends its ack right after
 * (nm_peer_write), and waking the sender for it would be a wasted switch.
 */
static bool nm_peer_inline_done(struct nm_dev *nm)
{
	return in_task() && READ_ONCE(nm->peer_submitter) == current;
}

/* A write from the peer is over (any context): its region state, its ack. */
static void nm_peer_end(struct nm_peer_req *pr, int status)
{
	struct nm_dev *nm = pr->nm;
	unsigned long flags, region = pr->sector >> nm->rg.shift;
	unsigned long first, last;
	sector_t sector = pr->sector;
	bool ack, resync = pr->resync;

	pr->t_done = nm_clock_ns();
	if (!pr->resync) {
		nm_lat_add(nm, NM_LAT_s_recv, pr->t_rx, pr->t_sub);
		nm_lat_add(nm, NM_LAT_s_disk, pr->t_sub, pr->t_done);
	}
	pr->status = status;
	pr->stable = !status && (pr->forced || (pr->stable &&
				 !bdev_write_cache(nm->dev->bdev)));
	if (pr->status)
		nm_detach(nm, pr->status);
	ack = pr->resync || nm->protocol == NM_PROTO_C || pr->ack_disk ||
	      pr->status;
	nm_peer_free_pages(pr);
	spin_lock_irqsave(&nm->lock, flags);
	list_del(&pr->inflight);
	/*
	 * Our disk failed the peer's write and stays (on_io_error pass_on):
	 * it lacks the data until the peer resyncs them.  Its status counts
	 * the regions out of sync from now on, before the failure is logged
	 * (up to 1.18.15 it said in sync until the peer's P_RS_START came,
	 * about 100 ms; fault-secwrite), and the disk is inconsistent from
	 * now on, on the metadata too, when the peer holds the data (up to
	 * 1.18.18 it stayed uptodate, and promotable, until P_RS_START;
	 * fault-secfailcut).
	 */
	if (status && !resync && pr->sectors &&
	    nm_regions_range(&nm->rg, pr->sector, pr->sectors, &first, &last) &&
	    __nm_peer_write_failed(nm, first, last, pr->src_good)) {
		queue_work(nm->wq, &nm->disk_work);
		wake_up(&nm->send_wq);		/* our P_STATE */
	}
	/*
	 * A failed flush of the peer's (dm sends a flush apart from its
	 * data) may have lost the resync data our disk completed since its
	 * last flush (rg.rs_unflushed): the link drop that follows (A, B:
	 * nm_peer_flush_failed), else the next nm_flush_local, however its
	 * own flush goes, marks them out of sync again (1.18.16; up to
	 * 1.18.15 a good flush counted them stable, fault-rsflush part
	 * peer).  So also those in flight now (rs_suspect): the disk may
	 * have held one before this flush failed, its completion coming
	 * after this one's.  Not for a detached disk: an attach starts
	 * afresh.
	 */
	if (status && pr->flush && nm->disk != NM_DISK_DISKLESS)
		__nm_rs_flush_failed(nm);
	if (resync) {
		bool suspect = !status && nm->rs_suspect &&
			       (s32)(pr->rs_seq - nm->rs_suspect_seq) <= 0;

		__clear_bit(region, nm->rg.rs_writing);
		if (suspect)
			nm->flush_lost = true;	/* begun before it failed */
		if (!status) {
			__clear_bit(region, nm->rg.failed_here);
			/* a suspect stays out of sync: read from the peer */
			if (!suspect)
				__clear_bit(region, nm->rg.oos);
			if (nm->meta && !suspect)
				nm_meta_clear(nm->meta, region);
			/* maybe in the disk's cache only: nm_flush_local */
			__set_bit(region, nm->rg.rs_unflushed);
			nm->rs_unflushed_any = true;
			nm->rs_done_seq++;
		}
	}
	if (ack) {
		list_add_tail(&pr->list, &nm->ack_q);
		nm->ack_q_len++;
	}
	/*
	 * The count drops under nm->lock, and nm_peer_drain() takes the lock
	 * after it saw zero: nm is not freed before we are done with it.
	 */
	atomic_dec(&nm->peer_inflight);
	wake_up(&nm->peer_wq);
	if (ack && !nm_peer_inline_done(nm))
		wake_up(&nm->send_wq);
	if (resync)
		nm_sync_kick(nm);	/* writes parked behind rs_writing */
	/* before the unlock: nm may be gone after it (nm_peer_drain) */
	if (status)
		nm_err_limit(nm, "write from the peer at sector %llu failed (%d)",
			     (unsigned long long)sector, status);
	spin_unlock_irqrestore(&nm->lock, flags);
	if (!ack)
		kfree(pr);
}

static void nm_peer_zero_pages_work(struct work_struct *work);

static void nm_peer_endio(struct bio *bio)
{
	struct nm_peer_req *pr = bio->bi_private;
	int status = blk_status_to_errno(bio->bi_status);

	bio_put(bio);
	if (status && pr->zero && !pr->zero_pages) {
		pr->zero_pages = true;	/* once: a refusal of those fails */
		INIT_WORK(&pr->work, nm_peer_zero_pages_work);
		queue_work(pr->nm->wq, &pr->work);
		return;
	}
	nm_peer_end(pr, status);
}

/*
 * True if a write in flight overlaps [sector, sector + sectors): such a
 * write must finish first, so that the later write wins as on the primary.
 */
static bool nm_peer_overlaps(struct nm_dev *nm, sector_t sector,
			     unsigned int sectors)
{
	struct nm_peer_req *pr;
	unsigned long flags;
	bool hit = false;

	spin_lock_irqsave(&nm->lock, flags);
	list_for_each_entry(pr, &nm->peer_reqs, inflight) {
		if (sector < pr->sector + pr->sectors &&
		    pr->sector < sector + sectors) {
			hit = true;
			break;
		}
	}
	spin_unlock_irqrestore(&nm->lock, flags);
	return hit;
}

void nm_peer_wait_overlaps(struct nm_dev *nm, sector_t sector,
			   unsigned int sectors)
{
	bool began;

	if (!nm_peer_overlaps(nm, sector, sectors))
		return;
	began = nm_rx_wait_begin(nm);
	wait_event(nm->peer_wq, !nm_peer_overlaps(nm, sector, sectors));
	nm_rx_wait_end(nm, began);
}

/* Wait for the peer's writes on our disk (a drain before a stable point). */
void nm_peer_wait_drained(struct nm_dev *nm)
{
	bool began;

	if (!atomic_read(&nm->peer_inflight))
		return;
	began = nm_rx_wait_begin(nm);
	wait_event(nm->peer_wq, !atomic_read(&nm->peer_inflight));
	nm_rx_wait_end(nm, began);
}

/* Answer a write without writing it (refused resync data, diskless). */
static void nm_peer_ack_now(struct nm_dev *nm, struct nm_peer_req *pr,
			    int status)
{
	unsigned long flags;

	pr->status = status;
	nm_peer_free_pages(pr);
	spin_lock_irqsave(&nm->lock, flags);
	list_add_tail(&pr->list, &nm->ack_q);
	nm->ack_q_len++;
	spin_unlock_irqrestore(&nm->lock, flags);
	wake_up(&nm->send_wq);
}

/*
 * P_RS_ZERO: does the region read zeroes here already?  0: yes, 1: no,
 * or the read's error.  Into the request's (pool) pages, which go back.
 */
static int nm_peer_reads_zero(struct nm_dev *nm, struct nm_peer_req *pr)
{
	u32 left = pr->sectors << SECTOR_SHIFT;
	struct bio *bio;
	unsigned int i;
	int r;

	bio = bio_alloc(nm->dev->bdev, pr->nr_pages, REQ_OP_READ, GFP_NOIO);
	bio->bi_iter.bi_sector = nm->data_start + pr->sector;
	for (i = 0; i < pr->nr_pages; i++) {
		__bio_add_page(bio, pr->pages[i], min_t(u32, left, PAGE_SIZE),
			       0);
		left -= min_t(u32, left, PAGE_SIZE);
	}
	r = nm_rx_bio_wait(nm, bio);
	bio_put(bio);
	for (i = 0, left = pr->sectors << SECTOR_SHIFT; !r && i < pr->nr_pages;
	     i++) {
		if (memchr_inv(page_address(pr->pages[i]), 0,
			       min_t(u32, left, PAGE_SIZE)))
			r = 1;
		left -= min_t(u32, left, PAGE_SIZE);
	}
	nm_peer_free_pages(pr);
	return r;
}

/*
 * The part of the disk's sectors [s, e) that a discard covers in whole
 * units of the disk's discard granularity (from its discard alignment):
 * [*first, *end), nm_zero.h.  False if there is none.
 */
bool nm_discard_whole(struct block_device *bdev, sector_t s, sector_t e,
		      sector_t *first, sector_t *end)
{
	unsigned long long f, l;
	bool r;

	r = nm_zero_whole(s, e, bdev_discard_granularity(bdev) >> SECTOR_SHIFT,
			  bdev_discard_alignment(bdev) >> SECTOR_SHIFT, &f, &l);
	*first = f;
	*end = l;
	return r;
}

/*
 * Zero pages over the disk's sectors [s, s + n), chained after *biop (as
 * blk_next_bio() does: each bio before the last is submitted); *biop is
 * the last.  Plain writes: no check and no refusal to expect, unlike a
 * write-zeroes (a SCSI WRITE SAME may fail as BLK_STS_TARGET).
 */
static void nm_zero_pages(struct block_device *bdev, sector_t s, sector_t n,
			  struct bio **biop)
{
	unsigned int len;

	while (n) {
		*biop = blk_next_bio(*biop, bdev,
				     min_t(sector_t, BIO_MAX_VECS,
					   DIV_ROUND_UP(n, PAGE_SECTORS)),
				     REQ_OP_WRITE, GFP_NOIO);
		(*biop)->bi_iter.bi_sector = s;
		while (n) {
			len = min_t(sector_t, PAGE_SIZE, n << SECTOR_SHIFT);
			if (bio_add_page(*biop, ZERO_PAGE(0), len, 0) < len)
				break;
			s += len >> SECTOR_SHIFT;
			n -= len >> SECTOR_SHIFT;
		}
		cond_resched();
	}
}

/*
 * What a discard or write-zeroes leaves on this node's disk, the same on
 * both nodes: the range reads zeroes (nm_map_write's local part, nm_conn's
 * P_ZERO and P_RS_ZERO; may sleep, never under a lock).  A write-zeroes
 * is REQ_OP_WRITE_ZEROES where the disk takes them, else zero pages
 * (__blkdev_issue_zeroout); so is a discard on a disk without discards.
 * On a disk that takes them, a discard is one REQ_OP_DISCARD bio over the
 * whole units of the disk's discard granularity in the range (one: the
 * disk's queue cuts it at its own unit boundaries; the block layer's
 * builder cuts at powers of two, which leaves parts of the units of a
 * 192 KiB thin pool short of a unit, dropped), and zero pages over the
 * edges, which the disk may keep as they were (dm-thin drops the part of
 * a discard short of one of its blocks).  A disk that takes a discard of
 * whole units is taken to read zeroes there (thin volumes, loop files,
 * SSDs with deterministic zeroes after trim; as DRBD's
 * discard-zeroes-if-aligned).  The bios are chained: *biop, the last, is
 * the caller's to submit with its end_io; it ends when all of them are
 * done.  Only the checks fail, before any bio: an error leaves none.  A
 * range is at most 1 GiB (nm_io_hints, P_ZERO): one bio's size.
 */
int nm_zero_range(struct nm_dev *nm, sector_t sector, sector_t sectors,
		  u32 fl, struct bio **biop)
{
	struct block_device *bdev = nm->dev->bdev;
	sector_t s = nm->data_start + sector, e = s + sectors, first, end;
	sector_t mask = (bdev_logical_block_size(bdev) >> SECTOR_SHIFT) - 1;

	might_sleep();
	*biop = NULL;
	if (!(fl & NM_DF_DISCARD) || !bdev_max_discard_sectors(bdev) ||
	    !bdev_discard_granularity(bdev))
		return __blkdev_issue_zeroout(bdev, s, sectors, GFP_NOIO, biop,
					      (fl & NM_DF_NOUNMAP) ?
					      BLKDEV_ZERO_NOUNMAP : 0);
	if (bdev_read_only(bdev))
		return -EPERM;
	if (!sectors || ((s | e) & mask) ||
	    sectors > (UINT_MAX >> SECTOR_SHIFT))
		return -EINVAL;
	if (!nm_discard_whole(bdev, s, e, &first, &end) ||
	    ((first | end) & mask)) {
		nm_zero_pages(bdev, s, sectors, biop);
		return 0;
	}
	nm_zero_pages(bdev, s, first - s, biop);
	*biop = blk_next_bio(*biop, bdev, 0, REQ_OP_DISCARD, GFP_NOIO);
	(*biop)->bi_iter.bi_sector = first;
	(*biop)->bi_iter.bi_size = (end - first) << SECTOR_SHIFT;
	nm_zero_pages(bdev, end, e - end, biop);
	return 0;
}

/*
 * Apply a P_ZERO or P_RS_ZERO (nm_conn thread; may sleep, never under a
 * lock): nm_zero_range().  A resync region that reads zeroes here already
 * is left alone: a fresh or discarded thin volume stays unallocated.  The
 * last bio of the chain ends the request (nm_peer_endio).
 */
static void nm_peer_zero_submit(struct nm_dev *nm, struct nm_peer_req *pr,
				u32 fl)
{
	struct bio *bio;
	bool began;
	int r;

	might_sleep();
	if (pr->resync) {
		r = nm_peer_reads_zero(nm, pr);
		if (r <= 0) {
			nm_peer_end(pr, r);
			return;
		}
	}
	began = nm_rx_wait_begin(nm);
	r = nm_zero_range(nm, pr->sector, pr->sectors, fl, &bio);
	if (bio) {
		bio->bi_end_io = nm_peer_endio;
		bio->bi_private = pr;
		submit_bio(bio);
	}
	nm_rx_wait_end(nm, began);
	if (!bio)
		nm_peer_end(pr, r ? r : -EIO);
}

/*
 * A discard or write-zeroes that failed (EOPNOTSUPP: a loop file whose
 * filesystem lacks the fallocate mode; BLK_STS_TARGET: a SCSI disk whose
 * WRITE SAME was refused) is written with zero pages instead, once, as
 * blkdev_issue_zeroout() retries any error; only if that fails too is it
 * the disk's failure.  nm->wq, from nm_peer_endio;
 * the request stays in flight (peer_inflight) until the last bio ends it.
 * One bio is built while the one before is submitted (blk_next_bio).
 */
static void nm_peer_zero_pages_work(struct work_struct *work)
{
	struct nm_peer_req *pr = container_of(work, struct nm_peer_req, work);
	struct nm_dev *nm = pr->nm;
	struct bio *bio = NULL;

	nm_info(nm, "disk refused zeroing sectors %llu+%u: writing zeroes",
		(unsigned long long)pr->sector, pr->sectors);
	nm_zero_pages(nm->dev->bdev, nm->data_start + pr->sector, pr->sectors,
		      &bio);
	if (!bio) {		/* a zero request always has sectors */
		nm_peer_end(pr, -EIO);
		return;
	}
	bio->bi_end_io = nm_peer_endio;
	bio->bi_private = pr;
	submit_bio(bio);
}

/*
 * The write bios of @pr's pages for the @size-byte range at pr->sector:
 * one bio, or with @mask (P_RS_BLOCKS) one per run of blocks set in it,
 * each chained to the first, which is returned (its end, nm_peer_endio,
 * comes after all of theirs); the others are on @chain, to be submitted
 * first (nm_peer_submit).  NULL: none could be built (none is left).
 */
static struct bio *nm_peer_bios(struct nm_dev *nm, struct nm_peer_req *pr,
				blk_opf_t opf, u32 size, const void *mask,
				struct bio_list *chain)
{
	u32 b, e, nb = nm_csum_blocks(size), pg = 0;
	struct bio *parent = NULL, *bio;

	BUILD_BUG_ON(NM_CSUM_BLOCK != PAGE_SIZE);
	for (b = 0; b < nb; b = e) {
		if (mask && !nm_blk_bit(mask, b)) {
			e = b + 1;
			continue;
		}
		for (e = b + 1; e < nb && (!mask || nm_blk_bit(mask, e)); e++)
			;
		bio = bio_alloc(nm->dev->bdev, e - b, opf, GFP_NOIO);
		bio->bi_iter.bi_sector = nm->data_start + pr->sector +
					 b * (PAGE_SIZE >> SECTOR_SHIFT);
		for (; b < e; b++) {
			u32 len = min_t(u32, size - b * PAGE_SIZE, PAGE_SIZE);

			if (bio_add_page(bio, pr->pages[pg++], len, 0) != len) {
				bio_put(bio);
				goto fail;
			}
		}
		if (!parent) {
			parent = bio;
			bio->bi_end_io = nm_peer_endio;
			bio->bi_private = pr;
		} else {
			bio_chain(bio, parent);
			bio_list_add(chain, bio);
		}
	}
	return parent;
fail:
	while ((bio = bio_list_pop(chain)))
		bio_put(bio);
	if (parent)
		bio_put(parent);
	return NULL;
}

/* Submit a request's bios: the chained ones, then the one that ends it. */
static void nm_peer_submit(struct nm_dev *nm, struct bio *bio,
			   struct bio_list *chain)
{
	/* a request-based disk may hold us for a tag (nm_rx_wait_begin) */
	bool began = nm_rx_wait_begin(nm);
	struct bio *c;

	while ((c = bio_list_pop(chain)))
		submit_bio(c);
	submit_bio(bio);
	nm_rx_wait_end(nm, began);
}

/*
 * A write of the peer's (not resync data) to a disk that lacks data.  An
 * outdated disk (the handshake found the peer's data newer) is the target
 * of the peer's resync, whose P_RS_START comes after the bitmap exchange,
 * and the peer's writes flow from the connect on.  Written on a disk whose
 * metadata says consistent, a power loss would leave a new write without
 * the older ones the resync brings: not "older but consistent".  So the
 * disk is inconsistent first, durably (DRBD's primary sends P_OUT_OF_SYNC
 * instead until the resync starts); up to 1.18.19 the write went first
 * (dur-outdatedwrite).  An inconsistent disk whose metadata does not say
 * so yet (a commit that failed, pass_on) tries again.  True if the
 * metadata still cannot say it: the write is refused, not written.
 * Receiver or receive worker (process context).
 */
static bool nm_peer_stale_write(struct nm_dev *nm)
{
	enum nm_disk disk = READ_ONCE(nm->disk);

	if (disk != NM_DISK_OUTDATED && disk != NM_DISK_INCONSISTENT)
		return false;
	if (disk == NM_DISK_OUTDATED)
		nm_info(nm, "this outdated disk takes a write of the peer's before the resync: inconsistent first");
	return nm_go_inconsistent(nm) != 0;
}

/*
 * A P_DATA or P_RS_DATA (or, @zero, a P_ZERO or P_RS_ZERO: no data follow)
 * arrived, fixed part checked: read and issue it.
 */
static int nm_peer_write(struct nm_dev *nm, const struct nm_p_data *d,
			 bool resync, bool zero, const void *mask)
{
	u32 size = nm_h32(d->size), fl = nm_h32(d->flags);
	u32 epoch = nm_h32(d->epoch);
	/* the bytes that follow: P_RS_BLOCKS carries only @mask's blocks */
	u32 data = mask ? nm_blk_bytes(mask, size) : size;
	u64 t_rx = nm_clock_ns();	/* its fixed part was just read */
	/* a P_RS_ZERO reads the region here first */
	unsigned int nr = zero && !resync ? 0 : DIV_ROUND_UP(data, PAGE_SIZE);
	blk_opf_t opf = REQ_OP_WRITE | REQ_SYNC;
	struct bio_list chain = BIO_EMPTY_LIST;
	struct nm_peer_req *pr;
	struct bio *bio = NULL;
	int r;

	if (!resync && READ_ONCE(nm->role) == NM_ROLE_PRIMARY)
		return -EPROTO;		/* only a secondary takes writes */
	if (!resync) {
		if (nm->ordering != NM_ORD_NONE && nm->peer_epoch_valid &&
		    epoch != nm->peer_epoch)
			return -EPROTO;	/* epoch changed without a barrier */
		nm->peer_epoch = epoch;
		nm->peer_epoch_valid = true;
	} else if (READ_ONCE(nm->cstate) != NM_C_SYNC_TARGET &&
		   READ_ONCE(nm->disk) != NM_DISK_DISKLESS) {
		/*
		 * Resync data outside a resync (diskless: refused below).
		 * Those of the resync our disk's failure ended, still on
		 * the wire when the disk was attached again (rs_tail), are
		 * refused the same way, not written: the source holds
		 * their regions until these answers, and drops them
		 * (NM_RSS_STALE).  Up to 1.18.11 they were a protocol
		 * error (fault-rstail).  Any other is one.
		 */
		if (!READ_ONCE(nm->rs_tail))
			return -EPROTO;
	}

	nm_peer_wait_room(nm, nr);

	pr = kzalloc(struct_size(pr, pages, nr), GFP_NOIO);
	if (!pr)
		return -ENOMEM;
	pr->nm = nm;
	pr->resync = resync;
	pr->zero = zero;
	pr->ack_disk = !resync && (fl & NM_DF_ACK_DISK);
	pr->flush = !resync && (fl & NM_DF_FLUSH);
	/*
	 * The sender holds it whatever our disk does (__nm_peer_write_failed):
	 * it says otherwise with NM_DF_ACK_DISK (under C too from version
	 * 11); an older one is judged by its last P_STATE.
	 */
	pr->src_good = !resync && !pr->ack_disk &&
		       (nm->peer_proto >= NM_PROTO_SRC_FLAG ||
			READ_ONCE(nm->peer_disk) == NM_DISK_UPTODATE);
	pr->t_rx = t_rx;
	pr->id = nm_h64(d->id);
	pr->nr_pages = nr;
	INIT_LIST_HEAD(&pr->list);
	INIT_LIST_HEAD(&pr->inflight);
	atomic_add(nr, &nm->peer_pages);	/* nm_peer_free_pages drops them */
	r = nm_pool_get(nm, pr->pages, nr);
	if (r)
		goto out_free;
	if (!zero) {		/* P_ZERO: the receiver took its trailer */
		/* held acks do not wait for a payload still on its way */
		nm_peer_release_acks(nm, data);
		r = data ? nm_rx_pages(nm, pr->pages, data) : 0;
		if (!r)
			r = nm_rx_trailer(nm);
		if (r)
			goto out_free;
	}
	pr->sector = nm_h64(d->sector);
	pr->sectors = size >> SECTOR_SHIFT;

	/*
	 * Durably inconsistent before the first resync write.  The resync
	 * is checked again: it may have ended while the payload came (our
	 * disk failed, and may be attached again already).
	 */
	if (resync && (READ_ONCE(nm->cstate) != NM_C_SYNC_TARGET ||
		       nm_go_inconsistent(nm) ||
		       READ_ONCE(nm->disk) == NM_DISK_DISKLESS)) {
		/*
		 * Our disk failed during the resync (review F24), or its
		 * metadata could not record that it lacks data: the data
		 * already on the wire are refused, the disk stays detached
		 * (not inconsistent again, and not written); under pass_on
		 * attached, and not written while its metadata says it is
		 * consistent.  And those of an ended resync (rs_tail).
		 */
		nm_peer_ack_now(nm, pr, -EIO);
		return 0;
	} else if (resync) {
		unsigned long region = pr->sector >> nm->rg.shift;
		bool stale;

		/*
		 * An application write touched the region meanwhile: refuse
		 * (the source reads it again).  Forget the dirt only once no
		 * write to it is in flight here: then the P_DATA of every such
		 * write went out before this refusal, so the source applies
		 * them before it reads the region again.
		 */
		spin_lock_irq(&nm->lock);
		stale = test_bit(region, nm->rg.rs_dirty);
		if (stale && !nm->rg.inflight[region])
			__clear_bit(region, nm->rg.rs_dirty);
		/*
		 * Refused: the application's new writes to the region wait
		 * for its next resync data (rs_hold), or a writer that keeps
		 * rewriting it would have it refused forever.
		 */
		if (stale) {
			__set_bit(region, nm->rg.rs_hold);
			nm->rs_hold_at = jiffies;
			nm->rs_holding = true;
		} else {
			__clear_bit(region, nm->rg.rs_hold);
			__set_bit(region, nm->rg.rs_writing);
			pr->rs_seq = ++nm->rs_sub_seq;
		}
		spin_unlock_irq(&nm->lock);
		if (stale) {
			nm_peer_ack_now(nm, pr, -EAGAIN);
			return 0;
		}
	} else if (READ_ONCE(nm->disk) == NM_DISK_DISKLESS ||
		   (!resync && pr->sectors && nm_peer_stale_write(nm))) {
		/* not written: diskless, or its metadata cannot say it lacks data */
		atomic64_inc(&nm->writes_received);
		if (nm->protocol == NM_PROTO_B && !pr->ack_disk) {
			struct nm_p_ack a = { .id = d->id };

			r = nm_send_ctrl(nm, NM_P_RECV_ACK, &a, sizeof(a));
		}
		nm_peer_ack_now(nm, pr, -EIO);
		return r;
	}

	/*
	 * Stable once done: FUA, an empty flush, or a disk without a
	 * volatile cache now and when the write completes (nm_peer_end).
	 */
	pr->forced = (fl & NM_DF_FUA) || (!size && (fl & NM_DF_FLUSH));
	pr->stable = pr->forced || !bdev_write_cache(nm->dev->bdev);
	if (fl & NM_DF_FUA)
		opf |= REQ_FUA;
	if (fl & NM_DF_FLUSH)
		opf |= REQ_PREFLUSH;
	if (!zero && data) {
		bio = nm_peer_bios(nm, pr, opf, size, mask, &chain);
		if (!bio) {
			r = -EIO;
			goto out_free;
		}
	} else if (!zero && !size && (fl & NM_DF_FLUSH)) {
		/* an empty flush: the disk's cache is flushed before the ack */
		bio = bio_alloc(nm->dev->bdev, 0, opf, GFP_NOIO);
		bio->bi_end_io = nm_peer_endio;
		bio->bi_private = pr;
	}
	if (pr->sectors)
		nm_peer_wait_overlaps(nm, pr->sector, pr->sectors);
	spin_lock_irq(&nm->lock);
	list_add_tail(&pr->inflight, &nm->peer_reqs);
	spin_unlock_irq(&nm->lock);
	atomic_inc(&nm->peer_inflight);
	if (resync) {
		/* as before csums: a zero region counts its range */
		atomic64_add(zero ? size : data, &nm->resync_bytes);
		atomic64_add(zero ? 0 : data, &nm->rs_sent);
	} else {
		atomic64_inc(&nm->writes_received);
	}

	if (!resync && nm->protocol == NM_PROTO_B && !pr->ack_disk) {
		struct nm_p_ack a = { .id = d->id };

		r = nm_send_ctrl(nm, NM_P_RECV_ACK, &a, sizeof(a));
		if (r) {
			/* still write it: the data is here and valid */
			if (zero)
				nm_peer_zero_submit(nm, pr, fl);
			else
				nm_peer_submit(nm, bio, &chain);
			return r;
		}
	}
	WRITE_ONCE(nm->peer_submitter, current);
	pr->t_sub = nm_clock_ns();
	if (zero)
		nm_peer_zero_submit(nm, pr, fl);
	else if (bio)
		nm_peer_submit(nm, bio, &chain);
	else
		nm_peer_end(pr, 0);	/* nothing to write: P_RS_BLOCKS of a region in sync */
	WRITE_ONCE(nm->peer_submitter, NULL);
	/*
	 * A fast disk (a RAM disk, a write cache) may already have completed
	 * the write: send its ack from here, saving the sender's wakeup; or,
	 * if the next packet is already here, with the acks of the writes
	 * that follow it (nm_peer_release_acks).
	 */
	nm->acks_held++;
	if (!READ_ONCE(nm_ack_batch) || nm->acks_held >= NM_ACK_BATCH ||
	    (nm->protocol != NM_PROTO_C && !resync) ||
	    nm_rx_avail(nm) < sizeof(struct nm_hdr) + sizeof(struct nm_p_data))
		nm_peer_release_acks(nm, U32_MAX);
	else
		atomic64_inc(&nm->acks_batched);
	return 0;

out_free:
	nm_peer_free_pages(pr);
	kfree(pr);
	return r;
}

int nm_peer_data(struct nm_dev *nm, const struct nm_p_data *d)
{
	return nm_peer_write(nm, d, false, false, NULL);
}

/*
 * Resync data covers exactly one region (the last may be shorter): its
 * end marks that region in sync here, so a part of one, or a range across
 * two, is a protocol error.
 */
static bool nm_rs_one_region(struct nm_dev *nm, u64 sector, u32 size)
{
	return !(sector & (nm->region_sectors - 1)) && sector < nm->sectors &&
	       size == min_t(u64, nm->region_sectors,
			     nm->sectors - sector) << SECTOR_SHIFT;
}

int nm_peer_rs_data(struct nm_dev *nm, const struct nm_p_data *d)
{
	if (!nm_rs_one_region(nm, nm_h64(d->sector), nm_h32(d->size)))
		return -EPROTO;
	return nm_peer_write(nm, d, true, false, NULL);
}

/*
 * P_RS_BLOCKS (csums): the blocks of a region that differed here; the
 * others are equal already.  One whole region, acknowledged as such.
 */
int nm_peer_rs_blocks(struct nm_dev *nm, const struct nm_p_rs_blocks *b)
{
	struct nm_p_data d = {
		.sector = b->sector,
		.size = b->size,
	};
	if (!nm_rs_one_region(nm, nm_h64(b->sector), nm_h32(b->size)))
		return -EPROTO;
	return nm_peer_write(nm, &d, true, false, b->mask);
}

/* P_ZERO: a discard or write-zeroes, acknowledged as a P_DATA is. */
int nm_peer_zero(struct nm_dev *nm, const struct nm_p_data *d)
{
	return nm_peer_write(nm, d, false, true, NULL);
}

/* P_RS_ZERO: a resync region that reads zeroes on the source. */
int nm_peer_rs_zero(struct nm_dev *nm, const struct nm_p_data *d)
{
	if (!nm_rs_one_region(nm, nm_h64(d->sector), nm_h32(d->size)))
		return -EPROTO;
	return nm_peer_write(nm, d, true, true, NULL);
}

/*
 * P_SYNC: every write received so far is on stable storage, then ack.  The
 * acks of those writes (a P_NEG_ACK of a failed one) leave first, so the
 * primary never retires a write whose failure is still on its way.
 */
int nm_peer_sync(struct nm_dev *nm, __be64 cookie)
{
	struct nm_p_ping p = { .cookie = cookie };
	int r;

	might_sleep();

	nm_peer_wait_drained(nm);
	r = nm_flush_local(nm);
	if (r)
		return r;
	r = nm_peer_send_acks(nm);
	if (r)
		return r;
	return nm_send_ctrl(nm, NM_P_SYNC_ACK, &p, sizeof(p));
}

/*
 * P_BARRIER: make epoch @epoch stable before reading the next one (see the
 * ordering note at the top: under C only the flush is needed).
 */
int nm_peer_barrier(struct nm_dev *nm, u32 epoch)
{
	int r;

	might_sleep();
	if (nm->peer_epoch_valid && epoch != nm->peer_epoch)
		return -EPROTO;
	if (nm->ordering != NM_ORD_NONE && nm->protocol != NM_PROTO_C)
		nm_peer_wait_drained(nm);
	if (nm->ordering == NM_ORD_FLUSH) {
		r = nm_flush_local(nm);
		if (r)
			return r;	/* the epoch is not stable */
	}
	nm->peer_epoch = epoch + 1;
	nm->peer_epoch_valid = true;
	return 0;
}

/*
 * A, B: an empty flush of the peer's failed on our disk, which stays
 * (on_io_error pass_on; a diskless node answers every flush with EIO, and
 * its P_STATE told the peer).  A P_NEG_ACK names sectors and a flush has
 * none, so the link drops instead (flush_failed), as for a failed P_SYNC
 * or P_BARRIER flush: the peer marks what it has not seen confirmed
 * stable out of sync.  Called with ack_mutex held, so that no P_SYNC_ACK
 * (nm_peer_sync sends the acks first, under ack_mutex) can confirm those
 * writes before the link is down.  Up to 1.18.3 the failure was dropped
 * silently, and a later stable point confirmed writes the failed flush
 * had lost (fault-flushfail).  The resync data it may have lost are
 * marked first (1.18.16, fault-rsflush part peer).  Process context;
 * ack_mutex, then the metadata's commit, then drop_mutex.
 */
static int nm_peer_flush_failed(struct nm_dev *nm, int err)
{
	might_sleep();
	lockdep_assert_held(&nm->ack_mutex);
	if (!err)
		return 0;
	/* the resync data it may have lost: out of sync before the next link */
	nm_flush_lost_mark(nm);
	nm_fail(nm, "flush_failed",
		"a flush of the peer failed on the backing device (%d): dropping link",
		err);
	nm_conn_drop(nm);
	return -EIO;
}

/*
 * Send the acks of completed writes, all in one batch under tx_mutex, each
 * packet but the last with MSG_MORE (nm->tx_more), so that a burst of
 * completions leaves in as few segments as TCP makes of it.
 *
 * The sender thread waits for the mutexes and the socket (@wait).  A
 * receiver (@wait false: the nm_conn thread, the receive worker) must not:
 * it is what drains the peer's side of the stream, and the peer may be
 * blocked sending to us with its own tx_mutex held, waiting for exactly
 * that (review F25: both receivers waiting on their tx_mutex, both senders
 * on a full socket, until the timeout dropped the link;
 * tests/vm/guest/fault-txcycle.sh).  So it sends only if both mutexes are
 * free and the socket has room for the batch; otherwise the acks go back
 * to the head of ack_q, in order, and the sender thread sends them.
 */
static int __nm_peer_send_acks(struct nm_dev *nm, bool wait)
{
	struct nm_peer_req *pr, *tmp;
	unsigned long flags;
	LIST_HEAD(list);
	unsigned int n = 0;
	int r = 0, ferr = 0;
	bool full;

	might_sleep();
	/* one sender of acks at a time: they leave in completion order */
	if (wait)
		mutex_lock(&nm->ack_mutex);
	else if (!mutex_trylock(&nm->ack_mutex))
		goto defer;
	spin_lock_irqsave(&nm->lock, flags);
	list_splice_init(&nm->ack_q, &list);
	full = nm->ack_q_len >= NM_ACK_Q_MAX;
	nm->ack_q_len = 0;
	spin_unlock_irqrestore(&nm->lock, flags);
	if (full)
		wake_up(&nm->peer_wq);	/* a reader in nm_peer_wait_room */
	/*
	 * A and B acknowledge only failures, and the writes sent with
	 * NM_DF_ACK_DISK: drop the others first
	 */
	list_for_each_entry_safe(pr, tmp, &list, list) {
		if (pr->resync || nm->protocol == NM_PROTO_C || pr->ack_disk ||
		    (pr->sectors && pr->status)) {
			n++;
			continue;
		}
		/* a failed empty flush, our disk kept (not diskless) */
		if (pr->status && READ_ONCE(nm->disk) != NM_DISK_DISKLESS)
			ferr = pr->status;
		list_del(&pr->list);
		kfree(pr);
	}
	if (list_empty(&list)) {
		r = nm_peer_flush_failed(nm, ferr);
		mutex_unlock(&nm->ack_mutex);
		return r;
	}

	if (wait)
		mutex_lock(&nm->tx_mutex);
	else if (!nm_tx_trylock(nm, (size_t)n * NM_ACK_WIRE_MAX))
		goto requeue;
	list_for_each_entry_safe(pr, tmp, &list, list) {
		struct nm_p_ack a = {
			.id = nm_be64(pr->id),
			.status = nm_be32(-pr->status),
			.flags = nm_be32(pr->stable ? NM_AF_STABLE : 0),
		};
		struct nm_p_rs_ack ra = {
			.sector = nm_be64(pr->sector),
			.size = nm_be32(pr->sectors << SECTOR_SHIFT),
			.status = nm_be32(-pr->status),
		};

		nm->tx_more = !list_is_last(&pr->list, &list);
		if (!r && pr->resync)
			r = __nm_send_ctrl(nm, NM_P_RS_ACK, &ra, sizeof(ra));
		else if (!r && (nm->protocol == NM_PROTO_C || pr->ack_disk))
			r = __nm_send_ctrl(nm, NM_P_WRITE_ACK, &a, sizeof(a));
		else if (!r)	/* A, B: a failure */
			r = __nm_send_ctrl(nm, NM_P_NEG_ACK, &ra, sizeof(ra));
		if (!r && !pr->resync)
			nm_lat_add(nm, NM_LAT_s_ack, pr->t_done, nm_clock_ns());
		list_del(&pr->list);
		kfree(pr);
	}
	nm->tx_more = false;
	mutex_unlock(&nm->tx_mutex);
	r = nm_peer_flush_failed(nm, ferr) ?: r;
	mutex_unlock(&nm->ack_mutex);
	return r;

requeue:
	spin_lock_irqsave(&nm->lock, flags);
	list_splice(&list, &nm->ack_q);	/* at the head: the order is kept */
	nm->ack_q_len += n;
	spin_unlock_irqrestore(&nm->lock, flags);
	r = nm_peer_flush_failed(nm, ferr);
	mutex_unlock(&nm->ack_mutex);
	if (r)
		return r;
defer:
	atomic64_inc(&nm->acks_deferred);
	nm_conn_kick(nm);
	return 0;
}

/* The sender thread, and P_SYNC (whose ack must follow these). */
int nm_peer_send_acks(struct nm_dev *nm)
{
	return __nm_peer_send_acks(nm, true);
}

/*
 * Receiver (nm_conn thread): the acks of writes that completed inside its
 * own submit_bio were held while more of the stream was already here, so
 * that at queue depth a burst of acks leaves in one segment and the
 * primary takes them in one data_ready, not one send and one softirq pass
 * per write.  They leave here, before the receiver can wait on the
 * socket: unless @want bytes (what it reads next) are already here, and
 * at most NM_ACK_BATCH writes after the first held one.  Completions in
 * other contexts wake the sender as before; it may send held acks too.
 */
void nm_peer_release_acks(struct nm_dev *nm, u32 want)
{
	if (!nm->acks_held || (want != U32_MAX && nm_rx_avail(nm) >= want))
		return;
	nm->acks_held = 0;
	/* a failed send shows as the link's failure, to whoever reads next */
	__nm_peer_send_acks(nm, false);
}

/* Wait for the writes in flight, then forget the acks nobody will read. */
void nm_peer_drain(struct nm_dev *nm)
{
	struct nm_peer_req *pr, *tmp;
	unsigned long flags;
	LIST_HEAD(list);

	might_sleep();
	wait_event(nm->peer_wq, !atomic_read(&nm->peer_inflight));
	/* the last nm_peer_endio still holds the lock: wait for it */
	spin_lock_irqsave(&nm->lock, flags);
	list_splice_init(&nm->ack_q, &list);
	nm->ack_q_len = 0;
	spin_unlock_irqrestore(&nm->lock, flags);
	nm->acks_held = 0;	/* the receiver is not running (nm_conn) */
	list_for_each_entry_safe(pr, tmp, &list, list) {
		list_del(&pr->list);
		kfree(pr);
	}
}

void nm_peer_reset(struct nm_dev *nm)
{
	nm->peer_epoch_valid = false;
}

/* Secondary (or any uptodate node): serve a P_READ_REQ from the local disk. */
int nm_peer_read(struct nm_dev *nm, const struct nm_p_data *d)
{
	u32 size = be32_to_cpu(d->size), left = size;
	sector_t sector = be64_to_cpu(d->sector);
	unsigned int nr = DIV_ROUND_UP(size, PAGE_SIZE), i;
	struct nm_p_ack a = { .id = d->id };
	struct page **pages = NULL;
	struct kvec *vec = NULL;
	struct bio *bio;
	int r;

	/*
	 * Only a primary whose own disk cannot serve the read asks us (its
	 * P_STATE saying so always precedes its P_READ_REQ).
	 */
	if (READ_ONCE(nm->peer_role) != NM_ROLE_PRIMARY ||
	    READ_ONCE(nm->peer_disk) == NM_DISK_UPTODATE)
		return -EPROTO;
	if (READ_ONCE(nm->disk) != NM_DISK_UPTODATE)
		goto fail;
	nm_peer_wait_overlaps(nm, sector, size >> SECTOR_SHIFT);
	pages = kcalloc(nr, sizeof(*pages), GFP_NOIO);
	vec = kcalloc(nr + 1, sizeof(*vec), GFP_NOIO);
	if (!pages || !vec)
		goto fail;
	bio = bio_alloc(nm->dev->bdev, nr, REQ_OP_READ, GFP_NOIO);
	bio->bi_iter.bi_sector = nm->data_start + sector;
	for (i = 0; i < nr; i++) {
		unsigned int len = min_t(u32, left, PAGE_SIZE);

		pages[i] = alloc_page(GFP_NOIO);
		if (!pages[i]) {
			bio_put(bio);
			goto fail;
		}
		__bio_add_page(bio, pages[i], len, 0);
		vec[i + 1].iov_base = page_address(pages[i]);
		vec[i + 1].iov_len = len;
		left -= len;
	}
	r = nm_rx_bio_wait(nm, bio);
	bio_put(bio);
	if (r) {
		nm_detach(nm, r);
		goto fail;
	}
	vec[0].iov_base = &a;
	vec[0].iov_len = sizeof(a);
	r = nm_send_vec(nm, NM_P_READ_REPLY, vec, nr + 1);
	goto out;
fail:
	a.status = cpu_to_be32(EIO);
	r = nm_send_ctrl(nm, NM_P_READ_REPLY, &a, sizeof(a));
out:
	if (pages)
		for (i = 0; i < nr; i++)
			if (pages[i])
				__free_page(pages[i]);
	kfree(pages);
	kfree(vec);
	return r;
}

/*
 * Read @bytes at @sector (a target sector) of the local device into
 * @pages, synchronously: the resync source's and verify's region reads.
 * Process context, may sleep.
 */
int nm_read_local(struct nm_dev *nm, struct page **pages, sector_t sector,
		  u32 bytes)
{
	unsigned int i, nr = DIV_ROUND_UP(bytes, PAGE_SIZE);
	struct bio *bio;
	u32 left = bytes;
	int r;

	might_sleep();
	bio = bio_alloc(nm->dev->bdev, nr, REQ_OP_READ, GFP_NOIO);
	bio->bi_iter.bi_sector = nm->data_start + sector;
	for (i = 0; i < nr; i++) {
		unsigned int len = min_t(u32, left, PAGE_SIZE);

		__bio_add_page(bio, pages[i], len, 0);
		left -= len;
	}
	r = nm_rx_bio_wait(nm, bio);
	bio_put(bio);
	return r;
}
