/*
 * slowfwd: a slow link between two netmirror nodes in one VM, as a TCP
 * forwarder on 127.0.0.1 that paces every direction to a rate, and can
 * stop forwarding one direction while it keeps the connections open (a
 * peer that is "there" but answers nothing).
 *
 *   slowfwd [--rate KIBS] [--queue BYTES] [--ctl FILE] [--rcvbuf BYTES]
 *           LPORT:DPORT:TO:FROM ...
 *
 * For each mapping: listen on 127.0.0.1:LPORT; every connection accepted
 * there is joined to a new connection to 127.0.0.1:DPORT.  The bytes going
 * to DPORT's side are named TO, those coming back FROM (e.g. "7791:7790:b:a":
 * node a connects to 7791 for node b listening on 7790; what flows to b is
 * "b").  Each direction of each connection is paced to KIBS KiB/s (0: as
 * fast as it goes; default 0), in chunks of at most 16 KiB, from a queue
 * of up to --queue bytes (default 16 KiB, at most 64 MiB) that it fills as
 * fast as the sender sends: a bottleneck with that much buffer.
 * --ctl FILE: read at each turn; a direction whose name is one of its
 * words is stalled (nothing read, nothing passed on, nothing closed) until
 * the word goes.  --rcvbuf: SO_RCVBUF of the forwarder's
 * sockets (default: the kernel's autotuning).
 * A connection that ends on one side is shut down on the other.  Runs until
 * killed; its children die with it (PR_SET_PDEATHSIG).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "vmutil.h"

#define CHUNK	16384
#define QMAX_LIMIT	(64 << 20)

static unsigned long rate_kibs;
static const char *ctl;
static int rcvbuf;
static size_t qmax = CHUNK;

static void die(const char *what)
{
	fprintf(stderr, "slowfwd: %s: %s\n", what, strerror(errno));
	exit(1);
}

static void child_setup(void)
{
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	signal(SIGCHLD, SIG_IGN);
}

static int tcp_socket(void)
{
	int s = socket(AF_INET, SOCK_STREAM, 0), one = 1;

	if (s < 0)
		die("socket");
	setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	setsockopt(s, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if (rcvbuf && setsockopt(s, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf)))
		die("SO_RCVBUF");
	return s;
}

static struct sockaddr_in lo_addr(int port)
{
	struct sockaddr_in a = { .sin_family = AF_INET };

	a.sin_port = htons(port);
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	return a;
}

/* is @name a word of the control file? */
static int stalled(const char *name)
{
	char buf[256], *w, *save;
	ssize_t n;
	int fd;

	if (!ctl)
		return 0;
	fd = open(ctl, O_RDONLY);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = 0;
	for (w = strtok_r(buf, " \t\n", &save); w; w = strtok_r(NULL, " \t\n", &save))
		if (!strcmp(w, name))
			return 1;
	return 0;
}

static void sleep_s(double s)
{
	struct timespec ts;

	if (s <= 0)
		return;
	ts.tv_sec = (time_t)s;
	ts.tv_nsec = (long)((s - (double)ts.tv_sec) * 1e9);
	nanosleep(&ts, NULL);
}

/*
 * Copy @src to @dst until either ends, then shut both down.  What is read
 * waits in a queue of up to @qmax bytes (the bottleneck's buffer: read as
 * fast as it comes while there is room) and leaves paced to the rate.
 */
static void pump(int src, int dst, const char *name)
{
	static char q[QMAX_LIMIT];
	double base = vm_now(), rate = rate_kibs * 1024.0;
	unsigned long long done = 0;
	size_t head = 0, len = 0;	/* ring: @len bytes from @head */
	ssize_t n;

	for (;;) {
		struct pollfd p = { .fd = src, .events = POLLIN };
		double now = vm_now(), due = base + done / (rate ? rate : 1);
		int ms = 100;

		if (stalled(name)) {
			sleep_s(0.02);
			continue;
		}
		if (len && rate && due > now)
			ms = (int)((due - now) * 1000) + 1;
		else if (len)
			ms = 0;
		if (len >= qmax)
			p.events = 0;
		if (poll(&p, 1, ms) < 0)
			break;
		if (p.revents & (POLLIN | POLLHUP | POLLERR)) {
			size_t tail = (head + len) % qmax;
			size_t room = qmax - len;

			if (room > qmax - tail)
				room = qmax - tail;
			if (room > CHUNK)
				room = CHUNK;
			n = read(src, q + tail, room);
			if (n <= 0)
				break;
			if (!len && vm_now() - due > 0.05) {
				base = vm_now();	/* was idle: no burst after it */
				done = 0;
			}
			len += n;
		}
		now = vm_now();
		due = base + done / (rate ? rate : 1);
		if (len && (!rate || now >= due)) {
			size_t w = len, c = qmax - head;

			if (w > c)
				w = c;
			if (w > CHUNK)
				w = CHUNK;
			n = write(dst, q + head, w);
			if (n <= 0)
				break;
			head = (head + n) % qmax;
			len -= n;
			done += n;
		}
	}
	shutdown(src, SHUT_RDWR);
	shutdown(dst, SHUT_RDWR);
	exit(0);
}

static void serve(int lport, int dport, const char *to, const char *from)
{
	struct sockaddr_in la = lo_addr(lport), da = lo_addr(dport);
	int l = tcp_socket();

	if (bind(l, (struct sockaddr *)&la, sizeof(la)) || listen(l, 4))
		die("bind/listen");
	for (;;) {
		int a = accept(l, NULL, NULL), d;

		if (a < 0) {
			if (errno == EINTR)
				continue;
			die("accept");
		}
		d = tcp_socket();
		if (connect(d, (struct sockaddr *)&da, sizeof(da))) {
			close(a);	/* the far side is not listening: refuse */
			close(d);
			continue;
		}
		if (!fork()) {
			child_setup();
			close(l);
			pump(a, d, to);
		}
		if (!fork()) {
			child_setup();
			close(l);
			pump(d, a, from);
		}
		close(a);
		close(d);
	}
}

int main(int argc, char **argv)
{
	int i, n = 0;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--rate") && i + 1 < argc)
			rate_kibs = strtoul(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--ctl") && i + 1 < argc)
			ctl = argv[++i];
		else if (!strcmp(argv[i], "--rcvbuf") && i + 1 < argc)
			rcvbuf = (int)parse_size(argv[++i]);
		else if (!strcmp(argv[i], "--queue") && i + 1 < argc)
			qmax = parse_size(argv[++i]);
		else
			break;
	}
	if (i == argc || qmax < CHUNK || qmax > QMAX_LIMIT) {
		fprintf(stderr, "usage: slowfwd [--rate KIBS] [--queue BYTES] [--ctl FILE] [--rcvbuf BYTES] LPORT:DPORT:TO:FROM ...\n");
		return 2;
	}
	signal(SIGCHLD, SIG_IGN);
	signal(SIGPIPE, SIG_IGN);
	for (; i < argc; i++, n++) {
		char to[32], from[32];
		int lp, dp;

		if (sscanf(argv[i], "%d:%d:%31[^:]:%31s", &lp, &dp, to, from) != 4) {
			fprintf(stderr, "slowfwd: bad mapping '%s'\n", argv[i]);
			return 2;
		}
		if (!fork()) {
			child_setup();
			serve(lp, dp, to, from);
		}
	}
	for (;;)
		pause();
}
