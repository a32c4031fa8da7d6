/*
 * Unit tests of the wire format (dm-mirror-net/nm_wire.h, the same header
 * the kernel module uses): layout, byte order, and every check of
 * nm_hdr_check() and nm_payload_check().
 *
 * One output line per case; with $NM_RESULTS set, appends
 * "PASS unit/test_wire/<case>" or "FAIL ..." per case.  Exit 1 on failure.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../../dm-mirror-net/nm_wire.h"

static int failed;

static void check(int ok, const char *name)
{
	const char *res = getenv("NM_RESULTS");

	printf("%s %s\n", ok ? "PASS" : "FAIL", name);
	if (!ok)
		failed = 1;
	if (res && *res) {
		FILE *f = fopen(res, "a");

		if (f) {
			fprintf(f, "%s unit/test_wire/%s\n", ok ? "PASS" : "FAIL", name);
			fclose(f);
		}
	}
}

#define DEV 2048ULL	/* sectors: a 1 MiB device */

static struct nm_hdr hdr(__u16 type, __u32 len, __u32 seq)
{
	struct nm_hdr h;

	nm_hdr_fill(&h, type, len, seq);
	return h;
}

static struct nm_p_data data(__u64 sector, __u32 size, __u32 flags)
{
	struct nm_p_data d;

	memset(&d, 0, sizeof(d));
	d.id = nm_be64(7);
	d.sector = nm_be64(sector);
	d.size = nm_be32(size);
	d.flags = nm_be32(flags);
	d.epoch = nm_be32(1);
	return d;
}

static int data_ok(__u64 sector, __u32 size, __u32 flags)
{
	struct nm_p_data d = data(sector, size, flags);

	return nm_payload_check(NM_P_DATA, sizeof(d) + size, &d, DEV);
}

