// SPDX-License-Identifier: GPL-2.0
/*
 * netmirror resync: the bitmap exchange, the resync source (thread
 * nm_sync), and lazy clearing of the persistent bitmap.  The target's
 * start and end: nm_rstarget.c.
 *
 * Context: nm_sync_thread (nm_sync/<dev>) may sleep; nm_send_bitmap runs in
 * the sender thread; nm_recv_bitmap and nm_rs_ack in the receiver
 * thread; nm_rs_end_lost in the receiver
 * thread or a message (process context).  Lock order: nm->lock (spinlock,
 * irqsave), inside it the metadata object's own spinlock; nothing sleeps
 * under either.
 *
 * Bitmap exchange: on every new link each side sends its out-of-sync bitmap
 * (P_BITMAP chunks, then P_BITMAP_DONE) and ORs the peer's into its own, so
 * both hold the union.  The source is chosen by nm_is_source(); once both
 * bitmaps crossed it announces P_RS_START and sends every marked region in
 * disk order, at most NM_RS_WINDOW regions unacknowledged.  Each region in
 * flight has its own buffer slot: read into it, sent by reference (its
 * pages are not copied into the socket), free again at its P_RS_ACK; a
 * region read on one link is never sent on the next (conn_gen, checked
 * under tx_mutex).  nm_sync sleeps until a kick (nm_sync_kick: an ack, a
 * completed write, a message) or 100 ms, never a whole tick with work due.
 *
 * A region in resync is "busy": application writes to it wait on rs_wait
 * until its P_RS_ACK, and the region is read only after the writes already
 * in flight to it completed (inflight[] == 0).  So resync data never
 * overtakes, and is never overtaken by, an application write to the same
 * region; the secondary applies overlapping writes in arrival order.
 *
 * The target: P_RS_START makes it sync_target; its first resync write turns
 * the disk inconsistent (durably, with a metadata device) before it lands;
 * P_RS_DONE drains, flushes and makes it uptodate (nm_rstarget.c).
 *
 * Lazy clearing (primary with a metadata device): about once a second, the
 * regions marked on disk that are in sync, idle and not written since the
 * last pass are candidates; after a P_SYNC/P_SYNC_ACK round trip (the
 * secondary drained and flushed) those still untouched are cleared and the
 * bitmap committed.  A hot region therefore costs no metadata write per bio.
 */
#include <linux/kthread.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <linux/bitmap.h>
#include <linux/blkdev.h>
#include <linux/mm.h>
#include <linux/lockdep.h>
#include "dm-netmirror.h"

/* Sender thread: send our bitmap in chunks, then P_BITMAP_DONE. */
int nm_send_bitmap(struct nm_dev *nm)
{
	struct nm_p_bitmap b;
	struct nm_p_count done;
	unsigned long off, i, n, words, fl;
	__be64 *w;
	struct kvec vec[2];
	int r = 0;

	might_sleep();

	w = kmalloc(NM_BITMAP_MAX_BITS / 8, GFP_NOIO);
	if (!w)
		return -ENOMEM;
	for (off = 0; off < nm->rg.nr && !r; off += NM_BITMAP_MAX_BITS) {
		n = min_t(unsigned long, NM_BITMAP_MAX_BITS,
			  nm->rg.nr - off);
		words = DIV_ROUND_UP(n, 64);
		spin_lock_irqsave(&nm->lock, fl);
		for (i = 0; i < words; i++) {
			u64 v = 0;
			unsigned long bit;

			for (bit = 0; bit < 64 && i * 64 + bit < n; bit++)
				if (test_bit(off + i * 64 + bit, nm->rg.oos))
					v |= 1ULL << bit;
			w[i] = cpu_to_be64(v);
		}
		spin_unlock_irqrestore(&nm->lock, fl);
		if (bitmap_empty((unsigned long *)w, words * 64))
			continue;	/* all clear: nothing to OR */
		b.offset = cpu_to_be64(off);
		b.nbits = cpu_to_be32(n);
		b.reserved = 0;
		vec[0].iov_base = &b;
		vec[0].iov_len = sizeof(b);
		vec[1].iov_base = w;
		vec[1].iov_len = words * 8;
		r = nm_send_vec(nm, NM_P_BITMAP, vec, 2);
	}
	kfree(w);
	if (r)
		return r;
	done.count = cpu_to_be64(nm->rg.nr);
	r = nm_send_ctrl(nm, NM_P_BITMAP_DONE, &done, sizeof(done));
	if (!r) {
		spin_lock_irqsave(&nm->lock, fl);
		nm->bm_sent = true;
		spin_unlock_irqrestore(&nm->lock, fl);
		nm_sync_kick(nm);
	}
	return r;
}

/* Receiver: a P_BITMAP chunk (fixed part checked); OR it into ours. */
int nm_recv_bitmap(struct nm_dev *nm, const struct nm_p_bitmap *b, u32 len)
{
	u64 off = be64_to_cpu(b->offset);
	u32 nbits = be32_to_cpu(b->nbits);
	u32 bytes = len - sizeof(*b);
	unsigned long i, bit, fl;
	__be64 *w;
	int r;

	w = kmalloc(NM_BITMAP_MAX_BITS / 8, GFP_NOIO);
	if (!w)
		return -ENOMEM;
	r = nm_rx(nm, w, bytes);
	if (!r)
		r = nm_rx_trailer(nm);
	if (r)
		goto out;
	spin_lock_irqsave(&nm->lock, fl);
	for (i = 0; i < bytes / 8; i++) {
		u64 v = be64_to_cpu(w[i]);

		while (v) {
			bit = __ffs64(v);
			v &= v - 1;
			if (i * 64 + bit < nbits &&
			    off + i * 64 + bit < nm->rg.nr)
				__set_bit(off + i * 64 + bit, nm->rg.oos);
		}
	}
	spin_unlock_irqrestore(&nm->lock, fl);
out:
	kfree(w);
	return r;
}

/* Slot @slot's pages (one region); 0 or -ENOMEM (nothing left half). */
int nm_rs_slot_alloc(struct nm_dev *nm, unsigned int slot, gfp_t gfp)
{
	struct page **pg;
	unsigned int i;

	pg = kcalloc(nm->rs_nr_pages, sizeof(*pg), gfp);
	if (!pg)
		return -ENOMEM;
	for (i = 0; i < nm->rs_nr_pages; i++) {
		pg[i] = alloc_page(gfp);
		if (!pg[i]) {
			while (i--)
				__free_page(pg[i]);
			kfree(pg);
			return -ENOMEM;
		}
	}
	nm->rs_pages[slot] = pg;
	return 0;
}

void nm_rs_slot_free(struct nm_dev *nm, unsigned int slot)
{
	struct page **pg = nm->rs_pages[slot];
	unsigned int i;

	if (!pg)
		return;
	for (i = 0; i < nm->rs_nr_pages; i++)
		__free_page(pg[i]);
	kfree(pg);
	nm->rs_pages[slot] = NULL;
}

