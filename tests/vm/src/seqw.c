/*
 * seqw: a writer that records which of its writes completed, and the
 * verifier of exactly those writes (durability and ordering tests).
 *
 *   seqw write  DEV SEED --size N [options]
 *   seqw verify DEV SEED --size N --log PREFIX [options]
 *
 * options:
 *   --size N      bytes of DEV used, from --offset (N / --bs: a power of two)
 *   --offset N    start of the used area (default 0)
 *   --bs N        bytes per write (default 4096; multiple of 512)
 *   --jobs J      J writer processes (default 1); job j writes the sequence
 *                 numbers j, j+J, j+2J, ... one at a time (the next is
 *                 submitted only when the previous one completed)
 *   --count N     at most N writes in all (default: one per block of the area)
 *   --log PREFIX  write: after each completed write, job j appends "SEQ\n"
 *                 to PREFIX.j; verify: checks every SEQ listed in PREFIX.j
 *                 (j < J), complete lines only
 *   --sync        O_DIRECT|O_DSYNC (durable when it returns; FUA or a flush)
 *                 (default O_DIRECT)
 *   --sync-every N   only every Nth write (s % N == N - 1) O_DIRECT|O_DSYNC,
 *                 the others plain O_DIRECT
 *   --buffered N  write: through the page cache (no O_DIRECT), and fsync(2)
 *                 after every N writes of the job; the N writes are logged
 *                 (acknowledged) only when that fsync returned 0 (a block
 *                 device's fsync writes its dirty pages back and flushes
 *                 the device's cache: blkdev_fsync).  The first failed
 *                 write or fsync ends the job: a later fsync may return 0
 *                 for pages whose write back failed before (errseq), so
 *                 nothing after a failure is taken as acknowledged.  The
 *                 writes after the job's last fsync are not logged.
 *                 With --linear and J jobs, the jobs' blocks interleave:
 *                 each fsync writes back adjacent dirty pages of all jobs
 *                 (one 4 KiB bio per page, under one plug).
 *   --fdatasync   with --buffered: fdatasync(2) instead of fsync(2)
 *   --ack-check DEV   with --buffered: right after each fsync/sync_file_range
 *                 returned, read its writes back from DEV (O_DIRECT: e.g.
 *                 the secondary's backing device) and append the sequence
 *                 number of each one not there to PREFIX.j.late, before
 *                 logging them in PREFIX.j (so a write in PREFIX.j has its
 *                 .late line, if any, written first); a failed read (DEV
 *                 gone) ends the checking
 *   --range       with --buffered: sync_file_range(2) WAIT_BEFORE|WRITE|
 *                 WAIT_AFTER over the span of the N writes instead of fsync:
 *                 logged once written back (their bios completed), not
 *                 flushed: completed writes, not durable ones
 *   --stop FILE   write: stop when FILE exists (checked before each write)
 *   --region N    verify: bytes per region in the report (default 524288)
 *   --upto N      verify: only sequence numbers < N
 *   --linear      sequence number s goes to block s (the load moves through
 *                 the area: old regions go idle) instead of spread
 *   --quiet
 *
 * Sequence number s goes to block (s * STRIDE) mod nblocks of the area, a
 * different block for every s < nblocks, spread over the whole area (or,
 * --linear, to block s).  Every
 * 512-byte sector of it holds {magic "NMSEQW01", seed, s, absolute sector}
 * (four little-endian u64) then bytes determined by them, so a block read
 * back, or found in a dm-log-writes log (logreplay --seq-check), tells which
 * write it is.  write prints "seqw: N writes, F failed"; verify prints
 * "seqw: verified N writes: ok" or "seqw: N of M writes missing: seq S (byte
 * B, region R) ..." and exits 1.  Exit 2: usage or I/O error.
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
#include <sys/wait.h>
#include <unistd.h>

#define SECT 512
#define SEQW_MAGIC 0x3130575145534d4eULL /* "NMSEQW01" */
#define STRIDE 0x9e3779b1ULL

static uint64_t opt_size, opt_off, opt_bs = 4096, opt_count, opt_region = 524288, opt_upto, opt_sync_every,
	opt_buffered;
static unsigned int opt_jobs = 1;
static const char *opt_log, *opt_stop, *opt_ack_check;
static int opt_sync, opt_quiet, opt_linear, opt_fdatasync, opt_range;

#include "vmutil.h"

