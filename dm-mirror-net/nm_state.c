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
#include "dm-netmirror.h"

static const char * const nm_cstate_names[] = {
	[NM_C_STANDALONE] = "standalone",
	[NM_C_CONNECTING] = "connecting",
	[NM_C_CONNECTED] = "connected",
	[NM_C_SYNC_SOURCE] = "sync_source",
	[NM_C_SYNC_TARGET] = "sync_target",
};

const char *nm_cstate_name(enum nm_cstate s)
{
	return nm_cstate_names[s];
}

static const char * const nm_disk_names[NM_DISK_MAX] = {
	[NM_DISK_UNKNOWN] = "unknown",
	[NM_DISK_UPTODATE] = "uptodate",
	[NM_DISK_INCONSISTENT] = "inconsistent",
	[NM_DISK_OUTDATED] = "outdated",
	[NM_DISK_DISKLESS] = "diskless",
};

const char *nm_role_name(enum nm_role r)
{
	return r == NM_ROLE_PRIMARY ? "primary" : "secondary";
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
		nm->disk = NM_DISK_DISKLESS;
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
	unsigned long flags, r;

	spin_lock_irqsave(&nm->lock, flags);
	if (nm->disk != NM_DISK_DISKLESS) {
		spin_unlock_irqrestore(&nm->lock, flags);
		nm_err(nm, "attach: the disk is not detached");
		return -EINVAL;
	}
	nm->disk = NM_DISK_INCONSISTENT;
	bitmap_fill(nm->oos, nm->nr_regions);
	bitmap_zero(nm->rs_dirty, nm->nr_regions);
	if (nm->meta) {
		for (r = 0; r < nm->nr_regions; r++)
			nm_meta_set(nm->meta, r);
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
	nm->role = role;
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
