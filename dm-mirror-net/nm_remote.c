// SPDX-License-Identifier: GPL-2.0
/*
 * netmirror: local disk failures (on_io_error) and reads served by the peer.
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
 * Contexts: nm_detach() any (bio completion included); nm_peer_read() and
 * nm_recv_read_reply() the nm_conn thread; nm_attach() process context
 * (message).  Lock order: tx_mutex, then nm->lock; nothing sleeps under
 * nm->lock.
 */
#include <linux/slab.h>
#include <linux/blkdev.h>
#include <linux/bitmap.h>
#include <linux/highmem.h>
#include <linux/mm.h>
#include "dm-netmirror.h"

static const char *nm_name(struct nm_dev *nm)
{
	return dm_device_name(dm_table_get_md(nm->ti->table));
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

	if (!nm->detach_on_error)
		return false;
	spin_lock_irqsave(&nm->lock, flags);
	if (nm->disk != NM_DISK_DISKLESS) {
		nm->disk = NM_DISK_DISKLESS;
		nm->send_state = true;
		first = true;
	}
	spin_unlock_irqrestore(&nm->lock, flags);
	if (first) {
		DMERR("local disk I/O error (%d): detached, now diskless", err);
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
		DMERR("%s: attach: the disk is not detached", nm_name(nm));
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
	DMINFO("%s: disk attached, inconsistent: resyncing from the peer",
	       nm_name(nm));
	/* a new handshake carries our disk state and the full bitmap */
	nm_conn_drop(nm);
	dm_table_event(nm->ti->table);
	return 0;
}

/* Under nm->lock: must this read be served by the peer? */
static bool nm_read_remote_locked(struct nm_dev *nm, struct bio *bio)
{
	unsigned long f, l, r;

	if (nm->disk == NM_DISK_DISKLESS)
		return true;
	if (nm->disk != NM_DISK_INCONSISTENT)
		return false;
	nm_regions(nm, bio, &f, &l);
	for (r = f; r <= l; r++)
		if (test_bit(r, nm->oos) || test_bit(r, nm->rs_writing))
			return true;
	return false;
}

/*
 * Queue @bio as a read from the peer.  Returns DM_MAPIO_SUBMITTED, or
 * DM_MAPIO_KILL when there is no peer to read from.
 */
int nm_read_from_peer(struct nm_dev *nm, struct bio *bio)
{
	struct nm_req *req = dm_per_bio_data(bio, sizeof(struct nm_req));
	unsigned long flags;

	req->nm = nm;
	req->bio = bio;
	req->status = BLK_STS_OK;
	req->flags = BIT(NM_REQ_READ) | BIT(NM_REQ_REMOTE);
	INIT_LIST_HEAD(&req->list);
	atomic_set(&req->ref, 1);
	spin_lock_irqsave(&nm->lock, flags);
	if (nm->cstate < NM_C_CONNECTED || nm->peer_disk != NM_DISK_UPTODATE) {
		spin_unlock_irqrestore(&nm->lock, flags);
		return DM_MAPIO_KILL;
	}
	req->id = nm->next_id++;
	req->queued_at = jiffies;
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
	struct nm_req *req = dm_per_bio_data(bio, sizeof(struct nm_req));
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
	return DM_MAPIO_REMAPPED;
}

/*
 * end_io of a read: a local read error with "detach" detaches the disk and
 * retries the read on the peer (DM_ENDIO_INCOMPLETE: the bio is ended again
 * when the reply arrives, and then this returns DM_ENDIO_DONE).
 */
int nm_read_endio(struct nm_dev *nm, struct bio *bio, blk_status_t *error)
{
	struct nm_req *req = dm_per_bio_data(bio, sizeof(struct nm_req));

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
	struct nm_req *req, *found = NULL;
	struct bvec_iter iter;
	struct bio_vec bv;
	unsigned long flags;
	u64 id = be64_to_cpu(a->id);
	int r = 0;

	spin_lock_irqsave(&nm->lock, flags);
	list_for_each_entry(req, &nm->wait_q, list) {
		if (req->id == id && test_bit(NM_REQ_READ, &req->flags)) {
			found = req;
			clear_bit(NM_REQ_QUEUED, &req->flags);
			list_del_init(&req->list);
			break;
		}
	}
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
	if (!r)
		atomic64_add(len, &nm->bytes_received);
	nm_req_peer_done(found, !r && !a->status);
	return r;
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

	if (READ_ONCE(nm->disk) != NM_DISK_UPTODATE)
		goto fail;
	nm_peer_wait_overlaps(nm, sector, size >> SECTOR_SHIFT);
	pages = kcalloc(nr, sizeof(*pages), GFP_NOIO);
	vec = kcalloc(nr + 1, sizeof(*vec), GFP_NOIO);
	if (!pages || !vec)
		goto fail;
	bio = bio_alloc(nm->dev->bdev, nr, REQ_OP_READ, GFP_NOIO);
	bio->bi_iter.bi_sector = sector;
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
	r = submit_bio_wait(bio);
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

/* Receiver: the secondary could not write [sector, +size). */
void nm_neg_ack(struct nm_dev *nm, const struct nm_p_rs_ack *a)
{
	DMERR_LIMIT("%s: peer failed a write at sector %llu (%u): out of sync",
		    nm_name(nm), be64_to_cpu(a->sector),
		    be32_to_cpu(a->status));
	nm_mark_oos(nm, be64_to_cpu(a->sector),
		    be32_to_cpu(a->size) >> SECTOR_SHIFT);
}
