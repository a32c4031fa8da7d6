// SPDX-License-Identifier: GPL-2.0
/*
 * netmirror reload: what one table's instance hands to the next.
 *
 * A reload ("dmsetup load" + "resume") constructs the new instance while
 * the old one is still live, then suspends the old one, resumes the new
 * one and destroys the old one.  So the constructor must not trust what
 * it reads from the metadata device (the old instance still writes it),
 * and without a metadata device nothing on disk says which regions the
 * peer misses.  Hence:
 *   - postsuspend: the old instance has stopped its link (its transfer
 *     log is now in its out-of-sync bitmap), commits its metadata and
 *     leaves its region state, disk state and geometry here, keyed by the
 *     mapped device;
 *   - preresume of a new instance: it re-reads the metadata device (now
 *     quiet) and takes the entry left for its mapped device: the regions
 *     out of sync (converted if region_size or the size changed) and the
 *     disk state (inconsistent or diskless stays not uptodate);
 *   - preresume of a new instance without such an entry (none, or one on
 *     another local device): it re-reads the metadata device all the same
 *     (nm_reload_reread);
 *   - dtr, or a resume of the same instance: its own entry is dropped.
 * And a table may not move the data on a local device that another live
 * instance uses ("meta internal" puts it after the metadata area): its ctr
 * is refused before it writes anything (nm_reload_layout), nor make
 * primary a live secondary whose disk is not uptodate (nm_reload_ctr_role).
 *
 * Context: all calls in process context (suspend/resume/dtr), may sleep.
 * Lock: nm_reload_lock (a mutex) guards both lists; the region state is
 * read under nm->lock.
 */
#include <linux/slab.h>
#include <linux/blkdev.h>
#include <linux/mm.h>
#include <linux/bitmap.h>
#include <linux/sched/mm.h>
#include "dm-netmirror.h"

struct nm_reload_entry {
	struct list_head list;
	struct mapped_device *md;
	struct nm_dev *owner;		/* the instance that left it */
	dev_t local;			/* its local device */
	dev_t meta;			/* its metadata device, or 0 */
	sector_t sectors;
	unsigned int shift;		/* its regions: 2^shift sectors */
	unsigned long nr;
	enum nm_disk disk;
	u32 role;			/* enum nm_role */
	struct nm_gens gen;
	bool gen_fresh;
	bool pri_at_split;
	u64 gen_exposed;		/* not its disk's: the peer's data */
	bool gen_unsaved;		/* not on the metadata (a failed commit) */
	bool frozen;			/* fencing: writes were held */
	unsigned long *oos;
};

static LIST_HEAD(nm_reload_list);
static LIST_HEAD(nm_live_list);		/* every constructed instance */
static DEFINE_MUTEX(nm_reload_lock);

static struct mapped_device *nm_md(struct nm_dev *nm)
{
	return dm_table_get_md(nm->ti->table);
}

static void nm_reload_free(struct nm_reload_entry *e)
{
	list_del(&e->list);
	kvfree(e->oos);
	kfree(e);
}

/* The device that holds our metadata (internal: the local one), or 0. */
static dev_t nm_reload_meta_dev(struct nm_dev *nm)
{
	if (nm->meta_internal)
		return nm->dev->bdev->bd_dev;
	return nm->meta_dev ? nm->meta_dev->bdev->bd_dev : 0;
}

/* Drop the entry @nm left, if any.  Caller holds nm_reload_lock. */
static void nm_reload_drop_own(struct nm_dev *nm)
{
	struct nm_reload_entry *e, *tmp;

	lockdep_assert_held(&nm_reload_lock);
	list_for_each_entry_safe(e, tmp, &nm_reload_list, list)
		if (e->owner == nm)
			nm_reload_free(e);
}

/*
 * A primary without metadata marks, at a failed flush of its disk
 * (on_io_error pass_on), the regions written since its table's start
 * (rg.touched: nm_local_flush_failed), and a successor starts with none.
 * So the writes of this instance are made stable now, or put out of sync
 * (and handed on so) if that flush fails: up to 1.18.21 a flush failing
 * after a reload missed them (fault-pflushfail, part reload).
 */
