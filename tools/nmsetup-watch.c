// SPDX-License-Identifier: GPL-2.0-only
/*
 * nmsetup: the commands that follow a device until something happens:
 * wait-sync (until in sync), fence (held writes: the fence handler; in
 * sync again: the unfence handler) and events (every state change).
 * Each ends on SIGINT or SIGTERM.
 */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "nmsetup.h"

static volatile sig_atomic_t interrupted;

static void on_signal(int sig)
{
	(void)sig;
	interrupted = 1;
}


int cmd_wait_sync(void)
{
	char err[NM_ERRLEN], dev[NM_NAME_MAX];
	int tty = isatty(STDOUT_FILENO), r;
	double start = now(), last_t = start, last_print = 0, rate = 0;
	uint64_t last_sync = 0;
	int have_last = 0;
	struct nm_status s;

	r = resolve_name(g.argv[0], dev, sizeof(dev));
	if (r)
		return r;
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	for (;;) {
		double t = now(), pct, eta = -1, kibs = 0;
		int kernel = 0;
		const char *cs;

		r = nm_dm_status(dev, &s, err, sizeof(err));
		if (r) {
			if (tty)
				putchar('\n');
			return fail(dm_exit(r) == EX_CONFIG ? EX_DEVICE : dm_exit(r), "%s", err);
		}
		cs = s.conn == DMNET_CONN_OTHER ? s.conn_str : nm_conn_str(s.conn);
		pct = nm_status_sync_percent(&s);
		/* our own estimate from the in-sync progress */
		if (have_last && t > last_t && s.in_sync_regions >= last_sync) {
			double d = (double)(s.in_sync_regions - last_sync) / (t - last_t);

			rate = rate ? 0.7 * rate + 0.3 * d : d;
		}
		if (rate > 0)
			eta = (double)(s.total_regions - s.in_sync_regions) / rate;
		if (s.ngroups > NM_SF_eta_seconds) {
			/* dm-netmirror >= 1.2: the kernel's resync rate and ETA
			 * (rate 0 until it has measured one: keep ours) */
			kernel = 1;
			kibs = (double)s.resync_kibs;
			if (s.resync_kibs)
				eta = (double)s.eta_seconds;
		}
		if (tty) {
			char bar[64];

			nm_progress_bar(pct, 40, bar, sizeof(bar));
			printf("\r%s %s %-11s ", dev, bar, cs);
			if (kernel)
				printf("%8.1f MiB/s ", kibs / 1024.0);
			printf("ETA ");
			if (eta >= 0)
				print_eta((uint64_t)eta);
			else
				printf("--:--:--");
			printf(" ");
			fflush(stdout);
		} else if (t - last_print >= 5 || nm_status_is_synced(&s)) {
			printf("%s: %s %.1f%% (%" PRIu64 "/%" PRIu64 " regions)", dev, cs,
			       pct, s.in_sync_regions, s.total_regions);
			if (kernel)
				printf(" rate %.0f KiB/s", kibs);
			if (eta >= 0)
				printf(" eta %.0fs", eta);
			putchar('\n');
			fflush(stdout);
			last_print = t;
		}
		if (nm_status_is_synced(&s)) {
			if (tty)
				putchar('\n');
			return EX_OK;
		}
		if (interrupted || (g.wait_timeout > 0 && t - start >= g.wait_timeout)) {
			if (tty)
				putchar('\n');
			return fail(EX_TIMEOUT, "%s: %s after %.0fs: %.1f%% in sync, connection %s",
				    dev, interrupted ? "interrupted" : "timed out", t - start, pct, cs);
		}
		last_t = t;
		last_sync = s.in_sync_regions;
		have_last = 1;
		usleep(500 * 1000);
	}
}

