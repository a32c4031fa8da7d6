// SPDX-License-Identifier: GPL-2.0
/*
 * netmirror connection threads: nm_conn (listen, connect, handshake, then
 * receive and dispatch every packet until the link fails, then tear it
 * down) and nm_send (queued writes, acks, state, bitmap, pings).  The
 * receive dispatch is the one place that calls into every role.
 *
 * The receive loop runs in nm_conn, which owns the socket's lifetime: only
 * nm_conn creates and releases it.  Others may shut it down (under
 * tx_mutex, nm_conn_drop) to make nm_conn notice and tear the link down.
 *
 * Lock order: nm->tx_mutex (all sends, nm->sock changes) before nm->lock
 * (spinlock, irqsave).  Nothing sleeps under nm->lock.
 */
#include <linux/kthread.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <net/sock.h>
#include <linux/lockdep.h>
#include "dm-netmirror.h"

static bool nm_send_pending(struct nm_dev *nm)
{
	unsigned long flags;
	bool work;

	spin_lock_irqsave(&nm->lock, flags);
	work = nm->cstate >= NM_C_CONNECTED &&
	       (!list_empty(&nm->send_q) || !list_empty(&nm->ack_q) ||
		nm->send_state || nm->send_bitmap);
	spin_unlock_irqrestore(&nm->lock, flags);
	return work;
}

/*
 * P_STATE, our role and disk.  A promotion goes out before the writes of
 * the new primary (@before_data), a demotion only after every write queued
 * before it: the peer must not become primary while our writes are still
 * on their way (it refuses writes as primary).  Only a change of role
 * starts a new epoch sequence; a disk change or a repeated role does not.
 */
static void nm_send_state(struct nm_dev *nm, bool before_data)
{
	struct nm_p_state s;
	unsigned long flags;
	u32 role;

	spin_lock_irqsave(&nm->lock, flags);
	if (!nm->send_state || nm->cstate < NM_C_CONNECTED ||
	    (nm->role == NM_ROLE_SECONDARY &&
	     (before_data || !list_empty(&nm->send_q)))) {
		spin_unlock_irqrestore(&nm->lock, flags);
		return;
	}
	nm->send_state = false;
	role = nm->role;
	s.role = nm_be32(role);
	s.disk = nm_be32(nm->disk);
	s.gen = nm_be64(nm->gen.cur);
	spin_unlock_irqrestore(&nm->lock, flags);

	mutex_lock(&nm->tx_mutex);
	if (role != nm->sent_role) {
		nm->sent_in_epoch = false;
		nm->sent_role = role;
	}
	__nm_send_ctrl(nm, NM_P_STATE, &s, sizeof(s));
	mutex_unlock(&nm->tx_mutex);
}

static int nm_sender(void *arg)
{
	struct nm_dev *nm = arg;
	unsigned long flags;

	while (!kthread_should_stop()) {
		bool state;

		wait_event_interruptible_timeout(nm->send_wq,
						 nm_send_pending(nm) ||
						 kthread_should_stop(),
						 msecs_to_jiffies(nm->ping_ms));
		if (kthread_should_stop())
			break;

		nm_send_state(nm, true);
		spin_lock_irqsave(&nm->lock, flags);
		state = nm->send_bitmap && nm->cstate >= NM_C_CONNECTED;
		nm->send_bitmap = false;
		spin_unlock_irqrestore(&nm->lock, flags);
		if (state)
			nm_send_bitmap(nm);
		nm_peer_send_acks(nm);
		while (nm_send_one(nm))
			cond_resched();
		nm_send_state(nm, false);

		nm_check_stuck(nm);
		if (READ_ONCE(nm->cstate) >= NM_C_CONNECTED &&
		    time_after(jiffies, nm->last_tx +
			       msecs_to_jiffies(nm->ping_ms))) {
			struct nm_p_ping p = { .cookie = nm_be64(jiffies) };

			nm_send_ctrl(nm, NM_P_PING, &p, sizeof(p));
		}
	}
	return 0;
}

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
 * Receive handlers.  Each runs in the nm_conn thread with the packet's
 * fixed part read and checked (nm_payload_check); a handler of a packet
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
	u32 role = nm_h32(p->state.role);
	unsigned long flags;
	bool changed;
	int r = 0;

	if (role == NM_ROLE_SECONDARY &&
	    READ_ONCE(nm->peer_role) == NM_ROLE_PRIMARY)
		wait_event(nm->peer_wq, !atomic_read(&nm->peer_inflight));
	nm_gen_handed_over(nm, nm_h64(p->state.gen), nm_h32(p->state.disk));
	spin_lock_irqsave(&nm->lock, flags);
	changed = nm->peer_role != role;
	nm->peer_role = role;
	nm->peer_disk = nm_h32(p->state.disk);
	if (nm->peer_role == NM_ROLE_PRIMARY && nm->role == NM_ROLE_PRIMARY)
		r = -EBUSY;
	spin_unlock_irqrestore(&nm->lock, flags);
	if (changed)
		nm_peer_reset(nm);	/* a new primary: a new epoch sequence */
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

