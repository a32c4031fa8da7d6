// SPDX-License-Identifier: GPL-2.0
/*
 * netmirror flushes of this node's own disk: what they made stable, and
 * what a failed one may have lost.
 *
 * A write that completed may sit in the disk's volatile cache until a
 * flush.  The peer's writes are confirmed stable by P_SYNC (nm_flush_local,
 * the peer's transfer log covers them until then); resync data are not in
 * any transfer log, so the target keeps the regions it completed since its
 * last good flush (rg.rs_unflushed) and puts them out of sync again when a
 * flush fails (nm_rs_flushed, nm_flush_lost_mark, flush_lost and
 * rs_suspect: __nm_rs_flush_failed).  A primary's own failed flush under
 * on_io_error pass_on: nm_local_flush_failed; a metadata commit's failed
 * flush of the data device: nm_meta_flush_failed.
 *
 * Context: nm_flush_local and nm_rs_flush_pending in process context (the
 * stream's owner; a suspend), may sleep; nm_local_flush_failed from bio
 * completion too; the __ calls under nm->lock.  Lock order: the metadata's
 * commit mutex, then nm->lock, then the metadata's spinlock.
 */
#include <linux/blkdev.h>
#include <linux/bitmap.h>
#include <linux/lockdep.h>
#include "dm-netmirror.h"

/*
 * Under nm->lock: the resync data no flush made stable (rg.rs_unflushed)
 * are out of sync again, in memory and on the metadata.  True if the
 * metadata needs a commit (nm_rs_marks_commit, after the unlock).
 */
static bool __nm_rs_unflushed_lost(struct nm_dev *nm)
{
	bool mark;

	lockdep_assert_held(&nm->lock);
	if (!nm->rs_unflushed_any)
		return false;
	bitmap_or(nm->rg.oos, nm->rg.oos, nm->rg.rs_unflushed, nm->rg.nr);
	mark = nm->meta && nm_meta_set_bits(nm->meta, nm->rg.rs_unflushed);
	bitmap_zero(nm->rg.rs_unflushed, nm->rg.nr);
	nm->rs_unflushed_any = false;
	return mark;
}

static void nm_rs_marks_commit(struct nm_dev *nm, bool mark)
{
	might_sleep();
	if (mark && nm_meta_commit(nm->meta))
		nm_err(nm, "cannot record the resynced regions a failed flush may have lost");
}

/*
 * A resync target's regions whose data the peer sent and this disk
 * completed (rg.rs_unflushed) are in sync once a flush made them stable,
 * and out of sync again if the flush failed: its cache may have lost them
 * (the link drops: flush_failed), and the next link's bitmap exchange
 * brings them back (fault-rsflush; up to 1.18.14 they stayed in sync on
 * both nodes, the source having counted them at P_RS_ACK).  @seq:
 * rs_done_seq when the flush was issued; one that a resync write's
 * completion overtook covers not all of them, which wait for the next.
 * nm_flush_local's callers, one at a time (the stream's reader).
 */
static void nm_rs_flushed(struct nm_dev *nm, u32 seq, int err)
{
	unsigned long flags;
	bool mark = false;

	spin_lock_irqsave(&nm->lock, flags);
	if (err) {
		mark = __nm_rs_unflushed_lost(nm);
	} else if (nm->rs_unflushed_any && seq == nm->rs_done_seq) {
		bitmap_zero(nm->rg.rs_unflushed, nm->rg.nr);
		nm->rs_unflushed_any = false;
	}
	spin_unlock_irqrestore(&nm->lock, flags);
	nm_rs_marks_commit(nm, mark);
}

/*
 * Under nm->lock: a flush of this disk failed (a flush of the peer's, or a
 * primary resync target's own: nm_local_flush_failed).  The resync data
 * it completed since its last good flush (rg.rs_unflushed) may be gone
 * from its cache, and so may those in flight now (rs_suspect, each sets
 * flush_lost when it is done): the next nm_flush_local marks them out of
 * sync, however its own flush goes.
 */
