// SPDX-License-Identifier: GPL-2.0
/*
 * netmirror connection: listen, connect, handshake, receive and dispatch
 * (thread nm_conn), and send (thread nm_send).
 *
 * Lock order: nm->tx_mutex (all sends, nm->sock changes) before nm->lock
 * (spinlock, irqsave).  Nothing sleeps under nm->lock.
 *
 * Choosing the link.  Both nodes listen and both may connect.  Every device
 * instance draws a random 64-bit nonce; the handshake (P_HELLO both ways)
 * tells each side the other's.  A link is kept only if it was initiated by
 * the node with the larger nonce, so when both connect at once both sides
 * keep the same one.  Once a node knows the peer's nonce it connects only
 * if its own is larger, and otherwise only accepts.
 *
 * The receive loop runs in nm_conn, which owns the socket's lifetime: only
 * nm_conn creates and releases it.  Others may shut it down (under
 * tx_mutex) to make nm_conn notice and tear the link down.
 */
#include <linux/kthread.h>
#include <linux/delay.h>
#include <linux/random.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/tcp.h>
#include <net/sock.h>
#include <net/tcp.h>
#include <linux/crc32c.h>
#include <linux/key.h>
#include <keys/user-type.h>
#include <crypto/hash.h>
#include <crypto/algapi.h>
#include <linux/highmem.h>
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

static const char *nm_name(struct nm_dev *nm)
{
	return dm_device_name(dm_table_get_md(nm->ti->table));
}

static int nm_addr_len(const struct sockaddr_storage *ss)
{
	return ss->ss_family == AF_INET ? sizeof(struct sockaddr_in) :
					  sizeof(struct sockaddr_in6);
}

/* Send all of @msg (nbd's __sock_xmit pattern).  Caller holds tx_mutex. */
static int nm_xmit(struct socket *sock, struct msghdr *msg)
{
	unsigned int noreclaim = memalloc_noreclaim_save();
	int r;

	do {
		r = sock_sendmsg(sock, msg);
		if (r == 0)
			r = -EPIPE;
	} while (r > 0 && msg_data_left(msg));
	memalloc_noreclaim_restore(noreclaim);
	return r < 0 ? r : 0;
}

/*
 * Send @vec as part of the current packet; with integrity on, add it to the
 * packet's crc32c (the packet always ends with nm_send_trailer()).
 */
static int nm_send_kvec(struct nm_dev *nm, struct kvec *vec, int n,
			size_t len, bool more)
{
	struct msghdr msg = {
		.msg_flags = MSG_NOSIGNAL |
			     (more || nm->crc_on ? MSG_MORE : 0),
	};
	int i;

	if (nm->crc_on)
		for (i = 0; i < n; i++)
			nm->tx_crc = crc32c(nm->tx_crc, vec[i].iov_base,
					    vec[i].iov_len);
	iov_iter_kvec(&msg.msg_iter, WRITE, vec, n, len);
	return nm_xmit(nm->sock, &msg);
}

/* End of a packet: the crc32c trailer when integrity is on. */
static int nm_send_trailer(struct nm_dev *nm)
{
	__be32 crc = cpu_to_be32(nm->tx_crc);
	struct kvec vec = { .iov_base = &crc, .iov_len = sizeof(crc) };
	struct msghdr msg = { .msg_flags = MSG_NOSIGNAL };

	if (!nm->crc_on)
		return 0;
	nm->tx_crc = ~0U;
	iov_iter_kvec(&msg.msg_iter, WRITE, &vec, 1, sizeof(crc));
	return nm_xmit(nm->sock, &msg);
}

/*
 * Send one packet whose payload is @vec[0..n-1] (header built here).
 * Takes tx_mutex.  Used for every packet but P_DATA.
 */
int nm_send_vec(struct nm_dev *nm, u16 type, struct kvec *vec, int n)
{
	struct nm_hdr h;
	struct kvec hv = { .iov_base = &h, .iov_len = sizeof(h) };
	size_t len = 0;
	int i, r;

	for (i = 0; i < n; i++)
		len += vec[i].iov_len;
	mutex_lock(&nm->tx_mutex);
	if (!nm->sock) {
		mutex_unlock(&nm->tx_mutex);
		return -ENOTCONN;
	}
	nm_hdr_fill(&h, type, len, nm->tx_seq++);
	r = nm_send_kvec(nm, &hv, 1, sizeof(h), len != 0);
	if (!r && len)
		r = nm_send_kvec(nm, vec, n, len, false);
	if (!r)
		r = nm_send_trailer(nm);
	if (!r) {
		nm->last_tx = jiffies;
		atomic64_add(sizeof(h) + len, &nm->bytes_sent);
	} else {
		kernel_sock_shutdown(nm->sock, SHUT_RDWR);
	}
	mutex_unlock(&nm->tx_mutex);
	return r;
}

