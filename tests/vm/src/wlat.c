/*
 * wlat: O_DIRECT write latency / throughput.
 *
 *   wlat DEV BS COUNT [--sync] [--seek-random SEED] [--offset N]
 *
 * Writes COUNT blocks of BS bytes with O_DIRECT (plus O_DSYNC with --sync),
 * sequentially from --offset (wrapping at the end of the device) or at random
 * BS-aligned offsets with --seek-random.  Prints one line:
 *   wlat: bs=4096 count=1000 total_s=0.523 mb_s=7.83 p50_us=450 p99_us=900 max_us=1200
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>


#include "vmutil.h"

int main(int argc, char **argv)
{
	uint64_t bs, count, devsize = 0, off = 0, start_off = 0, rs = 0, i, nblk;
	int flags = O_WRONLY | O_DIRECT, randm = 0, fd, a;
	double *lat, t0, t1;
	unsigned char *buf;
	struct stat st;

	if (argc < 4) {
		fprintf(stderr, "usage: wlat DEV BS COUNT [--sync] [--seek-random SEED] [--offset N]\n");
		return 2;
	}
	bs = parse_size(argv[2]);
	count = strtoull(argv[3], NULL, 0);
	for (a = 4; a < argc; a++) {
		if (!strcmp(argv[a], "--sync"))
			flags |= O_DSYNC;
		else if (!strcmp(argv[a], "--seek-random") && a + 1 < argc) {
			randm = 1;
			rs = strtoull(argv[++a], NULL, 0);
		} else if (!strcmp(argv[a], "--offset") && a + 1 < argc)
			start_off = parse_size(argv[++a]);
		else {
			fprintf(stderr, "wlat: unknown option %s\n", argv[a]);
			return 2;
		}
	}
	if (!bs || bs % 512 || !count) {
		fprintf(stderr, "wlat: BS must be a multiple of 512, COUNT > 0\n");
		return 2;
	}
	fd = open(argv[1], flags);
	if (fd < 0) {
		fprintf(stderr, "wlat: open %s: %s\n", argv[1], strerror(errno));
		return 2;
	}
	if (fstat(fd, &st) == 0 && S_ISBLK(st.st_mode))
		ioctl(fd, BLKGETSIZE64, &devsize);
	else
		devsize = (uint64_t)st.st_size;
	if (devsize < start_off + bs) {
		fprintf(stderr, "wlat: device too small\n");
		return 2;
	}
	nblk = (devsize - start_off) / bs;
	lat = calloc(count, sizeof(double));
	if (!lat || posix_memalign((void **)&buf, 4096, bs))
		return 2;
	for (i = 0; i < bs; i++)
		buf[i] = (unsigned char)(i * 131 + 7);
	t0 = vm_now();
	for (i = 0; i < count; i++) {
		double s = vm_now();
		ssize_t w;

		if (randm) {
			rs = rs * 6364136223846793005ULL + 1442695040888963407ULL;
			off = start_off + ((rs >> 17) % nblk) * bs;
		} else {
			off = start_off + (i % nblk) * bs;
		}
		memcpy(buf, &i, sizeof(i));
		w = pwrite(fd, buf, bs, (off_t)off);
		if (w != (ssize_t)bs) {
			fprintf(stderr, "wlat: write at %llu: %s\n", (unsigned long long)off,
				w < 0 ? strerror(errno) : "short write");
			return 1;
		}
		lat[i] = (vm_now() - s) * 1e6;
	}
	t1 = vm_now();
	qsort(lat, count, sizeof(double), vm_cmp_double);
	printf("wlat: bs=%llu count=%llu total_s=%.3f mb_s=%.2f p50_us=%.0f p99_us=%.0f max_us=%.0f\n",
	       (unsigned long long)bs, (unsigned long long)count, t1 - t0,
	       (double)(bs * count) / (t1 - t0) / 1e6, lat[count / 2],
	       lat[(count * 99) / 100 < count ? (count * 99) / 100 : count - 1], lat[count - 1]);
	close(fd);
	return 0;
}
