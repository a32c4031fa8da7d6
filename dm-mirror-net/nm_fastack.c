// SPDX-License-Identifier: GPL-2.0
/*
 * netmirror primary: write acks taken in the socket's data_ready.
 *
 * A primary's receive stream is almost only P_RECV_ACK (B) or P_WRITE_ACK
 * (C).  Reading each in the nm_conn thread costs a thread wakeup per ack
 * on top of the application's own: under TCG, waking a halted vCPU is the
 * most expensive step of a write.  So, as iSCSI's software initiator reads
 * its PDUs, a primary takes acks in the socket's data_ready callback (the
 * softirq that delivered them, or release_sock's backlog), completes the
 * writes there, and wakes the nm_conn thread only for anything else.
 *
 * Only whole, valid ack packets of a write the primary waits for, with
 * status 0, are taken (consumed from the socket); at anything else (another
 * type, a packet split across socket buffers, a failed check, an unknown
 * id, an error status) the fast path stops without consuming it and hands
 * the stream back to the thread, which reads that packet the ordinary way
 * (nm_conn.c: errors are reported and handled there, once).  With a
 * packet MAC (secret) the fast path is never entered.
 *
 * Ownership of the stream: the thread enters fast mode at a packet
 * boundary (nm_fast_wait), setting rx_fast under the socket lock; while
 * it is set only nm_fast_actor consumes, always under the socket lock (bh
 * lock in softirq, or owned); whoever clears it does so under the socket
 * lock too, so the thread never reads while an actor runs.  rx_seq and
 * rx_crc belong to the owner of the stream.
 *
 * A secondary's receive stream is almost only its primary's writes
 * (P_DATA, with P_BARRIER and P_SYNC between them).  Waking the nm_conn
 * thread for each lets the scheduler run it on the other, idle CPU, and
 * then both the thread's wakeup and the application's (woken by the ack
 * the thread sends) cross CPUs.  So, as NVMe/TCP's target does, data_ready
 * queues a worker on the CPU that received the packets (rx_work, high
 * priority); it reads and dispatches every whole packet of those types
 * with the thread's own code (nm_rx_packet), sends the acks it holds when
 * no whole packet is left, and hands the stream back to the thread at
 * anything else: another type, a packet larger than NM_RXW_MAX (a large
 * write is read as it arrives, by the thread), a header that fails its
 * check, a failed packet (rx_work_err ends the link, in the thread), and
 * a burst: NM_RXW_BURST writes read with more in the socket.  Writes that
 * arrive faster than one at a time are better read beside the writers
 * than on their CPU, so the thread, woken once, reads on until the socket
 * is empty, and only then hands the stream to rx_work again.  Under load
 * the reader controller (nm_rxmode.h, counted in nm_rx_packet) may want
 * the thread for a while instead: rx_work then hands back after its
 * packet, and the thread keeps the stream until the controller wants the
 * worker again.
 *
 * Ownership of the secondary's stream: the thread sets rx_work_on at a
 * packet boundary and waits; while it is set only rx_work reads, and it
 * checks rx_work_on before each packet.  Whoever clears it wakes the
 * thread, which then waits for a running rx_work to end (flush_work)
 * before it reads: a rx_work that starts later sees rx_work_on clear and
 * returns.  rx_seq, rx_crc, rx_mac and acks_held belong to the owner.
 *
 * Contexts: nm_fast_data_ready in softirq or process context (socket
 * locked), under sk_callback_lock (read); nm_fast_rx_work in a kworker
 * (may sleep: it submits the writes); nm_fast_wait in the nm_conn thread
 * only; nm_fast_attach/detach in nm_conn (socket set up / torn down).
 */
#include <linux/crc32c.h>
#include <linux/kthread.h>
#include <linux/sched/mm.h>
#include <linux/workqueue.h>
#include <linux/lockdep.h>
#include <net/sock.h>
#include <net/tcp.h>
#include "dm-netmirror.h"

/* the one packet shape taken here: header, ack, optional crc32c */
struct nm_fast_pkt {
	struct nm_hdr h;
	struct nm_p_ack a;
	__be32 crc;
} __packed;