/* Send a packet with a fixed payload.  Takes tx_mutex. */
int nm_send_ctrl(struct nm_dev *nm, u16 type, const void *p, u32 len)
{
	struct kvec vec = { .iov_base = (void *)p, .iov_len = len };

	return nm_send_vec(nm, type, &vec, 1);
}

/* Receive part of the current packet, adding it to the packet's crc32c. */
int nm_rx(struct nm_dev *nm, void *buf, size_t len)
{
	int r = nm_recv_full(nm->sock, buf, len);

	if (!r && nm->crc_on)
		nm->rx_crc = crc32c(nm->rx_crc, buf, len);
	return r;
}

/* End of a received packet: check the crc32c trailer (integrity on). */
int nm_rx_trailer(struct nm_dev *nm)
{
	__be32 crc;
	u32 want = nm->rx_crc;
	int r;

	if (!nm->crc_on)
		return 0;
	nm->rx_crc = ~0U;
	r = nm_recv_full(nm->sock, &crc, sizeof(crc));
	if (r)
		return r;
	if (be32_to_cpu(crc) != want) {
		DMERR_LIMIT("%s: packet checksum mismatch: dropping link",
			    nm_name(nm));
		nm_set_error(nm, "integrity_error");
		return -EBADMSG;
	}
	return 0;
}

static int __nm_recv(struct socket *sock, void *buf, size_t len,
		     unsigned long deadline);

/* Receive exactly @len bytes; -EAGAIN on the socket's receive timeout. */
int nm_recv_full(struct socket *sock, void *buf, size_t len)
{
	return __nm_recv(sock, buf, len, 0);
}

/* As nm_recv_full, but give up at @deadline (jiffies; 0: never). */
static int __nm_recv(struct socket *sock, void *buf, size_t len,
		     unsigned long deadline)
{
	struct kvec vec = { .iov_base = buf, .iov_len = len };
	struct msghdr msg = { .msg_flags = MSG_NOSIGNAL };
	unsigned int noreclaim;
	int r;

	while (vec.iov_len) {
		noreclaim = memalloc_noreclaim_save();
		r = kernel_recvmsg(sock, &msg, &vec, 1, vec.iov_len,
				   MSG_WAITALL | MSG_NOSIGNAL);
		memalloc_noreclaim_restore(noreclaim);
		if (r == 0)
			return -ECONNRESET;
		if (r < 0)
			return r;
		vec.iov_base += r;
		vec.iov_len -= r;
		if (vec.iov_len && deadline && time_after(jiffies, deadline))
			return -ETIMEDOUT;	/* a peer dripping bytes */
	}
	return 0;
}

#define NM_TX_BATCH	16

/* Send one write: header, then the bio's pages, MSG_MORE on all but last. */
static int nm_send_data(struct nm_dev *nm, struct nm_req *req)
{
	struct bio *bio = req->bio;
	struct {
		struct nm_hdr h;
		struct nm_p_data d;
	} __packed pkt;
	struct kvec vec = { .iov_base = &pkt, .iov_len = sizeof(pkt) };
	struct bio_vec bv, batch[NM_TX_BATCH];
	struct bvec_iter iter;
	u32 size = bio->bi_iter.bi_size, fl = 0;
	unsigned int nb = 0;
	size_t blen = 0;
	int r;

	if (bio->bi_opf & REQ_FUA)
		fl |= NM_DF_FUA;
	if (bio->bi_opf & REQ_PREFLUSH)
		fl |= NM_DF_FLUSH;
	nm_hdr_fill(&pkt.h, NM_P_DATA, sizeof(pkt.d) + size, nm->tx_seq++);
	pkt.d.id = nm_be64(req->id);
	pkt.d.sector = nm_be64(bio->bi_iter.bi_sector);
	pkt.d.size = nm_be32(size);
	pkt.d.flags = nm_be32(fl);
	pkt.d.epoch = nm_be32(req->epoch);
	pkt.d.reserved = 0;
	r = nm_send_kvec(nm, &vec, 1, sizeof(pkt), size != 0);
	if (r)
		return r;
	/* the pages go out in batches of NM_TX_BATCH segments per sendmsg */
	bio_for_each_segment(bv, bio, iter) {
		if (nm->crc_on) {
			void *p = kmap_local_page(bv.bv_page);

			nm->tx_crc = crc32c(nm->tx_crc, p + bv.bv_offset,
					    bv.bv_len);
			kunmap_local(p);
		}
		batch[nb++] = bv;
		blen += bv.bv_len;
		if (nb == NM_TX_BATCH || iter.bi_size == bv.bv_len) {
			struct msghdr msg = { .msg_flags = MSG_NOSIGNAL };

			if (iter.bi_size > bv.bv_len || nm->crc_on)
				msg.msg_flags |= MSG_MORE;
			iov_iter_bvec(&msg.msg_iter, WRITE, batch, nb, blen);
			r = nm_xmit(nm->sock, &msg);
			if (r)
				return r;
			nb = 0;
			blen = 0;
		}
	}
	r = nm_send_trailer(nm);
	if (r)
		return r;
	atomic64_add(sizeof(pkt) + size, &nm->bytes_sent);
	atomic64_inc(&nm->writes_sent);
	nm->last_tx = jiffies;
	return 0;
}