/* Under nm->lock: the slot @region's resync holds, or -1. */
static int __nm_rs_slot_of(struct nm_dev *nm, unsigned long region)
{
	unsigned int i;

	lockdep_assert_held(&nm->lock);
	for (i = 0; i < NM_RS_WINDOW; i++)
		if (nm->rs_slot_region[i] == region)
			return i;
	return -1;
}

/* Under nm->lock: the slot of @region's resync is free again. */
static void __nm_rs_slot_put(struct nm_dev *nm, unsigned long region)
{
	int i = __nm_rs_slot_of(nm, region);

	if (i >= 0) {
		nm->rs_slot_region[i] = ULONG_MAX;
		/* its data are the peer's: not in the socket (nm_teardown) */
		__clear_bit(i, &nm->rs_slot_sent);
	}
}

/*
 * Under nm->lock: @region's resync step is over (answered, failed or
 * dropped): out of the window, its slot free.  False if it was not in
 * resync (a stale answer).
 */
static bool __nm_rs_region_end(struct nm_dev *nm, unsigned long region)
{
	lockdep_assert_held(&nm->lock);
	if (!__test_and_clear_bit(region, nm->rg.rs_busy))
		return false;
	nm->rs_inflight--;
	__nm_rs_slot_put(nm, region);
	return true;
}

/* Under nm->lock: @slot's region is no longer in resync, left marked. */
static void __nm_rs_slot_drop(struct nm_dev *nm, unsigned int slot)
{
	lockdep_assert_held(&nm->lock);
	__clear_bit(slot, &nm->rs_slot_sent);
	if (!__nm_rs_region_end(nm, nm->rs_slot_region[slot]))
		nm->rs_slot_region[slot] = ULONG_MAX;
}

/* Under nm->lock: a free slot for @region, or -1. */
static int __nm_rs_slot_get(struct nm_dev *nm, unsigned long region)
{
	unsigned int i;

	lockdep_assert_held(&nm->lock);
	for (i = 0; i < nm->rs_slots; i++) {
		if (nm->rs_slot_region[i] == ULONG_MAX) {
			nm->rs_slot_region[i] = region;
			__clear_bit(i, &nm->rs_slot_sent);
			nm->rs_slot_state[i] = NM_RSS_DATA;
			return i;
		}
	}
	return -1;
}

/*
 * @slot's region goes out now (its data, its digests or its differing
 * blocks): the peer's answer is due from here (nm_check_stuck), not from
 * when the slot was taken (the waits for writes and the rate come first).
 */
static void nm_rs_slot_sent(struct nm_dev *nm, int slot)
{
	unsigned long fl;

	spin_lock_irqsave(&nm->lock, fl);
	nm->rs_slot_at[slot] = __nm_live_now(nm);
	/* not a slot the link's end freed meanwhile (nm_sync_link_down) */
	if (nm->rs_slot_region[slot] != ULONG_MAX)
		__set_bit(slot, &nm->rs_slot_sent);
	spin_unlock_irqrestore(&nm->lock, fl);
}

/*
 * Under nm->lock: is @region's slot one of a resync that ended
 * (NM_RSS_STALE), whose answer changes nothing?
 */
static bool __nm_rs_slot_stale(struct nm_dev *nm, unsigned long region)
{
	int i = __nm_rs_slot_of(nm, region);

	return i >= 0 && nm->rs_slot_state[i] == NM_RSS_STALE;
}

/*
 * Receiver: the target's answer to a resync region's data.  One that
 * matches no region in resync (a link's older resync), or the slot of a
 * resync that ended (NM_RSS_STALE), changes nothing but the window.
 */
void nm_rs_ack(struct nm_dev *nm, const struct nm_p_rs_ack *a)
{
	unsigned long region = be64_to_cpu(a->sector) >> nm->rg.shift;
	u32 status = be32_to_cpu(a->status);
	bool live = false;
	unsigned long fl;

	spin_lock_irqsave(&nm->lock, fl);
	if (region < nm->rg.nr) {
		bool stale = __nm_rs_slot_stale(nm, region);

		if (__nm_rs_region_end(nm, region)) {
			nm->answered_at = __nm_live_now(nm);
			live = !stale;
		}
	}
	if (!live) {
		/* not for this resync: the region stays as it is */
	} else if (!status) {
		__clear_bit(region, nm->rg.oos);
	} else if (status == EAGAIN) {
		/* the target holds writes to it until we resend */
		if (region < nm->rs_cursor)
			nm->rs_cursor = region;
	} else {
		/*
		 * The target could not take it (its metadata cannot say it
		 * lacks data, or its disk failed the write, pass_on): not
		 * again until the resync starts again
		 * (__nm_rs_unreadable_left; with a peer older than
		 * NM_PROTO_RS_STOP at the next pass).  Up to 1.18.1 the
		 * region was sent again on every pass, the whole link's
		 * rate for as long as the fault lasted.
		 */
		__set_bit(region, nm->rg.rs_failed);
		nm->rs_refused = true;
	}
	spin_unlock_irqrestore(&nm->lock, fl);
	/* EAGAIN: the target wrote the region meanwhile; send it again */
	if (live && status && status != EAGAIN)
		nm_err_limit(nm, "peer failed resync write of region %lu (%u)",
			     region, status);
	if (live && !status)
		atomic64_add(be32_to_cpu(a->size), &nm->resync_bytes);
	nm_sync_kick(nm);
}

/* Teardown: forget the link's resync and bitmap state. */
void nm_sync_link_down(struct nm_dev *nm)
{
	unsigned long fl;
	unsigned int i;

	spin_lock_irqsave(&nm->lock, fl);
	bitmap_zero(nm->rg.rs_busy, nm->rg.nr);
	bitmap_zero(nm->rg.rs_hold, nm->rg.nr);	/* writes go on (kick) */
	nm->rs_holding = false;
	nm->rs_tail = false;
	bitmap_zero(nm->rg.rs_failed, nm->rg.nr);	/* the next link retries */
	nm->rs_inflight = 0;
	for (i = 0; i < NM_RS_WINDOW; i++)
		nm->rs_slot_region[i] = ULONG_MAX;
	nm->rs_slot_sent = 0;
	nm->bm_sent = false;
	nm->bm_peer_done = false;
	nm->send_bitmap = false;
	nm->sync_acked = nm->sync_cookie;	/* wakes a waiter; conn_gen tells */
	nm->gen_handover = false;
	nm->sync_wait = 0;
	__nm_ov_link_down(nm);
	spin_unlock_irqrestore(&nm->lock, fl);
	nm_sync_kick(nm);
}

/* Does the region read in slot @slot (@bytes) hold only zeroes? */
static bool nm_rs_is_zero(struct nm_dev *nm, unsigned int slot, u32 bytes)
{
	unsigned int i;

	for (i = 0; bytes; i++) {
		u32 len = min_t(u32, bytes, PAGE_SIZE);

		if (memchr_inv(page_address(nm->rs_pages[slot][i]), 0, len))
			return false;
		bytes -= len;
	}
	return true;
}