/*
 * fence NAME --handler PROG [--unfence-handler UPROG] [--once]: DRBD's
 * resource-level fencing for a "fencing freeze" primary.  Waits for the
 * device's events; when its writes are held (io frozen) it runs PROG through
 * /bin/sh with NM_DEVICE, NM_PEER (the peer's address) and NM_ROLE in the
 * environment.  PROG fences the peer (runs "outdate" on it, or powers it
 * off) and answers with drbd's fence-peer exit codes: 3 the peer is
 * inconsistent already, 4 it is outdated now, 5 it is down or unreachable,
 * 7 it was powered off (STONITH): then "resume_io" releases the held
 * writes.  Any other code leaves them held (an administrator decides; the
 * link coming back releases them too).
 *
 * UPROG (DRBD 9's unfence-peer, crm-unfence-peer.sh) undoes the fence: it
 * runs, the same way, as soon as the device is connected with both disks
 * uptodate (the resync that followed the fence has ended), after each run
 * of PROG and once at the start (a fence left by an earlier run).  It is
 * driven by the same events as the fence, so it is not late by a polling
 * interval, and a state reached while PROG still ran is seen on the status
 * read after it.  A failed UPROG (non-zero exit) is run again while the
 * state holds, UNFENCE_RETRY seconds later, then at twice the last delay
 * (at most UNFENCE_RETRY_MAX seconds apart).
 *
 * --once: handle one freeze and exit (0 released, 3 not); with
 * --unfence-handler, exit 0 only once UPROG has succeeded after it.
 */
#define UNFENCE_RETRY 5
#define UNFENCE_RETRY_MAX 60

/* SIGALRM only interrupts the wait for an event (a retry is due) */
static void on_alarm(int sig)
{
	(void)sig;
}

static int fence_released(int code)
{
	return code == 3 || code == 4 || code == 5 || code == 7;
}

/* connected, both disks uptodate, nothing held: no copy is stale */
static int fence_all_uptodate(const struct nm_status *s)
{
	return s->conn == DMNET_CONN_CONNECTED && s->disk == DMNET_DISK_UPTODATE &&
	       s->peer_disk == DMNET_DISK_UPTODATE && strcmp(s->io, "frozen");
}

