/* SPDX-License-Identifier: GPL-2.0 */
/*
 * netmirror wire format.  This one header is the whole protocol; it is
 * shared by the kernel module and the userspace unit tests and fuzz targets.
 *
 * All fields are fixed size and BIG-ENDIAN (network order).  Every packet is
 * a 16-byte header followed by exactly hdr.length payload bytes.  The fixed
 * part of each payload has a known size per type; only P_DATA carries a
 * variable tail (the write's data, data_size bytes).  The receiver checks the
 * header with nm_hdr_check() and the fixed payload with nm_payload_check()
 * before it touches anything else.  See docs/protocol.md.
 *
 * No locking here: these are pure functions over caller-owned buffers.
 */
#ifndef NM_WIRE_H
#define NM_WIRE_H

#ifdef __KERNEL__
#include <linux/types.h>
#include <linux/errno.h>
#include <asm/byteorder.h>
#include <linux/string.h>
#define nm_be16(x) cpu_to_be16(x)
#define nm_be32(x) cpu_to_be32(x)
#define nm_be64(x) cpu_to_be64(x)
#define nm_h16(x) be16_to_cpu(x)
#define nm_h32(x) be32_to_cpu(x)
#define nm_h64(x) be64_to_cpu(x)
#else
#include <linux/types.h>
#include <errno.h>
#include <endian.h>
#include <string.h>
#define __packed __attribute__((packed))
#define nm_be16(x) htobe16(x)
#define nm_be32(x) htobe32(x)
#define nm_be64(x) htobe64(x)
#define nm_h16(x) be16toh(x)
#define nm_h32(x) be32toh(x)
#define nm_h64(x) be64toh(x)
#endif

#define NM_MAGIC		0x4e4d4952u	/* "NMIR" */
/*
 * 2: P_GENS in the handshake, the source's generation in P_RS_DONE;
 * 3: NM_GF_BITMAP_PRI in P_GENS (the split-brain policies), the
 *    sender's generation in P_STATE (confirms a P_RS_DONE), with a secret
 *    the responses bound to both addresses and a MAC trailer on every
 *    packet after the handshake;
 * 4: P_ZERO (a discard or write-zeroes, replicated as such) and P_RS_ZERO
 *    (a resync region that reads all zeroes, sent without its data),
 *    P_CSUM_REQ/P_CSUM_REPLY (online verify).  A
 *    version-3 peer cannot take them: it is refused (version_mismatch);
 * 5: checksum-based resync: P_CSUM_REQ/P_CSUM_REPLY with NM_CF_RESYNC,
 *    then P_RS_BLOCKS (only a region's differing blocks).  A version-4
 *    peer is refused likewise;
 * 6: the sender's ordering in P_GENS (NM_GF_ORD_SENT and NM_GF_ORD_*):
 *    both nodes must name the same (else ordering_mismatch).  Sent only
 *    when both speak 6; a version-5 peer is still taken, unchecked.
 * 7: "attach" keeps the link: a P_STATE whose disk goes from diskless to
 *    inconsistent says the sender took a disk back, every region out of
 *    sync on it; the receiver marks them all and resyncs them.  With a
 *    peer that speaks less, attach drops the link (the next handshake
 *    carries the disk state and the full bitmap), as before.
 * 8: P_RS_STOP: the source ends a resync it cannot complete (regions it
 *    could not read, with on_io_error pass_on); the target stays
 *    inconsistent, the regions out of sync.  With a peer that speaks
 *    less, the source retries them on each pass, as before.
 *    NM_DF_ACK_DISK on P_DATA and P_ZERO: a primary whose own disk is not
 *    uptodate asks, under A and B too, for a P_WRITE_ACK once the write
 *    is on the peer's disk (its own copy is on a disk the resync
 *    overwrites).
 * 9: with a secret the whole handshake is authenticated.  The challenge-
 *    response (label "NMAUTH3") also covers both P_HELLO payloads, each
 *    side's as sent and the peer's as received; after the P_GENS (seq 3)
 *    each side sends a P_AUTH_RESPONSE (seq 4): HMAC-SHA256 under its
 *    link packet key of "NMGENS3", its P_GENS payload and the peer's as
 *    received, and a node takes no verdict before the peer's checked.
 *    The link's packets then start at seq 5.  A node that sees the peer's
 *    P_HELLO below 9 ends its challenge with NM_AUTH_DOWN; a node of 9
 *    or more that receives such a challenge refuses the link: its own
 *    P_HELLO was rewritten on the way (a downgrade).  Without a secret
 *    nothing changes.
 * 10: NM_GF_CRASHED_PRI in P_GENS: the sender is a secondary whose
 *    metadata says it stopped as primary (NM_MF_PRIMARY).  Between two
 *    secondaries of one generation the flag decides the resync source
 *    when one has it; otherwise, and with a peer that speaks less (which
 *    gets no flag), the marked regions decide, as before.
 * 11: NM_DF_ACK_DISK under protocol C too (where the ack is the same
 *    anyway): it tells the receiver that the sender's disk holds no good
 *    copy of the write, so that a receiver whose disk fails it knows
 *    whether it lacks data the sender has (it goes inconsistent) or is
 *    the only good copy (it stays as it is).  With a peer that speaks
 *    less, the receiver judges by the sender's last disk state (P_STATE).
 */
