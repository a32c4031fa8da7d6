// SPDX-License-Identifier: GPL-2.0
/*
 * netmirror resync target: P_RS_START makes this node the target (its disk
 * lacks data from then on, durably); P_RS_DONE drains, flushes and makes it
 * uptodate, or drops the link when regions are still out of sync here;
 * P_RS_STOP ends a resync with regions left.  The source, the bitmap
 * exchange and the slots: nm_resync.c; the target's writes: nm_secondary.c;
 * what its flushes made stable: nm_flush.c.
 *
 * Context: the stream's owner (the nm_conn thread), process context, may
 * sleep.  Locks: nm->lock (irqsave) around state; the metadata's commit
 * outside it.
 */
#include <linux/bitmap.h>
#include "dm-netmirror.h"

/* P_RS_START: this node becomes the resync target. */
int nm_peer_rs_start(struct nm_dev *nm, u64 count)
{
	unsigned long flags;
	bool ours;

	spin_lock_irqsave(&nm->lock, flags);
	if (nm->disk == NM_DISK_DISKLESS) {
		/*
		 * Begun before our P_STATE (diskless) reached the source,
		 * which ends it there: its data are refused.  Up to 1.18.11
		 * a protocol error.
		 */
		nm->rs_tail = true;
		spin_unlock_irqrestore(&nm->lock, flags);
		return 0;
	}
	/* a new resync: what follows is its data, not an ended one's */
	nm->rs_tail = false;
	/* never into a node whose data is the one to keep */
	ours = nm_is_source(nm) || (nm->disk == NM_DISK_UPTODATE &&
				    nm->role == NM_ROLE_PRIMARY &&
				    nm->gen_cmp != NM_GC_TARGET);
	spin_unlock_irqrestore(&nm->lock, flags);
	if (ours) {
		nm_err(nm, "refusing a resync into this node: it holds the data to keep");
		return -EPROTO;
	}
	if (nm_state_set(nm, NM_ST_CSTATE, NM_C_SYNC_TARGET))
		return -EPROTO;
	nm_rs_count_start(nm, count, test_bit(nm->rg.nr - 1, nm->rg.oos));
	/*
	 * Regions to come: this disk lacks data from now on, durably (not
	 * promoted, no peer reads) until P_RS_DONE, even if the resync is
	 * paused or the link drops before the first region.  If the
	 * metadata cannot say so (pass_on), the first region tries again
	 * and is refused.
	 */
	if (count)
		nm_rs_target_inconsistent(nm);
	nm_info(nm, "resync target: %llu regions to receive", count);
	dm_table_event(nm->ti->table);
	return 0;
}

/* P_RS_DONE: all regions arrived; make them stable, become uptodate. */
int nm_peer_rs_done(struct nm_dev *nm, const struct nm_p_rs_done *d)
{
	struct nm_gens src = {
		.pair = be64_to_cpu(d->pair),
		.cur = be64_to_cpu(d->cur),
	};
	unsigned long flags;
	int r;

	might_sleep();
	if (READ_ONCE(nm->cstate) != NM_C_SYNC_TARGET) {
		/* our disk failed and ended our half of it: stays so */
		if (READ_ONCE(nm->disk) == NM_DISK_DISKLESS ||
		    READ_ONCE(nm->rs_tail))
			return 0;
		return -EPROTO;
	}
	nm_peer_wait_drained(nm);
	for (;;) {	/* again if our disk's flush_lost came since its check */
		r = nm_flush_local(nm);
		if (r)
			return r;	/* not stable: stay inconsistent */
		spin_lock_irqsave(&nm->lock, flags);
		if (!nm->flush_lost || nm->disk == NM_DISK_DISKLESS)
			break;
		spin_unlock_irqrestore(&nm->lock, flags);
	}
	__nm_state_set(nm, NM_ST_CSTATE, NM_C_CONNECTED);
	nm->eq_marks = 0;	/* the peer's resync into us is over */
	if (bitmap_empty(nm->rg.oos, nm->rg.nr) &&
	    (nm->disk == NM_DISK_INCONSISTENT ||
	     nm->disk == NM_DISK_OUTDATED))
		__nm_state_set(nm, NM_ST_DISK, NM_DISK_UPTODATE);
	if (nm->disk == NM_DISK_UPTODATE && src.cur) {
		/* our data is the source's now: so is its generation */
		nm_gens_synced_target(&nm->gen, &src);
		nm->gen_fresh = false;	/* the next lone change: a new one */
		nm->gen_cmp = NM_GC_EQUAL;
		if (nm->meta)
			nm_meta_set_gens(nm->meta, &nm->gen);
	}
	if (nm->meta && nm->disk == NM_DISK_UPTODATE)
		nm_meta_set_flags(nm->meta, NM_MF_CONSISTENT | NM_MF_HISTORY,
				  NM_MF_OUTDATED |
				  (nm->role != NM_ROLE_PRIMARY ? NM_MF_PRIMARY : 0));
	spin_unlock_irqrestore(&nm->lock, flags);
	/*
	 * Our P_STATE confirms the new generation to the source, which then
	 * forgets the old one: only once it is on our metadata, or a crash
	 * now would bring us back with a generation the source no longer
	 * expects from us (an "old copy").
	 */
	if (nm->meta && nm_meta_commit(nm->meta))
		return -EIO;
	spin_lock_irqsave(&nm->lock, flags);
	nm->send_state = true;
	spin_unlock_irqrestore(&nm->lock, flags);
	nm_info(nm, "resync target: done, disk %s, generation %016llx",
		nm->disk == NM_DISK_UPTODATE ? "uptodate" : "inconsistent",
		src.cur);
	wake_up(&nm->send_wq);
	dm_table_event(nm->ti->table);
	return 0;
}

/*
 * P_RS_STOP: the source ended the resync with regions it could not read.
 * Everything it sent before is acknowledged (it stops only with nothing
 * in flight); our disk stays inconsistent, those regions out of sync.
 * Writes held behind a refused region go on.
 */
int nm_peer_rs_stop(struct nm_dev *nm, u64 count)
{
	unsigned long flags;

	might_sleep();
	spin_lock_irqsave(&nm->lock, flags);
	if (nm->cstate != NM_C_SYNC_TARGET) {
		bool ended = nm->disk == NM_DISK_DISKLESS || nm->rs_tail;

		spin_unlock_irqrestore(&nm->lock, flags);
		/* our disk failed and ended our half of it: stays so */
		return ended ? 0 : -EPROTO;
	}
	__nm_state_set(nm, NM_ST_CSTATE, NM_C_CONNECTED);
	bitmap_zero(nm->rg.rs_hold, nm->rg.nr);
	nm->rs_holding = false;
	spin_unlock_irqrestore(&nm->lock, flags);
	nm_err_limit(nm, "resync target: %llu regions stay out of sync: the resync stopped (%s)",
		     count, nm_disk_name(READ_ONCE(nm->disk)));
	nm_resubmit_waiting(nm);
	dm_table_event(nm->ti->table);
	return 0;
}
