/*
 * nmhostile: a hostile netmirror peer.  Connects to a node's listen port and
 * sends malformed input built from the real wire format
 * (dm-mirror-net/nm_wire.h).
 *
 *   nmhostile list                       case names, one a line
 *   nmhostile run HOST PORT CASE [CASE...]
 *   nmhostile auth HOST PORT MODE SECRET   (1.3 secret option)
 *       right: a correct HMAC challenge-response (accepted=1 expected);
 *              the bytes sent are saved in /tmp/nmh-auth.bin
 *       replay: those saved bytes sent again on a new connection
 *       wrong: SECRET is taken as a wrong key; none: no auth feature;
 *       reflect: the node's own challenge and response sent back to it
 *   nmhostile crc HOST PORT MODE SECTOR     (1.3 integrity crc32c)
 *       good-ping: a ping with a right trailer (the node's answer and its
 *              trailer are checked: note=pingack-ok)
 *       bad-ping: a ping with a wrong trailer
 *       good-data / bad-data: a 4 KiB P_DATA at SECTOR filled with 0xa5,
 *              its trailer right / one data byte flipped after the crc
 *       no-trailer: a ping without its trailer, then another ping
 *   nmhostile addkey DESC SECRET            add a "logon" key to @u
 *   nmhostile flood HOST PORT KIND SECONDS  (review of 1.17.7, finding 1)
 *       after a valid handshake, valid packets as fast as the node reads
 *       them for SECONDS, while reading its answers slowly (our receive
 *       buffer 4 KiB, at most 2 KiB every 250 ms: the node's sends go on,
 *       slowly, so nothing times out): KIND ping (P_PING), or data
 *       (512-byte P_DATA in one epoch, for a secondary: each is answered
 *       under C).  A node that queues an answer for every packet without
 *       bound grows its kernel memory with the flood; one that stops
 *       reading when its answers back up does not.  Prints
 *         NMH flood kind=K accepted=0|1 packets=N sunreclaim_kb=B A
 *       with the kernel's SUnreclaim (/proc/meminfo) right after the
 *       handshake (B) and at the end of the flood, the link still open (A).
 *   nmhostile ackkind HOST PORT right|wrong SECONDS  (review of 1.17.8)
 *       after a valid handshake as the node's secondary, uptodate, with the
 *       node's own data generations echoed back (the same data: no resync),
 *       answer each P_DATA and P_ZERO of the node as the secondary would:
 *       nothing for a plain write under A, a P_RECV_ACK for one under B, a
 *       P_WRITE_ACK under C and for a write sent with NM_DF_ACK_DISK (the
 *       node has no good copy of its own) -- except that "wrong" sends a
 *       P_RECV_ACK wherever a P_WRITE_ACK is due.  Answers the node's pings
 *       and P_SYNCs, and acks each region of a resync into it (NMH_DEBUG
 *       set: each packet's type on stderr);
 *       runs for SECONDS or until the node closes the link.  Prints
 *         NMH ackkind kind=K linked          once the link is up, then
 *         NMH ackkind kind=K accepted=0|1 writes=N ackdisk=N closed=0|1
 *       writes: P_DATA/P_ZERO seen; ackdisk: of them with NM_DF_ACK_DISK.
 *   nmhostile stall HOST PORT GOFILE SECONDS   (review of 1.18.20)
 *       after a valid handshake as the node's secondary (as ackkind), with
 *       a 4 KiB receive buffer: answers pings until the header of the
 *       first P_DATA, then reads nothing more (the node's sends back up in
 *       its own socket) until the file GOFILE exists, at most SECONDS; then
 *       reads everything, answering nothing, until the node closes the
 *       link or 10 s pass.  Prints
 *         NMH stall linked                  once the link is up,
 *         NMH stall held length=N           at the first write's header,
 *         NMH stall data sector=S size=N fill=B|mixed   per P_DATA read
 *                                           whole (that first one too),
 *         NMH stall accepted=0|1 datas=N closed=0|1
 *       fill: the payload's one byte value (decimal), or mixed.
 *
 * Each case prints one line:
 *   NMH case=NAME accepted=0|1 packets=N bytes=N closed_ms=N|-1 [note=...]
 * accepted=1: the node answered our P_HELLO with packets of a live link (it
 * kept the connection); closed_ms: time from the last hostile packet until
 * the node closed the connection (-1: still open after the wait, then we
 * closed it).  The final line sums up:
 *   NMH total cases=N packets=N bytes=N
 * Exit status: 0, or 2 on a usage / connect error.
 *
 * NMH_TIMEOUT_MS: the node's link timeout (default 6000), which times the
 * silent cases (h-silent, h-stall-*, h-progress-silent) and how long we
 * wait for the node to drop us after them.
 *
 * Cases whose name starts with "h-" first complete a valid handshake (same
 * protocol and region size as the node's P_HELLO, a larger device, the
 * largest nonce, so the node keeps the link) and then send the bad packet
 * with the right sequence number unless the case is about sequence numbers.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <linux/keyctl.h>
#include <time.h>
#include <unistd.h>

#include "../../../dm-mirror-net/nm_wire.h"

static const char *g_host;
static int g_port;
static int g_rcvbuf;	/* SO_RCVBUF of our socket, 0: the default */
static unsigned long long n_pkts, n_bytes, t_pkts, t_bytes;
static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void msleep(int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

#define NMH_FLOOD 64	/* connections of the many-* cases */

/*
 * Start a non-blocking connect to the node; -1 on failure.  conn_settle()
 * waits for its outcome.
 */
static int conn_start(void)
{
	struct sockaddr_in sa;
	int fd, r;

	fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return -1;
	if (g_rcvbuf) {
		/* before connect(): the window offered to the node stays small */
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &g_rcvbuf, sizeof(g_rcvbuf));
	}
	if (getenv("NMH_SRC")) {
		/* connect from another local address (NMH_SRC=127.0.0.2) */
		struct sockaddr_in src;

		memset(&src, 0, sizeof(src));
		src.sin_family = AF_INET;
		if (inet_pton(AF_INET, getenv("NMH_SRC"), &src.sin_addr) != 1 ||
		    bind(fd, (struct sockaddr *)&src, sizeof(src))) {
			close(fd);
			return -1;
		}
	}
	memset(&sa, 0, sizeof(sa));
	sa.sin_family = AF_INET;
	sa.sin_port = htons(g_port);
	inet_pton(AF_INET, g_host, &sa.sin_addr);
	r = connect(fd, (struct sockaddr *)&sa, sizeof(sa));
	if (r && errno != EINPROGRESS) {
		close(fd);
		return -1;
	}
	return fd;
}

/*
 * Wait up to @wait_ms in all for the connects conn_start() began (@n <=
 * NMH_FLOOD; -1 entries skipped): each that completed stays (non-blocking,
 * TCP_NODELAY), the others are closed and set to -1.  The node accepts one
 * connection at a time and its accept queue is short: a connect that finds
 * it full would wait out the SYN retries, so it counts as refused.
 */
static void conn_settle(int *fds, int n, int wait_ms)
{
	struct pollfd p[NMH_FLOOD];
	int idx[NMH_FLOOD], done[NMH_FLOOD] = { 0 };
	int i, one = 1, left, err;
	socklen_t el;
	struct timespec t0, t;

	if (n > NMH_FLOOD)
		n = NMH_FLOOD;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		/* poll only the sockets that have no outcome yet */
		int np = 0;

		for (i = 0; i < n; i++)
			if (fds[i] >= 0 && !done[i]) {
				p[np].fd = fds[i];
				p[np].events = POLLOUT;
				p[np].revents = 0;
				idx[np++] = i;
			}
		clock_gettime(CLOCK_MONOTONIC, &t);
		left = wait_ms - (int)((t.tv_sec - t0.tv_sec) * 1000 +
				       (t.tv_nsec - t0.tv_nsec) / 1000000);
		if (!np || left <= 0 || poll(p, np, left) <= 0)
			break;
		for (i = 0; i < np; i++)
			if (p[i].revents)
				done[idx[i]] = 1;
	}
	for (i = 0; i < n; i++) {
		if (fds[i] < 0)
			continue;
		err = 0;
		el = sizeof(err);
		if (!done[i] ||
		    getsockopt(fds[i], SOL_SOCKET, SO_ERROR, &err, &el) || err) {
			close(fds[i]);
			fds[i] = -1;
			continue;
		}
		setsockopt(fds[i], IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	}
}

/* connect with a deadline of @wait_ms; -1 on failure */
static int conn_wait(int nonblock_ok, int wait_ms)
{
	int fd = conn_start();

	if (fd < 0)
		return -1;
	conn_settle(&fd, 1, wait_ms);
	if (fd >= 0 && !nonblock_ok)
		fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	return fd;
}

static int conn(int nonblock_ok)
{
	return conn_wait(nonblock_ok, 5000);
}

/* send raw bytes (counted); 0 or -1 (the node closed already) */
static int sraw(int fd, const void *buf, size_t len)
{
	const char *b = buf;

	while (len) {
		ssize_t r = send(fd, b, len, MSG_NOSIGNAL);

		if (r < 0 && (errno == EAGAIN || errno == EINTR)) {
			msleep(1);
			continue;
		}
		if (r <= 0)
			return -1;
		b += r;
		len -= r;
		n_bytes += r;
	}
	return 0;
}

/* one packet: header (type, flags, length, seq) + @plen payload bytes */
static int spkt(int fd, uint16_t type, uint16_t flags, uint32_t length,
		uint32_t seq, const void *payload, size_t plen)
{
	struct nm_hdr h;

	nm_hdr_fill(&h, type, length, seq);
	h.flags = nm_be16(flags);
	n_pkts++;
	if (sraw(fd, &h, sizeof(h)))
		return -1;
	return plen ? sraw(fd, payload, plen) : 0;
}

/* read exactly len bytes within ms; 0 ok, -1 EOF/error/timeout */
static int rfull(int fd, void *buf, size_t len, int ms)
{
	char *b = buf;
	long long end = now_ms() + ms;

	while (len) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		int left = (int)(end - now_ms());
		ssize_t r;

		if (left <= 0 || poll(&p, 1, left) != 1)
			return -1;
		r = recv(fd, b, len, MSG_DONTWAIT);
		if (r < 0 && (errno == EAGAIN || errno == EINTR))
			continue;
		if (r <= 0)
			return -1;
		b += r;
		len -= r;
	}
	return 0;
}

