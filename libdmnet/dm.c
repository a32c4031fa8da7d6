// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * netmirror device operations through libdevmapper (never raw dm ioctls).
 * Modelled on cryptsetup lib/libdevmapper.c:
 *
 *   create  = CREATE + name + uuid + add_target + set_cookie + run +
 *             get_info, then dm_udev_wait(cookie)
 *   reload  = RELOAD (inactive table) + SUSPEND + RESUME (with cookie)
 *   remove  = REMOVE + retry_remove + cookie; retried by us on EBUSY
 *   status  = STATUS + no_flush + dm_get_next_target -> nm_status_parse
 *   message = TARGET_MSG + sector 0 + dm_task_get_message_response
 *
 * udev: with env DM_DISABLE_UDEV=1 (test VMs have no udev) we call
 * dm_udev_set_sync_support(0) and let libdevmapper create the /dev/mapper
 * nodes itself; otherwise udev creates them
 * (DM_UDEV_DISABLE_LIBRARY_FALLBACK) and we wait on the cookie.
 *
 * libdevmapper's log messages are captured (dm_log_with_errno_init) and the
 * last error is appended to our error text; nm_dm_set_verbose(1) also
 * prints them to stderr.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <libdevmapper.h>

#include "libdmnet.h"
#include "internal.h"

/* libdm log levels (not in libdevmapper.h; cryptsetup defines them too). */
#ifndef _LOG_ERR
#define _LOG_DEBUG	7
#define _LOG_WARN	4
#define _LOG_ERR	3
#define _LOG_STDERR	0x0080
#define _LOG_ONCE	0x0100
#endif

static int verbose;
static char last_dm_error[256];
static int initialised;

static void dm_log_cb(int level, const char *file, int line, int dm_errno,
		      const char *f, ...) __attribute__((format(printf, 5, 6)));
static void dm_log_cb(int level, const char *file, int line, int dm_errno,
		      const char *f, ...)
{
	va_list ap;

	(void)file;
	(void)line;
	(void)dm_errno;
	level &= ~(_LOG_STDERR | _LOG_ONCE);
	if (level <= _LOG_ERR) {
		va_start(ap, f);
		vsnprintf(last_dm_error, sizeof(last_dm_error), f, ap);
		va_end(ap);
	}
	if (verbose && level <= (verbose > 1 ? _LOG_DEBUG : _LOG_WARN)) {
		va_start(ap, f);
		fputs("libdevmapper: ", stderr);
		vfprintf(stderr, f, ap);
		fputc('\n', stderr);
		va_end(ap);
	}
}

void nm_dm_set_verbose(int level)
{
	verbose = level;
}

static int use_udev(void)
{
	const char *e = getenv("DM_DISABLE_UDEV");

	return !(e && *e && strcmp(e, "0"));
}

static void init(void)
{
	if (initialised)
		return;
	initialised = 1;
	dm_log_with_errno_init(dm_log_cb);
	if (!use_udev())
		dm_udev_set_sync_support(0);
}

static uint16_t udev_flags(void)
{
	/* With udev, udev creates the nodes; without, libdm must. */
	return use_udev() ? DM_UDEV_DISABLE_LIBRARY_FALLBACK : 0;
}

/* Error text "<what> <name>: <strerror>[ (libdevmapper: ...)]". */
static int dm_fail(struct dm_task *dmt, const char *what, const char *name,
		   char *err, size_t errlen)
{
	int e = dmt ? dm_task_get_errno(dmt) : 0;
	int r = e ? -e : -EIO;

	if (last_dm_error[0])
		nm_seterr(err, errlen, "%s %s: %s (libdevmapper: %s)", what,
			  name ? name : "", strerror(-r), last_dm_error);
	else
		nm_seterr(err, errlen, "%s %s: %s", what, name ? name : "",
			  strerror(-r));
	return r;
}

static struct dm_task *task(int type, const char *name, char *err,
			    size_t errlen)
{
	struct dm_task *dmt;

	init();
	last_dm_error[0] = '\0';
	dmt = dm_task_create(type);
	if (!dmt) {
		nm_seterr(err, errlen, "cannot use device-mapper%s%s (dm-mod loaded? root?)",
			  last_dm_error[0] ? ": " : "", last_dm_error);
		return NULL;
	}
	if (name && !dm_task_set_name(dmt, name)) {
		nm_seterr(err, errlen, "bad device name \"%s\"", name);
		dm_task_destroy(dmt);
		return NULL;
	}
	return dmt;
}

