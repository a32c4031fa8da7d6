/*
 * logreplay: replay a dm-log-writes log (the guest has no replay-log), and
 * check the order of seqw's writes at every stable point of it.
 *
 *   logreplay LOGDEV [--replay DEV] [--end-mark NAME] [--stable]
 *                    [--seq-check SEED --bs N] [--list] [--quiet]
 *
 *   --replay DEV     apply the logged writes to DEV (O_DIRECT), in log order
 *   --end-mark NAME  stop at the mark NAME (dmsetup message LOG 0 mark NAME)
 *   --stable         stop after the last FLUSH or FUA entry before the end
 *                    (or the end mark): the writes logged after it are the
 *                    ones dm-log-writes' destructor logs unflushed, i.e. what
 *                    a power cut would lose
 *   --seq-check SEED --bs N   after every FLUSH and FUA entry (the states a
 *                    power cut can leave) and at the stop: the blocks of
 *                    seqw's serial writer (seed SEED, N bytes a write) present
 *                    must be a prefix 0..k of its sequence: a write present
 *                    (any sector of it) while an earlier one is not complete
 *                    is a violation (Y without X, X completed before Y was
 *                    submitted).  Exit 1 on a violation.
 *   --list           print every entry
 *
 * Log format (Documentation/admin-guide/device-mapper/log-writes.rst,
 * drivers/md/dm-log-writes.c): sector 0 the super {magic 0x6a736677736872,
 * version 1, nr_entries, sectorsize} (le64, le64, le64, le32); then per entry
 * one sectorsize block {sector, nr_sectors, flags, data_len} (le64; sector
 * and nr_sectors in units of sectorsize; a mark's name follows in the same
 * block) followed, for a write, by its nr_sectors of data.  Flags: 1 FLUSH,
 * 2 FUA, 4 DISCARD, 8 MARK, 16 METADATA.  Entries are logged once stable: a
 * plain write only when a later flush completed (before the flush entry),
 * a FUA write when it completed.  nr_entries is rewritten at every FUA and
 * mark and at the end ("dm-log-writes-end"): remove the log-writes device (or
 * send a mark) before reading.
 *
 * Prints "logreplay: E entries (W writes, F flushes, U fua, M marks, D
 * discards), replayed N writes / B bytes" and with --seq-check "seq-check: S
 * stable points, V violations, highest complete prefix K of H seen" plus the
 * first violations.  Exit 2: usage, I/O or format error.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define LOG_MAGIC 0x6a736677736872ULL
#define F_FLUSH 1
#define F_FUA 2
#define F_DISCARD 4
#define F_MARK 8
#define SEQW_MAGIC 0x3130575145534d4eULL /* "NMSEQW01", as seqw.c */

struct entry {
	uint64_t sector, nr_sectors, flags, data_len;
};

static int lfd, rfd = -1, quiet, list;
static uint32_t ssz;
static unsigned char *buf;
static size_t bufsz;

/* seq-check state */
static int seq_on;
static uint64_t seq_seed, seq_bs;
static int64_t *sect_seq;	/* per 512-byte sector of the replayed device: seq or -1 */
static size_t sect_nr;
static uint32_t *seq_cnt;	/* per seq: sectors holding it */
static size_t seq_nr;
static uint64_t points, violations, best_prefix;
static int64_t seq_max = -1;

static void *grow(void *p, size_t *nr, size_t want, size_t elsz, int fill)
{
	size_t n = *nr ? *nr : 1024;

	if (want <= *nr)
		return p;
	while (n < want)
		n *= 2;
	p = realloc(p, n * elsz);
	if (!p) {
		fprintf(stderr, "logreplay: out of memory\n");
		exit(2);
	}
	memset((char *)p + *nr * elsz, fill, (n - *nr) * elsz);
	*nr = n;
	return p;
}

static void rd(void *p, size_t len, uint64_t off)
{
	if (pread(lfd, p, len, (off_t)off) != (ssize_t)len) {
		fprintf(stderr, "logreplay: read log at %" PRIu64 " (%zu bytes): %s\n", off, len,
			errno ? strerror(errno) : "short read");
		exit(2);
	}
}

