// SPDX-License-Identifier: GPL-2.0
/*
 * dm-netmirror: a device-mapper target that mirrors writes to a peer node
 * over a kernel TCP connection.  This file holds the target interface and
 * the bio flow; the connection lives in nm_conn.c, the secondary's write
 * path in nm_peer.c, the wire format in nm_wire.h.
 *
 * Write ordering contract.  If write X completed to its submitter on the
 * primary before write Y was submitted, then on the secondary's stable
 * storage X is never missing while Y is present (ordering "flush"; "drain"
 * gives the same only when the secondary's disk has no volatile cache).
 * The primary groups writes into epochs: a new epoch starts with the first
 * write submitted after any write of the current epoch completed.  Writes of
 * one epoch may land in any order; a P_BARRIER separates epochs on the wire
 * and the secondary drains (and, for "flush", flushes) the old epoch before
 * issuing any write of the next.  REQ_PREFLUSH and REQ_FUA travel with the
 * write and are applied on both nodes; under protocol C the write completes
 * only after the peer's disk completed it with those flags.
 *
 * Where a write goes (primary):  map() clones the bio to the local device
 * and queues the original on send_q; the sender thread transmits it, then
 * the receiver completes its peer part on the protocol's ack (A: sent,
 * B: P_RECV_ACK, C: P_WRITE_ACK).  The bio ends when both parts are done.
 * A write that cannot reach the peer completes from the local disk alone
 * and its regions are marked out of sync.
 *
 * Lock order: see dm-netmirror.h (tx_mutex, then nm->lock).
 */
#include <linux/module.h>
#include <linux/init.h>
#include <linux/slab.h>
#include <linux/inet.h>
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/random.h>
#include <linux/bitmap.h>
#include <linux/vmalloc.h>
#include <linux/mm.h>
#include <linux/key.h>
#include <keys/user-type.h>
#include "dm-netmirror.h"

/* Parse "a.b.c.d:port" or "[v6]:port"; strict. */
static int nm_parse_addr(const char *s, struct sockaddr_storage *ss)
{
	const char *end, *colon;
	unsigned int port;
	char pbuf[8];
	size_t plen;

	memset(ss, 0, sizeof(*ss));
	if (s[0] == '[') {
		struct sockaddr_in6 *a = (struct sockaddr_in6 *)ss;

		if (!in6_pton(s + 1, -1, a->sin6_addr.s6_addr, ']', &end))
			return -EINVAL;
		if (end[0] != ']' || end[1] != ':')
			return -EINVAL;
		colon = end + 1;
		a->sin6_family = AF_INET6;
	} else {
		struct sockaddr_in *a = (struct sockaddr_in *)ss;
		const char *o;

		if (!in4_pton(s, -1, (u8 *)&a->sin_addr.s_addr, ':', &end))
			return -EINVAL;
		if (end[0] != ':')
			return -EINVAL;
		/* canonical: no octet with a leading zero (in4_pton takes it) */
		for (o = s; o < end; o++)
			if (*o == '0' && (o == s || o[-1] == '.') &&
			    o[1] >= '0' && o[1] <= '9')
				return -EINVAL;
		colon = end;
		a->sin_family = AF_INET;
	}
	plen = strlen(colon + 1);
	if (plen < 1 || plen > 5 || colon[1] == '0' || colon[1] == '+')
		return -EINVAL;
	memcpy(pbuf, colon + 1, plen + 1);
	if (kstrtouint(pbuf, 10, &port) || port < 1 || port > 65535)
		return -EINVAL;
	if (ss->ss_family == AF_INET)
		((struct sockaddr_in *)ss)->sin_port = htons(port);
	else
		((struct sockaddr_in6 *)ss)->sin6_port = htons(port);
	return 0;
}

/*
 * A canonical decimal number that fits in 32 bits: digits only, no sign,
 * no leading zero (but "0"), no wrap-around.
 */
static bool nm_parse_u64(const char *s, u64 *v);

static bool nm_parse_uint(const char *s, unsigned int *v)
{
	u64 x;

	if (!nm_parse_u64(s, &x) || x > UINT_MAX)
		return false;
	*v = x;
	return true;
}

/* The same for 64 bits. */
static bool nm_parse_u64(const char *s, u64 *v)
{
	const char *p;

	for (p = s; *p; p++)
		if (*p < '0' || *p > '9')
			return false;
	if (p == s || (s[0] == '0' && s[1]))
		return false;
	return !kstrtou64(s, 10, v);
}

/* Index of @w in the '|'-separated @words, or -1. */
static int nm_word_index(const char *words, const char *w)
{
	size_t n = strlen(w);
	int i = 0;

	while (*words) {
		const char *e = strchrnul(words, '|');

		if (e - words == n && !strncmp(words, w, n))
			return i;
		words = *e ? e + 1 : e;
		i++;
	}
	return -1;
}

/* Print word @idx of the '|'-separated @words. */
static unsigned int nm_word_emit(char *result, unsigned int maxlen,
				 unsigned int sz, const char *words,
				 unsigned int idx)
{
	int len;
	const char *w = nm_word_at(words, idx, &len);

	DMEMIT("%.*s", len, w);
	return sz;
}

/* The table options, from nm_params.h. */
struct nm_opt_row {
	const char *kw;
	enum nm_param_type type;
	u32 min, max, def;
	const char *words;
	const char *invalid;
	const char *dup;
};