static uint64_t mix(uint64_t z)
{
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static uint64_t nblocks(void)
{
	return opt_size / opt_bs;
}

/* byte offset on DEV of sequence number s */
static uint64_t slot_off(uint64_t s)
{
	return opt_off + ((opt_linear ? s : s * STRIDE) & (nblocks() - 1)) * opt_bs;
}

static void fill_block(unsigned char *p, uint64_t seed, uint64_t s, uint64_t off)
{
	uint64_t i, j;

	for (i = 0; i < opt_bs; i += SECT) {
		uint64_t h[4] = { SEQW_MAGIC, seed, s, (off + i) / SECT };
		uint64_t st = mix(seed ^ (s << 20) ^ h[3]);

		memcpy(p + i, h, sizeof(h));
		for (j = sizeof(h); j < SECT; j += 8) {
			st += 0x9e3779b97f4a7c15ULL;
			uint64_t v = mix(st);

			memcpy(p + i + j, &v, 8);
		}
	}
}

/* @dev opened with @flags */
static int open_dev_flags(const char *dev, int flags, uint64_t *size)
{
	struct stat st;
	int fd = open(dev, flags);

	if (fd < 0) {
		fprintf(stderr, "seqw: open %s: %s\n", dev, strerror(errno));
		exit(2);
	}
	if (fstat(fd, &st) == 0 && S_ISBLK(st.st_mode)) {
		if (ioctl(fd, BLKGETSIZE64, size)) {
			perror("seqw: BLKGETSIZE64");
			exit(2);
		}
	} else {
		*size = (uint64_t)lseek(fd, 0, SEEK_END);
	}
	return fd;
}

/* O_DIRECT, except the writer's device under --buffered */
static int open_dev(const char *dev, int flags, uint64_t *size)
{
	return open_dev_flags(dev, opt_buffered ? flags : flags | O_DIRECT, size);
}

/* append "SEQ\n" to the job's log */
static int log_seq(int lfd, uint64_t s)
{
	char line[32];
	int len;

	if (lfd < 0)
		return 0;
	len = snprintf(line, sizeof(line), "%" PRIu64 "\n", s);
	if (write(lfd, line, len) != len) {
		perror("seqw: log");
		return -1;
	}
	return 0;
}

/*
 * --buffered: pwrite into the page cache, fsync (or --range:
 * sync_file_range) every opt_buffered writes, log the writes it covered
 * once it returned 0.  Stops at the first
 * failure (see --buffered above).
 */
static int run_job_buffered(int fd, int lfd, unsigned char *buf, uint64_t seed,
			    unsigned int j, uint64_t count)
{
	uint64_t *pend, npend = 0, s, n = 0, failed = 0, syncs = 0, k, late = 0, devsize;
	unsigned char *rb = NULL, *eb = NULL;
	int r, cfd = -1, tfd = -1;
	char path[4096];

	pend = calloc(opt_buffered, sizeof(*pend));
	if (!pend)
		return 2;
	if (opt_ack_check) {
		/* O_DIRECT: read from the disk, never a cached copy */
		cfd = open_dev_flags(opt_ack_check, O_RDONLY | O_DIRECT, &devsize);
		if (posix_memalign((void **)&rb, 4096, opt_bs) || posix_memalign((void **)&eb, 4096, opt_bs))
			return 2;
		snprintf(path, sizeof(path), "%s.%u.late", opt_log ? opt_log : "seqw", j);
		tfd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND, 0644);
		if (tfd < 0) {
			fprintf(stderr, "seqw: open %s: %s\n", path, strerror(errno));
			return 2;
		}
	}
	for (s = j; s < count; s += opt_jobs) {
		uint64_t off = slot_off(s);

		if (opt_stop && access(opt_stop, F_OK) == 0)
			break;
		fill_block(buf, seed, s, off);
		if (pwrite(fd, buf, opt_bs, (off_t)off) != (ssize_t)opt_bs) {
			failed++;
			break;
		}
		pend[npend++] = s;
		if (npend < opt_buffered)
			continue;
		if (opt_range) {
			uint64_t lo = slot_off(pend[0]), hi = lo;

			for (k = 1; k < npend; k++) {
				uint64_t o = slot_off(pend[k]);

				lo = o < lo ? o : lo;
				hi = o > hi ? o : hi;
			}
			r = sync_file_range(fd, (off_t)lo, (off_t)(hi + opt_bs - lo),
					    SYNC_FILE_RANGE_WAIT_BEFORE | SYNC_FILE_RANGE_WRITE |
					    SYNC_FILE_RANGE_WAIT_AFTER);
		} else {
			r = opt_fdatasync ? fdatasync(fd) : fsync(fd);
		}
		if (r) {
			/* none of the pending writes is acknowledged */
			failed++;
			break;
		}
		syncs++;
		/* on DEV already?  (checked before they are logged) */
		for (k = 0; cfd >= 0 && k < npend; k++) {
			uint64_t o = slot_off(pend[k]);

			if (pread(cfd, rb, opt_bs, (off_t)o) != (ssize_t)opt_bs) {
				close(cfd);	/* gone: no more checks */
				cfd = -1;
				break;
			}
			fill_block(eb, seed, pend[k], o);
			if (memcmp(rb, eb, opt_bs)) {
				late++;
				if (log_seq(tfd, pend[k]))
					return 2;
			}
		}
		for (k = 0; k < npend; k++)
			if (log_seq(lfd, pend[k]))
				return 2;
		n += npend;
		npend = 0;
	}
	free(pend);
	free(rb);
	free(eb);
	if (!opt_quiet)
		printf("seqw: job %u: %" PRIu64 " writes acknowledged by %" PRIu64 " %s, %" PRIu64
		       " not synced, %" PRIu64 " failed, %" PRIu64 " not on %s when acknowledged\n",
		       j, n, syncs,
		       opt_range ? "sync_file_ranges" : opt_fdatasync ? "fdatasyncs" : "fsyncs",
		       npend, failed, late, opt_ack_check ? opt_ack_check : "-");
	return failed ? 1 : 0;
}