int nm_dm_target_version(unsigned *major, unsigned *minor, unsigned *patch,
			 char *err, size_t errlen)
{
	struct dm_versions *v, *last;
	struct dm_task *dmt;
	int r = -ENOENT;

	dmt = task(DM_DEVICE_LIST_VERSIONS, NULL, err, errlen);
	if (!dmt)
		return -ENOMEM;
	if (!dm_task_run(dmt)) {
		r = dm_fail(dmt, "list target versions", "", err, errlen);
		goto out;
	}
	v = dm_task_get_versions(dmt);
	if (!v)
		goto notfound;
	do {
		last = v;
		if (!strcmp(v->name, NM_TARGET_NAME)) {
			if (major)
				*major = v->version[0];
			if (minor)
				*minor = v->version[1];
			if (patch)
				*patch = v->version[2];
			r = 0;
			goto out;
		}
		v = (struct dm_versions *)((char *)v + v->next);
	} while (last != v);
notfound:
	nm_seterr(err, errlen, "the %s target is not loaded (modprobe dm-netmirror)",
		  NM_TARGET_NAME);
out:
	dm_task_destroy(dmt);
	return r;
}

int nm_dm_check_table_version(const struct nm_table *t, char *err,
			      size_t errlen)
{
	unsigned ma, mi, pa;
	int r = nm_dm_target_version(&ma, &mi, &pa, err, errlen);

	if (r)
		return r;
	return nm_table_check_version(t, ma, mi, err, errlen);
}

static int add_target(struct dm_task *dmt, const struct nm_table *t,
		      char *err, size_t errlen)
{
	char params[NM_LINE_MAX];

	if (nm_table_validate(t, err, errlen))
		return -EINVAL;
	if (!t->len) {
		nm_seterr(err, errlen, "table length is 0");
		return -EINVAL;
	}
	if (nm_table_format(t, params, sizeof(params)) < 0) {
		nm_seterr(err, errlen, "table too long");
		return -EINVAL;
	}
	if (!dm_task_add_target(dmt, t->start, t->len, NM_TARGET_NAME, params)) {
		nm_seterr(err, errlen, "dm_task_add_target failed");
		return -ENOMEM;
	}
	return 0;
}

int nm_dm_create(const char *name, const char *uuid, const struct nm_table *t,
		 char *err, size_t errlen)
{
	char defuuid[NM_UUID_MAX];
	struct dm_task *dmt;
	struct dm_info dmi;
	uint32_t cookie = 0;
	int r;

	if (nm_stack_check_name(name, err, errlen))
		return -EINVAL;
	if (!uuid) {
		if (nm_stack_uuid(name, defuuid, sizeof(defuuid)) < 0) {
			nm_seterr(err, errlen, "name too long for a dm uuid");
			return -EINVAL;
		}
		uuid = defuuid;
	}
	dmt = task(DM_DEVICE_CREATE, name, err, errlen);
	if (!dmt)
		return -ENOMEM;
	r = -ENOMEM;
	if (!dm_task_set_uuid(dmt, uuid)) {
		nm_seterr(err, errlen, "bad uuid \"%s\"", uuid);
		goto out;
	}
	r = add_target(dmt, t, err, errlen);
	if (r)
		goto out;
	if (!dm_task_set_cookie(dmt, &cookie, udev_flags())) {
		r = dm_fail(dmt, "set udev cookie for", name, err, errlen);
		goto out;
	}
	if (!dm_task_run(dmt)) {
		r = dm_fail(dmt, "create", name, err, errlen);
		goto out;
	}
	if (!dm_task_get_info(dmt, &dmi) || !dmi.exists) {
		r = dm_fail(dmt, "query created device", name, err, errlen);
		goto out;
	}
	r = 0;
out:
	/* Wait even on failure: libdm may have generated node ops. */
	(void)dm_udev_wait(cookie);
	dm_task_destroy(dmt);
	return r;
}

static int simple(int type, const char *what, const char *name, int with_cookie,
		  char *err, size_t errlen)
{
	struct dm_task *dmt = task(type, name, err, errlen);
	uint32_t cookie = 0;
	int r = 0;

	if (!dmt)
		return -ENOMEM;
	if (with_cookie && !dm_task_set_cookie(dmt, &cookie, udev_flags())) {
		r = dm_fail(dmt, "set udev cookie for", name, err, errlen);
		goto out;
	}
	if (!dm_task_run(dmt))
		r = dm_fail(dmt, what, name, err, errlen);
out:
	if (with_cookie)
		(void)dm_udev_wait(cookie);
	dm_task_destroy(dmt);
	return r;
}