static int nm_h_ping(struct nm_dev *nm, u16 type, union nm_rx_payload *p,
		     u32 len)
{
	return nm_send_ctrl(nm, NM_P_PING_ACK, &p->ping, sizeof(p->ping));
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
};

/*
 * A primary's receiver mostly reads acks, and an application waits for
 * each: it runs as SCHED_FIFO (low), as DRBD's ack receiver does, so that
 * an ack is not queued behind ordinary threads.  A secondary's receiver
 * reads the data stream: it stays SCHED_NORMAL, so a long stream cannot
 * starve the node's other threads.  Only this thread changes its policy.
 */
static void nm_rx_policy(struct nm_dev *nm, bool *fifo)
{
	bool want = READ_ONCE(nm->role) == NM_ROLE_PRIMARY;

	if (want == *fifo)
		return;
	if (want)
		sched_set_fifo_low(current);
	else
		sched_set_normal(current, 0);
	*fifo = want;
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
	r = nm_rx_handlers[type] ? nm_rx_handlers[type](nm, type, &p, len) :
				   -EPROTO;
	/*
	 * not the packet's fault: a lost link, a refusal already named, or
	 * our own disk (flush_failed)
	 */
	if (r && r != -ENOTCONN && r != -EPIPE && r != -EBADMSG &&
	    r != -EBUSY && r != -EIO) {
		nm_err(nm, "packet type %u rejected (error %d): dropping link",
		       type, r);
		nm_set_error(nm, "bad_packet");
	}
	return r;
}

/* Receive and dispatch until the link fails; returns the reason. */
static int __nm_receive(struct nm_dev *nm, struct socket *s, bool *fifo)
{
	int r;

	s->sk->sk_rcvtimeo = msecs_to_jiffies(nm->timeout_ms);
	while (!kthread_should_stop()) {
		nm_rx_policy(nm, fifo);
		/*
		 * a secondary's held acks leave before it can wait for the
		 * next packet's header and fixed part (those of a P_DATA)
		 */
		nm_peer_release_acks(nm, sizeof(struct nm_hdr) +
				     sizeof(struct nm_p_data));
		/*
		 * a primary's acks: taken in data_ready until another
		 * packet; a secondary's writes: read by the receive worker
		 */
		r = nm_fast_wait(nm, s);
		if (r)
			return r;
		r = nm_rx_packet(nm);
		if (r)
			return r;
	}
	return 0;
}

static int nm_receive(struct nm_dev *nm, struct socket *s)
{
	bool fifo = false;
	int r = __nm_receive(nm, s, &fifo);

	if (fifo)
		sched_set_normal(current, 0);
	return r;
}