static int run_job(const char *dev, uint64_t seed, unsigned int j, uint64_t count)
{
	unsigned char *buf;
	uint64_t devsize, s, n = 0, failed = 0;
	char path[4096];
	int fd, sfd = -1, lfd = -1;

	fd = open_dev(dev, O_WRONLY | (opt_sync ? O_DSYNC : 0), &devsize);
	if (opt_sync_every)
		sfd = open_dev(dev, O_WRONLY | O_DSYNC, &devsize);
	if (posix_memalign((void **)&buf, 4096, opt_bs))
		return 2;
	if (opt_log) {
		snprintf(path, sizeof(path), "%s.%u", opt_log, j);
		lfd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND, 0644);
		if (lfd < 0) {
			fprintf(stderr, "seqw: open %s: %s\n", path, strerror(errno));
			return 2;
		}
	}
	if (opt_buffered)
		return run_job_buffered(fd, lfd, buf, seed, j, count);
	for (s = j; s < count; s += opt_jobs) {
		uint64_t off = slot_off(s);

		if (opt_stop && access(opt_stop, F_OK) == 0)
			break;
		fill_block(buf, seed, s, off);
		if (pwrite(sfd >= 0 && s % opt_sync_every == opt_sync_every - 1 ? sfd : fd,
			   buf, opt_bs, (off_t)off) != (ssize_t)opt_bs) {
			/* not acknowledged: not logged; the device may be gone */
			failed++;
			if (failed > 16)
				break;
			continue;
		}
		n++;
		if (log_seq(lfd, s))
			return 2;
	}
	if (!opt_quiet)
		printf("seqw: job %u: %" PRIu64 " writes, %" PRIu64 " failed\n", j, n, failed);
	return failed ? 1 : 0;
}

static int do_write(const char *dev, uint64_t seed)
{
	uint64_t count = opt_count && opt_count < nblocks() ? opt_count : nblocks();
	unsigned int j;
	int rc = 0, st;

	fflush(stdout);
	if (opt_jobs == 1)
		return run_job(dev, seed, 0, count);
	for (j = 0; j < opt_jobs; j++) {
		pid_t p = fork();

		if (p < 0) {
			perror("seqw: fork");
			return 2;
		}
		if (p == 0)
			exit(run_job(dev, seed, j, count));
	}
	while (wait(&st) > 0)
		if (!WIFEXITED(st) || WEXITSTATUS(st))
			rc = rc == 2 ? 2 : (WIFEXITED(st) ? WEXITSTATUS(st) : 2);
	return rc;
}

