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

void nm_set_error(struct nm_dev *nm, const char *word)
{
	unsigned long flags;

	spin_lock_irqsave(&nm->lock, flags);
	strscpy(nm->last_error, word, sizeof(nm->last_error));
	spin_unlock_irqrestore(&nm->lock, flags);
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
	}
	spin_unlock_irqrestore(&nm->lock, flags);
	if (first) {
		nm_err(nm, "local disk I/O error (%d): detached, now diskless", err);
		nm_set_error(nm, "disk_failed");
		wake_up(&nm->send_wq);
		queue_work(nm->wq, &nm->event_work);
	}
	return true;
}

/* "attach": take the disk back as inconsistent, resync it from the peer. */
int nm_attach(struct nm_dev *nm)
{
	unsigned long flags;

	might_sleep();

	spin_lock_irqsave(&nm->lock, flags);
	if (nm->disk != NM_DISK_DISKLESS) {
		spin_unlock_irqrestore(&nm->lock, flags);
		nm_err(nm, "attach: the disk is not detached");
		return -EINVAL;
	}
	__nm_state_set(nm, NM_ST_DISK, NM_DISK_INCONSISTENT);
	bitmap_fill(nm->rg.oos, nm->rg.nr);
	bitmap_zero(nm->rg.rs_dirty, nm->rg.nr);
	if (nm->meta) {
		nm_meta_set_bits(nm->meta, nm->rg.oos);
		nm_meta_set_flags(nm->meta, 0, NM_MF_CONSISTENT);
	}
	spin_unlock_irqrestore(&nm->lock, flags);
	if (nm->meta)
		nm_meta_commit(nm->meta);
	nm_info(nm, "disk attached, inconsistent: resyncing from the peer");
	dm_table_event(nm->ti->table);
	return 0;
}

int nm_set_role(struct nm_dev *nm, enum nm_role role, char *result,
		unsigned int maxlen)
{
	unsigned long flags;
	unsigned int sz = 0;

	spin_lock_irqsave(&nm->lock, flags);
	if (role == NM_ROLE_PRIMARY && nm->cstate >= NM_C_CONNECTED &&
	    nm->peer_role == NM_ROLE_PRIMARY) {
		spin_unlock_irqrestore(&nm->lock, flags);
		nm_err(nm, "refusing to become primary: the peer is primary");
		DMEMIT("refused: the peer is primary");
		return -EBUSY;
	}
	if (role == NM_ROLE_PRIMARY && nm->role != NM_ROLE_PRIMARY &&
	    (nm->disk == NM_DISK_INCONSISTENT || nm->disk == NM_DISK_DISKLESS)) {
		spin_unlock_irqrestore(&nm->lock, flags);
		nm_err(nm, "refusing to become primary: local disk is not usable");
		DMEMIT("refused: local disk is not usable");
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
	__nm_state_set(nm, NM_ST_ROLE, role);
	nm->send_state = true;
	spin_unlock_irqrestore(&nm->lock, flags);
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
 * connected.  Disk: uptodate/outdated become inconsistent at the first
 * resync write; only an inconsistent disk becomes uptodate (resync done);
 * any disk may detach; only a detached disk is attached (inconsistent).
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
			     BIT(NM_DISK_DISKLESS),
	[NM_DISK_INCONSISTENT] = BIT(NM_DISK_INCONSISTENT) |
				 BIT(NM_DISK_UPTODATE) | BIT(NM_DISK_DISKLESS),
	[NM_DISK_OUTDATED] = BIT(NM_DISK_OUTDATED) | BIT(NM_DISK_INCONSISTENT) |
			     BIT(NM_DISK_DISKLESS),
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
