// SPDX-License-Identifier: GPL-2.0
/*
 * netmirror primary: the life of a request.  map() starts a write here
 * (nm_map_write): it may park behind a region in resync (rs_wait) or behind
 * a metadata mark (mark_wait, nm_mark_work); it is cloned to the local disk
 * and queued on send_q; the sender thread transmits it (nm_send_one, with a
 * P_BARRIER in front when a new epoch starts); the receiver matches the
 * protocol's ack (nm_handle_ack); the bio ends when the local and the peer
 * part are both done (nm_req_put -> nm_req_complete).  A peer part that is
 * given up marks its regions out of sync.  Reads: nm_read.c.
 *
 * Fencing ("fencing freeze"): when a primary loses its link (not by its
 * own disconnect or suspend), __nm_freeze() makes it hold, instead of
 * completing, every write the peer had not confirmed (frozen_done) and
 * every new write (frozen_new), so that nothing is acknowledged that a
 * peer taking over would lack.  nm_thaw() releases them: "resume_io" (a
 * fence handler outdated or powered off the peer), or the link is back
 * (nm_thaw_work).  A suspend ends them instead (nm_frozen_presuspend):
 * requeued to dm under a noflush suspend (held again after the resume),
 * else failed with EIO; a demotion fails them too.
 *
 * Contexts: nm_map_write from map (sleeps only in nm_send_inline, in the
 * submitter's process context, on tx_mutex by trylock and the socket lock),
 * nm_mark_work (nm->wq) and the nm_sync thread; nm_local_endio,
 * nm_req_peer_done and nm_req_put from any context (bio completion
 * included); nm_send_one in the nm_send thread, nm_check_stuck in the
 * link's watchdog (nm->wq, nm_conn.c), nm_send_inline from map;
 * nm_handle_ack, nm_recv_read_reply and nm_neg_ack in the nm_conn thread.
 * Lock order: tx_mutex, then nm->lock.
 */
#include <linux/slab.h>
#include <linux/blkdev.h>
#include <linux/bitmap.h>
#include <linux/highmem.h>
#include <linux/mm.h>
#include <linux/crc32c.h>
#include <linux/lockdep.h>
#include <linux/sched/mm.h>
#include <net/sock.h>
#include "dm-netmirror.h"

void nm_mark_oos(struct nm_dev *nm, sector_t sector, unsigned int sectors)
{
	unsigned long first, last, flags;

	if (!nm_regions_range(&nm->rg, sector, sectors, &first, &last))
		return;
	spin_lock_irqsave(&nm->lock, flags);
	nm_regions_mark_oos(&nm->rg, first, last);
	spin_unlock_irqrestore(&nm->lock, flags);
}

/*
 * The status of a write that may not stay held while dm waits for the
 * suspend: a noflush suspend requeues it (it comes back after the resume),
 * any other fails it.  A flag test, safe under nm->lock in any context.
 */
static blk_status_t nm_suspend_status(struct nm_dev *nm)
{
	return dm_noflush_suspending(nm->ti) ? BLK_STS_DM_REQUEUE :
					       BLK_STS_IOERR;
}

static void nm_req_complete(struct nm_req *req)
{
	struct nm_dev *nm = req->nm;
	unsigned long flags, f, l;
	bool wake = false, hold, demote = false, peer_ok, park;

	if (test_bit(NM_REQ_READ, &req->flags)) {
		req->bio->bi_status = req->status;
		bio_endio(req->bio);
		return;
	}
	if (test_bit(NM_REQ_DATA, &req->flags))
		nm_regions(nm, req->bio, &f, &l);
	spin_lock_irqsave(&nm->lock, flags);
	if (req->epoch == nm->epoch)
		nm->epoch_completed = true;
	if (test_bit(NM_REQ_DATA, &req->flags)) {
		wake = nm_regions_write_end(&nm->rg, f, l);
		list_del(&req->active);
		if (!bio_list_empty(&nm->overlap_wait))
			queue_work(nm->wq, &nm->overlap_work);
		/* a demotion's P_STATE waited for the last one (nm_send_state) */
		demote = nm->send_state && nm->role == NM_ROLE_SECONDARY &&
			 list_empty(&nm->active);
	}
	req->bio->bi_status = req->status;
	/* fencing: not acknowledged until the peer is fenced or back */
	hold = nm->frozen && test_bit(NM_REQ_HAD_PEER, &req->flags) &&
	       !test_bit(NM_REQ_PEER_OK, &req->flags);
	if (hold && nm->suspending) {
		/* dm waits for it: ended as presuspend ended the held ones */
		hold = false;
		req->bio->bi_status = nm_suspend_status(nm);
	} else if (hold) {
		bio_list_add(&nm->frozen_done, req->bio);
	} else if (nm->thaw_fail && test_bit(NM_REQ_HAD_PEER, &req->flags) &&
		   !test_bit(NM_REQ_PEER_OK, &req->flags)) {
		/* in flight when a demotion failed the held ones: so is it */
		req->bio->bi_status = nm->thaw_fail;
	}
	/*
	 * A, B: its peer part ended at the send (A) or the peer's receipt
	 * (B), not on the peer's disk, while this node's disk failed it or
	 * is gone (detached since): no disk is known to hold it.  It waits
	 * for a stable point sent from now on (P_SYNC: the peer's disk has
	 * all it received), and fails if the link or a peer write fails
	 * first (nm_stable_release; fault-detachack).
	 */
	park = !hold && req->bio->bi_status == BLK_STS_OK &&
	       test_bit(NM_REQ_HAD_PEER, &req->flags) &&
	       test_bit(NM_REQ_PEER_OK, &req->flags) &&
	       !test_bit(NM_REQ_ACK_DISK, &req->flags) &&
	       nm->protocol != NM_PROTO_C &&
	       (test_bit(NM_REQ_LOCAL_FAILED, &req->flags) ||
		nm->disk == NM_DISK_DISKLESS);
	if (park && (req->conn_gen != nm->conn_gen ||
		     nm->cstate < NM_C_CONNECTED)) {
		/* its link is gone (nm_stable_release ran): nothing tells */
		park = false;
		req->bio->bi_status = BLK_STS_IOERR;
	} else if (park) {
		req->stable_need = nm->sync_cookie + 1;
		nm->stable_need = req->stable_need;
		bio_list_add(&nm->stable_wait, req->bio);
		/* now: once unlocked, a stable point may end it and nm go */
		nm_sync_kick(nm);
	}
	/*
	 * a held bio (and @req in it) may be ended by nm_thaw or
	 * nm_stable_release once unlocked
	 */
	peer_ok = test_bit(NM_REQ_PEER_OK, &req->flags) && !park;
	spin_unlock_irqrestore(&nm->lock, flags);
	if (peer_ok) {
		nm_lat_add(nm, NM_LAT_p_queue, req->t_map, req->t_sent);
		nm_lat_add(nm, NM_LAT_p_total, req->t_map, nm_clock_ns());
	}
	if (wake)
		nm_sync_kick(nm);
	if (demote)
		wake_up(&nm->send_wq);
	if (!hold && !park)
		bio_endio(req->bio);
}

/*
 * The writes on stable_wait (nm_req_complete) whose stable point came end:
 * at a P_SYNC_ACK of @cookie (nm_stable_done) those of a req->stable_need
 * up to it, with success if no peer write failed since theirs was sent and
 * the peer's disk is uptodate, else EIO; at a link loss (@cookie 0) all,
 * with EIO: no disk is known to hold them.  Any context.
 */
