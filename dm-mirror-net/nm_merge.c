// SPDX-License-Identifier: GPL-2.0
/*
 * netmirror primary: adjacent writes submitted under one plug become one
 * write (module parameter merge_writes, default on).
 *
 * Linux 6.1 writes a block device's page cache back one 4 KiB bio per page
 * (blkdev_writepages -> block_write_full_page) under a blk_plug.  A
 * request-based device merges them in its queue; a dm target is bio-based
 * and would send each as its own P_DATA and wait for each ack.  So map()
 * holds a plain write that continues the previous write of the same plug
 * on the submitter's plug (blk_check_plugged, as md/raid1 does) while the
 * device is a connected primary (the first write goes at once: a lone
 * O_DIRECT write, plugged by blkdev_write_iter, is never held); the held
 * writes form one run: each starts where the previous ends, all with the same
 * flags, at most NM_MAX_DATA bytes and BIO_MAX_VECS pages.  A write that
 * does not continue the run, or any other write to the device, first
 * starts the run; so does the unplug.  A run of two or more becomes one
 * bio (struct nm_merged, from nm->merge_bs) that carries their pages and
 * goes through nm_map_write like any write: one P_DATA, one ack, one
 * entry in every list a write can wait on; its end ends every original
 * write with its status (nm_merged_endio).  A run of one, or a run whose
 * merged bio cannot be allocated at once, goes write by write, as without
 * merging: memory never fails a write.
 *
 * Contexts: nm_merge_map from map (the submitter, under submit_bio);
 * nm_unplug from blk_finish_plug (process context, may sleep) or from
 * schedule() (task state set: must not sleep, so the run is handed to
 * nm->wq, as raid1_unplug does; likewise under submit_bio, where bios
 * submitted now would wait until we return); nm_merged_endio from any
 * context.  No lock is held here: the plug is the task's own.
 */
#include <linux/blkdev.h>
#include <linux/blk-crypto.h>
#include <linux/slab.h>
#include <linux/workqueue.h>
#include "dm-netmirror.h"

/*
 * The writes to one device held on one plug: one run, in order; and where
 * the last plain write issued or held on this plug ends.
 */
struct nm_plug {
	struct blk_plug_cb cb;		/* cb.data: the struct nm_dev */
	struct work_struct work;	/* unplugged from schedule(): nm->wq */
	struct bio_list bios;		/* each starts where the previous ends */
	unsigned int bytes;
	unsigned int vecs;		/* single-page segments */
	bool seen;			/* @next and @opf are set */
	sector_t next;			/* end of the last write */
	blk_opf_t opf;			/* its flags */
};

static void nm_unplug(struct blk_plug_cb *cb, bool from_schedule);

/* A plain data write: no flush, FUA, polling, nowait, integrity or crypt. */
static bool nm_merge_candidate(struct bio *bio)
{
	return bio_op(bio) == REQ_OP_WRITE &&
	       !(bio->bi_opf & (REQ_PREFLUSH | REQ_FUA | REQ_NOWAIT |
				REQ_POLLED)) &&
	       bio->bi_iter.bi_size && bio->bi_iter.bi_size < NM_MAX_DATA &&
	       !bio_integrity(bio) && !bio_has_crypt_ctx(bio);
}

static bool nm_same_blkg(struct bio *a, struct bio *b)
{
#ifdef CONFIG_BLK_CGROUP
	return a->bi_blkg == b->bi_blkg;
#else
	return true;
#endif
}

/* Does @bio (@vecs pages) continue the run held in @p (not empty)? */
static bool nm_run_takes(struct nm_plug *p, struct bio *bio,
			 unsigned int vecs)
{
	struct bio *first = p->bios.head;

	return bio->bi_iter.bi_sector == bio_end_sector(p->bios.tail) &&
	       bio->bi_opf == first->bi_opf &&
	       bio->bi_ioprio == first->bi_ioprio &&
	       nm_same_blkg(bio, first) &&
	       p->bytes + bio->bi_iter.bi_size <= NM_MAX_DATA &&
	       p->vecs + vecs <= BIO_MAX_VECS;
}

void nm_merged_endio(struct bio *bio)
{
	struct nm_merged *m = container_of(bio, struct nm_merged, bio);
	struct bio_list orig = m->orig;
	blk_status_t st = bio->bi_status;
	struct bio *o;

	/* freed first: once the last original ends, the device may go */
	bio_put(bio);
	while ((o = bio_list_pop(&orig))) {
		o->bi_status = st;
		bio_endio(o);
	}
}

/*
 * One bio with the pages of the writes of @run (@vecs pages in all), or
 * NULL.  It does not wait for memory: the writes can go one by one
 * instead, and a wait here could wait for the very writes the pool's
 * bios carry (parked behind a mark on nm->wq, where this may run).
 */
static struct bio *nm_merged_alloc(struct nm_dev *nm, struct bio_list *run,
				   unsigned int vecs)
{
	struct bio *first = bio_list_peek(run), *bio, *o;
	struct nm_merged *m;
	struct bvec_iter it;
	struct bio_vec bv;

	bio = bio_alloc_bioset(first->bi_bdev, vecs,
			       first->bi_opf & ~REQ_ALLOC_CACHE,
			       GFP_NOWAIT | __GFP_NOWARN, &nm->merge_bs);
	if (!bio)
		return NULL;
	bio_clone_blkg_association(bio, first);
	bio->bi_ioprio = first->bi_ioprio;
	bio->bi_iter.bi_sector = first->bi_iter.bi_sector;
	bio_list_for_each(o, run) {
		bio_for_each_segment(bv, o, it) {
			if (bio_add_page(bio, bv.bv_page, bv.bv_len,
					 bv.bv_offset) != bv.bv_len) {
				bio_put(bio);
				return NULL;
			}
		}
	}
	m = container_of(bio, struct nm_merged, bio);
	m->orig = *run;
	/* its latency counts from the map of its first write */
	m->req.t_map = nm_req_of(first)->t_map;
	bio->bi_end_io = nm_merged_endio;
	return bio;
}

