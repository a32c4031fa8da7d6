// SPDX-License-Identifier: GPL-2.0
/*
 * netmirror metadata device: superblock and persistent region bitmap.
 * Contexts and lock order: see nm_meta.h.
 *
 * The whole bitmap is kept in memory twice: "bits", what the callers set
 * and cleared, and "ondisk", what the last successful commit wrote.
 * Setting or clearing a bit marks its 4 KiB block dirty; nm_meta_commit()
 * writes the dirty blocks (REQ_FUA) from a snapshot taken under the
 * spinlock, then the superblock when the flags changed.  A region counts as
 * marked (nm_meta_test) only when it is set in both: a mark is not trusted
 * before it is durable, a failed commit leaves it untrusted, and a bit
 * being cleared on disk is untrusted from the snapshot on (nm_block_out).
 * A cleared bit reaches the disk only after the data device was flushed:
 * the writes whose stability allowed the clear may still sit in its
 * volatile cache.
 */
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <linux/bitmap.h>
#include <linux/crc32c.h>
#include <linux/device-mapper.h>
#include <linux/lockdep.h>
#include "nm_meta.h"
#include "nm_layout.h"

#define DM_MSG_PREFIX "netmirror"

#define NM_META_MAGIC	0x31304154454d4d4eULL	/* "NMMETA01" */
#define NM_META_VERSION	2	/* 2: data generations; 1 is read */
#define NM_META_MAGIC2	0x534e4547534d4d4eULL	/* "NMMSGENS" */
#define NM_BLOCK	4096
#define NM_BITS_PER_BLOCK (NM_BLOCK * 8)

struct nm_meta_sb {
	__le64 magic;
	__le32 version;
	__le32 flags;
	__le64 dev_sectors;
	__le32 region_sectors;
	__le32 data_start;	/* internal: sectors before the data, else 0 */
	__le64 nr_regions;
	__le64 events;
	__le32 csum;
	__le32 pad;
} __packed;

/* Version 2: the data generations, at byte 512 of the superblock. */
#define NM_SB2_OFFSET	512
struct nm_meta_sb2 {
	__le64 magic;
	__le64 pair;
	__le64 cur;
	__le64 bitmap;
	__le64 history[2];
	__le32 csum;
	__le32 gflags;		/* NM_SB2_* */
} __packed;
#define NM_SB2_OFFERED		0x1	/* nm_gens.offered */
#define NM_SB2_BITMAP_PRI	0x2	/* nm_gens.bitmap_pri */
#define NM_SB2_HIST_SHIFT	2	/* bits 2, 3: nm_gens.hist_held */

struct nm_meta {
	struct block_device *bdev;
	struct block_device *data_bdev;	/* flushed before clears commit */
	sector_t data_start;		/* internal: the data area, else 0 */
	sector_t dev_sectors;
	u32 region_sectors;
	unsigned long nr_regions;
	unsigned long nr_blocks;	/* bitmap blocks */
	spinlock_t lock;
	unsigned long *bits;
	unsigned long *ondisk;		/* as last written, under lock */
	unsigned long *dirty;		/* one bit per bitmap block */
	bool clears;			/* a bit was cleared since a commit */
	bool flush_failed;		/* a clears flush failed since taken */
	u32 flags;
	struct nm_gens gens;		/* under lock */
	bool sb_dirty;
	u64 events;
	struct mutex commit_mutex;	/* serialises nm_meta_commit */
	struct page *page;		/* bounce page, under commit_mutex */
};

static u32 nm_sb2_csum(struct nm_meta_sb2 *sb2);

/*
 * The generations of a superblock in the bounce page (version 1 has none:
 * they stay 0, "no history", and version 2 is written at the next commit).
 */
