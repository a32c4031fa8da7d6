// SPDX-License-Identifier: GPL-2.0
/*
 * netmirror link: the socket and everything on it below the packet
 * handlers: framing (header, trailer), sends under tx_mutex, receives,
 * listen/connect, the handshake and peer authentication.
 *
 * The trailer.  With "secret" every packet after the handshake ends with a
 * 16-byte HMAC-SHA256 (truncated) of its header and payload under a key of
 * this link and direction (derived in nm_auth from the secret, both
 * challenges, both nonces and both addresses), so nothing can be injected
 * into or changed on an established link; the header's sequence number
 * makes each packet's MAC unique.  Else with "integrity crc32c" a crc32c
 * trailer.  Else none.
 *
 * Choosing the link.  Both nodes listen and both may connect.  Every device
 * instance draws a random 64-bit nonce; the handshake (P_HELLO both ways)
 * tells each side the other's.  A link is kept only if it was initiated by
 * the node with the larger nonce, so when both connect at once both sides
 * keep the same one.  Once a node knows the peer's nonce it connects only
 * if its own is larger, and otherwise only accepts.
 *
 * Contexts: every call may sleep.  nm_send_vec/nm_send_ctrl/nm_link_drop
 * take tx_mutex; nm_xmit, nm_send_kvec and nm_send_trailer are called with
 * tx_mutex held; nm_rx, nm_rx_trailer and nm_recv_full only from the
 * stream's owner: the nm_conn thread, which owns nm->sock's lifetime, or
 * the receive worker while the thread waits (nm_fastack.c).
 */
#include <linux/delay.h>
#include <linux/random.h>
#include <linux/sched/mm.h>
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
#include <crypto/sha2.h>
#include <net/ipv6.h>
#include <linux/lockdep.h>
#include "dm-netmirror.h"

/* Did @s come from the configured peer's address (any port)? */
bool nm_from_peer(struct nm_dev *nm, struct socket *s)
{
	struct sockaddr_storage ss;
	int len;

	memset(&ss, 0, sizeof(ss));
	len = kernel_getpeername(s, (struct sockaddr *)&ss);
	if (len < 0 || ss.ss_family != nm->peer_addr.ss_family)
		return false;
	if (ss.ss_family == AF_INET)
		return ((struct sockaddr_in *)&ss)->sin_addr.s_addr ==
		       ((struct sockaddr_in *)&nm->peer_addr)->sin_addr.s_addr;
	return ipv6_addr_equal(&((struct sockaddr_in6 *)&ss)->sin6_addr,
			       &((struct sockaddr_in6 *)&nm->peer_addr)->sin6_addr);
}

static int nm_addr_len(const struct sockaddr_storage *ss)
{
	return ss->ss_family == AF_INET ? sizeof(struct sockaddr_in) :
					  sizeof(struct sockaddr_in6);
}

/* Send all of @msg (nbd's __sock_xmit pattern).  Caller holds tx_mutex. */
int nm_xmit(struct socket *sock, struct msghdr *msg)
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

/* One direction's packet MAC: hmac(sha256) keyed for this link. */
struct nm_mac {
	struct crypto_shash *tfm;
	struct shash_desc desc;		/* followed by the tfm's context */
};

static void nm_mac_free(struct nm_mac *m)
{
	if (!m)
		return;
	shash_desc_zero(&m->desc);
	crypto_free_shash(m->tfm);
	kfree_sensitive(m);
}

/* A MAC state keyed with @key, initialised for the first packet. */
static struct nm_mac *nm_mac_new(const u8 *key)
{
	struct crypto_shash *tfm;
	struct nm_mac *m;
	unsigned int noio = memalloc_noio_save();
	int r;

	tfm = crypto_alloc_shash("hmac(sha256)", 0, 0);
	if (IS_ERR(tfm)) {
		memalloc_noio_restore(noio);
		return NULL;
	}
	m = kzalloc(sizeof(*m) + crypto_shash_descsize(tfm), GFP_KERNEL);
	memalloc_noio_restore(noio);
	if (!m) {
		crypto_free_shash(tfm);
		return NULL;
	}
	m->tfm = tfm;
	m->desc.tfm = tfm;
	r = crypto_shash_setkey(tfm, key, NM_AUTH_LEN);
	if (!r)
		r = crypto_shash_init(&m->desc);
	if (r) {
		nm_mac_free(m);
		return NULL;
	}
	return m;
}

/* Drop this link's MAC states (nm_conn thread, after the sender let go). */
void nm_link_keys_drop(struct nm_dev *nm)
{
	mutex_lock(&nm->tx_mutex);
	nm_mac_free(nm->tx_mac);
	nm->tx_mac = NULL;
	mutex_unlock(&nm->tx_mutex);
	nm_mac_free(nm->rx_mac);
	nm->rx_mac = NULL;
	memzero_explicit(nm->link_keys, sizeof(nm->link_keys));
}

/*
 * Install the MACs of the link whose handshake (nm_auth) derived
 * nm->link_keys; 0 or -ENOMEM.  nm_conn thread, before the link is used.
 */
