/* SPDX-License-Identifier: GPL-2.0 */
/*
 * netmirror: shared definitions of the module's files, one per role:
 *   nm_target.c     the dm target: ctr/dtr, map, status, messages
 *   nm_conn.c       the connection threads: connect, receive loop, send
 *   nm_dispatch.c   the receive dispatch: one packet to its role's handler
 *   nm_fastack.c    data_ready: a primary's acks, a secondary's worker
 *   nm_primary.c    this node as primary: a request from map to completion
 *   nm_read.c       primary: reads, local or from the peer
 *   nm_merge.c      primary: adjacent writes under one plug become one
 *   nm_secondary.c  this node as secondary: applies writes, serves reads
 *   nm_flush.c      flushes of this node's disk, what a failed one lost
 *   nm_resync.c     resync source, bitmap exchange, lazy clearing
 *   nm_rstarget.c   resync target: P_RS_START, P_RS_DONE, P_RS_STOP
 *   nm_verify.c     online verify, both halves (P_CSUM_REQ/P_CSUM_REPLY)
 *   nm_reload.c     what a table's instance hands its successor
 *   nm_state.c      state words, last error, role, detach/attach
 *   nm_regions.c    the region bitmaps and counts (nm_regions.h)
 *   nm_link.c       socket, framing, handshake, authentication
 *   nm_meta.c       the persistent bitmap (opaque object, nm_meta.h)
 *   nm_wire.h       the wire format; nm_params.h the parameter table
 *
 * Lock order (outermost first):
 *   nm->ack_mutex   secondary: one sender of write acks at a time;
 *                   nm_meta_commit (its own mutex, nm_meta.h) may run
 *                   under it (nm_peer_flush_failed), never around it.
 *   nm->tx_mutex    serialises every send on the socket and changes of
 *                   nm->sock; may sleep (socket I/O), for long with a
 *                   stalled peer: never needed to drop the link.
 *   nm->drop_mutex  guards drop_sock, the pointer nm_conn_drop() shuts
 *                   down; held only around that (never across I/O).
 *   nm->lock        spinlock, irqsave (bio end_io takes it): connection
 *                   state, role, the request queues send_q/wait_q/ack_q,
 *                   epoch bookkeeping, the out-of-sync bitmap and the
 *                   secondary's list of writes in flight (peer_reqs).
 * Nothing sleeps under nm->lock; tx_mutex is never taken under nm->lock.
 *
 * Threads per device, all started at resume and stopped at postsuspend:
 *   nm_conn/<dev>   listens, connects, handshakes, then receives and
 *                   dispatches every packet until the link fails.
 *   nm_send/<dev>   sends queued writes (primary), write acks (secondary),
 *                   state changes, pings and the bitmap.
 *   nm_sync/<dev>   resync source (reads regions, sends them), lazy
 *                   clearing of the persistent bitmap, resubmission of
 *                   writes deferred behind a region in resync.
 * Workqueue nm->wq (WQ_MEM_RECLAIM): marks regions in the metadata before
 * the first write into them is issued (nm_mark_work); starts the writes
 * held on a plug that was unplugged from schedule() (nm_merge.c); the
 * link's watchdog (live_work, nm_conn.c), the one place that declares a
 * connected peer dead (silent, or answering no request, for timeout): it
 * takes drop_mutex and nm->lock one after the other, never nested, never
 * across I/O.
 */
#ifndef DM_NETMIRROR_H
#define DM_NETMIRROR_H

#include <linux/device-mapper.h>
#include <linux/bio.h>
#include <linux/net.h>
#include <linux/socket.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <linux/key.h>
#include <linux/kthread.h>
#include <linux/sched/clock.h>
#include "nm_wire.h"
#include "nm_meta.h"
#include "nm_params.h"
#include "nm_regions.h"
#include "nm_gens.h"
#include "nm_hist.h"
#include "nm_rxmode.h"

#define DM_MSG_PREFIX "netmirror"

/* The one connection-state enum; its names are the status words. */
#define NM_C_ENUM_ROW(id, word) NM_C_##id,
enum nm_cstate { NM_CSTATE_WORDS(NM_C_ENUM_ROW) NM_C_COUNT };
#undef NM_C_ENUM_ROW

#define NM_RS_WINDOW		8	/* regions in resync at once (<= BITS_PER_LONG) */
#define NM_RS_RETRY		(10 * HZ)	/* a resync left incomplete starts again */
#define NM_RS_MIN_RATE		(8 << 10)	/* KiB/s while the app writes */
#define NM_CONNECT_TIMEOUT_MS	2000
#define NM_HELLO_CROSS_MS	300	/* first P_HELLO wait, crossed connects */
#define NM_PEER_MAX_INFLIGHT	1024
#define NM_TX_BOUNCE		(64 * 1024)	/* a summed payload's copy */
/* secondary: at most this many writes' acks held for the next packet */
#define NM_ACK_BATCH		16
/*
 * Answers queued for the sender thread, at most (a peer that floods valid
 * packets and reads slowly grew them without bound, fault-flood): over
 * NM_CTRL_Q_MAX a receiver sends its P_PING_ACK or P_CSUM_REPLY waiting;
 * with NM_ACK_Q_MAX acks queued a secondary reads no further write until
 * the sender has sent some.  A peer that follows the protocol never has
 * that many outstanding (a ping per interval, a verify window of 8).
 */
#define NM_CTRL_Q_MAX		256
#define NM_ACK_Q_MAX		NM_PEER_MAX_INFLIGHT
#define NM_POOL_PAGES		512	/* secondary: free pages kept for writes */
#define NM_OV_LOG_MAX		16	/* differing blocks logged per verify */

/* Online verify's state (status field "verify"), in word order. */
enum nm_ov_state { NM_OV_NONE, NM_OV_RUNNING, NM_OV_DONE, NM_OV_STOPPED };

/*
 * A resync slot's region (csums): read and sent, or being read
 * (NM_RSS_DATA); its digests sent, the target's P_CSUM_REPLY awaited
 * (NM_RSS_CSUM); the reply in, its differing blocks to send (NM_RSS_DIFF);
 * asked by a resync that has ended since, the reply to drop (NM_RSS_STALE).
 */
enum nm_rs_slot_state { NM_RSS_DATA, NM_RSS_CSUM, NM_RSS_DIFF, NM_RSS_STALE };