static int nm_meta_read_gens(struct nm_meta *m, struct nm_meta_sb *sb)
{
	struct nm_meta_sb2 *sb2 = (void *)sb + NM_SB2_OFFSET;

	memset(&m->gens, 0, sizeof(m->gens));
	if (le32_to_cpu(sb->version) < 2)
		return 0;
	if (le64_to_cpu(sb2->magic) != NM_META_MAGIC2 ||
	    le32_to_cpu(sb2->csum) != nm_sb2_csum(sb2))
		return -EILSEQ;
	m->gens.pair = le64_to_cpu(sb2->pair);
	m->gens.cur = le64_to_cpu(sb2->cur);
	m->gens.bitmap = le64_to_cpu(sb2->bitmap);
	m->gens.history[0] = le64_to_cpu(sb2->history[0]);
	m->gens.history[1] = le64_to_cpu(sb2->history[1]);
	m->gens.offered = !!(le32_to_cpu(sb2->gflags) & NM_SB2_OFFERED);
	m->gens.bitmap_pri = !!(le32_to_cpu(sb2->gflags) & NM_SB2_BITMAP_PRI);
	m->gens.hist_held = (le32_to_cpu(sb2->gflags) >> NM_SB2_HIST_SHIFT) & 3;
	return 0;
}

u64 nm_meta_size(unsigned long nr_regions)
{
	return nm_layout_meta_bytes(nr_regions);
}

/* "meta internal": the area in front of @dev_sectors of data (nm_layout.h). */
sector_t nm_meta_internal_sectors(sector_t dev_sectors, u32 region_sectors)
{
	return nm_layout_imeta_sectors(dev_sectors, region_sectors);
}

/* Where the data starts on the local device: 0 unless internal. */
sector_t nm_meta_data_start(struct nm_meta *m)
{
	return m->data_start;
}

static int nm_meta_rw(struct nm_meta *m, sector_t sector, blk_opf_t opf)
{
	struct bio bio;
	struct bio_vec bv;
	int r;

	bio_init(&bio, m->bdev, &bv, 1, opf);
	bio.bi_iter.bi_sector = sector;
	__bio_add_page(&bio, m->page, NM_BLOCK, 0);
	r = submit_bio_wait(&bio);
	bio_uninit(&bio);
	return r;
}

/* crc32c of @len bytes at @p, counting the checksum field @csum as 0 */
static u32 nm_csum_excl(void *p, size_t len, __le32 *csum)
{
	__le32 saved = *csum;
	u32 c;

	*csum = 0;
	c = crc32c(~0U, p, len);
	*csum = saved;
	return c;
}

static u32 nm_sb_csum(struct nm_meta_sb *sb)
{
	return nm_csum_excl(sb, sizeof(*sb), &sb->csum);
}

static u32 nm_sb2_csum(struct nm_meta_sb2 *sb2)
{
	return nm_csum_excl(sb2, sizeof(*sb2), &sb2->csum);
}

static int nm_meta_write_sb(struct nm_meta *m)
{
	struct nm_meta_sb *sb = page_address(m->page);
	struct nm_meta_sb2 *sb2 = page_address(m->page) + NM_SB2_OFFSET;
	unsigned long fl;
	int r;

	memset(sb, 0, NM_BLOCK);
	sb->magic = cpu_to_le64(NM_META_MAGIC);
	sb->version = cpu_to_le32(NM_META_VERSION);
	sb2->magic = cpu_to_le64(NM_META_MAGIC2);
	spin_lock_irqsave(&m->lock, fl);
	sb->flags = cpu_to_le32(m->flags);
	sb2->pair = cpu_to_le64(m->gens.pair);
	sb2->cur = cpu_to_le64(m->gens.cur);
	sb2->bitmap = cpu_to_le64(m->gens.bitmap);
	sb2->history[0] = cpu_to_le64(m->gens.history[0]);
	sb2->history[1] = cpu_to_le64(m->gens.history[1]);
	sb2->gflags = cpu_to_le32((m->gens.offered ? NM_SB2_OFFERED : 0) |
				  (m->gens.bitmap_pri ? NM_SB2_BITMAP_PRI : 0) |
				  (m->gens.hist_held << NM_SB2_HIST_SHIFT));
	m->sb_dirty = false;
	spin_unlock_irqrestore(&m->lock, fl);
	sb2->csum = cpu_to_le32(nm_sb2_csum(sb2));
	sb->dev_sectors = cpu_to_le64(m->dev_sectors);
	sb->region_sectors = cpu_to_le32(m->region_sectors);
	sb->data_start = cpu_to_le32(m->data_start);
	sb->nr_regions = cpu_to_le64(m->nr_regions);
	sb->events = cpu_to_le64(++m->events);
	sb->csum = cpu_to_le32(nm_sb_csum(sb));
	r = nm_meta_rw(m, 0, REQ_OP_WRITE | REQ_SYNC | REQ_PREFLUSH | REQ_FUA);
	if (r) {
		/* not on the disk: the next commit writes it again */
		spin_lock_irqsave(&m->lock, fl);
		m->sb_dirty = true;
		spin_unlock_irqrestore(&m->lock, fl);
	}
	return r;
}