/* P_READ_REQ for a read served by the peer.  Caller holds tx_mutex. */
static int nm_send_read_req(struct nm_dev *nm, struct nm_req *req)
{
	struct {
		struct nm_hdr h;
		struct nm_p_data d;
	} __packed pkt;
	struct kvec vec = { .iov_base = &pkt, .iov_len = sizeof(pkt) };
	int r;

	memset(&pkt.d, 0, sizeof(pkt.d));
	nm_hdr_fill(&pkt.h, NM_P_READ_REQ, sizeof(pkt.d), nm->tx_seq++);
	pkt.d.id = nm_be64(req->id);
	pkt.d.sector = nm_be64(req->bio->bi_iter.bi_sector);
	pkt.d.size = nm_be32(req->bio->bi_iter.bi_size);
	r = nm_send_kvec(nm, &vec, 1, sizeof(pkt), false);
	if (!r)
		r = nm_send_trailer(nm);
	if (!r) {
		atomic64_add(sizeof(pkt), &nm->bytes_sent);
		nm->last_tx = jiffies;
	}
	return r;
}

static bool nm_req_unqueue(struct nm_dev *nm, struct nm_req *req)
{
	unsigned long flags;
	bool was;

	spin_lock_irqsave(&nm->lock, flags);
	was = test_and_clear_bit(NM_REQ_QUEUED, &req->flags);
	if (was)
		list_del_init(&req->list);
	spin_unlock_irqrestore(&nm->lock, flags);
	return was;
}

/* Sender: move the first queued write to wait_q and transmit it. */
static bool nm_send_one(struct nm_dev *nm)
{
	struct nm_req *req;
	unsigned long flags;
	u32 gen;
	int r;

	spin_lock_irqsave(&nm->lock, flags);
	req = list_first_entry_or_null(&nm->send_q, struct nm_req, list);
	if (!req || nm->cstate < NM_C_CONNECTED) {
		spin_unlock_irqrestore(&nm->lock, flags);
		return false;
	}
	list_move_tail(&req->list, &nm->wait_q);
	atomic_inc(&req->ref);
	gen = nm->conn_gen;
	spin_unlock_irqrestore(&nm->lock, flags);

	mutex_lock(&nm->tx_mutex);
	if (!nm->sock || gen != nm->conn_gen) {
		r = -ENOTCONN;
	} else if (test_bit(NM_REQ_READ, &req->flags)) {
		r = nm_send_read_req(nm, req);
		if (r)
			kernel_sock_shutdown(nm->sock, SHUT_RDWR);
	} else {
		r = 0;
		if (nm->ordering != NM_ORD_NONE && nm->sent_in_epoch &&
		    req->epoch != nm->sent_epoch) {
			struct nm_p_barrier b = {
				.epoch = nm_be32(nm->sent_epoch),
			};
			struct nm_hdr h;
			struct kvec vec[2] = {
				{ .iov_base = &h, .iov_len = sizeof(h) },
				{ .iov_base = &b, .iov_len = sizeof(b) },
			};

			nm_hdr_fill(&h, NM_P_BARRIER, sizeof(b), nm->tx_seq++);
			r = nm_send_kvec(nm, vec, 2, sizeof(h) + sizeof(b),
					 true);
			if (!r)
				r = nm_send_trailer(nm);
		}
		if (!r) {
			nm->sent_epoch = req->epoch;
			nm->sent_in_epoch = true;
			r = nm_send_data(nm, req);
		}
		if (r && nm->sock)
			kernel_sock_shutdown(nm->sock, SHUT_RDWR);
	}
	mutex_unlock(&nm->tx_mutex);

	if (r) {
		if (nm_req_unqueue(nm, req))
			nm_req_peer_done(req, false);
	} else if (nm->protocol == NM_PROTO_A &&
		   !test_bit(NM_REQ_READ, &req->flags)) {
		if (nm_req_unqueue(nm, req))
			nm_req_peer_done(req, true);
	}
	nm_req_put(req);
	return true;
}

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
 * A peer that answers pings but not a write (its disk hangs) must not hold
 * the write longer than the timeout either: drop the link, which completes
 * the write from the local disk and marks its regions out of sync.
 */