static void nm_reload_flush_touched(struct nm_dev *nm)
{
	unsigned long flags;
	bool any;

	might_sleep();
	if (nm->meta || !nm->pass_on || READ_ONCE(nm->role) != NM_ROLE_PRIMARY ||
	    READ_ONCE(nm->disk) == NM_DISK_DISKLESS)
		return;
	spin_lock_irqsave(&nm->lock, flags);
	any = !bitmap_empty(nm->rg.touched, nm->rg.nr);
	spin_unlock_irqrestore(&nm->lock, flags);
	if (!any)
		return;
	if (blkdev_issue_flush(nm->dev->bdev)) {
		nm_local_flush_failed(nm);
		return;
	}
	/* suspended: no write in flight, all stable (a resume keeps us) */
	spin_lock_irqsave(&nm->lock, flags);
	bitmap_zero(nm->rg.touched, nm->rg.nr);
	spin_unlock_irqrestore(&nm->lock, flags);
}

/* postsuspend, after the link stopped: leave our state for a successor. */
void nm_reload_save(struct nm_dev *nm)
{
	struct nm_reload_entry *e;
	unsigned int noio;
	unsigned long flags;

	might_sleep();
	nm_reload_flush_touched(nm);
	nm_rs_flush_pending(nm);
	if (nm->meta && nm_meta_commit(nm->meta))
		nm_err(nm, "cannot commit the metadata at suspend");
	noio = memalloc_noio_save();	/* the device is suspended */
	e = kzalloc(sizeof(*e), GFP_KERNEL);
	if (e)
		e->oos = kvcalloc(BITS_TO_LONGS(nm->rg.nr), sizeof(long),
				  GFP_KERNEL | __GFP_RETRY_MAYFAIL |
				  __GFP_NOWARN);
	memalloc_noio_restore(noio);
	if (!e || !e->oos) {
		kfree(e);
		/* a successor without our state must resync everything */
		nm_err(nm, "cannot keep the region state for a reload: a reload now resyncs all");
		e = NULL;
	}
	mutex_lock(&nm_reload_lock);
	nm_reload_drop_own(nm);
	if (e) {
		e->md = nm_md(nm);
		e->owner = nm;
		e->local = nm->dev->bdev->bd_dev;
		e->meta = nm_reload_meta_dev(nm);
		e->sectors = nm->sectors;
		e->shift = nm->rg.shift;
		e->nr = nm->rg.nr;
		spin_lock_irqsave(&nm->lock, flags);
		bitmap_copy(e->oos, nm->rg.oos, nm->rg.nr);
		e->disk = nm->disk;
		e->role = nm->role;
		e->gen = nm->gen;
		e->gen_fresh = nm->gen_fresh;
		e->pri_at_split = nm->pri_at_split;
		e->gen_exposed = nm->gen_exposed;
		e->gen_unsaved = nm->gen_unsaved;
		e->frozen = nm->frozen;
		spin_unlock_irqrestore(&nm->lock, flags);
		list_add(&e->list, &nm_reload_list);
	}
	mutex_unlock(&nm_reload_lock);
}

/* Mark our regions covering the predecessor's out-of-sync regions. */
static void nm_reload_merge(struct nm_dev *nm, struct nm_reload_entry *e)
{
	unsigned long flags, r, f, l;

	spin_lock_irqsave(&nm->lock, flags);
	if (e->shift == nm->rg.shift && e->sectors == nm->sectors) {
		bitmap_or(nm->rg.oos, nm->rg.oos, e->oos, nm->rg.nr);
	} else {
		for_each_set_bit(r, e->oos, e->nr)
			if (nm_regions_range(&nm->rg, (u64)r << e->shift,
					     1U << e->shift, &f, &l))
				nm_regions_mark_oos(&nm->rg, f, l);
		/* space the predecessor did not have: the peer's is unknown */
		if (nm->sectors > e->sectors &&
		    nm_regions_range(&nm->rg, e->sectors,
				     nm->sectors - e->sectors, &f, &l))
			nm_regions_mark_oos(&nm->rg, f, l);
	}
	spin_unlock_irqrestore(&nm->lock, flags);
}

/*
 * Is the predecessor's state ours to take?  It is when its metadata device
 * is ours (the table says the local device holds the data that metadata
 * describes, whatever its path: up to 1.18.9 another local device number,
 * such as a dm-linear over the same disk, dropped it, and with it a
 * detached disk, a freeze and a generation kept only in memory), or when
 * neither has metadata and the local device is the same.
 */