/*
 * Copy bitmap block @b to/from the bounce page (LE 64-bit words).  Out: a
 * bit cleared in the copy stops counting as on disk now, not when the
 * write ends: the disk may hold either value until then, and a mark set
 * again meanwhile (nm_meta_set) must wait for the next commit, not trust
 * the old 1 the clear is overwriting.  Returns false, copying nothing,
 * while a clear waits for the data device's flush (nm_meta_flush_clears).
 */
static bool nm_block_out(struct nm_meta *m, unsigned long b)
{
	__le64 *w = page_address(m->page);
	unsigned long first = b * (NM_BLOCK / 8), i, n, fl;

	n = min_t(unsigned long, NM_BLOCK / 8,
		  BITS_TO_LONGS(m->nr_regions) - first);
	memset(w, 0, NM_BLOCK);
	spin_lock_irqsave(&m->lock, fl);
	if (m->clears && m->data_bdev) {
		spin_unlock_irqrestore(&m->lock, fl);
		return false;
	}
	for (i = 0; i < n; i++) {
		w[i] = cpu_to_le64(m->bits[first + i]);
		m->ondisk[first + i] &= m->bits[first + i];
	}
	clear_bit(b, m->dirty);
	spin_unlock_irqrestore(&m->lock, fl);
	return true;
}

static void nm_block_in(struct nm_meta *m, unsigned long b)
{
	__le64 *w = page_address(m->page);
	unsigned long first = b * (NM_BLOCK / 8), i, n;

	n = min_t(unsigned long, NM_BLOCK / 8,
		  BITS_TO_LONGS(m->nr_regions) - first);
	for (i = 0; i < n; i++) {
		m->bits[first + i] = le64_to_cpu(w[i]);
		m->ondisk[first + i] = m->bits[first + i];
	}
}

/* Block @b was written from the bounce page: that is now on disk. */
static void nm_block_written(struct nm_meta *m, unsigned long b)
{
	__le64 *w = page_address(m->page);
	unsigned long first = b * (NM_BLOCK / 8), i, n, fl;

	n = min_t(unsigned long, NM_BLOCK / 8,
		  BITS_TO_LONGS(m->nr_regions) - first);
	spin_lock_irqsave(&m->lock, fl);
	for (i = 0; i < n; i++)
		m->ondisk[first + i] = le64_to_cpu(w[i]);
	spin_unlock_irqrestore(&m->lock, fl);
}

/* Under m->lock: cancel the clears not yet written (the marks stay). */
static void __nm_meta_keep_ondisk(struct nm_meta *m)
{
	unsigned long i, words = BITS_TO_LONGS(m->nr_regions);

	lockdep_assert_held(&m->lock);
	for (i = 0; i < words; i++)
		m->bits[i] |= m->ondisk[i];
}

/*
 * Flush the data device for the clears made so far (under commit_mutex):
 * the writes whose stability allowed them may sit in its volatile cache.
 * If it fails, the clears are cancelled (every bit back to what is on
 * disk), so that the commit goes on with the marks alone: up to 1.18.21
 * every later commit tried the flush again first and failed, and with it
 * the marks new writes waited for (EIO; fault-pflushfail part late).
 */
static void nm_meta_flush_clears(struct nm_meta *m)
{
	unsigned long fl;
	int r;

	lockdep_assert_held(&m->commit_mutex);
	spin_lock_irqsave(&m->lock, fl);
	m->clears = false;
	spin_unlock_irqrestore(&m->lock, fl);
	r = blkdev_issue_flush(m->data_bdev);
	if (r) {
		spin_lock_irqsave(&m->lock, fl);
		/*
		 * The clears waited for this flush: they did not happen, the
		 * marks stay (their writes may be lost from the cache), and
		 * the failure waits for nm_meta_take_flush_failed().
		 */
		__nm_meta_keep_ondisk(m);
		m->flush_failed = true;
		m->clears = false;
		spin_unlock_irqrestore(&m->lock, fl);
		DMERR_LIMIT("data device flush for cleared marks failed (%d): they stay",
			    r);
	}
}

