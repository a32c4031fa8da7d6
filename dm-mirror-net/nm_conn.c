// SPDX-License-Identifier: GPL-2.0
/*
 * netmirror connection threads: nm_conn (listen, connect, handshake, then
 * receive and dispatch every packet until the link fails, then tear it
 * down) and nm_send (queued writes, acks, state, bitmap, pings).  The
 * receive loop reads each packet with nm_rx_packet (nm_dispatch.c).
 *
 * The receive loop runs in nm_conn, which owns the socket's lifetime: only
 * nm_conn creates and releases it.  Others may shut it down (under
 * tx_mutex, nm_conn_drop) to make nm_conn notice and tear the link down.
 *
 * Lock order: nm->tx_mutex (all sends, nm->sock changes) before nm->lock
 * (spinlock, irqsave).  Nothing sleeps under nm->lock.
 */
#include <linux/delay.h>
#include <linux/kthread.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <net/sock.h>
#include <linux/lockdep.h>
#include "dm-netmirror.h"

/*
 * Under nm->lock: a due P_STATE can go now.  A demotion waits for our
 * writes still in flight on the local disk (nm_req_complete wakes the
 * sender after the last): the peer, promoted, could otherwise write the
 * same blocks, which our disk would take in either order.
 */
static bool __nm_state_due(struct nm_dev *nm)
{
	lockdep_assert_held(&nm->lock);
	return nm->send_state &&
	       !(nm->role == NM_ROLE_SECONDARY && !list_empty(&nm->active) &&
		 nm->disk == nm->sent_disk);
}

static bool nm_send_pending(struct nm_dev *nm)
{
	unsigned long flags;
	bool work;

	spin_lock_irqsave(&nm->lock, flags);
	work = nm->cstate >= NM_C_CONNECTED &&
	       (!list_empty(&nm->send_q) || !list_empty(&nm->ack_q) ||
		!list_empty(&nm->ctrl_q) || __nm_state_due(nm) ||
		nm->send_bitmap);
	spin_unlock_irqrestore(&nm->lock, flags);
	return work;
}

/*
 * P_STATE, our role and disk.  A promotion goes out before the writes of
 * the new primary (@before_data), a demotion only after every request
 * queued before it and every write in flight on our disk: the peer must
 * not become primary while our writes are still on their way (it refuses
 * writes as primary) or still going to our disk (its own writes would
 * race them there), and it serves our queued reads only while it sees us
 * primary.  A disk change does not wait
 * for them: while a demotion waits, a new disk state goes out with the
 * role the peer knows (a detached primary's queued reads need it first,
 * nm_send_one).  Only a change of role starts a new epoch sequence.
 */
static void nm_send_state(struct nm_dev *nm, bool before_data)
{
	struct nm_p_state s;
	unsigned long flags;
	u32 role, disk;

	if (!READ_ONCE(nm->send_state))
		return;
	mutex_lock(&nm->tx_mutex);
	spin_lock_irqsave(&nm->lock, flags);
	if (!nm->send_state || nm->cstate < NM_C_CONNECTED)
		goto out_unlock;
	role = nm->role;
	disk = nm->disk;
	if (role == NM_ROLE_SECONDARY &&
	    (before_data || !list_empty(&nm->send_q) ||
	     !list_empty(&nm->active))) {
		if (disk == nm->sent_disk)
			goto out_unlock;
		role = nm->sent_role;	/* the disk now, the role later */
	} else {
		nm->send_state = false;
	}
	s.role = nm_be32(role);
	s.disk = nm_be32(disk);
	s.gen = nm_be64(nm->gen.cur);
	spin_unlock_irqrestore(&nm->lock, flags);

	if (role != nm->sent_role) {
		nm->sent_in_epoch = false;
		nm->sent_role = role;
	}
	nm->sent_disk = disk;
	__nm_send_ctrl(nm, NM_P_STATE, &s, sizeof(s));
	mutex_unlock(&nm->tx_mutex);
	return;
out_unlock:
	spin_unlock_irqrestore(&nm->lock, flags);
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
		nm_send_ctrl_q(nm);
		/*
		 * the acks and ping answers a receiver left here (it never
		 * waits to send) go between the writes, not after the whole
		 * queue: a resync source times its P_RS_ACKs (review F25)
		 */
		while (nm_send_one(nm)) {
			if (!list_empty_careful(&nm->ack_q))
				nm_peer_send_acks(nm);
			if (!list_empty_careful(&nm->ctrl_q))
				nm_send_ctrl_q(nm);
			cond_resched();
		}
		nm_send_state(nm, false);

		if (READ_ONCE(nm->cstate) >= NM_C_CONNECTED &&
		    time_after(jiffies, nm->last_tx +
			       msecs_to_jiffies(nm->ping_ms))) {
			struct nm_p_ping p = { .cookie = nm_be64(jiffies) };

			nm_send_ctrl(nm, NM_P_PING, &p, sizeof(p));
		}
	}
	return 0;
}

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