static void seq_note(const unsigned char *data, uint64_t byte_off, uint64_t len)
{
	uint64_t i;

	for (i = 0; i < len; i += 512) {
		uint64_t h[4], sec = (byte_off + i) / 512;
		int64_t old, now = -1;

		memcpy(h, data + i, sizeof(h));
		if (h[0] == SEQW_MAGIC && h[1] == seq_seed && h[3] == sec)
			now = (int64_t)h[2];
		sect_seq = grow(sect_seq, &sect_nr, sec + 1, sizeof(*sect_seq), 0xff);
		old = sect_seq[sec];
		if (old >= 0)
			seq_cnt[old]--;
		if (now >= 0) {
			seq_cnt = grow(seq_cnt, &seq_nr, (size_t)now + 1, sizeof(*seq_cnt), 0);
			seq_cnt[now]++;
			if (now > seq_max)
				seq_max = now;
		}
		sect_seq[sec] = now;
	}
}

/* a state a power cut may leave: present seqs must be a prefix */
static void seq_point(uint64_t entry_no, const char *what)
{
	uint64_t full = seq_bs / 512, m;
	int64_t s, y = -1;

	points++;
	for (m = 0; (int64_t)m <= seq_max && seq_cnt[m] == full; m++)
		;
	for (s = seq_max; s > (int64_t)m; s--)
		if (seq_cnt[s]) {
			y = s;
			break;
		}
	if (m > best_prefix)
		best_prefix = m;
	if (y < 0)
		return;
	violations++;
	if (violations <= 5)
		printf("seq-check: VIOLATION at %s (log entry %" PRIu64 "): seq %" PRId64
		       " present (%u of %" PRIu64 " sectors) while seq %" PRIu64 " is %s\n",
		       what, entry_no, y, seq_cnt[y], full, m,
		       seq_cnt[m] ? "partly written" : "missing");
}