/* Per-bio data of a write on the primary. */
struct nm_req {
	struct nm_dev *nm;
	struct bio *bio;		/* the bio dm gave us */
	struct list_head list;		/* send_q, then wait_q */
	struct list_head active;	/* nm->active while in flight */
	u64 id;
	u32 epoch;
	u32 conn_gen;			/* the link its P_DATA went on */
	u32 peer_fails;			/* nm->peer_fails at its send */
	u64 stable_need;		/* held: the P_SYNC_ACK that ends it */
	unsigned long sent_at;		/* __nm_live_now: onto wait_q, sent */
	u64 flush_covers;		/* empty flush: peer_unstable at map */
	u64 t_map, t_sent;		/* nm_clock_ns(): map, P_DATA sent */
	struct bvec_iter saved_iter;	/* reads: to retry on the peer */
	atomic_t ref;			/* local part, peer part, sender */
	unsigned long flags;
	blk_status_t status;		/* local result */
};

/*
 * One write made of adjacent writes that were held on their submitter's
 * plug (nm_merge.c), from the device's merge_bs (front_pad: up to @bio).
 * It goes through nm_map_write like any write, with @req as its per-bio
 * data (nm_req_of); its end (nm_merged_endio) ends every write of @orig
 * with its status.
 */
struct nm_merged {
	struct bio_list orig;		/* the writes it carries, in order */
	struct nm_req req;
	struct bio bio;			/* last: the bio_set's bio */
};

void nm_merged_endio(struct bio *bio);

/* The request state of a write: a merged one's own, else dm's per-bio data. */
static inline struct nm_req *nm_req_of(struct bio *bio)
{
	if (bio->bi_end_io == nm_merged_endio)
		return &container_of(bio, struct nm_merged, bio)->req;
	return dm_per_bio_data(bio, sizeof(struct nm_req));
}

#define NM_REQ_PEER	0	/* peer part still outstanding */
#define NM_REQ_QUEUED	1	/* on send_q or wait_q */
#define NM_REQ_DATA	2	/* counted in inflight[] */
#define NM_REQ_READ	3	/* a read (local, or from the peer) */
#define NM_REQ_REMOTE	4	/* served by the peer */
#define NM_REQ_HAD_PEER	5	/* a write with a peer part */
#define NM_REQ_LOCAL_FAILED 6	/* local write failed, detached */
#define NM_REQ_NO_LOCAL	7	/* diskless: no local part */
#define NM_REQ_PEER_OK	8	/* the peer part was delivered */
#define NM_REQ_LOCAL_STALE 9	/* local disk not uptodate at map */
#define NM_REQ_ACK_DISK	10	/* A/B: sent with NM_DF_ACK_DISK */

/*
 * One device.  The fields are grouped by what guards them; read a field
 * only under its guard (or with READ_ONCE where a section says so).
 */
struct nm_mac;

struct nm_dev {
	/* -- fixed from ctr to dtr: read without a lock -- */
	struct dm_target *ti;
	struct dm_dev *dev;
	sector_t sectors;
	struct sockaddr_storage peer_addr;
	struct sockaddr_storage listen_addr;
	char peer_str[64];		/* as given: reprinted exactly */
	char listen_str[64];
	enum nm_proto protocol;
	enum nm_ordering ordering;
	unsigned long given;		/* NM_OPT_* given in the table */
	/* options kept as u32 (nm_opt_field[] in nm_target.c) */
	u32 table_role;			/* enum nm_role given in the table */
	u32 region_sectors;
	u32 sync_none;			/* "sync none": trust equal devices */
	u32 table_rate;			/* resync_rate from the table, KiB/s */
	u32 timeout_ms;			/* peer silent longer: dead */
	u32 ping_ms;			/* idle link: ping after this */
	u32 max_buffers;		/* KiB of received writes held */
	u32 pass_on;			/* on_io_error pass_on (else detach) */
	u32 integrity;			/* its word (only crc32c): see below */
	u32 after_sb[2];		/* enum nm_asb0, nm_asb1 */
	u32 fencing;			/* 1: freeze (nm_freeze) */
	u32 csums;			/* resync digests: NM_CSUM_*, 0: off */
	u32 verify_alg;			/* verify digests: NM_CSUM_* - 1 */
	struct dm_dev *meta_dev;	/* optional: persistent bitmap */
	bool meta_internal;		/* "meta internal": on dev, in front */
	sector_t data_start;		/* local sector of target sector 0 */
	struct list_head live;		/* nm_reload.c's instances, its lock */
	char secret_desc[64];		/* logon key description, or "" */
	struct key *secret_key;		/* held from ctr to dtr */
	u64 nonce;
	struct nm_meta *meta;		/* its own locks, nm_meta.h */
	struct bio_set bs;
	struct bio_set merge_bs;	/* struct nm_merged (nm_merge.c) */
	struct workqueue_struct *wq;
	struct work_struct mark_work;
	struct work_struct zero_work;	/* discards off the granularity */
	struct work_struct overlap_work;
	struct work_struct gen_work;
	struct work_struct thaw_work;	/* the link is back: release */
	struct work_struct event_work;	/* dm_table_event from irq context */
	struct work_struct disk_work;	/* nm_disk_work: save the disk state */
	wait_queue_head_t sync_wq;
	wait_queue_head_t send_wq;
	wait_queue_head_t conn_wq;
	wait_queue_head_t peer_wq;

	/* -- suspend/resume/dtr (serialised by dm) -- */
	bool resumed;			/* resumed once (nm_reload_adopt) */
	bool reload_refused;		/* its role refused at resume, for good */
	bool suspended;			/* postsuspend ran, no resume since */
	struct task_struct *conn_task;
	struct task_struct *send_task;
	struct task_struct *sync_task;

