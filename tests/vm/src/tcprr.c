/*
 * tcprr: the network floor of a replicated write, measured over loopback
 * TCP in the same boot as the benchmark (issue 12, "physical limits").
 *
 *   tcprr rr     [--req N] [--resp N] [--count N] [--depth D] [--conns C] [--port P]
 *   tcprr stream [--bytes N] [--chunk N] [--port P]
 *
 * rr: a server process and a client in one run; the client sends N bytes
 * (default 4096, a 4 KiB write) and waits for an M-byte answer (default
 * 32, an ack), COUNT times (default 2000, the first 10% discarded as
 * warm-up), TCP_NODELAY on both.  Prints one line:
 *   tcprr: rr req=4096 resp=32 count=1800 p50_us=.. p99_us=.. mean_us=.. tps=..
 * With --depth D > 1 the client keeps D requests outstanding (it sends the
 * next request as each answer arrives, as a replicating node keeps QD32
 * writes in flight on one connection) and the line gives the rate after
 * the first 10% of answers (bench.sh measures the CPU around the run):
 *   tcprr: rr req=4096 resp=32 depth=32 count=18000 tps=..
 * With --conns C > 1 (and --depth) the D requests and COUNT exchanges are
 * shared by C connections, each with its own client and server process
 * (several data connections of one replicated device); the line gives the
 * sum of their rates:
 *   tcprr: rr req=4096 resp=32 depth=32 conns=2 count=18000 tps=..
 * stream: one connection, BYTES (default 256 MiB) in CHUNK writes (default
 * 1 MiB); prints the receiver's rate:
 *   tcprr: stream bytes=268435456 chunk=1048576 mb_s=..
 * Exit 0, or 1 with a message on any socket error.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "vmutil.h"


static void die(const char *what)
{
	fprintf(stderr, "tcprr: %s: %s\n", what, strerror(errno));
	exit(1);
}

static int xfer(int fd, void *buf, size_t len, int out)
{
	char *p = buf;

	while (len) {
		ssize_t r = out ? send(fd, p, len, MSG_NOSIGNAL) : recv(fd, p, len, 0);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		p += r;
		len -= (size_t)r;
	}
	return 0;
}

static void nodelay(int fd)
{
	int one = 1;

	if (setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one)))
		die("TCP_NODELAY");
}

/* Listen on 127.0.0.1:port; returns the listening socket. */
static int listener(int port)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(port),
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	int fd = socket(AF_INET, SOCK_STREAM, 0), one = 1;

	if (fd < 0)
		die("socket");
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&a, sizeof(a)) || listen(fd, 64))
		die("bind/listen 127.0.0.1");
	return fd;
}

static int dial(int port)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(port),
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	if (fd < 0)
		die("socket");
	if (connect(fd, (struct sockaddr *)&a, sizeof(a)))
		die("connect 127.0.0.1");
	return fd;
}

/*
 * One connection's client at depth: DEPTH requests in flight, the next sent
 * as each answer comes in; returns the rate after the first 10% of answers.
 */
static double rr_depth(int fd, char *buf, uint64_t req, uint64_t resp,
		       uint64_t depth, uint64_t count)
{
	uint64_t skip = count / 10, sent = 0, n;
	double t0 = 0;

	for (; sent < depth; sent++)
		if (xfer(fd, buf, req, 1))
			die("client rr");
	for (n = 0; n < count; n++) {
		if (xfer(fd, buf, resp, 0))
			die("client rr");
		if (n == skip)
			t0 = vm_now();
		if (sent < count) {
			if (xfer(fd, buf, req, 1))
				die("client rr");
			sent++;
		}
	}
	return (count - 1 - skip) / (vm_now() - t0);
}

static uint64_t num(const char *s)
{
	uint64_t v = parse_size(s);

	if (!v) {
		fprintf(stderr, "tcprr: bad number \"%s\"\n", s);
		exit(1);
	}
	return v;
}

/*
 * C connections at DEPTH / C each: a server and a client process per
 * connection; each client writes its rate down a pipe and the sum is
 * printed.  Returns the exit status.
 */
static int rr_conns(int lfd, int port, char *buf, uint64_t req, uint64_t resp,
		    uint64_t depth, uint64_t count, uint64_t conns)
{
	uint64_t c, each = count / conns;
	double sum = 0, tps;
	int pfd[2], st, bad = 0, fd;
	pid_t pid;

	if (pipe(pfd))
		die("pipe");
	for (c = 0; c < conns; c++) {
		pid = fork();
		if (pid < 0)
			die("fork");
		if (pid)
			continue;
		if (fork()) {	/* client */
			close(lfd);
			fd = dial(port);
			nodelay(fd);
			tps = rr_depth(fd, buf, req, resp, depth / conns, each);
			if (write(pfd[1], &tps, sizeof(tps)) != sizeof(tps))
				die("pipe write");
			close(fd);
			wait(&st);
			_exit(!WIFEXITED(st) || WEXITSTATUS(st));
		}
		fd = accept(lfd, NULL, NULL);	/* server */
		if (fd < 0)
			die("accept");
		nodelay(fd);
		for (uint64_t n = 0; n < each; n++)
			if (xfer(fd, buf, req, 0) || xfer(fd, buf, resp, 1))
				die("server rr");
		_exit(0);
	}
	close(pfd[1]);
	close(lfd);
	for (c = 0; c < conns; c++) {
		if (read(pfd[0], &tps, sizeof(tps)) != sizeof(tps)) {
			bad = 1;
			break;
		}
		sum += tps;
	}
	while (wait(&st) > 0)
		bad |= !WIFEXITED(st) || WEXITSTATUS(st);
	if (bad) {
		fprintf(stderr, "tcprr: a connection failed\n");
		return 1;
	}
	printf("tcprr: rr req=%llu resp=%llu depth=%llu conns=%llu count=%llu tps=%.0f\n",
	       (unsigned long long)req, (unsigned long long)resp, (unsigned long long)depth,
	       (unsigned long long)conns, (unsigned long long)(each - 1 - each / 10) * conns, sum);
	return 0;
}

