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

		if (!in4_pton(s, -1, (u8 *)&a->sin_addr.s_addr, ':', &end))
			return -EINVAL;
		if (end[0] != ':')
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

/* A decimal number that fits in 32 bits: digits only, no wrap-around. */
static bool nm_parse_uint(const char *s, unsigned int *v)
{
	const char *p;

	for (p = s; *p; p++)
		if (*p < '0' || *p > '9')
			return false;
	return p != s && !kstrtouint(s, 10, v);
}

static int nm_parse_opts(struct nm_dev *nm, struct dm_arg_set *as,
			 char **error)
{
	static const struct dm_arg _args[] = {
		{0, 22, "Invalid number of optional arguments"},
	};
	unsigned int argc;
	unsigned long seen = 0;
	const char *key, *val;
	int r;

	if (!as->argc)
		return 0;
	r = dm_read_arg_group(_args, as, &argc, error);
	if (r)
		return r;
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
		if (!strcasecmp(key, "listen")) {
			if (test_and_set_bit(0, &seen)) {
				*error = "Duplicate optional argument: listen";
				return -EINVAL;
			}
			if (strlen(val) >= sizeof(nm->listen_str) ||
			    nm_parse_addr(val, &nm->listen_addr)) {
				*error = "Invalid listen address (want a.b.c.d:port or [v6]:port)";
				return -EINVAL;
			}
			strscpy(nm->listen_str, val, sizeof(nm->listen_str));
			nm->has_listen = true;
		} else if (!strcasecmp(key, "role")) {
			if (test_and_set_bit(1, &seen)) {
				*error = "Duplicate optional argument: role";
				return -EINVAL;
			}
			if (!strcmp(val, "primary")) {
				nm->table_role = NM_ROLE_PRIMARY;
			} else if (!strcmp(val, "secondary")) {
				nm->table_role = NM_ROLE_SECONDARY;
			} else {
				*error = "Invalid role (want primary or secondary)";
				return -EINVAL;
			}
		} else if (!strcasecmp(key, "meta")) {
			if (test_and_set_bit(2, &seen)) {
				*error = "Duplicate optional argument: meta";
				return -EINVAL;
			}
			r = dm_get_device(nm->ti, val,
					  dm_table_get_mode(nm->ti->table),
					  &nm->meta_dev);
			if (r) {
				*error = "Cannot open metadata device";
				return r;
			}
		} else if (!strcasecmp(key, "region_size")) {
			unsigned int v;

			if (test_and_set_bit(3, &seen)) {
				*error = "Duplicate optional argument: region_size";
				return -EINVAL;
			}
			if (!nm_parse_uint(val, &v) || v < 8 ||
			    v > NM_MAX_REGION || !is_power_of_2(v)) {
				*error = "Invalid region_size (want a power of two, 8..2048 sectors)";
				return -EINVAL;
			}
			nm->region_sectors = v;
			nm->has_region_size = true;
		} else if (!strcasecmp(key, "sync")) {
			if (test_and_set_bit(4, &seen)) {
				*error = "Duplicate optional argument: sync";
				return -EINVAL;
			}
			if (!strcmp(val, "full")) {
				nm->sync_none = false;
			} else if (!strcmp(val, "none")) {
				nm->sync_none = true;
			} else {
				*error = "Invalid sync (want full or none)";
				return -EINVAL;
			}
			nm->has_sync = true;
		} else if (!strcasecmp(key, "resync_rate")) {
			unsigned int v;

			if (test_and_set_bit(5, &seen)) {
				*error = "Duplicate optional argument: resync_rate";
				return -EINVAL;
			}
			if (!nm_parse_uint(val, &v)) {
				*error = "Invalid resync_rate (want KiB/s, 0 = adaptive)";
				return -EINVAL;
			}
			nm->table_rate = v;
			nm->has_rate = true;
		} else if (!strcasecmp(key, "timeout") ||
			   !strcasecmp(key, "ping")) {
			bool to = !strcasecmp(key, "timeout");
			unsigned int v;

			if (test_and_set_bit(to ? 6 : 7, &seen)) {
				*error = to ? "Duplicate optional argument: timeout" :
					      "Duplicate optional argument: ping";
				return -EINVAL;
			}
			if (!nm_parse_uint(val, &v) ||
			    (to && (v < 500 || v > 600000)) ||
			    (!to && (v < 100 || v > 60000))) {
				*error = to ? "Invalid timeout (want 500..600000 ms)" :
					      "Invalid ping (want 100..60000 ms)";
				return -EINVAL;
			}
			if (to) {
				nm->timeout_ms = v;
				nm->has_timeout = true;
			} else {
				nm->ping_ms = v;
				nm->has_ping = true;
			}
		} else if (!strcasecmp(key, "on_io_error")) {
			if (test_and_set_bit(8, &seen)) {
				*error = "Duplicate optional argument: on_io_error";
				return -EINVAL;
			}
			if (!strcmp(val, "detach")) {
				nm->detach_on_error = true;
			} else if (!strcmp(val, "pass_on")) {
				nm->detach_on_error = false;
			} else {
				*error = "Invalid on_io_error (want detach or pass_on)";
				return -EINVAL;
			}
			nm->has_on_io_error = true;
		} else if (!strcasecmp(key, "integrity")) {
			if (test_and_set_bit(9, &seen)) {
				*error = "Duplicate optional argument: integrity";
				return -EINVAL;
			}
			if (strcmp(val, "crc32c")) {
				*error = "Invalid integrity (want crc32c)";
				return -EINVAL;
			}
			nm->integrity = true;
		} else if (!strcasecmp(key, "secret")) {
			if (test_and_set_bit(10, &seen)) {
				*error = "Duplicate optional argument: secret";
				return -EINVAL;
			}
			if (!*val || strlen(val) >= sizeof(nm->secret_desc) ||
			    strchr(val, '%')) {
				*error = "Invalid secret key description";
				return -EINVAL;
			}
			strscpy(nm->secret_desc, val, sizeof(nm->secret_desc));
			/* look it up here, in the caller's keyrings */
			nm->secret_key = request_key(&key_type_logon, val, NULL);
			if (IS_ERR(nm->secret_key)) {
				r = PTR_ERR(nm->secret_key);
				nm->secret_key = NULL;
				*error = "Secret: no logon key with that description";
				return r;
			}
		} else {
			*error = "Unknown optional argument";
			return -EINVAL;
		}
	}
	if (nm->ping_ms >= nm->timeout_ms) {
		*error = "ping must be shorter than timeout";
		return -EINVAL;
	}
	return 0;
}