void __nm_rs_flush_failed(struct nm_dev *nm)
{
	lockdep_assert_held(&nm->lock);
	if (nm->rs_unflushed_any)
		nm->flush_lost = true;
	if (!bitmap_empty(nm->rg.rs_writing, nm->rg.nr)) {
		nm->rs_suspect = true;
		nm->rs_suspect_seq = nm->rs_sub_seq;
	}
}

/*
 * Our disk failed a flush (an empty one, or a metadata commit's before its
 * clears: nm_meta_flush_failed) and stays (pass_on): what it completed
 * since its last good flush may be gone from its cache.  Every region
 * marked in memory or on disk (nm_meta_or_held), without metadata every
 * one written, goes out of sync: an uptodate disk's copy is the one to
 * keep (up to 1.18.20 none: fault-pflushfail).  A resync target's is not
 * (attach, a reload of a detached disk): they and its unflushed resync
 * data are lost (read from the peer, marks kept), and the flush at
 * P_RS_DONE drops the link so that the peer sends them again (up to
 * 1.18.21 it counted them stable: fault-tgtflush).  Any context.
 */
void nm_local_flush_failed(struct nm_dev *nm)
{
	unsigned long *lost = nm->rg.oos;
	unsigned long flags;

	spin_lock_irqsave(&nm->lock, flags);
	if (nm->disk != NM_DISK_UPTODATE)
		lost = nm->rg.rs_unflushed;
	if (nm->meta)
		nm_meta_or_held(nm->meta, lost);
	else
		bitmap_or(lost, lost, nm->rg.touched, nm->rg.nr);
	if (lost != nm->rg.oos && !bitmap_empty(lost, nm->rg.nr)) {
		bitmap_or(nm->rg.oos, nm->rg.oos, lost, nm->rg.nr);
		nm->rs_unflushed_any = true;
		nm->rs_done_seq++;	/* no flush begun before retires them */
	}
	__nm_rs_flush_failed(nm);
	spin_unlock_irqrestore(&nm->lock, flags);
	nm_err_limit(nm,
		     "local disk failed a flush (on_io_error pass_on): the regions it may have lost go out of sync");
	nm_sync_kick(nm);
}

/*
 * A metadata commit's flush of the data device for its clears failed
 * (nm_meta_take_flush_failed; the clears were cancelled, the marks stay).
 * On a primary as an empty flush's failure (detach, or pass_on: up to
 * 1.18.21 a primary under detach kept its disk, fault-pflushfail part
 * detach); on any other node its unflushed resync data are lost, and its
 * next nm_flush_local fails, as if its own flush had (meta_flush_lost, set
 * in the section that takes the failure: no P_SYNC_ACK between; up to
 * 1.18.21 a secondary ignored it).  With @wait, after a commit under way.
 * Process context (@wait) or any; nm->meta set.
 */
void nm_meta_flush_failed(struct nm_dev *nm, bool wait)
{
	unsigned long flags;
	bool failed, pri;

	if (wait)
		nm_meta_commit_wait(nm->meta);
	/* taken with the role it had: a promotion in between changes it */
	spin_lock_irqsave(&nm->lock, flags);
	pri = nm->role == NM_ROLE_PRIMARY;
	failed = nm_meta_take_flush_failed(nm->meta);
	if (failed && !pri) {
		nm->meta_flush_lost = true;
		__nm_rs_flush_failed(nm);
	}
	spin_unlock_irqrestore(&nm->lock, flags);
	if (failed && pri && !nm_detach(nm, -EIO))	/* detach: the peer's */
		nm_local_flush_failed(nm);
}

/*
 * Did a flush of the peer's fail since the last such check (flush_lost),
 * with resync data unflushed?  Then they are out of sync again now, in
 * the same critical section that takes the mark (a good flush of another
 * thread's, nm_rs_flushed, cannot retire them in between).
 * nm_flush_local asks after its own flush, so that one failing while it
 * ran counts; nm_peer_flush_failed when the failure drops the link (A,
 * B).  The mark is cleared either way; a resync write begun before the
 * failure and done after this check sets it again (rs_suspect).  Process
 * context, not under nm->lock.
 */