static void nm_check_stuck(struct nm_dev *nm)
{
	struct nm_req *req;
	unsigned long flags;
	bool stuck = false;

	spin_lock_irqsave(&nm->lock, flags);
	req = list_first_entry_or_null(&nm->wait_q, struct nm_req, list);
	if (req && time_after(jiffies, req->queued_at +
			      msecs_to_jiffies(nm->timeout_ms)))
		stuck = true;
	spin_unlock_irqrestore(&nm->lock, flags);
	if (stuck) {
		DMERR("%s: write not acknowledged within %u ms: dropping link",
		      nm_name(nm), nm->timeout_ms);
		nm_set_error(nm, "peer_timeout");
		nm_conn_drop(nm);
	}
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

		spin_lock_irqsave(&nm->lock, flags);
		state = nm->send_state && nm->cstate >= NM_C_CONNECTED;
		if (state)
			nm->send_state = false;
		spin_unlock_irqrestore(&nm->lock, flags);
		if (state) {
			struct nm_p_state s = {
				.role = nm_be32(nm->role),
				.disk = nm_be32(nm->disk),
			};

			/* a new primary period starts a new epoch sequence */
			mutex_lock(&nm->tx_mutex);
			nm->sent_in_epoch = false;
			mutex_unlock(&nm->tx_mutex);
			nm_send_ctrl(nm, NM_P_STATE, &s, sizeof(s));
		}
		spin_lock_irqsave(&nm->lock, flags);
		state = nm->send_bitmap && nm->cstate >= NM_C_CONNECTED;
		nm->send_bitmap = false;
		spin_unlock_irqrestore(&nm->lock, flags);
		if (state)
			nm_send_bitmap(nm);
		nm_peer_send_acks(nm);
		while (nm_send_one(nm))
			cond_resched();

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

void nm_conn_kick(struct nm_dev *nm)
{
	wake_up(&nm->send_wq);
}

void nm_conn_drop(struct nm_dev *nm)
{
	mutex_lock(&nm->tx_mutex);
	if (nm->sock)
		kernel_sock_shutdown(nm->sock, SHUT_RDWR);
	mutex_unlock(&nm->tx_mutex);
}

static void nm_sock_setup(struct socket *sock, unsigned int timeout_ms)
{
	struct sock *sk = sock->sk;

	tcp_sock_set_nodelay(sk);
	sock_set_keepalive(sk);
	sk->sk_allocation = GFP_NOIO;
	sk->sk_sndtimeo = msecs_to_jiffies(timeout_ms);
	sk->sk_rcvtimeo = msecs_to_jiffies(timeout_ms);
}

static int nm_listen(struct nm_dev *nm)
{
	struct socket *s;
	int r;

	if (nm->listen_sock)
		return 0;
	r = sock_create_kern(&init_net, nm->listen_addr.ss_family, SOCK_STREAM,
			     IPPROTO_TCP, &s);
	if (r)
		return r;
	sock_set_reuseaddr(s->sk);
	s->sk->sk_rcvtimeo = msecs_to_jiffies(250);
	r = kernel_bind(s, (struct sockaddr *)&nm->listen_addr,
			nm_addr_len(&nm->listen_addr));
	if (!r)
		r = kernel_listen(s, 4);
	if (r) {
		sock_release(s);
		return r;
	}
	nm->listen_sock = s;
	return 0;
}

static void nm_unlisten(struct nm_dev *nm)
{
	if (nm->listen_sock) {
		kernel_sock_shutdown(nm->listen_sock, SHUT_RDWR);
		sock_release(nm->listen_sock);
		nm->listen_sock = NULL;
	}
}

static struct socket *nm_try_connect(struct nm_dev *nm)
{
	struct socket *s;
	int r;

	r = sock_create_kern(&init_net, nm->peer_addr.ss_family, SOCK_STREAM,
			     IPPROTO_TCP, &s);
	if (r)
		return NULL;
	nm_sock_setup(s, NM_CONNECT_TIMEOUT_MS);
	r = kernel_connect(s, (struct sockaddr *)&nm->peer_addr,
			   nm_addr_len(&nm->peer_addr), 0);
	if (r) {
		sock_release(s);
		return NULL;
	}
	return s;
}

static void nm_hello_fill(struct nm_dev *nm, struct nm_p_hello *m)
{
	unsigned long flags;

	memset(m, 0, sizeof(*m));
	m->proto_min = nm_be32(NM_PROTO_MIN);
	m->proto_max = nm_be32(NM_PROTO_MAX);
	m->dev_sectors = nm_be64(nm->sectors);
	m->nonce = nm_be64(nm->nonce);
	spin_lock_irqsave(&nm->lock, flags);
	m->role = nm_be32(nm->role);
	m->disk = nm_be32(nm->disk);
	spin_unlock_irqrestore(&nm->lock, flags);
	m->protocol = nm_be32(nm->protocol);
	m->region_sectors = nm_be32(nm->region_sectors);
	m->features = nm_be64((nm->integrity ? NM_FEAT_INTEGRITY : 0) |
			      (nm->secret_desc[0] ? NM_FEAT_AUTH : 0));
}

/* HMAC-SHA256 over "NMAUTH1" || challenge || nonce_a || nonce_b. */
static int nm_auth_mac(struct crypto_shash *tfm, const u8 *chal, u64 a, u64 b,
		       u8 *out)
{
	SHASH_DESC_ON_STACK(desc, tfm);
	__be64 na = cpu_to_be64(a), nb = cpu_to_be64(b);
	int r;

	desc->tfm = tfm;
	r = crypto_shash_init(desc);
	if (!r)
		r = crypto_shash_update(desc, "NMAUTH1", 7);
	if (!r)
		r = crypto_shash_update(desc, chal, NM_AUTH_LEN);
	if (!r)
		r = crypto_shash_update(desc, (u8 *)&na, sizeof(na));
	if (!r)
		r = crypto_shash_update(desc, (u8 *)&nb, sizeof(nb));
	if (!r)
		r = crypto_shash_final(desc, out);
	shash_desc_zero(desc);
	return r;
}

/* Send one handshake packet (no trailer, integrity is not on yet). */
static int nm_hs_send(struct socket *s, u16 type, u32 seq, const void *p,
		      u32 len)
{
	struct nm_hdr h;
	struct kvec vec[2] = {
		{ .iov_base = &h, .iov_len = sizeof(h) },
		{ .iov_base = (void *)p, .iov_len = len },
	};
	struct msghdr msg = { .msg_flags = MSG_NOSIGNAL };

	nm_hdr_fill(&h, type, len, seq);
	iov_iter_kvec(&msg.msg_iter, WRITE, vec, 2, sizeof(h) + len);
	return nm_xmit(s, &msg);
}

static int nm_hs_recv(struct socket *s, u16 type, u32 seq, void *p, u32 len,
		      unsigned long deadline)
{
	struct nm_hdr h;
	int r = __nm_recv(s, &h, sizeof(h), deadline);

	if (r)
		return r;
	r = nm_hdr_check(&h, seq);
	if (r)
		return r;
	if (nm_h16(h.type) != type || nm_h32(h.length) != len)
		return -EPROTO;
	return __nm_recv(s, p, len, deadline);
}

/*
 * Challenge-response with the shared secret (a "logon" key): each side
 * proves it holds the key by MACing the other's fresh challenge together
 * with both nonces.  A replayed response does not match a new challenge.
 */
static int nm_auth(struct nm_dev *nm, struct socket *s, u64 peer_nonce,
		   unsigned long deadline)
{
	u8 chal[NM_AUTH_LEN], pchal[NM_AUTH_LEN], mac[NM_AUTH_LEN];
	u8 pmac[NM_AUTH_LEN], want[NM_AUTH_LEN];
	const struct user_key_payload *ukp;
	struct crypto_shash *tfm;
	struct key *key;
	int r;

	key = nm->secret_key;
	tfm = crypto_alloc_shash("hmac(sha256)", 0, 0);
	if (IS_ERR(tfm))
		return PTR_ERR(tfm);
	down_read(&key->sem);
	ukp = user_key_payload_locked(key);
	r = ukp ? crypto_shash_setkey(tfm, ukp->data, ukp->datalen) :
		  -EKEYREVOKED;
	up_read(&key->sem);
	if (r) {
		DMERR_LIMIT("%s: secret key unusable (%d)", nm_name(nm), r);
		nm_set_error(nm, "secret_missing");
		goto out;
	}

	get_random_bytes(chal, sizeof(chal));
	r = nm_hs_send(s, NM_P_AUTH_CHALLENGE, 1, chal, sizeof(chal));
	if (!r)
		r = nm_hs_recv(s, NM_P_AUTH_CHALLENGE, 1, pchal, sizeof(pchal),
				       deadline);
	if (!r)
		r = nm_auth_mac(tfm, pchal, nm->nonce, peer_nonce, mac);
	if (!r)
		r = nm_hs_send(s, NM_P_AUTH_RESPONSE, 2, mac, sizeof(mac));
	if (!r)
		r = nm_hs_recv(s, NM_P_AUTH_RESPONSE, 2, pmac, sizeof(pmac),
				       deadline);
	if (!r)
		r = nm_auth_mac(tfm, chal, peer_nonce, nm->nonce, want);
	if (!r && crypto_memneq(want, pmac, sizeof(want)))
		r = -EKEYREJECTED;
	if (r) {
		DMERR_LIMIT("%s: peer authentication failed (%d)",
			    nm_name(nm), r);
		nm_set_error(nm, "auth_failed");
	}
out:
	memzero_explicit(want, sizeof(want));
	memzero_explicit(mac, sizeof(mac));
	crypto_free_shash(tfm);
	return r;
}

/*
 * Exchange P_HELLO on a fresh socket; decide whether to keep it.
 * Returns 0 to keep the link, a negative errno to drop it.
 */
static int nm_handshake(struct nm_dev *nm, struct socket *s, bool initiator)
{
	struct {
		struct nm_hdr h;
		struct nm_p_hello m;
	} __packed out, in;
	struct kvec vec = { .iov_base = &out, .iov_len = sizeof(out) };
	struct msghdr msg = { .msg_flags = MSG_NOSIGNAL };
	unsigned long flags;
	u64 peer_nonce, peer_sectors;
	const char *why = NULL;
	unsigned long deadline = jiffies + 5 * HZ;	/* whole handshake */
	bool larger;
	int r;

	nm_hdr_fill(&out.h, NM_P_HELLO, sizeof(out.m), 0);
	nm_hello_fill(nm, &out.m);
	iov_iter_kvec(&msg.msg_iter, WRITE, &vec, 1, sizeof(out));
	r = nm_xmit(s, &msg);
	if (r)
		return r;
	r = __nm_recv(s, &in.h, sizeof(in.h), deadline);
	if (r)
		return r;
	r = nm_hdr_check(&in.h, 0);
	if (!r && nm_h16(in.h.type) != NM_P_HELLO)
		r = -EPROTO;
	if (r) {
		DMERR("%s: handshake: bad first packet (%d)", nm_name(nm), r);
		nm_set_error(nm, "bad_handshake");
		return r;
	}
	r = __nm_recv(s, &in.m, sizeof(in.m), deadline);
	if (r)
		return r;
	r = nm_payload_check(NM_P_HELLO, sizeof(in.m), &in.m, nm->sectors);
	if (r) {
		DMERR("%s: handshake: invalid hello (%d)", nm_name(nm), r);
		nm_set_error(nm, "bad_handshake");
		return r;
	}
	peer_nonce = nm_h64(in.m.nonce);
	peer_sectors = nm_h64(in.m.dev_sectors);

	if (nm_h32(in.m.proto_max) < NM_PROTO_MIN ||
	    nm_h32(in.m.proto_min) > NM_PROTO_MAX)
		why = "version_mismatch";
	else if (nm_h32(in.m.protocol) != nm->protocol)
		why = "protocol_mismatch";
	else if (nm_h32(in.m.region_sectors) != nm->region_sectors)
		why = "region_size_mismatch";
	else if ((nm_h64(in.m.features) & NM_FEAT_INTEGRITY) !=
		 (nm->integrity ? NM_FEAT_INTEGRITY : 0))
		why = "integrity_mismatch";
	else if ((nm_h64(in.m.features) & NM_FEAT_AUTH) !=
		 (nm->secret_desc[0] ? NM_FEAT_AUTH : 0))
		why = "auth_mismatch";
	else if (peer_nonce == nm->nonce)
		why = "connected_to_self";
	else if (peer_sectors < nm->sectors)
		why = "peer_too_small";
	else if (nm_h32(in.m.role) == NM_ROLE_PRIMARY &&
		 READ_ONCE(nm->role) == NM_ROLE_PRIMARY)
		why = "both_primary";
	if (why) {
		DMERR_LIMIT("%s: refusing peer: %s (peer %llu sectors, ours %llu)",
			    nm_name(nm), why, peer_sectors,
			    (unsigned long long)nm->sectors);
		nm_set_error(nm, why);
		return -EPROTO;
	}

	if (nm->secret_desc[0]) {
		r = nm_auth(nm, s, peer_nonce, deadline);
		if (r)
			return r;
	}

	spin_lock_irqsave(&nm->lock, flags);
	nm->peer_nonce = peer_nonce;
	nm->peer_nonce_known = true;
	nm->peer_role = nm_h32(in.m.role);
	nm->peer_disk = nm_h32(in.m.disk);
	spin_unlock_irqrestore(&nm->lock, flags);

	/* keep only the link initiated by the larger nonce */
	larger = nm->nonce > peer_nonce;
	if (initiator != larger)
		return -EALREADY;
	return 0;
}

static void nm_handle_ack(struct nm_dev *nm, u16 type,
			  const struct nm_p_ack *a, int *err)
{
	struct nm_req *req, *found = NULL;
	unsigned long flags;
	u64 id = nm_h64(a->id);
	bool want = (nm->protocol == NM_PROTO_B && type == NM_P_RECV_ACK) ||
		    (nm->protocol == NM_PROTO_C && type == NM_P_WRITE_ACK);

	if (!want) {
		*err = -EPROTO;
		return;
	}
	spin_lock_irqsave(&nm->lock, flags);
	list_for_each_entry(req, &nm->wait_q, list) {
		if (req->id == id && !test_bit(NM_REQ_READ, &req->flags)) {
			found = req;
			clear_bit(NM_REQ_QUEUED, &req->flags);
			list_del_init(&req->list);
			break;
		}
	}
	spin_unlock_irqrestore(&nm->lock, flags);
	if (!found) {
		*err = -ENOENT;
		return;
	}
	if (a->status)
		DMERR_LIMIT("%s: peer failed write at sector %llu (error %u)",
			    nm_name(nm),
			    (unsigned long long)found->bio->bi_iter.bi_sector,
			    nm_h32(a->status));
	nm_req_peer_done(found, a->status == 0);
}

/* Receive and dispatch until the link fails; returns the reason. */
static int nm_receive(struct nm_dev *nm, struct socket *s)
{
	union {
		struct nm_p_hello hello;
		struct nm_p_state state;
		struct nm_p_data data;
		struct nm_p_ack ack;
		struct nm_p_barrier barrier;
		struct nm_p_ping ping;
		struct nm_p_bitmap bitmap;
		struct nm_p_count count;
		struct nm_p_rs_ack rs_ack;
		struct nm_p_auth auth;
	} p;
	struct nm_hdr h;
	unsigned long flags;
	u16 type;
	u32 len;
	int r;

	s->sk->sk_rcvtimeo = msecs_to_jiffies(nm->timeout_ms);
	while (!kthread_should_stop()) {
		r = nm_rx(nm, &h, sizeof(h));
		if (r)
			return r;
		r = nm_hdr_check(&h, nm->rx_seq);
		if (r) {
			DMERR("%s: bad packet header (error %d): dropping link",
			      nm_name(nm), r);
			nm_set_error(nm, "bad_packet");
			return r;
		}
		nm->rx_seq++;
		type = nm_h16(h.type);
		len = nm_h32(h.length);
		r = nm_rx(nm, &p, nm_fixed_len(type));
		if (r)
			return r;
		/* variable payloads end in their handler, which checks */
		if (type != NM_P_DATA && type != NM_P_RS_DATA &&
		    type != NM_P_BITMAP && type != NM_P_READ_REPLY) {
			r = nm_rx_trailer(nm);
			if (r)
				return r;
		}
		atomic64_add(sizeof(h) + len, &nm->bytes_received);
		r = nm_payload_check(type, len, &p, nm->sectors);
		if (r) {
			DMERR("%s: invalid packet type %u (error %d): dropping link",
			      nm_name(nm), type, r);
			nm_set_error(nm, "bad_packet");
			return r;
		}
		switch (type) {
		case NM_P_STATE:
			spin_lock_irqsave(&nm->lock, flags);
			nm->peer_role = nm_h32(p.state.role);
			nm->peer_disk = nm_h32(p.state.disk);
			if (nm->peer_role == NM_ROLE_PRIMARY &&
			    nm->role == NM_ROLE_PRIMARY)
				r = -EBUSY;
			spin_unlock_irqrestore(&nm->lock, flags);
			nm_peer_reset(nm);
			nm_sync_kick(nm);
			dm_table_event(nm->ti->table);
			if (r) {
				DMERR("%s: both nodes are primary: disconnecting",
				      nm_name(nm));
				nm_set_error(nm, "both_primary");
			}
			break;
		case NM_P_DATA:
			r = nm_peer_data(nm, &p.data);
			break;
		case NM_P_RECV_ACK:
		case NM_P_WRITE_ACK:
			nm_handle_ack(nm, type, &p.ack, &r);
			break;
		case NM_P_BARRIER:
			r = nm_peer_barrier(nm, nm_h32(p.barrier.epoch));
			break;
		case NM_P_BARRIER_ACK:
		case NM_P_PING_ACK:
			break;
		case NM_P_BITMAP:
			r = nm_recv_bitmap(nm, &p.bitmap, len);
			break;
		case NM_P_BITMAP_DONE:
			spin_lock_irqsave(&nm->lock, flags);
			nm->bm_peer_done = true;
			spin_unlock_irqrestore(&nm->lock, flags);
			nm_sync_kick(nm);
			break;
		case NM_P_RS_START:
			r = nm_peer_rs_start(nm, nm_h64(p.count.count));
			break;
		case NM_P_RS_DATA:
			r = nm_peer_rs_data(nm, &p.data);
			break;
		case NM_P_RS_ACK:
			nm_rs_ack(nm, &p.rs_ack);
			break;
		case NM_P_RS_DONE:
			r = nm_peer_rs_done(nm);
			break;
		case NM_P_SYNC:
			r = nm_peer_sync(nm, p.ping.cookie);
			break;
		case NM_P_SYNC_ACK:
			WRITE_ONCE(nm->sync_acked, nm_h64(p.ping.cookie));
			nm_sync_kick(nm);
			break;
		case NM_P_READ_REQ:
			r = nm_peer_read(nm, &p.data);
			break;
		case NM_P_READ_REPLY:
			r = nm_recv_read_reply(nm, &p.ack, len);
			break;
		case NM_P_NEG_ACK:
			nm_neg_ack(nm, &p.rs_ack);
			break;
		case NM_P_PING:
			r = nm_send_ctrl(nm, NM_P_PING_ACK, &p.ping,
					 sizeof(p.ping));
			break;
		default:	/* P_HELLO after the handshake */
			r = -EPROTO;
			break;
		}
		if (r) {
			if (r != -ENOTCONN && r != -EPIPE && r != -EBADMSG &&
			    r != -EBUSY) {
				DMERR("%s: packet type %u rejected (error %d): dropping link",
				      nm_name(nm), type, r);
				nm_set_error(nm, "bad_packet");
			}
			return r;
		}
	}
	return 0;
}

/* The link is gone: give up every pending peer part, close the socket. */
static void nm_teardown(struct nm_dev *nm, struct socket *s)
{
	struct nm_req *req, *tmp;
	unsigned long flags;
	LIST_HEAD(failed);

	mutex_lock(&nm->tx_mutex);
	kernel_sock_shutdown(s, SHUT_RDWR);
	nm->sock = NULL;
	mutex_unlock(&nm->tx_mutex);

	spin_lock_irqsave(&nm->lock, flags);
	nm->cstate = nm->want_connect ? NM_C_CONNECTING : NM_C_STANDALONE;
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
	nm_sync_link_down(nm);
	nm_peer_drain(nm);
	sock_release(s);
	DMINFO("%s: connection to %s closed", nm_name(nm), nm->peer_str);
	dm_table_event(nm->ti->table);
}

static void nm_go_connected(struct nm_dev *nm, struct socket *s, u32 seq)
{
	unsigned long flags;

	nm_sock_setup(s, nm->timeout_ms);
	mutex_lock(&nm->tx_mutex);
	nm->sock = s;
	nm->sent_in_epoch = false;
	nm->last_tx = jiffies;
	nm->crc_on = nm->integrity;
	nm->tx_crc = ~0U;
	nm->tx_seq = seq;
	mutex_unlock(&nm->tx_mutex);
	nm->rx_crc = ~0U;
	nm->rx_seq = seq;
	nm_peer_reset(nm);

	spin_lock_irqsave(&nm->lock, flags);
	nm->conn_gen++;
	nm->cstate = NM_C_CONNECTED;
	nm->send_bitmap = true;
	nm->bm_sent = false;
	nm->bm_peer_done = false;
	strscpy(nm->last_error, "-", sizeof(nm->last_error));
	spin_unlock_irqrestore(&nm->lock, flags);
	DMINFO("%s: connected to %s", nm_name(nm), nm->peer_str);
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
	unsigned long flags;
	int r;

	while (!kthread_should_stop()) {
		struct socket *s = NULL;
		bool initiator = false;

		if (!READ_ONCE(nm->want_connect)) {
			nm_unlisten(nm);
			spin_lock_irqsave(&nm->lock, flags);
			nm->cstate = NM_C_STANDALONE;
			spin_unlock_irqrestore(&nm->lock, flags);
			wait_event_interruptible(nm->conn_wq,
						 nm_should_run(nm));
			continue;
		}
		spin_lock_irqsave(&nm->lock, flags);
		nm->cstate = NM_C_CONNECTING;
		spin_unlock_irqrestore(&nm->lock, flags);

		r = nm_listen(nm);
		if (r) {
			DMERR_LIMIT("%s: cannot listen (error %d)", nm_name(nm),
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
			if (r)
				s = NULL;
		} else if (!s) {
			schedule_timeout_interruptible(msecs_to_jiffies(250));
		}
		if (!s)
			continue;

		nm_sock_setup(s, 1000 + get_random_u32_below(1000));
		r = nm_handshake(nm, s, initiator);
		if (r) {
			kernel_sock_shutdown(s, SHUT_RDWR);
			sock_release(s);
			continue;
		}
		backoff = 100;
		nm_go_connected(nm, s, nm->secret_desc[0] ? 3 : 1);
		r = nm_receive(nm, s);
		if (r == -EAGAIN) {
			DMERR("%s: peer timed out", nm_name(nm));
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
	WRITE_ONCE(nm->cstate, NM_C_STANDALONE);
}