void nm_stable_release(struct nm_dev *nm, u64 cookie)
{
	struct bio_list done, keep;
	unsigned long flags;
	struct nm_req *req;
	struct bio *bio;
	bool failed = false;

	bio_list_init(&done);
	bio_list_init(&keep);
	spin_lock_irqsave(&nm->lock, flags);
	while ((bio = bio_list_pop(&nm->stable_wait))) {
		req = nm_req_of(bio);
		if (cookie && req->stable_need > cookie) {
			bio_list_add(&keep, bio);
			continue;
		}
		if (!cookie || req->peer_fails != nm->peer_fails ||
		    nm->peer_disk != NM_DISK_UPTODATE) {
			bio->bi_status = BLK_STS_IOERR;
			failed = true;
		}
		bio_list_add(&done, bio);
	}
	nm->stable_wait = keep;
	if (!cookie)
		nm->stable_need = 0;
	spin_unlock_irqrestore(&nm->lock, flags);
	if (failed)
		nm_err_limit(nm, "%s: writes no disk is known to hold fail",
			     cookie ? "a peer write failed" : "link lost");
	while ((bio = bio_list_pop(&done)))
		bio_endio(bio);
}

void nm_req_put(struct nm_req *req)
{
	if (atomic_dec_and_test(&req->ref))
		nm_req_complete(req);
}

/*
 * The peer part of @req is over: acknowledged per the protocol (@delivered)
 * or given up (link lost).  Safe from any context; only the first call
 * counts.
 */
void nm_req_peer_done(struct nm_req *req, bool delivered)
{
	struct nm_dev *nm = req->nm;
	unsigned long flags;

	/* under nm->lock: ordered against nm_local_endio's look at it */
	spin_lock_irqsave(&nm->lock, flags);
	if (!test_and_clear_bit(NM_REQ_PEER, &req->flags)) {
		spin_unlock_irqrestore(&nm->lock, flags);
		return;
	}
	if (delivered)
		set_bit(NM_REQ_PEER_OK, &req->flags);
	else if (test_bit(NM_REQ_READ, &req->flags) ||
		 test_bit(NM_REQ_LOCAL_FAILED, &req->flags) ||
		 test_bit(NM_REQ_NO_LOCAL, &req->flags) ||
		 test_bit(NM_REQ_LOCAL_STALE, &req->flags) ||
		 test_bit(NM_REQ_ACK_DISK, &req->flags))
		req->status = BLK_STS_IOERR;	/* no good copy anywhere */
	spin_unlock_irqrestore(&nm->lock, flags);

	if (test_bit(NM_REQ_READ, &req->flags)) {
		nm_req_put(req);
		return;
	}
	if (delivered)
		nm_lat_add(nm, NM_LAT_p_peer, req->t_sent, nm_clock_ns());
	else
		nm_mark_oos(nm, req->bio->bi_iter.bi_sector,
			    bio_sectors(req->bio));
	atomic_dec(&nm->pending);
	nm_req_put(req);
}

static void nm_local_endio(struct bio *clone)
{
	struct nm_req *req = clone->bi_private;
	struct nm_dev *nm = req->nm;

	/*
	 * A discard or write-zeroes the disk refuses (its support changed
	 * under the table; a SCSI WRITE SAME refused is BLK_STS_TARGET) is no
	 * disk failure: the caller gets the error, the regions go out of
	 * sync below (the peer may have applied it).
	 */
	if ((clone->bi_status == BLK_STS_NOTSUPP ||
	     clone->bi_status == BLK_STS_TARGET) && nm_bio_zero(req->bio)) {
		req->status = clone->bi_status;
		nm_mark_oos(nm, req->bio->bi_iter.bi_sector,
			    bio_sectors(req->bio));
	} else if (clone->bi_status) {
		bool detached = nm_detach(nm,
					  blk_status_to_errno(clone->bi_status));
		unsigned long flags;

		spin_lock_irqsave(&nm->lock, flags);
		if (detached && test_bit(NM_REQ_HAD_PEER, &req->flags)) {
			/*
			 * detached: the peer's copy, if it gets one, stands;
			 * not on a disk that is not uptodate itself (a resync
			 * target): no copy to keep has it (fault-nogood)
			 */
			set_bit(NM_REQ_LOCAL_FAILED, &req->flags);
			if ((!test_bit(NM_REQ_PEER, &req->flags) &&
			     !test_bit(NM_REQ_PEER_OK, &req->flags)) ||
			    nm->peer_disk != NM_DISK_UPTODATE)
				req->status = clone->bi_status;
		} else {
			req->status = clone->bi_status;
		}
		spin_unlock_irqrestore(&nm->lock, flags);
		/* the copies may differ now: ours is the one to keep */
		if (!test_bit(NM_REQ_LOCAL_FAILED, &req->flags))
			nm_mark_oos(nm, req->bio->bi_iter.bi_sector,
				    bio_sectors(req->bio));
		if (!detached && (req->bio->bi_opf & REQ_PREFLUSH))
			nm_local_flush_failed(nm);
	}
	bio_put(clone);
	nm_req_put(req);
}

/*
 * Under nm->lock: does [sector, +sectors) overlap a write in flight here?
 * Only regions with writes in flight can hold one, so the list of active
 * writes is searched only then.
 */
static bool nm_overlaps_active(struct nm_dev *nm, struct bio *bio,
			       unsigned long f, unsigned long l)
{
	sector_t s = bio->bi_iter.bi_sector, e = bio_end_sector(bio);
	struct nm_req *req;
	unsigned long r;

	lockdep_assert_held(&nm->lock);
	for (r = f; r <= l && !nm->rg.inflight[r]; r++)
		;
	if (r > l)
		return false;
	list_for_each_entry(req, &nm->active, active)
		if (s < bio_end_sector(req->bio) &&
		    req->bio->bi_iter.bi_sector < e)
			return true;
	return false;
}

/*
 * Under nm->lock: may the write start, or must it wait: behind a region in
 * resync, behind a metadata mark, or behind an overlapping write still in
 * flight (the local disk would apply the two in any order, the peer in
 * the order they are sent: the later one waits, as in DRBD).
 */
static struct bio_list *nm_write_wait_list(struct nm_dev *nm, struct bio *bio,
					   unsigned long f, unsigned long l)
{
	unsigned long r;

	lockdep_assert_held(&nm->lock);
	if (nm_regions_any(&nm->rg, nm->rg.rs_busy, f, l) ||
	    nm_regions_any(&nm->rg, nm->rg.rs_writing, f, l) ||
	    (nm->rs_holding &&
	     nm_regions_any(&nm->rg, nm->rg.rs_hold, f, l)))
		return &nm->rs_wait;
	/* a mark describes the local disk: a diskless node writes none */
	if (nm->meta && nm->disk != NM_DISK_DISKLESS)
		for (r = f; r <= l; r++)
			if (!nm_meta_test(nm->meta, r))
				return &nm->mark_wait;
	if (nm_overlaps_active(nm, bio, f, l))
		return &nm->overlap_wait;
	return NULL;
}

/*
 * Commit the metadata and, if that put the newest generation on it, let
 * the writes that waited for it (gen_wait) go; on an error they fail.  No
 * write that depends on a new generation completes before it is durable:
 * nm_map_write parks them while gen_unsaved.  "Newest" is gen_seq: a
 * generation begun while this commit was writing (the link lost during a
 * promotion's save) may not be in what it wrote, so only a commit that
 * began after the last one clears gen_unsaved; the later one's own save
 * (nm_teardown, nm_gen_work) follows and lets the writes go.  Process
 * context.
 */