/* Stop the fast path: the thread reads from here on. Socket locked. */
static void nm_fast_stop(struct nm_dev *nm)
{
	WRITE_ONCE(nm->rx_fast, false);
}

/*
 * tcp_read_sock actor: take every whole ack at the head of the stream.
 * Returns the bytes consumed; 0 (with rx_fast cleared) to hand back.
 */
static int nm_fast_actor(read_descriptor_t *desc, struct sk_buff *skb,
			 unsigned int off, size_t len)
{
	struct nm_dev *nm = desc->arg.data;
	size_t n = sizeof(struct nm_hdr) + sizeof(struct nm_p_ack) +
		   (nm->crc_on ? sizeof(__be32) : 0);
	u16 want = nm->protocol == NM_PROTO_B ? NM_P_RECV_ACK :
						NM_P_WRITE_ACK;
	struct nm_fast_pkt p;
	struct nm_req *req;
	size_t used = 0;

	if (!READ_ONCE(nm->rx_fast))
		return 0;
	while (len - used >= n) {
		if (skb_copy_bits(skb, off + used, &p, n))
			break;
		if (nm_hdr_check(&p.h, nm->rx_seq) ||
		    nm_h16(p.h.type) != want ||
		    nm_payload_check(want, sizeof(p.a), &p.a, nm->sectors) ||
		    p.a.status)
			break;
		if (nm->crc_on &&
		    crc32c(~0U, &p, n - sizeof(__be32)) != be32_to_cpu(p.crc))
			break;
		/* none, or not the kind it waits for: the thread decides */
		req = nm_ack_take(nm, want, &p.a);
		if (IS_ERR_OR_NULL(req))
			break;
		WRITE_ONCE(nm->rx_seq, nm->rx_seq + 1);
		used += n;
		atomic64_add(sizeof(p.h) + sizeof(p.a), &nm->bytes_received);
		atomic64_inc(&nm->acks_fast);
		nm_req_peer_done(req, true);
	}
	/* a packet the thread must read: stop at its first byte */
	if (used < len)
		nm_fast_stop(nm);
	return used;
}

static void nm_fast_data_ready(struct sock *sk)
{
	read_descriptor_t desc = { .count = 1 };
	void (*orig)(struct sock *sk);
	struct nm_dev *nm;

	read_lock_bh(&sk->sk_callback_lock);
	nm = sk->sk_user_data;
	if (!nm) {
		read_unlock_bh(&sk->sk_callback_lock);
		return;
	}
	/* the peer is alive: the link's watchdog (nm_conn.c) */
	WRITE_ONCE(nm->rx_at, jiffies);
	orig = nm->rx_orig_data_ready;
	if (READ_ONCE(nm->rx_work_on)) {
		/* the secondary's worker, on this CPU */
		queue_work_on(smp_processor_id(), nm->rx_wq, &nm->rx_work);
		read_unlock_bh(&sk->sk_callback_lock);
		return;
	}
	if (READ_ONCE(nm->rx_fast)) {
		desc.arg.data = nm;
		tcp_read_sock(sk, &desc, nm_fast_actor);
	}
	/* the thread reads the rest: wake it */
	if (!READ_ONCE(nm->rx_fast))
		orig(sk);
	read_unlock_bh(&sk->sk_callback_lock);
}

/* the largest packet rx_work waits for; larger ones the thread reads */
#define NM_RXW_MAX	(64 * 1024)
/* a run that read this many writes with more in the socket: a burst */
#define NM_RXW_BURST	2

/* The packets of the write stream, which rx_work reads. */
static bool nm_rxw_type(u16 type)
{
	return type == NM_P_DATA || type == NM_P_BARRIER ||
	       type == NM_P_SYNC || type == NM_P_ZERO;
}

/*
 * Is a whole packet for rx_work at the head of the stream?  1: yes; 0: not
 * yet (the next data_ready queues rx_work again); -1: the thread reads it.
 */