/* Receive and dispatch until the link fails; returns the reason. */
static int __nm_receive(struct nm_dev *nm, struct socket *s, bool *fifo)
{
	int r;

	/*
	 * a read waits for its bytes however long: the link's watchdog
	 * (nm_live_work) shuts the socket down when the peer falls silent,
	 * timed from the peer's last bytes, not from the read's start
	 */
	s->sk->sk_rcvtimeo = MAX_SCHEDULE_TIMEOUT;
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
	bool gen, lost, reset;

	nm_conn_set_sock(nm, NULL);
	/* drop_sock is gone: a running watchdog drops nothing, queues nothing */
	cancel_delayed_work_sync(&nm->live_work);
	kernel_sock_shutdown(s, SHUT_RDWR);	/* a blocked sender returns */
	mutex_lock(&nm->tx_mutex);
	nm->sock = NULL;
	mutex_unlock(&nm->tx_mutex);
	nm_link_keys_drop(nm);

	spin_lock_irqsave(&nm->lock, flags);
	/*
	 * lost, not dropped by our own disconnect or suspend: fence.  Our
	 * stop is known before nm_conn_stop shuts the socket (conn_stopping):
	 * kthread_should_stop() is set only after, and this thread, woken by
	 * the shutdown, may get here first (gen-suspendrace).
	 */
	lost = nm->want_connect && !nm->conn_stopping && !kthread_should_stop();
	if (lost)
		__nm_freeze(nm);
	/*
	 * A generation begun on this link (our disk the only one,
	 * nm_peer_detached; a forced promotion) went to the peer: the next
	 * change apart begins another.  Up to 1.18.19 it stayed fresh: a
	 * promotion apart began none, and a diskless primary took the link
	 * back with the data under its users changed (gen-diskless, lone).
	 */
	nm->gen_fresh = false;
	/* an "older primary" (after_sb_0pri) if it writes apart from here */
	nm->pri_at_split = nm->role == NM_ROLE_PRIMARY;
	__nm_state_set(nm, NM_ST_CSTATE,
		       nm->want_connect ? NM_C_CONNECTING : NM_C_STANDALONE);
	/* learn the nonce again: the link may have been a stranger's */
	nm->peer_nonce_known = false;
	list_splice_init(&nm->send_q, &failed);
	list_splice_tail_init(&nm->wait_q, &failed);
	list_for_each_entry(req, &failed, list)
		clear_bit(NM_REQ_QUEUED, &req->flags);
	nm->peer_disk = NM_DISK_UNKNOWN;
	/*
	 * A primary whose writes the peer may lack (peer parts given up
	 * below, or, when the link was lost, writes it had not confirmed
	 * stable) has data of its own from here: a new generation, as at its
	 * first write alone, on the metadata before those writes complete.
	 * Else a peer promoted in the meantime would look newer, and a resync
	 * from it would overwrite them silently instead of finding a split
	 * brain.  Our own suspend (dm drained every write: nothing is given
	 * up) or disconnect with all writes answered keeps the generation, so
	 * that a planned switch-over connects.
	 */
	/*
	 * Pages sent by reference may still be queued in the socket: the
	 * given-up writes' under B and C, the resync slots'.  They are handed
	 * back below: reset the link first (nm_sock_abort).  Else the FIN
	 * stays behind the data, which the orphaned socket still delivers: a
	 * planned disconnect under A loses no acknowledged write's tail.  A
	 * reset drops A's tail too, if a resync was in flight: then, as at a
	 * loss, its writes not confirmed begin a generation.
	 */
	reset = (nm->protocol != NM_PROTO_A && !list_empty(&failed)) ||
		nm->rs_inflight || nm->rs_slot_sent;
	gen = nm->role == NM_ROLE_PRIMARY && nm->disk == NM_DISK_UPTODATE &&
	      (!list_empty(&failed) ||
	       ((lost || reset) && nm_regions_unconfirmed(&nm->rg)));
	if (gen)
		__nm_gen_new(nm, true);
	spin_unlock_irqrestore(&nm->lock, flags);
	if (gen)
		nm_gen_save(nm);
	if (reset)
		nm_sock_abort(s);

	list_for_each_entry_safe(req, tmp, &failed, list) {
		list_del_init(&req->list);
		nm_req_peer_done(req, false);
	}
	nm_tl_link_down(nm);
	nm_sync_link_down(nm);
	nm_peer_drain(nm);
	nm_ctrl_q_drop(nm);
	nm_fast_detach(nm, s);
	sock_release(s);
	nm_info(nm, "connection to %s closed",  nm->peer_str);
	dm_table_event(nm->ti->table);
}