int nm_link_keys_install(struct nm_dev *nm)
{
	struct nm_mac *tx, *rx;

	if (!nm->secret_desc[0])
		return 0;
	tx = nm_mac_new(nm->link_keys[0]);
	rx = tx ? nm_mac_new(nm->link_keys[1]) : NULL;
	memzero_explicit(nm->link_keys, sizeof(nm->link_keys));
	if (!rx) {
		nm_mac_free(tx);
		return -ENOMEM;
	}
	mutex_lock(&nm->tx_mutex);
	nm->tx_mac = tx;
	mutex_unlock(&nm->tx_mutex);
	nm->rx_mac = rx;
	return 0;
}

/* Add @len bytes at @p to the trailer of the packet being sent. */
int nm_tx_sum(struct nm_dev *nm, const void *p, size_t len)
{
	lockdep_assert_held(&nm->tx_mutex);
	if (nm->tx_mac)
		return crypto_shash_update(&nm->tx_mac->desc, p, len);
	if (nm->crc_on)
		nm->tx_crc = crc32c(nm->tx_crc, p, len);
	return 0;
}

static bool nm_tx_trailer_on(struct nm_dev *nm)
{
	return nm->tx_mac || nm->crc_on;
}

/*
 * Send @vec as part of the current packet, adding it to the packet's
 * trailer (the packet always ends with nm_send_trailer()).
 */
int nm_send_kvec(struct nm_dev *nm, struct kvec *vec, int n,
		 size_t len, bool more)
{
	struct msghdr msg = {
		.msg_flags = MSG_NOSIGNAL |
			     (more || nm_tx_trailer_on(nm) || nm->tx_more ?
			      MSG_MORE : 0),
	};
	int i, r;

	lockdep_assert_held(&nm->tx_mutex);
	for (i = 0; i < n; i++) {
		r = nm_tx_sum(nm, vec[i].iov_base, vec[i].iov_len);
		if (r)
			return r;
	}
	iov_iter_kvec(&msg.msg_iter, WRITE, vec, n, len);
	return nm_xmit(nm->sock, &msg);
}

/* End of a packet: its MAC (secret) or crc32c (integrity), if any. */
int nm_send_trailer(struct nm_dev *nm)
{
	u8 mac[SHA256_DIGEST_SIZE];
	__be32 crc = cpu_to_be32(nm->tx_crc);
	struct kvec vec = { .iov_base = &crc, .iov_len = sizeof(crc) };
	struct msghdr msg = {
		.msg_flags = MSG_NOSIGNAL | (nm->tx_more ? MSG_MORE : 0),
	};
	int r;

	lockdep_assert_held(&nm->tx_mutex);
	if (nm->tx_mac) {
		r = crypto_shash_final(&nm->tx_mac->desc, mac);
		if (!r)
			r = crypto_shash_init(&nm->tx_mac->desc);
		if (r)
			return r;
		vec.iov_base = mac;
		vec.iov_len = NM_MAC_LEN;
	} else if (nm->crc_on) {
		nm->tx_crc = ~0U;
	} else {
		return 0;
	}
	iov_iter_kvec(&msg.msg_iter, WRITE, &vec, 1, vec.iov_len);
	r = nm_xmit(nm->sock, &msg);
	memzero_explicit(mac, sizeof(mac));
	return r;
}

/* Send one segment by reference (no copy); all of it or an error. */
int nm_sendpage(struct socket *sock, const struct bio_vec *bv, bool more)
{
	int flags = MSG_NOSIGNAL | (more ? MSG_MORE | MSG_SENDPAGE_NOTLAST : 0);
	unsigned int off = bv->bv_offset, len = bv->bv_len, noreclaim;
	int r = 0;

	noreclaim = memalloc_noreclaim_save();
	while (len) {
		r = kernel_sendpage(sock, bv->bv_page, off, len, flags);
		if (r <= 0) {
			r = r ? r : -EPIPE;
			break;
		}
		off += r;
		len -= r;
		r = 0;
	}
	memalloc_noreclaim_restore(noreclaim);
	return r;
}

/*
 * Send one packet whose payload is @vec[0..n-1] (header built here).
 * Caller holds tx_mutex.  Used for every packet but P_DATA.
 */
int __nm_send_vec(struct nm_dev *nm, u16 type, struct kvec *vec, int n)
{
	struct nm_hdr h;
	struct kvec hv = { .iov_base = &h, .iov_len = sizeof(h) };
	size_t len = 0;
	int i, r;

	lockdep_assert_held(&nm->tx_mutex);
	if (!nm->sock)
		return -ENOTCONN;
	for (i = 0; i < n; i++)
		len += vec[i].iov_len;
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
	return r;
}

/*
 * A receiver's send (review F25: a receiver never waits to send).  Takes
 * tx_mutex only if it is free, and keeps it only if the socket's send
 * buffer has room for @bytes more with the slack of their skb, so that a
 * send of that size does not wait: under tx_mutex no one else adds to the
 * buffer, and the peer's acks only free it.  True: tx_mutex is held, the
 * caller sends and unlocks.  False: nothing is held, the caller leaves
 * its packets to the sender thread.
 */
bool nm_tx_trylock(struct nm_dev *nm, size_t bytes)
{
	if (!mutex_trylock(&nm->tx_mutex))
		return false;
	if (nm->sock &&
	    sk_stream_wspace(nm->sock->sk) >= (int)(2 * bytes + 4096))
		return true;
	mutex_unlock(&nm->tx_mutex);
	return false;
}

