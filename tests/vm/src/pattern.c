/*
 * pattern: seeded random-offset, mixed-size writes and their verification.
 *
 *   pattern write  DEV SEED BYTES_TOTAL [options]
 *   pattern verify DEV SEED BYTES_TOTAL [options]
 *
 * options:
 *   --bs-min N     smallest write (default 512; multiple of 512)
 *   --bs-max N     largest write (default 1048576); sizes are log-uniform
 *   --size N       only use the first N bytes of DEV (default: whole device)
 *   --offset N     start of the used region (default 0; multiple of 512)
 *   --direct       O_DIRECT (write and verify)
 *   --fsync        buffered writes, fsync every 16 writes and at the end
 *   --sync         O_DIRECT|O_DSYNC (implies --direct)
 *   --no-fsync     no fsync at the end: with --sync each write's own
 *                  completion is its acknowledgement, and exit 0 says
 *                  exactly that every write completed
 *   --quiet
 *
 * The sequence of (offset, length) is a function of SEED, BYTES_TOTAL, the
 * region size and the bs limits; write and verify must get the same values.
 * Every 512-byte sector written holds data determined by (SEED, write index,
 * sector): a 32-byte header {magic, seed, write index, sector} then
 * pseudo-random bytes.  verify replays the sequence to know which write last
 * touched every sector and checks each such sector; sectors never written are
 * not checked.  Exit 0 = ok, 1 = mismatch, 2 = usage/IO error.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/fs.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#define SECT 512
#define MAGIC 0x4e4d504154544e31ULL /* "NMPATTN1" */