/* drain until the node closes: ms until EOF/RST, or -1 after @ms */
static long long wait_close(int fd, int ms)
{
	long long t0 = now_ms(), end = t0 + ms;
	char buf[65536];

	for (;;) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		int left = (int)(end - now_ms());
		ssize_t r;

		if (left <= 0)
			return -1;
		if (poll(&p, 1, left) != 1)
			continue;
		r = recv(fd, buf, sizeof(buf), MSG_DONTWAIT);
		if (r == 0 || (r < 0 && errno != EAGAIN && errno != EINTR))
			return now_ms() - t0;
	}
}

/* drain whatever is readable now (the node's pings, bitmap, data) */
static void drain(int fd, int ms)
{
	long long end = now_ms() + ms;
	char buf[65536];

	while (now_ms() < end) {
		struct pollfd p = { .fd = fd, .events = POLLIN };

		if (poll(&p, 1, (int)(end - now_ms())) != 1)
			break;
		if (recv(fd, buf, sizeof(buf), MSG_DONTWAIT) <= 0)
			break;
	}
}

struct node {
	struct nm_p_hello h;	/* the node's P_HELLO, as received */
	int have;
};

static int read_node_hello(int fd, struct node *n)
{
	struct nm_hdr h;

	n->have = 0;
	if (rfull(fd, &h, sizeof(h), 5000) || rfull(fd, &n->h, sizeof(n->h), 2000))
		return -1;
	if (nm_h32(h.magic) != NM_MAGIC || nm_h16(h.type) != NM_P_HELLO)
		return -1;
	n->have = 1;
	return 0;
}

static int g_secondary;	/* ackkind: we are the node's secondary */

/* a P_HELLO the node accepts: its protocol, region size, a bigger device */
static void good_hello(const struct node *n, struct nm_p_hello *m)
{
	memset(m, 0, sizeof(*m));
	m->proto_min = nm_be32(NM_PROTO_MIN);
	m->proto_max = nm_be32(NM_PROTO_MAX);
	m->dev_sectors = nm_be64(nm_h64(n->h.dev_sectors) + 8);
	m->nonce = nm_be64(~0ull);
	m->role = nm_be32(nm_h32(n->h.role) == NM_ROLE_PRIMARY || g_secondary ?
			  NM_ROLE_SECONDARY : NM_ROLE_PRIMARY);
	m->disk = nm_be32(NM_DISK_UPTODATE);
	m->protocol = n->h.protocol;
	m->region_sectors = n->h.region_sectors;
}

static uint64_t dev_sectors(const struct node *n)
{
	return nm_h64(n->h.dev_sectors);
}

/*
 * Wait for the node to show the link is live: after the handshake it sends
 * its bitmap (P_BITMAP chunks, then P_BITMAP_DONE, seq >= 1).
 */
static unsigned int g_trailer;	/* 4 with integrity: skip the node's trailers */

/* read the node's packets until one of @type (1), or a close/timeout (0) */
static int wait_type(int fd, uint16_t type, int ms)
{
	long long end = now_ms() + ms;
	struct nm_hdr h;
	static char buf[NM_BITMAP_MAX_BITS / 8 + 64 + NM_MAX_DATA];

	while (now_ms() < end) {
		uint32_t len;

		if (rfull(fd, &h, sizeof(h), (int)(end - now_ms())))
			return 0;
		len = nm_h32(h.length) + g_trailer;
		if (len > sizeof(buf) || rfull(fd, buf, len, 3000))
			return 0;
		if (nm_h16(h.type) == type)
			return 1;
	}
	return 0;
}

/* the link is up: the node's bitmap exchange gets through */
static int wait_live(int fd)
{
	return wait_type(fd, NM_P_BITMAP_DONE, 5000);
}

/*
 * The last handshake step (protocol 2): our P_GENS (no history: the node
 * keeps deciding by roles) with @seq, then the node's P_GENS.
 */
static int gens_step(int fd, uint32_t seq)
{
	struct nm_p_gens g;
	struct nm_hdr h;

	memset(&g, 0, sizeof(g));
	/* protocol 6 (good_hello's proto_max): our ordering, as the targets' */
	g.flags = nm_be32(NM_GF_ORD_SENT | NM_ORD_FLUSH << NM_GF_ORD_SHIFT);
	if (spkt(fd, NM_P_GENS, 0, sizeof(g), seq, &g, sizeof(g)))
		return -1;
	if (rfull(fd, &h, sizeof(h), 5000) ||
	    nm_h16(h.type) != NM_P_GENS ||
	    nm_h32(h.length) != sizeof(g) ||
	    rfull(fd, &g, sizeof(g), 2000))
		return -1;
	return 0;
}

/* handshake for the h- cases; @m may be modified by the caller first */
static int hostile_hello(int fd, struct node *n, struct nm_p_hello *m,
			 int *accepted)
{
	if (read_node_hello(fd, n))
		return -1;
	if (m->proto_max == 0)
		good_hello(n, m);
	if (spkt(fd, NM_P_HELLO, 0, sizeof(*m), 0, m, sizeof(*m)))
		return -1;
	if (gens_step(fd, 1))
		return 0;	/* refused: *accepted stays 0 */
	*accepted = wait_live(fd);
	return 0;
}

/* P_DATA fixed part */
static void mkdata(struct nm_p_data *d, uint64_t sector, uint32_t size,
		   uint32_t flags)
{
	memset(d, 0, sizeof(*d));
	d->id = nm_be64(1);
	d->sector = nm_be64(sector);
	d->size = nm_be32(size);
	d->flags = nm_be32(flags);
}

static char zbuf[NM_MAX_DATA + 8192];

/* the node's link timeout in ms (NMH_TIMEOUT_MS; default the table's) */
static int g_tms = 6000;

/* cases after which the node must drop us for silence (peer_timeout) */
static int nm_silent_case(const char *name)
{
	return !strcmp(name, "h-silent") || !strncmp(name, "h-stall-", 8) ||
	       !strcmp(name, "h-progress-silent");
}

/*
 * Post-handshake bad packets.  Each returns after sending; seq is the next
 * sequence number the node expects (2 after P_HELLO and P_GENS).
 */
/* set by a case that reports what the node answered */
static char g_hnote[64];

/*
 * Read the node's packets for up to @ms: did a P_READ_REPLY with data come?
 * (integrity off: no trailers).
 */
static int saw_read_data(int fd, int ms)
{
	long long end = now_ms() + ms;
	static char buf[1 << 21];
	struct nm_hdr h;
	uint32_t len;

	while (now_ms() < end) {
		if (rfull(fd, &h, sizeof(h), (int)(end - now_ms())))
			return 0;
		len = nm_h32(h.length);
		if (len > sizeof(buf) || rfull(fd, buf, len, 2000))
			return 0;
		if (nm_h16(h.type) == NM_P_READ_REPLY &&
		    len > sizeof(struct nm_p_ack))
			return 1;
	}
	return 0;
}