/* A control packet a receiver left to the sender thread (ctrl_q). */
struct nm_ctrl_pkt {
	struct list_head list;
	u32 gen;			/* conn_gen of its link */
	u16 type;
	u32 len;
	u8 data[];
};

/*
 * A receiver's answer whose order against the other packets does not
 * matter (P_PING_ACK, P_CSUM_REPLY): sent now if nm_tx_trylock allows and
 * nothing is left queued, else queued on ctrl_q for the sender thread
 * (nm_send_ctrl_q), which sends it between its writes.  A receiver does
 * not wait to send (review F25) while fewer than NM_CTRL_Q_MAX answers
 * are queued, which a peer that follows the protocol never reaches; past
 * that (a peer that floods pings and reads slowly, fault-flood), or with
 * no memory for the queue entry, it sends waiting, as the receivers did up
 * to 1.17.1, and so reads nothing more until the peer reads.
 */
int nm_send_ctrl_rx(struct nm_dev *nm, u16 type, const void *p, u32 len)
{
	struct nm_ctrl_pkt *c;
	unsigned long flags;
	int r;

	might_sleep();
	if (list_empty_careful(&nm->ctrl_q) &&
	    nm_tx_trylock(nm, len + NM_ACK_WIRE_MAX)) {
		r = __nm_send_ctrl(nm, type, p, len);
		mutex_unlock(&nm->tx_mutex);
		return r;
	}
	if (READ_ONCE(nm->ctrl_q_len) >= NM_CTRL_Q_MAX)
		return nm_send_ctrl(nm, type, p, len);
	c = kmalloc(struct_size(c, data, len), GFP_NOIO);
	if (!c)
		return nm_send_ctrl(nm, type, p, len);
	c->type = type;
	c->len = len;
	memcpy(c->data, p, len);
	spin_lock_irqsave(&nm->lock, flags);
	c->gen = nm->conn_gen;
	list_add_tail(&c->list, &nm->ctrl_q);
	nm->ctrl_q_len++;
	spin_unlock_irqrestore(&nm->lock, flags);
	atomic64_inc(&nm->acks_deferred);
	nm_conn_kick(nm);
	return 0;
}

/*
 * Sender thread: the packets receivers left on ctrl_q, in order, under
 * tx_mutex, which a new link's conn_gen also takes: a packet of an older
 * link (left after nm_ctrl_q_drop, say) is never sent on this one.
 */
void nm_send_ctrl_q(struct nm_dev *nm)
{
	struct nm_ctrl_pkt *c, *tmp;
	unsigned long flags;
	LIST_HEAD(list);
	int r = 0;

	might_sleep();
	if (list_empty_careful(&nm->ctrl_q))
		return;
	mutex_lock(&nm->tx_mutex);
	spin_lock_irqsave(&nm->lock, flags);
	list_splice_init(&nm->ctrl_q, &list);
	nm->ctrl_q_len = 0;
	spin_unlock_irqrestore(&nm->lock, flags);
	list_for_each_entry_safe(c, tmp, &list, list) {
		if (c->gen == nm->conn_gen)
			continue;
		list_del(&c->list);
		kfree(c);
	}
	list_for_each_entry_safe(c, tmp, &list, list) {
		nm->tx_more = !list_is_last(&c->list, &list);
		if (!r)
			r = __nm_send_ctrl(nm, c->type, c->data, c->len);
		list_del(&c->list);
		kfree(c);
	}
	nm->tx_more = false;
	mutex_unlock(&nm->tx_mutex);
}

/* Link teardown, the receiver stopped: ctrl_q's answers go nowhere. */
void nm_ctrl_q_drop(struct nm_dev *nm)
{
	struct nm_ctrl_pkt *c, *tmp;
	unsigned long flags;
	LIST_HEAD(list);

	spin_lock_irqsave(&nm->lock, flags);
	list_splice_init(&nm->ctrl_q, &list);
	nm->ctrl_q_len = 0;
	spin_unlock_irqrestore(&nm->lock, flags);
	list_for_each_entry_safe(c, tmp, &list, list) {
		list_del(&c->list);
		kfree(c);
	}
}

/* As __nm_send_vec, taking tx_mutex. */
int nm_send_vec(struct nm_dev *nm, u16 type, struct kvec *vec, int n)
{
	int r;

	might_sleep();
	mutex_lock(&nm->tx_mutex);
	r = __nm_send_vec(nm, type, vec, n);
	mutex_unlock(&nm->tx_mutex);
	return r;
}

/*
 * As nm_send_vec, but only on the link @gen (conn_gen, read under
 * nm->lock when the packet was decided): -ENOTCONN once that link is gone,
 * so that nothing decided for one link is sent on the next.  A new link
 * takes tx_mutex to set conn_gen, so the check holds for the whole send.
 */
int nm_send_vec_gen(struct nm_dev *nm, u32 gen, u16 type, struct kvec *vec,
		    int n)
{
	int r = -ENOTCONN;

	might_sleep();
	mutex_lock(&nm->tx_mutex);
	if (nm->sock && READ_ONCE(nm->conn_gen) == gen)
		r = __nm_send_vec(nm, type, vec, n);
	mutex_unlock(&nm->tx_mutex);
	return r;
}

