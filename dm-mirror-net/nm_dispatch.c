// SPDX-License-Identifier: GPL-2.0
/*
 * netmirror receive dispatch: read one packet, check it, and hand it to
 * its role's handler.  This table is the one place that calls into every
 * role.  Two readers use it, never at once: the nm_conn thread's receive
 * loop (nm_conn.c) and, on a secondary, the receive worker while it holds
 * the stream (nm_fastack.c).
 *
 * Context: process context, the stream's owner; handlers may sleep.
 */
#include "dm-netmirror.h"

/* The fixed part of every packet type, as the receiver reads it. */
union nm_rx_payload {
	struct nm_p_hello hello;
	struct nm_p_state state;
	struct nm_p_data data;
	struct nm_p_ack ack;
	struct nm_p_barrier barrier;
	struct nm_p_ping ping;
	struct nm_p_bitmap bitmap;
	struct nm_p_count count;
	struct nm_p_rs_done rs_done;
	struct nm_p_rs_ack rs_ack;
	struct nm_p_auth auth;
	struct nm_p_csum csum;
	struct nm_p_csum_reply csum_reply;
	struct nm_p_rs_blocks rs_blocks;
};

/*
 * Receive handlers.  Each runs in the stream's owner (the nm_conn thread,
 * or for P_DATA, P_ZERO, P_BARRIER and P_SYNC the receive worker) with
 * the packet's fixed part read and checked (nm_payload_check); a handler of a packet
 * with a variable tail (nm_has_tail()) reads the tail and the trailer
 * itself.
 * A non-zero return drops the link.
 */
typedef int (*nm_rx_fn)(struct nm_dev *nm, u16 type,
			union nm_rx_payload *p, u32 len);

/*
 * P_STATE: the peer's role or disk changed.  A peer that stops being
 * primary has sent all its writes before this; they finish on our disk
 * before we let anyone (a promotion of ours) see it as secondary.
 */
static int nm_h_state(struct nm_dev *nm, u16 type, union nm_rx_payload *p,
		      u32 len)
{
	u32 role = nm_h32(p->state.role), disk = nm_h32(p->state.disk);
	unsigned long flags;
	bool changed, attached, detached;
	int r = 0;

	if (role == NM_ROLE_SECONDARY &&
	    READ_ONCE(nm->peer_role) == NM_ROLE_PRIMARY)
		nm_peer_wait_drained(nm);
	nm_gen_handed_over(nm, nm_h64(p->state.gen), nm_h32(p->state.disk));
	spin_lock_irqsave(&nm->lock, flags);
	changed = nm->peer_role != role;
	/* only "attach" turns a diskless disk inconsistent (version 7) */
	attached = nm->peer_disk == NM_DISK_DISKLESS &&
		   disk == NM_DISK_INCONSISTENT &&
		   nm->peer_proto >= NM_PROTO_ATTACH;
	detached = nm->peer_disk != NM_DISK_DISKLESS &&
		   disk == NM_DISK_DISKLESS;
	nm->peer_role = role;
	nm->peer_disk = disk;
	/* diskless or being resynced, we expose the peer's data (nm_gen_verdict) */
	if ((nm->disk == NM_DISK_DISKLESS ||
	     nm->disk == NM_DISK_INCONSISTENT) && disk == NM_DISK_UPTODATE &&
	    nm_h64(p->state.gen))
		nm->gen_exposed = nm_h64(p->state.gen);
	if (nm->peer_role == NM_ROLE_PRIMARY && nm->role == NM_ROLE_PRIMARY)
		r = -EBUSY;
	spin_unlock_irqrestore(&nm->lock, flags);
	if (changed)
		nm_peer_reset(nm);	/* a new primary: a new epoch sequence */
	/* a resync into or from a detached disk ends before the next packet */
	if (detached)
		nm_rs_end_lost(nm);
	if (attached)
		nm_peer_attached(nm);
	if (detached)
		nm_peer_detached(nm);
	nm_sync_kick(nm);
	dm_table_event(nm->ti->table);
	if (r) {
		nm_err(nm, "both nodes are primary: disconnecting");
		nm_set_error(nm, "both_primary");
	}
	return r;
}

static int nm_h_data(struct nm_dev *nm, u16 type, union nm_rx_payload *p,
		     u32 len)
{
	return nm_peer_data(nm, &p->data);
}

static int nm_h_zero(struct nm_dev *nm, u16 type, union nm_rx_payload *p,
		     u32 len)
{
	return nm_peer_zero(nm, &p->data);
}

static int nm_h_ack(struct nm_dev *nm, u16 type, union nm_rx_payload *p,
		    u32 len)
{
	int r = 0;

	nm_handle_ack(nm, type, &p->ack, &r);
	return r;
}