static int run_handler(const char *prog, const char *dev, const char *peer, const char *role)
{
	pid_t pid;
	int st;

	fflush(NULL);
	pid = fork();
	if (pid < 0)
		return -1;
	if (!pid) {
		setenv("NM_DEVICE", dev, 1);
		setenv("NM_PEER", peer, 1);
		setenv("NM_ROLE", role, 1);
		execl("/bin/sh", "sh", "-c", prog, (char *)NULL);
		_exit(127);
	}
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

int cmd_fence(void)
{
	char err[NM_ERRLEN], dev[NM_NAME_MAX], peer[64] = "", resp[256];
	struct sigaction sa = { .sa_handler = on_signal };	/* no SA_RESTART */
	struct sigaction sal = { .sa_handler = on_alarm };
	struct nm_status s;
	struct nm_table t;
	uint32_t ev;
	int r, handled = 0;
	/* UPROG to run at the next all-uptodate state; --once: exit after it */
	int unfence_due = !!g.unfence, once_done = 0;
	unsigned retry = UNFENCE_RETRY;		/* s until the next try */
	double not_before = 0;			/* of that try (now()) */

	if (!g.handler)
		die_usage("fence needs --handler PROG");
	r = resolve_name(g.argv[0], dev, sizeof(dev));
	if (r)
		return r;
	r = nm_dm_table(dev, &t, err, sizeof(err));
	if (r)
		return fail(dm_exit(r) == EX_CONFIG ? EX_DEVICE : dm_exit(r), "%s", err);
	if (t.fencing != DMNET_FENCING_FREEZE)
		return fail(EX_CONFIG, "%s: the table has no \"fencing freeze\": nothing is ever held", dev);
	nm_format_addr(&t.peer, peer, sizeof(peer));
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigemptyset(&sal.sa_mask);
	sigaction(SIGALRM, &sal, NULL);
	for (;;) {
		int frozen, code, due;

		r = nm_dm_status_event(dev, &s, &ev, err, sizeof(err));
		if (r)
			return fail(dm_exit(r) == EX_CONFIG ? EX_DEVICE : dm_exit(r), "%s", err);
		frozen = s.ngroups > NM_SF_io && !strcmp(s.io, "frozen");
		if (!frozen)
			handled = 0;	/* a new freeze gets the handler again */
		if (frozen && !handled) {
			handled = 1;
			alarm(0);
			printf("%s: writes held (peer %s lost): running the fence handler\n", dev, peer);
			code = run_handler(g.handler, dev, peer, nm_role_str(s.role));
			if (code < 0)
				return fail(EX_DEVICE, "%s: cannot run the fence handler: %s", dev, strerror(errno));
			/* whatever it did, it is undone once no copy is stale */
			unfence_due = !!g.unfence;
			retry = UNFENCE_RETRY;
			not_before = 0;
			if (fence_released(code)) {
				printf("%s: fence handler exit %d (peer fenced): resume_io\n", dev, code);
				r = nm_dm_message(dev, "resume_io", resp, sizeof(resp), err,
						  sizeof(err));
				/* the link may have come back meanwhile: nothing held */
				if (r && nm_dm_status(dev, &s, err, sizeof(err)) == 0 &&
				    strcmp(s.io, "frozen"))
					r = 0;
				if (r)
					return fail(EX_DEVICE, "%s: resume_io: %s", dev, err);
				if (g.once && !g.unfence)
					return EX_OK;
				once_done = g.once;
			} else {
				printf("%s: fence handler exit %d: the peer is not fenced, writes stay held "
				       "(resume_io once it is, or the link comes back)\n", dev, code);
				if (g.once)
					return fail(EX_DEVICE, "%s: not fenced (handler exit %d)", dev, code);
			}
			fflush(stdout);
			continue;	/* its status again: the event may be ours */
		}
		due = unfence_due && s.ngroups > NM_SF_io && fence_all_uptodate(&s);
		if (due && now() < not_before) {
			/* after a failed try, another event came first: the
			 * next try when its delay is over */
			alarm((unsigned)(not_before - now()) + 1);
		} else if (due) {
			printf("%s: connected, both disks uptodate: running the unfence handler\n", dev);
			code = run_handler(g.unfence, dev, peer, nm_role_str(s.role));
			if (code < 0)
				return fail(EX_DEVICE, "%s: cannot run the unfence handler: %s", dev,
					    strerror(errno));
			if (code == 0) {
				printf("%s: unfence handler exit 0 (peer unfenced)\n", dev);
				unfence_due = 0;
				retry = UNFENCE_RETRY;
				alarm(0);
				if (once_done)
					return EX_OK;
			} else {
				printf("%s: unfence handler exit %d: again in %u s\n", dev, code,
				       retry);
				not_before = now() + retry;
				alarm(retry);
				retry = retry * 2 > UNFENCE_RETRY_MAX ? UNFENCE_RETRY_MAX : retry * 2;
			}
			fflush(stdout);
			continue;	/* the state may have changed meanwhile */
		}
		if (interrupted)
			return EX_OK;
		r = nm_dm_wait_event(dev, ev, err, sizeof(err));
		if (interrupted)
			return EX_OK;
		if (r && r != -EINTR)
			return fail(dm_exit(r) == EX_CONFIG ? EX_DEVICE : dm_exit(r), "%s", err);
	}
}

/*
 * events [NAME|RESOURCE] [--json] [--now] [--timestamps]: the state of
 * NAME (or of every netmirror device), "exists -", then one line per
 * change as it happens (libdmnet's nm_event_lines: change, progress,
 * create, destroy), in the manner of drbdsetup events2.  Each device is
 * followed by its dm table events (nm_dm_wait_event with the event
 * counter read in the same ioctl as the status, so no change is lost
 * between a read and the next wait); the module raises one for each state
 * change and for each 1% of a resync or verify, at most one a second.  dm
 * raises none when a resume clears its "suspended" flag: while a device
 * is suspended it is read again every second.  Without NAME, one child
 * process follows each device and the list of devices is read every 2 s
 * for new ones (create).  Ends with exit 0 on SIGINT/SIGTERM, or when
 * NAME is removed (destroy).
 */
static volatile sig_atomic_t ev_waiting;	/* a signal ends the wait */

static void ev_signal(int sig)
{
	if (sig == SIGALRM)
		return;			/* the suspended re-read */
	interrupted = 1;
	if (ev_waiting)
		_exit(EX_OK);		/* blocked in the wait: every line is out */
}

static void ev_signals(void)
{
	struct sigaction sa = { .sa_handler = ev_signal };	/* no SA_RESTART */

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGALRM, &sa, NULL);
}