static void nm_dtr(struct dm_target *ti);

/* Allocate the per-region state and the resync buffer. */
static int nm_ctr_regions(struct nm_dev *nm, char **error)
{
	unsigned long words;
	unsigned int i;

	nm->region_shift = ilog2(nm->region_sectors);
	nm->nr_regions = DIV_ROUND_UP_SECTOR_T(nm->sectors, nm->region_sectors);
	words = BITS_TO_LONGS(nm->nr_regions);
	nm->oos = kvcalloc(words, sizeof(long), GFP_KERNEL);
	nm->rs_busy = kvcalloc(words, sizeof(long), GFP_KERNEL);
	nm->touched = kvcalloc(words, sizeof(long), GFP_KERNEL);
	nm->cand = kvcalloc(words, sizeof(long), GFP_KERNEL);
	nm->rs_dirty = kvcalloc(words, sizeof(long), GFP_KERNEL);
	nm->rs_writing = kvcalloc(words, sizeof(long), GFP_KERNEL);
	nm->inflight = kvcalloc(nm->nr_regions, sizeof(u32), GFP_KERNEL);
	nm->rs_nr_pages = DIV_ROUND_UP(nm->region_sectors << SECTOR_SHIFT,
				       PAGE_SIZE);
	nm->rs_pages = kcalloc(nm->rs_nr_pages, sizeof(struct page *),
			       GFP_KERNEL);
	nm->rs_vec = kcalloc(nm->rs_nr_pages + 1, sizeof(struct kvec),
			     GFP_KERNEL);
	if (!nm->oos || !nm->rs_busy || !nm->touched || !nm->cand ||
	    !nm->rs_dirty || !nm->rs_writing ||
	    !nm->inflight || !nm->rs_pages || !nm->rs_vec)
		goto nomem;
	for (i = 0; i < nm->rs_nr_pages; i++) {
		nm->rs_pages[i] = alloc_page(GFP_KERNEL);
		if (!nm->rs_pages[i])
			goto nomem;
	}
	nm->wq = alloc_workqueue("nm_mark/%s", WQ_MEM_RECLAIM, 0,
				 dm_device_name(dm_table_get_md(nm->ti->table)));
	if (!nm->wq)
		goto nomem;
	return 0;
nomem:
	*error = "Cannot allocate region state";
	return -ENOMEM;
}