static int nm_h_barrier(struct nm_dev *nm, u16 type, union nm_rx_payload *p,
			u32 len)
{
	return nm_peer_barrier(nm, nm_h32(p->barrier.epoch));
}

static int nm_h_ignore(struct nm_dev *nm, u16 type, union nm_rx_payload *p,
		       u32 len)
{
	return 0;
}

static int nm_h_bitmap(struct nm_dev *nm, u16 type, union nm_rx_payload *p,
		       u32 len)
{
	return nm_recv_bitmap(nm, &p->bitmap, len);
}

static int nm_h_bitmap_done(struct nm_dev *nm, u16 type,
			    union nm_rx_payload *p, u32 len)
{
	unsigned long flags;

	spin_lock_irqsave(&nm->lock, flags);
	nm->bm_peer_done = true;
	spin_unlock_irqrestore(&nm->lock, flags);
	nm_sync_kick(nm);
	return 0;
}

static int nm_h_rs_start(struct nm_dev *nm, u16 type, union nm_rx_payload *p,
			 u32 len)
{
	return nm_peer_rs_start(nm, nm_h64(p->count.count));
}

static int nm_h_rs_data(struct nm_dev *nm, u16 type, union nm_rx_payload *p,
			u32 len)
{
	return nm_peer_rs_data(nm, &p->data);
}

static int nm_h_rs_zero(struct nm_dev *nm, u16 type, union nm_rx_payload *p,
			u32 len)
{
	return nm_peer_rs_zero(nm, &p->data);
}

static int nm_h_rs_blocks(struct nm_dev *nm, u16 type,
			  union nm_rx_payload *p, u32 len)
{
	return nm_peer_rs_blocks(nm, &p->rs_blocks);
}

static int nm_h_rs_ack(struct nm_dev *nm, u16 type, union nm_rx_payload *p,
		       u32 len)
{
	nm_rs_ack(nm, &p->rs_ack);
	return 0;
}

static int nm_h_rs_done(struct nm_dev *nm, u16 type, union nm_rx_payload *p,
			u32 len)
{
	return nm_peer_rs_done(nm, &p->rs_done);
}

/* P_RS_STOP: only a peer that speaks NM_PROTO_RS_STOP sends it */
static int nm_h_rs_stop(struct nm_dev *nm, u16 type, union nm_rx_payload *p,
			u32 len)
{
	if (nm->peer_proto < NM_PROTO_RS_STOP)
		return -EPROTO;
	return nm_peer_rs_stop(nm, nm_h64(p->count.count));
}

static int nm_h_sync(struct nm_dev *nm, u16 type, union nm_rx_payload *p,
		     u32 len)
{
	return nm_peer_sync(nm, p->ping.cookie);
}

static int nm_h_sync_ack(struct nm_dev *nm, u16 type, union nm_rx_payload *p,
			 u32 len)
{
	nm_stable_done(nm, nm_h64(p->ping.cookie));
	return 0;
}

static int nm_h_read_req(struct nm_dev *nm, u16 type, union nm_rx_payload *p,
			 u32 len)
{
	return nm_peer_read(nm, &p->data);
}

static int nm_h_read_reply(struct nm_dev *nm, u16 type,
			   union nm_rx_payload *p, u32 len)
{
	return nm_recv_read_reply(nm, &p->ack, len);
}

static int nm_h_neg_ack(struct nm_dev *nm, u16 type, union nm_rx_payload *p,
			u32 len)
{
	nm_neg_ack(nm, &p->rs_ack);
	return 0;
}

static int nm_h_csum_req(struct nm_dev *nm, u16 type, union nm_rx_payload *p,
			 u32 len)
{
	return nm_peer_csum(nm, &p->csum, len);
}

static int nm_h_csum_reply(struct nm_dev *nm, u16 type,
			   union nm_rx_payload *p, u32 len)
{
	/* the flag says who asked: a csums resync or a verify */
	if (nm_h16(p->csum_reply.flags) & NM_CF_RESYNC)
		return nm_rs_csum_reply(nm, &p->csum_reply);
	return nm_ov_reply(nm, &p->csum_reply);
}

/* Answered now, or by the sender thread (nm_send_ctrl_rx). */
static int nm_h_ping(struct nm_dev *nm, u16 type, union nm_rx_payload *p,
		     u32 len)
{
	return nm_send_ctrl_rx(nm, NM_P_PING_ACK, &p->ping, sizeof(p->ping));
}