/*
 * Write the dirty bitmap blocks, then the superblock if it changed.  A
 * block is copied only with no clear waiting for a data flush: a clear
 * made while this commit runs (another thread's, between two blocks) is
 * flushed for before the block that holds it is copied, not written with
 * it unflushed.
 */
int nm_meta_commit(struct nm_meta *m)
{
	unsigned long b;
	int r = 0;

	might_sleep();
	mutex_lock(&m->commit_mutex);
	for_each_set_bit(b, m->dirty, m->nr_blocks) {
		while (!nm_block_out(m, b))
			nm_meta_flush_clears(m);
		r = nm_meta_rw(m, (NM_BLOCK + b * NM_BLOCK) >> SECTOR_SHIFT,
			       REQ_OP_WRITE | REQ_SYNC | REQ_FUA);
		if (r) {
			set_bit(b, m->dirty);
			break;
		}
		nm_block_written(m, b);
	}
	if (!r && READ_ONCE(m->sb_dirty))
		r = nm_meta_write_sb(m);
	mutex_unlock(&m->commit_mutex);
	if (r)
		DMERR_LIMIT("metadata write failed (%d)", r);
	return r;
}

/*
 * Internal metadata: does the local device hold the area and the data?
 * (The data area's size is the target's length, @dev_sectors.)
 */
static int nm_meta_internal_fits(struct block_device *bdev, sector_t start,
				 sector_t dev_sectors, char **error)
{
	if (start > U32_MAX) {
		*error = "Internal metadata area too large (use a metadata device)";
		return -EINVAL;
	}
	if (bdev_nr_sectors(bdev) < start + dev_sectors) {
		DMERR("internal meta: device has %llu sectors, needs %llu (%llu meta + %llu data)",
		      (unsigned long long)bdev_nr_sectors(bdev),
		      (unsigned long long)(start + dev_sectors),
		      (unsigned long long)start,
		      (unsigned long long)dev_sectors);
		*error = "Local device too small for internal metadata (size needed: kernel log)";
		return -EINVAL;
	}
	return 0;
}

