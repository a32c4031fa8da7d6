// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * netmirror status model.  Pure code (no ioctls, no libdevmapper).
 *
 * Forward compatibility: fields are only ever appended by newer modules.
 * Known groups are parsed; anything after them is kept verbatim in
 * s->extra.  Older modules may stop after any group from the fourth on.
 * Unknown connection/disk state words are accepted (*_OTHER, raw word kept)
 * so that a newer module with a new state still parses.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "libdmnet.h"
#include "internal.h"

#define STATE_STR(ID, w) #w,
static const char *const conn_names[] = { NM_CSTATE_WORDS(STATE_STR) };
static const char *const disk_names[] = { NM_DISK_WORDS(STATE_STR) };

_Static_assert(NELEM(conn_names) == DMNET_CONN_OTHER, "connection words");
_Static_assert(NELEM(disk_names) == DMNET_DISK_OTHER, "disk words");

const char *nm_conn_str(enum dmnet_conn c)
{
	return (unsigned)c < NELEM(conn_names) ? conn_names[c] : "other";
}

const char *nm_disk_str(enum dmnet_disk d)
{
	return (unsigned)d < NELEM(disk_names) ? disk_names[d] : "other";
}

static int is_ident(const char *s)
{
	if (!*s)
		return 0;
	for (; *s; s++)
		if (!(islower((unsigned char)*s) || *s == '_' ||
		      isdigit((unsigned char)*s)))
			return 0;
	return 1;
}

static int state_word(const char *w, const char *const *names, size_t n,
		      char *raw, size_t rawlen, int other)
{
	size_t i;

	snprintf(raw, rawlen, "%s", w);
	for (i = 0; i < n; i++)
		if (!strcmp(names[i], w))
			return (int)i;
	return other;
}

#define SF_NAME(name, ...) #name,
static const char *const group_names[] = { NM_STATUS_FIELDS(SF_NAME) };
_Static_assert(NELEM(group_names) == NM_SF_COUNT, "status fields");

/* The numeric groups (all but role/conn/disks/regions/last_error). */
static uint64_t *num_field(struct nm_status *s, unsigned g)
{
	switch (g) {
	case NM_SF_writes_sent:		return &s->writes_sent;
	case NM_SF_writes_received:	return &s->writes_received;
	case NM_SF_pending:		return &s->pending;
	case NM_SF_bytes_sent:		return &s->bytes_sent;
	case NM_SF_bytes_received:	return &s->bytes_received;
	case NM_SF_writes_rejected:	return &s->writes_rejected;
	case NM_SF_resync_kibs:		return &s->resync_kibs;
	case NM_SF_eta_seconds:			return &s->eta_seconds;
	case NM_SF_resync_bytes:	return &s->resync_bytes;
	case NM_SF_verify_sectors:	return &s->verify_sectors;
	case NM_SF_verify_total:	return &s->verify_total;
	case NM_SF_verify_diffs:	return &s->verify_diffs;
	case NM_SF_verify_kibs:		return &s->verify_kibs;
	case NM_SF_verify_eta:		return &s->verify_eta;
	case NM_SF_resync_marked:	return &s->resync_marked;
	case NM_SF_resync_compared:	return &s->resync_compared;
	case NM_SF_resync_sent:		return &s->resync_sent;
	case NM_SF_unconfirmed:		return &s->unconfirmed;
	default:			return NULL;
	}
}