#define NM_PROTO_MIN		5
#define NM_PROTO_MAX		11
#define NM_PROTO_ORD		6	/* the first that carries the ordering */
#define NM_PROTO_ATTACH		7	/* attach without a new handshake */
#define NM_PROTO_RS_STOP	8	/* P_RS_STOP */
#define NM_PROTO_ACK_DISK	8	/* NM_DF_ACK_DISK */
#define NM_PROTO_BIND		9	/* the handshake under the secret */
#define NM_PROTO_CRASHED	10	/* NM_GF_CRASHED_PRI */
#define NM_PROTO_SRC_FLAG	11	/* NM_DF_ACK_DISK under C too */

/* Largest write carried by one P_DATA: the target caps bios at this size. */
#define NM_MAX_DATA		0x100000u	/* 1 MiB */
#define NM_SECTOR_SHIFT		9
/* Largest range of one P_ZERO: the target caps discards at this size. */
#define NM_MAX_ZERO		0x40000000u	/* 1 GiB */

enum nm_ptype {
	NM_P_HELLO = 1,		/* handshake, both directions, first packet */
	NM_P_STATE = 2,		/* role / disk state changed */
	NM_P_DATA = 3,		/* primary -> secondary: a write */
	NM_P_RECV_ACK = 4,	/* secondary -> primary: P_DATA received (B) */
	NM_P_WRITE_ACK = 5,	/* secondary -> primary: P_DATA on disk (C) */
	NM_P_BARRIER = 6,	/* primary -> secondary: epoch N is closed */
	NM_P_BARRIER_ACK = 7,	/* no longer sent; accepted and ignored */
	NM_P_PING = 8,
	NM_P_PING_ACK = 9,
	NM_P_BITMAP = 10,	/* both: a chunk of the out-of-sync bitmap */
	NM_P_BITMAP_DONE = 11,	/* both: the whole bitmap was sent */
	NM_P_RS_START = 12,	/* source -> target: resync begins */
	NM_P_RS_DATA = 13,	/* source -> target: one region's data */
	NM_P_RS_ACK = 14,	/* target -> source: region written */
	NM_P_RS_DONE = 15,	/* source -> target: resync complete */
	NM_P_SYNC = 16,		/* primary -> secondary: make all stable */
	NM_P_SYNC_ACK = 17,	/* secondary -> primary: all stable */
	NM_P_AUTH_CHALLENGE = 18,	/* handshake, both: 32 random bytes */
	NM_P_AUTH_RESPONSE = 19,	/* handshake, both: HMAC-SHA256 */
	NM_P_READ_REQ = 20,	/* diskless/inconsistent node: read for me */
	NM_P_READ_REPLY = 21,	/* the data (or an error) */
	NM_P_NEG_ACK = 22,	/* secondary: a write failed on my disk */
	NM_P_GENS = 23,		/* handshake, both: data generations */
	NM_P_ZERO = 24,		/* primary -> secondary: discard/zero a range */
	NM_P_RS_ZERO = 25,	/* source -> target: this region reads zeroes */
	NM_P_CSUM_REQ = 26,	/* digests of a range's blocks (4) */
	NM_P_CSUM_REPLY = 27,	/* which of those blocks differ (4) */
	NM_P_RS_BLOCKS = 28,	/* source -> target: some blocks of a region (5) */
	NM_P_RS_STOP = 29,	/* source -> target: resync ended incomplete (8) */
	NM_P_MAX = 30,
};