/*
 * P_RS_DATA of a region read in slot @slot, on link @gen only: a region
 * read before a link went down is read again on the next one (writes to
 * it went on meanwhile).  The pages go out by reference: the slot stays
 * busy until the region's P_RS_ACK or the link's end.  A region that
 * reads all zeroes goes as a P_RS_ZERO, without its data (as DRBD 9's
 * rs-discard-granularity): the target zeroes the range, or leaves it
 * if it reads zeroes there already (@zero: the caller checked the slot,
 * nm_rs_is_zero).  With @diff (csums: the blocks whose
 * digests the target found different), only those blocks go, as a
 * P_RS_BLOCKS (none: the region is in sync); all of them, a P_RS_DATA.
 */
static int nm_rs_send(struct nm_dev *nm, unsigned int slot,
		      unsigned long region, sector_t sector, u32 bytes,
		      const unsigned long *diff, bool zero, u32 gen)
{
	struct {
		struct nm_hdr h;
		union {
			struct nm_p_data d;
			struct nm_p_rs_blocks b;
		};
	} __packed pkt;
	struct kvec vec = { .iov_base = &pkt };
	unsigned int i, nr = DIV_ROUND_UP(bytes, PAGE_SIZE);
	u32 fixed = sizeof(pkt.d), left, sent = 0;
	u16 type;
	int r;

	if (diff && bitmap_full(diff, nr))
		diff = NULL;
	if (diff) {
		memset(&pkt.b, 0, sizeof(pkt.b));
		pkt.b.sector = cpu_to_be64(sector);
		pkt.b.size = cpu_to_be32(bytes);
		nm_blk_map_wire(diff, pkt.b.mask);
		left = nm_blk_bytes(pkt.b.mask, bytes);
		fixed = sizeof(pkt.b);
		type = NM_P_RS_BLOCKS;
	} else {
		memset(&pkt.d, 0, sizeof(pkt.d));
		pkt.d.id = cpu_to_be64(region);
		pkt.d.sector = cpu_to_be64(sector);
		pkt.d.size = cpu_to_be32(bytes);
		left = zero ? 0 : bytes;
		type = zero ? NM_P_RS_ZERO : NM_P_RS_DATA;
	}
	vec.iov_len = sizeof(pkt.h) + fixed;
	mutex_lock(&nm->tx_mutex);
	if (!nm->sock || READ_ONCE(nm->conn_gen) != gen) {
		mutex_unlock(&nm->tx_mutex);
		return -ENOTCONN;
	}
	/*
	 * our P_STATE diskless may be out: nothing after it; nor after our
	 * half ended (__nm_rs_lost, the peer's disk lost)
	 */
	if (READ_ONCE(nm->disk) != NM_DISK_UPTODATE ||
	    READ_ONCE(nm->cstate) != NM_C_SYNC_SOURCE) {
		mutex_unlock(&nm->tx_mutex);
		return -ENODATA;
	}
	/* a P_RS_ZERO carries its range in size, and no data */
	nm_hdr_fill(&pkt.h, type, fixed + (type == NM_P_RS_ZERO ? 0 : left),
		    nm->tx_seq++);
	r = nm_send_kvec(nm, &vec, 1, vec.iov_len, left);
	for (i = 0; !r && left && i < nr; i++) {
		struct bio_vec bv = {
			.bv_page = nm->rs_pages[slot][i],
			.bv_len = min_t(u32, bytes - i * PAGE_SIZE, PAGE_SIZE),
		};

		if (diff && !test_bit(i, diff))
			continue;
		left -= bv.bv_len;
		if (nm->crc_on || nm->tx_mac)
			r = nm_tx_sum(nm, page_address(bv.bv_page),
				      bv.bv_len);
		if (!r)
			r = nm_sendpage(nm->sock, &bv, left ||
					nm->crc_on || nm->tx_mac);
		if (!r)
			sent += bv.bv_len;
	}
	if (!r)
		r = nm_send_trailer(nm);
	if (!r) {
		nm->last_tx = jiffies;
		atomic64_add(vec.iov_len + sent, &nm->bytes_sent);
		atomic64_add(sent, &nm->rs_sent);
	} else {
		kernel_sock_shutdown(nm->sock, SHUT_RDWR);
	}
	mutex_unlock(&nm->tx_mutex);
	return r;
}

/*
 * Receiver (source): the target's P_CSUM_REPLY to a csums region (checked:
 * diff within the range, and empty with a status).  The region's slot
 * waits for it; its differing blocks (all of them if the target could
 * not compare) are the sync thread's to send (nm_rs_step), not ours: a
 * receiver that sends bulk data could block on a full socket while the
 * peer's receiver does the same.
 */
int nm_rs_csum_reply(struct nm_dev *nm, const struct nm_p_csum_reply *rp)
{
	sector_t sector = be64_to_cpu(rp->sector);
	u32 size = be32_to_cpu(rp->size), status = be32_to_cpu(rp->status);
	unsigned long region = sector >> nm->rg.shift, fl;
	unsigned int i;
	int slot = -1;

	spin_lock_irqsave(&nm->lock, fl);
	for (i = 0; i < NM_RS_WINDOW; i++)
		if (nm->rs_slot_region[i] == region &&
		    (nm->rs_slot_state[i] == NM_RSS_CSUM ||
		     nm->rs_slot_state[i] == NM_RSS_STALE))
			slot = i;
	if (slot < 0 || sector != (sector_t)region << nm->rg.shift) {
		spin_unlock_irqrestore(&nm->lock, fl);
		return -EPROTO;		/* nothing asked */
	}
	if (nm->rs_slot_state[slot] == NM_RSS_STALE) {
		/* asked by a resync that ended since: compared again later */
		__nm_rs_slot_drop(nm, slot);
		nm->answered_at = __nm_live_now(nm);
		spin_unlock_irqrestore(&nm->lock, fl);
		nm_sync_kick(nm);
		return 0;
	}
	if (status) {
		bitmap_zero(nm->rs_slot_diff[slot], NM_CSUM_MAX_BLOCKS);
		bitmap_set(nm->rs_slot_diff[slot], 0, nm_csum_blocks(size));
	} else {
		nm_blk_map_host(rp->diff, nm->rs_slot_diff[slot]);
	}
	nm->rs_slot_state[slot] = NM_RSS_DIFF;
	nm->answered_at = __nm_live_now(nm);	/* nm_check_stuck */
	spin_unlock_irqrestore(&nm->lock, fl);
	if (status)
		nm_err_limit(nm, "resync: peer cannot compare region %lu (%u): sending it all",
			     region, status);
	else
		atomic64_add(size, &nm->rs_compared);
	nm_sync_kick(nm);
	return 0;
}

/* Under nm->lock: a slot whose differing blocks are due, or -1. */
static int __nm_rs_slot_diff(struct nm_dev *nm)
{
	unsigned int i;

	lockdep_assert_held(&nm->lock);
	for (i = 0; i < nm->rs_slots; i++)
		if (nm->rs_slot_region[i] != ULONG_MAX &&
		    nm->rs_slot_state[i] == NM_RSS_DIFF)
			return i;
	return -1;
}