static void h_case(const char *name, int fd, const struct node *n)
{
	uint64_t S = dev_sectors(n);
	uint32_t seq = 2;
	struct nm_p_data d;
	struct nm_p_ack a;
	struct nm_p_rs_ack ra;
	struct nm_p_bitmap b;
	struct nm_p_state st;
	struct nm_p_ping pg = { .cookie = nm_be64(42) };
	struct nm_p_barrier br;
	struct nm_p_count c = { .count = nm_be64(3) };
	struct nm_p_hello m;
	char junk[256];
	unsigned int i;

	for (i = 0; i < sizeof(junk); i++)
		junk[i] = (char)rnd();
	junk[0] = 0;
	memset(&b, 0, sizeof(b));
	memset(&ra, 0, sizeof(ra));
	memset(&a, 0, sizeof(a));
	memset(&br, 0, sizeof(br));
	memset(&st, 0, sizeof(st));

#define IS(x) (!strcmp(name, (x)))
	if (IS("h-garbage")) {
		n_pkts++;
		sraw(fd, junk, sizeof(junk));
	} else if (IS("h-bad-magic")) {
		struct nm_hdr h;

		nm_hdr_fill(&h, NM_P_PING, sizeof(pg), seq);
		h.magic = nm_be32(NM_MAGIC ^ 0x100);
		n_pkts++;
		sraw(fd, &h, sizeof(h));
		sraw(fd, &pg, sizeof(pg));
	} else if (IS("h-bad-flags")) {
		spkt(fd, NM_P_PING, 0x8000, sizeof(pg), seq, &pg, sizeof(pg));
	} else if (IS("h-seq-skip")) {
		spkt(fd, NM_P_PING, 0, sizeof(pg), seq + 4, &pg, sizeof(pg));
	} else if (IS("h-seq-zero")) {
		spkt(fd, NM_P_PING, 0, sizeof(pg), 0, &pg, sizeof(pg));
	} else if (IS("h-seq-replay")) {
		spkt(fd, NM_P_PING, 0, sizeof(pg), seq, &pg, sizeof(pg));
		drain(fd, 200);
		spkt(fd, NM_P_PING, 0, sizeof(pg), seq, &pg, sizeof(pg));
	} else if (IS("h-seq-max")) {
		spkt(fd, NM_P_PING, 0, sizeof(pg), 0xffffffffu, &pg, sizeof(pg));
	} else if (IS("h-type-0")) {
		spkt(fd, 0, 0, 8, seq, &pg, sizeof(pg));
	} else if (IS("h-type-200")) {
		spkt(fd, 200, 0, 8, seq, &pg, sizeof(pg));
	} else if (IS("h-type-ffff")) {
		spkt(fd, 0xffff, 0, 8, seq, &pg, sizeof(pg));
	} else if (IS("h-len-huge")) {
		spkt(fd, NM_P_PING, 0, 0xffffffffu, seq, &pg, sizeof(pg));
	} else if (IS("h-len-short")) {
		spkt(fd, NM_P_PING, 0, 4, seq, &pg, 4);
	} else if (IS("h-data-len-huge")) {
		mkdata(&d, 0, 4096, 0);
		spkt(fd, NM_P_DATA, 0, 0xffffffffu, seq, &d, sizeof(d));
	} else if (IS("h-data-len-over")) {
		mkdata(&d, 0, NM_MAX_DATA + 512, 0);
		spkt(fd, NM_P_DATA, 0, sizeof(d) + NM_MAX_DATA + 512, seq, &d, sizeof(d));
	} else if (IS("h-data-len-short")) {
		mkdata(&d, 0, 0, 0);
		spkt(fd, NM_P_DATA, 0, 16, seq, &d, 16);
	} else if (IS("h-data-past-end")) {
		mkdata(&d, S, 512, 0);
		spkt(fd, NM_P_DATA, 0, sizeof(d) + 512, seq, &d, sizeof(d));
		sraw(fd, zbuf, 512);
	} else if (IS("h-data-straddle-end")) {
		mkdata(&d, S - 1, 1024, 0);
		spkt(fd, NM_P_DATA, 0, sizeof(d) + 1024, seq, &d, sizeof(d));
		sraw(fd, zbuf, 1024);
	} else if (IS("h-data-sector-max")) {
		mkdata(&d, ~0ull, 512, 0);
		spkt(fd, NM_P_DATA, 0, sizeof(d) + 512, seq, &d, sizeof(d));
		sraw(fd, zbuf, 512);
	} else if (IS("h-data-sector-wrap")) {
		/* sector + size/512 wraps to a small number */
		mkdata(&d, ~0ull - 3, 4096, 0);
		spkt(fd, NM_P_DATA, 0, sizeof(d) + 4096, seq, &d, sizeof(d));
		sraw(fd, zbuf, 4096);
	} else if (IS("h-data-sector-2^63")) {
		mkdata(&d, 1ull << 63, 512, 0);
		spkt(fd, NM_P_DATA, 0, sizeof(d) + 512, seq, &d, sizeof(d));
		sraw(fd, zbuf, 512);
	} else if (IS("h-data-huge-dev")) {
		/* the hello claimed 2^40 sectors: a write past OUR end */
		mkdata(&d, S + 1024, 4096, 0);
		spkt(fd, NM_P_DATA, 0, sizeof(d) + 4096, seq, &d, sizeof(d));
		sraw(fd, zbuf, 4096);
	} else if (IS("h-data-size-odd")) {
		mkdata(&d, 0, 100, 0);
		spkt(fd, NM_P_DATA, 0, sizeof(d) + 100, seq, &d, sizeof(d));
		sraw(fd, zbuf, 100);
	} else if (IS("h-data-size-gt-len")) {
		mkdata(&d, 0, 1024, 0);
		spkt(fd, NM_P_DATA, 0, sizeof(d) + 512, seq, &d, sizeof(d));
		sraw(fd, zbuf, 512);
	} else if (IS("h-data-size-lt-len")) {
		mkdata(&d, 0, 512, 0);
		spkt(fd, NM_P_DATA, 0, sizeof(d) + 1024, seq, &d, sizeof(d));
		sraw(fd, zbuf, 1024);
	} else if (IS("h-data-size-zero")) {
		mkdata(&d, 0, 0, 0);
		spkt(fd, NM_P_DATA, 0, sizeof(d), seq, &d, sizeof(d));
	} else if (IS("h-data-bad-flags")) {
		mkdata(&d, 0, 512, 0x4);
		spkt(fd, NM_P_DATA, 0, sizeof(d) + 512, seq, &d, sizeof(d));
		sraw(fd, zbuf, 512);
	} else if (IS("h-data-trunc")) {
		/* valid header promising 64 KiB at sector 0, 1 KiB sent,
		 * then we close: nothing may be written */
		mkdata(&d, 0, 65536, 0);
		spkt(fd, NM_P_DATA, 0, sizeof(d) + 65536, seq, &d, sizeof(d));
		sraw(fd, zbuf, 1024);
	} else if (IS("h-data-to-primary")) {
		/* in range and well formed, but the node is primary */
		mkdata(&d, 0, 4096, 0);
		spkt(fd, NM_P_DATA, 0, sizeof(d) + 4096, seq, &d, sizeof(d));
		sraw(fd, zbuf, 4096);
	} else if (IS("h-hello-again")) {
		good_hello(n, &m);
		spkt(fd, NM_P_HELLO, 0, sizeof(m), seq, &m, sizeof(m));
	} else if (IS("h-read-req")) {
		/* a read of sector 0 from a peer that is not primary */
		mkdata(&d, 0, 4096, 0);
		d.epoch = 0;
		spkt(fd, NM_P_READ_REQ, 0, sizeof(d), seq, &d, sizeof(d));
		snprintf(g_hnote, sizeof(g_hnote), "%s",
			 saw_read_data(fd, 3000) ? "read-data" : "no-read-data");
	} else if (IS("h-rs-data-outside")) {
		mkdata(&d, 0, 4096, 0);
		spkt(fd, NM_P_RS_DATA, 0, sizeof(d) + 4096, seq, &d, sizeof(d));
		sraw(fd, zbuf, 4096);
	} else if (IS("h-rs-data-flags")) {
		mkdata(&d, 0, 4096, NM_DF_FUA);
		spkt(fd, NM_P_RS_DATA, 0, sizeof(d) + 4096, seq, &d, sizeof(d));
		sraw(fd, zbuf, 4096);
	} else if (IS("h-rs-data-misaligned") || IS("h-rs-zero-short")) {
		/*
		 * a resync that starts, then a region's data that is not one
		 * whole region (4 KiB at sector 8; zeroes for the first 4 KiB
		 * only): refused, nothing written, the region not taken as
		 * in sync
		 */
		static char fill[4096];

		memset(fill, 0x5a, sizeof(fill));
		spkt(fd, NM_P_RS_START, 0, sizeof(c), seq++, &c, sizeof(c));
		drain(fd, 300);
		n_pkts++;
		if (IS("h-rs-data-misaligned")) {
			mkdata(&d, 8, 4096, 0);
			spkt(fd, NM_P_RS_DATA, 0, sizeof(d) + 4096, seq, &d,
			     sizeof(d));
			sraw(fd, fill, 4096);
		} else {
			mkdata(&d, 0, 4096, 0);
			spkt(fd, NM_P_RS_ZERO, 0, sizeof(d), seq, &d, sizeof(d));
		}
	} else if (IS("h-rs-done-outside")) {
		spkt(fd, NM_P_RS_DONE, 0, sizeof(c), seq, &c, sizeof(c));
	} else if (IS("h-rs-stop-outside") || IS("h-rs-stop-zero")) {
		/* version 8: not a sync target (EPROTO); a count of 0 */
		struct nm_p_count k = {
			.count = nm_be64(IS("h-rs-stop-zero") ? 0 : 1),
		};

		spkt(fd, NM_P_RS_STOP, 0, sizeof(k), seq, &k, sizeof(k));
	} else if (IS("h-rs-start-then-junk")) {
		/* a primary cannot be a target (EPROTO); a secondary becomes
		 * one, and must not stay "inconsistent" after the real peer
		 * returns */
		spkt(fd, NM_P_RS_START, 0, sizeof(c), seq++, &c, sizeof(c));
		drain(fd, 300);
		n_pkts++;
		sraw(fd, junk, 64);
	} else if (IS("h-ack-unknown")) {
		a.id = nm_be64(0x123456789ull);
		spkt(fd, NM_P_WRITE_ACK, 0, sizeof(a), seq, &a, sizeof(a));
	} else if (IS("h-recv-ack")) {
		a.id = nm_be64(1);
		spkt(fd, NM_P_RECV_ACK, 0, sizeof(a), seq, &a, sizeof(a));
	} else if (IS("h-ack-bad-status")) {
		a.status = nm_be32(5000);
		spkt(fd, NM_P_WRITE_ACK, 0, sizeof(a), seq, &a, sizeof(a));
	} else if (IS("h-rs-ack-size0")) {
		spkt(fd, NM_P_RS_ACK, 0, sizeof(ra), seq, &ra, sizeof(ra));
	} else if (IS("h-rs-ack-range")) {
		ra.sector = nm_be64(S);
		ra.size = nm_be32(4096);
		spkt(fd, NM_P_RS_ACK, 0, sizeof(ra), seq, &ra, sizeof(ra));
	} else if (IS("h-bitmap-nbits0")) {
		spkt(fd, NM_P_BITMAP, 0, sizeof(b), seq, &b, sizeof(b));
	} else if (IS("h-bitmap-offset-odd")) {
		b.offset = nm_be64(63);
		b.nbits = nm_be32(64);
		spkt(fd, NM_P_BITMAP, 0, sizeof(b) + 8, seq, &b, sizeof(b));
		sraw(fd, junk, 8);
	} else if (IS("h-bitmap-offset-huge")) {
		b.offset = nm_be64(1ull << 50);
		b.nbits = nm_be32(64);
		spkt(fd, NM_P_BITMAP, 0, sizeof(b) + 8, seq, &b, sizeof(b));
		sraw(fd, junk, 8);
	} else if (IS("h-bitmap-nbits-over")) {
		b.nbits = nm_be32(NM_BITMAP_MAX_BITS + 64);
		spkt(fd, NM_P_BITMAP, 0, sizeof(b) + (NM_BITMAP_MAX_BITS + 64) / 8,
		     seq, &b, sizeof(b));
	} else if (IS("h-bitmap-len-mismatch")) {
		b.nbits = nm_be32(128);
		spkt(fd, NM_P_BITMAP, 0, sizeof(b) + 8, seq, &b, sizeof(b));
		sraw(fd, junk, 8);
	} else if (IS("h-state-bad-role")) {
		st.role = nm_be32(5);
		st.disk = nm_be32(1);
		spkt(fd, NM_P_STATE, 0, sizeof(st), seq, &st, sizeof(st));
	} else if (IS("h-state-bad-disk")) {
		st.role = nm_be32(0);
		st.disk = nm_be32(0x100);
		spkt(fd, NM_P_STATE, 0, sizeof(st), seq, &st, sizeof(st));
	} else if (IS("h-barrier-epoch")) {
		br.epoch = nm_be32(5);
		spkt(fd, NM_P_BARRIER, 0, sizeof(br), seq++, &br, sizeof(br));
		drain(fd, 300);
		br.epoch = nm_be32(3);
		spkt(fd, NM_P_BARRIER, 0, sizeof(br), seq, &br, sizeof(br));
	} else if (IS("h-pingflood-then-junk")) {
		/* 2000 valid pings (the node answers each), then junk */
		for (i = 0; i < 2000; i++) {
			pg.cookie = nm_be64(i);
			if (spkt(fd, NM_P_PING, 0, sizeof(pg), seq++, &pg, sizeof(pg)))
				break;
			if (!(i % 64))
				drain(fd, 1);
		}
		drain(fd, 300);
		spkt(fd, NM_P_PING, 0, sizeof(pg), seq + 1000, &pg, sizeof(pg));
	} else if (IS("h-bitmap-all-then-junk")) {
		/* valid: every region out of sync, then bitmap done: the node
		 * ORs it in (a primary starts a resync to us); then junk */
		uint32_t nb = (uint32_t)((S + nm_h32(n->h.region_sectors) - 1) /
					 nm_h32(n->h.region_sectors));
		uint64_t off = 0;

		while (off < nb) {
			uint32_t k = nb - off > NM_BITMAP_MAX_BITS ?
				     NM_BITMAP_MAX_BITS : (uint32_t)(nb - off);
			uint32_t bytes = (k + 63) / 64 * 8;

			b.offset = nm_be64(off);
			b.nbits = nm_be32(k);
			memset(zbuf, 0xff, bytes);
			spkt(fd, NM_P_BITMAP, 0, sizeof(b) + bytes, seq++, &b, sizeof(b));
			sraw(fd, zbuf, bytes);
			memset(zbuf, 0, bytes);
			off += k;
		}
		c.count = nm_be64(nb);
		spkt(fd, NM_P_BITMAP_DONE, 0, sizeof(c), seq++, &c, sizeof(c));
		drain(fd, 1500);	/* a primary sends resync data */
		spkt(fd, NM_P_DATA, 0, 3, seq, &c, 3);
	} else if (IS("h-sync-then-junk")) {
		spkt(fd, NM_P_SYNC, 0, sizeof(pg), seq++, &pg, sizeof(pg));
		drain(fd, 300);
		spkt(fd, NM_P_BARRIER, 0, 0, seq, NULL, 0);
	} else if (IS("h-trunc-hdr")) {
		struct nm_hdr h;

		nm_hdr_fill(&h, NM_P_PING, sizeof(pg), seq);
		n_pkts++;
		sraw(fd, &h, 9);
		/* then we close: a plain EOF, no error word */
	} else if (IS("h-silent")) {
		/* nothing more: the node must time out (peer_timeout) */
	} else if (IS("h-stall-hdr")) {
		struct nm_hdr h;

		/* 9 bytes of a header, then silence with the socket open */
		nm_hdr_fill(&h, NM_P_PING, sizeof(pg), seq);
		n_pkts++;
		sraw(fd, &h, 9);
	} else if (IS("h-stall-data") || IS("h-stall-drip")) {
		/*
		 * a 1 MiB write's header, then silence after 64 KiB of it
		 * (data) or after 4 KiB every 0.8 timeout, three times (drip):
		 * the clock runs from the last byte
		 */
		mkdata(&d, 0, NM_MAX_DATA, 0);
		spkt(fd, NM_P_DATA, 0, sizeof(d) + NM_MAX_DATA, seq, &d,
		     sizeof(d));
		for (i = 0; i < 3 && IS("h-stall-drip"); i++) {
			msleep(g_tms * 8 / 10);
			sraw(fd, zbuf, 4096);
		}
		if (IS("h-stall-data"))
			sraw(fd, zbuf, 65536);
	} else if (IS("h-progress-silent")) {
		/*
		 * half a timeout of silence, one whole valid packet (a flush
		 * request, which changes no data), then silence: the clock
		 * runs from that packet, not from when the node began to wait
		 */
		msleep(g_tms / 2);
		spkt(fd, NM_P_SYNC, 0, sizeof(pg), seq, &pg, sizeof(pg));
	} else if (IS("h-state-primary")) {
		st.role = nm_be32(NM_ROLE_PRIMARY);
		st.disk = nm_be32(NM_DISK_UPTODATE);
		spkt(fd, NM_P_STATE, 0, sizeof(st), seq, &st, sizeof(st));
	}
#undef IS
}