/*
 * The link's watchdog, on nm->wq from nm_go_connected until nm_teardown:
 * the one place that declares a connected peer dead.  It runs at the
 * earlier of two deadlines, each @timeout_ms after its clock's start:
 *  - silence: the peer's last bytes (rx_at, stamped in data_ready at every
 *    arrival, pings included), wherever the receiver is: between packets,
 *    in the middle of one, or blocked behind a send;
 *  - no answer: nm_check_stuck's clock (nm_primary.c).
 * It shuts the socket down (nm_conn_drop): the receiver's read, a blocked
 * send and nm_fast_wait all end, and the nm_conn thread tears down.  A
 * receive queue backed up behind our own reader (a quarter of the buffer
 * unread) is our slowness, not the peer's silence: its clock starts again.
 * A socket the peer closed while our reader was busy (its disk) is dropped
 * as it is, not blamed on the peer's silence.
 * Context: process (a kworker); takes drop_mutex and nm->lock, not nested.
 */
static void nm_live_work(struct work_struct *w)
{
	struct nm_dev *nm = container_of(to_delayed_work(w), struct nm_dev,
					 live_work);
	long t = msecs_to_jiffies(nm->timeout_ms), left, stuck;
	struct sock *sk;
	bool closed;
	int err;

	might_sleep();
	/* drop_mutex keeps the socket alive while its state is read */
	mutex_lock(&nm->drop_mutex);
	if (!nm->drop_sock) {
		mutex_unlock(&nm->drop_mutex);	/* nm_teardown has begun */
		return;
	}
	sk = nm->drop_sock->sk;
	/*
	 * Closed (the peer's FIN or reset, or our own shutdown), not timed
	 * out by TCP (ETIMEDOUT or a soft error): gone, not silent
	 */
	err = READ_ONCE(sk->sk_err);
	closed = (READ_ONCE(sk->sk_shutdown) & RCV_SHUTDOWN) &&
		 (!err || err == ECONNRESET || err == EPIPE);
	if (!closed && nm_sk_unread(sk) >= (u32)READ_ONCE(sk->sk_rcvbuf) / 4)
		WRITE_ONCE(nm->rx_at, jiffies);
	mutex_unlock(&nm->drop_mutex);
	left = (long)(READ_ONCE(nm->rx_at) + t - jiffies);
	if (left <= 0 && closed) {
		/* our reader, busy (its disk), has not seen the close yet */
		nm_info(nm, "link %s while this node was busy: dropping it",
			err == ECONNRESET ? "reset by the peer" :
			err == EPIPE ? "shut down" : "closed by the peer");
		nm_conn_drop(nm);
		return;
	}
	if (left <= 0) {
		nm_err(nm, "peer sent nothing for %u ms: dropping link",
		       nm->timeout_ms);
		nm_set_error(nm, "peer_timeout");
		nm_conn_drop(nm);
		return;
	}
	stuck = nm_check_stuck(nm);
	if (stuck)
		queue_delayed_work(nm->wq, &nm->live_work, min(left, stuck));
}

void nm_live_init(struct nm_dev *nm)
{
	INIT_DELAYED_WORK(&nm->live_work, nm_live_work);
}

