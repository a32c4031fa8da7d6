/*
 * libFuzzer target for the netmirror packet decoder: the input is a byte
 * stream as a node would read it from its socket.  It is decoded exactly as
 * nm_receive() in dm-mirror-net/nm_conn.c does: a 16-byte header through
 * nm_hdr_check() with the expected sequence number, then the fixed payload
 * through nm_payload_check(), then (P_DATA) the data bytes.  Invariants the
 * kernel relies on are asserted: a P_DATA that passed lies inside the device
 * and its size agrees with the header; a P_ZERO or P_RS_ZERO that passed
 * carries no data and its range lies inside the device and its bounds; a
 * P_CSUM_REQ's tail is one digest per 4 KiB block; a P_RS_BLOCKS's tail
 * is exactly the blocks its mask names, all inside its range and the
 * device; nothing is read past the input.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "../../dm-mirror-net/nm_wire.h"

#define DEV_SECTORS 4096ULL

int LLVMFuzzerTestOneInput(const uint8_t *buf, size_t len)
{
	size_t off = 0;
	__u32 seq = 0;

	while (len - off >= sizeof(struct nm_hdr)) {
		struct nm_hdr h;
		unsigned char fixed[64];
		__u16 type;
		__u32 plen, flen;

		memcpy(&h, buf + off, sizeof(h));
		off += sizeof(h);
		if (nm_hdr_check(&h, seq))
			return 0;	/* the kernel drops the link here */
		seq++;
		type = nm_h16(h.type);
		plen = nm_h32(h.length);
		flen = nm_fixed_len(type);
		if (flen > sizeof(fixed) || flen > plen)
			abort();
		if (len - off < flen)
			return 0;
		memcpy(fixed, buf + off, flen);
		off += flen;
		if (nm_payload_check(type, plen, fixed, DEV_SECTORS))
			return 0;
		if (type == NM_P_DATA || type == NM_P_RS_DATA) {
			struct nm_p_data d;
			__u64 sector;
			__u32 size;

			memcpy(&d, fixed, sizeof(d));
			sector = nm_h64(d.sector);
			size = nm_h32(d.size);
			if (size > NM_MAX_DATA || size != plen - flen ||
			    sector + size / 512 > DEV_SECTORS || (size & 511))
				abort();
			if (len - off < size)
				return 0;
			off += size;
		} else if (type == NM_P_READ_REPLY) {
			struct nm_p_ack a;

			memcpy(&a, fixed, sizeof(a));
			if (plen - flen > NM_MAX_DATA || ((plen - flen) & 511) ||
			    (a.status && plen != flen))
				abort();
			if (len - off < plen - flen)
				return 0;
			off += plen - flen;
		} else if (type == NM_P_BITMAP) {
			struct nm_p_bitmap b;
			__u32 nbits;

			memcpy(&b, fixed, sizeof(b));
			nbits = nm_h32(b.nbits);
			if (!nbits || nbits > NM_BITMAP_MAX_BITS ||
			    plen - flen != (nbits + 63) / 64 * 8)
				abort();
			if (len - off < plen - flen)
				return 0;
			off += plen - flen;
		} else if (type == NM_P_ZERO || type == NM_P_RS_ZERO) {
			/* a range and no data: inside the device, bounded */
			struct nm_p_data d;
			__u64 sector;
			__u32 size;

			memcpy(&d, fixed, sizeof(d));
			sector = nm_h64(d.sector);
			size = nm_h32(d.size);
			if (plen != flen || !size || (size & 511) ||
			    size > (type == NM_P_ZERO ? NM_MAX_ZERO :
				    NM_MAX_DATA) ||
			    sector + size / 512 > DEV_SECTORS ||
			    (nm_h32(d.flags) &
			     ~(NM_DF_ZERO_ALL | NM_DF_ACK_DISK)) ||
			    (type == NM_P_RS_ZERO && d.flags))
				abort();
		} else if (type == NM_P_CSUM_REQ) {
			struct nm_p_csum c;
			__u32 size, dl;

			memcpy(&c, fixed, sizeof(c));
			size = nm_h32(c.size);
			dl = nm_h16(c.alg) == NM_CSUM_CRC32C ? 4 :
			     nm_h16(c.alg) == NM_CSUM_SHA256 ? 32 : 0;
			if (!dl || !size || size > NM_MAX_DATA || (size & 511) ||
			    nm_h64(c.sector) + size / 512 > DEV_SECTORS ||
			    plen - flen != (size + 4095) / 4096 * dl)
				abort();
			if (len - off < plen - flen)
				return 0;
			off += plen - flen;
		} else if (type == NM_P_RS_BLOCKS) {
			struct nm_p_rs_blocks b;
			__u32 size, nb, i, want = 0;

			memcpy(&b, fixed, sizeof(b));
			size = nm_h32(b.size);
			nb = (size + 4095) / 4096;
			if (!size || size > NM_MAX_DATA || (size & 511) ||
			    (nm_h64(b.sector) & 7) ||
			    nm_h64(b.sector) + size / 512 > DEV_SECTORS)
				abort();
			for (i = 0; i < 256; i++) {
				if (!((nm_h64(b.mask[i / 64]) >> (i % 64)) & 1))
					continue;
				if (i >= nb)
					abort();	/* a block past the range */
				want += i == nb - 1 ? size - i * 4096 : 4096;
			}
			if (plen - flen != want)
				abort();
			if (len - off < want)
				return 0;
			off += want;
		} else if (plen != flen) {
			abort();
		}
	}
	return 0;
}