	/* -- under nm->lock (spinlock, irqsave); READ_ONCE where noted -- */
	spinlock_t lock;
	enum nm_cstate cstate;		/* READ_ONCE for a hint */
	enum nm_role role;		/* READ_ONCE for a hint */
	enum nm_disk disk;		/* READ_ONCE for a hint */
	enum nm_role peer_role;
	enum nm_disk peer_disk;
	u32 peer_proto;			/* both speak up to this (handshake) */
	bool want_connect;
	bool conn_stopping;		/* nm_conn_stop runs: not a lost link */
	bool peer_nonce_known;
	u64 peer_nonce;
	struct list_head send_q;	/* writes not yet sent */
	struct list_head wait_q;	/* sent, awaiting the protocol's ack */
	unsigned long answered_at;	/* __nm_live_now: the peer last answered one */
	/*
	 * nm_check_stuck's clock (__nm_live_now) is jiffies less the time our
	 * reader waited for our own disk: live_held, jiffies of the waits
	 * that ended (under nm->lock); rx_held while one lasts, since
	 * live_held_at (both written by the stream's owner only, with
	 * WRITE_ONCE / smp_store_release: nm_rx_wait_begin)
	 */
	unsigned long live_held;
	unsigned long live_held_at;
	bool rx_held;
	struct list_head ack_q;		/* secondary: write acks to send */
	unsigned int ack_q_len;		/* entries on ack_q (nm->lock) */
	struct list_head active;	/* primary: writes in flight */
	struct list_head peer_reqs;	/* secondary: writes on the disk */
	u64 next_id;
	u32 epoch;			/* primary: current epoch */
	bool epoch_completed;		/* a write of @epoch has completed */
	/*
	 * Primary, protocol C: P_WRITE_ACKs of writes without NM_AF_STABLE
	 * (their data may sit in the peer's volatile cache), counted; and
	 * the count that the last completed peer flush covers.  Equal: an
	 * empty flush has nothing to make stable on the peer (nm_map_write).
	 */
	u64 peer_unstable;
	u64 peer_flushed;
	bool send_state;		/* a P_STATE is due */
	bool send_bitmap;		/* sender: our bitmap is due */
	struct list_head ctrl_q;	/* receivers' packets left to the sender */
	unsigned int ctrl_q_len;	/* entries on ctrl_q (nm->lock) */
	u32 conn_gen;			/* bumped at each new connection */
	struct nm_regions rg;		/* region state */
	struct bio_list rs_wait;	/* writes waiting for a resync region */
	struct bio_list mark_wait;	/* writes waiting for a metadata mark */
	struct bio_list zero_bios;	/* discards for nm_zero_work */
	struct bio_list overlap_wait;	/* writes behind an overlapping one */
	bool bm_sent;			/* our bitmap went out on this link */
	bool bm_peer_done;		/* the peer's bitmap arrived */
	bool rs_ran;			/* a resync started on this link */
	bool rs_stopped;		/* source: it ended incomplete ... */
	bool rs_refused;		/* source: the peer refused a region */
	unsigned long rs_retry_at;	/* ... and starts again then */
	unsigned long rs_hold_at;	/* target: jiffies, last rs_hold set */
	bool rs_holding;		/* target: rs_hold may have bits */
	bool rs_tail;			/* target: an ended resync's data due */
	bool rs_paused;
	unsigned int rs_inflight;	/* regions sent, not yet acked */
	unsigned long rs_cursor;
	u64 sync_cookie;		/* the last P_SYNC sent */
	u64 sync_acked;			/* the last P_SYNC_ACK received */
	u64 sync_wait;			/* P_SYNC_ACK that retires rg.syncing */
	char last_error[64];
	struct ratelimit_state fail_rs;	/* nm_fail()'s repeats */
	struct nm_gens gen;		/* our data generations */
	enum nm_gen_cmp gen_cmp;	/* this link's verdict */
	s8 eq_marks;			/* same generation, regions marked: */
					/* +1 we are the source, -1 the peer */
					/* (nm_gens_eq_marks) */
	/* online verify, source side (nm_verify.c) */
	enum nm_ov_state ov_state;
	u16 ov_alg;			/* NM_CSUM_* of this run */
	bool ov_hold;			/* found some: next link resyncs */
	unsigned int ov_inflight;	/* P_CSUM_REQ sent, not answered */
	unsigned int ov_logged;		/* differing blocks logged */
	sector_t ov_start, ov_end;	/* the range, 4 KiB-aligned */
	sector_t ov_cursor;		/* next sector to read */
	u64 ov_done;			/* sectors compared (answered) */
	u64 ov_diffs;			/* 4 KiB blocks that differ */
	unsigned long ov_t0;		/* jiffies at the start */
	bool gen_fresh;			/* cur begun alone this link, not offered */
	bool pri_at_split;		/* primary when the last link went (or, */
					/* none since the ctr, at the last stop) */
	bool gen_unsaved;		/* it (or NM_MF_PRIMARY) is not on */
					/* the metadata yet */
	u32 disk_seq;			/* disk state changes noted for the metadata */
	u32 disk_saved;			/* the last of them known on it */
	u32 gen_seq;			/* generations (and NM_MF_PRIMARY) */
					/* begun (nm_gen_save) */
	bool discard_my_data;		/* give up our changes at a split */
	bool gen_handover;		/* P_RS_DONE sent, not yet confirmed */
	u64 gen_exposed;		/* not uptodate: the peer's data's generation */
	struct bio_list gen_wait;	/* writes waiting for a new generation */
	bool frozen;			/* fencing: writes held (nm_freeze) */
	/*
	 * A demotion ended the freeze (nm_thaw): the writes still in flight
	 * whose peer part is not confirmed end with this status, as the held
	 * ones did; 0 again at the next freeze or promotion.
	 */
	blk_status_t thaw_fail;
	bool suspending;		/* presuspend ran, no resume since */
	struct bio_list frozen_new;	/* held before they started */
	struct bio_list frozen_done;	/* done locally, held before endio */
	/*
	 * A, B: writes done on no disk known to hold them (this node's
	 * failed or is gone, the peer's part ended at its send or receipt),
	 * held before endio until a P_SYNC_ACK of a cookie >= their
	 * req->stable_need (nm_req_complete, nm_stable_release); failed if
	 * the peer failed a write since theirs was sent (peer_fails moved) or
	 * the link went first.
	 */
	struct bio_list stable_wait;
	u64 stable_need;		/* the newest held request's */
	u32 peer_fails;			/* nm_peer_failed calls */
	/* target: resync writes done, and any since the last flush */
	u32 rs_done_seq;
	bool rs_unflushed_any;
	/*
	 * secondary: a flush of the peer's failed on our disk (nm_peer_end)
	 * with resync data unflushed or in flight: the link drop that follows
	 * (A, B: nm_peer_flush_failed), else the next nm_flush_local or
	 * nm_rs_flush_pending, marks them out of sync (nm_rs_flushed)
	 */
	bool flush_lost;
	/*
	 * not primary: a metadata commit's flush of the data device failed
	 * (nm_meta_flush_failed): the next nm_flush_local fails
	 */
	bool meta_flush_lost;
	/*
	 * secondary: resync writes begun (rs_sub_seq); those begun up to
	 * rs_suspect_seq were in flight when a flush of the peer's failed
	 * (rs_suspect): each sets flush_lost again when it is done
	 */
	u32 rs_sub_seq;
	u32 rs_suspect_seq;
	bool rs_suspect;