int nm_gen_save(struct nm_dev *nm)
{
	struct bio_list list;
	unsigned long fl;
	struct bio *bio;
	u32 seq;
	int err = 0;

	might_sleep();
	if (!nm->meta)
		return 0;
	spin_lock_irqsave(&nm->lock, fl);
	seq = nm->gen_seq;
	/* "saved" means on the metadata: whatever set nm->gen, commit it */
	nm_meta_set_gens(nm->meta, &nm->gen);
	spin_unlock_irqrestore(&nm->lock, fl);
	err = nm_meta_commit(nm->meta);
	spin_lock_irqsave(&nm->lock, fl);
	if (!err && seq == nm->gen_seq)
		nm->gen_unsaved = false;
	list = nm->gen_wait;
	bio_list_init(&nm->gen_wait);
	spin_unlock_irqrestore(&nm->lock, fl);
	if (err)
		nm_err(nm, "cannot record a new data generation or the promotion (%d): failing the writes that wait for it",
		       err);
	while ((bio = bio_list_pop(&list)))
		if (err || nm_map_write(nm, bio) == DM_MAPIO_KILL)
			bio_io_error(bio);
	return err;
}

/*
 * A new generation for the first lone write, or a promotion's
 * NM_MF_PRIMARY, on the metadata (nm->wq).  A generation only for writes
 * that wait: queued by a promotion on a live link that went down since,
 * with no write, the generation stays (a planned switch-over connects);
 * a write mapped later asks for one itself.
 */
void nm_gen_work(struct work_struct *work)
{
	struct nm_dev *nm = container_of(work, struct nm_dev, gen_work);
	unsigned long fl;

	spin_lock_irqsave(&nm->lock, fl);
	if (nm->cstate < NM_C_CONNECTED && !bio_list_empty(&nm->gen_wait))
		__nm_gen_new(nm, nm->pri_at_split);
	spin_unlock_irqrestore(&nm->lock, fl);
	nm_gen_save(nm);
}

/*
 * The link is lost while primary with "fencing freeze": hold writes from
 * now on (see the top of this file).  Caller holds nm->lock.
 */
void __nm_freeze(struct nm_dev *nm)
{
	lockdep_assert_held(&nm->lock);
	if (!nm->fencing || nm->role != NM_ROLE_PRIMARY || nm->frozen)
		return;
	nm->frozen = true;
	nm->thaw_fail = 0;
	nm_warn(nm, "fencing: link lost, writes are held until the peer is fenced (resume_io) or back");
}

/*
 * Release the held writes.  @st: 0 = the peer is fenced or back: unfreeze,
 * complete the held ones, start the new ones; else end them all with @st
 * and stay frozen (suspend: BLK_STS_DM_REQUEUE or BLK_STS_IOERR) or
 * unfreeze (demotion: BLK_STS_IOERR; the writes still in flight then,
 * whose peer part is not confirmed, end with it too: thaw_fail).  Process
 * context.
 */
void nm_thaw(struct nm_dev *nm, blk_status_t st)
{
	struct bio_list done, new;
	unsigned long fl;
	unsigned int n = 0;
	struct bio *bio;

	might_sleep();
	spin_lock_irqsave(&nm->lock, fl);
	if (!nm->frozen) {
		spin_unlock_irqrestore(&nm->lock, fl);
		return;
	}
	if (!nm->suspending) {
		nm->frozen = false;
		nm->thaw_fail = st;
	}
	done = nm->frozen_done;
	new = nm->frozen_new;
	bio_list_init(&nm->frozen_done);
	bio_list_init(&nm->frozen_new);
	spin_unlock_irqrestore(&nm->lock, fl);
	while ((bio = bio_list_pop(&done))) {
		if (st)
			bio->bi_status = st;
		bio_endio(bio);
		n++;
	}
	while ((bio = bio_list_pop(&new))) {
		n++;
		if (st) {
			bio->bi_status = st;
			bio_endio(bio);
		} else if (nm_map_write(nm, bio) == DM_MAPIO_KILL) {
			bio_io_error(bio);
		}
	}
	nm_info(nm, "fencing: %u held writes %s", n,
		!st ? "released" : st == BLK_STS_DM_REQUEUE ?
		"requeued (noflush suspend)" : "failed");
	dm_table_event(nm->ti->table);
}

/* The link is back (nm->wq): the peer resyncs, release what was held. */
void nm_thaw_work(struct work_struct *work)
{
	struct nm_dev *nm = container_of(work, struct nm_dev, thaw_work);

	if (READ_ONCE(nm->cstate) >= NM_C_CONNECTED)
		nm_thaw(nm, 0);
}

/*
 * presuspend: dm waits for every bio, so none may stay held: a noflush
 * suspend requeues them (they come back after the resume, and are held
 * again if still frozen), any other fails them.
 */
void nm_frozen_presuspend(struct nm_dev *nm)
{
	unsigned long fl;

	spin_lock_irqsave(&nm->lock, fl);
	nm->suspending = true;
	spin_unlock_irqrestore(&nm->lock, fl);
	nm_thaw(nm, nm_suspend_status(nm));
}

/* Reissue the writes that waited behind an overlapping one (nm->wq). */
void nm_overlap_work(struct work_struct *work)
{
	struct nm_dev *nm = container_of(work, struct nm_dev, overlap_work);
	struct bio_list list;
	unsigned long fl;
	struct bio *bio;

	spin_lock_irqsave(&nm->lock, fl);
	list = nm->overlap_wait;
	bio_list_init(&nm->overlap_wait);
	spin_unlock_irqrestore(&nm->lock, fl);
	while ((bio = bio_list_pop(&list)))
		if (nm_map_write(nm, bio) == DM_MAPIO_KILL)
			bio_io_error(bio);
}

/*
 * Does a discard reach past whole units of the local disk's discard
 * granularity?  Those edges are zeroed (nm_zero_range), from nm_zero_work.
 */
static bool nm_discard_edges(struct nm_dev *nm, struct bio *bio)
{
	sector_t s = nm->data_start + bio->bi_iter.bi_sector;
	sector_t e = s + bio_sectors(bio), first, end;

	return !nm_discard_whole(nm->dev->bdev, s, e, &first, &end) ||
	       first != s || end != e;
}

/*
 * Start a write on the primary, or park it: behind a region in resync
 * (rs_wait, reissued by the sync thread) or behind a metadata mark
 * (mark_wait, reissued by nm_mark_work).  Also called from those two.
 * Returns DM_MAPIO_SUBMITTED or DM_MAPIO_KILL (caller ends the bio).
 */