/* The link is gone: give up every pending peer part, close the socket. */
static void nm_teardown(struct nm_dev *nm, struct socket *s)
{
	struct nm_req *req, *tmp;
	unsigned long flags;
	LIST_HEAD(failed);

	nm_conn_set_sock(nm, NULL);
	kernel_sock_shutdown(s, SHUT_RDWR);	/* a blocked sender returns */
	mutex_lock(&nm->tx_mutex);
	nm->sock = NULL;
	mutex_unlock(&nm->tx_mutex);
	nm_link_keys_drop(nm);

	spin_lock_irqsave(&nm->lock, flags);
	/* lost, not dropped by our own disconnect or suspend: fence */
	if (nm->want_connect && !kthread_should_stop())
		__nm_freeze(nm);
	__nm_state_set(nm, NM_ST_CSTATE,
		       nm->want_connect ? NM_C_CONNECTING : NM_C_STANDALONE);
	/* learn the nonce again: the link may have been a stranger's */
	nm->peer_nonce_known = false;
	list_splice_init(&nm->send_q, &failed);
	list_splice_tail_init(&nm->wait_q, &failed);
	list_for_each_entry(req, &failed, list)
		clear_bit(NM_REQ_QUEUED, &req->flags);
	nm->peer_disk = NM_DISK_UNKNOWN;
	spin_unlock_irqrestore(&nm->lock, flags);

	list_for_each_entry_safe(req, tmp, &failed, list) {
		list_del_init(&req->list);
		nm_req_peer_done(req, false);
	}
	nm_tl_link_down(nm);
	nm_sync_link_down(nm);
	nm_peer_drain(nm);
	nm_fast_detach(nm, s);
	sock_release(s);
	nm_info(nm, "connection to %s closed",  nm->peer_str);
	dm_table_event(nm->ti->table);
}

static void nm_go_connected(struct nm_dev *nm, struct socket *s, u32 seq)
{
	unsigned long flags;

	nm_sock_setup(s, nm->timeout_ms);
	nm_fast_attach(nm, s);
	nm_conn_set_sock(nm, s);
	mutex_lock(&nm->tx_mutex);
	nm->sock = s;
	nm->sent_in_epoch = false;
	nm->sent_role = nm->hello_role;
	nm->last_tx = jiffies;
	nm->crc_on = nm_integrity(nm);
	nm->tx_crc = ~0U;
	nm->tx_seq = seq;
	/* with the socket: a send checking conn_gen under tx_mutex */
	spin_lock_irqsave(&nm->lock, flags);
	nm->conn_gen++;
	/* a new link: nothing known of the peer's cache, the next flush goes */
	nm->peer_unstable++;
	spin_unlock_irqrestore(&nm->lock, flags);
	mutex_unlock(&nm->tx_mutex);
	nm->rx_crc = ~0U;
	nm->rx_seq = seq;
	nm_peer_reset(nm);

	spin_lock_irqsave(&nm->lock, flags);
	nm->gen_fresh = false;	/* a new generation at the next lone write */
	nm->answered_at = jiffies;	/* nm_check_stuck: a new link's clock */
	__nm_state_set(nm, NM_ST_CSTATE, NM_C_CONNECTED);
	nm->send_bitmap = true;
	nm->bm_sent = false;
	nm->bm_peer_done = false;
	nm->rs_ran = false;
	strscpy(nm->last_error, "-", sizeof(nm->last_error));
	spin_unlock_irqrestore(&nm->lock, flags);
	nm_info(nm, "connected to %s",  nm->peer_str);
	if (READ_ONCE(nm->frozen))
		queue_work(nm->wq, &nm->thaw_work);
	dm_table_event(nm->ti->table);
	wake_up(&nm->send_wq);
}

static bool nm_should_run(struct nm_dev *nm)
{
	return READ_ONCE(nm->want_connect) || kthread_should_stop();
}

