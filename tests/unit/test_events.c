// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of libdmnet's events model (events.c): the lines "nmsetup
 * events" prints for a transition between two status lines (exists,
 * change, progress, destroy, text and JSON), and the progress bar line of
 * "nmsetup status" for a resync and a verify.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "libdmnet.h"

#define NM_CHECK_GROUP "test_events"
#include "nmcheck.h"

static char out[8192];

static int st(struct nm_event_state *e, const char *line, int suspended)
{
	char err[NM_ERRLEN];

	memset(e, 0, sizeof(*e));
	e->suspended = suspended;
	if (nm_status_parse(line, &e->s, err, sizeof(err))) {
		printf("parse \"%s\": %s\n", line, err);
		return -1;
	}
	return 0;
}

/* lines(prev, cur, flags, time) == want */
static void eq(const char *name, const struct nm_event_state *prev,
	       const struct nm_event_state *cur, unsigned flags,
	       const char *time, const char *want)
{
	int n = nm_event_lines("nma", prev, cur, flags, time, out, sizeof(out));
	int ok = n == (int)strlen(want) && !strcmp(out, want);

	if (!ok)
		printf("  got  [%s] (%d)\n  want [%s]\n", out, n, want);
	check(name, ok);
}

#define TAIL " 0 0 0 0 0 0 - 0 0 0 - running none 0 0 0 0 0"