/*
 * The other slots, at a resync's start: GFP_NOIO, and optional (a
 * smaller window if memory is short).
 */
static void nm_rs_slots_grow(struct nm_dev *nm)
{
	unsigned long fl;
	unsigned int n = nm->rs_slots;

	while (n < NM_RS_WINDOW &&
	       !nm_rs_slot_alloc(nm, n, GFP_NOIO | __GFP_NOWARN))
		n++;
	spin_lock_irqsave(&nm->lock, fl);
	nm->rs_slots = n;
	spin_unlock_irqrestore(&nm->lock, fl);
}

/*
 * Under nm->lock: is this node the resync source?  Its disk must be
 * uptodate and the peer's usable; an inconsistent peer is synced whatever
 * the roles (a reattached primary is the target of its secondary); two
 * consistent disks: the primary's data wins.  Two secondaries of one
 * generation with regions marked: the one that stopped as primary
 * (NM_MF_PRIMARY), else the one that came with marked regions while the
 * other had none (eq_marks, nm_gens_eq_marks): a primary that crashed,
 * back as a secondary (DRBD's "crashed primary"): its disk holds the
 * writes it had in flight, under A acknowledged ones the peer never
 * received, so it is the source without waiting for a promotion, which
 * would otherwise make the peer's copy win.
 */
bool nm_is_source(struct nm_dev *nm)
{
	lockdep_assert_held(&nm->lock);
	if (nm->disk != NM_DISK_UPTODATE)
		return false;
	if (nm->peer_disk == NM_DISK_DISKLESS ||
	    nm->peer_disk == NM_DISK_UNKNOWN)
		return false;
	/* the data's history decides, whatever the roles */
	if (nm->gen_cmp == NM_GC_SOURCE)
		return true;
	if (nm->gen_cmp == NM_GC_TARGET)
		return false;
	if (nm->peer_disk == NM_DISK_INCONSISTENT)
		return true;
	if (nm->role == NM_ROLE_PRIMARY)
		return true;
	return nm->gen_cmp == NM_GC_EQUAL && nm->eq_marks > 0 &&
	       nm->peer_role != NM_ROLE_PRIMARY;
}

/*
 * The source sent every region: P_RS_DONE hands over our generation (a
 * first one if we have none yet), then the peer is in sync with it.
 */
static void nm_rs_finish(struct nm_dev *nm)
{
	struct nm_p_rs_done d;
	unsigned long fl;
	u32 gen;
	int r;
	u64 v;

	spin_lock_irqsave(&nm->lock, fl);
	while (!nm->gen.pair)
		nm->gen.pair = get_random_u64();
	if (!nm->gen.cur) {
		do {
			v = get_random_u64();
		} while (!v);
		nm_gens_new(&nm->gen, v);
	}
	d.pair = cpu_to_be64(nm->gen.pair);
	d.cur = cpu_to_be64(nm->gen.cur);
	/*
	 * Our bitmap generation stays until the target confirms it took
	 * ours (its P_STATE uptodate, nm_gen_handed_over): a lost P_RS_DONE
	 * must not leave two nodes with no generation in common.  Noted
	 * (and on the metadata) before it is sent: the target's answer can
	 * be read before this thread runs again, and a confirmation that
	 * found no offer would leave every region the resync sent marked
	 * (gen-handover).  A link that drops from here ends the offer
	 * (nm_sync_link_down); the offered generation stays in the history,
	 * and nothing goes on a newer link.
	 */
	if (!nm->sock || nm->cstate < NM_C_CONNECTED) {
		spin_unlock_irqrestore(&nm->lock, fl);
		return;		/* the link is gone: the next one decides */
	}
	gen = nm->conn_gen;
	nm->gen_handover = true;
	nm_gens_offered(&nm->gen);
	/*
	 * The peer may hold cur from now on: the next change of ours alone
	 * (a lost link, the peer's disk detached) needs a new generation.
	 * Up to 1.18.2 gen_fresh stayed set for the rest of the link after
	 * a peer detach, and a second detach began none (fault-detachrestart,
	 * part again).
	 */
	nm->gen_fresh = false;
	if (nm->meta)
		nm_meta_set_gens(nm->meta, &nm->gen);
	spin_unlock_irqrestore(&nm->lock, fl);
	if (nm->meta)
		nm_meta_commit(nm->meta);
	r = nm_send_ctrl_gen(nm, gen, NM_P_RS_DONE, &d, sizeof(d));
	if (r)
		return;		/* the link is gone: the next one decides */
	spin_lock_irqsave(&nm->lock, fl);
	if (nm->conn_gen == gen)
		nm->gen_cmp = NM_GC_EQUAL;
	spin_unlock_irqrestore(&nm->lock, fl);
	nm_info(nm, "resync finished: the peer takes generation %016llx",
		be64_to_cpu(d.cur));
	dm_table_event(nm->ti->table);
}

/* The bytes of the region at @sector (the last one may be short). */
static u32 nm_rs_region_bytes(struct nm_dev *nm, sector_t sector)
{
	return min_t(sector_t, nm->region_sectors,
		     nm->sectors - sector) << SECTOR_SHIFT;
}

/* A resync starts (either end): its counters, @count regions marked. */
void nm_rs_count_start(struct nm_dev *nm, u64 count, bool last)
{
	u64 b = count << (nm->rg.shift + SECTOR_SHIFT);

	/* the last region may be short */
	if (last && count)
		b -= ((u64)nm->rg.nr << (nm->rg.shift + SECTOR_SHIFT)) -
		     ((u64)nm->sectors << SECTOR_SHIFT);
	atomic64_set(&nm->rs_marked, b);
	atomic64_set(&nm->rs_compared, 0);
	atomic64_set(&nm->rs_sent, 0);
}

/*
 * csums: a region read into @slot that is not all zeroes: its digests go
 * to the target first (NM_RSS_CSUM, set before the request can be
 * answered); nm_rs_csum_reply says which blocks follow.
 */
static int nm_rs_csum_send(struct nm_dev *nm, unsigned int slot,
			   sector_t sector, u32 bytes, u32 gen)
{
	unsigned long fl;
	int r;

	r = nm_csum_digests(nm, nm->csums, nm->rs_pages[slot], bytes,
			    nm->ov_digests);
	if (r)
		return r;
	spin_lock_irqsave(&nm->lock, fl);
	/* ended meanwhile (nm_rs_end_lost): not asked */
	if (nm->cstate != NM_C_SYNC_SOURCE) {
		spin_unlock_irqrestore(&nm->lock, fl);
		return -ENODATA;
	}
	nm->rs_slot_state[slot] = NM_RSS_CSUM;
	spin_unlock_irqrestore(&nm->lock, fl);
	return nm_csum_send(nm, sector, bytes, nm->csums, NM_CF_RESYNC, gen);
}