static void nm_go_connected(struct nm_dev *nm, struct socket *s, u32 seq)
{
	unsigned long flags;

	nm_sock_setup(s, nm->timeout_ms);
	nm_fast_attach(nm, s);
	nm_conn_set_sock(nm, s);
	/* the silence clock starts at the handshake's end (nm_fast_attach) */
	queue_delayed_work(nm->wq, &nm->live_work,
			   msecs_to_jiffies(nm->timeout_ms));
	mutex_lock(&nm->tx_mutex);
	nm->sock = s;
	nm->sent_in_epoch = false;
	nm->sent_role = nm->hello_role;
	nm->sent_disk = nm->hello_disk;
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
	nm->answered_at = __nm_live_now(nm);	/* nm_check_stuck */
	__nm_state_set(nm, NM_ST_CSTATE, NM_C_CONNECTED);
	nm->send_bitmap = true;
	nm->bm_sent = false;
	nm->bm_peer_done = false;
	nm->rs_ran = false;
	nm->rs_stopped = false;
	strscpy(nm->last_error, "-", sizeof(nm->last_error));
	spin_unlock_irqrestore(&nm->lock, flags);
	nm_info(nm, "connected to %s",  nm->peer_str);
	if (READ_ONCE(nm->frozen))
		queue_work(nm->wq, &nm->thaw_work);
	/* before any packet of the peer's is read (nm_peer_detached) */
	if (READ_ONCE(nm->peer_disk) == NM_DISK_DISKLESS)
		nm_peer_detached(nm);
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
		if (r)
			nm_fail(nm, "listen_failed", "cannot listen (error %d)", r);

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
				nm_fail(nm, "unknown_peer",
					"refusing a connection: not from %s",
					nm->peer_str);
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
		/* the link's packets: after the handshake's (nm_handshake) */
		nm_go_connected(nm, s, nm->link_seq);
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

/*
 * Our own stop of the link's threads (a suspend, a reload, dtr) begins or
 * is over: nm_teardown tells it from a lost link by this.
 */
static void nm_conn_stopping(struct nm_dev *nm, bool on)
{
	unsigned long flags;

	spin_lock_irqsave(&nm->lock, flags);
	nm->conn_stopping = on;
	spin_unlock_irqrestore(&nm->lock, flags);
}

int nm_conn_start(struct nm_dev *nm)
{
	struct task_struct *t;
	const char *name = nm_name(nm);

	if (nm->conn_task)
		return 0;
	nm_conn_stopping(nm, false);
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

/* Nothing the peer has not confirmed stable, or no link to confirm it. */
static bool nm_tl_settled(struct nm_dev *nm)
{
	unsigned long flags;
	bool r;

	spin_lock_irqsave(&nm->lock, flags);
	r = nm->cstate < NM_C_CONNECTED || !nm_regions_unconfirmed(&nm->rg);
	spin_unlock_irqrestore(&nm->lock, flags);
	return r;
}

/*
 * Our own suspend (postsuspend: dm drained every write), before the link
 * stops: one last stable point (P_SYNC), so that the writes the peer holds
 * but has not confirmed stable (the transfer log: a primary's, or a
 * demoted one's) are confirmed, and the stop marks none of them out of
 * sync.  A reload then resyncs nothing, and the peer stays uptodate
 * (promotable) instead of becoming the target of a resync of the last
 * second's writes (up to 1.18.17: fault-badinput's switch-over by reload
 * in CI, fault-reloadtl).
 *
 * Bounded: the stop counts as ours from here (conn_stopping: a link that
 * drops meanwhile is not taken for a lost one, no freeze, no new
 * generation, as for the stop itself); the P_SYNC goes only when the
 * socket has room for it (nm_tx_trylock), so the send never waits for a
 * stalled peer; and the transfer log is waited for at most a second, or
 * the link's timeout if shorter.  A peer that has not answered by then is
 * left to the stop, which marks the transfer log as a lost link does.
 * The sync thread runs on meanwhile (stopped, a checksum resync's slot
 * that waits for it would look unanswered to the watchdog): a stable
 * point of its own sent after ours moves sync_wait past ours, and then
 * its answer, one more drain and flush later, empties the log.
 */
void nm_stable_final(struct nm_dev *nm)
{
	unsigned long end = jiffies + min_t(unsigned long, HZ,
					    msecs_to_jiffies(nm->timeout_ms));
	struct nm_p_ping p;
	unsigned long flags;
	u64 cookie = 0;
	bool send;
	long left;

	might_sleep();
	nm_conn_stopping(nm, true);
	if (nm_tl_settled(nm))
		return;
	while (!nm_tx_trylock(nm, NM_ACK_WIRE_MAX)) {
		if (time_after_eq(jiffies, end) || nm_tl_settled(nm))
			goto out;
		msleep(20);
	}
	spin_lock_irqsave(&nm->lock, flags);
	send = __nm_stable_link(nm) && nm_regions_stable_point(&nm->rg);
	if (send)
		cookie = __nm_stable_cookie(nm);
	spin_unlock_irqrestore(&nm->lock, flags);
	if (send) {
		p.cookie = cpu_to_be64(cookie);
		send = !__nm_send_ctrl(nm, NM_P_SYNC, &p, sizeof(p));
	}
	mutex_unlock(&nm->tx_mutex);
	left = (long)(end - jiffies);
	/* its P_SYNC_ACK (nm_stable_done) or the link's end kicks sync_wq */
	if (send && left > 0)
		wait_event_timeout(nm->sync_wq, nm_tl_settled(nm), left);
out:
	if (!nm_tl_settled(nm))
		nm_info(nm, "suspend: the peer did not confirm its last writes stable in time");
}

void nm_conn_stop(struct nm_dev *nm)
{
	might_sleep();
	nm_sync_stop(nm);
	if (nm->conn_task) {
		nm_conn_stopping(nm, true);	/* before the shutdown wakes it */
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
	/* a write of the peer's that failed in the drain: its state saved */
	flush_work(&nm->disk_work);
	nm_ctrl_q_drop(nm);
	nm_state_set(nm, NM_ST_CSTATE, NM_C_STANDALONE);
}