static int nm_rxw_whole(struct nm_dev *nm, u16 *type)
{
	struct socket *s = nm->sock;
	struct kvec iov;
	struct msghdr msg = {};
	struct nm_hdr h;
	u32 avail = nm_rx_avail(nm);
	u64 need;
	int r;

	if (avail < sizeof(h))
		return 0;
	iov.iov_base = &h;
	iov.iov_len = sizeof(h);
	r = kernel_recvmsg(s, &msg, &iov, 1, sizeof(h),
			   MSG_PEEK | MSG_DONTWAIT);
	if (r == -EAGAIN)
		return 0;
	*type = nm_h16(h.type);
	if (r != sizeof(h) || nm_hdr_check(&h, nm->rx_seq) ||
	    !nm_rxw_type(*type))
		return -1;
	need = sizeof(h) + (u64)nm_h32(h.length) +
	       (nm->rx_mac ? NM_MAC_LEN : nm->crc_on ? sizeof(__be32) : 0);
	/* a packet the receive buffer may never hold whole: the thread's */
	if (need > NM_RXW_MAX || need > READ_ONCE(s->sk->sk_rcvbuf) / 4)
		return -1;
	return avail >= need;
}

/*
 * Does the reader controller (nm_rxmode.h) want the thread to read the
 * secondary's stream now?  The stream's owner only.
 */
static bool nm_rxm_wants_thread(struct nm_dev *nm)
{
	return READ_ONCE(nm_fast_rx_probe) &&
	       nm_rxm_reader(&nm->rxm) == NM_RXM_THREAD;
}

/* rx_work gives the stream back to the thread (@err: the link's end). */
static void nm_rxw_stop(struct nm_dev *nm, int err)
{
	/* the thread reads it after its flush_work, which orders it */
	nm->rx_work_err = err;
	WRITE_ONCE(nm->rx_work_on, false);
	wake_up_interruptible_all(sk_sleep(nm->sock->sk));
}

static void nm_fast_rx_work(struct work_struct *w)
{
	struct nm_dev *nm = container_of(w, struct nm_dev, rx_work);
	unsigned int noio, writes = 0;
	int r = 0, whole = 0;
	u16 type;

	might_sleep();
	/* on the I/O path: no allocation here may recurse into I/O */
	noio = memalloc_noio_save();
	while (READ_ONCE(nm->rx_work_on)) {
		whole = nm_rxw_whole(nm, &type);
		if (whole <= 0)
			break;
		r = nm_rx_packet(nm);
		if (r)
			break;
		writes += type == NM_P_DATA || type == NM_P_ZERO;
		/* the controller tries, or keeps, the thread as the reader */
		if (nm_rxm_wants_thread(nm)) {
			whole = -1;
			break;
		}
		/*
		 * writes arrive faster than one at a time: the thread reads
		 * the burst, beside the writers rather than on their CPU
		 */
		if (writes >= NM_RXW_BURST && nm_rx_avail(nm)) {
			whole = -1;
			break;
		}
	}
	atomic64_add(writes, &nm->writes_rx_work);
	if (r || whole < 0) {
		/* also when the thread took the stream back meanwhile */
		nm_rxw_stop(nm, r);
	} else if (READ_ONCE(nm->rx_work_on)) {
		/*
		 * nothing whole left: the acks held for a next packet leave
		 * (if the thread took the stream back, it sends them)
		 */
		nm_peer_release_acks(nm, sizeof(struct nm_hdr) +
				     sizeof(struct nm_p_data));
	}
	memalloc_noio_restore(noio);
}

/* nm_ctr: the worker's state, before any link. */
void nm_fast_init(struct nm_dev *nm)
{
	INIT_WORK(&nm->rx_work, nm_fast_rx_work);
	nm->rx_work_on = false;
}

/* nm_conn: a new link's socket; its data_ready becomes ours. */
void nm_fast_attach(struct nm_dev *nm, struct socket *s)
{
	struct sock *sk = s->sk;

	nm->rx_fast = false;
	WRITE_ONCE(nm->rx_at, jiffies);
	/* a new link's load is measured afresh, from the worker */
	nm_rxm_init(&nm->rxm, jiffies, HZ / 20);
	write_lock_bh(&sk->sk_callback_lock);
	nm->rx_orig_data_ready = sk->sk_data_ready;
	sk->sk_user_data = nm;
	sk->sk_data_ready = nm_fast_data_ready;
	write_unlock_bh(&sk->sk_callback_lock);
}