int nm_map_write(struct nm_dev *nm, struct bio *bio)
{
	struct nm_req *req = nm_req_of(bio);
	bool data = bio_sectors(bio) != 0;
	struct bio_list *park;
	unsigned long flags, f = 0, l = 0;
	struct bio *clone;
	bool queued = false, local, gen_new;

	req->nm = nm;
	req->bio = bio;
	req->flags = 0;
	req->status = BLK_STS_OK;
	req->t_sent = 0;
	INIT_LIST_HEAD(&req->list);
	atomic_set(&req->ref, 1);	/* dropped by the local clone */
	if (data)
		nm_regions(nm, bio, &f, &l);

	spin_lock_irqsave(&nm->lock, flags);
	if (nm->role != NM_ROLE_PRIMARY) {
		spin_unlock_irqrestore(&nm->lock, flags);
		atomic64_inc(&nm->writes_rejected);
		return DM_MAPIO_KILL;
	}
	if (nm->frozen) {
		if (nm->suspending) {	/* dm waits for us: no holding now */
			spin_unlock_irqrestore(&nm->lock, flags);
			bio->bi_status = nm_suspend_status(nm);
			bio_endio(bio);
			return DM_MAPIO_SUBMITTED;
		}
		bio_list_add(&nm->frozen_new, bio);
		spin_unlock_irqrestore(&nm->lock, flags);
		return DM_MAPIO_SUBMITTED;
	}
	park = data ? nm_write_wait_list(nm, bio, f, l) : NULL;
	if (park) {
		bio_list_add(park, bio);
		spin_unlock_irqrestore(&nm->lock, flags);
		if (park == &nm->mark_wait)
			queue_work(nm->wq, &nm->mark_work);
		return DM_MAPIO_SUBMITTED;
	}
	/*
	 * Without the peer only an uptodate disk takes writes: an
	 * inconsistent one (being resynced from the peer) is no copy of the
	 * data to keep.  A write kept there would be overwritten by the
	 * resync when the peer is back, or, as the start of a new generation,
	 * make this disk look newer than the peer's good data.
	 */
	if (nm->disk != NM_DISK_UPTODATE && nm->cstate < NM_C_CONNECTED) {
		spin_unlock_irqrestore(&nm->lock, flags);
		nm_err_limit(nm, "write refused: the disk is %s and the peer is not connected",
			     nm_disk_name(nm->disk));
		return DM_MAPIO_KILL;	/* no good copy and no peer */
	}
	/*
	 * Nor with a peer whose disk is not uptodate either (a diskless
	 * primary whose resync source it was, or whose peer is outdated): no
	 * node holds the data to keep, and nothing would record the write
	 * (a diskless node marks nothing).  As reads (nm_read_from_peer) and
	 * DRBD's "no access to good data": EIO (fault-nogood).
	 */
	if (nm->disk != NM_DISK_UPTODATE &&
	    nm->peer_disk != NM_DISK_UPTODATE) {
		spin_unlock_irqrestore(&nm->lock, flags);
		nm_err_limit(nm, "write refused: no uptodate disk (this node %s, the peer %s)",
			     nm_disk_name(nm->disk),
			     nm_disk_name(nm->peer_disk));
		return DM_MAPIO_KILL;
	}
	/*
	 * The first write the peer will not get starts a new generation,
	 * durable before this or any later write starts (gen_unsaved: one
	 * begun at a link loss or a promotion and not yet on the metadata,
	 * or a promotion's NM_MF_PRIMARY).
	 */
	gen_new = data && nm->cstate < NM_C_CONNECTED && !nm->gen_fresh;
	if (data && nm->meta && (nm->gen_unsaved || gen_new)) {
		bio_list_add(&nm->gen_wait, bio);
		spin_unlock_irqrestore(&nm->lock, flags);
		queue_work(nm->wq, &nm->gen_work);
		return DM_MAPIO_SUBMITTED;
	}
	if (gen_new)
		__nm_gen_new(nm, nm->pri_at_split);
	local = nm->disk != NM_DISK_DISKLESS;
	/* its peer part is the one that counts (nm_req_peer_done) */
	if (!local)
		set_bit(NM_REQ_NO_LOCAL, &req->flags);
	else if (nm->disk != NM_DISK_UPTODATE)
		set_bit(NM_REQ_LOCAL_STALE, &req->flags);
	if (data) {
		set_bit(NM_REQ_DATA, &req->flags);
		nm_regions_write_start(&nm->rg, f, l,
				       nm->disk == NM_DISK_INCONSISTENT);
		list_add_tail(&req->active, &nm->active);
	}
	/*
	 * An empty flush under C covers the writes completed before it, each
	 * acknowledged by the peer once on its disk; if every such ack said
	 * NM_AF_STABLE since the last peer flush, the peer has nothing to
	 * flush: the local flush alone completes it, with no round trip.
	 */
	if (!data && (bio->bi_opf & REQ_PREFLUSH) &&
	    nm->protocol == NM_PROTO_C && local &&
	    nm->cstate >= NM_C_CONNECTED &&
	    nm->peer_flushed == nm->peer_unstable) {
		req->epoch = nm->epoch;
		spin_unlock_irqrestore(&nm->lock, flags);
		atomic64_inc(&nm->flushes_local);
		goto submit;
	}
	if (nm->epoch_completed) {
		nm->epoch++;
		nm->epoch_completed = false;
	}
	req->epoch = nm->epoch;
	req->flush_covers = nm->peer_unstable;
	if (nm->cstate >= NM_C_CONNECTED) {
		req->id = nm->next_id++;
		set_bit(NM_REQ_PEER, &req->flags);
		set_bit(NM_REQ_HAD_PEER, &req->flags);
		set_bit(NM_REQ_QUEUED, &req->flags);
		atomic_inc(&req->ref);
		atomic_inc(&nm->pending);
		list_add_tail(&req->list, &nm->send_q);
		queued = true;
	} else if (data) {
		nm_regions_mark_oos(&nm->rg, f, l);
	}
	spin_unlock_irqrestore(&nm->lock, flags);

	atomic64_add(nm_bio_data_bytes(bio), &nm->app_bytes);
submit:
	if (!local) {
		nm_conn_kick(nm);
		nm_req_put(req);	/* the local part that is not there */
		return DM_MAPIO_SUBMITTED;
	}
	if (bio_op(bio) == REQ_OP_DISCARD && nm_discard_edges(nm, bio)) {
		/* sent first: the local part's reference holds req until */
		if (queued && !nm_send_inline(nm, req))
			nm_conn_kick(nm);
		spin_lock_irqsave(&nm->lock, flags);
		bio_list_add(&nm->zero_bios, bio);
		spin_unlock_irqrestore(&nm->lock, flags);
		queue_work(nm->wq, &nm->zero_work);
		return DM_MAPIO_SUBMITTED;
	}
	clone = bio_alloc_clone(nm->dev->bdev, bio, GFP_NOIO, &nm->bs);
	if (!clone) {
		req->status = BLK_STS_RESOURCE;
		if (queued)
			nm_conn_kick(nm);
		nm_req_put(req);
		return DM_MAPIO_SUBMITTED;
	}
	clone->bi_iter.bi_sector += nm->data_start;
	clone->bi_end_io = nm_local_endio;
	clone->bi_private = req;
	if (queued && !nm_send_inline(nm, req))
		nm_conn_kick(nm);
	submit_bio_noacct(clone);
	return DM_MAPIO_SUBMITTED;
}

/*
 * nm->wq: the local part of the discards that nm_discard_edges() sent
 * here, as nm_zero_range() makes it: edges zeroed, the rest discarded.
 * Here, not in map: zeroing the edges may take many bios, allocated
 * outside dm's submission.  The last bio of each chain ends its local
 * part (nm_local_endio).
 */
void nm_zero_work(struct work_struct *work)
{
	struct nm_dev *nm = container_of(work, struct nm_dev, zero_work);
	struct bio_list list;
	unsigned long flags;
	struct bio *bio, *last;
	struct nm_req *req;
	int r;

	spin_lock_irqsave(&nm->lock, flags);
	list = nm->zero_bios;
	bio_list_init(&nm->zero_bios);
	spin_unlock_irqrestore(&nm->lock, flags);
	while ((bio = bio_list_pop(&list))) {
		req = nm_req_of(bio);
		r = nm_zero_range(nm, bio->bi_iter.bi_sector, bio_sectors(bio),
				  NM_DF_DISCARD, &last);
		if (!last) {
			req->status = errno_to_blk_status(r ? r : -EIO);
			nm_mark_oos(nm, bio->bi_iter.bi_sector,
				    bio_sectors(bio));
			nm_req_put(req);
			continue;
		}
		last->bi_end_io = nm_local_endio;
		last->bi_private = req;
		submit_bio(last);
	}
}