struct nm_hdr {
	__be32 magic;
	__be16 type;
	__be16 flags;		/* must be 0 for now */
	__be32 length;		/* payload bytes after this header */
	__be32 seq;		/* per-direction packet counter, from 0 */
} __packed;

/* roles and disk states as carried on the wire (and in status) */
enum nm_role { NM_ROLE_SECONDARY = 0, NM_ROLE_PRIMARY = 1 };
enum nm_disk {
	NM_DISK_UNKNOWN = 0,
	NM_DISK_UPTODATE = 1,
	NM_DISK_INCONSISTENT = 2,
	NM_DISK_OUTDATED = 3,
	NM_DISK_DISKLESS = 4,	/* detached after an I/O error */
	NM_DISK_MAX = 5,
};

enum nm_proto { NM_PROTO_A = 0, NM_PROTO_B = 1, NM_PROTO_C = 2 };
enum nm_ordering { NM_ORD_FLUSH = 0, NM_ORD_DRAIN = 1, NM_ORD_NONE = 2 };

/* P_HELLO features: both sides must announce the same set. */
#define NM_FEAT_INTEGRITY	0x1ULL	/* crc32c trailer on every packet */
#define NM_FEAT_AUTH		0x2ULL	/* HMAC challenge-response */
#define NM_FEAT_ALL		(NM_FEAT_INTEGRITY | NM_FEAT_AUTH)

/*
 * With NM_FEAT_INTEGRITY, every packet after the handshake is followed by a
 * 4-byte big-endian crc32c (seed ~0) of its header and payload.
 */
#define NM_TRAILER_LEN		4
#define NM_AUTH_LEN		32
/* With "secret": the packet trailer, HMAC-SHA256 truncated (version 3). */
#define NM_MAC_LEN		16

/* the last bytes of a version-9 challenge to a peer shown below 9 */
#define NM_AUTH_DOWN		"NMDOWN<9"
#define NM_AUTH_DOWN_LEN	8

struct nm_p_auth {
	__u8 bytes[NM_AUTH_LEN];
} __packed;

struct nm_p_hello {
	__be32 proto_min;	/* protocol versions this node speaks */
	__be32 proto_max;
	__be64 features;	/* NM_FEAT_* */
	__be64 dev_sectors;	/* size of this node's device */
	__be64 nonce;		/* random per device instance: picks the link */
	__be32 role;
	__be32 disk;
	__be32 protocol;	/* A/B/C, must match */
	__be32 region_sectors;	/* bitmap granularity, must match */
} __packed;

struct nm_p_state {
	__be32 role;
	__be32 disk;
	__be64 gen;		/* the sender's current data generation (3) */
} __packed;

#define NM_DF_FUA	0x1u
#define NM_DF_FLUSH	0x2u	/* REQ_PREFLUSH: flush before writing */
#define NM_DF_ALL	(NM_DF_FUA | NM_DF_FLUSH)
/*
 * P_ZERO only (and only these): the range is a REQ_OP_DISCARD (else a
 * REQ_OP_WRITE_ZEROES); a write-zeroes that must not unmap (REQ_NOUNMAP).
 */
#define NM_DF_DISCARD	0x4u
#define NM_DF_NOUNMAP	0x8u
#define NM_DF_ZERO_ALL	(NM_DF_DISCARD | NM_DF_NOUNMAP)
/*
 * P_DATA and P_ZERO (version 8), under protocol A or B: answer with a
 * P_WRITE_ACK once the write is on this disk (and no P_RECV_ACK), as
 * under C.  The sender's own disk is not uptodate: its copy is no copy.
 * From version 11 sent under C too, where it changes no ack.
 */
#define NM_DF_ACK_DISK	0x10u

struct nm_p_data {
	__be64 id;		/* primary's request id, echoed in acks */
	__be64 sector;
	__be32 size;		/* data bytes following, multiple of 512 */
	__be32 flags;		/* NM_DF_* */
	__be32 epoch;
	__be32 reserved;
} __packed;

struct nm_p_ack {
	__be64 id;
	__be32 status;		/* 0 or a positive errno */
	__be32 flags;		/* P_WRITE_ACK: NM_AF_*; else 0 */
} __packed;

/*
 * P_WRITE_ACK flags.  NM_AF_STABLE: the write is on the sender's stable
 * storage, not only in a volatile cache (its disk had no volatile write
 * cache when the write was submitted and when it completed, or it was a
 * FUA write, or an empty flush).  A primary under protocol C then need
 * not send a later empty flush to this peer for it.  A peer that does not
 * set it (older ones send 0 here) gets every flush, as before.
 */