static bool nm_reload_ours(struct nm_dev *nm, struct nm_reload_entry *e)
{
	dev_t m = nm_reload_meta_dev(nm);

	return e->meta == m && (m || e->local == nm->dev->bdev->bd_dev);
}

/* The less trusted of two disk states (a detached disk is not uptodate). */
static enum nm_disk nm_reload_worse(enum nm_disk a, enum nm_disk b)
{
	if (a == NM_DISK_INCONSISTENT || a == NM_DISK_DISKLESS ||
	    b == NM_DISK_INCONSISTENT || b == NM_DISK_DISKLESS)
		return NM_DISK_INCONSISTENT;
	if (a == NM_DISK_OUTDATED || b == NM_DISK_OUTDATED)
		return NM_DISK_OUTDATED;
	return NM_DISK_UPTODATE;
}

/*
 * A table that makes this node primary was checked by its ctr against the
 * disk state of the time of the load (nm_ctr_history); the disk may have
 * become outdated or inconsistent since (a fence handler's "outdate"
 * while the new table waited).  As the ctr and "primary" do, refuse it
 * unless the node was primary already (a detached primary's reload stays
 * primary, resynced from its peer).  A refused instance stays refused: a
 * retried resume would no longer find the predecessor's state (dm destroys
 * the predecessor when a resume fails).  Up to 1.18.8 the resume made an
 * outdated secondary primary, serving stale reads (fault-reloadrole).
 */
static int nm_reload_role_ok(struct nm_dev *nm, enum nm_disk disk,
			     u32 prev_role)
{
	if (!nm->reload_refused &&
	    (nm->role != NM_ROLE_PRIMARY || prev_role == NM_ROLE_PRIMARY ||
	     disk == NM_DISK_UPTODATE))
		return 0;
	nm->reload_refused = true;
	nm_err(nm, "reload: the disk is %s, this table cannot make the node primary (load it as secondary and resync, or promote with force_primary)",
	       nm_disk_name(disk));
	return -EPERM;
}

/*
 * First resume with no predecessor's state to take (none was left, its
 * metadata was another, or our resume failed once and dm destroyed the
 * predecessor meanwhile): a live table may still have written our metadata
 * device after our ctr read it.  Read it again and take what it says now:
 * its marks, its generations, and the less trusted of its disk state and
 * the ctr's, on the metadata too (a disk the ctr read inconsistent stays
 * so, and its metadata says so before any resync data land).  Up to 1.18.5
 * the ctr's reads stayed: a write between the load and the resume lost its
 * marks and its generation (fault-reloadpath).
 */
static int nm_reload_reread(struct nm_dev *nm, u32 prev_role)
{
	enum nm_disk disk = nm->disk;
	unsigned long flags;
	struct nm_gens g;
	u32 f;
	int r;

	if (nm->meta) {
		r = nm_meta_reload(nm->meta);
		if (r) {
			nm_err(nm, "cannot re-read the metadata device (%d)", r);
			return r;
		}
		nm_meta_gens(nm->meta, &g);
		f = nm_meta_flags(nm->meta);
		disk = nm_reload_worse(disk, !(f & NM_MF_CONSISTENT) ?
				       NM_DISK_INCONSISTENT :
				       (f & NM_MF_OUTDATED) ? NM_DISK_OUTDATED :
				       NM_DISK_UPTODATE);
	}
	r = nm_reload_role_ok(nm, disk, prev_role);
	if (r)
		return r;
	if (nm->meta) {
		spin_lock_irqsave(&nm->lock, flags);
		nm_meta_or_bits(nm->meta, nm->rg.oos);
		nm->gen = g;
		spin_unlock_irqrestore(&nm->lock, flags);
	}
	if (disk != NM_DISK_UPTODATE)
		nm_disk_adopt(nm, disk);
	return 0;
}

/*
 * First resume: a table that starts primary sets NM_MF_PRIMARY (nm_meta.h)
 * and commits it before its first write (failed: the writes wait for
 * nm_gen_save, gen_unsaved).  A secondary's table keeps what it read: a
 * node back after it stopped as primary is its peer's resync source
 * (nm_gens_eq_marks), and a table that demotes the primary leaves it for
 * nm_stable_point, as the "secondary" message does.
 */