/* A region's read or send failed: free it (on its own link only). */
static void nm_rs_step_failed(struct nm_dev *nm, unsigned long region,
			      u32 gen, int r)
{
	unsigned long fl;

	if (r != -ENOTCONN && r != -ENODATA)	/* -ENODATA: disk gone */
		nm_err_limit(nm, "resync of region %lu failed (%d)", region, r);
	spin_lock_irqsave(&nm->lock, fl);
	/* not if the link went down: a new one may own it */
	if (nm->conn_gen == gen)
		__nm_rs_region_end(nm, region);
	spin_unlock_irqrestore(&nm->lock, fl);
	nm_resubmit_waiting(nm);
}

/*
 * Under nm->lock, a resync ending with the link up (__nm_rs_lost): a
 * region whose compare is in (NM_RSS_DIFF) goes back to the bitmap
 * unsent, for its differences are those of the disk the target had then;
 * a compare still awaited (NM_RSS_CSUM) is freed by its reply, and data
 * sent (NM_RSS_DATA) by their answer, which changes nothing then
 * (NM_RSS_STALE): the region stays out of sync.  Up to 1.18.10 the
 * compared ones stayed: a resync after an `attach` (a new disk) sent
 * those old differences first, and the region counted as resynced with
 * only them on the new disk, while writes to it waited until then
 * (tests/vm/guest/fault-csumattach.sh).  Up to 1.18.11 the answer to data
 * sent counted for the next resync of its region (the target's refusal:
 * not again until the resync after, ten seconds later).  A region still
 * being read is not sent (nm_rs_send and nm_rs_csum_send check the
 * state: its step fails, nm_rs_step_failed frees it), as the resync may
 * end in the receiver (nm_rs_end_lost) while the sync thread is in a step.
 */
static void __nm_rs_slots_end(struct nm_dev *nm)
{
	unsigned int i;

	lockdep_assert_held(&nm->lock);
	for (i = 0; i < NM_RS_WINDOW; i++) {
		if (nm->rs_slot_region[i] == ULONG_MAX)
			continue;
		if (nm->rs_slot_state[i] == NM_RSS_CSUM ||
		    nm->rs_slot_state[i] == NM_RSS_DATA)
			nm->rs_slot_state[i] = NM_RSS_STALE;
		else if (nm->rs_slot_state[i] == NM_RSS_DIFF)
			__nm_rs_slot_drop(nm, i);
	}
}

/*
 * Under nm->lock: a resync needs the source's disk uptodate and the
 * target's attached (review F23, F24).  When either is lost, this node
 * ends its half (both nodes do, each from its own sync thread, and at
 * once where the loss is seen: nm_rs_end_lost): connected again, the
 * regions not yet resynced stay out of sync on both nodes and the target
 * stays inconsistent.  The next link decides again.  The source's resync
 * data already on the wire are refused by the target, answered with EIO
 * and not written (diskless, or attached again meanwhile: rs_tail, until
 * the next P_RS_START); the source needs those answers to free the
 * ended resync's slots (NM_RSS_STALE), whose answers change nothing
 * else.  None is sent after the P_STATE that says its disk failed, nor
 * after this node's half ended (nm_rs_send checks under tx_mutex).
 * Returns the reason, or NULL if the resync goes on (or none runs).
 */
static const char *__nm_rs_lost(struct nm_dev *nm)
{
	const char *why = NULL;

	lockdep_assert_held(&nm->lock);
	if (nm->cstate == NM_C_SYNC_SOURCE) {
		if (nm->disk != NM_DISK_UPTODATE)
			why = "this node's disk failed";
		else if (nm->peer_disk == NM_DISK_DISKLESS)
			why = "the peer's disk failed";
	} else if (nm->cstate == NM_C_SYNC_TARGET) {
		if (nm->disk == NM_DISK_DISKLESS) {
			why = "this node's disk failed";
			/* what the source sent before our P_STATE: refused */
			nm->rs_tail = true;
		} else if (nm->peer_disk == NM_DISK_DISKLESS) {
			why = "the peer's disk failed";
		}
	}
	if (why) {
		__nm_state_set(nm, NM_ST_CSTATE, NM_C_CONNECTED);
		__nm_rs_slots_end(nm);
		bitmap_zero(nm->rg.rs_hold, nm->rg.nr);	/* resubmitted next */
		nm->rs_holding = false;
	}
	return why;
}

/*
 * A resync half whose disk is gone ends now, not at its sync thread's next
 * step: the receiver calls this on the peer's P_STATE that says its disk
 * detached (before it reads the peer's next packet), and "attach" before
 * it takes the disk back.  Up to 1.18.11 only the sync threads ended it:
 * a target whose disk failed and was attached again before either thread
 * ran stayed sync_target, and took the old resync's data (with csums,
 * only the blocks that had differed on the failed disk) as resynced on the
 * new one; and a target that had ended its half took the data still on
 * the wire for a protocol error (tests/vm/guest/fault-rstail.sh).
 * Process context; takes nm->lock.
 */
/* A resync half ended by __nm_rs_lost (@n regions out of sync): say so. */
static void nm_rs_lost_done(struct nm_dev *nm, const char *lost, int n)
{
	nm_warn(nm, "resync stopped: %s; %d regions stay out of sync", lost, n);
	/* writes parked behind the compared regions it dropped go on */
	nm_resubmit_waiting(nm);
	dm_table_event(nm->ti->table);
}

void nm_rs_end_lost(struct nm_dev *nm)
{
	const char *lost;
	unsigned long fl;
	int n = 0;

	might_sleep();
	spin_lock_irqsave(&nm->lock, fl);
	lost = __nm_rs_lost(nm);
	if (lost)
		n = bitmap_weight(nm->rg.oos, nm->rg.nr);
	spin_unlock_irqrestore(&nm->lock, fl);
	if (!lost)
		return;
	nm_rs_lost_done(nm, lost, n);
	nm_sync_kick(nm);
}

/*
 * Source, on_io_error pass_on: our disk could not read @region (it stays
 * attached and uptodate).  The resync goes on with the other regions and
 * skips this one until the resync starts again (rs_failed);
 * nm_rs_step_failed frees its slot.
 */
static void nm_rs_unreadable(struct nm_dev *nm, unsigned long region,
			     u32 gen)
{
	unsigned long fl;

	spin_lock_irqsave(&nm->lock, fl);
	if (nm->conn_gen == gen)
		__set_bit(region, nm->rg.rs_failed);
	spin_unlock_irqrestore(&nm->lock, fl);
}

/*
 * Under nm->lock, every region sent and acknowledged: is what stays out of
 * sync only regions our disk could not read, or the target refused?  Then
 * the resync ends incomplete (P_RS_STOP) instead of sending them again on
 * each pass; it starts again, on the same link, NM_RS_RETRY later (a disk
 * repaired meanwhile is resynced without a reconnect).  A peer older than
 * NM_PROTO_RS_STOP cannot be told: with it the source retries them on
 * each pass, as before 1.17.0.
 */