struct nm_meta *nm_meta_open(struct block_device *bdev,
			     struct block_device *data_bdev, bool internal,
			     sector_t dev_sectors, u32 region_sectors,
			     unsigned long nr_regions, bool *fresh, char **error)
{
	sector_t start = 0;
	struct nm_meta *m;
	struct nm_meta_sb *sb;
	const char *sig;
	unsigned long b;
	int r;

	if (internal) {
		start = nm_meta_internal_sectors(dev_sectors, region_sectors);
		r = nm_meta_internal_fits(bdev, start, dev_sectors, error);
		if (r)
			return ERR_PTR(r);
	} else if (bdev_nr_bytes(bdev) < nm_meta_size(nr_regions)) {
		*error = "Metadata device too small (see docs: 4096 + bitmap bytes)";
		return ERR_PTR(-EINVAL);
	}
	m = kzalloc(sizeof(*m), GFP_KERNEL);
	if (!m)
		goto nomem;
	m->bdev = bdev;
	m->data_bdev = data_bdev;
	m->data_start = start;
	m->dev_sectors = dev_sectors;
	m->region_sectors = region_sectors;
	m->nr_regions = nr_regions;
	m->nr_blocks = DIV_ROUND_UP(nr_regions, NM_BITS_PER_BLOCK);
	spin_lock_init(&m->lock);
	mutex_init(&m->commit_mutex);
	/* counted in the caller's limit (nm_regions_bytes): fail, not OOM */
	m->bits = kvcalloc(BITS_TO_LONGS(nr_regions), sizeof(long),
			   GFP_KERNEL | __GFP_RETRY_MAYFAIL | __GFP_NOWARN);
	m->ondisk = kvcalloc(BITS_TO_LONGS(nr_regions), sizeof(long),
			     GFP_KERNEL | __GFP_RETRY_MAYFAIL | __GFP_NOWARN);
	m->dirty = bitmap_zalloc(m->nr_blocks, GFP_KERNEL);
	m->page = alloc_page(GFP_KERNEL);
	if (!m->bits || !m->ondisk || !m->dirty || !m->page)
		goto nomem_free;

	r = nm_meta_rw(m, 0, REQ_OP_READ);
	if (r) {
		*error = "Cannot read the metadata superblock";
		goto fail;
	}
	sb = page_address(m->page);
	if (le64_to_cpu(sb->magic) != NM_META_MAGIC) {
		/* internal: never over what the device holds (nm_layout.h) */
		sig = internal ? nm_layout_signature(page_address(m->page)) :
		      NULL;
		if (sig) {
			DMERR("internal meta: %s found, not formatted (wipefs or nmsetup --force)",
			      sig);
			*error = "Local device holds a signature: internal metadata not formatted";
			r = -EBUSY;
			goto fail;
		}
		/* a new metadata device: format it */
		*fresh = true;
		bitmap_fill(m->dirty, m->nr_blocks);
		m->sb_dirty = true;
		r = nm_meta_commit(m);
		if (r) {
			*error = "Cannot format the metadata device";
			goto fail;
		}
		return m;
	}
	*fresh = false;
	if (le32_to_cpu(sb->csum) != nm_sb_csum(sb)) {
		*error = "Metadata superblock checksum mismatch";
		r = -EILSEQ;
		goto fail;
	}
	if (le32_to_cpu(sb->version) < 1 ||
	    le32_to_cpu(sb->version) > NM_META_VERSION) {
		*error = "Unsupported metadata version";
		r = -EINVAL;
		goto fail;
	}
	r = nm_meta_read_gens(m, sb);
	if (r) {
		*error = "Metadata generations checksum mismatch";
		goto fail;
	}
	if (le32_to_cpu(sb->region_sectors) != region_sectors ||
	    le64_to_cpu(sb->nr_regions) != nr_regions ||
	    le64_to_cpu(sb->dev_sectors) != dev_sectors) {
		*error = "Metadata was made for another size or region_size";
		r = -EINVAL;
		goto fail;
	}
	if (le32_to_cpu(sb->data_start) != start) {
		*error = internal ?
			 "Local device holds no internal metadata" :
			 "Metadata device holds internal metadata";
		r = -EINVAL;
		goto fail;
	}
	m->flags = le32_to_cpu(sb->flags);
	m->events = le64_to_cpu(sb->events);
	for (b = 0; b < m->nr_blocks; b++) {
		r = nm_meta_rw(m, (NM_BLOCK + b * NM_BLOCK) >> SECTOR_SHIFT,
			       REQ_OP_READ);
		if (r) {
			*error = "Cannot read the metadata bitmap";
			goto fail;
		}
		nm_block_in(m, b);
	}
	/* bits past the end must be clear */
	if (nr_regions % BITS_PER_LONG) {
		m->bits[BITS_TO_LONGS(nr_regions) - 1] &=
			BITMAP_LAST_WORD_MASK(nr_regions);
		m->ondisk[BITS_TO_LONGS(nr_regions) - 1] &=
			BITMAP_LAST_WORD_MASK(nr_regions);
	}
	return m;

nomem_free:
	r = -ENOMEM;
	*error = "Cannot allocate metadata";
fail:
	nm_meta_close(m);
	return ERR_PTR(r);
nomem:
	*error = "Cannot allocate metadata";
	return ERR_PTR(-ENOMEM);
}

void nm_meta_close(struct nm_meta *m)
{
	if (!m)
		return;
	if (m->page)
		__free_page(m->page);
	bitmap_free(m->dirty);
	kvfree(m->ondisk);
	kvfree(m->bits);
	kfree(m);
}

/* Is @region marked, and is the mark on stable storage? */
bool nm_meta_test(struct nm_meta *m, unsigned long region)
{
	unsigned long fl;
	bool marked;

	spin_lock_irqsave(&m->lock, fl);
	marked = test_bit(region, m->bits) && test_bit(region, m->ondisk);
	spin_unlock_irqrestore(&m->lock, fl);
	return marked;
}

/* Returns true if the bit was newly set (a commit is needed). */
bool nm_meta_set(struct nm_meta *m, unsigned long region)
{
	unsigned long fl;
	bool newly;

	spin_lock_irqsave(&m->lock, fl);
	newly = !__test_and_set_bit(region, m->bits);
	if (newly)
		__set_bit(region / NM_BITS_PER_BLOCK, m->dirty);
	spin_unlock_irqrestore(&m->lock, fl);
	return newly;
}