/* Start one write the normal way; refused, it fails (as map's KILL). */
static void nm_write_one(struct nm_dev *nm, struct bio *bio)
{
	if (nm_map_write(nm, bio) == DM_MAPIO_KILL)
		bio_io_error(bio);
}

/*
 * Start the run held in @p (may be empty), merged when it has two writes
 * or more.  @p is emptied before any write starts and not touched after:
 * a write that sleeps unplugs from schedule(), and if @p is still on the
 * plug it is freed then.  Once the last write of a run from the
 * unplug is started the device may go away: nothing touches @nm after.
 */
static void nm_plug_flush(struct nm_dev *nm, struct nm_plug *p)
{
	struct bio_list run = p->bios;
	struct bio *bio = NULL;

	might_sleep();
	bio_list_init(&p->bios);
	if (run.head != run.tail)
		bio = nm_merged_alloc(nm, &run, p->vecs);
	p->bytes = 0;
	p->vecs = 0;
	if (bio) {
		nm_write_one(nm, bio);
		return;
	}
	while ((bio = bio_list_pop(&run)))
		nm_write_one(nm, bio);
}

static void nm_unplug_work(struct work_struct *work)
{
	struct nm_plug *p = container_of(work, struct nm_plug, work);

	nm_plug_flush(p->cb.data, p);
	kfree(p);
}

/* blk_finish_plug or schedule(): start the held run; frees @cb. */
static void nm_unplug(struct blk_plug_cb *cb, bool from_schedule)
{
	struct nm_plug *p = container_of(cb, struct nm_plug, cb);
	struct nm_dev *nm = cb->data;

	/*
	 * Empty: its run was started before another write (nm_merge_map).
	 * Nothing held it in flight since, so @nm may be gone: not touched.
	 */
	if (bio_list_empty(&p->bios)) {
		kfree(p);
		return;
	}
	if (from_schedule || current->bio_list) {
		INIT_WORK(&p->work, nm_unplug_work);
		queue_work(nm->wq, &p->work);
		return;
	}
	nm_plug_flush(nm, p);
	kfree(p);
}

/* The run held for @nm on @plug, or NULL (nothing allocated). */
static struct nm_plug *nm_plug_find(struct nm_dev *nm, struct blk_plug *plug)
{
	struct blk_plug_cb *cb;

	list_for_each_entry(cb, &plug->cb_list, list)
		if (cb->callback == nm_unplug && cb->data == nm)
			return container_of(cb, struct nm_plug, cb);
	return NULL;
}

/*
 * map() of a write, before nm_map_write: hold @bio on the submitter's plug
 * (true: taken, it ends with its run), or false: the caller starts it now;
 * then a run held before it is started first, so that writes leave in the
 * order they were submitted.
 */
bool nm_merge_map(struct nm_dev *nm, struct bio *bio)
{
	struct blk_plug *plug = current->plug;
	struct blk_plug_cb *cb;
	struct nm_plug *p;
	unsigned int vecs;

	if (!plug)
		return false;
	if (!READ_ONCE(nm_merge_writes) || !nm_merge_candidate(bio) ||
	    READ_ONCE(nm->role) != NM_ROLE_PRIMARY || !nm_link_up(nm)) {
		p = nm_plug_find(nm, plug);
		if (p)
			nm_plug_flush(nm, p);
		return false;
	}
	/* GFP_ATOMIC inside; none: no run is held (it would have been found) */
	cb = blk_check_plugged(nm_unplug, nm, sizeof(*p));
	if (!cb)
		return false;
	p = container_of(cb, struct nm_plug, cb);
	vecs = bio_segments(bio);
	if (!bio_list_empty(&p->bios) && !nm_run_takes(p, bio, vecs)) {
		nm_plug_flush(nm, p);
		/*
		 * A sleep in there unplugs from schedule(): @p, still on the
		 * plug and empty, may have been freed.
		 */
		cb = blk_check_plugged(nm_unplug, nm, sizeof(*p));
		if (!cb)
			return false;
		p = container_of(cb, struct nm_plug, cb);
	}
	/*
	 * Only a write that continues the previous one is held: the first
	 * (or only) write of a plug goes at once, so that a lone write
	 * (O_DIRECT: blkdev_write_iter plugs every write) is not left for
	 * the unplug from schedule() and a trip through nm->wq.
	 */
	if (bio_list_empty(&p->bios) &&
	    (!p->seen || bio->bi_iter.bi_sector != p->next ||
	     bio->bi_opf != p->opf)) {
		p->seen = true;
		p->next = bio_end_sector(bio);
		p->opf = bio->bi_opf;
		return false;
	}
	p->next = bio_end_sector(bio);
	bio_list_add(&p->bios, bio);
	p->bytes += bio->bi_iter.bi_size;
	p->vecs += vecs;
	return true;
}
