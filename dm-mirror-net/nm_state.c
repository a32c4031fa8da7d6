// SPDX-License-Identifier: GPL-2.0
/*
 * netmirror state: the state words, the last error, role changes, and the
 * local disk's failure policy (on_io_error) with detach and attach.
 *
 * on_io_error pass_on: a local I/O error goes to the submitter.
 * on_io_error detach (default): at the first local I/O error the node stops
 * using its disk ("diskless").  A failed write whose copy reached the peer
 * completes successfully; later writes go to the peer only; reads are sent
 * to the peer (P_READ_REQ / P_READ_REPLY), the failed read included.  On a
 * secondary, writes that fail (or arrive while diskless) are reported to the
 * primary (P_WRITE_ACK with an error under protocol C, P_NEG_ACK under A and
 * B), which marks their regions out of sync.  The "attach" message takes the
 * disk back as inconsistent and the link is re-established: the bitmap
 * exchange then makes the peer (uptodate) the resync source, even when it is
 * the secondary.  While a primary is such a resync target, reads of regions
 * not yet resynced are served by the peer, and a resync region that an
 * application write touched meanwhile is asked for again (P_RS_ACK EAGAIN).
 *
 * Contexts: nm_detach() any (bio completion included); nm_attach() and
 * nm_set_role() process context (message).  Lock order: tx_mutex, then
 * nm->lock; nothing sleeps under nm->lock.
 */
#include <linux/slab.h>
#include <linux/random.h>
#include <linux/bitmap.h>
#include <linux/lockdep.h>
#include "dm-netmirror.h"

/*
 * The state words, from nm_params.h (the status contract), each at its
 * enum's value (for disk and role, the wire's values in nm_wire.h).
 */