/* ISO 8601 local time with microseconds, as drbdsetup --timestamps. */
static const char *ev_time(char *buf, size_t len)
{
	struct timespec ts;
	struct tm tm;
	char z[8];
	size_t n;

	if (!g.timestamps)
		return NULL;
	clock_gettime(CLOCK_REALTIME, &ts);
	localtime_r(&ts.tv_sec, &tm);
	n = strftime(buf, len, "%Y-%m-%dT%H:%M:%S", &tm);
	strftime(z, sizeof(z), "%z", &tm);	/* +hhmm */
	snprintf(buf + n, len - n, ".%06ld%.3s:%.2s", ts.tv_nsec / 1000, z, z + 3);
	return buf;
}

/* One write per event: lines of several followers never interleave. */
static void ev_write(const char *buf, int n)
{
	while (n > 0) {
		ssize_t w = write(STDOUT_FILENO, buf, (size_t)n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			_exit(EX_DEVICE);	/* the reader is gone */
		buf += w;
		n -= (int)w;
	}
}

static void ev_print(const char *name, const struct nm_event_state *prev,
		     const struct nm_event_state *cur, unsigned flags)
{
	char line[NM_LINE_MAX * 2], t[64];
	int n = nm_event_lines(name, prev, cur, flags | (g.json ? NM_EVENT_JSON : 0),
			       ev_time(t, sizeof(t)), line, sizeof(line));

	if (n > 0)
		ev_write(line, n);
}

static void ev_print_end(void)
{
	char line[128], t[64];
	int n = nm_event_exists_end(g.json ? NM_EVENT_JSON : 0,
				    ev_time(t, sizeof(t)), line, sizeof(line));

	if (n > 0)
		ev_write(line, n);
}

/* NAME's state now (*st) and its event counter; 0, or -ENODEV etc. */
static int ev_read(const char *name, struct nm_event_state *st, uint32_t *ev,
		   char *err, size_t errlen)
{
	struct nm_dm_info info;
	int r = nm_dm_status_info(name, &st->s, &info, err, errlen);

	if (!r) {
		st->suspended = info.suspended;
		*ev = info.event_nr;
	}
	return r;
}

/* Follow NAME from *st (event counter ev) until it goes or a signal. */
static int ev_follow(const char *name, struct nm_event_state *st, uint32_t ev)
{
	struct nm_event_state cur;
	char err[NM_ERRLEN];
	int r;

	for (;;) {
		if (st->suspended)
			alarm(1);
		ev_waiting = 1;
		if (interrupted)
			return EX_OK;
		r = nm_dm_wait_event(name, ev, err, sizeof(err));
		ev_waiting = 0;
		alarm(0);
		if (interrupted)
			return EX_OK;
		if (r && r != -EINTR && r != -ENODEV)
			return fail(EX_DEVICE, "%s", err);
		r = ev_read(name, &cur, &ev, err, sizeof(err));
		if (r == -ENODEV) {
			ev_print(name, st, NULL, 0);
			return EX_OK;
		}
		if (r)
			return fail(dm_exit(r) == EX_CONFIG ? EX_DEVICE : dm_exit(r), "%s", err);
		ev_print(name, st, &cur, 0);
		*st = cur;
	}
}

/* Every device: one follower process each. */
struct ev_dev {
	char name[NM_NAME_MAX];
	pid_t pid;			/* 0: not followed (yet) */
	uint32_t ev;
	struct nm_event_state st;
};

static struct {
	struct ev_dev *d;
	size_t n, cap;
} evs;

static int ev_list_cb(const char *name, void *arg)
{
	size_t i;

	(void)arg;
	for (i = 0; i < evs.n; i++)
		if (!strcmp(evs.d[i].name, name))
			return 0;
	if (evs.n == evs.cap) {
		size_t cap = evs.cap ? evs.cap * 2 : 16;
		struct ev_dev *d = realloc(evs.d, cap * sizeof(*d));

		if (!d)
			return -ENOMEM;
		evs.d = d;
		evs.cap = cap;
	}
	memset(&evs.d[evs.n], 0, sizeof(evs.d[0]));
	snprintf(evs.d[evs.n].name, sizeof(evs.d[0].name), "%s", name);
	evs.d[evs.n].pid = -1;		/* new: to read and print */
	evs.n++;
	return 0;
}

/* New entries (pid -1): read, print exists/create; keep those readable. */
static void ev_take_new(unsigned flags)
{
	char err[NM_ERRLEN];
	size_t i, k = 0;

	for (i = 0; i < evs.n; i++) {
		struct ev_dev *e = &evs.d[i];

		if (e->pid == -1) {
			if (ev_read(e->name, &e->st, &e->ev, err, sizeof(err)))
				continue;	/* gone already, or not ours */
			ev_print(e->name, NULL, &e->st, flags);
			e->pid = 0;
		}
		evs.d[k++] = *e;
	}
	evs.n = k;
}

static void ev_fork_all(void)
{
	size_t i;

	for (i = 0; i < evs.n; i++) {
		struct ev_dev *e = &evs.d[i];
		pid_t pid;

		if (e->pid)
			continue;
		pid = fork();
		if (pid == 0)
			_exit(ev_follow(e->name, &e->st, e->ev));
		if (pid < 0)
			fprintf(stderr, "nmsetup: %s: cannot fork a follower: %s\n",
				e->name, strerror(errno));
		e->pid = pid > 0 ? pid : 0;
	}
}

static int ev_all(void)
{
	char err[NM_ERRLEN];
	size_t i, k;
	pid_t pid;
	int r, st;

	r = nm_dm_list(ev_list_cb, NULL, err, sizeof(err));
	if (r)
		return fail(EX_DEVICE, "%s", err);
	ev_take_new(0);
	ev_print_end();
	if (g.now)
		return EX_OK;
	ev_fork_all();
	while (!interrupted) {
		nanosleep(&(struct timespec){ .tv_sec = 2 }, NULL);
		if (interrupted)
			break;
		/* a follower ended (destroy): the name may come back */
		while ((pid = waitpid(-1, &st, WNOHANG)) > 0) {
			for (i = k = 0; i < evs.n; i++)
				if (evs.d[i].pid != pid)
					evs.d[k++] = evs.d[i];
			evs.n = k;
		}
		if (nm_dm_list(ev_list_cb, NULL, err, sizeof(err)))
			continue;	/* next time */
		ev_take_new(NM_EVENT_CREATE);
		ev_fork_all();
	}
	for (i = 0; i < evs.n; i++)
		if (evs.d[i].pid > 0)
			kill(evs.d[i].pid, SIGTERM);
	while (wait(NULL) > 0 || errno == EINTR)
		;
	return EX_OK;
}

int cmd_events(void)
{
	char err[NM_ERRLEN], dev[NM_NAME_MAX];
	struct nm_event_state st;
	uint32_t ev;
	int r;

	ev_signals();
	if (!g.argc)
		return ev_all();
	r = resolve_name(g.argv[0], dev, sizeof(dev));
	if (r)
		return r;
	r = ev_read(dev, &st, &ev, err, sizeof(err));
	if (r)
		return fail(dm_exit(r) == EX_CONFIG ? EX_DEVICE : dm_exit(r), "%s", err);
	ev_print(dev, NULL, &st, 0);
	ev_print_end();
	if (g.now)
		return EX_OK;
	return ev_follow(dev, &st, ev);
}