static int nm_conn_thread(void *arg)
{
	struct nm_dev *nm = arg;
	unsigned int backoff = 100;
	unsigned long next_connect = jiffies;
	int r;

	while (!kthread_should_stop()) {
		struct socket *s = NULL;
		bool initiator = false;

		if (!READ_ONCE(nm->want_connect)) {
			nm_unlisten(nm);
			nm_state_set(nm, NM_ST_CSTATE, NM_C_STANDALONE);
			wait_event_interruptible(nm->conn_wq,
						 nm_should_run(nm));
			continue;
		}
		nm_state_set(nm, NM_ST_CSTATE, NM_C_CONNECTING);

		r = nm_listen(nm);
		if (r) {
			nm_err_limit(nm, "cannot listen (error %d)",
				     r);
			nm_set_error(nm, "listen_failed");
		}

		if (time_after_eq(jiffies, next_connect) &&
		    (!nm->peer_nonce_known || nm->nonce > nm->peer_nonce)) {
			s = nm_try_connect(nm);
			initiator = !!s;
			next_connect = jiffies + msecs_to_jiffies(backoff +
					get_random_u32_below(backoff));
			backoff = min(backoff * 2, 2000u);
		}
		if (!s && nm->listen_sock) {
			r = kernel_accept(nm->listen_sock, &s, 0);
			if (r) {
				s = NULL;
			} else if (!nm_from_peer(nm, s)) {
				/* only the configured peer may connect */
				nm_err_limit(nm, "refusing a connection: not from %s",
					     nm->peer_str);
				nm_set_error(nm, "unknown_peer");
				kernel_sock_shutdown(s, SHUT_RDWR);
				sock_release(s);
				s = NULL;
			}
		} else if (!s) {
			schedule_timeout_interruptible(msecs_to_jiffies(250));
		}
		if (!s)
			continue;

		nm_sock_setup(s, 1000 + get_random_u32_below(1000));
		r = nm_handshake(nm, s, initiator);
		if (r) {
			nm_link_keys_drop(nm);
			kernel_sock_shutdown(s, SHUT_RDWR);
			sock_release(s);
			/*
			 * The next turn accepts: a peer that connected at the
			 * same time waits there (nm_handshake)
			 */
			if (initiator)
				next_connect = jiffies + msecs_to_jiffies(backoff +
						get_random_u32_below(backoff));
			continue;
		}
		backoff = 100;
		/* HELLO 0, [AUTH 1, 2], GENS; then the link's packets */
		nm_go_connected(nm, s, nm->secret_desc[0] ? 4 : 2);
		r = nm_receive(nm, s);
		if (r == -EAGAIN) {
			nm_err(nm, "peer timed out");
			nm_set_error(nm, "peer_timeout");
		}
		nm_teardown(nm, s);
	}
	nm_unlisten(nm);
	return 0;
}

int nm_conn_start(struct nm_dev *nm)
{
	struct task_struct *t;
	const char *name = nm_name(nm);

	if (nm->conn_task)
		return 0;
	t = kthread_run(nm_sender, nm, "nm_send/%s", name);
	if (IS_ERR(t))
		return PTR_ERR(t);
	nm->send_task = t;
	t = kthread_run(nm_conn_thread, nm, "nm_conn/%s", name);
	if (IS_ERR(t)) {
		kthread_stop(nm->send_task);
		nm->send_task = NULL;
		return PTR_ERR(t);
	}
	nm->conn_task = t;
	t = NULL;
	if (nm_sync_start(nm)) {
		nm_conn_stop(nm);
		return -ENOMEM;
	}
	return 0;
}

void nm_conn_stop(struct nm_dev *nm)
{
	might_sleep();
	nm_sync_stop(nm);
	if (nm->conn_task) {
		nm_conn_drop(nm);
		wake_up(&nm->conn_wq);
		kthread_stop(nm->conn_task);
		nm->conn_task = NULL;
	}
	if (nm->send_task) {
		kthread_stop(nm->send_task);
		nm->send_task = NULL;
	}
	nm_peer_drain(nm);
	nm_state_set(nm, NM_ST_CSTATE, NM_C_STANDALONE);
}
