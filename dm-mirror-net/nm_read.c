// SPDX-License-Identifier: GPL-2.0
/*
 * netmirror primary: reads.  map() serves a read from the local disk, or
 * from the peer (P_READ_REQ, sent by nm_primary.c's sender; P_READ_REPLY,
 * nm_recv_read_reply) when the local copy is missing (diskless, not
 * uptodate in the region) or failed (nm_read_endio retries it there after
 * a detach).  A read from the peer is a request (struct nm_req) on send_q
 * and wait_q like a write, completed by nm_req_peer_done.
 *
 * Contexts: nm_map_read from map; nm_read_endio from dm's end_io (any
 * context); nm_recv_read_reply in the nm_conn thread.  Lock order: as
 * nm_primary.c (tx_mutex, then nm->lock).
 */
#include <linux/blkdev.h>
#include <linux/highmem.h>
#include <linux/lockdep.h>
#include "dm-netmirror.h"

/* Under nm->lock: must this read be served by the peer? */
static bool nm_read_remote_locked(struct nm_dev *nm, struct bio *bio)
{
	unsigned long f, l, r;

	lockdep_assert_held(&nm->lock);
	if (nm->disk == NM_DISK_DISKLESS)
		return true;
	if (nm->disk != NM_DISK_INCONSISTENT)
		return false;
	nm_regions(nm, bio, &f, &l);
	for (r = f; r <= l; r++)
		if (test_bit(r, nm->rg.oos) || test_bit(r, nm->rg.rs_writing))
			return true;
	return false;
}

/*
 * Queue @bio as a read from the peer.  Returns DM_MAPIO_SUBMITTED, or
 * DM_MAPIO_KILL when there is no peer to read from.
 */
static int nm_read_from_peer(struct nm_dev *nm, struct bio *bio)
{
	struct nm_req *req = nm_req_of(bio);
	unsigned long flags;

	req->nm = nm;
	req->bio = bio;
	req->status = BLK_STS_OK;
	req->flags = BIT(NM_REQ_READ) | BIT(NM_REQ_REMOTE);
	INIT_LIST_HEAD(&req->list);
	atomic_set(&req->ref, 1);
	spin_lock_irqsave(&nm->lock, flags);
	/* only a primary reads through its peer (a secondary gets EIO) */
	if (nm->cstate < NM_C_CONNECTED || nm->peer_disk != NM_DISK_UPTODATE ||
	    nm->role != NM_ROLE_PRIMARY) {
		spin_unlock_irqrestore(&nm->lock, flags);
		return DM_MAPIO_KILL;
	}
	req->id = nm->next_id++;
	set_bit(NM_REQ_PEER, &req->flags);
	set_bit(NM_REQ_QUEUED, &req->flags);
	list_add_tail(&req->list, &nm->send_q);
	spin_unlock_irqrestore(&nm->lock, flags);
	nm_conn_kick(nm);
	return DM_MAPIO_SUBMITTED;
}

/* Map a read: local, or from the peer when our copy is missing or bad. */
int nm_map_read(struct nm_dev *nm, struct bio *bio)
{
	struct nm_req *req = nm_req_of(bio);
	unsigned long flags;
	bool remote;

	spin_lock_irqsave(&nm->lock, flags);
	remote = nm_read_remote_locked(nm, bio);
	spin_unlock_irqrestore(&nm->lock, flags);
	if (remote)
		return nm_read_from_peer(nm, bio);
	req->flags = BIT(NM_REQ_READ);
	req->saved_iter = bio->bi_iter;
	bio_set_dev(bio, nm->dev->bdev);
	bio->bi_iter.bi_sector += nm->data_start;
	return DM_MAPIO_REMAPPED;
}

/*
 * end_io of a read: a local read error with "detach" detaches the disk and
 * retries the read on the peer (DM_ENDIO_INCOMPLETE: the bio is ended again
 * when the reply arrives, and then this returns DM_ENDIO_DONE).
 */
int nm_read_endio(struct nm_dev *nm, struct bio *bio, blk_status_t *error)
{
	struct nm_req *req = nm_req_of(bio);

	if (!*error || test_bit(NM_REQ_REMOTE, &req->flags))
		return DM_ENDIO_DONE;
	if (!nm_detach(nm, blk_status_to_errno(*error)))
		return DM_ENDIO_DONE;
	bio->bi_iter = req->saved_iter;
	bio->bi_status = BLK_STS_OK;
	if (nm_read_from_peer(nm, bio) == DM_MAPIO_KILL)
		return DM_ENDIO_DONE;
	return DM_ENDIO_INCOMPLETE;
}

/* Receiver: a P_READ_REPLY; the fixed part is checked. */
int nm_recv_read_reply(struct nm_dev *nm, const struct nm_p_ack *a, u32 len)
{
	struct nm_req *found;
	struct bvec_iter iter;
	struct bio_vec bv;
	unsigned long flags;
	u64 id = be64_to_cpu(a->id);
	int r = 0;

	spin_lock_irqsave(&nm->lock, flags);
	found = __nm_wait_take(nm, id, true);
	spin_unlock_irqrestore(&nm->lock, flags);
	if (!found)
		return -ENOENT;
	if (!a->status && len - sizeof(*a) != found->bio->bi_iter.bi_size) {
		nm_req_peer_done(found, false);
		return -EPROTO;
	}
	if (!a->status) {
		bio_for_each_segment(bv, found->bio, iter) {
			void *p = kmap_local_page(bv.bv_page);

			r = nm_rx(nm, p + bv.bv_offset, bv.bv_len);
			kunmap_local(p);
			if (r)
				break;
		}
	} else {
		found->status = BLK_STS_IOERR;
	}
	if (!r)
		r = nm_rx_trailer(nm);
	/* bytes_received: nm_dispatch() counted the whole packet */
	nm_req_peer_done(found, !r && !a->status);
	return r;
}