static void nm_dtr_regions(struct nm_dev *nm)
{
	unsigned int i;

	if (nm->wq)
		destroy_workqueue(nm->wq);
	if (nm->rs_pages)
		for (i = 0; i < nm->rs_nr_pages; i++)
			if (nm->rs_pages[i])
				__free_page(nm->rs_pages[i]);
	kfree(nm->rs_pages);
	kfree(nm->rs_vec);
	kvfree(nm->inflight);
	kvfree(nm->cand);
	kvfree(nm->rs_dirty);
	kvfree(nm->rs_writing);
	kvfree(nm->touched);
	kvfree(nm->rs_busy);
	kvfree(nm->oos);
}

/*
 * What this node knows of its data.  With a metadata device: the bitmap
 * and flags on it (a fresh one has no history).  Without: no history, so a
 * restart is a first connection.  With no history, "sync full" marks every
 * region (the primary's copy wins), "sync none" trusts both devices.
 */
static int nm_ctr_history(struct nm_dev *nm, char **error)
{
	bool fresh = true, history = false, consistent = false;
	u32 flags;
	int r;

	if (nm->meta_dev) {
		struct nm_meta *m = nm_meta_open(nm->meta_dev->bdev,
						 nm->sectors,
						 nm->region_sectors,
						 nm->nr_regions, &fresh, error);
		if (IS_ERR(m))
			return PTR_ERR(m);
		nm->meta = m;
		flags = nm_meta_flags(m);
		history = !fresh && (flags & NM_MF_HISTORY);
		consistent = flags & NM_MF_CONSISTENT;
		nm_meta_copy_bits(m, nm->oos);
	}
	if (!history) {
		if (nm->sync_none) {
			bitmap_zero(nm->oos, nm->nr_regions);
			consistent = true;
		} else {
			bitmap_fill(nm->oos, nm->nr_regions);
			consistent = nm->table_role == NM_ROLE_PRIMARY;
		}
		if (nm->meta) {
			unsigned long i;

			for (i = 0; i < nm->nr_regions; i++)
				if (test_bit(i, nm->oos))
					nm_meta_set(nm->meta, i);
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
	nm->disk = consistent ? NM_DISK_UPTODATE : NM_DISK_INCONSISTENT;
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
	nm->region_sectors = NM_DEFAULT_REGION;
	nm->timeout_ms = NM_TIMEOUT_MS;
	nm->ping_ms = NM_PING_INTERVAL_MS;
	nm->detach_on_error = true;
	spin_lock_init(&nm->lock);
	init_waitqueue_head(&nm->sync_wq);
	bio_list_init(&nm->rs_wait);
	bio_list_init(&nm->mark_wait);
	INIT_WORK(&nm->mark_work, nm_mark_work);
	INIT_WORK(&nm->event_work, nm_event_work);
	mutex_init(&nm->tx_mutex);
	INIT_LIST_HEAD(&nm->send_q);
	INIT_LIST_HEAD(&nm->wait_q);
	INIT_LIST_HEAD(&nm->ack_q);
	INIT_LIST_HEAD(&nm->peer_reqs);
	init_waitqueue_head(&nm->send_wq);
	init_waitqueue_head(&nm->conn_wq);
	init_waitqueue_head(&nm->peer_wq);
	atomic_set(&nm->peer_inflight, 0);
	atomic_set(&nm->pending, 0);
	strscpy(nm->last_error, "-", sizeof(nm->last_error));

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

	w = dm_shift_arg(&as);
	if (!strcmp(w, "A")) {
		nm->protocol = NM_PROTO_A;
	} else if (!strcmp(w, "B")) {
		nm->protocol = NM_PROTO_B;
	} else if (!strcmp(w, "C")) {
		nm->protocol = NM_PROTO_C;
	} else {
		ti->error = "Invalid protocol (want A, B or C)";
		r = -EINVAL;
		goto bad;
	}

	w = dm_shift_arg(&as);
	if (!strcmp(w, "flush")) {
		nm->ordering = NM_ORD_FLUSH;
	} else if (!strcmp(w, "drain")) {
		nm->ordering = NM_ORD_DRAIN;
	} else if (!strcmp(w, "none")) {
		nm->ordering = NM_ORD_NONE;
	} else {
		ti->error = "Invalid ordering (want flush, drain or none)";
		r = -EINVAL;
		goto bad;
	}

	r = nm_parse_opts(nm, &as, &ti->error);
	if (r)
		goto bad;
	if (nm->meta_dev && nm->meta_dev->bdev == nm->dev->bdev) {
		ti->error = "Metadata device must not be the local device";
		r = -EINVAL;
		goto bad;
	}

	if (!nm->has_listen) {
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
	if (r) {
		ti->error = "Cannot allocate bio set";
		goto bad;
	}

	nm->role = nm->table_role;
	nm->rs_rate = nm->table_rate;
	r = nm_ctr_history(nm, &ti->error);
	if (r)
		goto bad;
	nm->peer_disk = NM_DISK_UNKNOWN;
	nm->want_connect = true;
	nm->cstate = NM_C_STANDALONE;
	get_random_bytes(&nm->nonce, sizeof(nm->nonce));

	r = dm_set_target_max_io_len(ti, NM_MAX_DATA >> SECTOR_SHIFT);
	if (r) {
		ti->error = "Cannot set max io len";
		goto bad;
	}
	ti->num_flush_bios = 1;
	ti->flush_supported = true;
	ti->num_discard_bios = 0;
	ti->num_write_zeroes_bios = 0;
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
	if (nm->meta) {
		nm_meta_commit(nm->meta);
		nm_meta_close(nm->meta);
	}
	nm_dtr_regions(nm);
	bioset_exit(&nm->bs);
	if (nm->secret_key)
		key_put(nm->secret_key);
	if (nm->meta_dev)
		dm_put_device(ti, nm->meta_dev);
	if (nm->dev)
		dm_put_device(ti, nm->dev);
	kfree(nm);
}

static int nm_map(struct dm_target *ti, struct bio *bio)
{
	struct nm_dev *nm = ti->private;

	if (bio_sectors(bio))
		bio->bi_iter.bi_sector =
			dm_target_offset(ti, bio->bi_iter.bi_sector);

	switch (bio_op(bio)) {
	case REQ_OP_READ:
		return nm_map_read(nm, bio);
	case REQ_OP_WRITE:
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
	static const char * const proto[] = { "A", "B", "C" };
	static const char * const ord[] = { "flush", "drain", "none" };
	unsigned long flags, oos;
	enum nm_cstate cs;
	enum nm_role role;
	enum nm_disk disk, pdisk;
	char err[64];
	unsigned int sz = 0, nopt;
	u32 kibs;
	u64 eta;

	switch (type) {
	case STATUSTYPE_INFO:
		spin_lock_irqsave(&nm->lock, flags);
		cs = nm->cstate;
		role = nm->role;
		disk = nm->disk;
		pdisk = cs >= NM_C_CONNECTED ? nm->peer_disk : NM_DISK_UNKNOWN;
		oos = bitmap_weight(nm->oos, nm->nr_regions);
		strscpy(err, nm->last_error, sizeof(err));
		spin_unlock_irqrestore(&nm->lock, flags);
		if (role == NM_ROLE_PRIMARY && pdisk == NM_DISK_UPTODATE && oos)
			pdisk = NM_DISK_OUTDATED;
		kibs = READ_ONCE(nm->rs_kibs);
		eta = 0;
		if ((cs == NM_C_SYNC_SOURCE || cs == NM_C_SYNC_TARGET) && kibs)
			eta = div_u64((u64)oos * (nm->region_sectors / 2), kibs);
		DMEMIT("%s %s %s/%s %lu/%lu %lld %lld %d %lld %lld %lld %s %u %llu %lld",
		       nm_role_name(role), nm_cstate_name(cs),
		       nm_disk_name(disk), nm_disk_name(pdisk),
		       nm->nr_regions - oos, nm->nr_regions,
		       atomic64_read(&nm->writes_sent),
		       atomic64_read(&nm->writes_received),
		       atomic_read(&nm->pending),
		       atomic64_read(&nm->bytes_sent),
		       atomic64_read(&nm->bytes_received),
		       atomic64_read(&nm->writes_rejected), err,
		       cs == NM_C_SYNC_SOURCE || cs == NM_C_SYNC_TARGET ?
		       kibs : 0, eta, atomic64_read(&nm->resync_bytes));
		break;
	case STATUSTYPE_TABLE:
		DMEMIT("%s %s %s %s", nm->dev->name, nm->peer_str,
		       proto[nm->protocol], ord[nm->ordering]);
		nopt = (nm->has_listen ? 2 : 0) +
		       (nm->table_role == NM_ROLE_PRIMARY ? 2 : 0) +
		       (nm->meta_dev ? 2 : 0) + (nm->has_region_size ? 2 : 0) +
		       (nm->has_sync ? 2 : 0) + (nm->has_rate ? 2 : 0) +
		       (nm->has_timeout ? 2 : 0) + (nm->has_ping ? 2 : 0) +
		       (nm->has_on_io_error ? 2 : 0) + (nm->integrity ? 2 : 0) +
		       (nm->secret_desc[0] ? 2 : 0);
		if (nopt)
			DMEMIT(" %u", nopt);
		if (nm->has_listen)
			DMEMIT(" listen %s", nm->listen_str);
		if (nm->table_role == NM_ROLE_PRIMARY)
			DMEMIT(" role primary");
		if (nm->meta_dev)
			DMEMIT(" meta %s", nm->meta_dev->name);
		if (nm->has_region_size)
			DMEMIT(" region_size %u", nm->region_sectors);
		if (nm->has_sync)
			DMEMIT(" sync %s", nm->sync_none ? "none" : "full");
		if (nm->has_rate)
			DMEMIT(" resync_rate %u", nm->table_rate);
		if (nm->has_timeout)
			DMEMIT(" timeout %u", nm->timeout_ms);
		if (nm->has_ping)
			DMEMIT(" ping %u", nm->ping_ms);
		if (nm->has_on_io_error)
			DMEMIT(" on_io_error %s",
			       nm->detach_on_error ? "detach" : "pass_on");
		if (nm->integrity)
			DMEMIT(" integrity crc32c");
		if (nm->secret_desc[0])
			DMEMIT(" secret %s", nm->secret_desc);
		break;
	case STATUSTYPE_IMA:
		DMEMIT_TARGET_NAME_VERSION(ti->type);
		DMEMIT(",local_dev=%s,peer=%s,protocol=%s,ordering=%s;",
		       nm->dev->name, nm->peer_str, proto[nm->protocol],
		       ord[nm->ordering]);
		break;
	}
}

static int nm_message(struct dm_target *ti, unsigned int argc, char **argv,
		      char *result, unsigned int maxlen)
{
	struct nm_dev *nm = ti->private;
	unsigned long flags;

	if (argc == 2 && !strcasecmp(argv[0], "resync_rate")) {
		unsigned int v;

		if (!nm_parse_uint(argv[1], &v)) {
			DMERR("resync_rate wants KiB/s (0 = adaptive), not \"%s\"",
			      argv[1]);
			return -EINVAL;
		}
		WRITE_ONCE(nm->rs_rate, v);
		nm_sync_kick(nm);
		return 0;
	}
	if (argc != 1) {
		DMERR("unknown message or wrong number of words (want primary, secondary, connect, disconnect, resync_rate N, pause_resync, resume_resync)");
		return -EINVAL;
	}
	if (!strcasecmp(argv[0], "attach"))
		return nm_attach(nm);
	if (!strcasecmp(argv[0], "pause_resync") ||
	    !strcasecmp(argv[0], "resume_resync")) {
		spin_lock_irqsave(&nm->lock, flags);
		nm->rs_paused = !strcasecmp(argv[0], "pause_resync");
		spin_unlock_irqrestore(&nm->lock, flags);
		nm_sync_kick(nm);
		return 0;
	}
	if (!strcasecmp(argv[0], "primary"))
		return nm_set_role(nm, NM_ROLE_PRIMARY, result, maxlen);
	if (!strcasecmp(argv[0], "secondary"))
		return nm_set_role(nm, NM_ROLE_SECONDARY, result, maxlen);
	if (!strcasecmp(argv[0], "connect") ||
	    !strcasecmp(argv[0], "disconnect")) {
		bool on = !strcasecmp(argv[0], "connect");

		spin_lock_irqsave(&nm->lock, flags);
		nm->want_connect = on;
		spin_unlock_irqrestore(&nm->lock, flags);
		if (!on)
			nm_conn_drop(nm);
		wake_up(&nm->conn_wq);
		return 0;
	}
	DMERR("unknown message \"%s\" (want primary, secondary, connect, disconnect, resync_rate N, pause_resync, resume_resync)",
	      argv[0]);
	return -EINVAL;
}

static void nm_postsuspend(struct dm_target *ti)
{
	nm_conn_stop(ti->private);
}

static void nm_resume(struct dm_target *ti)
{
	struct nm_dev *nm = ti->private;

	if (nm_conn_start(nm))
		DMERR("%s: cannot start the connection threads",
		      dm_device_name(dm_table_get_md(ti->table)));
}

static int nm_iterate_devices(struct dm_target *ti,
			      iterate_devices_callout_fn fn, void *data)
{
	struct nm_dev *nm = ti->private;

	return fn(ti, nm->dev, 0, ti->len, data);
}

static struct target_type nm_target = {
	.name = "netmirror",
	.version = {1, 4, 0},
	.module = THIS_MODULE,
	.ctr = nm_ctr,
	.dtr = nm_dtr,
	.map = nm_map,
	.end_io = nm_end_io,
	.status = nm_status,
	.message = nm_message,
	.postsuspend = nm_postsuspend,
	.resume = nm_resume,
	.iterate_devices = nm_iterate_devices,
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

MODULE_DESCRIPTION(DM_NAME " network mirror target");
MODULE_AUTHOR("netmirror developers");
MODULE_LICENSE("GPL");