/* ---- crc32c (Castagnoli, reflected, raw: seed ~0, no final xor) ---- */
static uint32_t crc32c(uint32_t crc, const void *buf, size_t len)
{
	const unsigned char *p = buf;
	int k;

	while (len--) {
		crc ^= *p++;
		for (k = 0; k < 8; k++)
			crc = (crc >> 1) ^ (0x82f63b78u & -(crc & 1));
	}
	return crc;
}

/* ---- SHA-256 and HMAC-SHA256 (FIPS 180-4, RFC 2104) ---- */
struct sha { uint32_t h[8]; uint64_t n; unsigned char b[64]; unsigned int l; };
static const uint32_t K256[64] = {
	0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
	0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
	0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
	0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
	0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
	0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
	0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
	0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};
#define ROR(x, n) (((x) >> (n)) | ((x) << (32 - (n))))
static void sha_block(struct sha *c, const unsigned char *p)
{
	uint32_t w[64], a, b, d, e, f, g, h, cc, t1, t2;
	int i;

	for (i = 0; i < 16; i++)
		w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 |
		       (uint32_t)p[4 * i + 2] << 8 | p[4 * i + 3];
	for (i = 16; i < 64; i++)
		w[i] = w[i - 16] + (ROR(w[i - 15], 7) ^ ROR(w[i - 15], 18) ^ (w[i - 15] >> 3)) +
		       w[i - 7] + (ROR(w[i - 2], 17) ^ ROR(w[i - 2], 19) ^ (w[i - 2] >> 10));
	a = c->h[0]; b = c->h[1]; cc = c->h[2]; d = c->h[3];
	e = c->h[4]; f = c->h[5]; g = c->h[6]; h = c->h[7];
	for (i = 0; i < 64; i++) {
		t1 = h + (ROR(e, 6) ^ ROR(e, 11) ^ ROR(e, 25)) + ((e & f) ^ (~e & g)) + K256[i] + w[i];
		t2 = (ROR(a, 2) ^ ROR(a, 13) ^ ROR(a, 22)) + ((a & b) ^ (a & cc) ^ (b & cc));
		h = g; g = f; f = e; e = d + t1; d = cc; cc = b; b = a; a = t1 + t2;
	}
	c->h[0] += a; c->h[1] += b; c->h[2] += cc; c->h[3] += d;
	c->h[4] += e; c->h[5] += f; c->h[6] += g; c->h[7] += h;
}
static void sha_init(struct sha *c)
{
	static const uint32_t iv[8] = { 0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
					0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19 };
	memcpy(c->h, iv, sizeof(iv));
	c->n = 0;
	c->l = 0;
}
static void sha_update(struct sha *c, const void *data, size_t len)
{
	const unsigned char *p = data;

	c->n += len;
	while (len--) {
		c->b[c->l++] = *p++;
		if (c->l == 64) {
			sha_block(c, c->b);
			c->l = 0;
		}
	}
}
static void sha_final(struct sha *c, unsigned char out[32])
{
	uint64_t bits = c->n * 8;
	unsigned char pad = 0x80, z = 0, lb[8];
	int i;

	sha_update(c, &pad, 1);
	while (c->l != 56)
		sha_update(c, &z, 1);
	for (i = 0; i < 8; i++)
		lb[i] = (unsigned char)(bits >> (56 - 8 * i));
	sha_update(c, lb, 8);
	for (i = 0; i < 8; i++) {
		out[4 * i] = c->h[i] >> 24;
		out[4 * i + 1] = c->h[i] >> 16;
		out[4 * i + 2] = c->h[i] >> 8;
		out[4 * i + 3] = c->h[i];
	}
}
/* HMAC-SHA256(key, the concatenation of @n parts) */
struct part {
	const void *p;
	size_t len;
};

static void hmac256(const void *key, size_t kl, const struct part *parts,
		    int n, unsigned char out[32])
{
	unsigned char k[64] = { 0 }, ip[64], op[64], inner[32];
	struct sha c;
	int i;

	if (kl > 64) {
		sha_init(&c);
		sha_update(&c, key, kl);
		sha_final(&c, k);
	} else {
		memcpy(k, key, kl);
	}
	for (i = 0; i < 64; i++) {
		ip[i] = k[i] ^ 0x36;
		op[i] = k[i] ^ 0x5c;
	}
	sha_init(&c);
	sha_update(&c, ip, 64);
	for (i = 0; i < n; i++)
		sha_update(&c, parts[i].p, parts[i].len);
	sha_final(&c, inner);
	sha_init(&c);
	sha_update(&c, op, 64);
	sha_update(&c, inner, 32);
	sha_final(&c, out);
}

/* this connection's addresses as 16 bytes (IPv4 v4-mapped) */
static unsigned char g_me[16], g_peer[16];

static void ip16(const struct sockaddr_storage *ss, unsigned char *out)
{
	memset(out, 0, 16);
	if (ss->ss_family == AF_INET) {
		out[10] = out[11] = 0xff;
		memcpy(out + 12, &((const struct sockaddr_in *)ss)->sin_addr, 4);
	} else {
		memcpy(out, &((const struct sockaddr_in6 *)ss)->sin6_addr, 16);
	}
}

static void fd_addrs(int fd)
{
	struct sockaddr_storage a;
	socklen_t l = sizeof(a);

	memset(&a, 0, sizeof(a));
	getsockname(fd, (struct sockaddr *)&a, &l);
	ip16(&a, g_me);
	l = sizeof(a);
	memset(&a, 0, sizeof(a));
	getpeername(fd, (struct sockaddr *)&a, &l);
	ip16(&a, g_peer);
}

/*
 * The kernel's nm_auth_mac (protocol 3): HMAC-SHA256(secret, label || c1 ||
 * [c2] || be64(a) || be64(b) || addr ia || addr ib)
 */
static void nm_mac(const char *key, const char *label,
		   const unsigned char *c1, const unsigned char *c2,
		   uint64_t a, uint64_t b, const unsigned char *ia,
		   const unsigned char *ib, unsigned char out[32])
{
	uint64_t na = nm_be64(a), nb = nm_be64(b);
	struct part p[7];
	int n = 0;

	p[n++] = (struct part){ label, strlen(label) };
	p[n++] = (struct part){ c1, NM_AUTH_LEN };
	if (c2)
		p[n++] = (struct part){ c2, NM_AUTH_LEN };
	p[n++] = (struct part){ &na, 8 };
	p[n++] = (struct part){ &nb, 8 };
	p[n++] = (struct part){ ia, 16 };
	p[n++] = (struct part){ ib, 16 };
	hmac256(key, strlen(key), p, n, out);
}