#define NM_AF_STABLE	0x1u
#define NM_AF_ALL	NM_AF_STABLE

/* Resync write acknowledgment. */
struct nm_p_rs_ack {
	__be64 sector;
	__be32 size;
	__be32 status;		/* 0 or a positive errno */
} __packed;

/* Bitmap chunk: bit @offset (a multiple of 64) onwards, @nbits bits, sent
 * as big-endian 64-bit words after this header.
 */
#define NM_BITMAP_MAX_BITS	32768u
struct nm_p_bitmap {
	__be64 offset;
	__be32 nbits;
	__be32 reserved;
} __packed;

/*
 * P_GENS, the last handshake packet: this node's data generations (see
 * nm_gens.h), how many regions it changed since its bitmap generation,
 * whether it gives up its changes ("discard_my_data"), and whether it was
 * primary already when its bitmap generation began (after_sb_0pri
 * discard_younger_primary / discard_older_primary).
 */
#define NM_GF_DISCARD_MY_DATA	0x1u
#define NM_GF_BITMAP_PRI	0x2u	/* primary when the split began */
#define NM_GF_HIST0_HELD	0x4u	/* the peer may hold history[0] */
#define NM_GF_HIST1_HELD	0x8u	/* the peer may hold history[1] */
#define NM_GF_ORD_SENT		0x10u	/* (6) the ordering is in ORD_MASK */
#define NM_GF_ORD_SHIFT		5
#define NM_GF_ORD_MASK		(0x3u << NM_GF_ORD_SHIFT)	/* enum nm_ordering */
/* (10) a secondary that stopped as primary (NM_MF_PRIMARY on its metadata) */
#define NM_GF_CRASHED_PRI	0x80u
#define NM_GF_ALL		(NM_GF_DISCARD_MY_DATA | NM_GF_BITMAP_PRI | \
				 NM_GF_HIST0_HELD | NM_GF_HIST1_HELD | \
				 NM_GF_ORD_SENT | NM_GF_ORD_MASK | \
				 NM_GF_CRASHED_PRI)
struct nm_p_gens {
	__be64 pair;
	__be64 cur;
	__be64 bitmap;
	__be64 history[2];
	__be64 changed;		/* out-of-sync regions, for the log */
	__be32 flags;		/* NM_GF_* */
	__be32 reserved;
} __packed;

/*
 * P_BITMAP_DONE, P_RS_START: a count of regions.  P_RS_STOP: how many
 * regions stay out of sync (at least one).
 */
struct nm_p_count {
	__be64 count;
} __packed;

/* P_RS_DONE: the source's generations, which the target takes. */
struct nm_p_rs_done {
	__be64 pair;
	__be64 cur;
} __packed;

/*
 * P_CSUM_REQ (version 4): the digests of the blocks of [sector, sector +
 * size), one per NM_CSUM_BLOCK bytes (the last block may be shorter),
 * follow as the tail: DIV_ROUND_UP(size, NM_CSUM_BLOCK) digests of the
 * algorithm's length.  The receiver reads the same range of its disk and
 * answers with P_CSUM_REPLY: bit i of diff set if block i differs.
 * flags, exactly one of: NM_CF_VERIFY (online verify: both disks
 * uptodate, the sender is the verify's source) or NM_CF_RESYNC (version
 * 5, checksum-based resync: the range is one region of a running resync,
 * the receiver is its target; the source then sends the differing blocks
 * as a P_RS_BLOCKS).
 */
#define NM_CSUM_BLOCK		4096u
#define NM_CSUM_MAX_BLOCKS	(NM_MAX_DATA / NM_CSUM_BLOCK)	/* 256 */
#define NM_CSUM_CRC32C		1u	/* 4 bytes, big-endian crc32c (seed ~0) */
#define NM_CSUM_SHA256		2u	/* 32 bytes */
#define NM_CSUM_MAX_LEN		32u
#define NM_CF_VERIFY		0x1u
#define NM_CF_RESYNC		0x2u
#define NM_CF_ALL		(NM_CF_VERIFY | NM_CF_RESYNC)

struct nm_p_csum {
	__be64 sector;
	__be32 size;		/* bytes, a multiple of 512, <= NM_MAX_DATA */
	__be16 alg;		/* NM_CSUM_* */
	__be16 flags;		/* NM_CF_* */
} __packed;