int nm_dm_reload(const char *name, const struct nm_table *t, char *err,
		 size_t errlen)
{
	struct dm_task *dmt = task(DM_DEVICE_RELOAD, name, err, errlen);
	int r;

	if (!dmt)
		return -ENOMEM;
	r = add_target(dmt, t, err, errlen);
	if (!r && !dm_task_run(dmt))
		r = dm_fail(dmt, "load table into", name, err, errlen);
	dm_task_destroy(dmt);
	if (r)
		return r;
	r = simple(DM_DEVICE_SUSPEND, "suspend", name, 0, err, errlen);
	if (r) {
		/* Drop the inactive table again so nothing is left half-done. */
		(void)simple(DM_DEVICE_CLEAR, "clear", name, 0, NULL, 0);
		return r;
	}
	return simple(DM_DEVICE_RESUME, "resume", name, 1, err, errlen);
}

int nm_dm_remove(const char *name, int retries, char *err, size_t errlen)
{
	int r, i;

	for (i = 0;; i++) {
		struct dm_task *dmt = task(DM_DEVICE_REMOVE, name, err, errlen);
		uint32_t cookie = 0;

		if (!dmt)
			return -ENOMEM;
		r = 0;
		if (!dm_task_set_cookie(dmt, &cookie, udev_flags()))
			r = dm_fail(dmt, "set udev cookie for", name, err, errlen);
		else if (!dm_task_run(dmt))
			r = dm_fail(dmt, "remove", name, err, errlen);
		(void)dm_udev_wait(cookie);
		dm_task_destroy(dmt);
		if (r != -EBUSY || i >= retries)
			break;
		nanosleep(&(struct timespec){ .tv_nsec = 100 * 1000 * 1000 }, NULL);
	}
	if (r == -ENXIO)
		r = -ENODEV;
	return r;
}

/* Run STATUS or TABLE; return the single netmirror target's params. */
static int get_target(int type, const char *name, uint64_t *start,
		      uint64_t *len, struct nm_dm_info *info, char *params,
		      size_t plen, char *err, size_t errlen)
{
	struct dm_task *dmt = task(type, name, err, errlen);
	char *ttype = NULL, *p = NULL;
	uint64_t s = 0, l = 0;
	struct dm_info dmi;
	void *next;
	int r = 0;

	if (!dmt)
		return -ENOMEM;
	if (type == DM_DEVICE_STATUS && !dm_task_no_flush(dmt)) {
		r = -ENOMEM;
		goto out;
	}
	if (!dm_task_run(dmt)) {
		r = dm_fail(dmt, "query", name, err, errlen);
		if (r == -ENXIO)
			r = -ENODEV;
		goto out;
	}
	if (!dm_task_get_info(dmt, &dmi) || !dmi.exists) {
		nm_seterr(err, errlen, "%s: no such device", name);
		r = -ENODEV;
		goto out;
	}
	next = dm_get_next_target(dmt, NULL, &s, &l, &ttype, &p);
	if (!ttype || strcmp(ttype, NM_TARGET_NAME)) {
		nm_seterr(err, errlen, "%s is not a %s device (target %s)", name,
			  NM_TARGET_NAME, ttype ? ttype : "none");
		r = -EINVAL;
		goto out;
	}
	if (next) {
		nm_seterr(err, errlen, "%s has more than one target", name);
		r = -EINVAL;
		goto out;
	}
	if (snprintf(params, plen, "%s", p ? p : "") >= (int)plen) {
		nm_seterr(err, errlen, "%s: params too long", name);
		r = -ENOSPC;
		goto out;
	}
	if (start)
		*start = s;
	if (len)
		*len = l;
	if (info) {
		info->event_nr = dmi.event_nr;
		info->suspended = !!dmi.suspended;
	}
out:
	dm_task_destroy(dmt);
	return r;
}

int nm_dm_status_info(const char *name, struct nm_status *s,
		      struct nm_dm_info *info, char *err, size_t errlen)
{
	char params[NM_LINE_MAX], e[NM_ERRLEN];
	int r;