/* Metadata worker: mark the regions of deferred writes, commit, reissue. */
void nm_mark_work(struct work_struct *work)
{
	struct nm_dev *nm = container_of(work, struct nm_dev, mark_work);
	struct bio_list list;
	unsigned long fl, first, last, r;
	struct bio *bio;
	bool failed;
	int err;

	spin_lock_irqsave(&nm->lock, fl);
	list = nm->mark_wait;
	bio_list_init(&nm->mark_wait);
	spin_unlock_irqrestore(&nm->lock, fl);

	bio_list_for_each(bio, &list) {
		nm_regions(nm, bio, &first, &last);
		for (r = first; r <= last; r++)
			nm_meta_set(nm->meta, r);
	}
	err = nm_meta_commit(nm->meta);
	/*
	 * The metadata device failed: a local disk error (on_io_error), as a
	 * meta-data I/O error is in DRBD.  Detached, the writes go on to the
	 * peer without a mark; under pass_on they fail, and the next write
	 * retries the mark.  (A failed data flush before a clear no longer
	 * fails the commit: nm_meta_flush_failed takes it.)
	 */
	failed = err && !nm_detach(nm, err);
	while ((bio = bio_list_pop(&list))) {
		if (failed || nm_map_write(nm, bio) == DM_MAPIO_KILL)
			bio_io_error(bio);
	}
}

void nm_resubmit_waiting(struct nm_dev *nm)
{
	struct bio_list list;
	unsigned long fl;
	struct bio *bio;

	spin_lock_irqsave(&nm->lock, fl);
	list = nm->rs_wait;
	bio_list_init(&nm->rs_wait);
	spin_unlock_irqrestore(&nm->lock, fl);
	while ((bio = bio_list_pop(&list)))
		if (nm_map_write(nm, bio) == DM_MAPIO_KILL)
			bio_io_error(bio);
}

#define NM_TX_BATCH	16

/* room in the socket beyond the payload for headers, trailer, a barrier */
#define NM_INLINE_SLACK	256

/* Copy @nb segments (@blen bytes) into the socket; none is a no-op. */
static int nm_tx_batch(struct nm_dev *nm, struct bio_vec *batch,
		       unsigned int nb, size_t blen, bool more)
{
	struct msghdr msg = {
		.msg_flags = MSG_NOSIGNAL | (more ? MSG_MORE : 0),
	};

	if (!nb)
		return 0;
	iov_iter_bvec(&msg.msg_iter, WRITE, batch, nb, blen);
	return nm_xmit(nm->sock, &msg);
}

/* A P_DATA-shaped packet's header and fixed part (P_DATA, P_ZERO, P_READ_REQ). */
struct nm_data_pkt {
	struct nm_hdr h;
	struct nm_p_data d;
} __packed;

/*
 * Fill @pkt for @req: @type, @payload bytes following, the bio's range,
 * @fl and @epoch.  Takes the next sequence number: caller holds tx_mutex
 * and sends the packet.
 */
static void nm_data_pkt_fill(struct nm_dev *nm, struct nm_data_pkt *pkt,
			     u16 type, struct nm_req *req, u32 payload, u32 fl,
			     u32 epoch)
{
	lockdep_assert_held(&nm->tx_mutex);
	nm_hdr_fill(&pkt->h, type, sizeof(pkt->d) + payload, nm->tx_seq++);
	pkt->d.id = nm_be64(req->id);
	pkt->d.sector = nm_be64(req->bio->bi_iter.bi_sector);
	pkt->d.size = nm_be32(req->bio->bi_iter.bi_size);
	pkt->d.flags = nm_be32(fl);
	pkt->d.epoch = nm_be32(epoch);
	pkt->d.reserved = 0;
}

/*
 * Under tx_mutex: the NM_DF_ACK_DISK flag for @req.  A write mapped while
 * this disk was not uptodate (NM_REQ_LOCAL_STALE) has no good copy here:
 * its disk is being resynced from the peer; one mapped while this node was
 * diskless (NM_REQ_NO_LOCAL, 1.17.2) has no copy here at all, nor has one
 * whose local part failed (NM_REQ_LOCAL_FAILED) or sent once the disk is
 * gone (detached since its map; 1.18.15).  Under A and B too it then
 * completes only once it is on the peer's disk (P_WRITE_ACK),
 * so that a link lost meanwhile, or this node's crash, or the peer's, fails
 * it (nm_req_peer_done) instead of losing it.  A peer older than
 * NM_PROTO_ACK_DISK cannot be asked: the write then waits for a stable
 * point once done (nm_req_complete, stable_wait).  Under C (version 11)
 * the flag changes no ack and tells the peer that its copy is the only
 * one: a peer disk that fails the write stays as it is
 * (__nm_peer_write_failed); NM_REQ_ACK_DISK changes nothing here under C.
 */
static u32 nm_ack_disk_flag(struct nm_dev *nm, struct nm_req *req)
{
	lockdep_assert_held(&nm->tx_mutex);
	if ((nm->protocol == NM_PROTO_C &&
	     nm->peer_proto < NM_PROTO_SRC_FLAG) ||
	    nm->peer_proto < NM_PROTO_ACK_DISK ||
	    (!test_bit(NM_REQ_LOCAL_STALE, &req->flags) &&
	     !test_bit(NM_REQ_NO_LOCAL, &req->flags) &&
	     !test_bit(NM_REQ_LOCAL_FAILED, &req->flags) &&
	     READ_ONCE(nm->disk) != NM_DISK_DISKLESS))
		return 0;
	set_bit(NM_REQ_ACK_DISK, &req->flags);
	return NM_DF_ACK_DISK;
}

/*
 * A discard or write-zeroes: one P_ZERO, the range and no data.  Its
 * REQ_FUA is not carried (no 6.1 issuer sets one on these); the next
 * stable point covers it.  Caller holds tx_mutex.
 */
static int nm_send_zero(struct nm_dev *nm, struct nm_req *req)
{
	struct bio *bio = req->bio;
	struct nm_data_pkt pkt;
	struct kvec vec = { .iov_base = &pkt, .iov_len = sizeof(pkt) };
	u32 fl = 0;
	int r;

	lockdep_assert_held(&nm->tx_mutex);

	if (bio_op(bio) == REQ_OP_DISCARD)
		fl |= NM_DF_DISCARD;
	else if (bio->bi_opf & REQ_NOUNMAP)
		fl |= NM_DF_NOUNMAP;
	fl |= nm_ack_disk_flag(nm, req);
	nm_data_pkt_fill(nm, &pkt, NM_P_ZERO, req, 0, fl, req->epoch);
	r = nm_send_kvec(nm, &vec, 1, sizeof(pkt), false);
	if (!r)
		r = nm_send_trailer(nm);
	if (r)
		return r;
	atomic64_add(sizeof(pkt), &nm->bytes_sent);
	atomic64_inc(&nm->writes_sent);
	nm->last_tx = jiffies;
	return 0;
}

/*
 * The payload of a write whose packets are summed (integrity crc32c, the
 * secret's HMAC): copied into tx_bounce, and summed and sent from there,
 * so that the sum covers exactly the bytes that leave even if the bio's
 * pages change meanwhile (an O_DIRECT buffer reused before its write
 * ended, a page modified under writeback; what each disk gets of such a
 * write is then undefined, as with md raid1, but it is no corrupted
 * packet: review F18, tests/vm/guest/fault-flipwrite.sh).  A trailer
 * follows: every part goes with MSG_MORE (nm_send_kvec).
 */
static int nm_send_summed(struct nm_dev *nm, struct bio *bio)
{
	struct kvec vec = { .iov_base = nm->tx_bounce };
	struct bvec_iter iter;
	struct bio_vec bv;
	int r;

	lockdep_assert_held(&nm->tx_mutex);
	if (WARN_ON_ONCE(!nm->tx_bounce))	/* ctr allocates it for these */
		return -ENOMEM;
	bio_for_each_segment(bv, bio, iter) {
		if (vec.iov_len + bv.bv_len > NM_TX_BOUNCE) {
			r = nm_send_kvec(nm, &vec, 1, vec.iov_len, true);
			if (r)
				return r;
			vec.iov_len = 0;
		}
		memcpy_from_bvec(nm->tx_bounce + vec.iov_len, &bv);
		vec.iov_len += bv.bv_len;
	}
	return vec.iov_len ? nm_send_kvec(nm, &vec, 1, vec.iov_len, true) : 0;
}