int main(void)
{
	struct nm_event_state a, b, c, d, v1, v2, old;
	char err[NM_ERRLEN];
	int n;

	if (st(&a, "primary connecting uptodate/unknown 8/8" TAIL, 0) ||
	    st(&b, "primary sync_source uptodate/inconsistent 2/8 0 0 0 0 0 0 - 4096 3 0 - running none 0 0 0 0 0", 0) ||
	    st(&c, "primary sync_source uptodate/inconsistent 6/8 0 0 0 0 0 0 - 4096 1 0 - running none 0 0 0 0 0", 0) ||
	    st(&d, "primary connected uptodate/uptodate 8/8 0 0 0 0 0 0 - 0 0 0 0123456789abcdef running none 0 0 0 0 0", 1) ||
	    st(&v1, "primary connected uptodate/uptodate 8/8 0 0 0 0 0 0 - 0 0 0 - running running 100 400 0 2048 1", 0) ||
	    st(&v2, "primary connected uptodate/uptodate 8/8 0 0 0 0 0 0 - 0 0 0 - running done 400 400 2 0 0", 0) ||
	    st(&old, "secondary connected uptodate/uptodate 4/4 1 2 3 4 5", 0)) {
		check("parse", 0);
		return nm_check_done();
	}

	eq("exists_text", NULL, &a, 0, NULL,
	   "exists device name:nma role:primary connection:connecting disk:uptodate peer_disk:unknown"
	   " suspended:no io:running last_error:- generation:- verify:none"
	   " sync_percent:100.00 in_sync_regions:8 total_regions:8\n");
	eq("create_json", NULL, &a, NM_EVENT_JSON | NM_EVENT_CREATE, NULL,
	   "{\"event\":\"create\",\"name\":\"nma\",\"role\":\"primary\",\"connection\":\"connecting\","
	   "\"disk\":\"uptodate\",\"peer_disk\":\"unknown\",\"suspended\":false,\"io\":\"running\","
	   "\"last_error\":\"-\",\"generation\":\"-\",\"verify\":\"none\",\"sync_percent\":100.00,"
	   "\"in_sync_regions\":8,\"total_regions\":8}\n");
	/* exists during a resync: the progress follows */
	eq("exists_resyncing", NULL, &b, 0, NULL,
	   "exists device name:nma role:primary connection:sync_source disk:uptodate peer_disk:inconsistent"
	   " suspended:no io:running last_error:- generation:- verify:none"
	   " sync_percent:25.00 in_sync_regions:2 total_regions:8\n"
	   "progress device name:nma sync_percent:25.00 in_sync_regions:2 total_regions:8"
	   " resync_kibs:4096 eta_seconds:3\n");
	eq("change_and_progress", &a, &b, 0, NULL,
	   "change device name:nma connection:sync_source peer_disk:inconsistent\n"
	   "progress device name:nma sync_percent:25.00 in_sync_regions:2 total_regions:8"
	   " resync_kibs:4096 eta_seconds:3\n");
	eq("progress_only", &b, &c, 0, NULL,
	   "progress device name:nma sync_percent:75.00 in_sync_regions:6 total_regions:8"
	   " resync_kibs:4096 eta_seconds:1\n");
	eq("progress_json", &b, &c, NM_EVENT_JSON, NULL,
	   "{\"event\":\"progress\",\"name\":\"nma\",\"sync_percent\":75.00,\"in_sync_regions\":6,"
	   "\"total_regions\":8,\"resync_kibs\":4096,\"eta_seconds\":1}\n");
	/* the end: state words, dm's flag, the generation; the last progress */
	eq("resync_end_json", &c, &d, NM_EVENT_JSON, NULL,
	   "{\"event\":\"change\",\"name\":\"nma\",\"connection\":\"connected\",\"peer_disk\":\"uptodate\","
	   "\"suspended\":true,\"generation\":\"0123456789abcdef\"}\n"
	   "{\"event\":\"progress\",\"name\":\"nma\",\"sync_percent\":100.00,\"in_sync_regions\":8,"
	   "\"total_regions\":8,\"resync_kibs\":0,\"eta_seconds\":0}\n");
	eq("nothing_changed", &c, &c, 0, NULL, "");
	/* counters alone are no event */
	b = c;
	b.s.writes_sent = 99;
	b.s.bytes_received = 7;
	eq("counters_no_event", &c, &b, 0, NULL, "");
	eq("destroy_text", &d, NULL, 0, NULL, "destroy device name:nma\n");
	eq("destroy_json_time", &d, NULL, NM_EVENT_JSON, "2026-12-01T11:00:00.000001+00:00",
	   "{\"event\":\"destroy\",\"time\":\"2026-12-01T11:00:00.000001+00:00\",\"name\":\"nma\"}\n");
	eq("change_time_text", &d, &a, 0, "T",
	   "T change device name:nma connection:connecting peer_disk:unknown suspended:no generation:-\n");
	/* a verify: progress while running and at its end */
	eq("verify_progress", &d, &v1, 0, NULL,
	   "change device name:nma suspended:no generation:- verify:running\n"
	   "progress device name:nma verify_percent:25.00 verify_sectors:100 verify_total:400"
	   " verify_diffs:0 verify_kibs:2048 verify_eta:1\n");
	eq("verify_done", &v1, &v2, NM_EVENT_JSON, NULL,
	   "{\"event\":\"change\",\"name\":\"nma\",\"verify\":\"done\"}\n"
	   "{\"event\":\"progress\",\"name\":\"nma\",\"verify_percent\":100.00,\"verify_sectors\":400,"
	   "\"verify_total\":400,\"verify_diffs\":2,\"verify_kibs\":0,\"verify_eta\":0}\n");
	/* an old module (5 fields): no keys it does not have */
	eq("old_module", NULL, &old, 0, NULL,
	   "exists device name:nma role:secondary connection:connected disk:uptodate peer_disk:uptodate"
	   " suspended:no sync_percent:100.00 in_sync_regions:4 total_regions:4\n");
	/* a name that needs escaping in JSON */
	n = nm_event_lines("a\"b\\c", &d, NULL, NM_EVENT_JSON, NULL, out, sizeof(out));
	check("json_name_escaped", n > 0 &&
	      !strcmp(out, "{\"event\":\"destroy\",\"name\":\"a\\\"b\\\\c\"}\n"));
	check("too_small", nm_event_lines("nma", NULL, &a, 0, NULL, out, 20) == -ENOSPC);
	n = nm_event_exists_end(0, NULL, out, sizeof(out));
	check("exists_end_text", n == 9 && !strcmp(out, "exists -\n"));
	n = nm_event_exists_end(NM_EVENT_JSON, NULL, out, sizeof(out));
	check("exists_end_json", n > 0 && !strcmp(out, "{\"event\":\"exists\"}\n"));

	/* nmsetup status: the progress bar lines */
	n = nm_status_progress(&b.s, NM_PROGRESS_RESYNC, 8, out, sizeof(out));
	check("bar_resync", n > 0 &&
	      !strcmp(out, "[######..]  75.0%  4.0 MiB/s  ETA 0:00:01"));
	if (strcmp(out, "[######..]  75.0%  4.0 MiB/s  ETA 0:00:01"))
		printf("  got [%s]\n", out);
	c.s.resync_kibs = 0;
	n = nm_status_progress(&c.s, NM_PROGRESS_RESYNC, 8, out, sizeof(out));
	check("bar_resync_no_rate_yet", n > 0 &&
	      !strcmp(out, "[######..]  75.0%  -- MiB/s  ETA --:--:--"));
	check("bar_resync_not_running",
	      nm_status_progress(&d.s, NM_PROGRESS_RESYNC, 8, out, sizeof(out)) == 0);
	n = nm_status_progress(&v1.s, NM_PROGRESS_VERIFY, 4, out, sizeof(out));
	check("bar_verify", n > 0 &&
	      !strcmp(out, "[#...]  25.0%  2.0 MiB/s  ETA 0:00:01  0 blocks differ"));
	if (strcmp(out, "[#...]  25.0%  2.0 MiB/s  ETA 0:00:01  0 blocks differ"))
		printf("  got [%s]\n", out);
	check("bar_verify_done_none",
	      nm_status_progress(&v2.s, NM_PROGRESS_VERIFY, 4, out, sizeof(out)) == 0);
	b.s.eta_seconds = 3725;
	n = nm_status_progress(&b.s, NM_PROGRESS_RESYNC, 0, out, sizeof(out));
	check("bar_eta_hours", n > 0 && !strcmp(out, "[]  75.0%  4.0 MiB/s  ETA 1:02:05"));
	n = nm_progress_bar(150.0, 4, out, sizeof(out));
	check("bar_clamped", n > 0 && !strcmp(out, "[####] 100.0%"));
	check("bar_too_small", nm_progress_bar(50.0, 40, out, 10) == -ENOSPC);
	(void)err;
	return nm_check_done();
}