/* nm_conn: the link is over; the socket's own callback again. */
void nm_fast_detach(struct nm_dev *nm, struct socket *s)
{
	struct sock *sk = s->sk;

	write_lock_bh(&sk->sk_callback_lock);
	if (sk->sk_user_data == nm) {
		sk->sk_data_ready = nm->rx_orig_data_ready;
		sk->sk_user_data = NULL;
	}
	write_unlock_bh(&sk->sk_callback_lock);
	nm->rx_fast = false;
}

/* May the fast path run now?  A primary, B or C, no packet MAC. */
static bool nm_fast_ok(struct nm_dev *nm)
{
	return READ_ONCE(nm_fast_ack) && !nm->rx_mac &&
	       nm->protocol != NM_PROTO_A &&
	       READ_ONCE(nm->role) == NM_ROLE_PRIMARY;
}

/*
 * May rx_work hold the stream now?  A secondary under B or C: under A the
 * primary waits for no answer, and the thread reads beside it; nor while
 * the reader controller tries or keeps the thread.
 */
static bool nm_rxw_ok(struct nm_dev *nm)
{
	return READ_ONCE(nm_fast_rx) && nm->protocol != NM_PROTO_A &&
	       READ_ONCE(nm->role) == NM_ROLE_SECONDARY &&
	       !nm_rxm_wants_thread(nm);
}

static bool nm_fast_over(struct nm_dev *nm, struct sock *sk, bool work)
{
	if (work && (!READ_ONCE(nm->rx_work_on) ||
		     READ_ONCE(nm->role) != NM_ROLE_SECONDARY))
		return true;
	if (!work && (!READ_ONCE(nm->rx_fast) ||
		      READ_ONCE(nm->role) != NM_ROLE_PRIMARY))
		return true;
	return READ_ONCE(sk->sk_err) ||
	       (READ_ONCE(sk->sk_shutdown) & RCV_SHUTDOWN) ||
	       kthread_should_stop();
}

/*
 * nm_conn thread, at a packet boundary: let data_ready take the acks (a
 * primary) or rx_work read the writes (a secondary) until something else
 * arrives.  Returns 0 when the thread is to read the next packet itself
 * (handed back, the link failing, a role change, a stop) or rx_work's
 * error when it ended the link.  A silent peer: the link's watchdog
 * (nm_conn.c) shuts the socket down, which ends the wait.
 */
int nm_fast_wait(struct nm_dev *nm, struct socket *s)
{
	read_descriptor_t desc = { .arg.data = nm, .count = 1 };
	struct sock *sk = s->sk;
	bool work;
	int r = 0;

	might_sleep();
	if (nm_rxw_ok(nm)) {
		/* more of the stream is here: the thread, awake, reads on */
		if (nm_rx_avail(nm))
			return 0;
		work = true;
		nm->rx_work_err = 0;
		lock_sock(sk);
		WRITE_ONCE(nm->rx_work_on, true);
		release_sock(sk);
		/* what arrived before: data_ready has been and gone for it */
		queue_work(nm->rx_wq, &nm->rx_work);
	} else if (nm_fast_ok(nm) && nm->rx_crc == ~0U) {
		work = false;
		lock_sock(sk);
		WRITE_ONCE(nm->rx_fast, true);
		tcp_read_sock(sk, &desc, nm_fast_actor);
		release_sock(sk);
	} else {
		return 0;
	}
	while (!nm_fast_over(nm, sk, work)) {
		wait_event_interruptible(*sk_sleep(sk),
					 nm_fast_over(nm, sk, work));
		if (signal_pending(current))
			flush_signals(current);
	}
	lock_sock(sk);
	if (work)
		WRITE_ONCE(nm->rx_work_on, false);
	else
		nm_fast_stop(nm);
	release_sock(sk);
	if (work) {
		/* a rx_work still reading finishes its packet first */
		flush_work(&nm->rx_work);
		if (nm->rx_work_err)
			r = nm->rx_work_err;
	}
	return r;
}