int nm_status_parse(const char *params, struct nm_status *out, char *err,
		    size_t errlen)
{
	struct nm_status s;
	struct nm_words w;
	char word[NM_STATUS_EXTRA_MAX];
	unsigned g;
	int r;

	memset(&s, 0, sizeof(s));
	nm_words_init(&w, params, 0);

	for (g = 0; g < NM_SF_COUNT; g++) {
		char *slash;

		r = nm_words_next(&w, word, NM_STATUS_WORD_MAX * 2 + 1, err, errlen);
		if (r < 0)
			return r;
		if (!r) {
			if (g < NM_STATUS_MIN_GROUPS) {
				nm_seterr(err, errlen, "word %u: missing %s (status needs at least %d fields)",
					  w.idx + 1, group_names[g], NM_STATUS_MIN_GROUPS);
				return -EINVAL;
			}
			break;
		}
		switch (g) {
		case NM_SF_role:
			if (nm_role_parse(word, &s.role)) {
				nm_seterr(err, errlen, "word %u \"%.40s\": role must be primary or secondary",
					  w.idx, word);
				return -EINVAL;
			}
			strcpy(s.role_str, nm_role_str(s.role));
			break;
		case NM_SF_connection:
			if (strlen(word) >= NM_STATUS_WORD_MAX || !is_ident(word)) {
				nm_seterr(err, errlen, "word %u \"%.40s\": bad connection state",
					  w.idx, word);
				return -EINVAL;
			}
			s.conn = (enum dmnet_conn)state_word(word, conn_names,
				NELEM(conn_names), s.conn_str, sizeof(s.conn_str),
				DMNET_CONN_OTHER);
			break;
		case NM_SF_disks:
			slash = strchr(word, '/');
			if (!slash) {
				nm_seterr(err, errlen, "word %u \"%.40s\": expected disk/peer_disk",
					  w.idx, word);
				return -EINVAL;
			}
			*slash = '\0';
			if (strlen(word) >= NM_STATUS_WORD_MAX || !is_ident(word) ||
			    strlen(slash + 1) >= NM_STATUS_WORD_MAX ||
			    !is_ident(slash + 1)) {
				*slash = '/';
				nm_seterr(err, errlen, "word %u \"%.40s\": bad disk state",
					  w.idx, word);
				return -EINVAL;
			}
			s.disk = (enum dmnet_disk)state_word(word, disk_names,
				NELEM(disk_names), s.disk_str, sizeof(s.disk_str),
				DMNET_DISK_OTHER);
			s.peer_disk = (enum dmnet_disk)state_word(slash + 1,
				disk_names, NELEM(disk_names), s.peer_disk_str,
				sizeof(s.peer_disk_str), DMNET_DISK_OTHER);
			break;
		case NM_SF_regions:
			slash = strchr(word, '/');
			if (slash)
				*slash = '\0';
			if (!slash || nm_parse_u64(word, &s.in_sync_regions) ||
			    nm_parse_u64(slash + 1, &s.total_regions)) {
				if (slash)
					*slash = '/';
				nm_seterr(err, errlen, "word %u \"%.40s\": expected in_sync/total region counts",
					  w.idx, word);
				return -EINVAL;
			}
			if (s.in_sync_regions > s.total_regions) {
				*slash = '/';
				nm_seterr(err, errlen, "word %u \"%.40s\": in_sync regions exceed total",
					  w.idx, word);
				return -EINVAL;
			}
			break;
		case NM_SF_last_error: {
			const char *p;

			for (p = word; *p; p++)
				if (!isgraph((unsigned char)*p) || *p == '"' || *p == '\\')
					break;
			if (*p || strlen(word) >= sizeof(s.last_error)) {
				nm_seterr(err, errlen, "word %u \"%.40s\": bad last_error word",
					  w.idx, word);
				return -EINVAL;
			}
			strcpy(s.last_error, word);
			break;
		}
		case NM_SF_generation:
			if (strcmp(word, "-") &&
			    (strlen(word) != 16 ||
			     strspn(word, "0123456789abcdef") != 16)) {
				nm_seterr(err, errlen, "word %u \"%.40s\": generation must be 16 hex digits or -",
					  w.idx, word);
				return -EINVAL;
			}
			strcpy(s.generation, word);
			break;
		case NM_SF_io:
			if (strlen(word) >= sizeof(s.io) || !is_ident(word)) {
				nm_seterr(err, errlen, "word %u \"%.40s\": bad io state",
					  w.idx, word);
				return -EINVAL;
			}
			strcpy(s.io, word);
			break;
		case NM_SF_verify:
			if (strlen(word) >= sizeof(s.verify) || !is_ident(word)) {
				nm_seterr(err, errlen, "word %u \"%.40s\": bad verify state",
					  w.idx, word);
				return -EINVAL;
			}
			strcpy(s.verify, word);
			break;
		default:
			if (nm_parse_u64(word, num_field(&s, g))) {
				nm_seterr(err, errlen, "word %u \"%.40s\": %s must be a decimal number",
					  w.idx, word, group_names[g]);
				return -EINVAL;
			}
			break;
		}
		s.ngroups = g + 1;
	}

	/* Keep any further words verbatim (newer module). */
	for (;;) {
		size_t o = strlen(s.extra), n;

		r = nm_words_next(&w, word, sizeof(word), err, errlen);
		if (r < 0)
			return r;
		if (!r)
			break;
		n = strlen(word);
		if (o + n + (o ? 1 : 0) >= sizeof(s.extra)) {
			nm_seterr(err, errlen, "word %u: extra status fields too long", w.idx);
			return -EINVAL;
		}
		if (o)
			s.extra[o++] = ' ';
		memcpy(s.extra + o, word, n + 1);
		s.nextra++;
	}
	*out = s;
	return 0;
}