/* one packet with the link's MAC trailer under @key (@bad: a wrong MAC) */
static int mpkt(int fd, const unsigned char key[32], uint16_t type,
		uint32_t seq, const void *p, uint32_t len, int bad)
{
	struct nm_hdr h;
	unsigned char mac[32];
	struct part pt[2];

	nm_hdr_fill(&h, type, len, seq);
	pt[0] = (struct part){ &h, sizeof(h) };
	pt[1] = (struct part){ p, len };
	hmac256(key, 32, pt, 2, mac);
	if (bad)
		mac[0] ^= 1;
	n_pkts++;
	if (sraw(fd, &h, sizeof(h)) || sraw(fd, p, len))
		return -1;
	return sraw(fd, mac, NM_MAC_LEN);
}

/* read one handshake packet of @type and @len (no trailer) */
static int hs_recv(int fd, uint16_t type, void *p, uint32_t len)
{
	struct nm_hdr h;

	if (rfull(fd, &h, sizeof(h), 5000))
		return -1;
	if (nm_h16(h.type) != type || nm_h32(h.length) != len)
		return -1;
	return rfull(fd, p, len, 3000);
}

static unsigned char rec[4096];
static size_t rec_len;

/* send and record */
static int rsend(int fd, uint16_t type, uint32_t seq, const void *p, uint32_t len)
{
	struct nm_hdr h;

	nm_hdr_fill(&h, type, len, seq);
	if (rec_len + sizeof(h) + len <= sizeof(rec)) {
		memcpy(rec + rec_len, &h, sizeof(h));
		memcpy(rec + rec_len + sizeof(h), p, len);
		rec_len += sizeof(h) + len;
	}
	return spkt(fd, type, 0, len, seq, p, len);
}

static int cmd_auth(const char *mode, const char *secret)
{
	struct node n;
	struct nm_p_hello m;
	unsigned char chal[NM_AUTH_LEN], nchal[NM_AUTH_LEN], mac[NM_AUTH_LEN];
	unsigned char nmac[NM_AUTH_LEN], want[NM_AUTH_LEN];
	long long closed = -1;
	const char *note = "";
	int fd, accepted = 0, i;
	FILE *f;

	fd = conn(0);
	if (fd < 0 || read_node_hello(fd, &n)) {
		fprintf(stderr, "nmhostile: auth: no connection / no hello\n");
		return 2;
	}
	fd_addrs(fd);
	if (!strcmp(mode, "replay")) {
		f = fopen("/tmp/nmh-auth.bin", "rb");
		if (!f) {
			fprintf(stderr, "nmhostile: no /tmp/nmh-auth.bin to replay\n");
			return 2;
		}
		rec_len = fread(rec, 1, sizeof(rec), f);
		fclose(f);
		n_pkts += 3;
		/* the recorded HELLO and CHALLENGE, then the old RESPONSE
		 * once the node has sent its (new) challenge */
		sraw(fd, rec, rec_len - sizeof(struct nm_hdr) - NM_AUTH_LEN);
		if (!hs_recv(fd, NM_P_AUTH_CHALLENGE, nchal, sizeof(nchal)))
			sraw(fd, rec + rec_len - sizeof(struct nm_hdr) - NM_AUTH_LEN,
			     sizeof(struct nm_hdr) + NM_AUTH_LEN);
		accepted = wait_live(fd);
		goto out;
	}
	good_hello(&n, &m);
	/*
	 * a peer of wire version 8: its challenge-response ("NMAUTH2") does
	 * not cover the P_HELLOs, and a node of 9 ends its challenge to it
	 * with NM_AUTH_DOWN, which such a peer ignores
	 */
	m.proto_max = nm_be32(NM_PROTO_BIND - 1);
	m.features = nm_be64(strcmp(mode, "none") ? NM_FEAT_AUTH : 0);
	rsend(fd, NM_P_HELLO, 0, &m, sizeof(m));
	if (!strcmp(mode, "none")) {
		accepted = wait_live(fd);
		goto out;
	}
	for (i = 0; i < NM_AUTH_LEN; i++)
		chal[i] = (unsigned char)rnd();
	if (!strcmp(mode, "reflect")) {
		/* wait for the node's challenge, send it back as ours */
		if (hs_recv(fd, NM_P_AUTH_CHALLENGE, nchal, sizeof(nchal))) {
			note = "no-challenge";
			goto out;
		}
		rsend(fd, NM_P_AUTH_CHALLENGE, 1, nchal, sizeof(nchal));
		if (hs_recv(fd, NM_P_AUTH_RESPONSE, nmac, sizeof(nmac))) {
			note = "no-response";
			goto out;
		}
		rsend(fd, NM_P_AUTH_RESPONSE, 2, nmac, sizeof(nmac));
		if (!gens_step(fd, 3))
			accepted = wait_live(fd);
		goto out;
	}
	rsend(fd, NM_P_AUTH_CHALLENGE, 1, chal, sizeof(chal));
	if (hs_recv(fd, NM_P_AUTH_CHALLENGE, nchal, sizeof(nchal))) {
		note = "no-challenge";
		goto out;
	}
	/*
	 * ours: HMAC over the node's challenge, both nonces, both addresses;
	 * "relay": as a genuine peer behind a relay would compute it, with
	 * its own address (169.254.9.9) instead of the one the node sees
	 */
	if (!strcmp(mode, "relay")) {
		unsigned char far[16] = { [10] = 0xff, [11] = 0xff, [12] = 169,
					  [13] = 254, [14] = 9, [15] = 9 };

		nm_mac(secret, "NMAUTH2", nchal, NULL, nm_h64(m.nonce),
		       nm_h64(n.h.nonce), far, g_peer, mac);
	} else {
		nm_mac(strcmp(mode, "wrong") ? secret : "not-the-secret",
		       "NMAUTH2", nchal, NULL, nm_h64(m.nonce),
		       nm_h64(n.h.nonce), g_me, g_peer, mac);
	}
	rsend(fd, NM_P_AUTH_RESPONSE, 2, mac, sizeof(mac));
	if (!hs_recv(fd, NM_P_AUTH_RESPONSE, nmac, sizeof(nmac))) {
		nm_mac(secret, "NMAUTH2", chal, NULL, nm_h64(n.h.nonce),
		       nm_h64(m.nonce), g_peer, g_me, want);
		note = memcmp(want, nmac, sizeof(want)) ? "node-response-WRONG" :
							  "node-response-ok";
	}
	g_trailer = NM_MAC_LEN;		/* the node MACs every packet now */
	if (!gens_step(fd, 3))
		accepted = wait_live(fd);
	if (accepted && (!strcmp(mode, "signed") || !strcmp(mode, "inject"))) {
		/* a P_PING after the handshake, MACed with our link key */
		unsigned char key[32];
		struct nm_p_ping pg = { .cookie = nm_be64(0x4e4d) };
		int bad = !strcmp(mode, "inject");

		nm_mac(secret, "NMKEY2", chal, nchal, nm_h64(m.nonce),
		       nm_h64(n.h.nonce), g_me, g_peer, key);
		mpkt(fd, key, NM_P_PING, 4, &pg, sizeof(pg), bad);
		accepted = wait_type(fd, NM_P_PING_ACK, 3000);
		note = accepted ? "ping-acked" : "ping-not-acked";
	}
	if (!strcmp(mode, "right")) {
		f = fopen("/tmp/nmh-auth.bin", "wb");
		if (f) {
			fwrite(rec, 1, rec_len, f);
			fclose(f);
		}
	}
out:
	if (accepted)
		drain(fd, 300);	/* we close: a plain EOF */
	else
		closed = wait_close(fd, 4000);
	close(fd);
	printf("NMH auth=%s accepted=%d packets=%llu bytes=%llu closed_ms=%lld note=%s\n",
	       mode, accepted, n_pkts, n_bytes, closed, *note ? note : "-");
	return 0;
}

/* one packet with a crc32c trailer; @flip: flip a byte after the crc */
static int cpkt(int fd, uint16_t type, uint32_t seq, const void *fixed,
		uint32_t flen, const void *data, uint32_t dlen, int flip,
		int trailer)
{
	struct nm_hdr h;
	uint32_t crc;
	static unsigned char tmp[65536];

	nm_hdr_fill(&h, type, flen + dlen, seq);
	crc = crc32c(~0u, &h, sizeof(h));
	crc = crc32c(crc, fixed, flen);
	if (dlen)
		crc = crc32c(crc, data, dlen);
	crc = nm_be32(crc);
	n_pkts++;
	if (sraw(fd, &h, sizeof(h)) || sraw(fd, fixed, flen))
		return -1;
	if (dlen) {
		memcpy(tmp, data, dlen);
		if (flip)
			tmp[dlen / 2] ^= 0x10;
		if (sraw(fd, tmp, dlen))
			return -1;
	}
	return trailer ? sraw(fd, &crc, 4) : 0;
}