/* As nm_send_ctrl, only on the link @gen (nm_send_vec_gen). */
int nm_send_ctrl_gen(struct nm_dev *nm, u32 gen, u16 type, const void *p,
		     u32 len)
{
	struct kvec vec = { .iov_base = (void *)p, .iov_len = len };

	return nm_send_vec_gen(nm, gen, type, &vec, 1);
}

/* A packet with a fixed payload; caller holds tx_mutex. */
int __nm_send_ctrl(struct nm_dev *nm, u16 type, const void *p, u32 len)
{
	struct kvec vec = { .iov_base = (void *)p, .iov_len = len };

	return __nm_send_vec(nm, type, &vec, 1);
}

/* Send a packet with a fixed payload.  Takes tx_mutex. */
int nm_send_ctrl(struct nm_dev *nm, u16 type, const void *p, u32 len)
{
	struct kvec vec = { .iov_base = (void *)p, .iov_len = len };

	return nm_send_vec(nm, type, &vec, 1);
}

/*
 * Bytes of the stream already in the socket and not yet read: a hint for
 * the receiver (nm_peer_release_acks), read without the socket lock by
 * its only reader, between its reads (no urgent data on this stream).
 */
u32 nm_rx_avail(struct nm_dev *nm)
{
	return nm_sk_unread(nm->sock->sk);
}

/* Bytes received on @sk and not yet read (a hint: no socket lock). */
u32 nm_sk_unread(struct sock *sk)
{
	const struct tcp_sock *tp = tcp_sk(sk);

	return READ_ONCE(tp->rcv_nxt) - READ_ONCE(tp->copied_seq);
}

/* Receive part of the current packet, adding it to the packet's trailer. */
int nm_rx(struct nm_dev *nm, void *buf, size_t len)
{
	int r = nm_recv_full(nm->sock, buf, len);

	if (r)
		return r;
	if (nm->rx_mac)
		return crypto_shash_update(&nm->rx_mac->desc, buf, len);
	if (nm->crc_on)
		nm->rx_crc = crc32c(nm->rx_crc, buf, len);
	return 0;
}

#define NM_RX_BATCH	16

/*
 * Receive @size bytes of the current packet into @pages (whole pages, the
 * last one partly), NM_RX_BATCH pages per recvmsg: one call per 64 KiB
 * rather than one per page.  Pages from alloc_page(GFP_NOIO): no highmem.
 */
int nm_rx_pages(struct nm_dev *nm, struct page **pages, u32 size)
{
	struct bio_vec bv[NM_RX_BATCH];
	unsigned int noreclaim, n, i;
	struct msghdr msg = {};
	size_t len;
	int r;

	while (size) {
		for (n = 0, len = 0; n < NM_RX_BATCH && len < size; n++) {
			u32 l = min_t(u32, size - len, PAGE_SIZE);

			bvec_set_page(&bv[n], pages[n], l, 0);
			len += l;
		}
		iov_iter_bvec(&msg.msg_iter, READ, bv, n, len);
		while (msg_data_left(&msg)) {
			noreclaim = memalloc_noreclaim_save();
			r = sock_recvmsg(nm->sock, &msg,
					 MSG_WAITALL | MSG_NOSIGNAL);
			memalloc_noreclaim_restore(noreclaim);
			if (r == 0)
				return -ECONNRESET;
			if (r < 0)
				return r;
		}
		for (i = 0; i < n && (nm->rx_mac || nm->crc_on); i++) {
			void *p = page_address(pages[i]);

			if (nm->rx_mac) {
				r = crypto_shash_update(&nm->rx_mac->desc, p,
							bv[i].bv_len);
				if (r)
					return r;
			} else {
				nm->rx_crc = crc32c(nm->rx_crc, p,
						    bv[i].bv_len);
			}
		}
		pages += n;
		size -= len;
	}
	return 0;
}

