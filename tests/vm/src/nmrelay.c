/*
 * nmrelay: a man in the middle of a netmirror link, for sec-mitm.sh.  A
 * TCP relay on 127.0.0.1 (so both nodes still see the addresses they
 * expect) that rewrites the handshake (dm-mirror-net/nm_wire.h) as an
 * attacker on the path could:
 *
 *   nmrelay LPORT DPORT MODE
 *
 * Every connection accepted on 127.0.0.1:LPORT (from the "client" node) is
 * joined to a new connection to 127.0.0.1:DPORT (the "server" node).
 * MODE:
 *   pass           bytes as they come (the control)
 *   flip-client    the client's data is the newer; the relay turns the
 *   flip-server    resync around: it holds both P_GENS, then tells the
 *                  newer node that the other's data descends from its own
 *                  (a fresh generation whose bitmap generation is the
 *                  newer node's current one), and the other node that the newer one has no
 *                  generation at all (roles decide: a primary there is the
 *                  source).  The newer node's changes are then overwritten
 *                  by a resync from the older one.
 *   down-flip-client, down-flip-server   the same, and both P_HELLOs say
 *                  protocol version 8 at most (a downgrade to a protocol
 *                  that did not authenticate the generations).
 * After both P_GENS the relay passes bytes as they come.  Prints one line
 * per relayed link:
 *   NMRELAY conn mode=M gens=0|1 closed
 * (gens=1: the P_GENS were rewritten).  Runs until killed.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../../../dm-mirror-net/nm_wire.h"

static int g_flip, g_down, g_newer_client;

static int wall(int fd, const void *p, size_t n)
{
	const char *b = p;

	while (n) {
		ssize_t w = send(fd, b, n, MSG_NOSIGNAL);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		b += w;
		n -= (size_t)w;
	}
	return 0;
}

static int rall(int fd, void *p, size_t n)
{
	char *b = p;

	while (n) {
		ssize_t r = recv(fd, b, n, 0);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		b += r;
		n -= (size_t)r;
	}
	return 0;
}

/* one handshake packet: header and payload, no trailer */
struct pkt {
	struct nm_hdr h;
	unsigned char p[512];
	uint32_t len;
};

static int rpkt(int fd, struct pkt *k)
{
	if (rall(fd, &k->h, sizeof(k->h)))
		return -1;
	k->len = nm_h32(k->h.length);
	if (nm_h32(k->h.magic) != NM_MAGIC || k->len > sizeof(k->p))
		return -1;
	return rall(fd, k->p, k->len);
}

static int wpkt(int fd, const struct pkt *k)
{
	if (wall(fd, &k->h, sizeof(k->h)))
		return -1;
	return wall(fd, k->p, k->len);
}

static uint64_t rnd64(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return ((uint64_t)t.tv_nsec * 0x9e3779b97f4a7c15ull) ^
	       ((uint64_t)getpid() << 32) ^ 0x5bd1e995u;
}

/* the newer node is told the other's data descends from its own */
static void forge_descendant(struct nm_p_gens *g)
{
	uint64_t cur = nm_h64(g->cur);
	uint32_t fl = nm_h32(g->flags) & (NM_GF_ORD_SENT | NM_GF_ORD_MASK);

	/* its current one as the other's bitmap one: a plain bitmap resync */
	g->cur = nm_be64(rnd64() | 1);
	g->bitmap = nm_be64(cur);
	g->history[0] = 0;
	g->history[1] = 0;
	g->changed = 0;
	g->flags = nm_be32(fl);
}

/* the older node is told the newer one has no generation */
static void forge_blank(struct nm_p_gens *g)
{
	uint32_t fl = nm_h32(g->flags) & (NM_GF_ORD_SENT | NM_GF_ORD_MASK);

	memset(g, 0, sizeof(*g));
	g->flags = nm_be32(fl);
}

/*
 * The handshake of one relayed link: packets from @c (client) and @s
 * (server) until both P_GENS; returns 1 if they were rewritten, 0 if the
 * link goes on unchanged, -1 if it ended.
 */