static void nm_reload_primary_flag(struct nm_dev *nm)
{
	unsigned long flags;
	bool unsaved;

	might_sleep();
	if (!nm->meta || nm->role != NM_ROLE_PRIMARY)
		return;
	spin_lock_irqsave(&nm->lock, flags);
	__nm_primary_flag(nm, true);
	unsaved = nm->gen_unsaved;
	spin_unlock_irqrestore(&nm->lock, flags);
	if (unsaved)
		nm_gen_save(nm);
}

/*
 * preresume: on the first resume of this instance, re-read the metadata
 * (the predecessor no longer writes it) and take the predecessor's state.
 * On a later resume, drop what our own suspend left.
 */
int nm_reload_adopt(struct nm_dev *nm)
{
	struct nm_reload_entry *e, *found = NULL;
	struct nm_gens ondisk = {};
	u32 prev_role = NM_ROLE_SECONDARY;
	unsigned long flags;
	enum nm_disk disk;
	int r;

	might_sleep();
	mutex_lock(&nm_reload_lock);
	nm_reload_drop_own(nm);
	if (nm->resumed) {
		mutex_unlock(&nm_reload_lock);
		return 0;
	}
	list_for_each_entry(e, &nm_reload_list, list)
		if (e->md == nm_md(nm) && e->owner != nm)
			found = e;
	if (found && !nm_reload_ours(nm, found)) {
		/* another metadata device: the predecessor's state is not its */
		nm_info(nm, "reload onto another metadata device: its state is not taken over");
		prev_role = found->role;
		nm_reload_free(found);
		found = NULL;
	}
	if (!found) {
		mutex_unlock(&nm_reload_lock);
		r = nm_reload_reread(nm, prev_role);
		if (r)
			return r;
		nm_reload_primary_flag(nm);
		nm->resumed = true;
		return 0;
	}
	disk = found->disk == NM_DISK_DISKLESS ? NM_DISK_INCONSISTENT :
	       found->disk;
	r = nm_reload_role_ok(nm, disk, found->role);
	if (r) {
		mutex_unlock(&nm_reload_lock);
		return r;
	}
	if (nm->meta) {
		r = nm_meta_reload(nm->meta);
		if (r) {
			mutex_unlock(&nm_reload_lock);
			nm_err(nm, "cannot re-read the metadata device (%d)", r);
			return r;
		}
	}
	/*
	 * The predecessor's regions out of sync are the truth, with a
	 * metadata device too: its bits are those regions and the marks of
	 * recent writes (cleared lazily, two stable points after them), which
	 * the predecessor's stop confirmed or put out of sync.  Up to 1.18.19
	 * the bits re-read were added: every region written in the last
	 * second or two was resynced after a planned reload, the peer its
	 * target, not promotable meanwhile (fault-reloadtl, part meta).  The
	 * marks stay on the metadata, and the lazy clear takes them.
	 */
	spin_lock_irqsave(&nm->lock, flags);
	bitmap_zero(nm->rg.oos, nm->rg.nr);
	spin_unlock_irqrestore(&nm->lock, flags);
	nm_reload_merge(nm, found);
	if (nm->meta) {
		bool newly;

		spin_lock_irqsave(&nm->lock, flags);
		newly = nm_meta_set_bits(nm->meta, nm->rg.oos);
		spin_unlock_irqrestore(&nm->lock, flags);
		/* a mark the predecessor could not commit (pass_on) */
		if (newly)
			nm_meta_commit(nm->meta);
	}
	if (nm->meta)
		nm_meta_gens(nm->meta, &ondisk);
	spin_lock_irqsave(&nm->lock, flags);
	/* the predecessor's history is ours */
	nm->gen = found->gen;
	nm->gen_fresh = found->gen_fresh;
	nm->pri_at_split = found->pri_at_split;
	nm->gen_exposed = found->gen_exposed;
	/*
	 * and our metadata's: a generation the predecessor could not record
	 * (or that differs from what we re-read) is not on the metadata yet,
	 * and the next write commits it first.  Up to 1.18.6 the metadata
	 * object kept the re-read one: that commit wrote nothing, and writes
	 * of the new generation were acknowledged with the old one on disk
	 * (fault-reloadgen).
	 */
	nm->gen_unsaved = nm->meta &&
			  (found->gen_unsaved ||
			   memcmp(&ondisk, &nm->gen, sizeof(ondisk)));
	if (nm->meta)
		nm_meta_set_gens(nm->meta, &nm->gen);
	/* still unfenced: the successor holds writes too (if it fences) */
	nm->frozen = found->frozen && nm->fencing &&
		     nm->role == NM_ROLE_PRIMARY;
	/* the disk was detached: like "attach", all of it is stale */
	if (found->disk == NM_DISK_DISKLESS)
		bitmap_fill(nm->rg.oos, nm->rg.nr);
	spin_unlock_irqrestore(&nm->lock, flags);
	nm_reload_free(found);
	mutex_unlock(&nm_reload_lock);

	/* the predecessor's disk state is the newest truth: in memory and on the metadata */
	nm_disk_adopt(nm, disk);
	nm_reload_primary_flag(nm);
	nm->resumed = true;
	nm_info(nm, "reload: took over the region state of the previous table (%lu regions out of sync)",
		nm_regions_oos_count(&nm->rg));
	return 0;
}

