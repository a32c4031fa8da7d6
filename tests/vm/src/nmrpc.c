/*
 * nmrpc: minimal remote shell between the two test VMs.
 *
 *   nmrpc serve ADDR PORT                 accept connections, fork per
 *                                         connection, run each command with
 *                                         /bin/sh -c
 *   nmrpc run HOST PORT CMD [--wait SECS] run CMD on HOST; its stdout/stderr
 *                                         come back on ours; exits with its
 *                                         status (128+sig if killed, 255 on
 *                                         protocol or connect failure)
 *
 * Protocol: client sends u32 length (big endian) + command bytes.  The server
 * answers with frames: u8 type (1 = stdout, 2 = stderr, 3 = exit) + u32 length
 * + payload; type 3 carries a u32 wait() status and ends the exchange.
 * The client retries connect for --wait seconds (default 60) while the peer
 * boots.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_CMD (1 << 20)

static int write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

static int read_all(int fd, void *buf, size_t len)
{
	char *p = buf;

	while (len) {
		ssize_t n = read(fd, p, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		if (n == 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

static int send_frame(int fd, uint8_t type, const void *data, uint32_t len)
{
	unsigned char hdr[5];
	uint32_t be = htonl(len);

	hdr[0] = type;
	memcpy(hdr + 1, &be, 4);
	if (write_all(fd, hdr, 5))
		return -1;
	return len ? write_all(fd, data, len) : 0;
}

static void serve_one(int s)
{
	uint32_t len;
	char *cmd;
	int out[2], err[2];
	pid_t pid;
	struct pollfd pf[2];
	char buf[65536];
	int open_fds = 2, status = 0, reaped = 0;
	uint32_t st;

	if (read_all(s, &len, 4))
		_exit(1);
	len = ntohl(len);
	if (len > MAX_CMD)
		_exit(1);
	cmd = malloc(len + 1);
	if (!cmd || read_all(s, cmd, len))
		_exit(1);
	cmd[len] = 0;
	if (pipe(out) || pipe(err))
		_exit(1);
	pid = fork();
	if (pid < 0)
		_exit(1);
	if (pid == 0) {
		int nul = open("/dev/null", 0);

		if (nul >= 0)
			dup2(nul, 0);
		dup2(out[1], 1);
		dup2(err[1], 2);
		close(out[0]);
		close(err[0]);
		close(out[1]);
		close(err[1]);
		close(s);
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(127);
	}
	close(out[1]);
	close(err[1]);
	pf[0].fd = out[0];
	pf[1].fd = err[0];
	pf[0].events = pf[1].events = POLLIN;
	/*
	 * Forward output until both pipes close, or until the shell has exited
	 * and the pipes are drained (a background job it left behind may keep
	 * them open: do not wait for it).
	 */
	while (open_fds) {
		int i, r, exited = 0;

		if (!reaped) {
			pid_t w = waitpid(pid, &status, WNOHANG);

			if (w == pid)
				reaped = 1;
		}
		exited = reaped;
		r = poll(pf, 2, exited ? 0 : 100);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (r == 0) {
			if (exited)
				break;
			continue;
		}
		for (i = 0; i < 2; i++) {
			ssize_t n;

			if (pf[i].fd < 0 || !(pf[i].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			n = read(pf[i].fd, buf, sizeof(buf));
			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0) {
				close(pf[i].fd);
				pf[i].fd = -1;
				open_fds--;
				continue;
			}
			/* peer gone: keep draining so the child is not blocked */
			send_frame(s, (uint8_t)(i + 1), buf, (uint32_t)n);
		}
	}
	while (!reaped && waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	st = htonl((uint32_t)status);
	send_frame(s, 3, &st, 4);
	close(s);
	_exit(0);
}

static int do_serve(const char *addr, int port)
{
	struct sockaddr_in sa;
	int one = 1;
	int ls = socket(AF_INET, SOCK_STREAM, 0);

	if (ls < 0) {
		perror("nmrpc: socket");
		return 1;
	}
	setsockopt(ls, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	memset(&sa, 0, sizeof(sa));
	sa.sin_family = AF_INET;
	sa.sin_port = htons((uint16_t)port);
	if (inet_pton(AF_INET, addr, &sa.sin_addr) != 1) {
		fprintf(stderr, "nmrpc: bad address %s\n", addr);
		return 1;
	}
	if (bind(ls, (struct sockaddr *)&sa, sizeof(sa)) || listen(ls, 16)) {
		perror("nmrpc: bind/listen");
		return 1;
	}
	signal(SIGPIPE, SIG_IGN);
	for (;;) {
		int s = accept(ls, NULL, NULL);
		pid_t pid;

		while (waitpid(-1, NULL, WNOHANG) > 0)
			;
		if (s < 0) {
			if (errno == EINTR)
				continue;
			perror("nmrpc: accept");
			sleep(1);
			continue;
		}
		setsockopt(s, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		pid = fork();
		if (pid == 0) {
			close(ls);
			serve_one(s);
		}
		close(s);
	}
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/*
 * connect() bounded by the deadline (at most 3 s per attempt): a blocking
 * connect to a peer that just died can hang for tens of seconds in SYN
 * retries before the neighbour entry fails.
 */
static int connect_deadline(int s, const struct sockaddr_in *sa, double deadline)
{
	int fl = fcntl(s, F_GETFL), err = 0;
	socklen_t el = sizeof(err);
	struct pollfd pf;
	double left = deadline - now();

	if (left > 3)
		left = 3;
	if (left < 0.2)
		left = 0.2;
	fcntl(s, F_SETFL, fl | O_NONBLOCK);
	if (connect(s, (const struct sockaddr *)sa, sizeof(*sa)) == 0)
		goto ok;
	if (errno != EINPROGRESS)
		return -1;
	pf.fd = s;
	pf.events = POLLOUT;
	if (poll(&pf, 1, (int)(left * 1000)) <= 0) {
		errno = ETIMEDOUT;
		return -1;
	}
	if (getsockopt(s, SOL_SOCKET, SO_ERROR, &err, &el) || err) {
		errno = err ? err : EIO;
		return -1;
	}
ok:
	fcntl(s, F_SETFL, fl);
	return 0;
}

static int do_run(const char *host, int port, const char *cmd, double wait_s)
{
	struct sockaddr_in sa;
	double deadline = now() + wait_s;
	int s = -1, one = 1;
	uint32_t len = (uint32_t)strlen(cmd), be;
	char buf[65536];

	memset(&sa, 0, sizeof(sa));
	sa.sin_family = AF_INET;
	sa.sin_port = htons((uint16_t)port);
	if (inet_pton(AF_INET, host, &sa.sin_addr) != 1) {
		fprintf(stderr, "nmrpc: bad address %s\n", host);
		return 255;
	}
	for (;;) {
		s = socket(AF_INET, SOCK_STREAM, 0);
		if (s < 0) {
			perror("nmrpc: socket");
			return 255;
		}
		if (connect_deadline(s, &sa, deadline) == 0)
			break;
		close(s);
		if (now() > deadline) {
			fprintf(stderr, "nmrpc: cannot connect to %s:%d: %s\n", host, port,
				strerror(errno));
			return 255;
		}
		usleep(250000);
	}
	setsockopt(s, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	be = htonl(len);
	if (write_all(s, &be, 4) || write_all(s, cmd, len)) {
		perror("nmrpc: send");
		return 255;
	}
	for (;;) {
		unsigned char hdr[5];
		uint32_t flen;

		if (read_all(s, hdr, 5)) {
			fprintf(stderr, "nmrpc: connection to %s lost\n", host);
			return 255;
		}
		memcpy(&flen, hdr + 1, 4);
		flen = ntohl(flen);
		if (hdr[0] == 3) {
			uint32_t st;

			if (flen != 4 || read_all(s, &st, 4))
				return 255;
			st = ntohl(st);
			if (WIFEXITED(st))
				return WEXITSTATUS(st);
			if (WIFSIGNALED(st))
				return 128 + WTERMSIG(st);
			return 255;
		}
		if ((hdr[0] != 1 && hdr[0] != 2) || flen > sizeof(buf)) {
			fprintf(stderr, "nmrpc: protocol error\n");
			return 255;
		}
		if (read_all(s, buf, flen)) {
			fprintf(stderr, "nmrpc: connection to %s lost\n", host);
			return 255;
		}
		write_all(hdr[0], buf, flen);
	}
}

static void usage(void)
{
	fprintf(stderr, "usage: nmrpc serve ADDR PORT\n"
			"       nmrpc run HOST PORT CMD [--wait SECS]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	if (argc >= 4 && !strcmp(argv[1], "serve"))
		return do_serve(argv[2], atoi(argv[3]));
	if (argc >= 5 && !strcmp(argv[1], "run")) {
		double w = 60;

		if (argc == 7 && !strcmp(argv[5], "--wait"))
			w = atof(argv[6]);
		else if (argc != 5)
			usage();
		return do_run(argv[2], atoi(argv[3]), argv[4], w);
	}
	usage();
	return 2;
}