static int do_verify(const char *dev, uint64_t seed)
{
	unsigned char *buf, *exp;
	uint64_t devsize, n = 0, bad = 0, *miss = NULL, nmiss = 0, cap = 0, k, r;
	unsigned int j;
	char path[4096], line[64];
	int fd;

	if (!opt_log) {
		fprintf(stderr, "seqw: verify needs --log\n");
		return 2;
	}
	fd = open_dev(dev, O_RDONLY, &devsize);
	if (posix_memalign((void **)&buf, 4096, opt_bs) || posix_memalign((void **)&exp, 4096, opt_bs))
		return 2;
	for (j = 0; j < opt_jobs; j++) {
		FILE *f;

		snprintf(path, sizeof(path), "%s.%u", opt_log, j);
		f = fopen(path, "r");
		if (!f) {
			fprintf(stderr, "seqw: open %s: %s\n", path, strerror(errno));
			return 2;
		}
		while (fgets(line, sizeof(line), f)) {
			uint64_t s, off;

			if (!strchr(line, '\n'))
				break;	/* a line still being written */
			s = strtoull(line, NULL, 10);
			if (opt_upto && s >= opt_upto)
				continue;
			off = slot_off(s);
			if (pread(fd, buf, opt_bs, (off_t)off) != (ssize_t)opt_bs) {
				fprintf(stderr, "seqw: read %s at %" PRIu64 ": %s\n", dev, off, strerror(errno));
				return 2;
			}
			fill_block(exp, seed, s, off);
			n++;
			if (memcmp(buf, exp, opt_bs)) {
				uint64_t h[4];

				memcpy(h, buf, sizeof(h));
				if (bad < 8)
					printf("%sseq %" PRIu64 " (byte %" PRIu64 ", region %" PRIu64 ", found %s%" PRIu64 ")",
					       bad ? ", " : "seqw: missing: ", s, off, off / opt_region,
					       h[0] == SEQW_MAGIC ? "seq " : "no header ",
					       h[0] == SEQW_MAGIC ? h[2] : 0);
				bad++;
				if (nmiss == cap) {
					cap = cap ? cap * 2 : 1024;
					miss = realloc(miss, cap * sizeof(*miss));
					if (!miss)
						return 2;
				}
				miss[nmiss++] = s;
			}
		}
		fclose(f);
	}
	if (bad) {
		/* the missing sequence numbers as ranges (per job, in log order) */
		printf("\nseqw: missing seqs:");
		for (k = 0, r = 0; k < nmiss && r < 24; r++) {
			uint64_t a = miss[k];

			while (k + 1 < nmiss && miss[k + 1] == miss[k] + opt_jobs)
				k++;
			if (miss[k] == a)
				printf(" %" PRIu64, a);
			else
				printf(" %" PRIu64 "-%" PRIu64, a, miss[k]);
			k++;
		}
		printf("%s\n", k < nmiss ? " ..." : "");
		printf("seqw: %" PRIu64 " of %" PRIu64 " acknowledged writes missing on %s\n", bad, n, dev);
		return 1;
	}
	if (!opt_quiet)
		printf("seqw: verified %" PRIu64 " writes on %s: ok\n", n, dev);
	return 0;
}

int main(int argc, char **argv)
{
	uint64_t seed;
	int i, writing;

	if (argc < 4) {
		fprintf(stderr, "usage: seqw write|verify DEV SEED --size N [--offset N] [--bs N] "
				"[--jobs J] [--count N] [--log PREFIX] [--sync] [--sync-every N] [--stop FILE] "
				"[--buffered N [--fdatasync|--range] [--ack-check DEV]] [--region N] [--upto N] [--linear] [--quiet]\n");
		return 2;
	}
	writing = !strcmp(argv[1], "write");
	if (!writing && strcmp(argv[1], "verify")) {
		fprintf(stderr, "seqw: mode must be write or verify\n");
		return 2;
	}
	seed = strtoull(argv[3], NULL, 0);
	for (i = 4; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(a, "--sync"))
			opt_sync = 1;
		else if (!strcmp(a, "--quiet"))
			opt_quiet = 1;
		else if (!strcmp(a, "--linear"))
			opt_linear = 1;
		else if (!strcmp(a, "--fdatasync"))
			opt_fdatasync = 1;
		else if (!strcmp(a, "--range"))
			opt_range = 1;
		else if (!v)
			goto usage;
		else if (!strcmp(a, "--size"))
			opt_size = parse_size(v), i++;
		else if (!strcmp(a, "--offset"))
			opt_off = parse_size(v), i++;
		else if (!strcmp(a, "--bs"))
			opt_bs = parse_size(v), i++;
		else if (!strcmp(a, "--jobs"))
			opt_jobs = (unsigned int)parse_size(v), i++;
		else if (!strcmp(a, "--count"))
			opt_count = parse_size(v), i++;
		else if (!strcmp(a, "--log"))
			opt_log = v, i++;
		else if (!strcmp(a, "--stop"))
			opt_stop = v, i++;
		else if (!strcmp(a, "--region"))
			opt_region = parse_size(v), i++;
		else if (!strcmp(a, "--sync-every"))
			opt_sync_every = parse_size(v), i++;
		else if (!strcmp(a, "--buffered"))
			opt_buffered = parse_size(v), i++;
		else if (!strcmp(a, "--ack-check"))
			opt_ack_check = v, i++;
		else if (!strcmp(a, "--upto"))
			opt_upto = parse_size(v), i++;
		else
			goto usage;
	}
	if (!opt_bs || opt_bs % SECT || opt_off % SECT || !opt_size || opt_size % opt_bs ||
	    (nblocks() & (nblocks() - 1)) || !opt_jobs || !opt_region) {
		fprintf(stderr, "seqw: bad sizes (--size / --bs must be a power of two)\n");
		return 2;
	}
	if (!writing)
		opt_buffered = 0;	/* verify reads O_DIRECT */
	if (opt_buffered && (opt_sync || opt_sync_every)) {
		fprintf(stderr, "seqw: --buffered excludes --sync and --sync-every\n");
		return 2;
	}
	return writing ? do_write(argv[2], seed) : do_verify(argv[2], seed);
usage:
	fprintf(stderr, "seqw: bad option %s\n", argv[i]);
	return 2;
}