struct nm_p_csum_reply {
	__be64 sector;		/* echoed */
	__be32 size;		/* echoed */
	__be32 status;		/* 0 or a positive errno (diff then all 0) */
	__be16 flags;		/* echoed */
	__be16 reserved;
	__be32 reserved2;
	__be64 diff[NM_CSUM_MAX_BLOCKS / 64];	/* bit i: block i differs */
} __packed;

/* Digest length of a P_CSUM_REQ algorithm; 0: unknown. */
static inline __u32 nm_csum_len(__u16 alg)
{
	return alg == NM_CSUM_CRC32C ? 4 : alg == NM_CSUM_SHA256 ? 32 : 0;
}

static inline __u32 nm_csum_blocks(__u32 size)
{
	return (size + NM_CSUM_BLOCK - 1) / NM_CSUM_BLOCK;
}

/*
 * P_RS_BLOCKS (version 5): a checksum-based resync's answer to the target's
 * P_CSUM_REPLY, for the whole region [sector, sector + size): the blocks
 * (NM_CSUM_BLOCK bytes, the region's last one possibly shorter) whose bit
 * is set in @mask follow as the tail, in block order; the others are
 * equal on both nodes already.  An empty mask says the whole region is in
 * sync.  The target acknowledges the region with one P_RS_ACK, as a
 * P_RS_DATA.
 */
struct nm_p_rs_blocks {
	__be64 sector;		/* the region's first sector, 4 KiB aligned */
	__be32 size;		/* the region's bytes */
	__be32 reserved;
	__be64 mask[NM_CSUM_MAX_BLOCKS / 64];	/* bit i: block i follows */
} __packed;

/*
 * Block maps (a P_CSUM_REPLY's diff, a P_RS_BLOCKS's mask): NM_CSUM_MAX_BLOCKS
 * bits as big-endian 64-bit words, bit i % 64 of word i / 64 for block i.
 * Taken as bytes: the words are members of packed structs.
 */
static inline __u64 nm_blk_word(const void *w, __u32 i)
{
	__be64 v;

	memcpy(&v, (const unsigned char *)w + i * sizeof(v), sizeof(v));
	return nm_h64(v);
}

/* Is block @b's bit set in the map @w? */
static inline int nm_blk_bit(const void *w, __u32 b)
{
	return (nm_blk_word(w, b / 64) >> (b % 64)) & 1;
}

/*
 * The tail bytes of the blocks set in map @w of a @size-byte range (the
 * last block may be shorter); the caller has checked no bit lies beyond
 * the range.
 */
static inline __u32 nm_blk_bytes(const void *w, __u32 size)
{
	__u32 b, nb = nm_csum_blocks(size), n = 0;

	for (b = 0; b < nb; b++)
		if (nm_blk_bit(w, b))
			n += b + 1 < nb ? NM_CSUM_BLOCK :
			     size - b * NM_CSUM_BLOCK;
	return n;
}

/* No bit of map @w at or beyond block @nb. */
static inline int nm_blk_in_range(const void *w, __u32 nb)
{
	__u32 i;

	for (i = 0; i < NM_CSUM_MAX_BLOCKS / 64; i++) {
		__u64 keep = nb >= (i + 1) * 64 ? ~0ULL :
			     nb <= i * 64 ? 0 : (1ULL << (nb - i * 64)) - 1;

		if (nm_blk_word(w, i) & ~keep)
			return 0;
	}
	return 1;
}

struct nm_p_barrier {
	__be32 epoch;
	__be32 reserved;
} __packed;

struct nm_p_ping {
	__be64 cookie;
} __packed;