int main(int argc, char **argv)
{
	const char *end_mark = NULL, *replay = NULL;
	int stable = 0, i;
	uint64_t super[3], nr, e, pos, stop, last_stable = 0, nw = 0, bytes = 0;
	uint64_t cw = 0, cf = 0, cu = 0, cm = 0, cd = 0;
	uint32_t sz32;
	int found_mark = 0;

	if (argc < 2)
		goto usage;
	for (i = 2; i < argc; i++) {
		if (!strcmp(argv[i], "--replay") && i + 1 < argc)
			replay = argv[++i];
		else if (!strcmp(argv[i], "--end-mark") && i + 1 < argc)
			end_mark = argv[++i];
		else if (!strcmp(argv[i], "--stable"))
			stable = 1;
		else if (!strcmp(argv[i], "--seq-check") && i + 1 < argc)
			seq_on = 1, seq_seed = strtoull(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--bs") && i + 1 < argc)
			seq_bs = strtoull(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--list"))
			list = 1;
		else if (!strcmp(argv[i], "--quiet"))
			quiet = 1;
		else
			goto usage;
	}
	if (seq_on && (!seq_bs || seq_bs % 512))
		goto usage;
	lfd = open(argv[1], O_RDONLY | O_DIRECT);
	if (lfd < 0) {
		fprintf(stderr, "logreplay: open %s: %s\n", argv[1], strerror(errno));
		return 2;
	}
	bufsz = 1 << 20;
	if (posix_memalign((void **)&buf, 4096, bufsz))
		return 2;
	rd(buf, 4096, 0);
	memcpy(super, buf, sizeof(super));
	memcpy(&sz32, buf + 24, 4);
	if (super[0] != LOG_MAGIC || super[1] != 1 || !sz32 || sz32 % 512 || sz32 > 4096) {
		fprintf(stderr, "logreplay: %s: not a dm-log-writes log (magic %#" PRIx64 ")\n", argv[1], super[0]);
		return 2;
	}
	ssz = sz32;
	nr = super[2];
	if (replay) {
		rfd = open(replay, O_WRONLY | O_DIRECT);
		if (rfd < 0) {
			fprintf(stderr, "logreplay: open %s: %s\n", replay, strerror(errno));
			return 2;
		}
	}
	/* pass 1: where to stop (the end mark; with --stable the last stable entry) */
	stop = nr;
	for (e = 0, pos = ssz; e < nr; e++) {
		struct entry en;

		rd(buf, ssz, pos);
		memcpy(&en, buf, sizeof(en));
		if (en.flags & F_MARK) {
			size_t l = en.data_len < ssz - sizeof(en) ? en.data_len : ssz - sizeof(en) - 1;

			buf[sizeof(en) + l] = 0;
			if (end_mark && !strcmp((char *)buf + sizeof(en), end_mark)) {
				stop = e;
				found_mark = 1;
				break;
			}
		}
		if (en.flags & (F_FLUSH | F_FUA))
			last_stable = e + 1;
		pos += ssz;
		if (!(en.flags & (F_DISCARD | F_MARK)))
			pos += en.nr_sectors * ssz;
	}
	if (end_mark && !found_mark) {
		fprintf(stderr, "logreplay: no mark '%s' in %" PRIu64 " entries\n", end_mark, nr);
		return 2;
	}
	if (stable)
		stop = last_stable;
	/* pass 2: replay and check */
	for (e = 0, pos = ssz; e < stop; e++) {
		struct entry en;
		uint64_t len, off, done;

		rd(buf, ssz, pos);
		memcpy(&en, buf, sizeof(en));
		pos += ssz;
		if (en.flags & F_MARK) {
			cm++;
			if (list) {
				size_t l = en.data_len < ssz - sizeof(en) ? en.data_len : ssz - sizeof(en) - 1;

				buf[sizeof(en) + l] = 0;
				printf("%" PRIu64 " mark %s\n", e, (char *)buf + sizeof(en));
			}
			continue;
		}
		if (en.flags & F_DISCARD) {
			cd++;
			if (list)
				printf("%" PRIu64 " discard %" PRIu64 "+%" PRIu64 "\n", e, en.sector, en.nr_sectors);
			continue;
		}
		len = en.nr_sectors * ssz;
		off = en.sector * ssz;
		if (list)
			printf("%" PRIu64 " %s%s%s %" PRIu64 "+%" PRIu64 "\n", e,
			       len ? "write" : "", en.flags & F_FLUSH ? " flush" : "",
			       en.flags & F_FUA ? " fua" : "", en.sector, en.nr_sectors);
		for (done = 0; done < len; ) {
			size_t n = len - done < bufsz ? len - done : bufsz;

			rd(buf, n, pos + done);
			if (rfd >= 0 && pwrite(rfd, buf, n, (off_t)(off + done)) != (ssize_t)n) {
				fprintf(stderr, "logreplay: write %s at %" PRIu64 ": %s\n", replay, off + done, strerror(errno));
				return 2;
			}
			if (seq_on)
				seq_note(buf, off + done, n);
			done += n;
		}
		pos += len;
		if (len) {
			cw++;
			nw++;
			bytes += len;
		}
		if (en.flags & F_FLUSH)
			cf++;
		if (en.flags & F_FUA)
			cu++;
		if (seq_on && (en.flags & (F_FLUSH | F_FUA)))
			seq_point(e, en.flags & F_FLUSH ? "a FLUSH" : "a FUA write");
	}
	if (seq_on) {
		seq_point(stop, "the stop point");
		printf("seq-check: %" PRIu64 " stable points, %" PRIu64 " violations, highest complete prefix %" PRIu64
		       " of %" PRId64 " writes seen\n", points, violations, best_prefix, seq_max + 1);
	}
	if (!quiet)
		printf("logreplay: %" PRIu64 " of %" PRIu64 " entries (%" PRIu64 " writes, %" PRIu64 " flushes, %" PRIu64
		       " fua, %" PRIu64 " marks, %" PRIu64 " discards), replayed %" PRIu64 " writes / %" PRIu64 " bytes%s\n",
		       stop, nr, cw, cf, cu, cm, cd, rfd >= 0 ? nw : 0, rfd >= 0 ? bytes : 0,
		       rfd >= 0 ? "" : " (no --replay)");
	if (rfd >= 0 && fsync(rfd)) {
		perror("logreplay: fsync");
		return 2;
	}
	return violations ? 1 : 0;
usage:
	fprintf(stderr, "usage: logreplay LOGDEV [--replay DEV] [--end-mark NAME] [--stable] "
			"[--seq-check SEED --bs N] [--list] [--quiet]\n");
	return 2;
}