static bool __nm_rs_unreadable_left(struct nm_dev *nm)
{
	lockdep_assert_held(&nm->lock);
	if (bitmap_empty(nm->rg.rs_failed, nm->rg.nr))
		return false;
	if (nm->peer_proto < NM_PROTO_RS_STOP) {
		bitmap_zero(nm->rg.rs_failed, nm->rg.nr);
		return false;
	}
	if (!bitmap_subset(nm->rg.oos, nm->rg.rs_failed, nm->rg.nr))
		return false;
	__nm_state_set(nm, NM_ST_CSTATE, NM_C_CONNECTED);
	nm->rs_stopped = true;	/* not again before rs_retry_at */
	nm->rs_retry_at = jiffies + NM_RS_RETRY;
	return true;
}

/*
 * Source: the resync of link @gen ended with regions our disk could not
 * read or the target refused.  Tell the target, which stays inconsistent;
 * the regions stay out of sync on both nodes (and on the metadata), and
 * the resync starts again NM_RS_RETRY later.  Only on that link: a newer
 * one decides its own resync.
 */
static void nm_rs_stop_unreadable(struct nm_dev *nm, u32 gen)
{
	struct nm_p_count c;
	unsigned long fl, n;
	bool refused;

	spin_lock_irqsave(&nm->lock, fl);
	n = bitmap_weight(nm->rg.oos, nm->rg.nr);
	refused = nm->rs_refused;
	spin_unlock_irqrestore(&nm->lock, fl);
	c.count = cpu_to_be64(n);
	if (nm_send_ctrl_gen(nm, gen, NM_P_RS_STOP, &c, sizeof(c)))
		return;
	if (refused)
		nm_fail(nm, "resync_refused",
			"resync stopped: the peer refused regions; %lu regions stay out of sync; again in %u s",
			n, NM_RS_RETRY / HZ);
	else
		nm_fail(nm, "resync_unreadable",
			"resync stopped: %lu unreadable regions stay out of sync; again in %u s",
			n, NM_RS_RETRY / HZ);
	dm_table_event(nm->ti->table);
}

static void nm_rs_step(struct nm_dev *nm, struct nm_rate *rt)
{
	DECLARE_BITMAP(diff, NM_CSUM_MAX_BLOCKS);
	struct nm_p_count c;
	unsigned long fl, region;
	bool start = false, done = false, failed = false, zero;
	const char *lost;
	sector_t sector;
	u32 bytes, gen, stop_gen = 0;
	int r, slot;

	spin_lock_irqsave(&nm->lock, fl);
	/*
	 * Target: writes held behind refused regions wait at most a second
	 * for their resync data (a paused resync sends none); then they go
	 * on, and the region may be refused and held again later.
	 */
	if (nm->rs_holding && time_after(jiffies, nm->rs_hold_at + HZ)) {
		bitmap_zero(nm->rg.rs_hold, nm->rg.nr);
		nm->rs_holding = false;
	}
	lost = __nm_rs_lost(nm);
	if (lost)
		goto stop;
	/*
	 * A resync, even of nothing, also hands our newer generation to the
	 * peer (or gives a pair with no history its first one), and completes
	 * an inconsistent peer with nothing marked (its resync ended before
	 * P_RS_DONE arrived), once per link.  Not while a verify runs (it
	 * holds slot 0 and rs_busy), nor on a link where one found
	 * differences (ov_hold: the next link repairs them), unless the peer
	 * lacks data meanwhile (its disk failed one of our writes,
	 * __nm_peer_write_failed; 1.18.19; or it attached its disk,
	 * nm_peer_attached): it waits for this resync, which covers the
	 * verify's differences too, so the hold ends with its start.
	 */
	if (nm->cstate == NM_C_CONNECTED && nm_is_source(nm) &&
	    nm->ov_state != NM_OV_RUNNING && !nm->ov_inflight &&
	    (!nm->ov_hold || nm->peer_disk == NM_DISK_INCONSISTENT) &&
	    (!nm->rs_stopped || time_after_eq(jiffies, nm->rs_retry_at)) &&
	    nm->bm_sent && nm->bm_peer_done &&
	    (!bitmap_empty(nm->rg.oos, nm->rg.nr) ||
	     nm->gen_cmp == NM_GC_SOURCE ||
	     (nm->gen_cmp == NM_GC_UNKNOWN && nm->meta) ||
	     (nm->peer_disk == NM_DISK_INCONSISTENT && !nm->rs_ran))) {
		__nm_state_set(nm, NM_ST_CSTATE, NM_C_SYNC_SOURCE);
		/* the peer takes our data: what our disk failed is moot */
		bitmap_zero(nm->rg.failed_here, nm->rg.nr);
		nm->ov_hold = false;
		nm->rs_ran = true;
		nm->rs_stopped = false;
		nm->rs_refused = false;
		nm->rs_cursor = 0;
		bitmap_zero(nm->rg.rs_failed, nm->rg.nr);
		c.count = cpu_to_be64(bitmap_weight(nm->rg.oos, nm->rg.nr));
		nm_rs_count_start(nm, be64_to_cpu(c.count),
				  test_bit(nm->rg.nr - 1, nm->rg.oos));
		gen = nm->conn_gen;
		start = true;
	}
	spin_unlock_irqrestore(&nm->lock, fl);
	if (start) {
		nm_rs_slots_grow(nm);
		nm_info(nm, "resync started: %llu regions to send",
			be64_to_cpu(c.count));
		/* on the link it was decided for (a newer one decides again) */
		nm_send_ctrl_gen(nm, gen, NM_P_RS_START, &c, sizeof(c));
		dm_table_event(nm->ti->table);
	}

	while (!kthread_should_stop()) {
		/*
		 * writes parked behind a region whose resync is done: not
		 * only when the pass ends (up to 1.18.10 a throttled pass
		 * kept them for minutes: nm-resyncrate, parked-write)
		 */
		nm_resubmit_waiting(nm);
		spin_lock_irqsave(&nm->lock, fl);
		lost = __nm_rs_lost(nm);
		if (lost)
			goto stop;
		/* csums: the differing blocks of a compared region first */
		slot = nm->cstate == NM_C_SYNC_SOURCE ? __nm_rs_slot_diff(nm) : -1;
		if (slot >= 0) {
			region = nm->rs_slot_region[slot];
			nm->rs_slot_state[slot] = NM_RSS_DATA;
			bitmap_copy(diff, nm->rs_slot_diff[slot],
				    NM_CSUM_MAX_BLOCKS);
			gen = nm->conn_gen;
			spin_unlock_irqrestore(&nm->lock, fl);
			sector = (sector_t)region << nm->rg.shift;
			bytes = nm_rs_region_bytes(nm, sector);
			nm_rs_slot_sent(nm, slot);
			r = nm_rs_send(nm, slot, region, sector, bytes, diff,
				       false, gen);
			if (r) {
				nm_rs_step_failed(nm, region, gen, r);
				return;
			}
			continue;
		}
		if (nm->cstate != NM_C_SYNC_SOURCE || nm->rs_paused ||
		    nm->rs_inflight >= nm->rs_slots) {
			spin_unlock_irqrestore(&nm->lock, fl);
			return;
		}
		region = nm->rs_cursor;
		while ((region = find_next_bit(nm->rg.oos, nm->rg.nr,
					       region)) < nm->rg.nr &&
		       (test_bit(region, nm->rg.rs_busy) ||
			test_bit(region, nm->rg.rs_failed)))
			region++;
		if (region >= nm->rg.nr) {
			if (!nm->rs_inflight) {
				if (bitmap_empty(nm->rg.oos, nm->rg.nr)) {
					__nm_state_set(nm, NM_ST_CSTATE,
						       NM_C_CONNECTED);
					done = true;
				} else if (__nm_rs_unreadable_left(nm)) {
					failed = true;
					stop_gen = nm->conn_gen;
				} else {
					nm->rs_cursor = 0;	/* retry */
				}
			}
			spin_unlock_irqrestore(&nm->lock, fl);
			break;
		}
		slot = __nm_rs_slot_get(nm, region);
		if (WARN_ON_ONCE(slot < 0)) {	/* rs_inflight counts them */
			spin_unlock_irqrestore(&nm->lock, fl);
			return;
		}
		__set_bit(region, nm->rg.rs_busy);
		nm->rs_inflight++;
		nm->rs_cursor = region + 1;
		gen = nm->conn_gen;
		spin_unlock_irqrestore(&nm->lock, fl);

		/* writes already in flight to the region finish first */
		wait_event(nm->sync_wq, !READ_ONCE(nm->rg.inflight[region]) ||
			   !nm_link_up(nm) || kthread_should_stop());
		sector = (sector_t)region << nm->rg.shift;
		bytes = nm_rs_region_bytes(nm, sector);
		/* and so do the peer's writes to it (we are its secondary) */
		nm_peer_wait_overlaps(nm, sector, bytes >> SECTOR_SHIFT);
		nm_rs_throttle(nm, rt, bytes);
		r = nm_link_up(nm) ?
		    nm_read_local(nm, nm->rs_pages[slot], sector, bytes) :
		    -ENOTCONN;
		/* our disk failed under the read: detach, or (pass_on) skip */
		if (r && r != -ENOTCONN && !nm_detach(nm, r))
			nm_rs_unreadable(nm, region, gen);
		zero = !r && nm_rs_is_zero(nm, slot, bytes);
		if (!r)
			nm_rs_slot_sent(nm, slot);
		if (!r && nm->csums && !zero)
			r = nm_rs_csum_send(nm, slot, sector, bytes, gen);
		else if (!r)
			r = nm_rs_send(nm, slot, region, sector, bytes, NULL,
				       zero, gen);
		if (r) {
			nm_rs_step_failed(nm, region, gen, r);
			return;
		}
	}
	if (done)
		nm_rs_finish(nm);
	if (failed)
		nm_rs_stop_unreadable(nm, stop_gen);
	return;

stop:	/* under nm->lock */
	r = bitmap_weight(nm->rg.oos, nm->rg.nr);
	spin_unlock_irqrestore(&nm->lock, fl);
	nm_rs_lost_done(nm, lost, r);
}