void nm_meta_clear(struct nm_meta *m, unsigned long region)
{
	unsigned long fl;

	spin_lock_irqsave(&m->lock, fl);
	/* none while a failed flush's marks wait (nm_meta_take_flush_failed) */
	if (!m->flush_failed && __test_and_clear_bit(region, m->bits)) {
		__set_bit(region / NM_BITS_PER_BLOCK, m->dirty);
		m->clears = true;
	}
	spin_unlock_irqrestore(&m->lock, fl);
}

void nm_meta_copy_bits(struct nm_meta *m, unsigned long *dst)
{
	unsigned long fl;

	spin_lock_irqsave(&m->lock, fl);
	bitmap_copy(dst, m->bits, m->nr_regions);
	spin_unlock_irqrestore(&m->lock, fl);
}

/*
 * dst = the marked regions set in none of the @n maps @skip, in one pass
 * word by word.  Returns true if dst is not empty.
 */
bool nm_meta_copy_bits_except(struct nm_meta *m, unsigned long *dst,
			      const unsigned long *const *skip, unsigned int n)
{
	unsigned long i, k, fl, words = BITS_TO_LONGS(m->nr_regions);
	unsigned int j;
	bool any = false;

	spin_lock_irqsave(&m->lock, fl);
	for (i = 0; i < words; i++) {
		k = m->bits[i];
		for (j = 0; j < n && k; j++)
			k &= ~skip[j][i];
		dst[i] = k;
		any |= !!k;
	}
	spin_unlock_irqrestore(&m->lock, fl);
	return any;
}

u32 nm_meta_flags(struct nm_meta *m)
{
	return READ_ONCE(m->flags);
}

void nm_meta_set_flags(struct nm_meta *m, u32 set, u32 clear)
{
	unsigned long fl;
	u32 old;

	spin_lock_irqsave(&m->lock, fl);
	old = m->flags;
	m->flags = (old | set) & ~clear;
	if (m->flags != old)
		m->sb_dirty = true;
	spin_unlock_irqrestore(&m->lock, fl);
}

/*
 * Read the superblock's flags and the bitmap again, dropping what is in
 * memory (a predecessor instance wrote the device since nm_meta_open).
 */
int nm_meta_reload(struct nm_meta *m)
{
	struct nm_meta_sb *sb;
	unsigned long b, fl;
	int r;

	might_sleep();
	mutex_lock(&m->commit_mutex);
	r = nm_meta_rw(m, 0, REQ_OP_READ);
	if (r)
		goto out;
	sb = page_address(m->page);
	if (le64_to_cpu(sb->magic) != NM_META_MAGIC ||
	    le32_to_cpu(sb->csum) != nm_sb_csum(sb) ||
	    le64_to_cpu(sb->nr_regions) != m->nr_regions) {
		r = -EILSEQ;
		goto out;
	}
	spin_lock_irqsave(&m->lock, fl);
	r = nm_meta_read_gens(m, sb);
	m->flags = le32_to_cpu(sb->flags);
	m->events = le64_to_cpu(sb->events);
	m->sb_dirty = false;
	m->clears = false;
	bitmap_zero(m->dirty, m->nr_blocks);
	spin_unlock_irqrestore(&m->lock, fl);
	for (b = 0; b < m->nr_blocks && !r; b++) {
		r = nm_meta_rw(m, (NM_BLOCK + b * NM_BLOCK) >> SECTOR_SHIFT,
			       REQ_OP_READ);
		if (!r) {
			spin_lock_irqsave(&m->lock, fl);
			nm_block_in(m, b);
			spin_unlock_irqrestore(&m->lock, fl);
		}
	}
	if (!r && m->nr_regions % BITS_PER_LONG) {
		spin_lock_irqsave(&m->lock, fl);
		m->bits[BITS_TO_LONGS(m->nr_regions) - 1] &=
			BITMAP_LAST_WORD_MASK(m->nr_regions);
		m->ondisk[BITS_TO_LONGS(m->nr_regions) - 1] &=
			BITMAP_LAST_WORD_MASK(m->nr_regions);
		spin_unlock_irqrestore(&m->lock, fl);
	}
out:
	mutex_unlock(&m->commit_mutex);
	return r;
}

/* dst |= the marked regions. */
void nm_meta_or_bits(struct nm_meta *m, unsigned long *dst)
{
	unsigned long fl;

	spin_lock_irqsave(&m->lock, fl);
	bitmap_or(dst, dst, m->bits, m->nr_regions);
	spin_unlock_irqrestore(&m->lock, fl);
}