static int cmd_crc(const char *mode, uint64_t sector)
{
	struct node n;
	struct nm_p_hello m;
	struct nm_p_ping pg = { .cookie = nm_be64(7) };
	struct nm_p_data d;
	static unsigned char data[4096];
	long long closed = -1;
	const char *note = "-";
	int fd, accepted = 0;

	fd = conn(0);
	if (fd < 0 || read_node_hello(fd, &n)) {
		fprintf(stderr, "nmhostile: crc: no connection / no hello\n");
		return 2;
	}
	good_hello(&n, &m);
	m.features = nm_be64(NM_FEAT_INTEGRITY);
	spkt(fd, NM_P_HELLO, 0, sizeof(m), 0, &m, sizeof(m));
	if (gens_step(fd, 1))
		goto out;
	g_trailer = 4;
	/* the node's bitmap packets now carry trailers: wait_live reads
	 * header + length bytes; the trailer bytes are drained below */
	accepted = wait_live(fd);
	if (!accepted)
		goto out;
	drain(fd, 300);
	memset(data, 0xa5, sizeof(data));
	mkdata(&d, sector, sizeof(data), 0);
	if (!strcmp(mode, "good-ping")) {
		struct nm_hdr h;
		struct nm_p_ping r;
		uint32_t tr, want;
		long long end = now_ms() + 3000;

		cpkt(fd, NM_P_PING, 2, &pg, sizeof(pg), NULL, 0, 0, 1);
		note = "no-pingack";
		/* the node's packets: find the P_PING_ACK with our cookie */
		while (now_ms() < end) {
			if (rfull(fd, &h, sizeof(h), 3000))
				break;
			if (nm_h16(h.type) != NM_P_PING_ACK || nm_h32(h.length) != sizeof(r)) {
				static char skip[1 << 20];

				if (nm_h32(h.length) + 4 > sizeof(skip) ||
				    rfull(fd, skip, nm_h32(h.length) + 4, 3000))
					break;
				continue;
			}
			if (rfull(fd, &r, sizeof(r), 3000) || rfull(fd, &tr, 4, 3000))
				break;
			want = crc32c(crc32c(~0u, &h, sizeof(h)), &r, sizeof(r));
			note = nm_h32(tr) == want && r.cookie == pg.cookie ?
			       "pingack-ok" : "pingack-BAD-TRAILER";
			break;
		}
		drain(fd, 200);
		goto out;
	} else if (!strcmp(mode, "bad-ping")) {
		cpkt(fd, NM_P_PING, 2, &pg, sizeof(pg), NULL, 0, 0, 0);
		sraw(fd, "\xde\xad\xbe\xef", 4);
	} else if (!strcmp(mode, "good-data")) {
		cpkt(fd, NM_P_DATA, 2, &d, sizeof(d), data, sizeof(data), 0, 1);
		drain(fd, 1500);	/* its P_WRITE_ACK */
		goto out;
	} else if (!strcmp(mode, "bad-data")) {
		cpkt(fd, NM_P_DATA, 2, &d, sizeof(d), data, sizeof(data), 1, 1);
	} else if (!strcmp(mode, "no-trailer")) {
		cpkt(fd, NM_P_PING, 2, &pg, sizeof(pg), NULL, 0, 0, 0);
		cpkt(fd, NM_P_PING, 3, &pg, sizeof(pg), NULL, 0, 0, 1);
	}
	closed = wait_close(fd, 4000);
out:
	close(fd);
	printf("NMH crc=%s accepted=%d packets=%llu bytes=%llu closed_ms=%lld note=%s\n",
	       mode, accepted, n_pkts, n_bytes, closed, note);
	return 0;
}

static const char *const cases[] = {
	/* before the handshake completes */
	"garbage", "garbage-1m", "trunc-hdr-8", "trunc-hdr-15", "trunc-hello",
	"bad-magic", "bad-flags", "bad-seq", "first-not-hello", "type-0",
	"type-200", "type-ffff", "hello-len-huge", "hello-len-short",
	"hello-len-data", "hello-region-1000", "hello-region-0",
	"hello-region-4096", "hello-role-2", "hello-disk-bad", "hello-proto-3",
	"hello-min-gt-max", "hello-version", "hello-protocol-mismatch",
	"hello-region-mismatch", "hello-self", "hello-small", "hello-dev-0",
	"hello-both-primary", "slowloris", "drip", "many-conn", "many-hello",
	/* after a valid handshake */
	"h-garbage", "h-bad-magic", "h-bad-flags", "h-seq-skip", "h-seq-zero",
	"h-seq-replay", "h-seq-max", "h-type-0", "h-type-200", "h-type-ffff",
	"h-len-huge", "h-len-short", "h-data-len-huge", "h-data-len-over",
	"h-data-len-short", "h-data-past-end", "h-data-straddle-end",
	"h-data-sector-max", "h-data-sector-wrap", "h-data-sector-2^63",
	"h-data-huge-dev", "h-data-size-odd", "h-data-size-gt-len",
	"h-data-size-lt-len", "h-data-size-zero", "h-data-bad-flags",
	"h-data-trunc", "h-data-to-primary", "h-hello-again",
	"h-rs-data-outside", "h-rs-data-flags", "h-rs-done-outside",
	"h-rs-stop-outside", "h-rs-stop-zero",
	"h-rs-start-then-junk", "h-rs-data-misaligned", "h-rs-zero-short",
	"h-ack-unknown", "h-recv-ack",
	"h-ack-bad-status", "h-rs-ack-size0", "h-rs-ack-range",
	"h-bitmap-nbits0", "h-bitmap-offset-odd", "h-bitmap-offset-huge",
	"h-bitmap-nbits-over", "h-bitmap-len-mismatch", "h-state-bad-role",
	"h-state-bad-disk", "h-state-primary", "h-barrier-epoch",
	"h-pingflood-then-junk", "h-bitmap-all-then-junk", "h-sync-then-junk",
	"h-trunc-hdr", "h-silent", "h-read-req",
	"h-stall-hdr", "h-stall-data", "h-stall-drip", "h-progress-silent",
	NULL
};

/* pre-handshake cases; returns the fd to wait on (or -1) */
static int pre_case(const char *name, int fd, const char **note)
{
	struct node n;
	struct nm_p_hello m;
	struct nm_hdr h;
	char buf[256];
	unsigned int i;

#define IS(x) (!strcmp(name, (x)))
	for (i = 0; i < sizeof(buf); i++)
		buf[i] = (char)rnd();
	buf[0] = 0x7f;
	if (IS("garbage")) {
		n_pkts++;
		sraw(fd, buf, 64);
		return fd;
	}
	if (IS("garbage-1m")) {
		n_pkts++;
		for (i = 0; i < 4096; i++)
			if (sraw(fd, buf, sizeof(buf)))
				break;
		return fd;
	}
	if (read_node_hello(fd, &n)) {
		*note = "no-hello-from-node";
		return fd;
	}
	good_hello(&n, &m);
	nm_hdr_fill(&h, NM_P_HELLO, sizeof(m), 0);
	if (IS("trunc-hdr-8") || IS("trunc-hdr-15")) {
		n_pkts++;
		sraw(fd, &h, IS("trunc-hdr-8") ? 8 : 15);
		return -1;	/* we close: EOF, no error word */
	}
	if (IS("trunc-hello")) {
		n_pkts++;
		sraw(fd, &h, sizeof(h));
		sraw(fd, &m, 20);
		return -1;
	}
	if (IS("bad-magic"))
		h.magic = nm_be32(0x4e4d4953);
	else if (IS("bad-flags"))
		h.flags = nm_be16(1);
	else if (IS("bad-seq"))
		h.seq = nm_be32(1);
	else if (IS("first-not-hello"))
		h.type = nm_be16(NM_P_PING), h.length = nm_be32(8);
	else if (IS("type-0"))
		h.type = 0;
	else if (IS("type-200"))
		h.type = nm_be16(200);
	else if (IS("type-ffff"))
		h.type = 0xffff;
	else if (IS("hello-len-huge"))
		h.length = nm_be32(0xffffffffu);
	else if (IS("hello-len-short"))
		h.length = nm_be32(sizeof(m) - 1);
	else if (IS("hello-len-data"))
		h.type = nm_be16(NM_P_DATA);
	else if (IS("hello-region-1000"))
		m.region_sectors = nm_be32(1000);
	else if (IS("hello-region-0"))
		m.region_sectors = 0;
	else if (IS("hello-region-4096"))
		m.region_sectors = nm_be32(4096);
	else if (IS("hello-role-2"))
		m.role = nm_be32(2);
	else if (IS("hello-disk-bad"))
		m.disk = nm_be32(0x100);
	else if (IS("hello-proto-3"))
		m.protocol = nm_be32(3);
	else if (IS("hello-min-gt-max"))
		m.proto_min = nm_be32(2), m.proto_max = nm_be32(1);
	else if (IS("hello-version"))
		m.proto_min = nm_be32(NM_PROTO_MAX + 1), m.proto_max = nm_be32(NM_PROTO_MAX + 7);
	else if (IS("hello-protocol-mismatch"))
		m.protocol = nm_be32((nm_h32(n.h.protocol) + 1) % 3);
	else if (IS("hello-region-mismatch"))
		m.region_sectors = nm_be32(nm_h32(n.h.region_sectors) == 8 ? 16 : 8);
	else if (IS("hello-self"))
		m.nonce = n.h.nonce;
	else if (IS("hello-small"))
		m.dev_sectors = nm_be64(dev_sectors(&n) - 8);
	else if (IS("hello-dev-0"))
		m.dev_sectors = 0;
	else if (IS("hello-both-primary"))
		m.role = nm_be32(NM_ROLE_PRIMARY);
	n_pkts++;
	sraw(fd, &h, sizeof(h));
	sraw(fd, &m, sizeof(m));
	return fd;
#undef IS
}