/*
 * Under tx_mutex and nm->lock: the link can carry a stable point (up, both
 * bitmaps exchanged: the answer then retires this link's transfer log).
 * nm_stable_point and nm_stable_final.
 */
bool __nm_stable_link(struct nm_dev *nm)
{
	lockdep_assert_held(&nm->tx_mutex);
	lockdep_assert_held(&nm->lock);
	return nm->sock && nm->cstate >= NM_C_CONNECTED && nm->bm_peer_done &&
	       nm->bm_sent;
}

/* Under tx_mutex and nm->lock: a new stable point's cookie, waited for. */
u64 __nm_stable_cookie(struct nm_dev *nm)
{
	lockdep_assert_held(&nm->tx_mutex);
	lockdep_assert_held(&nm->lock);
	nm->sync_wait = ++nm->sync_cookie;
	return nm->sync_cookie;
}

/*
 * A stable point, about once a second while writes flow: P_SYNC makes the
 * peer drain and flush everything it received before it.  Its P_SYNC_ACK
 * retires the transfer log up to the point (nm_stable_done, in the
 * receiver), and lets lazy clearing (primary with a metadata device) drop
 * the on-disk marks of the regions that stayed idle, in sync, since.
 * Sent under tx_mutex: every P_DATA marked in rg.sent went out before it.
 * A secondary that was primary (a demotion) drops NM_MF_PRIMARY here once
 * the peer confirmed every write of ours stable and nothing is out of
 * sync: the peer then holds all this node's disk does.
 */
static void nm_stable_point(struct nm_dev *nm)
{
	struct nm_p_ping p;
	unsigned long fl;
	bool clear = false, tl, quiet, pri, own = false;
	u64 cookie;
	u32 gen;
	int err;

	might_sleep();
	/* a commit's flush for clears failed: as a failed flush */
	if (nm->meta)
		nm_meta_flush_failed(nm, false);

	/*
	 * Not behind a send blocked on a stalled peer: the sync thread also
	 * resyncs and watches for stuck writes.  Next second, then.
	 */
	if (!mutex_trylock(&nm->tx_mutex))
		return;
	spin_lock_irqsave(&nm->lock, fl);
	if (!__nm_stable_link(nm)) {
		spin_unlock_irqrestore(&nm->lock, fl);
		mutex_unlock(&nm->tx_mutex);
		return;
	}
	if (nm->meta && nm->role == NM_ROLE_PRIMARY) {
		/*
		 * Marked, in sync, not in resync, no write in flight: in one
		 * pass word by word, so that a resync's millions of marked
		 * regions are not visited one by one under the lock (review
		 * F14).
		 */
		const unsigned long *const skip[] = {
			nm->rg.oos, nm->rg.rs_busy, nm->rg.active
		};

		clear = nm_meta_copy_bits_except(nm->meta, nm->rg.cand, skip,
						 ARRAY_SIZE(skip));
		if (clear)
			bitmap_zero(nm->rg.touched, nm->rg.nr);
	}
	/* no write of ours in flight (a demotion does not wait for A's) */
	quiet = nm->meta && nm->role != NM_ROLE_PRIMARY &&
		nm->cstate == NM_C_CONNECTED && nm->disk == NM_DISK_UPTODATE &&
		nm->peer_disk == NM_DISK_UPTODATE && list_empty(&nm->active) &&
		bitmap_empty(nm->rg.oos, nm->rg.nr) &&
		bitmap_empty(nm->rg.sent, nm->rg.nr) &&
		bitmap_empty(nm->rg.syncing, nm->rg.nr);
	pri = quiet && (nm_meta_flags(nm->meta) & NM_MF_PRIMARY);
	if (pri)
		__nm_primary_flag(nm, false);
	/* its marks too (of its writes as primary; up to 1.18.20 kept) */
	if (quiet) {
		const unsigned long *const busy[] = {
			nm->rg.oos, nm->rg.active
		};

		own = nm_meta_clear_bits(nm->meta, NULL, busy,
					 ARRAY_SIZE(busy));
	}
	tl = nm_regions_stable_point(&nm->rg);
	/* writes held for a stable point (nm_stable_release) */
	tl |= nm->stable_need > nm->sync_cookie;
	if (!tl && !clear) {
		spin_unlock_irqrestore(&nm->lock, fl);
		mutex_unlock(&nm->tx_mutex);
		if (pri || own)
			nm_meta_commit(nm->meta);
		return;
	}
	cookie = __nm_stable_cookie(nm);
	gen = nm->conn_gen;
	spin_unlock_irqrestore(&nm->lock, fl);
	p.cookie = cpu_to_be64(cookie);
	err = __nm_send_ctrl(nm, NM_P_SYNC, &p, sizeof(p));
	mutex_unlock(&nm->tx_mutex);
	if ((pri || own) && (err || !clear))
		nm_meta_commit(nm->meta);
	if (err || !clear)
		return;
	if (!wait_event_timeout(nm->sync_wq,
				READ_ONCE(nm->sync_acked) >= cookie ||
				kthread_should_stop(), 5 * HZ))
		return;
	/* woken by a stop (nm_sync_stop, the link still up): no ack */
	if (READ_ONCE(nm->sync_acked) < cookie)
		return;

	spin_lock_irqsave(&nm->lock, fl);
	/* the ack of this link: not a new link's (link down fakes one) */
	if (nm->conn_gen == gen && nm->cstate >= NM_C_CONNECTED &&
	    nm->bm_peer_done) {
		/* but what was written, lost or is being written since */
		const unsigned long *const keep[] = {
			nm->rg.touched, nm->rg.oos, nm->rg.active
		};

		nm_meta_clear_bits(nm->meta, nm->rg.cand, keep,
				   ARRAY_SIZE(keep));
	}
	spin_unlock_irqrestore(&nm->lock, fl);
	nm_meta_commit(nm->meta);
}