static uint64_t rng_next(uint64_t *s)
{
	/* splitmix64 */
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static void fill_sector(unsigned char *p, uint64_t seed, uint32_t widx, uint64_t sector)
{
	uint64_t h[4] = { MAGIC, seed, widx, sector };
	uint64_t st = seed * 0x100000001b3ULL ^ ((uint64_t)widx << 40) ^ sector;
	int i;

	memcpy(p, h, sizeof(h));
	for (i = 32; i < SECT; i += 8) {
		uint64_t v = rng_next(&st);

		memcpy(p + i, &v, 8);
	}
}

struct op {
	uint64_t off, len;
};

#include "vmutil.h"

/* generates the op sequence; returns count */
static size_t gen_ops(struct op **ops_out, uint64_t seed, uint64_t total, uint64_t region,
		      uint64_t base, uint64_t bmin, uint64_t bmax)
{
	uint64_t st = seed ^ 0x5eed5eed5eed5eedULL, done = 0;
	size_t n = 0, cap = 1024;
	struct op *ops = malloc(cap * sizeof(*ops));
	double lmin = __builtin_log((double)bmin), lmax = __builtin_log((double)bmax);

	if (bmax > region)
		bmax = region;
	while (done < total && ops) {
		double u = (double)(rng_next(&st) >> 11) / 9007199254740992.0;
		uint64_t len = (uint64_t)__builtin_exp(lmin + u * (lmax - lmin));
		uint64_t off;

		len = (len / SECT) * SECT;
		if (len < bmin)
			len = bmin;
		if (len > bmax)
			len = bmax;
		if (len > total - done)
			len = ((total - done + SECT - 1) / SECT) * SECT;
		off = (rng_next(&st) % ((region - len) / SECT + 1)) * SECT;
		if (n == cap) {
			cap *= 2;
			ops = realloc(ops, cap * sizeof(*ops));
			if (!ops)
				break;
		}
		ops[n].off = base + off;
		ops[n].len = len;
		n++;
		done += len;
	}
	if (!ops) {
		fprintf(stderr, "pattern: out of memory\n");
		exit(2);
	}
	*ops_out = ops;
	return n;
}

int main(int argc, char **argv)
{
	uint64_t bmin = 512, bmax = 1 << 20, region = 0, base = 0, seed, total, devsize = 0;
	int direct = 0, dofsync = 0, dsync = 0, nofsync = 0, quiet = 0, writing, fd, flags, i;
	struct op *ops;
	size_t nops, k;
	unsigned char *buf, *exp;
	struct stat stt;

	if (argc < 5) {
		fprintf(stderr, "usage: pattern write|verify DEV SEED BYTES_TOTAL [--bs-min N] "
				"[--bs-max N] [--size N] [--offset N] [--direct|--fsync|--sync] [--no-fsync] [--quiet]\n");
		return 2;
	}
	writing = !strcmp(argv[1], "write");
	if (!writing && strcmp(argv[1], "verify")) {
		fprintf(stderr, "pattern: mode must be write or verify\n");
		return 2;
	}
	seed = strtoull(argv[3], NULL, 0);
	total = parse_size(argv[4]);
	for (i = 5; i < argc; i++) {
		if (!strcmp(argv[i], "--bs-min") && i + 1 < argc)
			bmin = parse_size(argv[++i]);
		else if (!strcmp(argv[i], "--bs-max") && i + 1 < argc)
			bmax = parse_size(argv[++i]);
		else if (!strcmp(argv[i], "--size") && i + 1 < argc)
			region = parse_size(argv[++i]);
		else if (!strcmp(argv[i], "--offset") && i + 1 < argc)
			base = parse_size(argv[++i]);
		else if (!strcmp(argv[i], "--direct"))
			direct = 1;
		else if (!strcmp(argv[i], "--fsync"))
			dofsync = 1;
		else if (!strcmp(argv[i], "--sync"))
			dsync = direct = 1;
		else if (!strcmp(argv[i], "--no-fsync"))
			nofsync = 1;
		else if (!strcmp(argv[i], "--quiet"))
			quiet = 1;
		else {
			fprintf(stderr, "pattern: unknown option %s\n", argv[i]);
			return 2;
		}
	}
	if (bmin < SECT || bmin % SECT || bmax % SECT || bmax < bmin || base % SECT || !total) {
		fprintf(stderr, "pattern: bad sizes\n");
		return 2;
	}
	flags = writing ? O_WRONLY : O_RDONLY;
	if (direct)
		flags |= O_DIRECT;
	if (dsync)
		flags |= O_DSYNC;
	fd = open(argv[2], flags);
	if (fd < 0) {
		fprintf(stderr, "pattern: open %s: %s\n", argv[2], strerror(errno));
		return 2;
	}
	if (fstat(fd, &stt) == 0 && S_ISBLK(stt.st_mode)) {
		if (ioctl(fd, BLKGETSIZE64, &devsize)) {
			perror("pattern: BLKGETSIZE64");
			return 2;
		}
	} else {
		devsize = (uint64_t)lseek(fd, 0, SEEK_END);
	}
	if (!region)
		region = devsize - base;
	region = (region / SECT) * SECT;
	if (base + region > devsize || region < bmin) {
		fprintf(stderr, "pattern: region %" PRIu64 "+%" PRIu64 " does not fit device size %" PRIu64 "\n",
			base, region, devsize);
		return 2;
	}
	nops = gen_ops(&ops, seed, total, region, base, bmin, bmax);
	if (posix_memalign((void **)&buf, 4096, bmax > (1 << 20) ? bmax : (1 << 20)) ||
	    posix_memalign((void **)&exp, 4096, SECT))
		return 2;

	if (writing) {
		uint64_t bytes = 0;

		for (k = 0; k < nops; k++) {
			uint64_t s0 = ops[k].off / SECT, ns = ops[k].len / SECT, j;
			ssize_t w;

			for (j = 0; j < ns; j++)
				fill_sector(buf + j * SECT, seed, (uint32_t)(k + 1), s0 + j);
			w = pwrite(fd, buf, ops[k].len, (off_t)ops[k].off);
			if (w != (ssize_t)ops[k].len) {
				fprintf(stderr, "pattern: write #%zu %" PRIu64 "+%" PRIu64 ": %s\n", k,
					ops[k].off, ops[k].len, w < 0 ? strerror(errno) : "short write");
				return 2;
			}
			bytes += ops[k].len;
			if (dofsync && (k % 16) == 15 && fsync(fd)) {
				perror("pattern: fsync");
				return 2;
			}
		}
		if (!nofsync && fsync(fd)) {
			perror("pattern: fsync");
			return 2;
		}
		close(fd);
		if (!quiet)
			printf("pattern: wrote %zu writes, %" PRIu64 " bytes, seed %" PRIu64 "\n", nops,
			       bytes, seed);
		return 0;
	} else {
		/* last writer of every sector of the region */
		uint64_t nsect = region / SECT, s, checked = 0, bad = 0;
		uint32_t *last = calloc(nsect, sizeof(uint32_t));

		if (!last) {
			fprintf(stderr, "pattern: out of memory\n");
			return 2;
		}
		for (k = 0; k < nops; k++) {
			uint64_t s0 = (ops[k].off - base) / SECT, j;

			for (j = 0; j < ops[k].len / SECT; j++)
				last[s0 + j] = (uint32_t)(k + 1);
		}
		for (s = 0; s < nsect;) {
			uint64_t chunk = (1 << 20) / SECT, j;
			ssize_t r;

			if (chunk > nsect - s)
				chunk = nsect - s;
			for (j = 0; j < chunk && !last[s + j]; j++)
				;
			if (j == chunk) { /* nothing written here: skip the read */
				s += chunk;
				continue;
			}
			r = pread(fd, buf, chunk * SECT, (off_t)(base + s * SECT));
			if (r != (ssize_t)(chunk * SECT)) {
				fprintf(stderr, "pattern: read %" PRIu64 ": %s\n", base + s * SECT,
					r < 0 ? strerror(errno) : "short read");
				return 2;
			}
			for (j = 0; j < chunk; j++) {
				uint64_t sec = base / SECT + s + j;

				if (!last[s + j])
					continue;
				checked++;
				fill_sector(exp, seed, last[s + j], sec);
				if (memcmp(exp, buf + j * SECT, SECT)) {
					uint64_t got[4];

					memcpy(got, buf + j * SECT, sizeof(got));
					if (bad < 10) {
						if (got[0] == MAGIC)
							fprintf(stderr, "pattern: sector %" PRIu64 ": expected write #%u, found write #%" PRIu64 " of seed %" PRIu64 " for sector %" PRIu64 "\n",
								sec, last[s + j], got[2], got[1], got[3]);
						else
							fprintf(stderr, "pattern: sector %" PRIu64 ": expected write #%u, found foreign data\n",
								sec, last[s + j]);
					}
					bad++;
				}
			}
			s += chunk;
		}
		if (bad) {
			fprintf(stderr, "pattern: %" PRIu64 " of %" PRIu64 " sectors bad\n", bad, checked);
			return 1;
		}
		if (!quiet)
			printf("pattern: verified %" PRIu64 " sectors of %zu writes, seed %" PRIu64 "\n",
			       checked, nops, seed);
		return 0;
	}
}