#define NM_OPT_ROW(kw, id, t, mn, mx, df, since, vh, w, want, h)	\
	[NM_OPT_##id] = { #kw, NM_PT_##t, mn, mx, df, w,		\
			  "Invalid " #kw " (want " want ")",		\
			  "Duplicate optional argument: " #kw },
static const struct nm_opt_row nm_opts[NM_OPT_COUNT] = {
	NM_OPTIONS(NM_OPT_ROW)
};

#undef NM_OPT_ROW

/* Where each number or enum option is kept (a u32 in struct nm_dev). */
static const size_t nm_opt_field[NM_OPT_COUNT] = {
	[NM_OPT_ROLE] = offsetof(struct nm_dev, table_role),
	[NM_OPT_REGION_SIZE] = offsetof(struct nm_dev, region_sectors),
	[NM_OPT_SYNC] = offsetof(struct nm_dev, sync_none),
	[NM_OPT_RESYNC_RATE] = offsetof(struct nm_dev, table_rate),
	[NM_OPT_TIMEOUT] = offsetof(struct nm_dev, timeout_ms),
	[NM_OPT_PING] = offsetof(struct nm_dev, ping_ms),
	[NM_OPT_ON_IO_ERROR] = offsetof(struct nm_dev, pass_on),
	[NM_OPT_INTEGRITY] = offsetof(struct nm_dev, integrity),
	[NM_OPT_AFTER_SB_0PRI] = offsetof(struct nm_dev, after_sb[0]),
	[NM_OPT_AFTER_SB_1PRI] = offsetof(struct nm_dev, after_sb[1]),
	[NM_OPT_FENCING] = offsetof(struct nm_dev, fencing),
	[NM_OPT_CSUMS] = offsetof(struct nm_dev, csums),
	[NM_OPT_VERIFY_ALG] = offsetof(struct nm_dev, verify_alg),
	[NM_OPT_MAX_BUFFERS] = offsetof(struct nm_dev, max_buffers),
};

static u32 *nm_opt_u32(struct nm_dev *nm, enum nm_opt_id id)
{
	return (u32 *)((char *)nm + nm_opt_field[id]);
}

static void nm_opts_default(struct nm_dev *nm)
{
	unsigned int id;

	for (id = 0; id < NM_OPT_COUNT; id++)
		if (nm_opt_field[id])
			*nm_opt_u32(nm, id) = nm_opts[id].def;
}

/* One option's value, by the type of its row. */
static int nm_parse_opt(struct nm_dev *nm, enum nm_opt_id id,
			const char *val, char **error)
{
	const struct nm_opt_row *o = &nm_opts[id];
	unsigned int v;
	int i, r;

	switch (o->type) {
	case NM_PT_U32:
	case NM_PT_POW2:
		if (!nm_parse_uint(val, &v) || v < o->min || v > o->max ||
		    (o->type == NM_PT_POW2 && !is_power_of_2(v)))
			goto invalid;
		*nm_opt_u32(nm, id) = v;
		return 0;
	case NM_PT_ENUM:
		i = nm_word_index(o->words, val);
		if (i < 0)
			goto invalid;
		*nm_opt_u32(nm, id) = i;
		return 0;
	case NM_PT_ADDR:	/* listen */
		if (strlen(val) >= sizeof(nm->listen_str) ||
		    nm_parse_addr(val, &nm->listen_addr))
			goto invalid;
		strscpy(nm->listen_str, val, sizeof(nm->listen_str));
		return 0;
	case NM_PT_DEV:		/* meta */
		if (!strcmp(val, "internal")) {
			nm->meta_internal = true;
			return 0;
		}
		r = dm_get_device(nm->ti, val,
				  dm_table_get_mode(nm->ti->table),
				  &nm->meta_dev);
		if (r) {
			*error = "Cannot open metadata device";
			return r;
		}
		return 0;
	case NM_PT_KEYDESC:	/* secret */
		if (strlen(val) < o->min || strlen(val) > o->max ||
		    strchr(val, '%'))
			goto invalid;
		strscpy(nm->secret_desc, val, sizeof(nm->secret_desc));
		/* look it up here, in the caller's keyrings */
		nm->secret_key = request_key(&key_type_logon, val, NULL);
		if (IS_ERR(nm->secret_key)) {
			r = PTR_ERR(nm->secret_key);
			nm->secret_key = NULL;
			*error = "Secret: no logon key with that description";
			return r;
		}
		return 0;
	}
invalid:
	*error = (char *)o->invalid;
	return -EINVAL;
}

/* [<#opt_args> <keyword> <value>...], each keyword at most once. */
static int nm_parse_opts(struct nm_dev *nm, struct dm_arg_set *as,
			 char **error)
{
	const char *key, *val;
	unsigned int argc, id;
	int r;

	if (!as->argc)
		return 0;
	if (!nm_parse_uint(dm_shift_arg(as), &argc) ||
	    argc > 2 * NM_OPT_COUNT) {
		*error = "Invalid number of optional arguments";
		return -EINVAL;
	}
	if (argc != as->argc) {
		*error = "Optional argument count does not match the words given";
		return -EINVAL;
	}
	while (argc) {
		key = dm_shift_arg(as);
		argc--;
		if (!argc) {
			*error = "Optional argument is missing its value";
			return -EINVAL;
		}
		val = dm_shift_arg(as);
		argc--;
		for (id = 0; id < NM_OPT_COUNT; id++)
			if (!strcmp(key, nm_opts[id].kw))
				break;
		if (id == NM_OPT_COUNT) {
			*error = "Unknown optional argument";
			return -EINVAL;
		}
		if (test_and_set_bit(id, &nm->given)) {
			*error = (char *)nm_opts[id].dup;
			return -EINVAL;
		}
		r = nm_parse_opt(nm, id, val, error);
		if (r)
			return r;
	}
	if (nm->ping_ms >= nm->timeout_ms) {
		*error = "ping must be shorter than timeout";
		return -EINVAL;
	}
	return 0;
}

/* Is option @id part of the canonical reprint? */
static bool nm_opt_printed(struct nm_dev *nm, enum nm_opt_id id)
{
	if (!test_bit(id, &nm->given))
		return false;
	/* "role secondary" is the default and never reprinted */
	return id != NM_OPT_ROLE || nm->table_role == NM_ROLE_PRIMARY;
}

/* The options of the table line, canonical: given ones, in row order. */
static unsigned int nm_emit_opts(struct nm_dev *nm, char *result,
				 unsigned int maxlen, unsigned int sz)
{
	unsigned int id, n = 0;

	for (id = 0; id < NM_OPT_COUNT; id++)
		n += nm_opt_printed(nm, id) ? 2 : 0;
	if (!n)
		return sz;
	DMEMIT(" %u", n);
	for (id = 0; id < NM_OPT_COUNT; id++) {
		if (!nm_opt_printed(nm, id))
			continue;
		DMEMIT(" %s ", nm_opts[id].kw);
		switch (nm_opts[id].type) {
		case NM_PT_U32:
		case NM_PT_POW2:
			DMEMIT("%u", *nm_opt_u32(nm, id));
			break;
		case NM_PT_ENUM:
			sz = nm_word_emit(result, maxlen, sz, nm_opts[id].words,
					  *nm_opt_u32(nm, id));
			break;
		case NM_PT_ADDR:
			DMEMIT("%s", nm->listen_str);
			break;
		case NM_PT_DEV:
			DMEMIT("%s", nm->meta_internal ? "internal" :
			       nm->meta_dev->name);
			break;
		case NM_PT_KEYDESC:
			DMEMIT("%s", nm->secret_desc);
			break;
		}
	}
	return sz;
}

static void nm_dtr(struct dm_target *ti);

/*
 * The per-region state of one device may take at most this share of the
 * machine's memory (1/NM_REGIONS_MEM_SHARE): more is a region_size too
 * small for the device, refused before any of it is taken.
 */
#define NM_REGIONS_MEM_SHARE 4

/* Allocate the per-region state and the first resync slot. */
static int nm_ctr_regions(struct nm_dev *nm, char **error)
{
	u64 need, room;
	unsigned int i;

	need = nm_regions_bytes(nm->sectors, nm->region_sectors,
				nm->meta_dev || nm->meta_internal);
	room = ((u64)totalram_pages() << PAGE_SHIFT) / NM_REGIONS_MEM_SHARE;
	if (need > room) {
		nm_err(nm, "%llu regions of %u sectors need %llu MiB of memory, more than 1/%u of this machine's %llu MiB: use a larger region_size",
		       DIV_ROUND_UP_ULL(nm->sectors, nm->region_sectors),
		       nm->region_sectors, need >> 20, NM_REGIONS_MEM_SHARE,
		       room * NM_REGIONS_MEM_SHARE >> 20);
		*error = "Region state too large for this machine: use a larger region_size";
		return -ENOMEM;
	}
	if (nm_regions_init(&nm->rg, nm->sectors, nm->region_sectors)) {
		nm_err(nm, "cannot allocate %llu MiB of region state (%lu regions of %u sectors): use a larger region_size or free memory",
		       need >> 20, nm->rg.nr, nm->region_sectors);
		*error = "Cannot allocate region state: use a larger region_size or free memory";
		return -ENOMEM;
	}
	nm->rs_nr_pages = DIV_ROUND_UP(nm->region_sectors << SECTOR_SHIFT,
				       PAGE_SIZE);
	for (i = 0; i < NM_RS_WINDOW; i++)
		nm->rs_slot_region[i] = ULONG_MAX;
	if (nm_rs_slot_alloc(nm, 0, GFP_KERNEL) || nm_ov_init(nm))
		goto nomem;
	/* csums and verify_alg words are NM_CSUM_* (- 1) by their order */
	BUILD_BUG_ON(NM_CSUM_CRC32C != 1 || NM_CSUM_SHA256 != 2);
	if (!nm->ov_sha && (nm->csums == NM_CSUM_SHA256 ||
			    nm->verify_alg + 1 == NM_CSUM_SHA256)) {
		*error = "sha256 is not available in this kernel";
		return -ENOENT;
	}
	nm->rs_slots = 1;
	/* a summed payload is sent from a copy (nm_send_summed) */
	if (nm_integrity(nm) || nm->secret_desc[0]) {
		nm->tx_bounce = kvmalloc(NM_TX_BOUNCE, GFP_KERNEL);
		if (!nm->tx_bounce)
			goto nomem;
	}
	nm->wq = alloc_workqueue("nm_mark/%s", WQ_MEM_RECLAIM, 0,
				 dm_device_name(dm_table_get_md(nm->ti->table)));
	if (!nm->wq)
		goto nomem;
	nm_live_init(nm);	/* with nm->wq: nm_dtr_regions cancels it */
	/* the secondary's receive worker: the write stream, high priority */
	nm->rx_wq = alloc_workqueue("nm_rx/%s", WQ_HIGHPRI | WQ_MEM_RECLAIM,
				    0, dm_device_name(dm_table_get_md(nm->ti->table)));
	if (!nm->rx_wq)
		goto nomem;
	nm_fast_init(nm);
	return 0;
nomem:
	*error = "Cannot allocate region state";
	return -ENOMEM;
}

static void nm_dtr_regions(struct nm_dev *nm)
{
	unsigned int i;

	if (nm->rx_wq)
		destroy_workqueue(nm->rx_wq);
	if (nm->wq) {
		/* nm_teardown cancelled it; a ctr that failed never queued it */
		cancel_delayed_work_sync(&nm->live_work);
		destroy_workqueue(nm->wq);
	}
	for (i = 0; i < NM_RS_WINDOW; i++)
		nm_rs_slot_free(nm, i);
	kvfree(nm->tx_bounce);
	nm_ov_exit(nm);
	nm_regions_exit(&nm->rg);
}

/*
 * What this node knows of its data.  With a metadata device: the bitmap
 * and flags on it (a fresh one has no history).  Without: no history, so a
 * restart is a first connection.  With no history, "sync full" marks every
 * region (the primary's copy wins), "sync none" trusts both devices.
 */
static int nm_ctr_history(struct nm_dev *nm, char **error)
{
	bool fresh = true, history = false, consistent = false, outdated = false;
	u32 flags;
	int r;

	if (nm->meta_dev || nm->meta_internal) {
		struct nm_meta *m;

		m = nm_meta_open(nm->meta_internal ? nm->dev->bdev :
				 nm->meta_dev->bdev, nm->dev->bdev,
				 nm->meta_internal, nm->sectors,
				 nm->region_sectors, nm->rg.nr, &fresh, error);
		if (IS_ERR(m))
			return PTR_ERR(m);
		nm->meta = m;
		/* the rule nm_reload_layout was given: the object's own */
		WARN_ON_ONCE(nm->data_start != nm_meta_data_start(m));
		nm_meta_gens(m, &nm->gen);
		flags = nm_meta_flags(m);
		history = !fresh && (flags & NM_MF_HISTORY);
		consistent = flags & NM_MF_CONSISTENT;
		outdated = consistent && (flags & NM_MF_OUTDATED);
		/* before a table's role primary sets it (nm_reload_adopt) */
		nm->pri_at_split = flags & NM_MF_PRIMARY;
		nm_meta_copy_bits(m, nm->rg.oos);
	}
	if (!nm->meta)
		nm_info(nm, "no metadata device: no data history; a first connect resyncs %s",
			nm->sync_none ? "nothing (sync none)" :
			"from the primary (sync full)");
	if (!history) {
		if (nm->sync_none) {
			bitmap_zero(nm->rg.oos, nm->rg.nr);
			consistent = true;
		} else {
			bitmap_fill(nm->rg.oos, nm->rg.nr);
			consistent = nm->table_role == NM_ROLE_PRIMARY;
		}
		if (nm->meta) {
			nm_meta_set_bits(nm->meta, nm->rg.oos);
			nm_meta_set_flags(nm->meta, NM_MF_HISTORY |
					  (consistent ? NM_MF_CONSISTENT : 0),
					  consistent ? 0 : NM_MF_CONSISTENT);
			r = nm_meta_commit(nm->meta);
			if (r) {
				*error = "Cannot write the metadata device";
				return r;
			}
		}
	}
	if (!consistent && nm->table_role == NM_ROLE_PRIMARY) {
		*error = "Local data is inconsistent (an interrupted resync): cannot be primary";
		return -EINVAL;
	}
	if (outdated && nm->table_role == NM_ROLE_PRIMARY) {
		*error = "Local data is outdated: create secondary and resync, or force_primary";
		return -EINVAL;
	}
	nm->disk = outdated ? NM_DISK_OUTDATED : consistent ?
		   NM_DISK_UPTODATE : NM_DISK_INCONSISTENT;
	return 0;
}

/*
 * Construct: <local_dev> <peer_addr> <A|B|C> <flush|drain|none>
 *            [<#opt_args> <opt_args>...]
 */
static int nm_ctr(struct dm_target *ti, unsigned int argc, char **argv)
{
	struct dm_arg_set as;
	struct nm_dev *nm;
	const char *w;
	int r;

	if (argc < 4) {
		ti->error = "Not enough arguments (want <local_dev> <peer_addr> <protocol> <ordering>)";
		return -EINVAL;
	}
	nm = kzalloc(sizeof(*nm), GFP_KERNEL);
	if (!nm) {
		ti->error = "Cannot allocate context";
		return -ENOMEM;
	}
	ti->private = nm;
	nm->ti = ti;
	nm->sectors = ti->len;
	nm_opts_default(nm);
	spin_lock_init(&nm->lock);
	spin_lock_init(&nm->pool_lock);
	INIT_LIST_HEAD(&nm->pool);
	init_waitqueue_head(&nm->sync_wq);
	bio_list_init(&nm->rs_wait);
	bio_list_init(&nm->mark_wait);
	bio_list_init(&nm->zero_bios);
	bio_list_init(&nm->overlap_wait);
	bio_list_init(&nm->gen_wait);
	bio_list_init(&nm->frozen_new);
	bio_list_init(&nm->frozen_done);
	bio_list_init(&nm->stable_wait);
	INIT_WORK(&nm->gen_work, nm_gen_work);
	INIT_WORK(&nm->thaw_work, nm_thaw_work);
	INIT_LIST_HEAD(&nm->active);
	INIT_LIST_HEAD(&nm->live);
	INIT_WORK(&nm->overlap_work, nm_overlap_work);
	INIT_WORK(&nm->mark_work, nm_mark_work);
	INIT_WORK(&nm->zero_work, nm_zero_work);
	INIT_WORK(&nm->event_work, nm_event_work);
	INIT_WORK(&nm->disk_work, nm_disk_work);
	mutex_init(&nm->tx_mutex);
	mutex_init(&nm->ack_mutex);
	mutex_init(&nm->drop_mutex);
	INIT_LIST_HEAD(&nm->send_q);
	INIT_LIST_HEAD(&nm->wait_q);
	INIT_LIST_HEAD(&nm->ack_q);
	INIT_LIST_HEAD(&nm->ctrl_q);
	INIT_LIST_HEAD(&nm->peer_reqs);
	init_waitqueue_head(&nm->send_wq);
	init_waitqueue_head(&nm->conn_wq);
	init_waitqueue_head(&nm->peer_wq);
	atomic_set(&nm->peer_inflight, 0);
	atomic_set(&nm->peer_pages, 0);
	atomic_set(&nm->pending, 0);
	strscpy(nm->last_error, "-", sizeof(nm->last_error));
	ratelimit_state_init(&nm->fail_rs, 5 * HZ, 10);

	as.argc = argc;
	as.argv = argv;

	w = dm_shift_arg(&as);
	r = dm_get_device(ti, w, dm_table_get_mode(ti->table), &nm->dev);
	if (r) {
		ti->error = "Cannot open local device";
		goto bad;
	}
	if (bdev_nr_sectors(nm->dev->bdev) < ti->len) {
		ti->error = "Local device is smaller than the target";
		r = -EINVAL;
		goto bad;
	}

	w = dm_shift_arg(&as);
	if (strlen(w) >= sizeof(nm->peer_str) ||
	    nm_parse_addr(w, &nm->peer_addr)) {
		ti->error = "Invalid peer address (want a.b.c.d:port or [v6]:port)";
		r = -EINVAL;
		goto bad;
	}
	strscpy(nm->peer_str, w, sizeof(nm->peer_str));

	r = nm_word_index(NM_PROTOCOL_LIST, dm_shift_arg(&as));
	if (r < 0) {
		ti->error = "Invalid protocol (want A, B or C)";
		r = -EINVAL;
		goto bad;
	}
	nm->protocol = r;

	r = nm_word_index(NM_ORDERING_LIST, dm_shift_arg(&as));
	if (r < 0) {
		ti->error = "Invalid ordering (want flush, drain or none)";
		r = -EINVAL;
		goto bad;
	}
	nm->ordering = r;

	r = nm_parse_opts(nm, &as, &ti->error);
	if (r)
		goto bad;
	if (nm->meta_dev && nm->meta_dev->bdev == nm->dev->bdev) {
		ti->error = (char *)nm_opts[NM_OPT_META].invalid;
		r = -EINVAL;
		goto bad;
	}

	if (!test_bit(NM_OPT_LISTEN, &nm->given)) {
		/* listen on the wildcard address, at the peer's port */
		nm->listen_addr.ss_family = nm->peer_addr.ss_family;
		if (nm->peer_addr.ss_family == AF_INET)
			((struct sockaddr_in *)&nm->listen_addr)->sin_port =
				((struct sockaddr_in *)&nm->peer_addr)->sin_port;
		else
			((struct sockaddr_in6 *)&nm->listen_addr)->sin6_port =
				((struct sockaddr_in6 *)&nm->peer_addr)->sin6_port;
	} else if (nm->listen_addr.ss_family != nm->peer_addr.ss_family) {
		ti->error = "Listen and peer addresses must be of one family";
		r = -EINVAL;
		goto bad;
	}

	r = nm_ctr_regions(nm, &ti->error);
	if (r)
		goto bad;

	r = bioset_init(&nm->bs, 256, 0, BIOSET_NEED_BVECS);
	if (!r)
		r = bioset_init(&nm->merge_bs, 4,
				offsetof(struct nm_merged, bio),
				BIOSET_NEED_BVECS);
	if (r) {
		ti->error = "Cannot allocate bio set";
		goto bad;
	}

	r = nm_reload_layout(nm, nm->meta_internal ?
			     nm_meta_internal_sectors(nm->sectors,
						      nm->region_sectors) : 0,
			     &ti->error);
	if (r)
		goto bad;

	nm->role = nm->table_role;
	nm->rs_rate = nm->table_rate;
	/* before the history, which may write the metadata device */
	r = nm_reload_ctr_role(nm, &ti->error);
	if (!r)
		r = nm_ctr_history(nm, &ti->error);
	if (r)
		goto bad;
	nm->peer_disk = NM_DISK_UNKNOWN;
	nm->want_connect = true;
	nm->cstate = NM_C_STANDALONE;
	get_random_bytes(&nm->nonce, sizeof(nm->nonce));

	ti->num_flush_bios = 1;
	ti->flush_supported = true;
	/*
	 * Discards and write-zeroes go to both nodes as such (P_ZERO); dm
	 * offers them only if the local device takes them (iterate_devices),
	 * with its limits, capped at one P_ZERO's range (nm_io_hints).
	 */
	ti->num_discard_bios = 1;
	ti->num_write_zeroes_bios = 1;
	ti->per_io_data_size = sizeof(struct nm_req);
	return 0;

bad:
	nm_dtr(ti);
	return r;
}

static void nm_dtr(struct dm_target *ti)
{
	struct nm_dev *nm = ti->private;

	if (!nm)
		return;
	nm_conn_stop(nm);
	nm_reload_forget(nm);
	if (nm->meta) {
		/* after a suspend a successor may own the device already */
		if (nm->resumed && !nm->suspended)
			nm_meta_commit(nm->meta);
		nm_meta_close(nm->meta);
	}
	nm_dtr_regions(nm);
	nm_pool_exit(nm);
	bioset_exit(&nm->merge_bs);
	bioset_exit(&nm->bs);
	if (nm->secret_key)
		key_put(nm->secret_key);
	if (nm->meta_dev)
		dm_put_device(ti, nm->meta_dev);
	if (nm->dev)
		dm_put_device(ti, nm->dev);
	kfree(nm);
}

static const char * const nm_lat_names[NM_LAT_COUNT] = {
	[NM_LAT_p_queue] = "p_queue",
	[NM_LAT_p_peer] = "p_peer",
	[NM_LAT_p_total] = "p_total",
	[NM_LAT_s_recv] = "s_recv",
	[NM_LAT_s_disk] = "s_disk",
	[NM_LAT_s_ack] = "s_ack",
};

/*
 * "latency": one line per stage, "<stage> count=N p50_us=.. p90_us=..
 * p99_us=.. max_us=.." (each the lower bound of its bucket, nm_hist.h).
 */
static int nm_lat_emit(struct nm_dev *nm, char *result, unsigned int maxlen)
{
	unsigned int sz = 0, st, i, top;
	u64 *n, total;

	n = kmalloc_array(NM_HIST_BUCKETS, sizeof(*n), GFP_KERNEL);
	if (!n)
		return -ENOMEM;
	for (st = 0; st < NM_LAT_COUNT; st++) {
		total = 0;
		top = 0;
		for (i = 0; i < NM_HIST_BUCKETS; i++) {
			n[i] = atomic64_read(&nm->lat[st][i]);
			total += n[i];
			if (n[i])
				top = i;
		}
		if (!total) {
			DMEMIT("%s count=0\n", nm_lat_names[st]);
			continue;
		}
		DMEMIT("%s count=%llu p50_us=%llu p90_us=%llu p99_us=%llu max_us=%llu\n",
		       nm_lat_names[st], total, nm_hist_pct(n, total, 50),
		       nm_hist_pct(n, total, 90), nm_hist_pct(n, total, 99),
		       nm_hist_lower(top));
	}
	DMEMIT("inline count=%llu\n", atomic64_read(&nm->writes_inline));
	DMEMIT("fast_ack count=%llu\n", atomic64_read(&nm->acks_fast));
	DMEMIT("flush_local count=%llu\n", atomic64_read(&nm->flushes_local));
	DMEMIT("ack_batched count=%llu\n", atomic64_read(&nm->acks_batched));
	DMEMIT("ack_deferred count=%llu\n", atomic64_read(&nm->acks_deferred));
	DMEMIT("fast_rx count=%llu\n", atomic64_read(&nm->writes_rx_work));
	DMEMIT("rx_probe count=%llu switches=%llu\n",
	       atomic64_read(&nm->rx_probes), atomic64_read(&nm->rx_switches));
	kfree(n);
	return 1;	/* dm: result holds the answer */
}

static int nm_map(struct dm_target *ti, struct bio *bio)
{
	struct nm_dev *nm = ti->private;
	struct nm_req *req;

	if (bio_sectors(bio))
		bio->bi_iter.bi_sector =
			dm_target_offset(ti, bio->bi_iter.bi_sector);
	/*
	 * One P_DATA or P_READ carries at most NM_MAX_DATA: dm sends the rest
	 * in the next bio.  Not ti->max_io_len: with it set, dm also splits
	 * every bio at the device's max_sectors (stacked from the backing
	 * device: 127.5 KiB on brd), nine writes and acks per MiB.  A data
	 * bio here never has REQ_PREFLUSH (dm sends that as an empty flush
	 * first), and discards and write-zeroes are split to their limits
	 * (nm_io_hints) before map.
	 */
	if ((bio_op(bio) == REQ_OP_READ || bio_op(bio) == REQ_OP_WRITE) &&
	    bio->bi_iter.bi_size > NM_MAX_DATA)
		dm_accept_partial_bio(bio, NM_MAX_DATA >> SECTOR_SHIFT);

	switch (bio_op(bio)) {
	case REQ_OP_READ:
		return nm_map_read(nm, bio);
	case REQ_OP_WRITE:
	case REQ_OP_DISCARD:
	case REQ_OP_WRITE_ZEROES:
		/* from the first map (parked writes re-enter nm_map_write) */
		req = nm_req_of(bio);
		req->t_map = nm_clock_ns();
		/* held on the plug, merged with the writes after it */
		if (nm_merge_map(nm, bio))
			return DM_MAPIO_SUBMITTED;
		return nm_map_write(nm, bio);
	default:
		return DM_MAPIO_KILL;
	}
}

static int nm_end_io(struct dm_target *ti, struct bio *bio,
		     blk_status_t *error)
{
	if (bio_op(bio) == REQ_OP_READ)
		return nm_read_endio(ti->private, bio, error);
	return DM_ENDIO_DONE;
}

static void nm_status(struct dm_target *ti, status_type_t type,
		      unsigned int status_flags, char *result,
		      unsigned int maxlen)
{
	struct nm_dev *nm = ti->private;
	unsigned long flags, oos, unconfirmed;
	enum nm_cstate cs;
	enum nm_role role;
	enum nm_disk disk, pdisk;
	char err[64];
	unsigned int sz = 0;
	u32 kibs;
	u64 eta, gen, ov_done, ov_total, ov_diffs;
	enum nm_ov_state ov;
	u32 ov_kibs;
	bool frozen;

	/* the DMEMIT below prints these fields, in this order */
	BUILD_BUG_ON(NM_SF_COUNT != 26);
	switch (type) {
	case STATUSTYPE_INFO:
		spin_lock_irqsave(&nm->lock, flags);
		cs = nm->cstate;
		role = nm->role;
		disk = nm->disk;
		pdisk = cs >= NM_C_CONNECTED ? nm->peer_disk : NM_DISK_UNKNOWN;
		oos = nm_regions_shown_oos(&nm->rg);
		unconfirmed = nm_regions_unconfirmed(&nm->rg);
		strscpy(err, nm->last_error, sizeof(err));
		gen = nm->gen.cur;
		frozen = nm->frozen;
		ov = nm->ov_state;
		ov_done = nm->ov_done;
		ov_total = nm->ov_end - nm->ov_start;
		ov_diffs = nm->ov_diffs;
		spin_unlock_irqrestore(&nm->lock, flags);
		if (role == NM_ROLE_PRIMARY && pdisk == NM_DISK_UPTODATE && oos)
			pdisk = NM_DISK_OUTDATED;
		kibs = READ_ONCE(nm->rs_kibs);
		eta = 0;
		if ((cs == NM_C_SYNC_SOURCE || cs == NM_C_SYNC_TARGET) && kibs)
			eta = div_u64((u64)oos * (nm->region_sectors / 2), kibs);
		DMEMIT("%s %s %s/%s %lu/%lu %lld %lld %d %lld %lld %lld %s %u %llu %lld ",
		       nm_role_name(role), nm_cstate_name(cs),
		       nm_disk_name(disk), nm_disk_name(pdisk),
		       nm->rg.nr - oos, nm->rg.nr,
		       atomic64_read(&nm->writes_sent),
		       atomic64_read(&nm->writes_received),
		       atomic_read(&nm->pending),
		       atomic64_read(&nm->bytes_sent),
		       atomic64_read(&nm->bytes_received),
		       atomic64_read(&nm->writes_rejected), err,
		       cs == NM_C_SYNC_SOURCE || cs == NM_C_SYNC_TARGET ?
		       kibs : 0, eta, atomic64_read(&nm->resync_bytes));
		if (gen)
			DMEMIT("%016llx", gen);
		else
			DMEMIT("-");
		DMEMIT(" %s", frozen ? "frozen" : "running");
		ov_kibs = ov == NM_OV_RUNNING ? READ_ONCE(nm->ov_kibs) : 0;
		DMEMIT(" %s %llu %llu %llu %u %llu", nm_ov_state_name(ov),
		       ov_done, ov_total, ov_diffs, ov_kibs,
		       ov_kibs && ov_total > ov_done ?
		       div_u64((ov_total - ov_done) / 2, ov_kibs) : 0);
		DMEMIT(" %lld %lld %lld", atomic64_read(&nm->rs_marked),
		       atomic64_read(&nm->rs_compared),
		       atomic64_read(&nm->rs_sent));
		DMEMIT(" %lu", unconfirmed);
		break;
	case STATUSTYPE_TABLE:
		DMEMIT("%s %s ", nm->dev->name, nm->peer_str);
		sz = nm_word_emit(result, maxlen, sz, NM_PROTOCOL_LIST,
				  nm->protocol);
		DMEMIT(" ");
		sz = nm_word_emit(result, maxlen, sz, NM_ORDERING_LIST,
				  nm->ordering);
		sz = nm_emit_opts(nm, result, maxlen, sz);
		break;
	case STATUSTYPE_IMA:
		DMEMIT_TARGET_NAME_VERSION(ti->type);
		DMEMIT(",local_dev=%s,peer=%s,protocol=", nm->dev->name,
		       nm->peer_str);
		sz = nm_word_emit(result, maxlen, sz, NM_PROTOCOL_LIST,
				  nm->protocol);
		DMEMIT(",ordering=");
		sz = nm_word_emit(result, maxlen, sz, NM_ORDERING_LIST,
				  nm->ordering);
		DMEMIT(";");
		break;
	}
}

/* The messages, from nm_params.h. */
struct nm_msg_row {
	const char *word;
	unsigned int nargs;
	const char *invalid;
};

#define NM_MSG_ROW(w, id, n, since, ah, want, h)			\
	[NM_MSG_##id] = { #w, n, "Invalid " #w " (want " want ")" },
static const struct nm_msg_row nm_msgs[NM_MSG_COUNT] = {
	NM_MESSAGES(NM_MSG_ROW)
};

#undef NM_MSG_ROW
#define NM_MSG_WORD(w, id, n, since, ah, want, h) " " #w
#define NM_MSG_HELP "(want one of:" NM_MESSAGES(NM_MSG_WORD) ")"

static int nm_message(struct dm_target *ti, unsigned int argc, char **argv,
		      char *result, unsigned int maxlen)
{
	struct nm_dev *nm = ti->private;
	unsigned long flags;
	unsigned int id, v;
	int r;

	for (id = 0; argc && id < NM_MSG_COUNT; id++)
		if (!strcmp(argv[0], nm_msgs[id].word))
			break;
	if (!argc || id == NM_MSG_COUNT) {
		nm_err(nm, "unknown message \"%s\" " NM_MSG_HELP,
		       argc ? argv[0] : "");
		return -EINVAL;
	}
	if (argc != nm_msgs[id].nargs + 1) {
		nm_err(nm, "unknown message: %s takes %u argument(s), not %u",
		       argv[0], nm_msgs[id].nargs, argc - 1);
		return -EINVAL;
	}
	switch (id) {
	case NM_MSG_PRIMARY:
	case NM_MSG_FORCE_PRIMARY:
		return nm_set_role(nm, NM_ROLE_PRIMARY,
				   id == NM_MSG_FORCE_PRIMARY, result, maxlen);
	case NM_MSG_SECONDARY:
		r = nm_set_role(nm, NM_ROLE_SECONDARY, false, result, maxlen);
		/* held writes of a primary that gives up: never acknowledged */
		if (!r)
			nm_thaw(nm, BLK_STS_IOERR);
		return r;
	case NM_MSG_RESUME_IO:
		if (!READ_ONCE(nm->frozen)) {
			nm_err(nm, "resume_io: no writes are held");
			return -EINVAL;
		}
		nm_warn(nm, "resume_io: the peer is declared fenced; held writes are acknowledged");
		nm_thaw(nm, 0);
		return 0;
	case NM_MSG_OUTDATE:
		return nm_outdate(nm);
	case NM_MSG_CONNECT:
	case NM_MSG_DISCONNECT:
		spin_lock_irqsave(&nm->lock, flags);
		nm->want_connect = id == NM_MSG_CONNECT;
		spin_unlock_irqrestore(&nm->lock, flags);
		if (id == NM_MSG_DISCONNECT)
			nm_conn_drop(nm);
		wake_up(&nm->conn_wq);
		return 0;
	case NM_MSG_RESYNC_RATE:
		if (!nm_parse_uint(argv[1], &v)) {
			nm_err(nm, "%s", nm_msgs[id].invalid);
			return -EINVAL;
		}
		WRITE_ONCE(nm->rs_rate, v);
		nm_sync_kick(nm);
		return 0;
	case NM_MSG_PAUSE_RESYNC:
	case NM_MSG_RESUME_RESYNC:
		spin_lock_irqsave(&nm->lock, flags);
		nm->rs_paused = id == NM_MSG_PAUSE_RESYNC;
		spin_unlock_irqrestore(&nm->lock, flags);
		nm_sync_kick(nm);
		return 0;
	case NM_MSG_DISCARD_MY_DATA:
		return nm_discard_my_data(nm);
	case NM_MSG_LATENCY:
		return nm_lat_emit(nm, result, maxlen);
	case NM_MSG_LATENCY_RESET:
		for (v = 0; v < NM_LAT_COUNT * NM_HIST_BUCKETS; v++)
			atomic64_set(&nm->lat[v / NM_HIST_BUCKETS][v % NM_HIST_BUCKETS], 0);
		atomic64_set(&nm->writes_inline, 0);
		atomic64_set(&nm->acks_fast, 0);
		atomic64_set(&nm->flushes_local, 0);
		atomic64_set(&nm->acks_batched, 0);
		atomic64_set(&nm->acks_deferred, 0);
		atomic64_set(&nm->writes_rx_work, 0);
		atomic64_set(&nm->rx_probes, 0);
		atomic64_set(&nm->rx_switches, 0);
		return 0;
	case NM_MSG_VERIFY:
		return nm_verify_start(nm, 0, nm->sectors);
	case NM_MSG_VERIFY_RANGE: {
		u64 start, n;

		if (!nm_parse_u64(argv[1], &start) ||
		    !nm_parse_u64(argv[2], &n)) {
			nm_err(nm, "%s", nm_msgs[id].invalid);
			return -EINVAL;
		}
		return nm_verify_start(nm, start, n);
	}
	case NM_MSG_VERIFY_STOP:
		return nm_verify_stop(nm);
	case NM_MSG_ATTACH:
	case NM_MSG_INVALIDATE: {
		bool drop = true;

		/* the resync the disk's failure ended, ended first */
		if (id == NM_MSG_ATTACH)
			nm_rs_end_lost(nm);
		r = id == NM_MSG_ATTACH ? nm_attach(nm, &drop) :
		    nm_invalidate(nm);
		/* a new handshake carries our disk state and the full bitmap */
		if (!r && drop)
			nm_conn_drop(nm);
		return r;
	}
	}
	return -EINVAL;
}

static void nm_presuspend(struct dm_target *ti)
{
	nm_frozen_presuspend(ti->private);
}

static void nm_presuspend_undo(struct dm_target *ti)
{
	struct nm_dev *nm = ti->private;
	unsigned long flags;

	spin_lock_irqsave(&nm->lock, flags);
	nm->suspending = false;
	spin_unlock_irqrestore(&nm->lock, flags);
}

/*
 * Suspend and resume raise a table event each (dm's "suspended" flag is
 * set before postsuspend, but cleared only after resume returns: the
 * resume's event comes from nm->wq, and a reader that still sees the flag
 * set must look again).
 */
static void nm_postsuspend(struct dm_target *ti)
{
	struct nm_dev *nm = ti->private;

	nm_stable_final(nm);
	nm_conn_stop(nm);
	nm_reload_save(nm);
	nm->suspended = true;
	dm_table_event(ti->table);
}

static int nm_preresume(struct dm_target *ti)
{
	return nm_reload_adopt(ti->private);
}

static void nm_resume(struct dm_target *ti)
{
	struct nm_dev *nm = ti->private;

	nm->suspended = false;
	nm_presuspend_undo(ti);
	if (nm_conn_start(nm))
		nm_err(nm, "cannot start the connection threads");
	queue_work(nm->wq, &nm->event_work);
}

static int nm_iterate_devices(struct dm_target *ti,
			      iterate_devices_callout_fn fn, void *data)
{
	struct nm_dev *nm = ti->private;

	return fn(ti, nm->dev, nm->data_start, ti->len, data);
}

/*
 * The local device's limits are stacked already; a discard or write-zeroes
 * that dm hands us is at most one P_ZERO (NM_MAX_ZERO).  dm clears these
 * limits when the local device lacks the operation.
 */
static void nm_io_hints(struct dm_target *ti, struct queue_limits *limits)
{
	const unsigned int max = NM_MAX_ZERO >> SECTOR_SHIFT;

	limits->max_discard_sectors = min(limits->max_discard_sectors, max);
	limits->max_hw_discard_sectors =
		min(limits->max_hw_discard_sectors, max);
	limits->max_write_zeroes_sectors =
		min(limits->max_write_zeroes_sectors, max);
}

static struct target_type nm_target = {
	.name = "netmirror",
	.version = {NM_TARGET_MAJOR, NM_TARGET_MINOR, NM_TARGET_PATCH},
	.module = THIS_MODULE,
	.ctr = nm_ctr,
	.dtr = nm_dtr,
	.map = nm_map,
	.end_io = nm_end_io,
	.status = nm_status,
	.message = nm_message,
	.presuspend = nm_presuspend,
	.presuspend_undo = nm_presuspend_undo,
	.postsuspend = nm_postsuspend,
	.preresume = nm_preresume,
	.resume = nm_resume,
	.iterate_devices = nm_iterate_devices,
	.io_hints = nm_io_hints,
};

static int __init dm_netmirror_init(void)
{
	int r = dm_register_target(&nm_target);

	if (r < 0)
		DMERR("register failed %d", r);
	return r;
}

static void __exit dm_netmirror_exit(void)
{
	dm_unregister_target(&nm_target);
}

module_init(dm_netmirror_init);
module_exit(dm_netmirror_exit);

/*
 * Send a small write from the submitter's context when the socket is free
 * (nm_send_inline); off: every write goes through the sender thread.  For
 * measurements (the benchmark compares both in one boot).
 */
bool nm_inline_send = true;
module_param_named(inline_send, nm_inline_send, bool, 0644);
MODULE_PARM_DESC(inline_send, "send writes from the submitting context when the socket is free (default Y)");

/*
 * fast_ack: a primary (B or C, no secret) takes its write acks in the
 * socket's data_ready and completes the writes there (nm_fastack.c); off:
 * every ack is read by the nm_conn thread.  For measurements and as a way
 * out.
 */
bool nm_fast_ack = true;
module_param_named(fast_ack, nm_fast_ack, bool, 0644);
MODULE_PARM_DESC(fast_ack, "a primary takes write acks in the socket's data_ready (default Y)");

/*
 * fast_rx: a secondary reads the whole packets of the write stream in a
 * worker queued on the CPU whose softirq received them (nm_fastack.c);
 * off: the nm_conn thread reads every packet.  For measurements and as a
 * way out.
 */
bool nm_fast_rx = true;
module_param_named(fast_rx, nm_fast_rx, bool, 0644);
MODULE_PARM_DESC(fast_rx, "a secondary reads writes in a worker on the receiving CPU (default Y)");

/*
 * fast_rx_probe: with fast_rx, a loaded secondary tries its nm_conn thread
 * as the reader for a window now and then and keeps whichever reader read
 * more writes (nm_rxmode.h); off: the worker reads whenever fast_rx is on.
 */
bool nm_fast_rx_probe = true;
module_param_named(fast_rx_probe, nm_fast_rx_probe, bool, 0644);
MODULE_PARM_DESC(fast_rx_probe, "a loaded secondary measures its worker against its thread and keeps the faster reader (default Y)");

/*
 * merge_writes: a connected primary holds plain writes on the submitter's
 * plug and sends each run of adjacent ones as one write (nm_merge.c); off:
 * every write goes on its own.  For measurements and as a way out.
 */
bool nm_merge_writes = true;
module_param_named(merge_writes, nm_merge_writes, bool, 0644);
MODULE_PARM_DESC(merge_writes, "merge adjacent writes submitted under one plug into one (default Y)");

/*
 * ack_batch: a secondary's receiver holds the acks of writes that completed
 * in its own submit_bio while the next packet is already in the socket, and
 * sends up to NM_ACK_BATCH of them at once (nm_peer_release_acks); off:
 * each ack leaves right after its write.  For measurements and as a way out.
 */
bool nm_ack_batch = true;
module_param_named(ack_batch, nm_ack_batch, bool, 0644);
MODULE_PARM_DESC(ack_batch, "a secondary sends the acks of a burst of writes together (default Y)");

MODULE_DESCRIPTION(DM_NAME " network mirror target");
MODULE_AUTHOR("netmirror developers");
MODULE_LICENSE("GPL");