/*
 * Writes held for a stable point (stable_wait, nm_req_complete) get one
 * now: from the sync thread's loop, and from a throttled resync or verify
 * (nm_rs_throttle), which keeps the thread for as long as it runs.
 */
void nm_stable_due(struct nm_dev *nm)
{
	if (READ_ONCE(nm->stable_need) > READ_ONCE(nm->sync_cookie))
		nm_stable_point(nm);
}

/* Receiver: P_SYNC_ACK. */
void nm_stable_done(struct nm_dev *nm, u64 cookie)
{
	unsigned long fl;

	spin_lock_irqsave(&nm->lock, fl);
	if (cookie == nm->sync_wait)
		nm_regions_stable_done(&nm->rg);
	nm->sync_acked = cookie;
	spin_unlock_irqrestore(&nm->lock, fl);
	nm_stable_release(nm, cookie);
	nm_sync_kick(nm);
}

/*
 * Progress events: a table event when the regions in sync moved by 1% of
 * the device or more since the last one, or between all and not all of
 * them (a resync's progress; the first region the peer misses; a resync's
 * end), and when a running verify moved by 1% of its range.  So "dmsetup
 * wait" and "nmsetup events" see a resync or a verify advance: checked
 * once a second (nm_sync_second), so at most one event a second, about
 * 100 per resync or verify.
 */
static void nm_progress_tick(struct nm_dev *nm, struct nm_rate *rt)
{
	unsigned long fl, oos, d;
	u64 done, total, dv;
	bool ov;

	spin_lock_irqsave(&nm->lock, fl);
	oos = nm_regions_shown_oos(&nm->rg);	/* as status shows it */
	ov = nm->ov_state == NM_OV_RUNNING;
	done = nm->ov_done;
	total = nm->ov_end - nm->ov_start;
	spin_unlock_irqrestore(&nm->lock, fl);
	if (rt->ev_oos == ULONG_MAX)
		goto note;	/* the thread's start: what status shows now */
	d = oos > rt->ev_oos ? oos - rt->ev_oos : rt->ev_oos - oos;
	dv = done > rt->ev_ov ? done - rt->ev_ov : rt->ev_ov - done;
	if (!oos == !rt->ev_oos && (u64)d * 100 < nm->rg.nr &&
	    !(ov && dv * 100 >= total))
		return;
	dm_table_event(nm->ti->table);
note:
	rt->ev_oos = oos;
	rt->ev_ov = done;
}

/*
 * The nm_sync thread's once-a-second work: the resync and verify rates of
 * the status, and the progress events.  From the thread's loop, and from
 * nm_rs_throttle: a throttled resync or verify keeps the thread in its
 * step from start to end.
 */
void nm_sync_second(struct nm_dev *nm, struct nm_rate *rt)
{
	u64 b;

	if (!time_after(jiffies, rt->sec_t + HZ))
		return;
	b = atomic64_read(&nm->resync_bytes);
	WRITE_ONCE(nm->rs_kibs, div_u64((b - rt->rs_last) * HZ,
					1024 * (jiffies - rt->sec_t)));
	rt->rs_last = b;
	rt->sec_t = jiffies;
	nm_ov_tick(nm);
	nm_progress_tick(nm, rt);
}

/* nm_sync's wake-up condition: consumes a kick */
static bool nm_sync_due(struct nm_dev *nm)
{
	return kthread_should_stop() ||
	       test_and_clear_bit(0, &nm->sync_kicked);
}

static int nm_sync_thread(void *arg)
{
	struct nm_dev *nm = arg;
	struct nm_rate rt = {
		.t0 = jiffies,
		.app_t = jiffies,
		.sec_t = jiffies,
		.rs_last = atomic64_read(&nm->resync_bytes),
		.ev_oos = ULONG_MAX,
	};
	unsigned long last_clear = jiffies;

	while (!kthread_should_stop()) {
		/* a kick (an ack, a write done, a message) or 100 ms */
		wait_event_interruptible_timeout(nm->sync_wq, nm_sync_due(nm),
						 HZ / 10);
		if (kthread_should_stop())
			break;

		nm_rs_app_sample(nm, &rt);
		nm_sync_second(nm, &rt);
		nm_resubmit_waiting(nm);
		nm_rs_step(nm, &rt);
		nm_ov_step(nm, &rt);
		nm_ov_tick(nm);
		nm_resubmit_waiting(nm);
		if (time_after(jiffies, last_clear + HZ)) {
			nm_stable_point(nm);
			last_clear = jiffies;
		} else {
			nm_stable_due(nm);
		}
	}
	return 0;
}

int nm_sync_start(struct nm_dev *nm)
{
	struct task_struct *t;

	if (nm->sync_task)
		return 0;
	t = kthread_run(nm_sync_thread, nm, "nm_sync/%s", nm_name(nm));
	if (IS_ERR(t))
		return PTR_ERR(t);
	nm->sync_task = t;
	return 0;
}

void nm_sync_stop(struct nm_dev *nm)
{
	if (nm->sync_task) {
		kthread_stop(nm->sync_task);
		nm->sync_task = NULL;
	}
	if (nm->wq)
		flush_workqueue(nm->wq);
	nm_resubmit_waiting(nm);
}
