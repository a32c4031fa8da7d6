// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Stacking helpers: device sizes, names, UUIDs, LVM conventions.
 * The only ioctl here is BLKGETSIZE64 on a block device fd (not a dm
 * ioctl).  See libdmnet.h for the naming and LVM PV conventions.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "libdmnet.h"
#include "internal.h"

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
	return 0;
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