#define NM_WORD_C(id, word)					\
	[NM_C_##id] = #word,
#define NM_WORD_DISK(id, word)					\
	[NM_DISK_##id] = #word,
#define NM_WORD_ROLE(id, word)					\
	[NM_ROLE_##id] = #word,
static const char * const nm_cstate_names[NM_C_COUNT] = {
	NM_CSTATE_WORDS(NM_WORD_C)
};

static const char * const nm_disk_names[NM_DISK_MAX] = {
	NM_DISK_WORDS(NM_WORD_DISK)
};

static const char * const nm_role_names[] = {
	NM_ROLE_WORDS(NM_WORD_ROLE)
};

const char *nm_cstate_name(enum nm_cstate s)
{
	return nm_cstate_names[s];
}

const char *nm_role_name(enum nm_role r)
{
	return nm_role_names[r];
}

/*
 * The one function that sets the last error word (status field
 * last_error); a new word raises a table event, as a state change does
 * (a refused handshake leaves the connection state as it was).  Any
 * context.
 */
void nm_set_error(struct nm_dev *nm, const char *word)
{
	unsigned long flags;
	bool changed;

	spin_lock_irqsave(&nm->lock, flags);
	changed = strcmp(nm->last_error, word);
	strscpy(nm->last_error, word, sizeof(nm->last_error));
	if (changed && nm->wq)
		queue_work(nm->wq, &nm->event_work);
	spin_unlock_irqrestore(&nm->lock, flags);
}

/* Does last_error hold @word?  Any context. */
bool nm_error_is(struct nm_dev *nm, const char *word)
{
	unsigned long flags;
	bool same;

	spin_lock_irqsave(&nm->lock, flags);
	same = !strcmp(nm->last_error, word);
	spin_unlock_irqrestore(&nm->lock, flags);
	return same;
}

void nm_event_work(struct work_struct *w)
{
	struct nm_dev *nm = container_of(w, struct nm_dev, event_work);

	dm_table_event(nm->ti->table);
}

/* The local disk failed: stop using it (detach) unless pass_on. */
bool nm_detach(struct nm_dev *nm, int err)
{
	unsigned long flags;
	bool first = false;

	if (nm->pass_on)
		return false;
	spin_lock_irqsave(&nm->lock, flags);
	if (nm->disk != NM_DISK_DISKLESS) {
		__nm_state_set(nm, NM_ST_DISK, NM_DISK_DISKLESS);
		nm->send_state = true;
		first = true;
		/* the data we expose from here is the peer's (nm_h_state) */
		nm->gen_exposed = nm->gen.cur;
	}
	spin_unlock_irqrestore(&nm->lock, flags);
	if (first) {
		nm_err(nm, "local disk I/O error (%d): detached, now diskless", err);
		nm_set_error(nm, "disk_failed");
		wake_up(&nm->send_wq);
		nm_sync_kick(nm);	/* a resync ends (__nm_rs_lost) */
		queue_work(nm->wq, &nm->event_work);
	}
	return true;
}

/*
 * Under nm->lock: a disk state noted for the metadata device (the caller
 * commits).  Until a commit made after it succeeded (nm_disk_state_save),
 * the metadata may still hold the previous state: nm_disk_unsaved.
 */
static void __nm_disk_noted(struct nm_dev *nm)
{
	lockdep_assert_held(&nm->lock);
	if (nm->meta)
		nm->disk_seq++;
}

static bool __nm_disk_unsaved(struct nm_dev *nm)
{
	lockdep_assert_held(&nm->lock);
	return nm->disk_seq != nm->disk_saved;
}

/*
 * Commit the metadata; on success the disk states noted before it are on
 * it.  0 or the commit's error.  Process context.
 */
static int nm_disk_state_save(struct nm_dev *nm)
{
	unsigned long flags;
	u32 seq;
	int err;

	might_sleep();
	if (!nm->meta)
		return 0;
	spin_lock_irqsave(&nm->lock, flags);
	seq = nm->disk_seq;
	spin_unlock_irqrestore(&nm->lock, flags);
	err = nm_meta_commit(nm->meta);
	if (err)
		return err;
	spin_lock_irqsave(&nm->lock, flags);
	if ((s32)(seq - nm->disk_saved) > 0)
		nm->disk_saved = seq;
	spin_unlock_irqrestore(&nm->lock, flags);
	return 0;
}

/*
 * The local disk becomes inconsistent: the regions still out of sync stay
 * marked on the metadata device, which says so (the caller commits it).
 * Caller holds nm->lock.
 */
void __nm_go_inconsistent(struct nm_dev *nm)
{
	lockdep_assert_held(&nm->lock);
	__nm_state_set(nm, NM_ST_DISK, NM_DISK_INCONSISTENT);
	if (nm->meta) {
		nm_meta_set_bits(nm->meta, nm->rg.oos);
		nm_meta_set_flags(nm->meta, 0, NM_MF_CONSISTENT | NM_MF_OUTDATED);
		__nm_disk_noted(nm);
	}
}

/*
 * Commit the disk state noted so far (nm_disk_state_save).  A commit that
 * fails is a local disk error (nm_detach); under on_io_error pass_on the
 * disk stays attached, the state unsaved (the next commit tries again),
 * and the error, logged as "cannot record @what", is returned.  0 when
 * saved, or when the disk detached.  Process context.
 */
static int nm_disk_commit(struct nm_dev *nm, const char *what)
{
	int err;

	might_sleep();
	err = nm_disk_state_save(nm);
	if (!err || nm_detach(nm, err))
		return 0;
	nm_err_limit(nm, "cannot record %s (%d)", what, err);
	return err;
}

/*
 * As __nm_go_inconsistent, taking nm->lock, and durable before it returns
 * 0: a resync target calls it before its first resync write lands.  A
 * metadata write that fails is a local disk error (nm_detach); under
 * on_io_error pass_on the disk stays attached, inconsistent in memory
 * while its metadata may still say consistent, and this returns the error:
 * the caller writes no resync data, and the next call tries the metadata
 * again (fault-metaerror, sec-pass_on).  0 also for a detached disk, which
 * stays detached (review F24): the caller checks.
 */
int nm_go_inconsistent(struct nm_dev *nm)
{
	unsigned long flags;

	might_sleep();
	spin_lock_irqsave(&nm->lock, flags);
	if (nm->disk == NM_DISK_DISKLESS ||
	    (nm->disk == NM_DISK_INCONSISTENT && !__nm_disk_unsaved(nm))) {
		spin_unlock_irqrestore(&nm->lock, flags);
		return 0;
	}
	if (nm->disk != NM_DISK_INCONSISTENT)
		__nm_go_inconsistent(nm);
	spin_unlock_irqrestore(&nm->lock, flags);
	return nm_disk_commit(nm, "the disk as inconsistent: refusing resync data");
}

/*
 * P_RS_START with regions to come: as nm_go_inconsistent, and the regions
 * out of sync (ours and the source's bitmap, merged by nm_recv_bitmap) on
 * the metadata too, also when the disk is inconsistent already (a write
 * of the peer's came first, nm_peer_stale_write, or an earlier link):
 * __nm_go_inconsistent records them only on the way from another state,
 * and a region the resync then writes into the disk's cache alone, lost
 * at a power cut, would be marked nowhere (review helper-63).  Process
 * context.
 */
int nm_rs_target_inconsistent(struct nm_dev *nm)
{
	unsigned long flags;

	might_sleep();
	spin_lock_irqsave(&nm->lock, flags);
	if (nm->meta && nm->disk == NM_DISK_INCONSISTENT &&
	    nm_meta_set_bits(nm->meta, nm->rg.oos))
		__nm_disk_noted(nm);
	spin_unlock_irqrestore(&nm->lock, flags);
	return nm_go_inconsistent(nm);
}

/*
 * Our disk failed a write of the peer's [first, last] and stays
 * (on_io_error pass_on; nm_detach made a failed disk diskless first).
 * Its status counts the regions out of sync from now on (rg.failed_here,
 * until a resync write into them succeeds).  And when the peer holds the
 * data (@src_good: its disk was uptodate when it sent them, so the write
 * may be acknowledged there), this disk lacks what the peer's has: it is
 * inconsistent from now on, as DRBD makes it (__drbd_chk_io_error_,
 * EP_PASS_ON): not promoted, the regions out of sync in its own bitmap
 * too (sent in the bitmap exchange, kept on the metadata).  Up to 1.18.18
 * the disk stayed uptodate until the peer's P_RS_START: with the link lost
 * first it was promoted with the old data of a write the peer had
 * acknowledged, also after a restart (fault-secfailcut).  A peer without
 * a good copy failed that write to its submitter, and this disk, the only
 * good one, stays as it is.  Caller holds nm->lock, any context; true if
 * the metadata needs saving: the caller queues disk_work.
 */
bool __nm_peer_write_failed(struct nm_dev *nm, unsigned long first,
			    unsigned long last, bool src_good)
{
	unsigned long n = last - first + 1, r;
	bool dirty = false;

	lockdep_assert_held(&nm->lock);
	if (nm->disk == NM_DISK_DISKLESS)
		return false;
	bitmap_set(nm->rg.failed_here, first, n);
	if (!src_good)
		return false;
	bitmap_set(nm->rg.oos, first, n);
	if (nm->disk != NM_DISK_INCONSISTENT) {
		__nm_go_inconsistent(nm);
		nm->send_state = true;
		return !!nm->meta;
	}
	if (!nm->meta)
		return false;
	for (r = first; r <= last; r++)
		dirty |= nm_meta_set(nm->meta, r);
	return dirty;
}

/*
 * disk_work: save on the metadata what __nm_peer_write_failed noted in a
 * bio's completion (the disk state, the regions).  A save that fails is
 * a local disk error (nm_detach); under pass_on the state stays unsaved,
 * and the next nm_go_inconsistent tries it again.
 */
void nm_disk_work(struct work_struct *w)
{
	struct nm_dev *nm = container_of(w, struct nm_dev, disk_work);

	if (!nm->meta || READ_ONCE(nm->disk) == NM_DISK_DISKLESS)
		return;
	nm_disk_commit(nm, "the regions this disk failed");
}

/*
 * A table reload (nm_reload_adopt) takes the predecessor's disk state
 * @disk.  This instance's metadata was just re-read from the device, which
 * may not hold that state: the predecessor's record of it failed (pass_on),
 * or it never made one (a detached disk comes back inconsistent).  So the
 * state is noted for the metadata and saved here; a save that fails stays
 * unsaved, and nm_go_inconsistent / nm_outdate try it again (up to 1.18.0
 * the state was taken in memory only: fault-detachreload).
 * Process context, before the link starts.
 */
void nm_disk_adopt(struct nm_dev *nm, enum nm_disk disk)
{
	unsigned long flags;

	might_sleep();
	spin_lock_irqsave(&nm->lock, flags);
	if (disk == NM_DISK_INCONSISTENT) {
		__nm_go_inconsistent(nm);
	} else if (disk == NM_DISK_OUTDATED) {
		__nm_state_set(nm, NM_ST_DISK, NM_DISK_OUTDATED);
		if (nm->meta) {
			nm_meta_set_flags(nm->meta, NM_MF_OUTDATED, 0);
			__nm_disk_noted(nm);
		}
	} else if (disk == NM_DISK_UPTODATE) {
		__nm_state_set(nm, NM_ST_DISK, disk);
	}
	spin_unlock_irqrestore(&nm->lock, flags);
	nm_disk_state_save(nm);
}

/*
 * An outdated disk whose data is the peer's after all (the same
 * generation): uptodate again, on the metadata too.  Caller holds
 * nm->lock and commits.
 */
static void __nm_go_uptodate(struct nm_dev *nm)
{
	lockdep_assert_held(&nm->lock);
	__nm_state_set(nm, NM_ST_DISK, NM_DISK_UPTODATE);
	nm->send_state = true;
	if (nm->meta)
		nm_meta_set_flags(nm->meta, NM_MF_CONSISTENT, NM_MF_OUTDATED);
}

/*
 * This node's data is consistent but older than the peer's (the handshake
 * found the peer's generation newer): "outdated", on the metadata too,
 * until a resync makes it uptodate.  It refuses promotion (unless forced)
 * and serves no peer reads.  Caller holds nm->lock and commits.
 */
static void __nm_go_outdated(struct nm_dev *nm)
{
	lockdep_assert_held(&nm->lock);
	if (nm->disk != NM_DISK_UPTODATE)
		return;
	__nm_state_set(nm, NM_ST_DISK, NM_DISK_OUTDATED);
	nm->send_state = true;
	if (nm->meta) {
		nm_meta_set_flags(nm->meta, NM_MF_OUTDATED, 0);
		__nm_disk_noted(nm);
	}
}

/*
 * "attach": take the disk back as inconsistent, resync it from the peer.
 * On a link whose peer speaks NM_PROTO_ATTACH the link stays (review
 * F28): our P_STATE (diskless -> inconsistent) makes the peer mark every
 * region and resync them (nm_peer_attached), while the I/O in flight
 * through the peer goes on.  Otherwise *@drop: the caller drops the link
 * and the next handshake carries the disk state and the full bitmap.
 * Process context.
 */
int nm_attach(struct nm_dev *nm, bool *drop)
{
	unsigned long flags;

	might_sleep();

	spin_lock_irqsave(&nm->lock, flags);
	if (nm->disk != NM_DISK_DISKLESS) {
		spin_unlock_irqrestore(&nm->lock, flags);
		nm_err(nm, "attach: the disk is not detached");
		return -EINVAL;
	}
	bitmap_fill(nm->rg.oos, nm->rg.nr);
	/* all of it is resynced: what a failed flush lost before is too */
	nm->flush_lost = false;
	nm->meta_flush_lost = false;
	nm->rs_suspect = false;
	/*
	 * A write mapped while diskless may still wait on send_q behind our
	 * P_STATE (it goes at the top of the sender's loop), and the peer's
	 * resync may read its region before the write reaches it: such
	 * resync data lack the write, which has no copy here.  Its region is
	 * refused until no write to it is in flight (nm_peer_write), as for
	 * a write mapped while inconsistent.  Up to 1.18.4 rs_dirty was
	 * cleared here, and the attached disk could miss an acknowledged
	 * write while both nodes said in sync (fault-attachqueue).
	 */
	bitmap_copy(nm->rg.rs_dirty, nm->rg.active, nm->rg.nr);
	__nm_go_inconsistent(nm);
	/* the peer must have seen us diskless (P_HELLO or P_STATE) */
	*drop = !(nm->cstate >= NM_C_CONNECTED &&
		  nm->peer_proto >= NM_PROTO_ATTACH &&
		  READ_ONCE(nm->sent_disk) == NM_DISK_DISKLESS);
	nm->send_state = true;
	spin_unlock_irqrestore(&nm->lock, flags);
	nm_disk_state_save(nm);	/* failed: the first resync write retries */
	nm_info(nm, "disk attached, inconsistent: resyncing from the peer%s",
		*drop ? " (new handshake)" : "");
	wake_up(&nm->send_wq);
	dm_table_event(nm->ti->table);
	return 0;
}

/*
 * Receiver: the peer's P_STATE says its disk went from diskless to
 * inconsistent, which only "attach" does (NM_PROTO_ATTACH): every region
 * is out of sync on it.  Mark them all here too (durably with a metadata
 * device) and let a resync run again on this link; the sync thread starts
 * it if this node is the source.
 */
void nm_peer_attached(struct nm_dev *nm)
{
	unsigned long flags;

	might_sleep();
	spin_lock_irqsave(&nm->lock, flags);
	bitmap_fill(nm->rg.oos, nm->rg.nr);
	if (nm->meta)
		nm_meta_set_bits(nm->meta, nm->rg.oos);
	nm->rs_ran = false;
	nm->rs_stopped = false;
	/*
	 * A verify's differences wait for the next link (ov_hold), the
	 * attached (inconsistent) disk does not: the resync start condition
	 * (nm_sync) lets its resync run, which covers them too.  Up to 1.18.2
	 * it stayed inconsistent until a reconnect (fault-detachrestart,
	 * part verify).
	 */
	spin_unlock_irqrestore(&nm->lock, flags);
	if (nm->meta)
		nm_meta_commit(nm->meta);
	nm_info(nm, "the peer attached its disk: every region out of sync there");
	nm_sync_kick(nm);
}

/*
 * Receiver: the peer's disk is gone (its P_STATE, or its P_HELLO at the
 * handshake, says diskless) while ours is uptodate.  From here this node
 * holds the only copy of every write either node makes: a diskless
 * primary's go to our disk only, and nothing records them on the peer.
 * So, as DRBD's secondary does ("we have the only disk of the cluster"),
 * every region becomes out of sync and, unless we have a bitmap
 * generation already, our data a new generation, both on the metadata
 * before the next packet is read (a write that follows is acknowledged
 * only after it).  The peer, back on its repaired disk without "attach"
 * (a reboot, a crash, a remove and create), then meets this node as newer
 * and is resynced whole, instead of passing for an equal.  Our P_STATE
 * carries the generation: a diskless peer takes it as the one of the data
 * it exposes (gen_exposed, nm_h_state).  A disk that is not uptodate (a
 * resync target whose source detached, an outdated one) gets every region
 * marked too, and no generation: the write that detached the peer's disk
 * may have reached ours only, and the peer, back on its repaired disk,
 * must resync all of this one, not only what either bitmap knew
 * (fault-nogood).  nm_conn thread, may sleep.
 */
void nm_peer_detached(struct nm_dev *nm)
{
	unsigned long flags;
	bool gen = false;

	might_sleep();
	spin_lock_irqsave(&nm->lock, flags);
	if (nm->disk == NM_DISK_DISKLESS) {
		spin_unlock_irqrestore(&nm->lock, flags);
		return;
	}
	bitmap_fill(nm->rg.oos, nm->rg.nr);
	if (nm->meta)
		nm_meta_set_bits(nm->meta, nm->rg.oos);
	/*
	 * Not if we are ahead of the peer already (a bitmap generation), but
	 * if that one is only waiting for the peer to confirm the generation
	 * a resync offered it (offered): the peer may have taken it.
	 */
	if (nm->disk == NM_DISK_UPTODATE && nm->gen.cur &&
	    (!nm->gen.bitmap || nm->gen.offered) && !nm->gen_fresh) {
		__nm_gen_new(nm, nm->role == NM_ROLE_PRIMARY);
		gen = true;
	}
	nm->send_state = true;
	spin_unlock_irqrestore(&nm->lock, flags);
	if (nm->meta && nm_meta_commit(nm->meta))
		nm_err(nm, "the peer detached: cannot record it on the metadata");
	/* a primary's writes wait for the generation: nm_gen_work saves it */
	if (gen && nm->meta)
		queue_work(nm->wq, &nm->gen_work);
	nm_warn(nm, "the peer's disk is detached: every region out of sync there%s",
		gen ? ", a new data generation here" : "");
	wake_up(&nm->send_wq);
	dm_table_event(nm->ti->table);
}

/*
 * nm_gen_verdict with a side diskless: that side has no data of its own,
 * so no resync goes either way and nothing is compared, nor changed on
 * the metadata (a diskless node's generation must stay the one of its
 * disk's data, for the day it returns).  Only a diskless primary connects
 * to nothing but the data it was exposing (gen_exposed), as DRBD's
 * diskless primary to its exposed UUID: else its readers would see the
 * data change under them.  Returns the refusal, or NULL.
 */
static const char *nm_gen_verdict_diskless(struct nm_dev *nm,
					   const struct nm_gens *peer)
{
	unsigned long flags;
	u64 exposed = 0;
	bool stale;

	spin_lock_irqsave(&nm->lock, flags);
	stale = nm->disk == NM_DISK_DISKLESS &&
		nm->role == NM_ROLE_PRIMARY && nm->gen_exposed &&
		peer->cur && peer->cur != nm->gen_exposed;
	if (stale) {
		nm->want_connect = false;
		exposed = nm->gen_exposed;
	} else {
		nm->gen_cmp = NM_GC_UNKNOWN;
		nm->eq_marks = 0;
	}
	spin_unlock_irqrestore(&nm->lock, flags);
	if (!stale)
		return NULL;
	nm_err(nm, "refusing %s: this diskless primary exposes data of generation %016llx, the peer's is %016llx (changed meanwhile): make this node secondary first",
	       nm->peer_str, exposed, peer->cur);
	return "stale_primary";
}

/*
 * "primary", "force_primary" and "secondary".  An outdated or inconsistent
 * disk is promoted only by force_primary, and only while the peer is not
 * connected with better data: its data becomes this node's newest (a new
 * generation), so the peer's newer writes, if any, meet it as a split
 * brain.
 */
/*
 * "invalidate" (drbdadm invalidate): a secondary throws its data away as
 * a whole: every region out of sync and the disk inconsistent, on the
 * metadata first; the caller drops the link so that the next handshake
 * makes the peer resync all of it.  For a disk restored from a backup, or
 * one whose contents are otherwise not trusted.  Process context.
 */
int nm_invalidate(struct nm_dev *nm)
{
	unsigned long flags;

	might_sleep();
	spin_lock_irqsave(&nm->lock, flags);
	if (nm->role == NM_ROLE_PRIMARY || nm->disk == NM_DISK_DISKLESS) {
		spin_unlock_irqrestore(&nm->lock, flags);
		nm_err(nm, "invalidate: only a secondary with its disk attached");
		return -EBUSY;
	}
	bitmap_fill(nm->rg.oos, nm->rg.nr);
	bitmap_zero(nm->rg.rs_dirty, nm->rg.nr);
	__nm_go_inconsistent(nm);
	spin_unlock_irqrestore(&nm->lock, flags);
	if (nm_disk_state_save(nm)) {
		nm_err(nm, "invalidate: cannot write the metadata device");
		return -EIO;
	}
	nm_warn(nm, "invalidated: all regions will be resynced from the peer");
	dm_table_event(nm->ti->table);
	return 0;
}

int nm_set_role(struct nm_dev *nm, enum nm_role role, bool force,
		char *result, unsigned int maxlen)
{
	unsigned long flags;
	unsigned int sz = 0;
	bool forced = false, unsaved;

	might_sleep();
	/*
	 * Not connected: the peer's writes still going to our disk land
	 * first.  A link that ended drains them only after its state changed
	 * (nm_teardown), and a new primary must neither read past them nor
	 * have its own writes overtaken by them.  Up to 1.18.3 a promotion
	 * right after a link loss read the old data of a write the peer had
	 * acknowledged under A and B (nm-demote-inflight, linkloss).  On a
	 * live link the peer's demotion drains them (nm_h_state), and a
	 * primary peer refuses us below at once.  Checked again under the
	 * lock after the wait.
	 */
again:
	if (role == NM_ROLE_PRIMARY && READ_ONCE(nm->role) != NM_ROLE_PRIMARY &&
	    READ_ONCE(nm->cstate) < NM_C_CONNECTED &&
	    wait_event_killable(nm->peer_wq,
				!atomic_read(&nm->peer_inflight))) {
		DMEMIT("interrupted: the peer's writes to this disk are still in flight");
		return -EINTR;
	}
	spin_lock_irqsave(&nm->lock, flags);
	/* the link went down since the look above: wait for its writes */
	if (role == NM_ROLE_PRIMARY && nm->role != NM_ROLE_PRIMARY &&
	    nm->cstate < NM_C_CONNECTED && atomic_read(&nm->peer_inflight)) {
		spin_unlock_irqrestore(&nm->lock, flags);
		goto again;
	}
	if (role == NM_ROLE_PRIMARY && nm->cstate >= NM_C_CONNECTED &&
	    nm->peer_role == NM_ROLE_PRIMARY) {
		spin_unlock_irqrestore(&nm->lock, flags);
		nm_err(nm, "refusing to become primary: the peer is primary");
		DMEMIT("refused: the peer is primary");
		return -EBUSY;
	}
	if (role == NM_ROLE_PRIMARY && nm->role != NM_ROLE_PRIMARY &&
	    nm->disk == NM_DISK_DISKLESS) {
		spin_unlock_irqrestore(&nm->lock, flags);
		nm_err(nm, "refusing to become primary: local disk is not usable");
		DMEMIT("refused: local disk is not usable");
		return -EBUSY;
	}
	if (role == NM_ROLE_PRIMARY && nm->role != NM_ROLE_PRIMARY &&
	    (nm->disk == NM_DISK_INCONSISTENT ||
	     nm->disk == NM_DISK_OUTDATED)) {
		if (!force) {
			spin_unlock_irqrestore(&nm->lock, flags);
			nm_err(nm, "refusing to become primary: local disk is %s; force_primary overrides",
			       nm_disk_name(nm->disk));
			DMEMIT("refused: local disk is %s", nm_disk_name(nm->disk));
			return -EBUSY;
		}
		if (nm->cstate >= NM_C_CONNECTED &&
		    nm->peer_disk == NM_DISK_UPTODATE) {
			spin_unlock_irqrestore(&nm->lock, flags);
			nm_err(nm, "refusing force_primary: connected to a peer with uptodate data (disconnect first)");
			DMEMIT("refused: connected to an uptodate peer");
			return -EBUSY;
		}
		forced = true;
	}
	/*
	 * Two secondaries of one generation, the peer the resync source
	 * (eq_marks < 0: it stopped as primary, or came with the marks), and
	 * its resync into this node not begun yet (from P_RS_START this disk
	 * is inconsistent, refused above): promoted now, this node would be
	 * the source instead (nm_is_source) and overwrite the writes the peer
	 * holds alone, under A acknowledged ones.  Until 1.18.13 a promotion
	 * between the connect and the resync's start (the bitmap exchange)
	 * did so.  force_primary overrides.  Cleared at P_RS_DONE.
	 */
	if (role == NM_ROLE_PRIMARY && nm->role != NM_ROLE_PRIMARY &&
	    !force && nm->cstate >= NM_C_CONNECTED && nm->eq_marks < 0) {
		spin_unlock_irqrestore(&nm->lock, flags);
		nm_err(nm, "refusing to become primary: the peer's data is the resync source (it stopped as primary) and its resync into this node has not run; force_primary overrides");
		DMEMIT("refused: the peer's resync into this node comes first");
		return -EBUSY;
	}
	if (role == NM_ROLE_SECONDARY && nm->cstate == NM_C_SYNC_SOURCE) {
		spin_unlock_irqrestore(&nm->lock, flags);
		nm_err(nm, "refusing to become secondary during a resync");
		DMEMIT("refused: resync in progress");
		return -EBUSY;
	}
	if (nm->role == role) {		/* a repeated message: nothing to do */
		spin_unlock_irqrestore(&nm->lock, flags);
		return 0;
	}
	if (forced) {
		nm_warn(nm, "force_primary: promoting a %s disk; its data is now this node's newest",
			nm_disk_name(nm->disk));
		__nm_state_set(nm, NM_ST_DISK, NM_DISK_UPTODATE);
		if (nm->meta)
			nm_meta_set_flags(nm->meta, NM_MF_CONSISTENT,
					  NM_MF_OUTDATED);
	}
	__nm_state_set(nm, NM_ST_ROLE, role);
	/*
	 * A demotion leaves NM_MF_PRIMARY: under A the last writes may still
	 * be on their way, and it goes once the peer holds them all
	 * (nm_stable_point) or a resync made the disks equal.
	 */
	if (role == NM_ROLE_PRIMARY)
		__nm_primary_flag(nm, true);
	nm->send_state = true;
	if (role == NM_ROLE_PRIMARY)
		nm->thaw_fail = 0;	/* a new primary's writes are held again */
	/*
	 * Promoted alone, or forced (then connected only to a peer without
	 * an uptodate disk): new data from here, a "younger primary".  Up to
	 * 1.18.19 a forced promotion on a live link (its peer diskless) began
	 * none: the peer, back on its repaired disk with its older
	 * generation, looked newer and overwrote the forced writes
	 * (gen-diskless, part forced).
	 */
	if (role == NM_ROLE_PRIMARY && (nm->cstate < NM_C_CONNECTED || forced))
		__nm_gen_new(nm, false);
	unsaved = nm->gen_unsaved;
	spin_unlock_irqrestore(&nm->lock, flags);
	if (nm->meta)
		nm_meta_commit(nm->meta);
	/*
	 * a new generation or NM_MF_PRIMARY: the new primary's writes wait on
	 * gen_wait until nm_gen_work saved it (a commit that failed here is
	 * tried again there; failing again, it fails them)
	 */
	if (unsaved)
		queue_work(nm->wq, &nm->gen_work);
	nm_conn_kick(nm);
	nm_sync_kick(nm);
	dm_table_event(nm->ti->table);
	return 0;
}

const char *nm_disk_name(enum nm_disk d)
{
	return nm_disk_names[d];
}

/*
 * Allowed transitions, [from] = bit mask of the states it may go to.
 * Connection: any state may fall back to standalone or connecting (the
 * link ended); only a connected link starts a resync, and a resync ends
 * connected.  Disk: uptodate becomes outdated when the handshake finds the
 * peer's data newer; uptodate/outdated become inconsistent when a resync
 * into them starts; an inconsistent disk becomes uptodate when the resync
 * is done, an outdated one when a resync had nothing to send (or by
 * force_primary); any disk may detach; only a detached disk is attached
 * (inconsistent).
 */
#define NM_DOWN	(BIT(NM_C_STANDALONE) | BIT(NM_C_CONNECTING))
static const u8 nm_cstate_next[] = {
	[NM_C_STANDALONE] = NM_DOWN,
	[NM_C_CONNECTING] = NM_DOWN | BIT(NM_C_CONNECTED),
	[NM_C_CONNECTED] = NM_DOWN | BIT(NM_C_CONNECTED) |
			   BIT(NM_C_SYNC_SOURCE) | BIT(NM_C_SYNC_TARGET),
	[NM_C_SYNC_SOURCE] = NM_DOWN | BIT(NM_C_CONNECTED) |
			     BIT(NM_C_SYNC_SOURCE),
	[NM_C_SYNC_TARGET] = NM_DOWN | BIT(NM_C_CONNECTED) |
			     BIT(NM_C_SYNC_TARGET),
};

#undef NM_DOWN

static const u8 nm_disk_next[NM_DISK_MAX] = {
	[NM_DISK_UNKNOWN] = 0,
	[NM_DISK_UPTODATE] = BIT(NM_DISK_UPTODATE) | BIT(NM_DISK_INCONSISTENT) |
			     BIT(NM_DISK_OUTDATED) | BIT(NM_DISK_DISKLESS),
	[NM_DISK_INCONSISTENT] = BIT(NM_DISK_INCONSISTENT) |
				 BIT(NM_DISK_UPTODATE) | BIT(NM_DISK_DISKLESS),
	[NM_DISK_OUTDATED] = BIT(NM_DISK_OUTDATED) | BIT(NM_DISK_INCONSISTENT) |
			     BIT(NM_DISK_UPTODATE) | BIT(NM_DISK_DISKLESS),
	[NM_DISK_DISKLESS] = BIT(NM_DISK_DISKLESS) | BIT(NM_DISK_INCONSISTENT),
};

/*
 * The one function that changes this node's connection state, disk state
 * or role.  Checks the transition against the tables above, logs it with
 * the device name and raises a table event (from a work item: callers may
 * be in any context).  Returns 0, or -EPROTO for a transition the tables
 * forbid (nothing changes; a packet that asked for it drops the link).
 * Caller holds nm->lock.
 */
int __nm_state_set(struct nm_dev *nm, enum nm_state_what what, int val)
{
	int old;
	bool ok;

	lockdep_assert_held(&nm->lock);
	switch (what) {
	case NM_ST_CSTATE:
		old = nm->cstate;
		ok = nm_cstate_next[old] & BIT(val);
		break;
	case NM_ST_DISK:
		old = nm->disk;
		ok = nm_disk_next[old] & BIT(val);
		break;
	case NM_ST_ROLE:
		old = nm->role;
		ok = true;
		break;
	default:
		return -EINVAL;
	}
	if (old == val)
		return 0;
	if (!ok) {
		nm_err_limit(nm, "refused %s change %s -> %s",
			     what == NM_ST_CSTATE ? "connection" : "disk",
			     what == NM_ST_CSTATE ? nm_cstate_name(old) :
			     nm_disk_name(old),
			     what == NM_ST_CSTATE ? nm_cstate_name(val) :
			     nm_disk_name(val));
		return -EPROTO;
	}
	switch (what) {
	case NM_ST_CSTATE:
		nm->cstate = val;
		nm_info(nm, "connection %s -> %s", nm_cstate_name(old),
			nm_cstate_name(val));
		break;
	case NM_ST_DISK:
		nm->disk = val;
		nm_info(nm, "disk %s -> %s", nm_disk_name(old),
			nm_disk_name(val));
		break;
	case NM_ST_ROLE:
		nm->role = val;
		nm_info(nm, "role %s -> %s", nm_role_name(old),
			nm_role_name(val));
		break;
	}
	if (nm->wq)
		queue_work(nm->wq, &nm->event_work);
	return 0;
}

/* As __nm_state_set, taking nm->lock. */
int nm_state_set(struct nm_dev *nm, enum nm_state_what what, int val)
{
	unsigned long flags;
	int r;

	spin_lock_irqsave(&nm->lock, flags);
	r = __nm_state_set(nm, what, val);
	spin_unlock_irqrestore(&nm->lock, flags);
	return r;
}

/* A fresh random generation tag (never 0, which means "none"). */
static u64 nm_gen_tag(void)
{
	u64 v;

	do {
		v = get_random_u64();
	} while (!v);
	return v;
}

/*
 * Start a new data generation: this node changes data the peer does not
 * get (a primary writing while disconnected, a promotion while
 * disconnected, a primary's lost link with writes the peer may lack).
 * @primary_before: this node was primary already when the link went (an
 * "older primary" for after_sb_0pri), not promoted alone.
 * Caller holds nm->lock; the caller then saves it (nm_gen_save, or
 * queues nm_gen_work).
 */
void __nm_gen_new(struct nm_dev *nm, bool primary_before)
{
	lockdep_assert_held(&nm->lock);
	if (nm->gen_fresh)
		return;
	nm_gens_new_as(&nm->gen, nm_gen_tag(), primary_before);
	nm->gen_fresh = true;
	nm->gen_seq++;
	if (nm->meta) {
		nm_meta_set_gens(nm->meta, &nm->gen);
		/* writes wait on gen_wait until nm_gen_save saves it */
		nm->gen_unsaved = true;
	}
	/* status field generation: as a state change */
	if (nm->wq)
		queue_work(nm->wq, &nm->event_work);
	nm_info(nm, "new data generation %016llx (last common %016llx)",
		nm->gen.cur, nm->gen.bitmap);
}

/* Log up to 8 of our out-of-sync regions (what a split brain changed). */
static void nm_log_changed(struct nm_dev *nm, unsigned long n)
{
	unsigned long r, k = 0, shown[8];

	for_each_set_bit(r, nm->rg.oos, nm->rg.nr) {
		shown[k++] = r;
		if (k == ARRAY_SIZE(shown))
			break;
	}
	nm_err(nm, "split brain: this node changed %lu regions of %u sectors since the last common generation%s %lu %lu %lu %lu %lu %lu %lu %lu",
	       n, nm->region_sectors, k ? ", the first:" : "",
	       k > 0 ? shown[0] : 0, k > 1 ? shown[1] : 0,
	       k > 2 ? shown[2] : 0, k > 3 ? shown[3] : 0,
	       k > 4 ? shown[4] : 0, k > 5 ? shown[5] : 0,
	       k > 6 ? shown[6] : 0, k > 7 ? shown[7] : 0);
}

/*
 * Under nm->lock: a secondary whose metadata says it stopped as primary
 * (NM_MF_PRIMARY: a crash, or a remove without a demotion), and no resync
 * has made the disks equal since.  P_GENS carries it (NM_GF_CRASHED_PRI).
 */
bool __nm_crashed_pri(struct nm_dev *nm)
{
	lockdep_assert_held(&nm->lock);
	return nm->meta && nm->role != NM_ROLE_PRIMARY &&
	       (nm_meta_flags(nm->meta) & NM_MF_PRIMARY);
}

/*
 * Under nm->lock: set or clear NM_MF_PRIMARY on the metadata; the caller
 * commits.  Set by a promotion (and a table that starts primary): the
 * primary's writes wait until it is on the metadata (gen_unsaved, as for
 * a new generation: nm_gen_save lets them go, or fails them if the commit
 * fails).  Cleared on a secondary once the peer holds every write of ours
 * (nm_stable_point: connected, in sync, no write in flight or
 * unconfirmed), a resync made the disks equal (either side), or the
 * handshake found one generation and nothing marked on either side.
 */
void __nm_primary_flag(struct nm_dev *nm, bool set)
{
	lockdep_assert_held(&nm->lock);
	if (!nm->meta)
		return;
	if (set && !(nm_meta_flags(nm->meta) & NM_MF_PRIMARY)) {
		nm->gen_seq++;
		nm->gen_unsaved = true;
	}
	nm_meta_set_flags(nm->meta, set ? NM_MF_PRIMARY : 0,
			  set ? 0 : NM_MF_PRIMARY);
}

/*
 * Handshake: compare our generations with the peer's (@peer_gf its P_GENS
 * flags: NM_GF_DISCARD_MY_DATA, the peer gives up its changes;
 * NM_GF_CRASHED_PRI, and @crashed ours as sent, see nm_gens_eq_marks) and
 * decide the resync direction for this link.
 * Returns NULL to keep the link, or the last_error word refusing it: a
 * split brain, unrelated data, another pair's metadata, or a primary whose
 * data is older than the peer's.  A refused link is not retried
 * (standalone) until "connect": nothing is overwritten meanwhile.
 */
const char *nm_gen_verdict(struct nm_dev *nm, const struct nm_gens *peer,
			   u32 peer_gf, u64 peer_changed, bool crashed)
{
	bool discard = peer_gf & NM_GF_DISCARD_MY_DATA;
	bool peer_crashed = peer_gf & NM_GF_CRASHED_PRI;
	unsigned long flags, n;
	enum nm_gen_cmp cmp;
	const char *why = NULL, *how = NULL;
	bool mine, split, full, old_copy = false;
	int npri = 0;

	spin_lock_irqsave(&nm->lock, flags);
	mine = nm->discard_my_data;
	cmp = nm_gens_compare(&nm->gen, peer);
	if (cmp != NM_GC_OTHER_PAIR && (nm->disk == NM_DISK_DISKLESS ||
					nm->peer_disk == NM_DISK_DISKLESS)) {
		spin_unlock_irqrestore(&nm->lock, flags);
		return nm_gen_verdict_diskless(nm, peer);
	}
	n = nm_regions_oos_count(&nm->rg);
	split = cmp == NM_GC_SPLIT;
	if (split && mine != discard) {
		cmp = mine ? NM_GC_TARGET : NM_GC_SOURCE;
		how = "discard_my_data";
	} else if (split && !mine) {
		struct nm_sb_side me = {
			.primary = nm->role == NM_ROLE_PRIMARY,
			.bitmap_pri = nm->gen.bitmap_pri,
			.changed = n,
			.cur = nm->gen.cur,
		}, pe = {
			.primary = nm->peer_role == NM_ROLE_PRIMARY,
			.bitmap_pri = peer->bitmap_pri,
			.changed = peer_changed,
			.cur = peer->cur,
		};

		npri = me.primary + pe.primary;
		cmp = nm_gens_after_sb(nm->after_sb[0], nm->after_sb[1],
				       &me, &pe);
		if (cmp != NM_GC_SPLIT)
			how = npri ? "after_sb_1pri" : "after_sb_0pri";
	}
	switch (cmp) {
	case NM_GC_SPLIT:
		why = "split_brain";
		break;
	case NM_GC_UNRELATED:
		why = "unrelated_data";
		break;
	case NM_GC_OTHER_PAIR:
		why = "other_pair";
		break;
	case NM_GC_TARGET:
		/*
		 * A primary being resynced after "attach" (inconsistent)
		 * exposes the peer's data: it may be the target of the data
		 * it was exposing (nm_gen_verdict_diskless), of nothing else.
		 */
		if (nm->role == NM_ROLE_PRIMARY &&
		    !(nm->disk == NM_DISK_INCONSISTENT && nm->gen_exposed &&
		      nm->gen_exposed == peer->cur))
			why = "stale_primary";
		break;
	default:
		break;
	}
	/*
	 * An old copy on one side (a restored backup): its bitmap does not
	 * say what it lacks.  Refused unless it was invalidated (then its
	 * disk is inconsistent and it is resynced whole).
	 */
	full = !why && !split && nm_gens_full(&nm->gen, peer, cmp);
	if (full && (cmp == NM_GC_SOURCE ? nm->peer_disk : nm->disk) !=
		    NM_DISK_INCONSISTENT) {
		why = "old_copy";
		old_copy = true;
		full = false;
	}
	if (full) {
		bitmap_fill(nm->rg.oos, nm->rg.nr);
		if (nm->meta)
			nm_meta_set_bits(nm->meta, nm->rg.oos);
	}
	if (why) {
		nm->want_connect = false;
	} else {
		nm->gen_cmp = cmp;
		/* a primary that stopped with writes in flight (nm_is_source) */
		nm->eq_marks = cmp == NM_GC_EQUAL && (n || peer_changed) ?
			       nm_gens_eq_marks(n, peer_changed, crashed,
						peer_crashed) : 0;
		/* one generation, nothing marked: the disks are equal */
		if (cmp == NM_GC_EQUAL && !n && !peer_changed &&
		    nm->role != NM_ROLE_PRIMARY)
			__nm_primary_flag(nm, false);
		nm->discard_my_data = false;
		if (cmp == NM_GC_TARGET)
			__nm_go_outdated(nm);
		/* outdated by a fence, but the peer wrote nothing since */
		if (cmp == NM_GC_EQUAL && nm->disk == NM_DISK_OUTDATED)
			__nm_go_uptodate(nm);
		/* same generation: an old bitmap one is obsolete (a lost confirmation) */
		if (cmp == NM_GC_EQUAL && nm->gen.bitmap) {
			nm_gens_synced_source(&nm->gen);
			if (nm->meta)
				nm_meta_set_gens(nm->meta, &nm->gen);
		}
	}
	spin_unlock_irqrestore(&nm->lock, flags);
	if (!why)
		nm_disk_state_save(nm);

	if (split) {
		nm_log_changed(nm, n);
		if (how)
			nm_warn(nm, "split brain with %s since generation %016llx resolved by %s (%d primary): %s",
				nm->peer_str, nm->gen.bitmap, how, npri,
				cmp == NM_GC_TARGET ?
				"this node's changes are replaced by the peer's" :
				"the peer's changes are replaced by this node's");
	}
	if (full || old_copy)
		nm_warn(nm, "%s data is an old copy (generation %016llx, replaced since by %016llx): %s",
			cmp == NM_GC_SOURCE ? "the peer's" : "this node's",
			cmp == NM_GC_SOURCE ? peer->cur : nm->gen.cur,
			cmp == NM_GC_SOURCE ? nm->gen.cur : peer->cur,
			full ? "it was invalidated, resyncing the whole device" :
			cmp == NM_GC_SOURCE ?
			"refusing; run invalidate on the peer to resync it whole" :
			"refusing; run invalidate here to resync it whole");
	switch (old_copy ? NM_GC_UNKNOWN : cmp) {
	case NM_GC_SPLIT:
		nm_err(nm, "split brain with %s: both changed the data since generation %016llx (the peer %llu regions); refusing, disks untouched: resolve with \"discard_my_data\" and \"connect\" on the node whose changes go",
		       nm->peer_str, nm->gen.bitmap, peer_changed);
		break;
	case NM_GC_UNRELATED:
		nm_err(nm, "refusing %s: no common data generation (ours %016llx, the peer's %016llx): not this pair's data",
		       nm->peer_str, nm->gen.cur, peer->cur);
		break;
	case NM_GC_OTHER_PAIR:
		nm_err(nm, "refusing %s: its metadata belongs to another pair (%016llx, ours %016llx)",
		       nm->peer_str, peer->pair, nm->gen.pair);
		break;
	case NM_GC_TARGET:
		if (why)
			nm_err(nm, "refusing %s: this primary's data (%016llx) is older than the peer's (%016llx): make this node secondary to resync from the peer",
			       nm->peer_str, nm->gen.cur, peer->cur);
		else
			nm_info(nm, "the peer's data is newer (%016llx): this node is the resync target",
				peer->cur);
		break;
	case NM_GC_SOURCE:
		nm_info(nm, "this node's data is newer (%016llx): it is the resync source",
			nm->gen.cur);
		break;
	case NM_GC_EQUAL:
		if (!why && crashed != peer_crashed && (n || peer_changed))
			nm_info(nm, "same generation, %s stopped as primary (%lu regions marked here, %llu on the peer): %s the resync source unless the other node is primary",
				crashed ? "this node" : "the peer", n,
				peer_changed,
				crashed ? "this node is" : "the peer is");
		else if (!why && nm_gens_eq_marks(n, peer_changed, false, false))
			nm_info(nm, "same generation, %s %llu regions marked (writes in flight when a primary stopped): %s the resync source unless the other node is primary",
				n ? "this node has" : "only the peer has",
				n ? (u64)n : peer_changed,
				n ? "this node is" : "the peer is");
		break;
	default:
		break;
	}
	return why;
}

/*
 * A P_STATE after our P_RS_DONE: if it carries our generation (@peer_gen)
 * and the disk state @peer_disk uptodate, the peer took it, so ours no
 * longer needs the last common one.  A P_STATE the peer sent before it
 * took P_RS_DONE carries its old one and confirms nothing.
 *
 * The peer drained and flushed everything we sent before P_RS_DONE, so
 * every region that is in sync and has no write in flight or unconfirmed
 * (the transfer log) is stable there: its mark goes now, in the same
 * commit, not at the next lazy-clearing pass.  A mark left behind would
 * be resynced again after a reload and counted as a change of ours at a
 * split brain.  Called before the peer's disk state is published, so a
 * status that shows the peer uptodate shows the marks committed.
 * nm_conn thread, may sleep.
 */
void nm_gen_handed_over(struct nm_dev *nm, u64 peer_gen, u32 peer_disk)
{
	unsigned long flags;
	bool done = false;

	might_sleep();
	spin_lock_irqsave(&nm->lock, flags);
	if (nm->gen_handover && peer_disk == NM_DISK_UPTODATE &&
	    nm_gens_confirms(&nm->gen, peer_gen)) {
		nm->gen_handover = false;
		nm_gens_synced_source(&nm->gen);
		if (nm->meta) {
			const unsigned long *const keep[] = {
				nm->rg.oos, nm->rg.active, nm->rg.sent,
				nm->rg.syncing
			};

			nm_meta_set_gens(nm->meta, &nm->gen);
			nm_meta_clear_bits(nm->meta, NULL, keep,
					   ARRAY_SIZE(keep));
		}
		/* a crashed primary's resync is over: the disks are equal */
		if (nm->role != NM_ROLE_PRIMARY)
			__nm_primary_flag(nm, false);
		done = true;
	}
	spin_unlock_irqrestore(&nm->lock, flags);
	if (done && nm->meta)
		nm_meta_commit(nm->meta);
}

/*
 * "outdate" (what a fence handler runs on this node for its primary): a
 * disconnected secondary declares its data old, on the metadata too, so
 * that it is not promoted (without force_primary) while the primary goes
 * on writing alone.  Process context.
 */
int nm_outdate(struct nm_dev *nm)
{
	unsigned long flags;

	might_sleep();
	spin_lock_irqsave(&nm->lock, flags);
	if (nm->role == NM_ROLE_PRIMARY || nm->cstate >= NM_C_CONNECTED) {
		spin_unlock_irqrestore(&nm->lock, flags);
		nm_err(nm, "outdate: only a disconnected secondary");
		return -EBUSY;
	}
	/*
	 * Outdated or worse already: that is what the caller wants, once it
	 * is on the metadata.  A fence handler that saw the commit fail asks
	 * again: the commit is tried again, not taken as done (up to 1.17.8
	 * the second "outdate" returned 0 with the metadata still saying
	 * uptodate, and a reboot brought the node back promotable:
	 * fault-metaerror, outdate).
	 */
	if (nm->disk == NM_DISK_DISKLESS ||
	    (nm->disk != NM_DISK_UPTODATE && !__nm_disk_unsaved(nm))) {
		spin_unlock_irqrestore(&nm->lock, flags);
		return nm->disk == NM_DISK_DISKLESS ? -EBUSY : 0;
	}
	__nm_go_outdated(nm);
	spin_unlock_irqrestore(&nm->lock, flags);
	if (nm_disk_state_save(nm)) {
		nm_err(nm, "outdate: cannot write the metadata device");
		return -EIO;
	}
	nm_info(nm, "outdated: the primary goes on without this node");
	return 0;
}

/* "discard_my_data": at the next split brain, this node's changes go. */
int nm_discard_my_data(struct nm_dev *nm)
{
	unsigned long flags;

	spin_lock_irqsave(&nm->lock, flags);
	if (nm->cstate >= NM_C_CONNECTED) {
		spin_unlock_irqrestore(&nm->lock, flags);
		nm_err(nm, "discard_my_data: only while not connected");
		return -EBUSY;
	}
	nm->discard_my_data = true;
	spin_unlock_irqrestore(&nm->lock, flags);
	nm_info(nm, "discard_my_data: at the next connect this node's changes since the split are replaced by the peer's");
	return 0;
}