/*
 * @dst |= every region marked in memory or on disk, the clears not yet
 * written cancelled: a mark cleared in memory stays on disk until a
 * commit's flush of the data device succeeded (nm_meta_flush_clears), so
 * this covers every write no good flush made stable, and a later commit
 * does not write those clears.  Any context.
 */
void nm_meta_or_held(struct nm_meta *m, unsigned long *dst)
{
	unsigned long fl;

	spin_lock_irqsave(&m->lock, fl);
	__nm_meta_keep_ondisk(m);	/* and they stay marked */
	bitmap_or(dst, dst, m->bits, m->nr_regions);
	spin_unlock_irqrestore(&m->lock, fl);
}

/*
 * Did a flush of the data device for clears fail since the last call?
 * Whichever commit ran it (a mark's, a generation's, the lazy clear's),
 * its clears were cancelled, and no mark is cleared until this call; the
 * caller marks what the cache may have lost (nm_local_flush_failed).  Any
 * context.
 */
bool nm_meta_take_flush_failed(struct nm_meta *m)
{
	unsigned long fl;
	bool r;

	spin_lock_irqsave(&m->lock, fl);
	r = m->flush_failed;
	m->flush_failed = false;
	spin_unlock_irqrestore(&m->lock, fl);
	return r;
}

/*
 * Wait until a commit under way ended (its flush may yet fail: then
 * nm_meta_take_flush_failed sees it).  Process context, not under nm->lock.
 */
void nm_meta_commit_wait(struct nm_meta *m)
{
	might_sleep();
	mutex_lock(&m->commit_mutex);
	mutex_unlock(&m->commit_mutex);
}

/*
 * Mark every region set in @src (word by word: no per-region loop).
 * Returns true if one was newly set (a commit is needed).
 */
bool nm_meta_set_bits(struct nm_meta *m, const unsigned long *src)
{
	unsigned long i, w, fl, words = BITS_TO_LONGS(m->nr_regions);
	unsigned long per_block = NM_BLOCK / sizeof(long);
	bool newly = false;

	spin_lock_irqsave(&m->lock, fl);
	for (i = 0; i < words; i++) {
		w = src[i];
		/* never a bit past the last region (bitmap_fill sets them) */
		if (i == words - 1)
			w &= BITMAP_LAST_WORD_MASK(m->nr_regions);
		if (w & ~m->bits[i]) {
			m->bits[i] |= w;
			__set_bit(i / per_block, m->dirty);
			newly = true;
		}
	}
	spin_unlock_irqrestore(&m->lock, fl);
	return newly;
}

/*
 * Unmark the regions set in @clear (every region if NULL) and in none of
 * the @n maps @keep, word by word.  Returns true if one was unmarked (a
 * commit is needed).
 */
bool nm_meta_clear_bits(struct nm_meta *m, const unsigned long *clear,
			const unsigned long *const *keep, unsigned int n)
{
	unsigned long i, k, fl, words = BITS_TO_LONGS(m->nr_regions);
	unsigned long per_block = NM_BLOCK / sizeof(long);
	unsigned int j;
	bool any = false;

	spin_lock_irqsave(&m->lock, fl);
	for (i = 0; i < words && !m->flush_failed; i++) {
		k = m->bits[i] & (clear ? clear[i] : ~0UL);
		for (j = 0; j < n && k; j++)
			k &= ~keep[j][i];
		if (k) {
			m->bits[i] &= ~k;
			__set_bit(i / per_block, m->dirty);
			any = true;
		}
	}
	if (any)
		m->clears = true;
	spin_unlock_irqrestore(&m->lock, fl);
	return any;
}

void nm_meta_gens(struct nm_meta *m, struct nm_gens *g)
{
	unsigned long fl;

	spin_lock_irqsave(&m->lock, fl);
	*g = m->gens;
	spin_unlock_irqrestore(&m->lock, fl);
}

/* New generations: written by the next nm_meta_commit(). */
void nm_meta_set_gens(struct nm_meta *m, const struct nm_gens *g)
{
	unsigned long fl;

	spin_lock_irqsave(&m->lock, fl);
	if (memcmp(&m->gens, g, sizeof(*g))) {
		m->gens = *g;
		m->sb_dirty = true;
	}
	spin_unlock_irqrestore(&m->lock, fl);
}
