/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Who reads a secondary's write stream under load, the receive worker or
 * the nm_conn thread: the pure part, shared by the kernel (nm_fastack.c)
 * and tests/unit/test_rxmode.c.
 *
 * The worker, queued on the CPU that received the writes, is the cheaper
 * reader while writes come one at a time: the write, its ack and the
 * writer's wakeup stay on one CPU.  When the writer keeps many writes in
 * flight and shares that CPU (both nodes on one machine, or a secondary
 * whose receiving CPU runs its own load), the worker takes the CPU after
 * each packet and the writer's depth collapses to one; the thread, woken
 * on another CPU, reads beside the writer instead.  Nothing the secondary
 * sees tells the two cases apart but the rate, so this controller measures
 * it: under load it tries the other reader for one window now and then,
 * and keeps whichever read more writes.
 *
 * Time is cut into windows of @win ticks, each closed by the first write
 * read at or after its end.  In the kept mode, after @wait loaded windows
 * it probes the other mode for one window and compares that window's rate
 * with the last kept window's: the other mode is kept if it read at least
 * 1/8 more; otherwise the wait before the next probe doubles, up to
 * NM_RXM_WAIT_MAX windows.  A light window (fewer than NM_RXM_MIN_N writes
 * per window's worth of time) goes back to the worker, whose latency is
 * the lower, and a rate that triples or falls to a third against the
 * first kept window after the last probe (a new load) makes the next
 * probe come after NM_RXM_WAIT_MIN windows.  The kernel's window is 50 ms: a probe costs at
 * most one window in NM_RXM_WAIT_MAX + 1 at the slower reader's rate.
 *
 * Context: the owner of the secondary's receive stream only (rx_work or
 * the nm_conn thread, handed over as nm_fastack.c describes), like rx_seq:
 * no lock.  Ticks are jiffies in the kernel; differences are unsigned, so
 * a wrap costs at most one misjudged window.
 */
#ifndef NM_RXMODE_H
#define NM_RXMODE_H

#ifdef __KERNEL__
#include <linux/types.h>
#endif
/* (userspace: the includer defines u8, u16, u32 and u64) */

enum nm_rxm_reader {
	NM_RXM_WORKER = 0,
	NM_RXM_THREAD = 1,
};

/* what closing a window did (the caller counts these) */
enum nm_rxm_event {
	NM_RXM_NONE = 0,
	NM_RXM_PROBE,		/* a probe window starts */
	NM_RXM_SWITCH,		/* the kept mode changed */
};

#define NM_RXM_MIN_N	16	/* writes per window: below, a light load */
#define NM_RXM_WAIT_MIN	4	/* loaded windows before a probe */
#define NM_RXM_WAIT_MAX	32

struct nm_rxmode {
	unsigned long t0;	/* start of the current window */
	unsigned long win;	/* window length, ticks (>= 1) */
	unsigned long keep_dt;	/* the last kept window: its length */
	u32 keep_n;		/* and its writes */
	unsigned long ref_dt;	/* the first kept window since a decision */
	u32 ref_n;		/* and its writes (0: none yet) */
	u32 n;			/* writes in the current window */
	u16 wait;		/* loaded windows before the next probe */
	u16 kept;		/* loaded windows since the last probe */
	u8 mode;		/* the kept reader */
	u8 probing;		/* this window runs the other reader */
};

static inline void nm_rxm_init(struct nm_rxmode *m, unsigned long now,
			       unsigned long win)
{
	m->t0 = now;
	m->win = win ? win : 1;
	m->keep_dt = 0;
	m->keep_n = 0;
	m->ref_dt = 0;
	m->ref_n = 0;
	m->n = 0;
	m->wait = NM_RXM_WAIT_MIN;
	m->kept = 0;
	m->mode = NM_RXM_WORKER;
	m->probing = 0;
}

/* The reader for the next packet. */
static inline enum nm_rxm_reader nm_rxm_reader(const struct nm_rxmode *m)
{
	return (enum nm_rxm_reader)(m->probing ? !m->mode : m->mode);
}

/* Is n writes in dt ticks less than NM_RXM_MIN_N per window? */
static inline int nm_rxm_light(const struct nm_rxmode *m, u32 n,
			       unsigned long dt)
{
	return (u64)n * m->win < (u64)NM_RXM_MIN_N * dt;
}

/* Closes the window that ended at @now (of @dt ticks). */
static inline enum nm_rxm_event nm_rxm_close(struct nm_rxmode *m,
					     unsigned long dt)
{
	enum nm_rxm_event ev = NM_RXM_NONE;
	int light = nm_rxm_light(m, m->n, dt);
	u64 a, b;

	if (m->probing) {
		m->probing = 0;
		m->kept = 0;
		m->ref_n = 0;
		/* the probe's rate against the last kept window's */
		if (!light &&
		    (u64)m->n * m->keep_dt * 8 >= (u64)m->keep_n * dt * 9) {
			m->mode = !m->mode;
			m->wait = NM_RXM_WAIT_MIN;
			ev = NM_RXM_SWITCH;
		} else if (m->wait < NM_RXM_WAIT_MAX) {
			m->wait *= 2;
		}
	} else if (light) {
		if (m->mode != NM_RXM_WORKER) {
			m->mode = NM_RXM_WORKER;
			ev = NM_RXM_SWITCH;
		}
		m->wait = NM_RXM_WAIT_MIN;
		m->kept = 0;
		m->keep_n = 0;
		m->ref_n = 0;
	} else {
		/*
		 * a new load: the rate tripled or fell to a third since the
		 * first kept window after the last decision
		 */
		a = (u64)m->n * m->ref_dt;
		b = (u64)m->ref_n * dt;
		if (!m->ref_n) {
			m->ref_n = m->n;
			m->ref_dt = dt;
		} else if (a > 3 * b || b > 3 * a) {
			m->wait = NM_RXM_WAIT_MIN;
			m->kept = 0;
			m->ref_n = m->n;
			m->ref_dt = dt;
		}
		m->keep_n = m->n;
		m->keep_dt = dt;
		if (++m->kept >= m->wait) {
			m->probing = 1;
			ev = NM_RXM_PROBE;
		}
	}
	m->n = 0;
	return ev;
}

/* One write read at @now: counts it, closes a window that is over. */
static inline enum nm_rxm_event nm_rxm_note(struct nm_rxmode *m,
					    unsigned long now)
{
	unsigned long dt = now - m->t0;

	m->n++;
	if (dt < m->win)
		return NM_RXM_NONE;
	m->t0 = now;
	return nm_rxm_close(m, dt);
}

#endif