/* The fixed payload size of each packet type (0: not a valid type). */
static inline __u32 nm_fixed_len(__u16 type)
{
	switch (type) {
	case NM_P_HELLO: return sizeof(struct nm_p_hello);
	case NM_P_STATE: return sizeof(struct nm_p_state);
	case NM_P_DATA: return sizeof(struct nm_p_data);
	case NM_P_RECV_ACK:
	case NM_P_WRITE_ACK: return sizeof(struct nm_p_ack);
	case NM_P_BARRIER:
	case NM_P_BARRIER_ACK: return sizeof(struct nm_p_barrier);
	case NM_P_PING:
	case NM_P_PING_ACK:
	case NM_P_SYNC:
	case NM_P_SYNC_ACK: return sizeof(struct nm_p_ping);
	case NM_P_BITMAP: return sizeof(struct nm_p_bitmap);
	case NM_P_BITMAP_DONE:
	case NM_P_RS_START:
	case NM_P_RS_STOP: return sizeof(struct nm_p_count);
	case NM_P_RS_DONE: return sizeof(struct nm_p_rs_done);
	case NM_P_GENS: return sizeof(struct nm_p_gens);
	case NM_P_RS_DATA: return sizeof(struct nm_p_data);
	case NM_P_RS_ACK: return sizeof(struct nm_p_rs_ack);
	case NM_P_AUTH_CHALLENGE:
	case NM_P_AUTH_RESPONSE: return sizeof(struct nm_p_auth);
	case NM_P_READ_REQ: return sizeof(struct nm_p_data);
	case NM_P_READ_REPLY: return sizeof(struct nm_p_ack);
	case NM_P_NEG_ACK: return sizeof(struct nm_p_rs_ack);
	case NM_P_ZERO:
	case NM_P_RS_ZERO: return sizeof(struct nm_p_data);
	case NM_P_CSUM_REQ: return sizeof(struct nm_p_csum);
	case NM_P_CSUM_REPLY: return sizeof(struct nm_p_csum_reply);
	case NM_P_RS_BLOCKS: return sizeof(struct nm_p_rs_blocks);
	}
	return 0;
}

/*
 * P_ZERO and P_RS_ZERO carry a struct nm_p_data and no data: @size is the
 * length of the range (bytes), @epoch as in P_DATA (P_ZERO; 0 in
 * P_RS_ZERO), @reserved 0.
 */

/* Packet types whose payload has a variable tail after the fixed part. */
static inline int nm_has_tail(__u16 type)
{
	return type == NM_P_DATA || type == NM_P_RS_DATA ||
	       type == NM_P_READ_REPLY || type == NM_P_BITMAP ||
	       type == NM_P_CSUM_REQ || type == NM_P_RS_BLOCKS;
}

/*
 * Check a received header.  @expect_seq is the next sequence number the
 * receiver expects.  Returns 0 or a negative errno; never reads past @h.
 */
static inline int nm_hdr_check(const struct nm_hdr *h, __u32 expect_seq)
{
	__u16 type = nm_h16(h->type);
	__u32 len = nm_h32(h->length);
	__u32 fixed = nm_fixed_len(type);

	if (nm_h32(h->magic) != NM_MAGIC)
		return -EBADMSG;
	if (!fixed)
		return -EPROTO;
	if (nm_h16(h->flags) != 0)
		return -EPROTO;
	if (nm_h32(h->seq) != expect_seq)
		return -EILSEQ;
	if (type == NM_P_BITMAP) {
		if (len < fixed || len - fixed > NM_BITMAP_MAX_BITS / 8)
			return -EMSGSIZE;
	} else if (type == NM_P_CSUM_REQ) {
		if (len < fixed ||
		    len - fixed > NM_CSUM_MAX_BLOCKS * NM_CSUM_MAX_LEN)
			return -EMSGSIZE;
	} else if (nm_has_tail(type)) {
		if (len < fixed || len - fixed > NM_MAX_DATA)
			return -EMSGSIZE;
	} else if (len != fixed) {
		return -EMSGSIZE;
	}
	return 0;
}

/*
 * Check the fixed payload of a packet whose header passed nm_hdr_check().
 * @p points at nm_fixed_len(type) bytes; @dev_sectors is this node's device
 * size.  Checks every field the peer controls.
 */