/* Send one write: header, then the bio's pages, MSG_MORE on all but last. */
static int nm_send_data(struct nm_dev *nm, struct nm_req *req)
{
	struct bio *bio = req->bio;
	struct nm_data_pkt pkt;
	struct kvec vec = { .iov_base = &pkt, .iov_len = sizeof(pkt) };
	struct bio_vec bv, batch[NM_TX_BATCH];
	struct bvec_iter iter;
	u32 size = bio->bi_iter.bi_size, fl = 0;
	bool zc = nm->protocol != NM_PROTO_A;
	unsigned int nb = 0;
	size_t blen = 0;
	int r;

	lockdep_assert_held(&nm->tx_mutex);

	if (bio->bi_opf & REQ_FUA)
		fl |= NM_DF_FUA;
	if (bio->bi_opf & REQ_PREFLUSH)
		fl |= NM_DF_FLUSH;
	fl |= nm_ack_disk_flag(nm, req);
	nm_data_pkt_fill(nm, &pkt, NM_P_DATA, req, size, fl, req->epoch);
	r = nm_send_kvec(nm, &vec, 1, sizeof(pkt), size != 0);
	if (r)
		return r;
	if (nm->crc_on || nm->tx_mac) {
		r = nm_send_summed(nm, bio);
		if (r)
			return r;
		goto trailer;
	}
	/*
	 * The pages go out by reference under B and C (kernel_sendpage, as
	 * DRBD does): the bio cannot end before the peer has them all (its
	 * P_RECV_ACK or P_WRITE_ACK).  Under A it ends when sent, and its
	 * pages may be reused at once: they are copied, in batches of
	 * NM_TX_BATCH segments per sendmsg.
	 */
	bio_for_each_segment(bv, bio, iter) {
		bool last = iter.bi_size == bv.bv_len;
		bool more = !last;

		if (zc && sendpage_ok(bv.bv_page)) {
			r = nm_tx_batch(nm, batch, nb, blen, true);
			if (!r)
				r = nm_sendpage(nm->sock, &bv, more);
			if (r)
				return r;
			nb = 0;
			blen = 0;
			continue;
		}
		batch[nb++] = bv;
		blen += bv.bv_len;
		if (nb == NM_TX_BATCH || last) {
			r = nm_tx_batch(nm, batch, nb, blen, more);
			if (r)
				return r;
			nb = 0;
			blen = 0;
		}
	}
trailer:
	r = nm_send_trailer(nm);
	if (r)
		return r;
	atomic64_add(sizeof(pkt) + size, &nm->bytes_sent);
	atomic64_inc(&nm->writes_sent);
	nm->last_tx = jiffies;
	return 0;
}

/* P_READ_REQ for a read served by the peer.  Caller holds tx_mutex. */
static int nm_send_read_req(struct nm_dev *nm, struct nm_req *req)
{
	struct nm_data_pkt pkt;
	struct kvec vec = { .iov_base = &pkt, .iov_len = sizeof(pkt) };
	int r;

	lockdep_assert_held(&nm->tx_mutex);

	nm_data_pkt_fill(nm, &pkt, NM_P_READ_REQ, req, 0, 0, 0);
	r = nm_send_kvec(nm, &vec, 1, sizeof(pkt), false);
	if (!r)
		r = nm_send_trailer(nm);
	if (!r) {
		atomic64_add(sizeof(pkt), &nm->bytes_sent);
		nm->last_tx = jiffies;
	}
	return r;
}

static bool nm_req_unqueue(struct nm_dev *nm, struct nm_req *req)
{
	unsigned long flags;
	bool was;

	spin_lock_irqsave(&nm->lock, flags);
	was = test_and_clear_bit(NM_REQ_QUEUED, &req->flags);
	if (was)
		list_del_init(&req->list);
	spin_unlock_irqrestore(&nm->lock, flags);
	return was;
}

/*
 * Transmit @req (already on wait_q, one reference taken for this) with a
 * P_BARRIER in front when it starts a new epoch.  Caller holds tx_mutex;
 * @gen is the connection @req was taken for.
 */
static int nm_tx_req(struct nm_dev *nm, struct nm_req *req, u32 gen)
{
	unsigned long flags;
	int r;

	lockdep_assert_held(&nm->tx_mutex);
	if (!nm->sock || gen != nm->conn_gen)
		return -ENOTCONN;
	req->conn_gen = gen;
	req->peer_fails = READ_ONCE(nm->peer_fails);
	if (test_bit(NM_REQ_READ, &req->flags)) {
		r = nm_send_read_req(nm, req);
		if (r)
			kernel_sock_shutdown(nm->sock, SHUT_RDWR);
		return r;
	}
	r = 0;
	if (nm->ordering != NM_ORD_NONE && nm->sent_in_epoch &&
	    req->epoch != nm->sent_epoch) {
		struct nm_p_barrier b = {
			.epoch = nm_be32(nm->sent_epoch),
		};
		struct nm_hdr h;
		struct kvec vec[2] = {
			{ .iov_base = &h, .iov_len = sizeof(h) },
			{ .iov_base = &b, .iov_len = sizeof(b) },
		};

		nm_hdr_fill(&h, NM_P_BARRIER, sizeof(b), nm->tx_seq++);
		r = nm_send_kvec(nm, vec, 2, sizeof(h) + sizeof(b), true);
		if (!r)
			r = nm_send_trailer(nm);
	}
	if (!r) {
		nm->sent_epoch = req->epoch;
		nm->sent_in_epoch = true;
		r = nm_bio_zero(req->bio) ? nm_send_zero(nm, req) :
					    nm_send_data(nm, req);
		if (!r)
			req->t_sent = nm_clock_ns();
	}
	/*
	 * In the transfer log until a stable point after it is confirmed;
	 * under tx_mutex, so that no P_SYNC can be sent between the data and
	 * its mark.
	 */
	if (!r && test_bit(NM_REQ_DATA, &req->flags)) {
		unsigned long f, l;

		nm_regions(nm, req->bio, &f, &l);
		spin_lock_irqsave(&nm->lock, flags);
		nm_regions_sent(&nm->rg, f, l);
		spin_unlock_irqrestore(&nm->lock, flags);
	}
	if (r && nm->sock)
		kernel_sock_shutdown(nm->sock, SHUT_RDWR);
	return r;
}

/*
 * After nm_tx_req, tx_mutex dropped: protocol A ends the peer part of a
 * write that left.  A failed send leaves @req on wait_q: nm_tx_req shut
 * the socket down, and the teardown gives the peer part up after it froze
 * the device and started a new data generation (nm_teardown).  Given up
 * here, before those, the write would complete as if the peer had it.
 */
static void nm_tx_done(struct nm_dev *nm, struct nm_req *req, int r)
{
	if (!r && nm->protocol == NM_PROTO_A &&
	    !test_bit(NM_REQ_READ, &req->flags) &&
	    !test_bit(NM_REQ_ACK_DISK, &req->flags)) {
		if (nm_req_unqueue(nm, req))
			nm_req_peer_done(req, true);
	}
	nm_req_put(req);
}

/*
 * Under nm->lock: @req, the head of send_q, goes to wait_q as its send
 * begins, with a reference for the sender.  The one place a request is
 * sent: nm_check_stuck times it from here, not from map (a backlog behind
 * a slow link is not the peer's delay).
 */