static int run_case(const char *name)
{
	long long closed = -1;
	const char *note = "";
	int accepted = 0, fd, wfd, i;
	char nb[96] = "";

	n_pkts = n_bytes = 0;
	if (!strcmp(name, "many-conn") || !strcmp(name, "many-hello")) {
		/*
		 * 64 connections at once: garbage, silence, or a good hello.
		 * A good hello from the peer's address is a link (there is no
		 * secret) that holds the node until its receive timeout while
		 * we keep it open, so the case is bounded: all 64 connects start
		 * together, those the node's short accept queue has not taken
		 * within 1 s count as refused, and all are closed 3 s later.
		 */
		int fds[NMH_FLOOD], ok = 0, hello = !strcmp(name, "many-hello");

		for (i = 0; i < NMH_FLOOD; i++)
			fds[i] = conn_start();
		conn_settle(fds, NMH_FLOOD, 1000);
		for (i = 0; i < NMH_FLOOD; i++) {
			if (fds[i] < 0)
				continue;
			ok++;
			if (hello) {
				struct nm_p_hello m;
				struct node n = { .have = 0 };

				memset(&n.h, 0, sizeof(n.h));
				n.h.protocol = nm_be32(NM_PROTO_C);
				n.h.region_sectors = nm_be32(1024);
				n.h.dev_sectors = nm_be64(1ull << 40);
				good_hello(&n, &m);
				m.nonce = nm_be64(rnd());
				spkt(fds[i], NM_P_HELLO, 0, sizeof(m), 0, &m, sizeof(m));
				{
					struct nm_p_gens g;

					memset(&g, 0, sizeof(g));
					spkt(fds[i], NM_P_GENS, 0, sizeof(g), 1, &g, sizeof(g));
				}
			} else if (i % 2) {
				char g[64];

				memset(g, i, sizeof(g));
				n_pkts++;
				sraw(fds[i], g, sizeof(g));
			}
		}
		msleep(3000);
		for (i = 0; i < NMH_FLOOD; i++)
			if (fds[i] >= 0)
				close(fds[i]);
		snprintf(nb, sizeof(nb), " note=connected-%d", ok);
		printf("NMH case=%s accepted=0 packets=%llu bytes=%llu closed_ms=-1%s\n",
		       name, n_pkts, n_bytes, nb);
		goto out;
	}
	fd = conn(0);
	if (fd < 0) {
		fprintf(stderr, "nmhostile: %s: cannot connect to %s:%d: %s\n",
			name, g_host, g_port, strerror(errno));
		return 2;
	}
	if (!strcmp(name, "slowloris")) {
		wfd = fd;
		closed = wait_close(fd, 5000);
	} else if (!strcmp(name, "drip")) {
		/* our hello one byte every 400 ms: does the node give up? */
		struct node n;
		struct nm_p_hello m;
		struct { struct nm_hdr h; struct nm_p_hello m; } __attribute__((packed)) pk;
		long long t0 = now_ms();
		unsigned int k;

		if (read_node_hello(fd, &n)) {
			note = "no-hello-from-node";
		} else {
			good_hello(&n, &m);
			nm_hdr_fill(&pk.h, NM_P_HELLO, sizeof(m), 0);
			pk.m = m;
			n_pkts++;
			for (k = 0; k < 24; k++) {
				if (sraw(fd, (char *)&pk + k, 1))
					break;
				msleep(400);
				{
					struct pollfd p = { .fd = fd, .events = POLLIN };
					char c;

					if (poll(&p, 1, 0) == 1 &&
					    recv(fd, &c, 1, MSG_DONTWAIT) == 0)
						break;
				}
			}
			snprintf(nb, sizeof(nb), " note=held-%lldms-%ubytes", now_ms() - t0, k);
		}
		closed = wait_close(fd, 3000);
	} else if (!strncmp(name, "h-", 2)) {
		struct node n;
		struct nm_p_hello m;

		memset(&m, 0, sizeof(m));
		if (!strcmp(name, "h-data-huge-dev")) {
			if (read_node_hello(fd, &n)) {
				note = "no-hello-from-node";
				goto report;
			}
			good_hello(&n, &m);
			m.dev_sectors = nm_be64(1ull << 40);
			if (spkt(fd, NM_P_HELLO, 0, sizeof(m), 0, &m, sizeof(m)))
				goto report;
			if (!gens_step(fd, 1))
				accepted = wait_live(fd);
		} else if (hostile_hello(fd, &n, &m, &accepted)) {
			note = "handshake-failed";
			goto report;
		}
		if (!accepted) {
			note = "hello-not-accepted";
			goto report;
		}
		h_case(name, fd, &n);
		if (!strcmp(name, "h-trunc-hdr") || !strcmp(name, "h-data-trunc")) {
			drain(fd, 300);
			goto report;	/* we close */
		}
		/*
		 * a silent peer: up to three timeouts (a node that restarts
		 * its clock at a partial read shows as twice the timeout)
		 */
		closed = wait_close(fd, nm_silent_case(name) ?
				    3 * g_tms + 3000 : 4000);
	} else {
		wfd = pre_case(name, fd, &note);
		if (wfd >= 0)
			closed = wait_close(fd, 4000);
	}
report:
	close(fd);
	if (g_hnote[0] && !*note)
		note = g_hnote;
	printf("NMH case=%s accepted=%d packets=%llu bytes=%llu closed_ms=%lld%s%s%s\n",
	       name, accepted, n_pkts, n_bytes, closed, *note ? " note=" : "",
	       note, nb);
	g_hnote[0] = '\0';
out:
	fflush(stdout);
	t_pkts += n_pkts;
	t_bytes += n_bytes;
	return 0;
}

/* SUnreclaim of /proc/meminfo in kB, or -1 */
static long long sunreclaim_kb(void)
{
	char line[128];
	long long v = -1;
	FILE *f = fopen("/proc/meminfo", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "SUnreclaim: %lld kB", &v) == 1)
			break;
	fclose(f);
	return v;
}

/*
 * flood: valid packets as fast as the node takes them, our reads throttled
 * (see the top of the file).  Each packet is built whole in @out and sent
 * without blocking, so the slow reads keep their schedule.
 */
static int cmd_flood(const char *kind, int seconds)
{
	static char out[sizeof(struct nm_hdr) + sizeof(struct nm_p_data) + 512];
	static char in[2048];
	struct node n;
	struct nm_p_hello m;
	int accepted = 0, data = !strcmp(kind, "data"), fd;
	long long end, next_read, before, after;
	size_t off = 0, len = 0;
	uint32_t seq = 2;
	uint64_t i = 0, span;

	if (!data && strcmp(kind, "ping")) {
		fprintf(stderr, "nmhostile: flood KIND is ping or data\n");
		return 2;
	}
	g_rcvbuf = 4096;
	fd = conn(0);
	if (fd < 0) {
		fprintf(stderr, "nmhostile: cannot connect to %s:%d: %s\n",
			g_host, g_port, strerror(errno));
		return 2;
	}
	memset(&m, 0, sizeof(m));
	if (hostile_hello(fd, &n, &m, &accepted) || !accepted) {
		printf("NMH flood kind=%s accepted=0 packets=0 sunreclaim_kb=-1 -1\n",
		       kind);
		close(fd);
		return 0;
	}
	/* 4 KiB apart, over at most 4 MiB of the device: none overlaps one in flight */
	span = dev_sectors(&n) / 8;
	if (span > 1024)
		span = 1024;
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
	before = sunreclaim_kb();
	end = now_ms() + seconds * 1000LL;
	next_read = now_ms();
	while (now_ms() < end) {
		struct pollfd p = { .fd = fd, .events = POLLOUT };
		long long t = now_ms();
		ssize_t r;

		if (t >= next_read) {
			r = recv(fd, in, sizeof(in), MSG_DONTWAIT);
			if (r == 0 || (r < 0 && errno != EAGAIN && errno != EINTR))
				break;	/* the node closed the link */
			next_read = t + 250;
		}
		if (off == len) {	/* the next packet */
			struct nm_hdr *h = (struct nm_hdr *)out;

			if (data) {
				struct nm_p_data *d = (struct nm_p_data *)(h + 1);

				mkdata(d, (i % span) * 8, 512, 0);
				d->id = nm_be64(i + 1);
				memset(d + 1, (int)i, 512);
				nm_hdr_fill(h, NM_P_DATA, sizeof(*d) + 512, seq);
				len = sizeof(*h) + sizeof(*d) + 512;
			} else {
				struct nm_p_ping *pg = (struct nm_p_ping *)(h + 1);

				pg->cookie = nm_be64(i);
				nm_hdr_fill(h, NM_P_PING, sizeof(*pg), seq);
				len = sizeof(*h) + sizeof(*pg);
			}
			off = 0;
			seq++;
			i++;
			n_pkts++;
		}
		r = send(fd, out + off, len - off, MSG_DONTWAIT | MSG_NOSIGNAL);
		if (r > 0) {
			off += r;
			n_bytes += r;
			continue;
		}
		if (r < 0 && errno != EAGAIN && errno != EINTR)
			break;
		t = next_read - now_ms();
		poll(&p, 1, t > 0 ? (int)t : 0);
	}
	after = sunreclaim_kb();
	printf("NMH flood kind=%s accepted=1 packets=%llu sunreclaim_kb=%lld %lld\n",
	       kind, n_pkts, before, after);
	fflush(stdout);
	close(fd);
	return 0;
}

/*
 * A whole packet in one send, as a node sends an ack: a node's fast ack
 * path (nm_fastack.c) hands a packet that arrives in pieces to its thread.
 */
static int spkt_whole(int fd, uint16_t type, uint32_t seq, const void *p,
		      uint32_t len)
{
	unsigned char b[sizeof(struct nm_hdr) + 64];
	struct nm_hdr h;

	if (len > sizeof(b) - sizeof(h))
		return -1;
	nm_hdr_fill(&h, type, len, seq);
	memcpy(b, &h, sizeof(h));
	memcpy(b + sizeof(h), p, len);
	n_pkts++;
	return sraw(fd, b, sizeof(h) + len);
}

/*
 * ackkind, stall: a valid handshake as the node's secondary, uptodate, with
 * the node's own data generations echoed back (the same data: no resync),
 * then our P_BITMAP_DONE (seq 2: nothing out of sync here).  0 once the
 * link is up; the node's protocol in *@proto.
 */
static int secondary_link(int fd, uint32_t *proto)
{
	struct nm_p_count c = { .count = 0 };
	struct nm_p_hello m;
	struct nm_p_gens g;
	struct nm_hdr h;
	struct node n;

	g_secondary = 1;
	if (read_node_hello(fd, &n))
		return -1;
	good_hello(&n, &m);
	*proto = nm_h32(n.h.protocol);
	/* the node sends its P_GENS right after the hellos: echo it */
	if (spkt(fd, NM_P_HELLO, 0, sizeof(m), 0, &m, sizeof(m)) ||
	    rfull(fd, &h, sizeof(h), 5000) || nm_h16(h.type) != NM_P_GENS ||
	    nm_h32(h.length) != sizeof(g) || rfull(fd, &g, sizeof(g), 2000) ||
	    spkt(fd, NM_P_GENS, 0, sizeof(g), 1, &g, sizeof(g)) ||
	    !wait_live(fd) ||
	    spkt(fd, NM_P_BITMAP_DONE, 0, sizeof(c), 2, &c, sizeof(c)))
		return -1;
	return 0;
}

/* A packet: its header into @h (unless @have_hdr), its body into @buf. */
static int read_pkt(int fd, struct nm_hdr *h, char *buf, size_t cap,
		    int have_hdr)
{
	uint32_t len;

	if (!have_hdr && rfull(fd, h, sizeof(*h), 3000))
		return -1;
	len = nm_h32(h->length) + g_trailer;
	return len > cap || rfull(fd, buf, len, 3000) ? -1 : 0;
}

