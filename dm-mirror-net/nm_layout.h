/* SPDX-License-Identifier: GPL-2.0 */
/*
 * netmirror metadata layout: the size rule and the signatures, pure
 * functions shared by the kernel module (nm_meta.c), libdmnet (nmsetup:
 * the length of a table with "meta internal", the signature check) and
 * the unit tests.  No includes: the includer provides memcmp (kernel
 * <linux/string.h>, userspace <string.h>).
 *
 * Metadata (superblock + bitmap) of a device of @sectors sectors in
 * regions of @region_sectors (a power of two):
 *   regions = ceil(sectors / region_sectors)
 *   bytes   = 4096 + ceil(regions / 32768) * 4096
 * ("meta <dev>": the metadata device must hold at least that).
 *
 * "meta internal": the metadata sits at the front of the local device,
 * in an area of that size rounded up to 1 MiB (2048 sectors); the data
 * area, which the target exposes, starts right after it:
 *   area    = round_up(bytes, 1 MiB) / 512 sectors
 *   local device >= area + sectors (the target's length)
 * The largest length that fits a local device of D sectors, as nmsetup
 * uses it, is D - area(D) (area() never shrinks as the length grows).
 */
#ifndef NM_LAYOUT_H
#define NM_LAYOUT_H

#define NM_LAYOUT_BLOCK		4096ULL		/* superblock, bitmap block */
#define NM_IMETA_ALIGN		2048ULL		/* sectors: 1 MiB */

/* Regions of a device of @sectors sectors. */
static inline unsigned long long nm_layout_regions(unsigned long long sectors,
						   unsigned int region_sectors)
{
	return (sectors + region_sectors - 1) / region_sectors;
}

/* Bytes of metadata for @nr_regions regions: superblock + bitmap. */
static inline unsigned long long nm_layout_meta_bytes(unsigned long long nr_regions)
{
	unsigned long long bits = NM_LAYOUT_BLOCK * 8;

	return NM_LAYOUT_BLOCK +
	       (nr_regions + bits - 1) / bits * NM_LAYOUT_BLOCK;
}

/* Sectors of the internal metadata area in front of @sectors of data. */
static inline unsigned long long nm_layout_imeta_sectors(unsigned long long sectors,
							 unsigned int region_sectors)
{
	unsigned long long s = nm_layout_meta_bytes(nm_layout_regions(sectors,
						    region_sectors)) / 512;

	return (s + NM_IMETA_ALIGN - 1) / NM_IMETA_ALIGN * NM_IMETA_ALIGN;
}

/* The longest target that fits @dev_sectors with internal metadata (0: none). */
static inline unsigned long long nm_layout_imeta_fit(unsigned long long dev_sectors,
						     unsigned int region_sectors)
{
	unsigned long long area = nm_layout_imeta_sectors(dev_sectors,
							  region_sectors);

	return dev_sectors > area ? dev_sectors - area : 0;
}

/*
 * What a device's first 4096 bytes say it holds, that metadata written
 * there would destroy: a short name, or NULL if none of the known
 * signatures is there.  Netmirror's own superblock ("NMMETA01" at 0) is
 * not a foreign signature: it returns NULL for it (check it first).
 */
static inline const char *nm_layout_signature(const unsigned char *b)
{
	static const struct {
		unsigned int off, len;
		const char *magic, *name;
	} sig[] = {
		{ 24, 8, "LVM2 001", "LVM2 physical volume" },
		{ 512 + 24, 8, "LVM2 001", "LVM2 physical volume" },
		{ 1024 + 24, 8, "LVM2 001", "LVM2 physical volume" },
		{ 1536 + 24, 8, "LVM2 001", "LVM2 physical volume" },
		{ 1080, 2, "\x53\xef", "ext2/3/4 filesystem" },
		{ 0, 4, "XFSB", "xfs filesystem" },
		{ 0, 6, "LUKS\xba\xbe", "LUKS volume" },
		{ 0, 6, "SKUL\xba\xbe", "LUKS2 volume" },
		{ 4086, 10, "SWAPSPACE2", "swap space" },
		{ 4086, 10, "SWAP-SPACE", "swap space" },
		{ 512, 8, "EFI PART", "GPT partition table" },
		{ 3, 8, "NTFS    ", "ntfs filesystem" },
		{ 82, 5, "FAT32", "vfat filesystem" },
		{ 54, 5, "FAT16", "vfat filesystem" },
		{ 54, 5, "FAT12", "vfat filesystem" },
		{ 0, 0, "", (const char *)0 },
	};
	unsigned int i;

	if (!memcmp(b, "NMMETA01", 8))
		return NULL;
	for (i = 0; sig[i].name; i++)
		if (!memcmp(b + sig[i].off, sig[i].magic, sig[i].len))
			return sig[i].name;
	if (b[510] == 0x55 && b[511] == 0xaa)
		return "DOS partition table or boot sector";
	return NULL;
}

#endif