#define EMIT(...) do {							\
	int _n = snprintf(buf + o, len - o, __VA_ARGS__);		\
	if (_n < 0 || (size_t)_n >= len - o)				\
		return -ENOSPC;						\
	o += (size_t)_n;						\
} while (0)

int nm_status_format(const struct nm_status *s, char *buf, size_t len)
{
	struct nm_status c = *s;
	size_t o = 0;
	unsigned g;

	if (!len)
		return -ENOSPC;
	buf[0] = '\0';
	if (s->ngroups < NM_STATUS_MIN_GROUPS || s->ngroups > NM_SF_COUNT)
		return -EINVAL;
	EMIT("%s %s %s/%s %" PRIu64 "/%" PRIu64, nm_role_str(s->role),
	     s->conn == DMNET_CONN_OTHER ? s->conn_str : nm_conn_str(s->conn),
	     s->disk == DMNET_DISK_OTHER ? s->disk_str : nm_disk_str(s->disk),
	     s->peer_disk == DMNET_DISK_OTHER ? s->peer_disk_str :
	     nm_disk_str(s->peer_disk),
	     s->in_sync_regions, s->total_regions);
	for (g = NM_SF_writes_sent; g < s->ngroups; g++) {
		if (g == NM_SF_last_error)
			EMIT(" %s", s->last_error);
		else if (g == NM_SF_generation)
			EMIT(" %s", s->generation);
		else if (g == NM_SF_io)
			EMIT(" %s", s->io);
		else if (g == NM_SF_verify)
			EMIT(" %s", s->verify);
		else
			EMIT(" %" PRIu64, *num_field(&c, g));
	}
	if (s->nextra)
		EMIT(" %s", s->extra);
	return (int)o;
}

int nm_status_format_json(const struct nm_status *s, const char *name,
			  char *buf, size_t len)
{
	struct nm_status c = *s;
	size_t o = 0;
	unsigned g;

	if (!len)
		return -ENOSPC;
	buf[0] = '\0';
	EMIT("{");
	if (name) {
		const char *p;

		EMIT("\"name\":\"");
		for (p = name; *p; p++) {
			if (*p == '"' || *p == '\\')
				EMIT("\\%c", *p);
			else if ((unsigned char)*p < 0x20)
				EMIT("\\u%04x", (unsigned char)*p);
			else
				EMIT("%c", *p);
		}
		EMIT("\",");
	}
	/* State words are [a-z0-9_] by construction: no escaping needed. */
	EMIT("\"role\":\"%s\",\"connection\":\"%s\",\"disk\":\"%s\","
	     "\"peer_disk\":\"%s\",\"in_sync_regions\":%" PRIu64
	     ",\"total_regions\":%" PRIu64 ",\"sync_percent\":%.2f",
	     nm_role_str(s->role),
	     s->conn == DMNET_CONN_OTHER ? s->conn_str : nm_conn_str(s->conn),
	     s->disk == DMNET_DISK_OTHER ? s->disk_str : nm_disk_str(s->disk),
	     s->peer_disk == DMNET_DISK_OTHER ? s->peer_disk_str :
	     nm_disk_str(s->peer_disk),
	     s->in_sync_regions, s->total_regions, nm_status_sync_percent(s));
	/* last_error has no '"', '\\' or control characters by construction;
	 * the JSON keys are the group names. */
	for (g = NM_SF_writes_sent; g < s->ngroups; g++) {
		if (g == NM_SF_last_error)
			EMIT(",\"last_error\":\"%s\"", s->last_error);
		else if (g == NM_SF_generation)
			EMIT(",\"generation\":\"%s\"", s->generation);
		else if (g == NM_SF_io)
			EMIT(",\"io\":\"%s\"", s->io);
		else if (g == NM_SF_verify)
			EMIT(",\"verify\":\"%s\"", s->verify);
		else
			EMIT(",\"%s\":%" PRIu64, group_names[g], *num_field(&c, g));
	}
	if (s->nextra) {
		const char *p;

		EMIT(",\"extra\":\"");
		for (p = s->extra; *p; p++) {
			if (*p == '"' || *p == '\\')
				EMIT("\\%c", *p);
			else if ((unsigned char)*p < 0x20)
				EMIT("\\u%04x", (unsigned char)*p);
			else
				EMIT("%c", *p);
		}
		EMIT("\"");
	}
	EMIT("}");
	return (int)o;
}

double nm_status_sync_percent(const struct nm_status *s)
{
	if (!s->total_regions)
		return 100.0;
	return 100.0 * (double)s->in_sync_regions / (double)s->total_regions;
}

int nm_status_is_synced(const struct nm_status *s)
{
	return s->conn == DMNET_CONN_CONNECTED &&
	       s->in_sync_regions == s->total_regions;
}