int main(int argc, char **argv)
{
	uint64_t req = 4096, resp = 32, count = 2000, bytes = 256ull << 20, chunk = 1 << 20;
	uint64_t depth = 1, conns = 1;
	int port = 7901, rr, lfd, fd, st, i;
	char *buf;
	pid_t pid;

	if (argc < 2 || (strcmp(argv[1], "rr") && strcmp(argv[1], "stream"))) {
		fprintf(stderr, "usage: tcprr rr [--req N] [--resp N] [--count N] [--depth D] [--conns C] [--port P]\n"
				"       tcprr stream [--bytes N] [--chunk N] [--port P]\n");
		return 1;
	}
	rr = !strcmp(argv[1], "rr");
	for (i = 2; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], "--req"))
			req = num(argv[i + 1]);
		else if (!strcmp(argv[i], "--resp"))
			resp = num(argv[i + 1]);
		else if (!strcmp(argv[i], "--count"))
			count = num(argv[i + 1]);
		else if (!strcmp(argv[i], "--depth"))
			depth = num(argv[i + 1]);
		else if (!strcmp(argv[i], "--conns"))
			conns = num(argv[i + 1]);
		else if (!strcmp(argv[i], "--bytes"))
			bytes = num(argv[i + 1]);
		else if (!strcmp(argv[i], "--chunk"))
			chunk = num(argv[i + 1]);
		else if (!strcmp(argv[i], "--port"))
			port = (int)num(argv[i + 1]);
		else
			break;
	}
	if (i != argc || count < 10 || port > 65535 || depth > 4096 || depth >= count ||
	    conns > 64 || (conns > 1 && (!rr || depth % conns || depth / conns < 2))) {
		fprintf(stderr, "tcprr: bad arguments\n");
		return 1;
	}
	buf = calloc(1, req > chunk ? req : chunk);
	if (!buf)
		die("calloc");
	lfd = listener(port);
	if (conns > 1)
		return rr_conns(lfd, port, buf, req, resp, depth, count, conns);
	pid = fork();
	if (pid < 0)
		die("fork");
	if (!pid) {		/* server */
		fd = accept(lfd, NULL, NULL);
		if (fd < 0)
			die("accept");
		nodelay(fd);
		if (rr) {
			for (uint64_t n = 0; n < count; n++)
				if (xfer(fd, buf, req, 0) || xfer(fd, buf, resp, 1))
					die("server rr");
		} else {
			double t0 = 0;

			for (uint64_t got = 0; got < bytes;) {
				ssize_t r = recv(fd, buf, chunk, 0);

				if (r <= 0)
					die("server stream");
				if (!got)
					t0 = vm_now();
				got += (uint64_t)r;
			}
			printf("tcprr: stream bytes=%llu chunk=%llu mb_s=%.1f\n",
			       (unsigned long long)bytes, (unsigned long long)chunk,
			       bytes / (vm_now() - t0) / 1e6);
		}
		fflush(stdout);
		_exit(0);
	}
	close(lfd);
	fd = dial(port);
	nodelay(fd);
	if (rr && depth > 1) {
		uint64_t skip = count / 10;

		printf("tcprr: rr req=%llu resp=%llu depth=%llu count=%llu tps=%.0f\n",
		       (unsigned long long)req, (unsigned long long)resp, (unsigned long long)depth,
		       (unsigned long long)(count - 1 - skip),
		       rr_depth(fd, buf, req, resp, depth, count));
	} else if (rr) {
		uint64_t skip = count / 10, n, m = count - skip;
		double *lat = calloc(m, sizeof(*lat)), sum = 0, t;

		if (!lat)
			die("calloc");
		for (n = 0; n < count; n++) {
			t = vm_now();
			if (xfer(fd, buf, req, 1) || xfer(fd, buf, resp, 0))
				die("client rr");
			if (n >= skip)
				lat[n - skip] = vm_now() - t;
		}
		for (n = 0; n < m; n++)
			sum += lat[n];
		qsort(lat, m, sizeof(*lat), vm_cmp_double);
		printf("tcprr: rr req=%llu resp=%llu count=%llu p50_us=%.0f p99_us=%.0f mean_us=%.0f tps=%.0f\n",
		       (unsigned long long)req, (unsigned long long)resp, (unsigned long long)m,
		       lat[m / 2] * 1e6, lat[m * 99 / 100] * 1e6, sum / m * 1e6, m / sum);
		free(lat);
	} else {
		for (uint64_t sent = 0; sent < bytes; sent += chunk)
			if (xfer(fd, buf, bytes - sent < chunk ? bytes - sent : chunk, 1))
				die("client stream");
	}
	close(fd);
	if (waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st))
		return 1;
	free(buf);
	return 0;
}
