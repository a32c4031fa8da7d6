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
 * Contexts: nm_fast_data_ready in softirq or process context (socket
 * locked), under sk_callback_lock (read); nm_fast_wait in the nm_conn
 * thread only; nm_fast_attach/detach in nm_conn (socket set up / torn down).
 */
#include <linux/crc32c.h>
#include <linux/kthread.h>
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
		req = nm_ack_take(nm, &p.a);
		if (!req)
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
	orig = nm->rx_orig_data_ready;
	if (READ_ONCE(nm->rx_fast)) {
		desc.arg.data = nm;
		tcp_read_sock(sk, &desc, nm_fast_actor);
	}
	/* the thread reads the rest: wake it */
	if (!READ_ONCE(nm->rx_fast))
		orig(sk);
	read_unlock_bh(&sk->sk_callback_lock);
}

/* nm_conn: a new link's socket; its data_ready becomes ours. */
void nm_fast_attach(struct nm_dev *nm, struct socket *s)
{
	struct sock *sk = s->sk;

	nm->rx_fast = false;
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

static bool nm_fast_over(struct nm_dev *nm, struct sock *sk)
{
	return !READ_ONCE(nm->rx_fast) || READ_ONCE(sk->sk_err) ||
	       (READ_ONCE(sk->sk_shutdown) & RCV_SHUTDOWN) ||
	       READ_ONCE(nm->role) != NM_ROLE_PRIMARY ||
	       kthread_should_stop();
}

/*
 * nm_conn thread, at a packet boundary: let data_ready take the acks until
 * something else arrives.  Returns 0 when the thread is to read the next
 * packet itself (handed back, the link failing, a role change, a stop),
 * -EAGAIN when nothing at all arrived within the link's timeout (as the
 * socket's receive timeout would have said).
 */
int nm_fast_wait(struct nm_dev *nm, struct socket *s)
{
	read_descriptor_t desc = { .arg.data = nm, .count = 1 };
	long timeo = msecs_to_jiffies(nm->timeout_ms);
	struct sock *sk = s->sk;
	u32 seen;
	int r = 0;

	might_sleep();
	if (!nm_fast_ok(nm) || nm->rx_crc != ~0U)
		return 0;
	lock_sock(sk);
	WRITE_ONCE(nm->rx_fast, true);
	/* what arrived before: data_ready has been and gone for it */
	tcp_read_sock(sk, &desc, nm_fast_actor);
	release_sock(sk);
	for (;;) {
		seen = READ_ONCE(nm->rx_seq);	/* the actor's progress */
		if (!wait_event_interruptible_timeout(*sk_sleep(sk),
						      nm_fast_over(nm, sk),
						      timeo) &&
		    READ_ONCE(nm->rx_seq) == seen) {
			r = -EAGAIN;
			break;
		}
		if (nm_fast_over(nm, sk))
			break;
		if (signal_pending(current))
			flush_signals(current);
	}
	lock_sock(sk);
	nm_fast_stop(nm);
	release_sock(sk);
	return r;
}