static int handshake(int c, int s)
{
	struct pkt gc, gs, k;
	int have_c = 0, have_s = 0;

	for (;;) {
		struct pollfd p[2] = {
			{ .fd = c, .events = have_c ? 0 : POLLIN },
			{ .fd = s, .events = have_s ? 0 : POLLIN },
		};
		int i;

		if (poll(p, 2, -1) < 0 && errno != EINTR)
			return -1;
		for (i = 0; i < 2; i++) {
			int from = i ? s : c, to = i ? c : s;

			if (!(p[i].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			if (rpkt(from, &k))
				return -1;
			if (nm_h16(k.h.type) == NM_P_HELLO && g_down &&
			    k.len == sizeof(struct nm_p_hello)) {
				struct nm_p_hello *m = (void *)k.p;

				if (nm_h32(m->proto_max) > 8)
					m->proto_max = nm_be32(8);
			}
			if (nm_h16(k.h.type) != NM_P_GENS ||
			    k.len != sizeof(struct nm_p_gens)) {
				if (wpkt(to, &k))
					return -1;
				continue;
			}
			if (i) {
				gs = k;
				have_s = 1;
			} else {
				gc = k;
				have_c = 1;
			}
		}
		if (have_c && have_s)
			break;
	}
	/* each node gets a forgery of its own P_GENS */
	if (g_newer_client) {
		forge_descendant((struct nm_p_gens *)gc.p);
		forge_blank((struct nm_p_gens *)gs.p);
	} else {
		forge_descendant((struct nm_p_gens *)gs.p);
		forge_blank((struct nm_p_gens *)gc.p);
	}
	if (wpkt(c, &gc) || wpkt(s, &gs))
		return -1;
	return 1;
}

static void pipe_both(int c, int s)
{
	static char buf[65536];

	for (;;) {
		struct pollfd p[2] = {
			{ .fd = c, .events = POLLIN },
			{ .fd = s, .events = POLLIN },
		};
		int i;

		if (poll(p, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			return;
		}
		for (i = 0; i < 2; i++) {
			ssize_t r;

			if (!(p[i].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			r = recv(p[i].fd, buf, sizeof(buf), 0);
			if (r < 0 && errno == EINTR)
				continue;
			if (r <= 0 || wall(i ? c : s, buf, (size_t)r))
				return;
		}
	}
}

static int listen_on(int port)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(port) };
	int one = 1, fd = socket(AF_INET, SOCK_STREAM, 0);

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd < 0)
		return -1;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&a, sizeof(a)) || listen(fd, 8)) {
		close(fd);
		return -1;
	}
	return fd;
}

static int connect_to(int port)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(port) };
	int one = 1, fd = socket(AF_INET, SOCK_STREAM, 0);

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd < 0)
		return -1;
	if (connect(fd, (struct sockaddr *)&a, sizeof(a))) {
		close(fd);
		return -1;
	}
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	return fd;
}

int main(int argc, char **argv)
{
	const char *mode;
	int lfd, dport;

	if (argc != 4) {
		fprintf(stderr, "usage: nmrelay LPORT DPORT pass|flip-client|flip-server|down-flip-client|down-flip-server\n");
		return 2;
	}
	mode = argv[3];
	dport = atoi(argv[2]);
	g_down = !strncmp(mode, "down-", 5);
	g_flip = g_down || !strncmp(mode, "flip-", 5);
	g_newer_client = g_flip && strstr(mode, "-client") != NULL;
	if (strcmp(mode, "pass") && !g_flip) {
		fprintf(stderr, "nmrelay: unknown mode %s\n", mode);
		return 2;
	}
	signal(SIGPIPE, SIG_IGN);
	signal(SIGCHLD, SIG_IGN);	/* no zombies */
	lfd = listen_on(atoi(argv[1]));
	if (lfd < 0) {
		perror("nmrelay: listen");
		return 2;
	}
	for (;;) {
		int c = accept(lfd, NULL, NULL), s, one = 1;

		if (c < 0) {
			if (errno == EINTR)
				continue;
			perror("nmrelay: accept");
			return 2;
		}
		if (fork() == 0) {
			int gens = 0;

			prctl(PR_SET_PDEATHSIG, SIGKILL);
			close(lfd);
			setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
			s = connect_to(dport);
			if (s >= 0) {
				gens = g_flip ? handshake(c, s) : 0;
				if (gens >= 0)
					pipe_both(c, s);
				close(s);
			}
			printf("NMRELAY conn mode=%s gens=%d closed\n", mode,
			       gens > 0);
			fflush(stdout);
			close(c);
			_exit(0);
		}
		close(c);
	}
}