/* secondary_link on a new connection: its fd; -2: no connection, -1: refused */
static int secondary_conn(uint32_t *proto)
{
	int fd = conn(0);

	if (fd < 0) {
		fprintf(stderr, "nmhostile: cannot connect to %s:%d: %s\n",
			g_host, g_port, strerror(errno));
		return -2;
	}
	if (secondary_link(fd, proto)) {
		close(fd);
		return -1;
	}
	return fd;
}

/*
 * ackkind: a secondary that answers a write with a P_RECV_ACK where a
 * P_WRITE_ACK is due ("wrong"), or as it should ("right").  See the top of
 * the file.
 */
static int cmd_ackkind(const char *kind, int seconds)
{
	static char buf[NM_BITMAP_MAX_BITS / 8 + 64 + NM_MAX_DATA];
	int wrong = !strcmp(kind, "wrong"), closed = 0, fd;
	unsigned long long writes = 0, ackdisk = 0;
	struct nm_hdr h;
	uint32_t seq = 3, proto;
	long long end;

	if (!wrong && strcmp(kind, "right")) {
		fprintf(stderr, "nmhostile: ackkind KIND is right or wrong\n");
		return 2;
	}
	fd = secondary_conn(&proto);
	if (fd == -2)
		return 2;
	if (fd < 0)
		goto refused;
	printf("NMH ackkind kind=%s linked\n", kind);
	fflush(stdout);
	end = now_ms() + seconds * 1000LL;
	while (!closed && now_ms() < end) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		uint16_t t;

		if (poll(&p, 1, (int)(end - now_ms())) != 1)
			break;	/* SECONDS over, the link still open */
		if (read_pkt(fd, &h, buf, sizeof(buf), 0)) {
			closed = 1;
			break;
		}
		t = nm_h16(h.type);
		if (getenv("NMH_DEBUG"))
			fprintf(stderr, "nmhostile: type %u length %u\n", t,
				nm_h32(h.length));
		if (t == NM_P_PING || t == NM_P_SYNC) {
			/* a ping, or a flush request: stable at once here */
			if (spkt_whole(fd, t == NM_P_PING ? NM_P_PING_ACK :
					   NM_P_SYNC_ACK, seq++, buf,
					   sizeof(struct nm_p_ping)))
				closed = 1;
		} else if (t == NM_P_RS_DATA || t == NM_P_RS_ZERO) {
			/* a resync into us (the node may resync its peer
			 * first): each region taken as written */
			struct nm_p_data *d = (struct nm_p_data *)buf;
			struct nm_p_rs_ack ra;

			memset(&ra, 0, sizeof(ra));
			ra.sector = d->sector;
			ra.size = d->size;
			if (spkt_whole(fd, NM_P_RS_ACK, seq++, &ra, sizeof(ra)))
				closed = 1;
		} else if (t == NM_P_DATA || t == NM_P_ZERO) {
			/* P_ZERO carries a struct nm_p_data too */
			struct nm_p_data *d = (struct nm_p_data *)buf;
			int disk = !!(nm_h32(d->flags) & NM_DF_ACK_DISK);
			uint16_t at = 0;
			struct nm_p_ack a;

			writes++;
			ackdisk += disk;
			if (proto == NM_PROTO_C || disk)
				at = wrong ? NM_P_RECV_ACK : NM_P_WRITE_ACK;
			else if (proto == NM_PROTO_B)
				at = NM_P_RECV_ACK;
			memset(&a, 0, sizeof(a));
			a.id = d->id;
			if (at && spkt_whole(fd, at, seq++, &a, sizeof(a)))
				closed = 1;
		}
	}
	printf("NMH ackkind kind=%s accepted=1 writes=%llu ackdisk=%llu closed=%d\n",
	       kind, writes, ackdisk, closed);
	fflush(stdout);
	close(fd);
	return 0;
refused:
	printf("NMH ackkind kind=%s accepted=0 writes=0 ackdisk=0 closed=1\n",
	       kind);
	close(fd);
	return 0;
}

/*
 * stall: a secondary that stops reading after the handshake, then reads
 * what the node still sends.  See the top of the file.
 */
static int cmd_stall(const char *gofile, int seconds)
{
	static char buf[NM_BITMAP_MAX_BITS / 8 + 64 + NM_MAX_DATA];
	unsigned long long datas = 0;
	struct nm_hdr h;
	int closed = 0, first, fd;
	uint32_t seq = 3, len, proto;
	long long end;

	g_rcvbuf = 4096;
	fd = secondary_conn(&proto);
	if (fd == -2)
		return 2;
	if (fd < 0)
		goto refused;
	printf("NMH stall linked\n");
	fflush(stdout);
	/* answer pings up to the first write's header, kept in h */
	end = now_ms() + seconds * 1000LL;
	for (;;) {
		struct pollfd p = { .fd = fd, .events = POLLIN };

		if (now_ms() >= end || poll(&p, 1, 200) < 0)
			goto refused;
		if (p.revents == 0)
			continue;
		if (rfull(fd, &h, sizeof(h), 3000))
			goto refused;
		if (nm_h16(h.type) == NM_P_DATA)
			break;	/* its body is read after GOFILE */
		len = nm_h32(h.length) + g_trailer;
		if (len > sizeof(buf) || rfull(fd, buf, len, 3000))
			goto refused;
		if (nm_h16(h.type) == NM_P_PING &&
		    spkt_whole(fd, NM_P_PING_ACK, seq++, buf,
			       sizeof(struct nm_p_ping)))
			goto refused;
	}
	printf("NMH stall held length=%u\n", nm_h32(h.length));
	fflush(stdout);
	while (access(gofile, F_OK) && now_ms() < end)
		usleep(50000);
	end = now_ms() + 10000;
	for (first = 1; now_ms() < end; first = 0) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		struct nm_p_data *d = (struct nm_p_data *)buf;
		uint32_t size, i;
		uint16_t t;

		if (!first && poll(&p, 1, (int)(end - now_ms())) != 1)
			break;
		if (read_pkt(fd, &h, buf, sizeof(buf), first)) {
			closed = 1;
			break;
		}
		t = nm_h16(h.type);
		if (t != NM_P_DATA || nm_h32(h.length) < sizeof(*d))
			continue;
		size = nm_h32(d->size);
		if (size > nm_h32(h.length) - sizeof(*d))
			size = nm_h32(h.length) - sizeof(*d);
		for (i = 1; i < size; i++)
			if (buf[sizeof(*d) + i] != buf[sizeof(*d)])
				break;
		datas++;
		if (size && i == size)
			printf("NMH stall data sector=%llu size=%u fill=%u\n",
			       (unsigned long long)nm_h64(d->sector), size,
			       (unsigned char)buf[sizeof(*d)]);
		else
			printf("NMH stall data sector=%llu size=%u fill=mixed\n",
			       (unsigned long long)nm_h64(d->sector), size);
		fflush(stdout);
	}
	printf("NMH stall accepted=1 datas=%llu closed=%d\n", datas, closed);
	close(fd);
	return 0;
refused:
	printf("NMH stall accepted=0 datas=0 closed=1\n");
	close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	int i, ncase = 0, rc = 0, j, found;

	signal(SIGPIPE, SIG_IGN);
	if (getenv("NMH_TIMEOUT_MS"))
		g_tms = atoi(getenv("NMH_TIMEOUT_MS"));
	if (g_tms < 100)
		g_tms = 6000;
	if (argc == 2 && !strcmp(argv[1], "list")) {
		for (i = 0; cases[i]; i++)
			puts(cases[i]);
		return 0;
	}
	if (argc == 4 && !strcmp(argv[1], "addkey")) {
		long k = syscall(SYS_add_key, "logon", argv[2], argv[3],
				 strlen(argv[3]), KEY_SPEC_USER_KEYRING);

		if (k < 0) {
			fprintf(stderr, "nmhostile: add_key logon %s: %s\n",
				argv[2], strerror(errno));
			return 1;
		}
		printf("%ld\n", k);
		return 0;
	}
	if (argc == 6 && (!strcmp(argv[1], "auth") || !strcmp(argv[1], "crc"))) {
		g_host = argv[2];
		g_port = atoi(argv[3]);
		rng ^= (uint64_t)time(NULL) * 0x2545f4914f6cdd1dull ^ (uint64_t)getpid();
		if (!strcmp(argv[1], "auth"))
			return cmd_auth(argv[4], argv[5]);
		return cmd_crc(argv[4], strtoull(argv[5], NULL, 0));
	}
	if (argc == 6 && !strcmp(argv[1], "flood")) {
		g_host = argv[2];
		g_port = atoi(argv[3]);
		return cmd_flood(argv[4], atoi(argv[5]));
	}
	if (argc == 6 && !strcmp(argv[1], "ackkind")) {
		g_host = argv[2];
		g_port = atoi(argv[3]);
		return cmd_ackkind(argv[4], atoi(argv[5]));
	}
	if (argc == 6 && !strcmp(argv[1], "stall")) {
		g_host = argv[2];
		g_port = atoi(argv[3]);
		return cmd_stall(argv[4], atoi(argv[5]));
	}
	if (argc < 5 || strcmp(argv[1], "run")) {
		fprintf(stderr, "usage: nmhostile list | run HOST PORT CASE... | auth HOST PORT MODE SECRET | crc HOST PORT MODE SECTOR | addkey DESC SECRET | flood HOST PORT ping|data SECONDS | ackkind HOST PORT right|wrong SECONDS | stall HOST PORT GOFILE SECONDS\n");
		return 2;
	}
	g_host = argv[2];
	g_port = atoi(argv[3]);
	rng ^= (uint64_t)time(NULL) * 0x2545f4914f6cdd1dull ^ (uint64_t)getpid();
	for (i = 4; i < argc; i++) {
		for (found = 0, j = 0; cases[j]; j++)
			found |= !strcmp(cases[j], argv[i]);
		if (!found) {
			fprintf(stderr, "nmhostile: unknown case %s\n", argv[i]);
			return 2;
		}
		if (run_case(argv[i]))
			rc = 2;
		ncase++;
	}
	printf("NMH total cases=%d packets=%llu bytes=%llu\n", ncase, t_pkts, t_bytes);
	return rc;
}