static void __nm_wait_add(struct nm_dev *nm, struct nm_req *req)
{
	lockdep_assert_held(&nm->lock);
	list_move_tail(&req->list, &nm->wait_q);
	req->sent_at = __nm_live_now(nm);
	atomic_inc(&req->ref);
}

/*
 * Sender: move the first queued write to wait_q and transmit it.  The head
 * is taken under tx_mutex, as in nm_send_inline: writes leave in the order
 * of send_q, so that their epochs never go backwards on the wire.
 */
bool nm_send_one(struct nm_dev *nm)
{
	struct nm_req *req;
	unsigned long flags;
	u32 gen;
	int r;

	mutex_lock(&nm->tx_mutex);
	spin_lock_irqsave(&nm->lock, flags);
	req = list_first_entry_or_null(&nm->send_q, struct nm_req, list);
	/*
	 * A read goes only when the peer sees us primary and not uptodate
	 * (else it refuses it): a due P_STATE saying so goes first (a
	 * detach's); a due demotion waits for the read (nm_send_state).  A
	 * due detach or promotion goes before any request: the peer records
	 * a detach before the writes that reach its disk only
	 * (nm_peer_detached), and starts the new primary's epochs before its
	 * first write.  Not a disk that became uptodate: the peer serves no
	 * read to an uptodate primary, and reads may still be queued.
	 */
	if (!req || nm->cstate < NM_C_CONNECTED ||
	    (nm->send_state &&
	     ((nm->disk == NM_DISK_DISKLESS &&
	       nm->sent_disk != NM_DISK_DISKLESS) ||
	      (nm->role == NM_ROLE_PRIMARY &&
	       nm->sent_role != NM_ROLE_PRIMARY))) ||
	    (test_bit(NM_REQ_READ, &req->flags) && nm->send_state &&
	     (nm->sent_role != NM_ROLE_PRIMARY ||
	      nm->sent_disk == NM_DISK_UPTODATE))) {
		spin_unlock_irqrestore(&nm->lock, flags);
		mutex_unlock(&nm->tx_mutex);
		return false;
	}
	__nm_wait_add(nm, req);
	gen = nm->conn_gen;
	spin_unlock_irqrestore(&nm->lock, flags);

	r = nm_tx_req(nm, req, gen);
	mutex_unlock(&nm->tx_mutex);
	nm_tx_done(nm, req, r);
	return true;
}

/*
 * Send the write @req that map() just queued from the submitter's own
 * context, when nothing else is sending or due first and the socket has
 * room for it, so that the send does not wait: the hand-off to the sender
 * thread (a wakeup and a switch) is the largest cost of a small write at
 * queue depth 1 (NVMe/TCP's nvme_tcp_queue_request does the same).  Only
 * when no other write awaits its ack: at queue depth the sender thread
 * sends them, beside the submitters (over loopback the peer's receive then
 * runs there too, not on the submitter's CPU).  Returns
 * false, leaving everything to the sender thread, when it cannot: the
 * caller kicks the sender then.  Process context; may sleep briefly (the
 * socket lock), never on memory (GFP_NOIO) or a full socket.
 */
bool nm_send_inline(struct nm_dev *nm, struct nm_req *req)
{
	unsigned long flags;
	u32 gen = 0;
	bool ok;
	int r;

	might_sleep();
	/*
	 * Not from nm_conn: it may complete writes with the socket locked
	 * (nm_fastack.c), and a write submitted from such a completion
	 * would wait for that lock in its own thread.
	 */
	if (!READ_ONCE(nm_inline_send) || current == READ_ONCE(nm->conn_task) ||
	    !mutex_trylock(&nm->tx_mutex))
		return false;
	spin_lock_irqsave(&nm->lock, flags);
	/*
	 * Only the head of send_q, and only when no P_STATE or bitmap is due:
	 * the sender sends those first (a promotion before the new primary's
	 * writes).  Reads wait for the sender (a detach's P_STATE).
	 */
	ok = nm->sock && nm->cstate >= NM_C_CONNECTED && !nm->send_state &&
	     !nm->send_bitmap && !test_bit(NM_REQ_READ, &req->flags) &&
	     list_empty(&nm->wait_q) &&
	     list_first_entry_or_null(&nm->send_q, struct nm_req, list) == req &&
	     sk_stream_wspace(nm->sock->sk) >=
		(int)(nm_bio_data_bytes(req->bio) + NM_INLINE_SLACK);
	if (ok) {
		__nm_wait_add(nm, req);
		gen = nm->conn_gen;
	}
	spin_unlock_irqrestore(&nm->lock, flags);
	if (!ok) {
		mutex_unlock(&nm->tx_mutex);
		return false;
	}
	r = nm_tx_req(nm, req, gen);
	mutex_unlock(&nm->tx_mutex);
	atomic64_inc(&nm->writes_inline);
	nm_tx_done(nm, req, r);
	return true;
}

/*
 * Drop the link when the peer has answered none of our requests for the
 * timeout: that completes the waiting writes from the local disk and marks
 * their regions out of sync.  The clock of the oldest request on wait_q
 * starts when it was sent (__nm_wait_add) and starts again at every answer
 * of the peer (an ack or a read reply, __nm_wait_take).  A peer that
 * answers pings but no write (its disk hangs), or a link that carries
 * nothing, is dropped @timeout_ms after the later of the two; a socket
 * that is full but drains, or a peer disk with a long queue, goes on
 * answering and keeps the link however long the requests wait behind it.
 * (A single request the peer never answers while it answers others stops
 * the peer's receiver at the next stable point, P_SYNC, which waits for
 * every write received: the answers stop, and the clock runs out.)
 * A resync region in flight counts from when it was sent (rs_slot_at,
 * not while it waits for writes or the rate) and its P_RS_ACK or
 * P_CSUM_REPLY is an answer: a target
 * whose disk hangs no longer keeps application writes parked behind its
 * busy regions for as long as it hangs (review F22).
 * These clocks are __nm_live_now's, which stands still while our reader
 * waits for our own disk (room for a write, an overlap, a drain, a
 * flush, a read, a submit held by the block layer: nm_rx_wait_begin):
 * the peer's answers may then sit unread in the socket behind it
 * (fault-slowsource; up to 1.18.16 a resync source whose own disk was
 * slow dropped a healthy link).
 * Called by the link's watchdog (nm_conn.c); returns the jiffies left
 * before that clock runs out (the whole timeout with nothing waiting),
 * or 0 when it ran out and the link was dropped here.
 */
long nm_check_stuck(struct nm_dev *nm)
{
	long t = msecs_to_jiffies(nm->timeout_ms), left = t;
	unsigned long flags, since = 0;
	struct nm_req *req;
	bool waiting = false;
	unsigned int i;

	might_sleep();
	spin_lock_irqsave(&nm->lock, flags);
	req = list_first_entry_or_null(&nm->wait_q, struct nm_req, list);
	if (req) {
		since = req->sent_at;
		waiting = true;
	}
	/* a resync region sent and not acknowledged is a request too (F22) */
	for (i = 0; i < NM_RS_WINDOW; i++) {
		if (nm->rs_slot_region[i] == ULONG_MAX ||
		    !test_bit(i, &nm->rs_slot_sent) ||
		    (waiting && !time_before(nm->rs_slot_at[i], since)))
			continue;
		since = nm->rs_slot_at[i];
		waiting = true;
	}
	if (waiting) {
		if (time_after(nm->answered_at, since))
			since = nm->answered_at;
		/* __nm_live_now runs no faster than jiffies: left is not late */
		left = (long)(since + t - __nm_live_now(nm));
		/* a clock standing still: look again in a while, not at once */
		if (READ_ONCE(nm->rx_held))
			left = max(left, min_t(long, t, HZ / 4));
	}
	spin_unlock_irqrestore(&nm->lock, flags);
	if (left > 0)
		return left;
	nm_err(nm, "peer answered no request for %u ms: dropping link",
	       nm->timeout_ms);
	nm_set_error(nm, "peer_timeout");
	nm_conn_drop(nm);
	return 0;
}