static inline int nm_payload_check(__u16 type, __u32 len, const void *p,
				   __u64 dev_sectors)
{
	switch (type) {
	case NM_P_HELLO: {
		const struct nm_p_hello *m = p;

		if (nm_h32(m->proto_min) > nm_h32(m->proto_max))
			return -EPROTO;
		__u32 rs = nm_h32(m->region_sectors);

		if (nm_h32(m->role) > NM_ROLE_PRIMARY ||
		    nm_h32(m->disk) >= NM_DISK_MAX ||
		    nm_h32(m->protocol) > NM_PROTO_C)
			return -EPROTO;
		if (rs < 8 || rs > (NM_MAX_DATA >> NM_SECTOR_SHIFT) ||
		    (rs & (rs - 1)))
			return -EPROTO;
		if (nm_h64(m->features) & ~NM_FEAT_ALL)
			return -EPROTO;
		return 0;
	}
	case NM_P_STATE: {
		const struct nm_p_state *m = p;

		if (nm_h32(m->role) > NM_ROLE_PRIMARY ||
		    nm_h32(m->disk) >= NM_DISK_MAX)
			return -EPROTO;
		return 0;
	}
	case NM_P_READ_REQ: {
		const struct nm_p_data *m = p;
		__u64 sector = nm_h64(m->sector);
		__u32 size = nm_h32(m->size);

		if (!size || size > NM_MAX_DATA || (size & 511) ||
		    nm_h32(m->flags) || m->epoch || m->reserved)
			return -EINVAL;
		if (sector > dev_sectors ||
		    (size >> NM_SECTOR_SHIFT) > dev_sectors - sector)
			return -ERANGE;
		return 0;
	}
	case NM_P_READ_REPLY: {
		const struct nm_p_ack *m = p;

		if (nm_h32(m->status) > 4095)
			return -EPROTO;
		if ((len - sizeof(*m)) & 511)
			return -EINVAL;
		if (m->status && len != sizeof(*m))
			return -EINVAL;
		if (m->flags)
			return -EINVAL;
		return 0;
	}
	case NM_P_DATA:
	case NM_P_RS_DATA: {
		const struct nm_p_data *m = p;
		__u64 sector = nm_h64(m->sector);
		__u32 size = nm_h32(m->size);

		if (size != len - sizeof(*m))
			return -EMSGSIZE;
		if (size & ((1u << NM_SECTOR_SHIFT) - 1))
			return -EINVAL;
		if (nm_h32(m->flags) & ~(NM_DF_ALL | NM_DF_ACK_DISK))
			return -EPROTO;
		if (!size && !(nm_h32(m->flags) & NM_DF_FLUSH))
			return -EINVAL;
		if (type == NM_P_RS_DATA && (!size || nm_h32(m->flags)))
			return -EINVAL;
		if (sector > dev_sectors ||
		    (size >> NM_SECTOR_SHIFT) > dev_sectors - sector)
			return -ERANGE;
		return 0;
	}
	case NM_P_ZERO:
	case NM_P_RS_ZERO: {
		const struct nm_p_data *m = p;
		__u64 sector = nm_h64(m->sector);
		__u32 size = nm_h32(m->size), fl = nm_h32(m->flags);

		if (!size || (size & ((1u << NM_SECTOR_SHIFT) - 1)) ||
		    size > (type == NM_P_ZERO ? NM_MAX_ZERO : NM_MAX_DATA))
			return -EINVAL;
		if (m->reserved)
			return -EPROTO;
		if (type == NM_P_RS_ZERO && (fl || m->epoch))
			return -EPROTO;
		if (fl & ~(NM_DF_ZERO_ALL | NM_DF_ACK_DISK) ||
		    (fl & NM_DF_ZERO_ALL) == NM_DF_ZERO_ALL)
			return -EPROTO;
		if (sector > dev_sectors ||
		    (size >> NM_SECTOR_SHIFT) > dev_sectors - sector)
			return -ERANGE;
		return 0;
	}
	case NM_P_RECV_ACK:
	case NM_P_WRITE_ACK: {
		const struct nm_p_ack *m = p;

		if (nm_h32(m->status) > 4095)
			return -EPROTO;
		if (nm_h32(m->flags) & ~(type == NM_P_WRITE_ACK ? NM_AF_ALL : 0))
			return -EINVAL;
		return 0;
	}
	case NM_P_RS_ACK:
	case NM_P_NEG_ACK: {
		const struct nm_p_rs_ack *m = p;
		__u64 sector = nm_h64(m->sector);
		__u32 size = nm_h32(m->size);

		if (nm_h32(m->status) > 4095)
			return -EPROTO;
		/* a P_NEG_ACK may answer a P_ZERO */
		if (!size || size > (type == NM_P_NEG_ACK ? NM_MAX_ZERO :
				     NM_MAX_DATA) ||
		    (size & ((1u << NM_SECTOR_SHIFT) - 1)))
			return -EINVAL;
		if (sector > dev_sectors ||
		    (size >> NM_SECTOR_SHIFT) > dev_sectors - sector)
			return -ERANGE;
		return 0;
	}
	case NM_P_BITMAP: {
		const struct nm_p_bitmap *m = p;
		__u32 nbits = nm_h32(m->nbits);

		if (!nbits || nbits > NM_BITMAP_MAX_BITS)
			return -EINVAL;
		if (nm_h64(m->offset) & 63 || nm_h64(m->offset) >> 48)
			return -EINVAL;
		if (len - sizeof(*m) != ((nbits + 63) / 64) * 8)
			return -EMSGSIZE;
		return 0;
	}
	case NM_P_CSUM_REQ:
	case NM_P_CSUM_REPLY: {
		/* each read through its own type (strict aliasing) */
		const struct nm_p_csum *m = p;
		const struct nm_p_csum_reply *rp = p;
		int req = type == NM_P_CSUM_REQ;
		__u64 sector = req ? nm_h64(m->sector) : nm_h64(rp->sector);
		__u32 size = req ? nm_h32(m->size) : nm_h32(rp->size);
		__u32 i, nb = nm_csum_blocks(size);
		__u16 fl = req ? nm_h16(m->flags) : nm_h16(rp->flags);

		if (!size || size > NM_MAX_DATA ||
		    (size & ((1u << NM_SECTOR_SHIFT) - 1)))
			return -EINVAL;
		if (sector > dev_sectors ||
		    (size >> NM_SECTOR_SHIFT) > dev_sectors - sector)
			return -ERANGE;
		if (fl & ~NM_CF_ALL || !fl || (fl & (fl - 1)))
			return -EPROTO;
		if (type == NM_P_CSUM_REQ) {
			if (!nm_csum_len(nm_h16(m->alg)))
				return -EPROTO;
			if (len - sizeof(*m) != nb * nm_csum_len(nm_h16(m->alg)))
				return -EMSGSIZE;
			return 0;
		}
		if (nm_h32(rp->status) > 4095 || rp->reserved || rp->reserved2)
			return -EPROTO;
		if (!nm_blk_in_range(rp->diff, nb))
			return -EINVAL;
		for (i = 0; rp->status && i < NM_CSUM_MAX_BLOCKS / 64; i++)
			if (rp->diff[i])
				return -EINVAL;
		return 0;
	}
	case NM_P_RS_BLOCKS: {
		const struct nm_p_rs_blocks *m = p;
		__u64 sector = nm_h64(m->sector);
		__u32 size = nm_h32(m->size);

		if (!size || size > NM_MAX_DATA ||
		    (size & ((1u << NM_SECTOR_SHIFT) - 1)) ||
		    (sector & ((NM_CSUM_BLOCK >> NM_SECTOR_SHIFT) - 1)))
			return -EINVAL;
		if (m->reserved)
			return -EPROTO;
		if (sector > dev_sectors ||
		    (size >> NM_SECTOR_SHIFT) > dev_sectors - sector)
			return -ERANGE;
		if (!nm_blk_in_range(m->mask, nm_csum_blocks(size)))
			return -EINVAL;
		if (len - sizeof(*m) != nm_blk_bytes(m->mask, size))
			return -EMSGSIZE;
		return 0;
	}
	case NM_P_RS_STOP: {
		const struct nm_p_count *m = p;

		/* a region is at least a sector */
		if (!m->count)
			return -EINVAL;
		if (nm_h64(m->count) > dev_sectors)
			return -ERANGE;
		return 0;
	}
	case NM_P_GENS: {
		const struct nm_p_gens *m = p;
		__u32 f = nm_h32(m->flags);

		if (f & ~NM_GF_ALL || m->reserved)
			return -EPROTO;
		/* an ordering only with ORD_SENT, and only a known one */
		if ((f & NM_GF_ORD_MASK) &&
		    (!(f & NM_GF_ORD_SENT) ||
		     (f & NM_GF_ORD_MASK) >> NM_GF_ORD_SHIFT > NM_ORD_NONE))
			return -EPROTO;
		return 0;
	}
	case NM_P_BITMAP_DONE:
	case NM_P_RS_START:
	case NM_P_RS_DONE:
	case NM_P_BARRIER:
	case NM_P_BARRIER_ACK:
	case NM_P_PING:
	case NM_P_PING_ACK:
	case NM_P_SYNC:
	case NM_P_SYNC_ACK:
	case NM_P_AUTH_CHALLENGE:
	case NM_P_AUTH_RESPONSE:
		return 0;
	}
	return -EPROTO;
}

static inline void nm_hdr_fill(struct nm_hdr *h, __u16 type, __u32 len,
			       __u32 seq)
{
	h->magic = nm_be32(NM_MAGIC);
	h->type = nm_be16(type);
	h->flags = 0;
	h->length = nm_be32(len);
	h->seq = nm_be32(seq);
}

#endif /* NM_WIRE_H */