/* End of a received packet: check its MAC (secret) or crc32c (integrity). */
int nm_rx_trailer(struct nm_dev *nm)
{
	u8 want[SHA256_DIGEST_SIZE], got[NM_MAC_LEN];
	__be32 crc;
	u32 wcrc = nm->rx_crc;
	int r;

	if (nm->rx_mac) {
		r = crypto_shash_final(&nm->rx_mac->desc, want);
		if (!r)
			r = crypto_shash_init(&nm->rx_mac->desc);
		if (!r)
			r = nm_recv_full(nm->sock, got, sizeof(got));
		if (!r && crypto_memneq(want, got, sizeof(got))) {
			nm_fail(nm, "auth_error",
				"packet authentication failed: dropping link");
			r = -EBADMSG;
		}
		memzero_explicit(want, sizeof(want));
		return r;
	}
	if (!nm->crc_on)
		return 0;
	nm->rx_crc = ~0U;
	r = nm_recv_full(nm->sock, &crc, sizeof(crc));
	if (r)
		return r;
	if (be32_to_cpu(crc) != wcrc) {
		nm_fail(nm, "integrity_error",
			"packet checksum mismatch: dropping link");
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

void nm_sock_setup(struct socket *sock, unsigned int timeout_ms)
{
	struct sock *sk = sock->sk;

	tcp_sock_set_nodelay(sk);
	sock_set_keepalive(sk);
	sk->sk_allocation = GFP_NOIO;
	sk->sk_sndtimeo = msecs_to_jiffies(timeout_ms);
	sk->sk_rcvtimeo = msecs_to_jiffies(timeout_ms);
}

int nm_listen(struct nm_dev *nm)
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

void nm_unlisten(struct nm_dev *nm)
{
	if (nm->listen_sock) {
		kernel_sock_shutdown(nm->listen_sock, SHUT_RDWR);
		sock_release(nm->listen_sock);
		nm->listen_sock = NULL;
	}
}

struct socket *nm_try_connect(struct nm_dev *nm)
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
	nm->hello_role = nm->role;
	nm->hello_disk = nm->disk;
	m->role = nm_be32(nm->role);
	m->disk = nm_be32(nm->disk);
	spin_unlock_irqrestore(&nm->lock, flags);
	m->protocol = nm_be32(nm->protocol);
	m->region_sectors = nm_be32(nm->region_sectors);
	m->features = nm_be64((nm_integrity(nm) ? NM_FEAT_INTEGRITY : 0) |
			      (nm->secret_desc[0] ? NM_FEAT_AUTH : 0));
}

/* The addresses of a link as this node sees them: 16 bytes each. */
struct nm_link_addrs {
	u8 me[16];
	u8 peer[16];
};

static void nm_ip16(const struct sockaddr_storage *ss, u8 *out)
{
	memset(out, 0, 16);
	if (ss->ss_family == AF_INET)
		ipv6_addr_set_v4mapped(((struct sockaddr_in *)ss)->sin_addr.s_addr,
				       (struct in6_addr *)out);
	else if (ss->ss_family == AF_INET6)
		memcpy(out, &((struct sockaddr_in6 *)ss)->sin6_addr, 16);
}

static int nm_link_addrs(struct socket *s, struct nm_link_addrs *a)
{
	struct sockaddr_storage me, peer;

	memset(&me, 0, sizeof(me));
	memset(&peer, 0, sizeof(peer));
	if (kernel_getsockname(s, (struct sockaddr *)&me) < 0 ||
	    kernel_getpeername(s, (struct sockaddr *)&peer) < 0)
		return -ENOTCONN;
	nm_ip16(&me, a->me);
	nm_ip16(&peer, a->peer);
	return 0;
}

/*
 * HMAC-SHA256 under the secret over @label || @c1 || @c2 || nonce @a ||
 * nonce @b || address @ia || address @ib || P_HELLO @ha || P_HELLO @hb
 * (@c2, @ha and @hb may be NULL).  The response (label "NMAUTH2", or
 * "NMAUTH3" with both P_HELLOs from wire version 9) binds the challenge to
 * both nonces and both addresses, as the responder sees them: a relay
 * between the nodes sees other addresses and its responses do not verify;
 * with the P_HELLOs, a rewritten one does not either.  The link keys
 * (label "NMKEY2") add both challenges.
 */
static int nm_auth_mac(struct crypto_shash *tfm, const char *label,
		       const u8 *c1, const u8 *c2, u64 a, u64 b,
		       const u8 *ia, const u8 *ib,
		       const struct nm_p_hello *ha,
		       const struct nm_p_hello *hb, u8 *out)
{
	SHASH_DESC_ON_STACK(desc, tfm);
	__be64 na = cpu_to_be64(a), nb = cpu_to_be64(b);
	int r;

	desc->tfm = tfm;
	r = crypto_shash_init(desc);
	if (!r)
		r = crypto_shash_update(desc, label, strlen(label));
	if (!r)
		r = crypto_shash_update(desc, c1, NM_AUTH_LEN);
	if (!r && c2)
		r = crypto_shash_update(desc, c2, NM_AUTH_LEN);
	if (!r)
		r = crypto_shash_update(desc, (u8 *)&na, sizeof(na));
	if (!r)
		r = crypto_shash_update(desc, (u8 *)&nb, sizeof(nb));
	if (!r)
		r = crypto_shash_update(desc, ia, 16);
	if (!r)
		r = crypto_shash_update(desc, ib, 16);
	if (!r && ha)
		r = crypto_shash_update(desc, (const u8 *)ha, sizeof(*ha));
	if (!r && hb)
		r = crypto_shash_update(desc, (const u8 *)hb, sizeof(*hb));
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
 * From wire version 9 (@bind: the peer's P_HELLO @theirs says 9 or more)
 * the responses also cover both P_HELLOs (@mine as sent); to a peer shown
 * below 9 our challenge ends with NM_AUTH_DOWN, and one that ends so from
 * the peer means it was shown our P_HELLO below 9: rewritten on the way.
 */
static int nm_auth(struct nm_dev *nm, struct socket *s, u64 peer_nonce,
		   const struct nm_p_hello *mine,
		   const struct nm_p_hello *theirs, unsigned long deadline)
{
	u8 chal[NM_AUTH_LEN], pchal[NM_AUTH_LEN], mac[NM_AUTH_LEN];
	u8 pmac[NM_AUTH_LEN], want[NM_AUTH_LEN];
	bool bind = nm_h32(theirs->proto_max) >= NM_PROTO_BIND;
	const char *label = bind ? "NMAUTH3" : "NMAUTH2";
	const struct nm_p_hello *hm = bind ? mine : NULL;
	const struct nm_p_hello *ht = bind ? theirs : NULL;
	struct nm_link_addrs ad;
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
		nm_fail(nm, "secret_missing", "secret key unusable (%d)", r);
		goto out;
	}

	r = nm_link_addrs(s, &ad);
	if (r)
		goto out;
	get_random_bytes(chal, sizeof(chal));
	if (!bind)
		memcpy(chal + NM_AUTH_LEN - NM_AUTH_DOWN_LEN, NM_AUTH_DOWN,
		       NM_AUTH_DOWN_LEN);
	r = nm_hs_send(s, NM_P_AUTH_CHALLENGE, 1, chal, sizeof(chal));
	if (!r)
		r = nm_hs_recv(s, NM_P_AUTH_CHALLENGE, 1, pchal, sizeof(pchal),
			       deadline);
	if (!r && !memcmp(pchal + NM_AUTH_LEN - NM_AUTH_DOWN_LEN,
			  NM_AUTH_DOWN, NM_AUTH_DOWN_LEN)) {
		nm_err(nm, "handshake: the peer was shown our P_HELLO below version %u: rewritten on the way",
		       NM_PROTO_BIND);
		r = -EKEYREJECTED;
	}
	if (!r)
		r = nm_auth_mac(tfm, label, pchal, NULL, nm->nonce,
				peer_nonce, ad.me, ad.peer, hm, ht, mac);
	if (!r)
		r = nm_hs_send(s, NM_P_AUTH_RESPONSE, 2, mac, sizeof(mac));
	if (!r)
		r = nm_hs_recv(s, NM_P_AUTH_RESPONSE, 2, pmac, sizeof(pmac),
			       deadline);
	if (!r)
		r = nm_auth_mac(tfm, label, chal, NULL, peer_nonce,
				nm->nonce, ad.peer, ad.me, ht, hm, want);
	if (!r && crypto_memneq(want, pmac, sizeof(want)))
		r = -EKEYREJECTED;
	/* this link's packet keys: [0] what we send, [1] what we receive */
	if (!r)
		r = nm_auth_mac(tfm, "NMKEY2", chal, pchal, nm->nonce,
				peer_nonce, ad.me, ad.peer, NULL, NULL,
				nm->link_keys[0]);
	if (!r)
		r = nm_auth_mac(tfm, "NMKEY2", pchal, chal, peer_nonce,
				nm->nonce, ad.peer, ad.me, NULL, NULL,
				nm->link_keys[1]);
	if (r)
		nm_fail(nm, "auth_failed", "peer authentication failed (%d)",
			r);
out:
	memzero_explicit(want, sizeof(want));
	memzero_explicit(mac, sizeof(mac));
	crypto_free_shash(tfm);
	return r;
}

/*
 * HMAC under the link's packet MAC @m (its state left ready for the next
 * packet) of "NMGENS3" || @a || @b: the confirmation of both P_GENS.
 */
static int nm_gens_mac(struct nm_mac *m, const struct nm_p_gens *a,
		       const struct nm_p_gens *b, u8 *out)
{
	static const char label[] = "NMGENS3";
	int r;

	r = crypto_shash_update(&m->desc, label, sizeof(label) - 1);
	if (!r)
		r = crypto_shash_update(&m->desc, (const u8 *)a, sizeof(*a));
	if (!r)
		r = crypto_shash_update(&m->desc, (const u8 *)b, sizeof(*b));
	if (!r)
		r = crypto_shash_final(&m->desc, out);
	if (!r)
		r = crypto_shash_init(&m->desc);
	return r;
}

/*
 * Wire version 9 with a secret: both P_GENS as each side saw them, MACed
 * with the link's keys (packet @seq) and checked, before any verdict.  A
 * P_GENS rewritten on the way (a resync turned around) ends the link.
 */
static int nm_gens_confirm(struct nm_dev *nm, struct socket *s, u32 seq,
			   const struct nm_p_gens *out,
			   const struct nm_p_gens *in, unsigned long deadline)
{
	u8 mac[SHA256_DIGEST_SIZE], want[SHA256_DIGEST_SIZE];
	u8 pmac[NM_AUTH_LEN];
	int r;

	mutex_lock(&nm->tx_mutex);
	r = nm_gens_mac(nm->tx_mac, out, in, mac);
	mutex_unlock(&nm->tx_mutex);
	if (!r)
		r = nm_hs_send(s, NM_P_AUTH_RESPONSE, seq, mac, NM_AUTH_LEN);
	if (!r)
		r = nm_hs_recv(s, NM_P_AUTH_RESPONSE, seq, pmac, sizeof(pmac),
			       deadline);
	if (!r)
		r = nm_gens_mac(nm->rx_mac, in, out, want);
	if (!r && crypto_memneq(want, pmac, NM_AUTH_LEN)) {
		nm_fail(nm, "auth_failed",
			"handshake: the data generations were changed on the way: dropping link");
		r = -EKEYREJECTED;
	}
	memzero_explicit(mac, sizeof(mac));
	memzero_explicit(want, sizeof(want));
	return r;
}

/*
 * P_GENS both ways (packet @seq), then the verdict (nm_state.c).  With
 * @ord (both speak NM_PROTO_ORD) each carries its sender's ordering, and
 * nodes that name different ones are refused before any verdict: a
 * secondary checks the epochs and barriers by its own, and would drop the
 * link at the primary's first write.
 */
static int nm_gens_exchange(struct nm_dev *nm, struct socket *s, u32 seq,
			    bool ord, bool bind, unsigned long deadline)
{
	struct nm_p_gens out, in;
	struct nm_gens peer;
	unsigned long flags;
	bool crashed;
	const char *why;
	const char *pw, *ow;
	int pl, ol, r;
	u32 peer_ord;

	memset(&out, 0, sizeof(out));
	spin_lock_irqsave(&nm->lock, flags);
	out.pair = nm_be64(nm->gen.pair);
	out.cur = nm_be64(nm->gen.cur);
	out.bitmap = nm_be64(nm->gen.bitmap);
	out.history[0] = nm_be64(nm->gen.history[0]);
	out.history[1] = nm_be64(nm->gen.history[1]);
	out.changed = nm_be64(nm_regions_oos_count(&nm->rg));
	/* a peer that speaks less: neither side counts it (nm_gens_eq_marks) */
	crashed = nm->peer_proto >= NM_PROTO_CRASHED && __nm_crashed_pri(nm);
	out.flags = nm_be32((nm->discard_my_data ? NM_GF_DISCARD_MY_DATA : 0) |
			    (crashed ? NM_GF_CRASHED_PRI : 0) |
			    (nm->gen.bitmap_pri ? NM_GF_BITMAP_PRI : 0) |
			    (nm->gen.hist_held & 1 ? NM_GF_HIST0_HELD : 0) |
			    (nm->gen.hist_held & 2 ? NM_GF_HIST1_HELD : 0) |
			    (ord ? NM_GF_ORD_SENT |
				   nm->ordering << NM_GF_ORD_SHIFT : 0));
	spin_unlock_irqrestore(&nm->lock, flags);
	r = nm_hs_send(s, NM_P_GENS, seq, &out, sizeof(out));
	if (!r)
		r = nm_hs_recv(s, NM_P_GENS, seq, &in, sizeof(in), deadline);
	if (!r)
		r = nm_payload_check(NM_P_GENS, sizeof(in), &in, nm->sectors);
	if (!r && ord && !(nm_h32(in.flags) & NM_GF_ORD_SENT))
		r = -EPROTO;	/* a version-6 peer names its ordering */
	if (r) {
		nm_fail(nm, "bad_handshake",
			"handshake: no valid data generations (%d)", r);
		return r;
	}
	if (bind) {
		r = nm_gens_confirm(nm, s, seq + 1, &out, &in, deadline);
		if (r)
			return r;
	}
	peer_ord = (nm_h32(in.flags) & NM_GF_ORD_MASK) >> NM_GF_ORD_SHIFT;
	if (ord && peer_ord != nm->ordering) {
		pw = nm_word_at(NM_ORDERING_LIST, peer_ord, &pl);
		ow = nm_word_at(NM_ORDERING_LIST, nm->ordering, &ol);
		nm_fail(nm, "ordering_mismatch",
			"refusing peer: ordering_mismatch (peer %.*s, ours %.*s)",
			pl, pw, ol, ow);
		return -EPROTO;
	}
	peer.pair = nm_h64(in.pair);
	peer.cur = nm_h64(in.cur);
	peer.bitmap = nm_h64(in.bitmap);
	peer.history[0] = nm_h64(in.history[0]);
	peer.history[1] = nm_h64(in.history[1]);
	peer.bitmap_pri = !!(nm_h32(in.flags) & NM_GF_BITMAP_PRI);
	peer.hist_held = (nm_h32(in.flags) & NM_GF_HIST0_HELD ? 1 : 0) |
			 (nm_h32(in.flags) & NM_GF_HIST1_HELD ? 2 : 0);
	why = nm_gen_verdict(nm, &peer, nm_h32(in.flags) &
			     (NM_GF_DISCARD_MY_DATA |
			      (nm->peer_proto >= NM_PROTO_CRASHED ?
			       NM_GF_CRASHED_PRI : 0)),
			     nm_h64(in.changed), crashed);
	if (why) {
		nm_set_error(nm, why);
		return -EPROTO;
	}
	return 0;
}

/*
 * Exchange P_HELLO on a fresh socket; decide whether to keep it.
 * Returns 0 to keep the link, a negative errno to drop it.
 */
int nm_handshake(struct nm_dev *nm, struct socket *s, bool initiator)
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
	long rcvtimeo;
	bool larger, bind;
	int r;

	might_sleep();

	nm_hdr_fill(&out.h, NM_P_HELLO, sizeof(out.m), 0);
	nm_hello_fill(nm, &out.m);
	iov_iter_kvec(&msg.msg_iter, WRITE, &vec, 1, sizeof(out));
	r = nm_xmit(s, &msg);
	if (r)
		return r;
	/*
	 * After a link loss neither end knows the other's nonce, so both may
	 * connect at once and each wait for a P_HELLO on its own connection
	 * while the other's sits unaccepted: a deadlock until the receive
	 * timeout, again at every retry that crosses.  An initiator that does
	 * not know its peer waits a short random time, then gives up and
	 * accepts the peer's connection (nm_conn_thread), whose P_HELLO is
	 * already there; the end with the shorter wait resolves it.
	 */
	rcvtimeo = s->sk->sk_rcvtimeo;
	if (initiator && !READ_ONCE(nm->peer_nonce_known))
		s->sk->sk_rcvtimeo = msecs_to_jiffies(NM_HELLO_CROSS_MS +
				get_random_u32_below(2 * NM_HELLO_CROSS_MS));
	r = __nm_recv(s, &in.h, sizeof(in.h), deadline);
	s->sk->sk_rcvtimeo = rcvtimeo;
	if (r)
		return r;
	r = nm_hdr_check(&in.h, 0);
	if (!r && nm_h16(in.h.type) != NM_P_HELLO)
		r = -EPROTO;
	if (r) {
		nm_err(nm, "handshake: bad first packet (%d)",  r);
		nm_set_error(nm, "bad_handshake");
		return r;
	}
	r = __nm_recv(s, &in.m, sizeof(in.m), deadline);
	if (r)
		return r;
	r = nm_payload_check(NM_P_HELLO, sizeof(in.m), &in.m, nm->sectors);
	if (r) {
		nm_err(nm, "handshake: invalid hello (%d)",  r);
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
		 (nm_integrity(nm) ? NM_FEAT_INTEGRITY : 0))
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
		nm_fail(nm, why,
			"refusing peer: %s (peer %llu sectors, ours %llu)",
			why, peer_sectors, (unsigned long long)nm->sectors);
		return -EPROTO;
	}

	bind = nm->secret_desc[0] &&
	       nm_h32(in.m.proto_max) >= NM_PROTO_BIND;
	if (nm->secret_desc[0]) {
		r = nm_auth(nm, s, peer_nonce, &out.m, &in.m, deadline);
		if (r)
			return r;
	}

	spin_lock_irqsave(&nm->lock, flags);
	nm->peer_nonce = peer_nonce;
	nm->peer_nonce_known = true;
	nm->peer_role = nm_h32(in.m.role);
	nm->peer_disk = nm_h32(in.m.disk);
	nm->peer_proto = min_t(u32, nm_h32(in.m.proto_max), NM_PROTO_MAX);
	spin_unlock_irqrestore(&nm->lock, flags);

	/*
	 * Keep only the link initiated by the larger nonce (both sides agree);
	 * only that one goes on to the generations, whose verdict has effects.
	 */
	larger = nm->nonce > peer_nonce;
	if (initiator != larger)
		return -EALREADY;
	r = nm_link_keys_install(nm);
	if (r) {
		nm_err_limit(nm, "cannot set up the packet MACs (%d)", r);
		return r;
	}

	/*
	 * the data generations decide the resync, or refuse the link; the
	 * link's packets follow: HELLO 0, [AUTH 1, 2], GENS, [its MAC]
	 */
	nm->link_seq = nm->secret_desc[0] ? (bind ? 5 : 4) : 2;
	return nm_gens_exchange(nm, s, nm->secret_desc[0] ? 3 : 1,
				min_t(u32, nm_h32(in.m.proto_max), NM_PROTO_MAX) >=
				NM_PROTO_ORD, bind, deadline);
}

