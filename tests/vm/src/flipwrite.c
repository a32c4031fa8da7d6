/*
 * flipwrite: O_DIRECT writes from a buffer that another process keeps
 * changing while the writes are in flight (an application that reuses its
 * buffer too early, or a page modified under writeback).  What reaches
 * each disk is then undefined, as with md raid1; what must not happen is
 * that a replicating device takes it for a corrupted packet (review F18).
 *
 *   flipwrite DEV SECONDS [--offset N] [--size N] [--bs N]
 *
 * The buffer (--bs bytes, default 65536, shared anonymous memory) is
 * written at random --bs-aligned offsets of [--offset, --offset + --size)
 * (defaults 0 and 16 MiB) for SECONDS; a child process flips one byte after
 * another in it meanwhile.  Prints "flipwrite: W writes, F flips"; exit 1
 * on a failed write.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static unsigned long long num(const char *s)
{
	char *e;
	unsigned long long v = strtoull(s, &e, 0);

	if (e == s || *e) {
		fprintf(stderr, "flipwrite: bad number %s\n", s);
		exit(2);
	}
	return v;
}

int main(int argc, char **argv)
{
	unsigned long long off = 0, size = 16 << 20, bs = 65536, writes = 0;
	volatile unsigned long long *flips;
	unsigned char *buf;
	double end;
	pid_t pid;
	int fd, i;

	if (argc < 3) {
		fprintf(stderr, "usage: flipwrite DEV SECONDS [--offset N] [--size N] [--bs N]\n");
		return 2;
	}
	for (i = 3; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], "--offset"))
			off = num(argv[i + 1]);
		else if (!strcmp(argv[i], "--size"))
			size = num(argv[i + 1]);
		else if (!strcmp(argv[i], "--bs"))
			bs = num(argv[i + 1]);
		else {
			fprintf(stderr, "flipwrite: unknown option %s\n", argv[i]);
			return 2;
		}
	}
	if (!bs || bs % 4096 || size < bs || off % 4096) {
		fprintf(stderr, "flipwrite: --bs a multiple of 4096, --size >= --bs\n");
		return 2;
	}
	buf = mmap(NULL, bs + 4096, PROT_READ | PROT_WRITE,
		   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (buf == MAP_FAILED) {
		perror("flipwrite: mmap");
		return 1;
	}
	flips = (volatile unsigned long long *)(buf + bs);
	for (i = 0; i < (int)bs; i++)
		buf[i] = (unsigned char)rand();
	fd = open(argv[1], O_WRONLY | O_DIRECT);
	if (fd < 0) {
		perror(argv[1]);
		return 1;
	}
	pid = fork();
	if (pid < 0) {
		perror("flipwrite: fork");
		return 1;
	}
	if (!pid) {
		volatile unsigned char *b = buf;
		unsigned long long n = 0;

		for (;;) {
			b[(n * 4093) % bs] ^= 0x5a;
			if (!(++n & 1023))
				*flips = n;
		}
	}
	srand(getpid());
	end = now() + strtod(argv[2], NULL);
	while (now() < end) {
		unsigned long long o = off + (unsigned long long)rand() % (size / bs) * bs;

		if (pwrite(fd, buf, bs, o) != (ssize_t)bs) {
			perror("flipwrite: pwrite");
			kill(pid, SIGKILL);
			return 1;
		}
		writes++;
	}
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	printf("flipwrite: %llu writes, %llu flips\n", writes, *flips);
	return close(fd) ? 1 : 0;
}
