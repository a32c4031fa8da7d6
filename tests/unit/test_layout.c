// SPDX-License-Identifier: GPL-2.0-only
/*
 * The metadata size rule and the signature check of nm_layout.h (shared by
 * the kernel's nm_meta.c and libdmnet), and nm_stack_imeta_sectors().
 */
#include <string.h>
#include "libdmnet.h"
#include "nm_layout.h"

#define NM_CHECK_GROUP "test_layout"
#include "nmcheck.h"

#define MIB 2048ULL		/* sectors */

int main(void)
{
	unsigned char b[4096];
	unsigned long long d, l;
	struct nm_table t;

	/* metadata bytes: 4096 superblock + bitmap in 4096-byte blocks */
	check("bytes/1-region", nm_layout_meta_bytes(1) == 8192);
	check("bytes/32768-regions", nm_layout_meta_bytes(32768) == 8192);
	check("bytes/32769-regions", nm_layout_meta_bytes(32769) == 12288);
	check("bytes/0-regions", nm_layout_meta_bytes(0) == 4096);
	/* the kernel's old formula: 4096 + round_up(ceil(n/64) * 8, 4096) */
	for (l = 1; l < 200000; l += 977) {
		unsigned long long old = 4096 + ((l + 63) / 64 * 8 + 4095) / 4096 * 4096;

		if (old != nm_layout_meta_bytes(l))
			break;
	}
	check("bytes/same-as-nm_meta_size-v2", l >= 200000);
	check("regions/round-up", nm_layout_regions(1025, 1024) == 2 &&
	      nm_layout_regions(1024, 1024) == 1);

	/* the internal area: a multiple of 1 MiB, never less than 1 MiB */
	check("area/small", nm_layout_imeta_sectors(8, 8) == MIB);
	/* 1 TiB in 512 KiB regions: 2^21 regions, 256 KiB bitmap: 1 MiB */
	check("area/1TiB-512KiB", nm_layout_imeta_sectors(1ULL << 31, 1024) == MIB);
	/* 1 TiB in 4 KiB regions: 2^28 regions, 32 MiB bitmap + 4 KiB: 33 MiB */
	check("area/1TiB-4KiB", nm_layout_imeta_sectors(1ULL << 31, 8) == 33 * MIB);
	/* bitmap of exactly 1 MiB - 4 KiB: fits in 1 MiB; one more region: 2 */
	d = (MIB * 512 - 4096) * 8 * 8ULL;	/* sectors in 8-sector regions */
	check("area/exact-fit", nm_layout_imeta_sectors(d, 8) == MIB &&
	      nm_layout_imeta_sectors(d + 8, 8) == 2 * MIB);

	/* fit: the longest length whose area + length fits the device */
	for (d = 1; d < (1ULL << 40); d = d * 3 + 7) {
		unsigned int r;

		for (r = 8; r <= 2048; r *= 4) {
			l = nm_layout_imeta_fit(d, r);
			if (l && l + nm_layout_imeta_sectors(l, r) > d)
				break;
			if (!l && d > MIB)
				break;
		}
		if (r <= 2048)
			break;
	}
	check("fit/always-fits", d >= (1ULL << 40));
	check("fit/too-small", nm_layout_imeta_fit(MIB, 1024) == 0 &&
	      nm_layout_imeta_fit(MIB + 1, 1024) == 1);
	check("fit/1GiB", nm_layout_imeta_fit(1ULL << 21, 1024) == (1ULL << 21) - MIB);

	/* the library's view of a table */
	nm_table_init(&t);
	t.len = 1ULL << 21;
	check("stack/no-internal", nm_stack_imeta_sectors(&t) == 0);
	nm_table_set_option(&t, "meta", "internal", NULL, 0);
	nm_table_set_option(&t, "region_size", "8", NULL, 0);
	t.len = 1ULL << 31;
	check("stack/internal", nm_stack_imeta_sectors(&t) == 33 * MIB);

	/* signatures */
	memset(b, 0, sizeof(b));
	check("sig/zeroes", !nm_layout_signature(b));
	memcpy(b + 512 + 24, "LVM2 001", 8);
	memcpy(b + 512, "LABELONE", 8);
	check("sig/pv", nm_layout_signature(b) &&
	      !strcmp(nm_layout_signature(b), "LVM2 physical volume"));
	memset(b, 0, sizeof(b));
	b[1080] = 0x53;
	b[1081] = 0xef;
	check("sig/ext4", nm_layout_signature(b) &&
	      strstr(nm_layout_signature(b), "ext"));
	memset(b, 0, sizeof(b));
	memcpy(b, "XFSB", 4);
	check("sig/xfs", nm_layout_signature(b) != NULL);
	memset(b, 0, sizeof(b));
	memcpy(b + 4086, "SWAPSPACE2", 10);
	check("sig/swap", nm_layout_signature(b) != NULL);
	memset(b, 0, sizeof(b));
	b[510] = 0x55;
	b[511] = 0xaa;
	check("sig/mbr", nm_layout_signature(b) != NULL);
	/* our own superblock is not foreign, even over a stale magic */
	memcpy(b, "NMMETA01", 8);
	check("sig/netmirror", !nm_layout_signature(b));
	check("sig/stack-same", nm_stack_signature(b) == NULL);
	return nm_check_done();
}