/*
 * Under nm->lock: the request @id (a read if @read, else a write) on
 * wait_q, left there; NULL if it is not there.
 */
static struct nm_req *__nm_wait_find(struct nm_dev *nm, u64 id, bool read)
{
	struct nm_req *req;

	lockdep_assert_held(&nm->lock);
	list_for_each_entry(req, &nm->wait_q, list)
		if (req->id == id && test_bit(NM_REQ_READ, &req->flags) == read)
			return req;
	return NULL;
}

/* Under nm->lock: @req, found on wait_q, answered by the peer. */
static void __nm_wait_del(struct nm_dev *nm, struct nm_req *req)
{
	lockdep_assert_held(&nm->lock);
	clear_bit(NM_REQ_QUEUED, &req->flags);
	list_del_init(&req->list);
	nm->answered_at = __nm_live_now(nm);	/* nm_check_stuck */
}

/*
 * Under nm->lock: take the request @id (a read if @read, else a write) off
 * wait_q; NULL if it is not there.  The receiver thread and the fast ack
 * path (nm_fastack.c) match acks and replies with it: the peer's answer,
 * which restarts nm_check_stuck's clock.
 */
struct nm_req *__nm_wait_take(struct nm_dev *nm, u64 id, bool read)
{
	struct nm_req *req = __nm_wait_find(nm, id, read);

	if (req)
		__nm_wait_del(nm, req);
	return req;
}

/*
 * The ack that ends @req's peer part: under C a P_WRITE_ACK; under A and B
 * a P_WRITE_ACK for a write sent with NM_DF_ACK_DISK (our disk is not
 * uptodate: only the peer's disk may hold it), else B's P_RECV_ACK; none
 * for another write under A (it ended when it was sent).
 */
static u16 nm_ack_wanted(struct nm_dev *nm, struct nm_req *req)
{
	if (nm->protocol == NM_PROTO_C || test_bit(NM_REQ_ACK_DISK, &req->flags))
		return NM_P_WRITE_ACK;
	return nm->protocol == NM_PROTO_B ? NM_P_RECV_ACK : 0;
}

/*
 * The write (or empty flush) a P_RECV_ACK or P_WRITE_ACK (@type) @a is
 * for, taken off wait_q; NULL if there is none; ERR_PTR(-EPROTO), the
 * write left on wait_q, if @type is not the ack it waits for
 * (nm_ack_wanted): the peer broke the protocol, the link drops, and the
 * teardown deals with the write as with any unanswered one.  Under C,
 * counts the peer's volatile state: an ack without NM_AF_STABLE leaves
 * data in the peer's cache; a flush's ack makes stable what was counted
 * when it was mapped.  The receiver thread and the fast ack path both take
 * acks here, so both check the kind (fault-ackkind).
 */
struct nm_req *nm_ack_take(struct nm_dev *nm, u16 type,
			   const struct nm_p_ack *a)
{
	struct nm_req *req;
	unsigned long flags;

	spin_lock_irqsave(&nm->lock, flags);
	req = __nm_wait_find(nm, nm_h64(a->id), false);
	if (req && nm_ack_wanted(nm, req) != type) {
		spin_unlock_irqrestore(&nm->lock, flags);
		return ERR_PTR(-EPROTO);
	}
	if (req)
		__nm_wait_del(nm, req);
	if (req && nm->protocol == NM_PROTO_C && !a->status) {
		if (test_bit(NM_REQ_DATA, &req->flags)) {
			if (!(nm_h32(a->flags) & NM_AF_STABLE))
				nm->peer_unstable++;
		} else if (req->bio->bi_opf & REQ_PREFLUSH) {
			nm->peer_flushed = max(nm->peer_flushed,
					       req->flush_covers);
		}
	}
	spin_unlock_irqrestore(&nm->lock, flags);
	return req;
}

/*
 * The peer failed a write or a flush of ours and the link stays (its disk
 * under on_io_error pass_on): a failed flush leaves every write it has not
 * confirmed stable in doubt there, so their regions go out of sync, as at
 * a link loss.  Up to 1.18.3 only the failed request's own sectors were
 * marked, none for an empty flush: the pair said in sync while the peer
 * had lost what its failed flush should have made stable (fault-flushfail).
 * Any context.
 */
static void nm_peer_failed(struct nm_dev *nm)
{
	unsigned long flags;

	spin_lock_irqsave(&nm->lock, flags);
	nm->peer_fails++;
	/* a diskless peer fails every write: all is out of sync already */
	if (nm->peer_disk != NM_DISK_DISKLESS)
		nm_regions_unconfirmed_oos(&nm->rg);
	spin_unlock_irqrestore(&nm->lock, flags);
}

void nm_handle_ack(struct nm_dev *nm, u16 type,
		   const struct nm_p_ack *a, int *err)
{
	struct nm_req *found = nm_ack_take(nm, type, a);

	if (IS_ERR(found)) {
		*err = PTR_ERR(found);
		return;
	}
	if (!found) {
		*err = -ENOENT;
		return;
	}
	if (a->status) {
		nm_err_limit(nm, "peer failed write at sector %llu (error %u)",
			     (unsigned long long)found->bio->bi_iter.bi_sector,
			    nm_h32(a->status));
		nm_peer_failed(nm);
	}
	nm_req_peer_done(found, a->status == 0);
}

/*
 * Receiver: the secondary could not write [sector, +size).  Out of sync in
 * memory and, with a metadata device, on disk before this returns (the
 * write may already be acknowledged to the application).
 */
void nm_neg_ack(struct nm_dev *nm, const struct nm_p_rs_ack *a)
{
	u64 sector = be64_to_cpu(a->sector);
	u32 sectors = be32_to_cpu(a->size) >> SECTOR_SHIFT;
	unsigned long f, l, r;
	bool dirty = false;

	nm_err_limit(nm, "peer failed a write at sector %llu (%u): out of sync",
		     sector, be32_to_cpu(a->status));
	nm_mark_oos(nm, sector, sectors);
	nm_peer_failed(nm);
	if (!nm->meta || !nm_regions_range(&nm->rg, sector, sectors, &f, &l))
		return;
	for (r = f; r <= l; r++)
		dirty |= nm_meta_set(nm->meta, r);
	if (dirty && nm_meta_commit(nm->meta))
		nm_err(nm, "cannot record a failed peer write on the metadata device");
}

/*
 * The link ended (nm_conn thread, may sleep): every write the peer has not
 * confirmed as stable (the transfer log) is out of sync, in memory and,
 * with a metadata device, on disk before the next link's bitmap exchange.
 */
void nm_tl_link_down(struct nm_dev *nm)
{
	unsigned long flags, n;

	might_sleep();
	nm_stable_release(nm, 0);
	spin_lock_irqsave(&nm->lock, flags);
	n = nm_regions_take_unconfirmed(&nm->rg);
	spin_unlock_irqrestore(&nm->lock, flags);
	if (!n)
		return;
	/* rg.lost is this thread's until the next link loss */
	if (nm->meta) {
		if (nm_meta_set_bits(nm->meta, nm->rg.lost) &&
		    nm_meta_commit(nm->meta))
			nm_err(nm, "cannot record %lu unconfirmed regions on the metadata device",
			       n);
	}
	nm_info(nm, "link lost: %lu regions with writes the peer had not confirmed stable are out of sync",
		n);
}
