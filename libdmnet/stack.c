// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Stacking helpers: device sizes, names, UUIDs, LVM conventions.
 * The only ioctl here is BLKGETSIZE64 on a block device fd (not a dm
 * ioctl).  See libdmnet.h for the naming and LVM PV conventions.
 */
#include <errno.h>
#include <inttypes.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "libdmnet.h"
#include "internal.h"
#include "nm_layout.h"

int nm_stack_dev_sectors(const char *dev, uint64_t *sectors, char *err,
			 size_t errlen)
{
	char path[NM_DEV_MAX + 16], e[NM_ERRLEN];
	uint64_t bytes = 0;
	struct stat st;
	int fd, r;

	if (nm_parse_dev(dev, path, sizeof(path), e, sizeof(e))) {
		nm_seterr(err, errlen, "%s: %s", dev, e);
		return -EINVAL;
	}
	if (dev[0] != '/')
		snprintf(path, sizeof(path), "/dev/block/%s", dev);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		r = -errno;
		nm_seterr(err, errlen, "%s: %s", path, strerror(errno));
		return r;
	}
	if (fstat(fd, &st) || !S_ISBLK(st.st_mode)) {
		nm_seterr(err, errlen, "%s: not a block device", path);
		close(fd);
		return -ENOTBLK;
	}
	if (ioctl(fd, BLKGETSIZE64, &bytes) < 0) {
		r = -errno;
		nm_seterr(err, errlen, "%s: BLKGETSIZE64: %s", path, strerror(errno));
		close(fd);
		return r;
	}
	close(fd);
	*sectors = bytes >> 9;
	return 0;
}

int nm_stack_fill_size(struct nm_table *t, char *err, size_t errlen)
{
	uint64_t s;
	int r;

	if (t->len)
		return 0;
	r = nm_stack_dev_sectors(t->local_dev, &s, err, errlen);
	if (r)
		return r;
	if (!s) {
		nm_seterr(err, errlen, "%s: device has size 0", t->local_dev);
		return -EINVAL;
	}
	t->start = 0;
	t->len = s;
	if (nm_table_meta_internal(t)) {
		t->len = nm_layout_imeta_fit(s, t->region_size);
		if (!t->len) {
			nm_seterr(err, errlen, "%s: too small for internal metadata (%" PRIu64 " sectors; internal metadata alone takes %llu)",
				  t->local_dev, s,
				  nm_layout_imeta_sectors(s, t->region_size));
			return -ENOSPC;
		}
	}
	return 0;
}

uint64_t nm_stack_imeta_sectors(const struct nm_table *t)
{
	if (!nm_table_meta_internal(t))
		return 0;
	return nm_layout_imeta_sectors(t->len, t->region_size);
}

const char *nm_stack_signature(const unsigned char *block)
{
	return nm_layout_signature(block);
}

static int open_dev(const char *dev, int flags, char *err, size_t errlen)
{
	char path[NM_DEV_MAX + 16], e[NM_ERRLEN];
	int fd;

	if (nm_parse_dev(dev, path, sizeof(path), e, sizeof(e))) {
		nm_seterr(err, errlen, "%s: %s", dev, e);
		return -EINVAL;
	}
	if (dev[0] != '/')
		snprintf(path, sizeof(path), "/dev/block/%s", dev);
	fd = open(path, flags | O_CLOEXEC);
	if (fd < 0) {
		fd = -errno;
		nm_seterr(err, errlen, "%s: %s", path, strerror(errno));
	}
	return fd;
}

int nm_stack_imeta_check(const struct nm_table *t, int force, char *err,
			 size_t errlen)
{
	unsigned char *b = NULL;
	uint64_t dev, need;
	const char *sig;
	int fd, r;

	if (!nm_table_meta_internal(t))
		return 0;
	r = nm_stack_dev_sectors(t->local_dev, &dev, err, errlen);
	if (r)
		return r;
	need = nm_stack_imeta_sectors(t) + t->len;
	if (dev < need) {
		nm_seterr(err, errlen, "%s: too small for %" PRIu64 " sectors with internal metadata: it has %" PRIu64 " sectors, it needs %" PRIu64 " (%" PRIu64 " of metadata + %" PRIu64 " of data)",
			  t->local_dev, t->len, dev, need,
			  nm_stack_imeta_sectors(t), t->len);
		return -ENOSPC;
	}
	/* O_DIRECT: what the device holds, not an older page cache copy */
	fd = open_dev(t->local_dev, (force ? O_RDWR : O_RDONLY) | O_DIRECT,
		      err, errlen);
	if (fd < 0)
		return fd;
	if (posix_memalign((void **)&b, 4096, 4096)) {
		nm_seterr(err, errlen, "out of memory");
		close(fd);
		return -ENOMEM;
	}
	r = 0;
	if (pread(fd, b, 4096, 0) != 4096) {
		nm_seterr(err, errlen, "%s: cannot read its first 4096 bytes", t->local_dev);
		r = -EIO;
		goto out;
	}
	sig = nm_layout_signature(b);
	if (sig && !force) {
		nm_seterr(err, errlen, "%s holds a %s signature at its start: internal metadata would overwrite it (wipe it, or --force)",
			  t->local_dev, sig);
		r = -EEXIST;
		goto out;
	}
	if (sig) {
		/* --force: clear the block, the kernel then formats it */
		memset(b, 0, 4096);
		if (pwrite(fd, b, 4096, 0) != 4096 || fsync(fd)) {
			r = errno ? -errno : -EIO;
			nm_seterr(err, errlen, "%s: cannot clear the %s signature: %s",
				  t->local_dev, sig, strerror(-r));
		}
	}
out:
	free(b);
	close(fd);
	return r;
}

int nm_stack_uuid(const char *name, char *buf, size_t len)
{
	int n = snprintf(buf, len, NM_UUID_PREFIX "%s", name);

	return (n < 0 || (size_t)n >= len) ? -ENOSPC : n;
}

int nm_stack_node(const char *name, char *buf, size_t len)
{
	int n = snprintf(buf, len, "/dev/mapper/%s", name);

	return (n < 0 || (size_t)n >= len) ? -ENOSPC : n;
}

int nm_stack_lvm_filter(const char *local_dev, char *buf, size_t len)
{
	int n = snprintf(buf, len, "devices { global_filter = [ \"r|^%s$|\" ] }",
			 local_dev);

	return (n < 0 || (size_t)n >= len) ? -ENOSPC : n;
}
