/*
 * holdwrite: one O_DIRECT write, then the buffer is the
 * program's again, as for any application: it fills it with other bytes
 * and keeps it (for fault-orphansend.sh).
 *
 *   holdwrite DEV OFFSET SIZE BEFORE AFTER READY
 *
 * Writes SIZE bytes (a multiple of 4096) of the byte BEFORE (a number,
 * 0..255) at OFFSET of DEV (O_DIRECT) in one write, fills the same buffer
 * with the byte AFTER, then writes "ok"
 * (or "error ERRNO") to the file READY and waits until killed.  A device
 * that still sends the buffer's pages after the write ended sends AFTER's
 * bytes, which nobody wrote.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PG 4096
#define MAXSZ (1 << 20)

static void ready(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (!f) {
		perror(path);
		exit(1);
	}
	fputs(text, f);
	fclose(f);
}

int main(int argc, char **argv)
{
	char msg[64];
	size_t size;
	void *buf;
	ssize_t n;
	int fd;

	if (argc != 7) {
		fprintf(stderr, "usage: holdwrite DEV OFFSET SIZE BEFORE AFTER READY\n");
		return 2;
	}
	size = strtoul(argv[3], NULL, 0);
	if (!size || size % PG || size > MAXSZ) {
		fprintf(stderr, "holdwrite: SIZE %s: a multiple of 4096 up to 1 MiB\n", argv[3]);
		return 2;
	}
	if (posix_memalign(&buf, PG, size)) {
		fprintf(stderr, "holdwrite: no memory\n");
		return 1;
	}
	memset(buf, atoi(argv[4]), size);
	fd = open(argv[1], O_WRONLY | O_DIRECT);
	if (fd < 0) {
		perror(argv[1]);
		return 1;
	}
	n = pwrite(fd, buf, size, strtoll(argv[2], NULL, 0));
	if (n == (ssize_t)size) {
		memset(buf, atoi(argv[5]), size);
		ready(argv[6], "ok\n");
	} else {
		snprintf(msg, sizeof(msg), "error %d\n", n < 0 ? errno : 0);
		ready(argv[6], msg);
	}
	for (;;)
		pause();
}