bool nm_flush_lost_mark(struct nm_dev *nm)
{
	unsigned long flags;
	bool lost, mark = false;

	spin_lock_irqsave(&nm->lock, flags);
	lost = nm->flush_lost && nm->rs_unflushed_any;
	if (lost)
		mark = __nm_rs_unflushed_lost(nm);
	nm->flush_lost = false;
	/* none left in flight (scanned only after a failure: every flush) */
	if (nm->rs_suspect && bitmap_empty(nm->rg.rs_writing, nm->rg.nr))
		nm->rs_suspect = false;
	spin_unlock_irqrestore(&nm->lock, flags);
	nm_rs_marks_commit(nm, mark);
	return lost;
}

/*
 * Suspend (nm_reload_save): resync data this disk completed and no flush
 * made stable are flushed now, or out of sync again if that fails: the
 * successor, or this node after a restart, does not know them.
 */
void nm_rs_flush_pending(struct nm_dev *nm)
{
	unsigned long flags;
	bool any;
	int err = 0;
	u32 seq;

	might_sleep();
	spin_lock_irqsave(&nm->lock, flags);
	any = nm->rs_unflushed_any;
	seq = nm->rs_done_seq;
	spin_unlock_irqrestore(&nm->lock, flags);
	if (!any)
		return;
	if (READ_ONCE(nm->disk) != NM_DISK_DISKLESS)
		err = blkdev_issue_flush(nm->dev->bdev);
	if (nm->meta)
		nm_meta_flush_failed(nm, true);
	nm_flush_lost_mark(nm);
	nm_rs_flushed(nm, seq, err);
}

/*
 * Flush the local backing device for the peer.  A failure is not acked:
 * -EIO drops the link (last_error flush_failed), so the peer marks what it
 * sent since its last stable point out of sync.  A metadata commit's
 * failed flush counts as this one's on a secondary (up to 1.18.21 it was
 * ignored there, and the next good flush confirmed writes it had lost).
 */
int nm_flush_local(struct nm_dev *nm)
{
	unsigned long flags;
	bool lost, began;
	u32 seq;
	int r;

	/*
	 * A detached disk holds nothing to make stable (this node failed
	 * every write since, and its P_STATE told the peer): up to 1.18.3 the
	 * flush went to the failed device, and the first stable point after
	 * a detach dropped the link (fault-flushfail, part diskless).
	 */
	if (READ_ONCE(nm->disk) == NM_DISK_DISKLESS)
		return 0;
	spin_lock_irqsave(&nm->lock, flags);
	seq = nm->rs_done_seq;
	spin_unlock_irqrestore(&nm->lock, flags);
	began = nm_rx_wait_begin(nm);
	r = blkdev_issue_flush(nm->dev->bdev);
	/* a commit's flush failed (maybe under way): as ours, if a secondary's */
	if (nm->meta)
		nm_meta_flush_failed(nm, true);
	nm_rx_wait_end(nm, began);
	spin_lock_irqsave(&nm->lock, flags);
	if (nm->meta_flush_lost) {	/* taken as a secondary, whatever now */
		nm->meta_flush_lost = false;
		r = r ?: -EIO;
	}
	spin_unlock_irqrestore(&nm->lock, flags);
	lost = nm_flush_lost_mark(nm);
	if (!r && lost) {
		/* this one is good, but what the failed one lost is gone */
		nm_fail(nm, "flush_failed",
			"an earlier flush failed with resynced data unflushed: they are out of sync again: dropping link");
		return -EIO;
	}
	nm_rs_flushed(nm, seq, r);
	if (!r || READ_ONCE(nm->disk) == NM_DISK_DISKLESS)
		return 0;
	nm_fail(nm, "flush_failed",
		"flush of the backing device failed (%d): dropping link",
		r);
	return -EIO;
}