/*
 * ctr, before the metadata is opened: the data of the local device starts
 * at @data_start for us; refuse if another live instance on the same local
 * device (the table this one replaces) has it elsewhere.  Then it is our
 * nm->data_start and we count as live until nm_reload_forget.
 */
int nm_reload_layout(struct nm_dev *nm, sector_t data_start, char **error)
{
	struct nm_dev *o;
	int r = 0;

	might_sleep();
	mutex_lock(&nm_reload_lock);
	list_for_each_entry(o, &nm_live_list, live) {
		if (o->dev->bdev->bd_dev != nm->dev->bdev->bd_dev)
			continue;
		if (o->meta_internal != nm->meta_internal ||
		    o->data_start != data_start) {
			*error = "Local device in use with another layout (meta internal)";
			r = -EBUSY;
			break;
		}
	}
	if (!r) {
		nm->data_start = data_start;
		list_add(&nm->live, &nm_live_list);
	}
	mutex_unlock(&nm_reload_lock);
	return r;
}

/*
 * ctr: a table with "role primary" loaded over a live secondary of the
 * same mapped device whose state it would take over (nm_reload_ours)
 * while that disk is not uptodate.  Its resume would be refused
 * (nm_reload_role_ok), and a refused resume leaves the device suspended
 * with a table that cannot serve it; refused here, the load fails and the
 * live table goes on.  The ctr's own reading cannot see it: without
 * metadata, or with a fresh one, a primary's table is the source of a
 * full sync.  The resume checks again (the disk may change in between).
 * Up to 1.18.9 only the resume refused (tests/vm/guest/nm-tables.sh).
 */
int nm_reload_ctr_role(struct nm_dev *nm, char **error)
{
	dev_t m = nm_reload_meta_dev(nm);
	struct nm_dev *o;
	int r = 0;

	might_sleep();
	if (nm->table_role != NM_ROLE_PRIMARY)
		return 0;
	mutex_lock(&nm_reload_lock);
	list_for_each_entry(o, &nm_live_list, live) {
		enum nm_disk disk = READ_ONCE(o->disk);

		if (o == nm || !READ_ONCE(o->resumed) || nm_md(o) != nm_md(nm) ||
		    nm_reload_meta_dev(o) != m ||
		    (!m && o->dev->bdev->bd_dev != nm->dev->bdev->bd_dev))
			continue;
		if (READ_ONCE(o->role) == NM_ROLE_PRIMARY ||
		    disk == NM_DISK_UPTODATE)
			continue;
		*error = disk == NM_DISK_OUTDATED ?
			 "The live table's disk is outdated: cannot be primary" :
			 "The live table's disk is not uptodate: cannot be primary";
		r = -EPERM;
		break;
	}
	mutex_unlock(&nm_reload_lock);
	return r;
}

/* dtr: nothing of ours may outlive us. */
void nm_reload_forget(struct nm_dev *nm)
{
	mutex_lock(&nm_reload_lock);
	nm_reload_drop_own(nm);
	list_del_init(&nm->live);
	mutex_unlock(&nm_reload_lock);
}