static const nm_rx_fn nm_rx_handlers[NM_P_MAX] = {
	/* P_HELLO only in the handshake: no handler, drops the link */
	[NM_P_STATE]		= nm_h_state,
	[NM_P_DATA]		= nm_h_data,
	[NM_P_RECV_ACK]		= nm_h_ack,
	[NM_P_WRITE_ACK]	= nm_h_ack,
	[NM_P_BARRIER]		= nm_h_barrier,
	[NM_P_BARRIER_ACK]	= nm_h_ignore,
	[NM_P_PING]		= nm_h_ping,
	[NM_P_PING_ACK]		= nm_h_ignore,
	[NM_P_BITMAP]		= nm_h_bitmap,
	[NM_P_BITMAP_DONE]	= nm_h_bitmap_done,
	[NM_P_RS_START]		= nm_h_rs_start,
	[NM_P_RS_DATA]		= nm_h_rs_data,
	[NM_P_RS_ACK]		= nm_h_rs_ack,
	[NM_P_RS_DONE]		= nm_h_rs_done,
	[NM_P_SYNC]		= nm_h_sync,
	[NM_P_SYNC_ACK]		= nm_h_sync_ack,
	[NM_P_READ_REQ]		= nm_h_read_req,
	[NM_P_READ_REPLY]	= nm_h_read_reply,
	[NM_P_NEG_ACK]		= nm_h_neg_ack,
	[NM_P_ZERO]		= nm_h_zero,
	[NM_P_RS_ZERO]		= nm_h_rs_zero,
	[NM_P_CSUM_REQ]		= nm_h_csum_req,
	[NM_P_CSUM_REPLY]	= nm_h_csum_reply,
	[NM_P_RS_BLOCKS]	= nm_h_rs_blocks,
	[NM_P_RS_STOP]		= nm_h_rs_stop,
};

/*
 * A secondary's write read (by rx_work or the thread, the stream's owner):
 * the reader controller counts it (nm_rxmode.h).
 */
static void nm_rx_count_write(struct nm_dev *nm)
{
	if (nm->protocol == NM_PROTO_A || !READ_ONCE(nm_fast_rx) ||
	    !READ_ONCE(nm_fast_rx_probe))
		return;
	switch (nm_rxm_note(&nm->rxm, jiffies)) {
	case NM_RXM_PROBE:
		atomic64_inc(&nm->rx_probes);
		break;
	case NM_RXM_SWITCH:
		atomic64_inc(&nm->rx_switches);
		break;
	case NM_RXM_NONE:
		break;
	}
}

/*
 * Read one packet and dispatch it; returns 0 or why the link must end.
 * Called by the stream's owner only: the nm_conn thread, or the receive
 * worker while it holds the stream (nm_fastack.c).
 */
int nm_rx_packet(struct nm_dev *nm)
{
	union nm_rx_payload p;
	struct nm_hdr h;
	u16 type;
	u32 len;
	int r;

	r = nm_rx(nm, &h, sizeof(h));
	if (r)
		return r;
	r = nm_hdr_check(&h, nm->rx_seq);
	if (r) {
		nm_err(nm, "bad packet header (error %d): dropping link", r);
		nm_set_error(nm, "bad_packet");
		return r;
	}
	WRITE_ONCE(nm->rx_seq, nm->rx_seq + 1);
	type = nm_h16(h.type);
	len = nm_h32(h.length);
	r = nm_rx(nm, &p, nm_fixed_len(type));
	if (r)
		return r;
	/* variable payloads end in their handler, which checks */
	if (!nm_has_tail(type)) {
		r = nm_rx_trailer(nm);
		if (r)
			return r;
	}
	atomic64_add(sizeof(h) + len, &nm->bytes_received);
	r = nm_payload_check(type, len, &p, nm->sectors);
	if (r) {
		nm_err(nm, "invalid packet type %u (error %d): dropping link",
		       type, r);
		nm_set_error(nm, "bad_packet");
		return r;
	}
	WRITE_ONCE(nm->rx_owner, current);	/* nm_rx_wait_begin (dm-netmirror.h) */
	r = nm_rx_handlers[type] ? nm_rx_handlers[type](nm, type, &p, len) :
				   -EPROTO;
	WRITE_ONCE(nm->rx_owner, NULL);
	/*
	 * not the packet's fault: a lost link (also one the watchdog shut
	 * down while the payload was on its way), a refusal already named,
	 * or our own disk (flush_failed)
	 */
	if (r && r != -ENOTCONN && r != -EPIPE && r != -ECONNRESET &&
	    r != -EBADMSG && r != -EBUSY && r != -EIO) {
		nm_err(nm, "packet type %u rejected (error %d): dropping link",
		       type, r);
		nm_set_error(nm, "bad_packet");
	}
	if (!r && (type == NM_P_DATA || type == NM_P_ZERO))
		nm_rx_count_write(nm);
	return r;
}