	/* -- under tx_mutex: the socket and everything sent on it -- */
	struct mutex tx_mutex;
	struct socket *sock;
	u32 tx_seq;
	bool crc_on;			/* integrity negotiated on this link */
	struct nm_mac *tx_mac;		/* secret: this link's send MAC */
	void *tx_bounce;		/* integrity or secret: NM_TX_BOUNCE bytes */
	u32 tx_crc;
	bool tx_more;			/* a batch: more packets follow at once */
	u32 sent_epoch;			/* epoch of the last P_DATA */
	bool sent_in_epoch;
	u32 sent_role;			/* role in the last P_HELLO/P_STATE */
	u32 sent_disk;			/* disk in the last P_HELLO/P_STATE */
	unsigned long last_tx;		/* jiffies; READ_ONCE for the ping */

	/* -- under drop_mutex / ack_mutex -- */
	struct mutex drop_mutex;	/* never held long */
	struct socket *drop_sock;	/* the link, for nm_conn_drop */
	/*
	 * the link's watchdog (nm_conn.c): rx_at, jiffies of the peer's last
	 * bytes, WRITE_ONCE in data_ready (nm_fastack.c) and by live_work
	 */
	unsigned long rx_at;
	/* the stream's owner, in a packet's handler (nm_rx_wait_begin) */
	struct task_struct *rx_owner;
	struct delayed_work live_work;
	struct mutex ack_mutex;		/* secondary: acks leave in order */

	/*
	 * -- nm_conn thread only (rx_*, peer_epoch*: the stream's owner,
	 * which may be rx_work while the thread waits, nm_fastack.c) --
	 */
	struct socket *listen_sock;
	u32 rx_seq;
	u32 rx_crc;
	struct nm_mac *rx_mac;		/* secret: this link's receive MAC */
	u8 link_keys[2][32];		/* from nm_auth: send, receive */
	u32 link_seq;			/* the link's first packet (nm_handshake) */
	u32 hello_role;			/* role in our last P_HELLO */
	u32 hello_disk;			/* disk in our last P_HELLO */
	u32 peer_epoch;			/* secondary: the epoch being applied */
	bool peer_epoch_valid;
	/* primary: acks taken in data_ready (nm_fastack.c) */
	bool rx_fast;			/* WRITE_ONCE under the socket lock */
	void (*rx_orig_data_ready)(struct sock *sk);
	/*
	 * secondary: whole packets of the write stream read by rx_work on
	 * the CPU that received them (nm_fastack.c); rx_work_on is set by
	 * nm_conn only, cleared by either
	 */
	bool rx_work_on;
	/* the stream's owner only: which reader under load (nm_rxmode.h) */
	struct nm_rxmode rxm;
	int rx_work_err;		/* why rx_work ended the link */
	struct work_struct rx_work;
	struct workqueue_struct *rx_wq;
	/* secondary: set around its submit_bio (nm_peer_inline_done) */
	struct task_struct *peer_submitter;
	/* secondary, the stream's owner only: acks left for the next packet */
	unsigned int acks_held;

	/*
	 * -- resync buffers: one slot per region in flight (NM_RS_WINDOW).
	 * Slot 0 is allocated at ctr, the others by nm_sync at the first
	 * resync (GFP_NOIO, optional: the window is the slots it got).  A
	 * slot's pages go out by reference (sendpage): the slot is busy from
	 * its read to the region's P_RS_ACK or the link's end.
	 * rs_pages, rs_nr_pages, rs_slots: nm_sync thread only;
	 * rs_slot_region (ULONG_MAX: free): under nm->lock. --
	 */
	struct page **rs_pages[NM_RS_WINDOW];
	unsigned int rs_nr_pages;	/* pages per slot (one region) */
	unsigned int rs_slots;		/* slots allocated, >= 1 */
	unsigned long rs_slot_region[NM_RS_WINDOW];
	/* __nm_live_now: the slot's region was sent (bit in rs_slot_sent) */
	unsigned long rs_slot_at[NM_RS_WINDOW];
	unsigned long rs_slot_sent;	/* nm_check_stuck times these */
	/*
	 * csums: what a slot's region waits for (under nm->lock), and the
	 * target's answer: the blocks to send (NM_RSS_DIFF).
	 */
	u8 rs_slot_state[NM_RS_WINDOW];
	unsigned long rs_slot_diff[NM_RS_WINDOW][BITS_TO_LONGS(NM_CSUM_MAX_BLOCKS)];
	unsigned long sync_kicked;	/* bit 0: nm_sync has work (atomic) */

	/*
	 * -- online verify's buffers (nm_verify.c), allocated at ctr: the
	 * source's digests (nm_sync only), the peer's digests (nm_conn
	 * only), sha256 (NULL: not available). --
	 */
	u8 *ov_digests;
	u8 *ov_rx_digests;
	struct crypto_shash *ov_sha;
	unsigned long ov_rate_t;	/* nm_sync only: rate sampling */
	u64 ov_rate_last;

	/* -- secondary's page pool (nm_secondary.c): under pool_lock -- */
	spinlock_t pool_lock;		/* irqsave; nothing nests inside */
	struct list_head pool;		/* free pages, linked by page->lru */
	unsigned int pool_nr;

	/* -- atomics, or WRITE_ONCE/READ_ONCE -- */
	u32 rs_rate;			/* live resync_rate, KiB/s, 0 = adapt */
	u32 rs_kibs;			/* measured resync rate */
	u32 ov_kibs;			/* measured verify rate */
	atomic64_t ov_bytes;		/* bytes compared by verify */
	atomic_t peer_inflight;		/* secondary: writes on the disk */
	atomic_t peer_pages;		/* secondary: their pages (max_buffers) */
	atomic_t pending;		/* writes awaiting the peer */
	atomic64_t writes_sent;
	atomic64_t writes_inline;	/* sent from map (nm_send_inline) */
	atomic64_t flushes_local;	/* C: empty flushes the peer did not need */
	atomic64_t acks_batched;	/* secondary: acks held for a later packet */
	atomic64_t acks_deferred;	/* receiver: acks left to the sender */
	atomic64_t writes_rx_work;	/* secondary: writes rx_work read */
	atomic64_t rx_probes;		/* secondary: reader probes (rxm) */
	atomic64_t rx_switches;		/* secondary: reader changes (rxm) */
	atomic64_t acks_fast;		/* acks taken in data_ready */
	atomic64_t writes_received;
	atomic64_t bytes_sent;
	atomic64_t bytes_received;
	atomic64_t writes_rejected;
	/* stage latencies (nm_lat_add, the "latency" message) */
	atomic64_t lat[NM_LAT_COUNT][NM_HIST_BUCKETS];
	atomic64_t resync_bytes;	/* resync data sent or received */
	/* the running or last resync (zeroed at its start): bytes ... */
	atomic64_t rs_marked;		/* ... of the regions it began with */
	atomic64_t rs_compared;		/* ... compared by digest (csums) */
	atomic64_t rs_sent;		/* ... of data sent or received */
	atomic64_t app_bytes;		/* bytes of application writes */
};

