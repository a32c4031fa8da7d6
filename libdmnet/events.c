// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * netmirror events model: what "nmsetup events" prints when a device's
 * state goes from one status to the next.  Pure code (no ioctls, no
 * libdevmapper), so the lines are unit-tested (tests/unit/test_events.c).
 *
 * One line per event, "<what> device name:<name> <key>:<value>..." (the
 * form of drbdsetup events2) or, with NM_EVENT_JSON, one JSON object per
 * line with the same keys ("event" holds <what>).  The keys are those of
 * "nmsetup status --json"; "suspended" is device-mapper's flag.
 *
 *   exists / create  every state key and the sync keys (the state when
 *                    following starts / a device that appeared since)
 *   change           the state keys whose value changed
 *   progress         the sync keys when the regions in sync changed, and
 *                    the verify keys when a verify runs or just ended
 *   destroy          the device is gone
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "libdmnet.h"
#include "internal.h"

struct out {
	char *buf;
	size_t len, o;
	int err;
};

static void emit(struct out *w, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void emit(struct out *w, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (w->err)
		return;
	va_start(ap, fmt);
	n = vsnprintf(w->buf + w->o, w->len - w->o, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= w->len - w->o)
		w->err = -ENOSPC;
	else
		w->o += (size_t)n;
}

/* A JSON string (the device name may hold anything but '/' and blanks). */
static void emit_jstr(struct out *w, const char *s)
{
	emit(w, "\"");
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			emit(w, "\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			emit(w, "\\u%04x", (unsigned char)*s);
		else
			emit(w, "%c", *s);
	}
	emit(w, "\"");
}

static void line_start(struct out *w, const char *what, const char *name,
		       unsigned flags, const char *time)
{
	if (flags & NM_EVENT_JSON) {
		emit(w, "{\"event\":\"%s\"", what);
		if (time) {
			emit(w, ",\"time\":");
			emit_jstr(w, time);
		}
		emit(w, ",\"name\":");
		emit_jstr(w, name);
	} else {
		if (time)
			emit(w, "%s ", time);
		emit(w, "%s device name:%s", what, name);
	}
}

static void line_end(struct out *w, unsigned flags)
{
	emit(w, (flags & NM_EVENT_JSON) ? "}\n" : "\n");
}

/* key:word, or "key":"word" (words need no escaping: status.c checks) */
static void kv_word(struct out *w, unsigned flags, const char *k,
		    const char *v)
{
	if (flags & NM_EVENT_JSON)
		emit(w, ",\"%s\":\"%s\"", k, v);
	else
		emit(w, " %s:%s", k, v);
}

static void kv_num(struct out *w, unsigned flags, const char *k, uint64_t v)
{
	emit(w, (flags & NM_EVENT_JSON) ? ",\"%s\":%" PRIu64 : " %s:%" PRIu64,
	     k, v);
}

static void kv_pct(struct out *w, unsigned flags, const char *k, double v)
{
	emit(w, (flags & NM_EVENT_JSON) ? ",\"%s\":%.2f" : " %s:%.2f", k, v);
}

/* The state keys, in print order; NULL if the module has no such field. */
enum { K_ROLE, K_CONN, K_DISK, K_PDISK, K_SUSP, K_IO, K_ERR, K_GEN,
       K_VERIFY, K_COUNT };
static const char *const state_key[K_COUNT] = {
	"role", "connection", "disk", "peer_disk", "suspended", "io",
	"last_error", "generation", "verify",
};

static const char *state_val(const struct nm_event_state *e, unsigned k)
{
	const struct nm_status *s = &e->s;

	switch (k) {
	case K_ROLE:	return s->role_str;
	case K_CONN:	return s->conn_str;
	case K_DISK:	return s->disk_str;
	case K_PDISK:	return s->peer_disk_str;
	case K_SUSP:	return e->suspended ? "yes" : "no";
	case K_IO:	return s->ngroups > NM_SF_io ? s->io : NULL;
	case K_ERR:	return s->ngroups > NM_SF_last_error ? s->last_error : NULL;
	case K_GEN:	return s->ngroups > NM_SF_generation ? s->generation : NULL;
	case K_VERIFY:	return s->ngroups > NM_SF_verify ? s->verify : NULL;
	}
	return NULL;
}

static void state_kv(struct out *w, unsigned flags, unsigned k,
		     const char *v)
{
	if (k == K_SUSP && (flags & NM_EVENT_JSON))
		emit(w, ",\"suspended\":%s", strcmp(v, "yes") ? "false" : "true");
	else
		kv_word(w, flags, state_key[k], v);
}

static int resyncing(const struct nm_status *s)
{
	return s->conn == DMNET_CONN_SYNC_SOURCE ||
	       s->conn == DMNET_CONN_SYNC_TARGET;
}

static int verifying(const struct nm_status *s)
{
	return s->ngroups > NM_SF_verify_eta && !strcmp(s->verify, "running");
}

static void sync_kv(struct out *w, unsigned flags, const struct nm_status *s,
		    int rate)
{
	kv_pct(w, flags, "sync_percent", nm_status_sync_percent(s));
	kv_num(w, flags, "in_sync_regions", s->in_sync_regions);
	kv_num(w, flags, "total_regions", s->total_regions);
	if (rate && s->ngroups > NM_SF_eta_seconds) {
		kv_num(w, flags, "resync_kibs", s->resync_kibs);
		kv_num(w, flags, "eta_seconds", s->eta_seconds);
	}
}

static void verify_kv(struct out *w, unsigned flags, const struct nm_status *s)
{
	kv_pct(w, flags, "verify_percent", s->verify_total ?
	       100.0 * (double)s->verify_sectors / (double)s->verify_total :
	       100.0);
	kv_num(w, flags, "verify_sectors", s->verify_sectors);
	kv_num(w, flags, "verify_total", s->verify_total);
	kv_num(w, flags, "verify_diffs", s->verify_diffs);
	kv_num(w, flags, "verify_kibs", s->verify_kibs);
	kv_num(w, flags, "verify_eta", s->verify_eta);
}

/* The progress line, if there is progress to show. */
static void progress(struct out *w, const char *name,
		     const struct nm_event_state *prev,
		     const struct nm_event_state *cur, unsigned flags,
		     const char *time)
{
	const struct nm_status *s = &cur->s, *p = prev ? &prev->s : NULL;
	int rs, ov;

	rs = p ? s->in_sync_regions != p->in_sync_regions ||
		 s->total_regions != p->total_regions : resyncing(s);
	ov = s->ngroups > NM_SF_verify_eta &&
	     (p ? (verifying(s) || verifying(p)) &&
		  (s->verify_sectors != p->verify_sectors ||
		   s->verify_diffs != p->verify_diffs ||
		   strcmp(s->verify, p->verify)) : verifying(s));
	if (!rs && !ov)
		return;
	line_start(w, "progress", name, flags, time);
	if (rs)
		sync_kv(w, flags, s, 1);
	if (ov)
		verify_kv(w, flags, s);
	line_end(w, flags);
}

int nm_event_lines(const char *name, const struct nm_event_state *prev,
		   const struct nm_event_state *cur, unsigned flags,
		   const char *time, char *buf, size_t len)
{
	struct out w = { buf, len, 0, 0 };
	unsigned k, n = 0;
	const char *v, *pv;

	if (!len)
		return -ENOSPC;
	buf[0] = '\0';
	if (!cur) {
		line_start(&w, "destroy", name, flags, time);
		line_end(&w, flags);
		return w.err ? w.err : (int)w.o;
	}
	if (!prev) {
		line_start(&w, (flags & NM_EVENT_CREATE) ? "create" : "exists",
			   name, flags, time);
		for (k = 0; k < K_COUNT; k++)
			if ((v = state_val(cur, k)))
				state_kv(&w, flags, k, v);
		sync_kv(&w, flags, &cur->s, 0);
		line_end(&w, flags);
		progress(&w, name, NULL, cur, flags, time);
		return w.err ? w.err : (int)w.o;
	}
	for (k = 0; k < K_COUNT; k++) {
		v = state_val(cur, k);
		pv = state_val(prev, k);
		if (!v || (pv && !strcmp(v, pv)))
			continue;
		if (!n++)
			line_start(&w, "change", name, flags, time);
		state_kv(&w, flags, k, v);
	}
	if (n)
		line_end(&w, flags);
	progress(&w, name, prev, cur, flags, time);
	return w.err ? w.err : (int)w.o;
}

/* "exists -": the end of the state dumped when following starts. */
int nm_event_exists_end(unsigned flags, const char *time, char *buf,
			size_t len)
{
	struct out w = { buf, len, 0, 0 };

	if (!len)
		return -ENOSPC;
	buf[0] = '\0';
	if (flags & NM_EVENT_JSON) {
		emit(&w, "{\"event\":\"exists\"");
		if (time) {
			emit(&w, ",\"time\":");
			emit_jstr(&w, time);
		}
		emit(&w, "}\n");
	} else {
		emit(&w, "%s%sexists -\n", time ? time : "", time ? " " : "");
	}
	return w.err ? w.err : (int)w.o;
}

/* A person's progress line: "[####......]  45.0%  4.0 MiB/s  ETA 0:00:12". */
static void bar(struct out *w, double pct, unsigned width)
{
	unsigned i, fill;

	if (pct < 0)
		pct = 0;
	if (pct > 100)
		pct = 100;
	fill = (unsigned)(pct * width / 100);
	emit(w, "[");
	for (i = 0; i < width; i++)
		emit(w, "%c", i < fill ? '#' : '.');
	emit(w, "] %5.1f%%", pct);
}

int nm_progress_bar(double pct, unsigned width, char *buf, size_t len)
{
	struct out w = { buf, len, 0, 0 };

	if (!len)
		return -ENOSPC;
	buf[0] = '\0';
	bar(&w, pct, width);
	return w.err ? w.err : (int)w.o;
}

static void rate_eta(struct out *w, uint64_t kibs, uint64_t eta)
{
	if (kibs)
		emit(w, "  %.1f MiB/s  ETA %" PRIu64 ":%02" PRIu64 ":%02" PRIu64,
		     (double)kibs / 1024.0, eta / 3600, eta / 60 % 60, eta % 60);
	else
		emit(w, "  -- MiB/s  ETA --:--:--");
}

int nm_status_progress(const struct nm_status *s, enum nm_progress_kind k,
		       unsigned width, char *buf, size_t len)
{
	struct out w = { buf, len, 0, 0 };

	if (!len)
		return -ENOSPC;
	buf[0] = '\0';
	if (k == NM_PROGRESS_RESYNC) {
		if (!resyncing(s))
			return 0;
		bar(&w, nm_status_sync_percent(s), width);
		/* 1.1 modules have no rate: the bar alone */
		if (s->ngroups > NM_SF_eta_seconds)
			rate_eta(&w, s->resync_kibs,
				 s->resync_kibs ? s->eta_seconds : 0);
	} else {
		if (!verifying(s))
			return 0;
		bar(&w, s->verify_total ? 100.0 * (double)s->verify_sectors /
		    (double)s->verify_total : 100.0, width);
		rate_eta(&w, s->verify_kibs, s->verify_kibs ? s->verify_eta : 0);
		emit(&w, "  %" PRIu64 " blocks differ", s->verify_diffs);
	}
	return w.err ? w.err : (int)w.o;
}