	/* one STATUS ioctl: the event counter is read before the status */
	r = get_target(DM_DEVICE_STATUS, name, NULL, NULL, info, params,
		       sizeof(params), err, errlen);
	if (r)
		return r;
	if (nm_status_parse(params, s, e, sizeof(e))) {
		nm_seterr(err, errlen, "%s: cannot parse status \"%s\": %s", name,
			  params, e);
		return -EPROTO;
	}
	return 0;
}

int nm_dm_status_event(const char *name, struct nm_status *s,
		       uint32_t *event_nr, char *err, size_t errlen)
{
	struct nm_dm_info i;
	int r = nm_dm_status_info(name, s, &i, err, errlen);

	if (!r && event_nr)
		*event_nr = i.event_nr;
	return r;
}

int nm_dm_status(const char *name, struct nm_status *s, char *err,
		 size_t errlen)
{
	return nm_dm_status_info(name, s, NULL, err, errlen);
}

int nm_dm_wait_event(const char *name, uint32_t event_nr, char *err,
		     size_t errlen)
{
	struct dm_task *dmt = task(DM_DEVICE_WAITEVENT, name, err, errlen);
	int r = 0;

	if (!dmt)
		return -ENOMEM;
	if (!dm_task_set_event_nr(dmt, event_nr)) {
		r = -ENOMEM;
		goto out;
	}
	if (!dm_task_run(dmt)) {
		r = dm_fail(dmt, "wait for an event of", name, err, errlen);
		if (r == -ENXIO)
			r = -ENODEV;
	}
out:
	dm_task_destroy(dmt);
	return r;
}

int nm_dm_table(const char *name, struct nm_table *t, char *err,
		size_t errlen)
{
	char params[NM_LINE_MAX], e[NM_ERRLEN];
	uint64_t start, len;
	int r;

	r = get_target(DM_DEVICE_TABLE, name, &start, &len, NULL, params,
		       sizeof(params), err, errlen);
	if (r)
		return r;
	if (nm_table_parse(params, t, e, sizeof(e))) {
		nm_seterr(err, errlen, "%s: cannot parse table \"%s\": %s", name,
			  params, e);
		return -EPROTO;
	}
	t->start = start;
	t->len = len;
	return 0;
}

int nm_dm_message(const char *name, const char *msg, char *resp,
		  size_t resplen, char *err, size_t errlen)
{
	struct dm_task *dmt = task(DM_DEVICE_TARGET_MSG, name, err, errlen);
	const char *rsp;
	int r = 0;

	if (!dmt)
		return -ENOMEM;
	if (resp && resplen)
		resp[0] = '\0';
	if (!dm_task_set_sector(dmt, 0) || !dm_task_set_message(dmt, msg)) {
		r = -ENOMEM;
		goto out;
	}
	if (!dm_task_run(dmt)) {
		r = dm_fail(dmt, "message to", name, err, errlen);
		goto out;
	}
	rsp = dm_task_get_message_response(dmt);
	if (resp && resplen && rsp)
		snprintf(resp, resplen, "%s", rsp);
out:
	dm_task_destroy(dmt);
	return r;
}

int nm_dm_exists(const char *name)
{
	struct dm_task *dmt = task(DM_DEVICE_INFO, name, NULL, 0);
	struct dm_info dmi;
	int r;

	if (!dmt)
		return -ENOMEM;
	if (!dm_task_run(dmt) || !dm_task_get_info(dmt, &dmi))
		r = dm_fail(dmt, "info", name, NULL, 0);
	else
		r = dmi.exists ? 1 : 0;
	dm_task_destroy(dmt);
	return r;
}

int nm_dm_list(nm_dm_list_cb cb, void *arg, char *err, size_t errlen)
{
	struct dm_task *dmt = task(DM_DEVICE_LIST, NULL, err, errlen);
	struct dm_names *n;
	unsigned next = 0;
	int r = 0;

	if (!dmt)
		return -ENOMEM;
	if (!dm_task_run(dmt)) {
		r = dm_fail(dmt, "list devices", "", err, errlen);
		goto out;
	}
	n = dm_task_get_names(dmt);
	if (!n || !n->dev)
		goto out;
	do {
		char params[NM_LINE_MAX];

		n = (struct dm_names *)((char *)n + next);
		if (!get_target(DM_DEVICE_TABLE, n->name, NULL, NULL, NULL, params,
				sizeof(params), NULL, 0)) {
			r = cb(n->name, arg);
			if (r)
				break;
		}
		next = n->next;
	} while (next);
out:
	dm_task_destroy(dmt);
	return r;
}