/*
 * Shut the link down: the receiver and a sender blocked in the socket both
 * return.  Not under tx_mutex, which a send to a stalled or trickling peer
 * may hold for long: drop_mutex only guards the pointer against the
 * socket's release (nm_conn_set_sock).
 */
void nm_conn_drop(struct nm_dev *nm)
{
	mutex_lock(&nm->drop_mutex);
	if (nm->drop_sock)
		kernel_sock_shutdown(nm->drop_sock, SHUT_RDWR);
	mutex_unlock(&nm->drop_mutex);
}

/*
 * Reset a link that ends with pages sent by reference in its socket: what
 * it still holds for the peer is dropped, never sent.  A shutdown alone
 * queues a FIN behind that data, and the released socket, orphaned, goes
 * on sending it after nm_teardown has handed the pages back: those of the
 * writes it gave up (B and C) and the resync slots.  By then they may hold
 * other bytes, which a peer that still reads the link would write as ours
 * (fault-orphansend; 1.18.20 and earlier).  tcp_abort sends a reset, stops
 * every timer and purges the queues.  Copies of sent packets still below
 * TCP (a qdisc, a driver's ring) share the pages too: they hold the
 * socket's write memory until they are gone, waited for here (1 s at
 * most).  Loopback releases that memory at once and the peer's receive
 * queue shares the pages: a pair on one host (tests, demos) keeps that gap.
 */
void nm_sock_abort(struct socket *s)
{
	struct sock *sk = s->sk;
	int i;

	might_sleep();
	if (!sk || sk->sk_protocol != IPPROTO_TCP ||
	    sk->sk_type != SOCK_STREAM)
		return;
	tcp_abort(sk, ECONNABORTED);
	for (i = 0; i < 50 && refcount_read(&sk->sk_wmem_alloc) > 1; i++)
		msleep(20);
}

/* The nm_conn thread publishes (@s) or withdraws (NULL) the link. */
void nm_conn_set_sock(struct nm_dev *nm, struct socket *s)
{
	mutex_lock(&nm->drop_mutex);
	nm->drop_sock = s;
	mutex_unlock(&nm->drop_mutex);
}