int main(void)
{
	struct nm_hdr h;
	unsigned char raw[16];
	__u16 t;

	/* layout: fixed sizes, packed */
	check(sizeof(struct nm_hdr) == 16, "size_hdr");
	check(sizeof(struct nm_p_hello) == 48, "size_hello");
	check(sizeof(struct nm_p_data) == 32, "size_data");
	check(sizeof(struct nm_p_ack) == 16, "size_ack");
	check(sizeof(struct nm_p_state) == 16, "size_state");
	check(sizeof(struct nm_p_barrier) == 8, "size_barrier");
	check(sizeof(struct nm_p_ping) == 8, "size_ping");
	check(offsetof(struct nm_p_data, size) == 16, "offset_data_size");

	/* byte order: big-endian on the wire */
	h = hdr(NM_P_DATA, 0x01020304, 0x0a0b0c0d);
	memcpy(raw, &h, sizeof(raw));
	check(raw[0] == 0x4e && raw[1] == 0x4d && raw[2] == 0x49 && raw[3] == 0x52,
	      "magic_bytes_NMIR");
	check(raw[4] == 0 && raw[5] == NM_P_DATA, "type_big_endian");
	check(raw[8] == 1 && raw[9] == 2 && raw[10] == 3 && raw[11] == 4,
	      "length_big_endian");
	check(raw[12] == 0x0a && raw[15] == 0x0d, "seq_big_endian");

	/* header checks */
	for (t = NM_P_HELLO; t < NM_P_MAX; t++) {
		char name[64];

		h = hdr(t, nm_fixed_len(t), 3);
		snprintf(name, sizeof(name), "hdr_valid_type_%u", t);
		check(nm_hdr_check(&h, 3) == 0, name);
	}
	/* a version-2 P_STATE (8 bytes, no generation) */
	h = hdr(NM_P_STATE, 8, 0);
	check(nm_hdr_check(&h, 0) != 0, "hdr_state_v2_short");
	h = hdr(NM_P_PING, 8, 0);
	h.magic = nm_be32(0x4e4d4953);
	check(nm_hdr_check(&h, 0) == -EBADMSG, "hdr_bad_magic");
	h = hdr(0, 8, 0);
	check(nm_hdr_check(&h, 0) == -EPROTO, "hdr_type_zero");
	h = hdr(NM_P_MAX, 8, 0);
	check(nm_hdr_check(&h, 0) == -EPROTO, "hdr_type_too_big");
	h = hdr(0xffff, 8, 0);
	check(nm_hdr_check(&h, 0) == -EPROTO, "hdr_type_ffff");
	h = hdr(NM_P_PING, 8, 0);
	h.flags = nm_be16(1);
	check(nm_hdr_check(&h, 0) == -EPROTO, "hdr_flags_nonzero");
	h = hdr(NM_P_PING, 8, 5);
	check(nm_hdr_check(&h, 4) == -EILSEQ, "hdr_seq_skip");
	check(nm_hdr_check(&h, 6) == -EILSEQ, "hdr_seq_replay");
	h = hdr(NM_P_PING, 9, 0);
	check(nm_hdr_check(&h, 0) == -EMSGSIZE, "hdr_ping_too_long");
	h = hdr(NM_P_HELLO, 47, 0);
	check(nm_hdr_check(&h, 0) == -EMSGSIZE, "hdr_hello_short");
	h = hdr(NM_P_DATA, 31, 0);
	check(nm_hdr_check(&h, 0) == -EMSGSIZE, "hdr_data_shorter_than_fixed");
	h = hdr(NM_P_DATA, 32 + NM_MAX_DATA, 0);
	check(nm_hdr_check(&h, 0) == 0, "hdr_data_max");
	h = hdr(NM_P_DATA, 32 + NM_MAX_DATA + 1, 0);
	check(nm_hdr_check(&h, 0) == -EMSGSIZE, "hdr_data_over_max");
	h = hdr(NM_P_DATA, 0xffffffff, 0);
	check(nm_hdr_check(&h, 0) == -EMSGSIZE, "hdr_data_len_ffffffff");

	/* P_DATA payload checks */
	check(data_ok(0, 4096, 0) == 0, "data_valid");
	check(data_ok(DEV - 8, 4096, NM_DF_FUA) == 0, "data_at_end_fua");
	check(data_ok(0, 0, NM_DF_FLUSH) == 0, "data_empty_flush");
	check(data_ok(0, 0, 0) == -EINVAL, "data_empty_without_flush");
	check(data_ok(0, 100, 0) == -EINVAL, "data_size_not_sector_multiple");
	check(data_ok(DEV - 7, 4096, 0) == -ERANGE, "data_past_end");
	check(data_ok(DEV + 1, 512, 0) == -ERANGE, "data_sector_past_end");
	check(data_ok(~0ULL, 512, 0) == -ERANGE, "data_sector_overflow");
	check(data_ok(~0ULL - 1, 1024, 0) == -ERANGE, "data_sector_wraps");
	check(data_ok(0, 512, 0x8) == -EPROTO, "data_unknown_flag");
	/* version 8: NM_DF_ACK_DISK on writes and empty flushes */
	check(data_ok(0, 4096, NM_DF_ACK_DISK) == 0, "data_ack_disk");
	check(data_ok(0, 0, NM_DF_FLUSH | NM_DF_ACK_DISK) == 0,
	      "data_flush_ack_disk");
	check(data_ok(0, 0, NM_DF_ACK_DISK) == -EINVAL,
	      "data_empty_ack_disk_without_flush");
	check(data_ok(0, 512, 0x20) == -EPROTO, "data_flag_past_ack_disk");
	{
		struct nm_p_data d = data(0, 4096, 0);

		check(nm_payload_check(NM_P_DATA, sizeof(d) + 512, &d, DEV) ==
		      -EMSGSIZE, "data_size_disagrees_with_length");
	}

	/* P_HELLO */
	{
		struct nm_p_hello m;

		memset(&m, 0, sizeof(m));
		m.proto_min = nm_be32(1);
		m.proto_max = nm_be32(1);
		m.protocol = nm_be32(NM_PROTO_C);
		m.disk = nm_be32(NM_DISK_UPTODATE);
		m.region_sectors = nm_be32(1024);
		check(nm_payload_check(NM_P_HELLO, 48, &m, DEV) == 0, "hello_valid");
		m.region_sectors = nm_be32(1000);
		check(nm_payload_check(NM_P_HELLO, 48, &m, DEV) == -EPROTO,
		      "hello_region_not_power_of_two");
		m.region_sectors = nm_be32(4096);
		check(nm_payload_check(NM_P_HELLO, 48, &m, DEV) == -EPROTO,
		      "hello_region_too_big");
		m.region_sectors = nm_be32(1024);
		m.proto_min = nm_be32(2);
		check(nm_payload_check(NM_P_HELLO, 48, &m, DEV) == -EPROTO,
		      "hello_min_above_max");
		m.proto_min = nm_be32(1);
		m.role = nm_be32(2);
		check(nm_payload_check(NM_P_HELLO, 48, &m, DEV) == -EPROTO,
		      "hello_bad_role");
		m.role = 0;
		m.disk = nm_be32(NM_DISK_MAX);
		check(nm_payload_check(NM_P_HELLO, 48, &m, DEV) == -EPROTO,
		      "hello_bad_disk");
		m.disk = 0;
		m.protocol = nm_be32(3);
		check(nm_payload_check(NM_P_HELLO, 48, &m, DEV) == -EPROTO,
		      "hello_bad_protocol");
	}
	/* P_STATE, acks */
	{
		struct nm_p_state s = { nm_be32(1), nm_be32(1), nm_be64(7) };
		struct nm_p_ack a = { nm_be64(1), 0, 0 };

		check(nm_payload_check(NM_P_STATE, 16, &s, DEV) == 0, "state_valid");
		s.role = nm_be32(5);
		check(nm_payload_check(NM_P_STATE, 16, &s, DEV) == -EPROTO,
		      "state_bad_role");
		check(nm_payload_check(NM_P_WRITE_ACK, 16, &a, DEV) == 0, "ack_valid");
		a.status = nm_be32(5);
		check(nm_payload_check(NM_P_WRITE_ACK, 16, &a, DEV) == 0,
		      "ack_with_errno");
		a.status = nm_be32(4096);
		check(nm_payload_check(NM_P_WRITE_ACK, 16, &a, DEV) == -EPROTO,
		      "ack_status_out_of_range");
		a.status = 0;
		a.flags = nm_be32(NM_AF_STABLE);
		check(nm_payload_check(NM_P_WRITE_ACK, 16, &a, DEV) == 0,
		      "ack_stable");
		check(nm_payload_check(NM_P_RECV_ACK, 16, &a, DEV) == -EINVAL,
		      "recv_ack_no_flags");
		check(nm_payload_check(NM_P_READ_REPLY, 16, &a, DEV) == -EINVAL,
		      "read_reply_no_flags");
		a.flags = nm_be32(2);
		check(nm_payload_check(NM_P_WRITE_ACK, 16, &a, DEV) == -EINVAL,
		      "ack_unknown_flag");
		a.flags = 0;
		check(nm_payload_check(NM_P_READ_REPLY, 16, &a, DEV) == 0,
		      "read_reply_valid");
	}
	/* P_GENS flags: the ordering (protocol 6) only with ORD_SENT, known */
	{
		struct nm_p_gens g;
		const __u32 sz = sizeof(g);

		memset(&g, 0, sizeof(g));
		check(nm_payload_check(NM_P_GENS, sz, &g, DEV) == 0,
		      "gens_valid_v5");
		g.flags = nm_be32(NM_GF_ORD_SENT);
		check(nm_payload_check(NM_P_GENS, sz, &g, DEV) == 0,
		      "gens_ordering_flush");
		g.flags = nm_be32(NM_GF_ORD_SENT |
				  NM_ORD_NONE << NM_GF_ORD_SHIFT);
		check(nm_payload_check(NM_P_GENS, sz, &g, DEV) == 0,
		      "gens_ordering_none");
		g.flags = nm_be32(NM_GF_ORD_SENT | 3u << NM_GF_ORD_SHIFT);
		check(nm_payload_check(NM_P_GENS, sz, &g, DEV) == -EPROTO,
		      "gens_ordering_unknown");
		g.flags = nm_be32(NM_ORD_DRAIN << NM_GF_ORD_SHIFT);
		check(nm_payload_check(NM_P_GENS, sz, &g, DEV) == -EPROTO,
		      "gens_ordering_without_sent");
		/* version 10: a secondary that stopped as primary */
		g.flags = nm_be32(NM_GF_CRASHED_PRI);
		check(NM_GF_CRASHED_PRI == 0x80 &&
		      nm_payload_check(NM_P_GENS, sz, &g, DEV) == 0,
		      "gens_crashed_primary");
		g.flags = nm_be32(0x100);
		check(nm_payload_check(NM_P_GENS, sz, &g, DEV) == -EPROTO,
		      "gens_unknown_flag");
		g.flags = 0;
		g.reserved = nm_be32(1);
		check(nm_payload_check(NM_P_GENS, sz, &g, DEV) == -EPROTO,
		      "gens_reserved");
	}
	check(nm_payload_check(0, 0, raw, DEV) == -EPROTO, "payload_unknown_type");

	/* resync and bitmap packets */
	check(sizeof(struct nm_p_rs_ack) == 16, "size_rs_ack");
	check(sizeof(struct nm_p_bitmap) == 16, "size_bitmap");
	{
		struct nm_p_data d = data(0, 4096, 0);
		struct nm_p_rs_ack ra = { nm_be64(8), nm_be32(4096), 0 };
		struct nm_p_bitmap b = { nm_be64(64), nm_be32(100), 0 };

		check(nm_payload_check(NM_P_RS_DATA, 32 + 4096, &d, DEV) == 0,
		      "rs_data_valid");
		d.flags = nm_be32(NM_DF_FUA);
		check(nm_payload_check(NM_P_RS_DATA, 32 + 4096, &d, DEV) ==
		      -EINVAL, "rs_data_flags_rejected");
		d.flags = nm_be32(NM_DF_ACK_DISK);
		check(nm_payload_check(NM_P_RS_DATA, 32 + 4096, &d, DEV) ==
		      -EINVAL, "rs_data_ack_disk_rejected");
		d = data(0, 0, NM_DF_FLUSH);
		d.flags = 0;
		check(nm_payload_check(NM_P_RS_DATA, 32, &d, DEV) == -EINVAL,
		      "rs_data_empty_rejected");
		check(nm_payload_check(NM_P_RS_ACK, 16, &ra, DEV) == 0,
		      "rs_ack_valid");
		ra.sector = nm_be64(DEV);
		check(nm_payload_check(NM_P_RS_ACK, 16, &ra, DEV) == -ERANGE,
		      "rs_ack_past_end");
		ra.sector = 0;
		ra.size = nm_be32(100);
		check(nm_payload_check(NM_P_RS_ACK, 16, &ra, DEV) == -EINVAL,
		      "rs_ack_bad_size");
		check(nm_payload_check(NM_P_BITMAP, 16 + 16, &b, DEV) == 0,
		      "bitmap_valid");
		check(nm_payload_check(NM_P_BITMAP, 16 + 8, &b, DEV) == -EMSGSIZE,
		      "bitmap_len_mismatch");
		b.offset = nm_be64(65);
		check(nm_payload_check(NM_P_BITMAP, 16 + 16, &b, DEV) == -EINVAL,
		      "bitmap_unaligned_offset");
		b.offset = 0;
		b.nbits = nm_be32(NM_BITMAP_MAX_BITS + 1);
		check(nm_payload_check(NM_P_BITMAP, 16 + 4104, &b, DEV) == -EINVAL,
		      "bitmap_too_many_bits");
		h = hdr(NM_P_BITMAP, 16 + NM_BITMAP_MAX_BITS / 8 + 8, 0);
		check(nm_hdr_check(&h, 0) == -EMSGSIZE, "hdr_bitmap_too_long");
		h = hdr(NM_P_RS_DATA, 32 + NM_MAX_DATA + 512, 0);
		check(nm_hdr_check(&h, 0) == -EMSGSIZE, "hdr_rs_data_too_long");
	}

	/* P_ZERO, P_RS_ZERO: a range, no data (protocol 4) */
	check(NM_PROTO_MIN >= 4, "proto_version_4");
	check(nm_fixed_len(NM_P_ZERO) == 32 && nm_fixed_len(NM_P_RS_ZERO) == 32,
	      "size_zero");
	check(!nm_has_tail(NM_P_ZERO) && !nm_has_tail(NM_P_RS_ZERO),
	      "zero_no_tail");
	{
		struct nm_p_data d = data(8, 4096, NM_DF_DISCARD);
		struct nm_p_rs_ack na = { nm_be64(0), nm_be32(NM_MAX_ZERO),
					  nm_be32(5) };
		struct {
			__u16 type;
			__u64 sector;
			__u32 size, flags, epoch, reserved;
			int want;
			const char *name;
		} z[] = {
			{ NM_P_ZERO, 8, 4096, NM_DF_DISCARD, 1, 0, 0,
			  "zero_discard_valid" },
			{ NM_P_ZERO, 0, 4096, 0, 1, 0, 0, "zero_wz_valid" },
			{ NM_P_ZERO, 0, 4096, NM_DF_NOUNMAP, 1, 0, 0,
			  "zero_wz_nounmap_valid" },
			{ NM_P_ZERO, 0, DEV * 512, NM_DF_DISCARD, 1, 0, 0,
			  "zero_whole_device" },
			{ NM_P_ZERO, 0, 0, NM_DF_DISCARD, 1, 0, -EINVAL,
			  "zero_empty_rejected" },
			{ NM_P_ZERO, 0, 100, 0, 1, 0, -EINVAL,
			  "zero_unaligned_size" },
			{ NM_P_ZERO, 0, NM_MAX_ZERO + 512, 0, 1, 0, -EINVAL,
			  "zero_too_large" },
			{ NM_P_ZERO, 0, 4096, NM_DF_DISCARD | NM_DF_NOUNMAP, 1,
			  0, -EPROTO, "zero_discard_nounmap_rejected" },
			{ NM_P_ZERO, 0, 4096, NM_DF_FUA, 1, 0, -EPROTO,
			  "zero_fua_rejected" },
			{ NM_P_ZERO, 0, 4096, NM_DF_FLUSH, 1, 0, -EPROTO,
			  "zero_flush_rejected" },
			{ NM_P_ZERO, 0, 4096, 0x100, 1, 0, -EPROTO,
			  "zero_unknown_flag" },
			{ NM_P_ZERO, 0, 4096, NM_DF_DISCARD | NM_DF_ACK_DISK,
			  1, 0, 0, "zero_ack_disk_valid" },
			{ NM_P_RS_ZERO, 0, 4096, NM_DF_ACK_DISK, 0, 0, -EPROTO,
			  "rs_zero_ack_disk_rejected" },
			{ NM_P_ZERO, 0, 4096, 0, 1, 1, -EPROTO,
			  "zero_reserved_rejected" },
			{ NM_P_ZERO, DEV - 7, 4096, 0, 1, 0, -ERANGE,
			  "zero_past_end" },
			{ NM_P_ZERO, ~0ULL, 512, 0, 1, 0, -ERANGE,
			  "zero_sector_wraps" },
			{ NM_P_RS_ZERO, 0, 4096, 0, 0, 0, 0,
			  "rs_zero_valid" },
			{ NM_P_RS_ZERO, 0, NM_MAX_DATA + 512, 0, 0, 0, -EINVAL,
			  "rs_zero_over_max_data" },
			{ NM_P_RS_ZERO, 0, 4096, NM_DF_DISCARD, 0, 0, -EPROTO,
			  "rs_zero_flags_rejected" },
			{ NM_P_RS_ZERO, 0, 4096, 0, 1, 0, -EPROTO,
			  "rs_zero_epoch_rejected" },
			{ NM_P_RS_ZERO, DEV, 512, 0, 0, 0, -ERANGE,
			  "rs_zero_past_end" },
		};
		unsigned int i;

		for (i = 0; i < sizeof(z) / sizeof(z[0]); i++) {
			d = data(z[i].sector, z[i].size, z[i].flags);
			d.epoch = nm_be32(z[i].epoch);
			d.reserved = nm_be32(z[i].reserved);
			check(nm_payload_check(z[i].type, 32, &d,
					       DEV) == z[i].want, z[i].name);
		}
		h = hdr(NM_P_ZERO, 32, 0);
		check(nm_hdr_check(&h, 0) == 0, "hdr_zero_valid");
		h = hdr(NM_P_ZERO, 32 + 4096, 0);
		check(nm_hdr_check(&h, 0) == -EMSGSIZE, "hdr_zero_with_data");
		h = hdr(NM_P_RS_ZERO, 32 + 512, 0);
		check(nm_hdr_check(&h, 0) == -EMSGSIZE, "hdr_rs_zero_with_data");
		h = hdr(NM_P_ZERO, 16, 0);
		check(nm_hdr_check(&h, 0) == -EMSGSIZE, "hdr_zero_short");
		/* a P_NEG_ACK may answer a P_ZERO's whole range */
		check(nm_payload_check(NM_P_NEG_ACK, 16, &na, ~0ULL >> 1) == 0,
		      "neg_ack_zero_range");
		check(nm_payload_check(NM_P_RS_ACK, 16, &na, ~0ULL >> 1) ==
		      -EINVAL, "rs_ack_not_zero_range");
		na.size = nm_be32(NM_MAX_ZERO + 512);
		check(nm_payload_check(NM_P_NEG_ACK, 16, &na, ~0ULL >> 1) ==
		      -EINVAL, "neg_ack_over_max_zero");
	}
	/* online verify (version 4): P_CSUM_REQ, P_CSUM_REPLY */
	check(sizeof(struct nm_p_csum) == 16, "size_csum");
	check(sizeof(struct nm_p_csum_reply) == 56, "size_csum_reply");
	check(NM_P_CSUM_REQ == 26 && NM_P_CSUM_REPLY == 27, "csum_numbers");
	check(nm_has_tail(NM_P_CSUM_REQ) && !nm_has_tail(NM_P_CSUM_REPLY),
	      "csum_tails");
	{
		struct nm_p_csum c = { nm_be64(8), nm_be32(3 * 4096 + 512),
				       nm_be16(NM_CSUM_CRC32C),
				       nm_be16(NM_CF_VERIFY) };
		struct nm_p_csum_reply rp;

		/* 4 blocks, the last one 512 bytes: 4 crc32c digests */
		check(nm_payload_check(NM_P_CSUM_REQ, 16 + 16, &c, DEV) == 0,
		      "csum_valid");
		check(nm_payload_check(NM_P_CSUM_REQ, 16 + 12, &c, DEV) ==
		      -EMSGSIZE, "csum_digests_short");
		c.alg = nm_be16(NM_CSUM_SHA256);
		check(nm_payload_check(NM_P_CSUM_REQ, 16 + 128, &c, DEV) == 0,
		      "csum_sha256_valid");
		check(nm_payload_check(NM_P_CSUM_REQ, 16 + 16, &c, DEV) ==
		      -EMSGSIZE, "csum_sha256_len");
		c.alg = nm_be16(3);
		check(nm_payload_check(NM_P_CSUM_REQ, 16 + 16, &c, DEV) ==
		      -EPROTO, "csum_unknown_alg");
		c.alg = nm_be16(NM_CSUM_CRC32C);
		c.flags = 0;
		check(nm_payload_check(NM_P_CSUM_REQ, 16 + 16, &c, DEV) ==
		      -EPROTO, "csum_no_flag");
		c.flags = nm_be16(0x8000);
		check(nm_payload_check(NM_P_CSUM_REQ, 16 + 16, &c, DEV) ==
		      -EPROTO, "csum_unknown_flag");
		c.flags = nm_be16(NM_CF_VERIFY);
		c.size = nm_be32(100);
		check(nm_payload_check(NM_P_CSUM_REQ, 16 + 4, &c, DEV) ==
		      -EINVAL, "csum_bad_size");
		c.size = nm_be32(NM_MAX_DATA + 512);
		check(nm_payload_check(NM_P_CSUM_REQ, 16 + 4 * 257, &c, DEV) ==
		      -EINVAL, "csum_too_big");
		c.size = nm_be32(4096);
		c.sector = nm_be64(DEV - 4);
		check(nm_payload_check(NM_P_CSUM_REQ, 16 + 4, &c, DEV) ==
		      -ERANGE, "csum_past_end");
		h = hdr(NM_P_CSUM_REQ, 16 + NM_CSUM_MAX_BLOCKS * NM_CSUM_MAX_LEN, 0);
		check(nm_hdr_check(&h, 0) == 0, "hdr_csum_max");
		h = hdr(NM_P_CSUM_REQ, 16 + NM_CSUM_MAX_BLOCKS * NM_CSUM_MAX_LEN + 1, 0);
		check(nm_hdr_check(&h, 0) == -EMSGSIZE, "hdr_csum_too_long");
		h = hdr(NM_P_CSUM_REPLY, 57, 0);
		check(nm_hdr_check(&h, 0) == -EMSGSIZE, "hdr_csum_reply_len");

		memset(&rp, 0, sizeof(rp));
		rp.sector = nm_be64(8);
		rp.size = nm_be32(3 * 4096 + 512);
		rp.flags = nm_be16(NM_CF_VERIFY);
		rp.diff[0] = nm_be64(0x9);	/* blocks 0 and 3 of 4 */
		check(nm_payload_check(NM_P_CSUM_REPLY, 56, &rp, DEV) == 0,
		      "csum_reply_valid");
		rp.diff[0] = nm_be64(0x10);	/* block 4: not in the range */
		check(nm_payload_check(NM_P_CSUM_REPLY, 56, &rp, DEV) ==
		      -EINVAL, "csum_reply_bit_past_range");
		rp.diff[0] = 0;
		rp.diff[3] = nm_be64(1);
		check(nm_payload_check(NM_P_CSUM_REPLY, 56, &rp, DEV) ==
		      -EINVAL, "csum_reply_high_word");
		rp.diff[3] = 0;
		rp.status = nm_be32(5);
		check(nm_payload_check(NM_P_CSUM_REPLY, 56, &rp, DEV) == 0,
		      "csum_reply_errno");
		rp.diff[0] = nm_be64(1);
		check(nm_payload_check(NM_P_CSUM_REPLY, 56, &rp, DEV) ==
		      -EINVAL, "csum_reply_errno_with_diff");
		rp.diff[0] = 0;
		rp.status = nm_be32(4096);
		check(nm_payload_check(NM_P_CSUM_REPLY, 56, &rp, DEV) ==
		      -EPROTO, "csum_reply_status_range");
		rp.status = 0;
		rp.reserved = nm_be16(1);
		check(nm_payload_check(NM_P_CSUM_REPLY, 56, &rp, DEV) ==
		      -EPROTO, "csum_reply_reserved");
		rp.reserved = 0;
		rp.flags = nm_be16(3);
		check(nm_payload_check(NM_P_CSUM_REPLY, 56, &rp, DEV) ==
		      -EPROTO, "csum_reply_two_flags");
		/* a full 1 MiB range: all 256 bits may be set */
		rp.flags = nm_be16(NM_CF_VERIFY);
		rp.sector = 0;
		rp.size = nm_be32(NM_MAX_DATA);
		memset(rp.diff, 0xff, sizeof(rp.diff));
		check(nm_payload_check(NM_P_CSUM_REPLY, 56, &rp, DEV) == 0,
		      "csum_reply_full");
	}

	/* checksum-based resync (version 5): NM_CF_RESYNC, P_RS_BLOCKS */
	check(NM_PROTO_MIN == 5 && NM_PROTO_ORD == 6 && NM_P_RS_BLOCKS == 28,
	      "rs_blocks_numbers");
	/* version 7: attach keeps the link (a P_STATE, no new packet) */
	check(NM_PROTO_ATTACH == 7, "attach_version");
	/* version 8: P_RS_STOP, a count of the regions left out of sync */
	check(NM_PROTO_RS_STOP == 8 &&
	      NM_P_RS_STOP == 29 && NM_P_MAX == 30, "rs_stop_numbers");
	/*
	 * version 9: the handshake under the secret; no new packet type,
	 * the marker of a challenge to a peer shown below 9 is 8 bytes
	 */
	check(NM_PROTO_BIND == 9 &&
	      sizeof(NM_AUTH_DOWN) - 1 == NM_AUTH_DOWN_LEN &&
	      NM_AUTH_DOWN_LEN < NM_AUTH_LEN, "bind_version");
	/* version 10: NM_GF_CRASHED_PRI in P_GENS, no new packet type */
	check(NM_PROTO_CRASHED == 10 && NM_P_MAX == 30, "crashed_version");
	/* version 11: NM_DF_ACK_DISK under C too, no new packet type */
	check(NM_PROTO_MAX == 11 && NM_PROTO_SRC_FLAG == 11 &&
	      NM_P_MAX == 30, "src_flag_version");
	{
		struct nm_p_count c = { nm_be64(1) };

		check(nm_fixed_len(NM_P_RS_STOP) == 8 &&
		      !nm_has_tail(NM_P_RS_STOP), "rs_stop_fixed");
		check(nm_payload_check(NM_P_RS_STOP, 8, &c, DEV) == 0,
		      "rs_stop_one");
		c.count = nm_be64(DEV);
		check(nm_payload_check(NM_P_RS_STOP, 8, &c, DEV) == 0,
		      "rs_stop_all");
		c.count = 0;
		check(nm_payload_check(NM_P_RS_STOP, 8, &c, DEV) == -EINVAL,
		      "rs_stop_zero");
		c.count = nm_be64((__u64)DEV + 1);
		check(nm_payload_check(NM_P_RS_STOP, 8, &c, DEV) == -ERANGE,
		      "rs_stop_range");
	}
	check(sizeof(struct nm_p_rs_blocks) == 48, "size_rs_blocks");
	check(nm_fixed_len(NM_P_RS_BLOCKS) == 48 && nm_has_tail(NM_P_RS_BLOCKS),
	      "rs_blocks_tail");
	{
		struct nm_p_csum c = { 0, nm_be32(NM_MAX_DATA),
				       nm_be16(NM_CSUM_CRC32C),
				       nm_be16(NM_CF_RESYNC) };
		struct nm_p_rs_blocks b;

		check(nm_payload_check(NM_P_CSUM_REQ, 16 + 4 * 256, &c, DEV) ==
		      0, "csum_resync_valid");
		c.flags = nm_be16(NM_CF_RESYNC | NM_CF_VERIFY);
		check(nm_payload_check(NM_P_CSUM_REQ, 16 + 4 * 256, &c, DEV) ==
		      -EPROTO, "csum_resync_and_verify");

		memset(&b, 0, sizeof(b));
		b.sector = 0;
		b.size = nm_be32(NM_MAX_DATA);
		/* an empty mask: the region is in sync, no data */
		check(nm_payload_check(NM_P_RS_BLOCKS, 48, &b, DEV) == 0,
		      "rs_blocks_empty");
		check(nm_payload_check(NM_P_RS_BLOCKS, 48 + 4096, &b, DEV) ==
		      -EMSGSIZE, "rs_blocks_empty_with_data");
		/* blocks 0, 5 and 255: three blocks follow */
		b.mask[0] = nm_be64(0x21);
		b.mask[3] = nm_be64(1ULL << 63);
		check(nm_payload_check(NM_P_RS_BLOCKS, 48 + 3 * 4096, &b, DEV) ==
		      0, "rs_blocks_three");
		check(nm_payload_check(NM_P_RS_BLOCKS, 48 + 2 * 4096, &b, DEV) ==
		      -EMSGSIZE, "rs_blocks_short");
		/* a short region of 3.5 blocks, its last block set */
		memset(&b, 0, sizeof(b));
		b.sector = nm_be64(DEV - 32);
		b.size = nm_be32(3 * 4096 + 2048);
		b.mask[0] = nm_be64(0x9);	/* block 0 and the short block 3 */
		check(nm_payload_check(NM_P_RS_BLOCKS, 48 + 4096 + 2048, &b, DEV) ==
		      0, "rs_blocks_short_last");
		b.mask[0] = nm_be64(0x10);	/* block 4: past the range */
		check(nm_payload_check(NM_P_RS_BLOCKS, 48 + 4096, &b, DEV) ==
		      -EINVAL, "rs_blocks_bit_past_range");
		b.mask[0] = 0;
		b.sector = nm_be64(DEV - 24);
		check(nm_payload_check(NM_P_RS_BLOCKS, 48, &b, DEV) == -ERANGE,
		      "rs_blocks_past_end");
		b.sector = nm_be64(4);		/* not 4 KiB aligned */
		check(nm_payload_check(NM_P_RS_BLOCKS, 48, &b, DEV) == -EINVAL,
		      "rs_blocks_unaligned");
		b.sector = 0;
		b.reserved = nm_be32(1);
		check(nm_payload_check(NM_P_RS_BLOCKS, 48, &b, DEV) == -EPROTO,
		      "rs_blocks_reserved");
		b.reserved = 0;
		b.size = nm_be32(NM_MAX_DATA + 512);
		check(nm_payload_check(NM_P_RS_BLOCKS, 48, &b, DEV) == -EINVAL,
		      "rs_blocks_too_big");
		b.size = 0;
		check(nm_payload_check(NM_P_RS_BLOCKS, 48, &b, DEV) == -EINVAL,
		      "rs_blocks_empty_range");
		h = hdr(NM_P_RS_BLOCKS, 48 + NM_MAX_DATA, 0);
		check(nm_hdr_check(&h, 0) == 0, "hdr_rs_blocks_max");
		h = hdr(NM_P_RS_BLOCKS, 48 + NM_MAX_DATA + 1, 0);
		check(nm_hdr_check(&h, 0) == -EMSGSIZE, "hdr_rs_blocks_too_long");
	}

	printf("test_wire: %s\n", failed ? "FAILED" : "all passed");
	return failed;
}