/* Names and logging: every message carries the device name. */
static inline const char *nm_name(struct nm_dev *nm)
{
	return dm_device_name(dm_table_get_md(nm->ti->table));
}

#define nm_err(nm, fmt, ...) DMERR("%s: " fmt, nm_name(nm), ##__VA_ARGS__)
#define nm_err_limit(nm, fmt, ...) \
	DMERR_LIMIT("%s: " fmt, nm_name(nm), ##__VA_ARGS__)
/*
 * A failure that status names in last_error (@word), with its line in the
 * kernel log: the line is printed whenever the word changes, and repeats of
 * the same word at most 10 times in 5 s for this device (fail_rs).  The
 * line comes before the word, so a reader that sees the word finds the
 * line.  DMERR_LIMIT's one limit per call site, shared by every device,
 * let other devices' repeats hide a device's first refusal.  Any context.
 */
#define nm_fail(nm, word, fmt, ...) do {				\
	struct nm_dev *nm_f_ = (nm);					\
	const char *nm_w_ = (word);					\
									\
	if (!nm_error_is(nm_f_, nm_w_) || __ratelimit(&nm_f_->fail_rs)) \
		nm_err(nm_f_, fmt, ##__VA_ARGS__);			\
	nm_set_error(nm_f_, nm_w_);					\
} while (0)
#define nm_warn(nm, fmt, ...) DMWARN("%s: " fmt, nm_name(nm), ##__VA_ARGS__)
#define nm_info(nm, fmt, ...) DMINFO("%s: " fmt, nm_name(nm), ##__VA_ARGS__)

/* "integrity crc32c" given: a crc32c trailer on every packet. */
static inline bool nm_integrity(struct nm_dev *nm)
{
	return test_bit(NM_OPT_INTEGRITY, &nm->given);
}

/*
 * The stream's owner, in a packet's handler, begins and ends a wait for
 * our own disk (room for a write, an overlapping write, a drain, a flush,
 * a read, a write's submit, which a request-based disk may hold for a
 * tag): nm_check_stuck's clock (__nm_live_now) stands still meanwhile,
 * since the peer's answers may wait unread behind it.  Anyone else (the
 * sync thread, the verify source, a suspend) waits as before.
 * nm_rx_wait_begin returns whether it counted, for nm_rx_wait_end.  No
 * lock unless the wait spanned a tick: a write's submit, nearly always
 * shorter, costs two stores.  Context: process, no spinlock held.
 */
static inline bool nm_rx_wait_begin(struct nm_dev *nm)
{
	if (READ_ONCE(nm->rx_owner) != current)
		return false;
	WARN_ON_ONCE(nm->rx_held);	/* never nested */
	WRITE_ONCE(nm->live_held_at, jiffies);
	smp_store_release(&nm->rx_held, true);	/* after live_held_at */
	return true;
}

static inline void nm_rx_wait_end(struct nm_dev *nm, bool began)
{
	unsigned long flags, at = nm->live_held_at, now = jiffies;

	if (!began)
		return;
	if (now == at) {
		smp_store_release(&nm->rx_held, false);	/* nothing to add */
		return;
	}
	spin_lock_irqsave(&nm->lock, flags);
	nm->live_held += now - at;
	smp_store_release(&nm->rx_held, false);	/* with live_held */
	spin_unlock_irqrestore(&nm->lock, flags);
}

/* Wake the sender thread (nm_conn.c) / the sync thread (nm_resync.c). */
static inline void nm_conn_kick(struct nm_dev *nm)
{
	wake_up(&nm->send_wq);
}

static inline void nm_sync_kick(struct nm_dev *nm)
{
	set_bit(0, &nm->sync_kicked);
	wake_up(&nm->sync_wq);
}

/* A discard or write-zeroes: a range and no data (P_ZERO). */
static inline bool nm_bio_zero(struct bio *bio)
{
	return bio_op(bio) == REQ_OP_DISCARD ||
	       bio_op(bio) == REQ_OP_WRITE_ZEROES;
}

/* The bytes of data a write carries on the wire (none for a P_ZERO). */
static inline u32 nm_bio_data_bytes(struct bio *bio)
{
	return nm_bio_zero(bio) ? 0 : bio->bi_iter.bi_size;
}

static inline bool nm_link_up(struct nm_dev *nm)
{
	return READ_ONCE(nm->cstate) >= NM_C_CONNECTED;
}

/*
 * Resync and verify rate control (nm_sync thread): a fixed cap
 * (resync_rate), or adaptive: full speed while the application idles,
 * its own write rate (at least NM_RS_MIN_RATE) while it writes.
 */
struct nm_rate {
	unsigned long t0;
	u64 sent;		/* bytes owed at t0 (nm_rs_throttle) */
	u32 cap;		/* the cap they were owed at, KiB/s */
	u64 app_last;
	unsigned long app_t;	/* jiffies of the last sample */
	unsigned long app_seen;	/* jiffies of the last app write seen */
	u64 app_kibs;
	/* nm_sync_second(): the thread's once-a-second work */
	unsigned long sec_t;	/* jiffies of the last one */
	u64 rs_last;		/* resync_bytes then */
	unsigned long ev_oos;	/* out of sync at the last progress event */
	u64 ev_ov;		/* verify sectors compared then */
};

void nm_sync_second(struct nm_dev *nm, struct nm_rate *rt);
void nm_stable_due(struct nm_dev *nm);

/*
 * The application's write rate, over 100 ms or more: from the thread's
 * loop and from nm_rs_throttle (a throttled pass stays there; up to
 * 1.18.10 only the loop sampled it, and 500 ms into a pass the adaptive
 * cap fell to none).
 */
static inline void nm_rs_app_sample(struct nm_dev *nm, struct nm_rate *rt)
{
	unsigned long now = jiffies;
	u64 app;

	if (time_before(now, rt->app_t + HZ / 10))
		return;
	app = atomic64_read(&nm->app_bytes);
	if (app != rt->app_last) {
		rt->app_seen = now;
		rt->app_kibs = (rt->app_kibs +
				div_u64((app - rt->app_last) * HZ,
					1024 * (now - rt->app_t))) / 2;
		rt->app_last = app;
	}
	rt->app_t = now;
}

static inline u32 nm_rs_cap(struct nm_dev *nm, struct nm_rate *rt)
{
	u32 cap = READ_ONCE(nm->rs_rate);

	if (cap)
		return cap;
	if (time_before(jiffies, rt->app_seen + HZ / 2))
		return max_t(u32, rt->app_kibs, NM_RS_MIN_RATE);
	return 0;
}

/* nm_primary.c: writes parked behind a resync region go on */
void nm_resubmit_waiting(struct nm_dev *nm);

/*
 * Bytes still owed of rt->sent, sent at rt->t0 at the cap rt->cap (all
 * paid after ten minutes: a step may be larger than ten minutes' worth).
 */
static inline u64 nm_rs_owed(struct nm_rate *rt)
{
	unsigned int ms = jiffies_to_msecs(jiffies - rt->t0);
	u64 paid;

	if (ms >= 600000)
		return 0;
	paid = (u64)rt->cap * 1024 * ms / 1000;
	return rt->sent > paid ? rt->sent - paid : 0;
}

/*
 * Sleep until @bytes more fit the rate (nm_sync thread only): a token
 * bucket.  What was sent is owed, and time pays it at the cap it was sent
 * at.  A step goes when nothing is owed (whole, however large) or when it
 * fits in 100 ms of the cap on top of what is owed.  A lower cap keeps at
 * most a step's worth owed (no long stall after it), a higher one pays
 * the rest faster, none owes nothing.  Up to 1.18.10 each second forgot
 * what was sent and a step had to fit in one second's budget: a cap
 * below a region (plus 10%) a second let none through, and the resync
 * stood still (tests/vm/guest/nm-resyncrate.sh).  While it waits, writes
 * parked behind a region whose resync is done go on.
 */
static inline void nm_rs_throttle(struct nm_dev *nm, struct nm_rate *rt,
				  u32 bytes)
{
	might_sleep();
	for (;;) {
		u32 cap;
		u64 owed;

		nm_rs_app_sample(nm, rt);
		cap = nm_rs_cap(nm, rt);
		/* a throttled resync or verify holds the thread here */
		nm_sync_second(nm, rt);
		nm_stable_due(nm);

		owed = nm_rs_owed(rt);
		if (cap != rt->cap) {
			if (!cap)
				owed = 0;
			else if (cap < rt->cap)
				owed = min_t(u64, owed,
					     max_t(u64, bytes,
						   (u64)cap * 1024 / 10));
			rt->cap = cap;
			rt->sent = owed;
			rt->t0 = jiffies;
		}
		if (!cap || !owed ||
		    owed + bytes <= (u64)cap * 1024 / 10) {
			rt->sent = cap ? owed + bytes : 0;
			rt->t0 = jiffies;
			return;
		}
		if (kthread_should_stop() || !nm_link_up(nm))
			return;
		nm_resubmit_waiting(nm);
		schedule_timeout_interruptible(msecs_to_jiffies(10));
	}
}

/* The regions [*first, *last] that @bio touches. */
static inline void nm_regions(struct nm_dev *nm, struct bio *bio,
			      unsigned long *first, unsigned long *last)
{
	if (!nm_regions_range(&nm->rg, bio->bi_iter.bi_sector,
			      bio_sectors(bio) ? bio_sectors(bio) : 1,
			      first, last))
		*first = *last = nm->rg.nr - 1;
}

/*
 * Calls between files go one way:
 *   target -> conn -> {primary, secondary, resync} -> {state, link}
 *   -> {wire, meta}; target -> merge -> primary
 * (resync may call primary and secondary; the receive handler table in
 * nm_conn.c is the one hub).  scripts/callgraph.sh checks it.
 */

/* nm_reload.c: what a table's instance hands to the next on a reload */
void nm_reload_save(struct nm_dev *nm);
int nm_reload_adopt(struct nm_dev *nm);
void nm_reload_forget(struct nm_dev *nm);
int nm_reload_layout(struct nm_dev *nm, sector_t data_start, char **error);
int nm_reload_ctr_role(struct nm_dev *nm, char **error);

/* nm_conn.c: the connection threads */
int nm_conn_start(struct nm_dev *nm);
void nm_conn_stop(struct nm_dev *nm);
void nm_stable_final(struct nm_dev *nm);
void nm_live_init(struct nm_dev *nm);

/* nm_resync.c: bitmap exchange, resync source, lazy clearing */
bool __nm_stable_link(struct nm_dev *nm);
u64 __nm_stable_cookie(struct nm_dev *nm);
/* nm_fastack.c */
void nm_fast_attach(struct nm_dev *nm, struct socket *s);
void nm_fast_detach(struct nm_dev *nm, struct socket *s);
int nm_fast_wait(struct nm_dev *nm, struct socket *s);
void nm_fast_init(struct nm_dev *nm);

/* nm_dispatch.c: read one packet and run its handler (the stream's owner) */
int nm_rx_packet(struct nm_dev *nm);
struct nm_req *__nm_wait_take(struct nm_dev *nm, u64 id, bool read);
struct nm_req *nm_ack_take(struct nm_dev *nm, u16 type,
			   const struct nm_p_ack *a);

int nm_rs_slot_alloc(struct nm_dev *nm, unsigned int slot, gfp_t gfp);
void nm_rs_slot_free(struct nm_dev *nm, unsigned int slot);
int nm_sync_start(struct nm_dev *nm);
void nm_sync_stop(struct nm_dev *nm);
int nm_send_bitmap(struct nm_dev *nm);
int nm_recv_bitmap(struct nm_dev *nm, const struct nm_p_bitmap *b,
		   u32 len);
void nm_rs_ack(struct nm_dev *nm, const struct nm_p_rs_ack *a);
void nm_sync_link_down(struct nm_dev *nm);
void nm_stable_done(struct nm_dev *nm, u64 cookie);
bool nm_is_source(struct nm_dev *nm);
int nm_rs_csum_reply(struct nm_dev *nm, const struct nm_p_csum_reply *rp);
void nm_rs_end_lost(struct nm_dev *nm);
void nm_rs_count_start(struct nm_dev *nm, u64 count, bool last);

/* nm_verify.c: online verify */
int nm_ov_init(struct nm_dev *nm);
void nm_ov_exit(struct nm_dev *nm);
int nm_verify_start(struct nm_dev *nm, u64 start, u64 sectors);
int nm_verify_stop(struct nm_dev *nm);
void nm_ov_step(struct nm_dev *nm, struct nm_rate *rt);
void nm_ov_tick(struct nm_dev *nm);
void __nm_ov_link_down(struct nm_dev *nm);
int nm_peer_csum(struct nm_dev *nm, const struct nm_p_csum *c, u32 len);
int nm_ov_reply(struct nm_dev *nm, const struct nm_p_csum_reply *rp);
const char *nm_ov_state_name(enum nm_ov_state s);
void nm_blk_map_host(const __be64 *wire, unsigned long *out);
void nm_blk_map_wire(const unsigned long *diff, __be64 *wire);
int nm_csum_digests(struct nm_dev *nm, u16 alg, struct page **pages,
		    u32 bytes, u8 *out);
int nm_csum_send(struct nm_dev *nm, sector_t sector, u32 bytes, u16 alg,
		 u16 flags, u32 gen);

/* nm_merge.c: adjacent writes held on the submitter's plug, merged */
bool nm_merge_map(struct nm_dev *nm, struct bio *bio);
extern bool nm_merge_writes;

/* nm_read.c: this node as primary: reads, local or from the peer */
int nm_map_read(struct nm_dev *nm, struct bio *bio);
int nm_read_endio(struct nm_dev *nm, struct bio *bio, blk_status_t *error);
int nm_recv_read_reply(struct nm_dev *nm, const struct nm_p_ack *a, u32 len);

/* nm_primary.c: this node as primary: requests from map to completion */
int nm_map_write(struct nm_dev *nm, struct bio *bio);
void nm_req_peer_done(struct nm_req *req, bool delivered);
void nm_req_put(struct nm_req *req);
void nm_stable_release(struct nm_dev *nm, u64 cookie);
void nm_mark_oos(struct nm_dev *nm, sector_t sector, unsigned int sectors);
void nm_mark_work(struct work_struct *w);
void nm_zero_work(struct work_struct *w);
void nm_overlap_work(struct work_struct *w);
void nm_gen_work(struct work_struct *w);
int nm_gen_save(struct nm_dev *nm);
void __nm_freeze(struct nm_dev *nm);
void nm_thaw(struct nm_dev *nm, blk_status_t st);
void nm_thaw_work(struct work_struct *w);
void nm_frozen_presuspend(struct nm_dev *nm);
int nm_outdate(struct nm_dev *nm);
int nm_invalidate(struct nm_dev *nm);
bool nm_send_one(struct nm_dev *nm);
bool nm_send_inline(struct nm_dev *nm, struct nm_req *req);
extern bool nm_inline_send;
extern bool nm_ack_batch;
extern bool nm_fast_ack;
extern bool nm_fast_rx;
extern bool nm_fast_rx_probe;
long nm_check_stuck(struct nm_dev *nm);
void nm_handle_ack(struct nm_dev *nm, u16 type, const struct nm_p_ack *a,
		   int *err);
void nm_neg_ack(struct nm_dev *nm, const struct nm_p_rs_ack *a);
void nm_tl_link_down(struct nm_dev *nm);

/* nm_rstarget.c: the resync target's start, end and stop */
int nm_peer_rs_start(struct nm_dev *nm, u64 count);
int nm_peer_rs_done(struct nm_dev *nm, const struct nm_p_rs_done *d);
int nm_peer_rs_stop(struct nm_dev *nm, u64 count);

/* nm_flush.c: flushes of this node's disk, and what a failed one lost */
void __nm_rs_flush_failed(struct nm_dev *nm);
void nm_local_flush_failed(struct nm_dev *nm);
void nm_meta_flush_failed(struct nm_dev *nm, bool wait);
bool nm_flush_lost_mark(struct nm_dev *nm);
void nm_rs_flush_pending(struct nm_dev *nm);
int nm_flush_local(struct nm_dev *nm);

/* nm_secondary.c: this node as secondary: applies writes, serves reads */
int nm_peer_data(struct nm_dev *nm, const struct nm_p_data *d);
int nm_peer_rs_data(struct nm_dev *nm, const struct nm_p_data *d);
int nm_peer_zero(struct nm_dev *nm, const struct nm_p_data *d);
int nm_peer_rs_zero(struct nm_dev *nm, const struct nm_p_data *d);
int nm_peer_rs_blocks(struct nm_dev *nm, const struct nm_p_rs_blocks *b);
int nm_peer_barrier(struct nm_dev *nm, u32 epoch);
int nm_peer_sync(struct nm_dev *nm, __be64 cookie);
int nm_peer_read(struct nm_dev *nm, const struct nm_p_data *d);
void nm_peer_drain(struct nm_dev *nm);
void nm_pool_exit(struct nm_dev *nm);
int nm_pool_get(struct nm_dev *nm, struct page **pages, unsigned int nr);
void nm_pool_put(struct nm_dev *nm, struct page **pages, unsigned int nr);
int nm_peer_send_acks(struct nm_dev *nm);
bool nm_tx_trylock(struct nm_dev *nm, size_t bytes);
int nm_send_ctrl_rx(struct nm_dev *nm, u16 type, const void *p, u32 len);
void nm_send_ctrl_q(struct nm_dev *nm);
void nm_ctrl_q_drop(struct nm_dev *nm);
/* The most one ack or ping packet takes on the wire: header, payload, trailer. */
#define NM_ACK_WIRE_MAX	128
void nm_peer_release_acks(struct nm_dev *nm, u32 want);
void nm_peer_reset(struct nm_dev *nm);
int nm_zero_range(struct nm_dev *nm, sector_t sector, sector_t sectors,
		  u32 fl, struct bio **biop);
bool nm_discard_whole(struct block_device *bdev, sector_t s, sector_t e,
		      sector_t *first, sector_t *end);
void nm_peer_wait_overlaps(struct nm_dev *nm, sector_t sector,
			   unsigned int sectors);
void nm_peer_wait_drained(struct nm_dev *nm);

/*
 * Under nm->lock: nm_check_stuck's clock, in jiffies, standing still while
 * our reader waits for our own disk (nm_rx_wait_begin): the peer's
 * answers may then wait unread behind it.
 */
static inline unsigned long __nm_live_now(struct nm_dev *nm)
{
	unsigned long now, held = nm->live_held;

	lockdep_assert_held(&nm->lock);
	/* rx_held before live_held_at (nm_rx_wait_begin), jiffies after */
	if (smp_load_acquire(&nm->rx_held)) {
		unsigned long at = READ_ONCE(nm->live_held_at);

		now = jiffies;
		if (time_after(now, at))
			held += now - at;
		return now - held;
	}
	return jiffies - held;
}

/* nm_state.c: state words, last error, role, detach/attach */
enum nm_state_what { NM_ST_CSTATE, NM_ST_DISK, NM_ST_ROLE };
int __nm_state_set(struct nm_dev *nm, enum nm_state_what what, int val);
int nm_state_set(struct nm_dev *nm, enum nm_state_what what, int val);
const char *nm_cstate_name(enum nm_cstate s);
const char *nm_disk_name(enum nm_disk d);
const char *nm_role_name(enum nm_role r);
void nm_set_error(struct nm_dev *nm, const char *word);
bool nm_error_is(struct nm_dev *nm, const char *word);
void nm_event_work(struct work_struct *w);
bool nm_detach(struct nm_dev *nm, int err);
int nm_attach(struct nm_dev *nm, bool *drop);
void nm_peer_attached(struct nm_dev *nm);
void nm_peer_detached(struct nm_dev *nm);
int nm_set_role(struct nm_dev *nm, enum nm_role role, bool force,
		char *result, unsigned int maxlen);
void __nm_gen_new(struct nm_dev *nm, bool primary_before);
void __nm_go_inconsistent(struct nm_dev *nm);
int nm_go_inconsistent(struct nm_dev *nm);
int nm_rs_target_inconsistent(struct nm_dev *nm);
bool __nm_peer_write_failed(struct nm_dev *nm, unsigned long first,
			    unsigned long last, bool src_good);
void nm_disk_work(struct work_struct *w);
void nm_disk_adopt(struct nm_dev *nm, enum nm_disk disk);
const char *nm_gen_verdict(struct nm_dev *nm, const struct nm_gens *peer,
			   u32 peer_gf, u64 peer_changed, bool crashed);
bool __nm_crashed_pri(struct nm_dev *nm);
void __nm_primary_flag(struct nm_dev *nm, bool set);
int nm_discard_my_data(struct nm_dev *nm);
void nm_gen_handed_over(struct nm_dev *nm, u64 peer_gen, u32 peer_disk);

/* nm_link.c: socket, framing, handshake, authentication */
int nm_xmit(struct socket *sock, struct msghdr *msg);
int nm_send_kvec(struct nm_dev *nm, struct kvec *vec, int n, size_t len,
		 bool more);
int nm_send_trailer(struct nm_dev *nm);
int nm_tx_sum(struct nm_dev *nm, const void *p, size_t len);
int nm_sendpage(struct socket *sock, const struct bio_vec *bv, bool more);
int nm_link_keys_install(struct nm_dev *nm);
void nm_link_keys_drop(struct nm_dev *nm);
int __nm_send_vec(struct nm_dev *nm, u16 type, struct kvec *vec, int n);
int nm_send_vec(struct nm_dev *nm, u16 type, struct kvec *vec, int n);
int __nm_send_ctrl(struct nm_dev *nm, u16 type, const void *p, u32 len);
int nm_send_ctrl(struct nm_dev *nm, u16 type, const void *p, u32 len);
int nm_send_vec_gen(struct nm_dev *nm, u32 gen, u16 type, struct kvec *vec,
		    int n);
int nm_send_ctrl_gen(struct nm_dev *nm, u32 gen, u16 type, const void *p,
		     u32 len);
int nm_read_local(struct nm_dev *nm, struct page **pages, sector_t sector,
		  u32 bytes);
int nm_recv_full(struct socket *sock, void *buf, size_t len);
int nm_rx_pages(struct nm_dev *nm, struct page **pages, u32 size);
u32 nm_rx_avail(struct nm_dev *nm);
u32 nm_sk_unread(struct sock *sk);
int nm_rx(struct nm_dev *nm, void *buf, size_t len);
int nm_rx_trailer(struct nm_dev *nm);
void nm_conn_drop(struct nm_dev *nm);	/* shut the link down */
void nm_sock_abort(struct socket *s);	/* reset: its queue dropped */
void nm_conn_set_sock(struct nm_dev *nm, struct socket *s);
void nm_sock_setup(struct socket *sock, unsigned int timeout_ms);
int nm_listen(struct nm_dev *nm);
void nm_unlisten(struct nm_dev *nm);
struct socket *nm_try_connect(struct nm_dev *nm);
int nm_handshake(struct nm_dev *nm, struct socket *s, bool initiator);
bool nm_from_peer(struct nm_dev *nm, struct socket *s);

/*
 * The clock of the stage latencies: local_clock(), not ktime_get_ns().
 * A write takes up to seven stamps; ktime_get_ns() reads the clocksource,
 * which is an MMIO read of the HPET where the TSC is not trusted (as in a
 * TCG guest: 6% of the CPU of a QD32 run went to read_hpet from
 * ktime_get), while local_clock() reads the CPU's own counter.  Stamps
 * taken on different CPUs may differ by a little; nm_lat_add() counts a
 * negative interval as 0, so that every write is still counted once.
 * Nothing but the histograms uses these stamps.
 */
static inline u64 nm_clock_ns(void)
{
	return local_clock();
}

/*
 * One stage's latency, @from_ns to @to_ns (either 0: not taken), into its
 * histogram.  Any context: a few atomics, no lock.
 */
static inline void nm_lat_add(struct nm_dev *nm, enum nm_lat_stage st,
			      u64 from_ns, u64 to_ns)
{
	u64 us;

	if (!from_ns || !to_ns)
		return;
	/* stamps of two CPUs (nm_clock_ns) may run backwards: count it as 0 */
	us = to_ns > from_ns ? div_u64(to_ns - from_ns, NSEC_PER_USEC) : 0;
	atomic64_inc(&nm->lat[st][nm_hist_bucket(us)]);
}

#endif
