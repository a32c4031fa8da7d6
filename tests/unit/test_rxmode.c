// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the secondary's reader controller (dm-mirror-net/
 * nm_rxmode.h): a simulated writer whose rate depends on the reader in
 * use (as measured in this project's VM: one at a time the worker reads
 * about 3x the thread's rate, at depth 32 the thread about 1.7x the
 * worker's) must end up mostly on the faster reader, never probe at a
 * light load, come back to the worker when the load changes or stops,
 * and not flap between two equal readers.
 */
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
#include "nm_rxmode.h"

#define NM_CHECK_GROUP "test_rxmode"
#include "nmcheck.h"

#define HZ	250
#define WIN	(HZ / 20)

struct sim {
	struct nm_rxmode m;
	unsigned long now;
	double acc;
	unsigned long writes[2];	/* by reader */
	unsigned long ticks[2];		/* ticks spent with each reader */
	unsigned int probes, switches;
};

static void sim_init(struct sim *s, unsigned long start)
{
	memset(s, 0, sizeof(*s));
	s->now = start;
	nm_rxm_init(&s->m, start, WIN);
}

/* @ticks ticks of a writer at @rate[reader] writes per tick */
static void sim_run(struct sim *s, const double rate[2], unsigned long ticks)
{
	unsigned long t;
	enum nm_rxm_reader r;
	enum nm_rxm_event ev;

	for (t = 0; t < ticks; t++, s->now++) {
		r = nm_rxm_reader(&s->m);
		s->ticks[r]++;
		s->acc += rate[r];
		while (s->acc >= 1.0) {
			s->acc -= 1.0;
			s->writes[nm_rxm_reader(&s->m)]++;
			ev = nm_rxm_note(&s->m, s->now);
			s->probes += ev == NM_RXM_PROBE;
			s->switches += ev == NM_RXM_SWITCH;
		}
	}
}

static double frac(const struct sim *s, enum nm_rxm_reader r)
{
	return (double)s->ticks[r] / (double)(s->ticks[0] + s->ticks[1]);
}

int main(void)
{
	/* writes per tick (HZ 250): 4 KiB QD1 and QD32 of the bench */
	const double qd1[2] = { 4500.0 / HZ, 1557.0 / HZ };
	const double qd32[2] = { 4012.0 / HZ, 7115.0 / HZ };
	const double light[2] = { 100.0 / HZ, 100.0 / HZ };
	const double equal[2] = { 20.0, 20.0 };
	struct sim s;
	unsigned long t_switch;

	sim_init(&s, 1000);
	check("starts_with_worker", nm_rxm_reader(&s.m) == NM_RXM_WORKER);

	/* one at a time: the worker stays, probes back off */
	sim_run(&s, qd1, 10 * HZ);
	check("qd1_keeps_worker", s.m.mode == NM_RXM_WORKER && s.switches == 0);
	check("qd1_worker_most_of_the_time", frac(&s, NM_RXM_WORKER) >= 0.94);
	check("qd1_probes_back_off", s.probes >= 2 && s.probes <= 10 &&
	      s.m.wait == NM_RXM_WAIT_MAX);
	printf("# qd1: worker %.3f of the time, %u probes\n",
	       frac(&s, NM_RXM_WORKER), s.probes);

	/* depth 32: the thread is found and kept within a second */
	sim_init(&s, 1000);
	sim_run(&s, qd32, HZ);
	check("qd32_switches_to_thread_within_1s",
	      s.m.mode == NM_RXM_THREAD && s.switches == 1);
	sim_run(&s, qd32, 9 * HZ);
	check("qd32_thread_most_of_the_time", frac(&s, NM_RXM_THREAD) >= 0.85);
	check("qd32_stays_on_thread", s.m.mode == NM_RXM_THREAD &&
	      s.switches == 1);
	printf("# qd32: thread %.3f of the time, %u probes\n",
	       frac(&s, NM_RXM_THREAD), s.probes);

	/* then one at a time again: back to the worker within a second */
	memset(s.ticks, 0, sizeof(s.ticks));
	t_switch = s.now;
	while (s.m.mode != NM_RXM_WORKER && s.now - t_switch < 10 * HZ)
		sim_run(&s, qd1, 1);
	check("load_change_back_to_worker_within_1s",
	      s.m.mode == NM_RXM_WORKER && s.now - t_switch <= HZ);
	printf("# qd32 -> qd1: worker again after %lu ticks\n",
	       s.now - t_switch);

	/* a light load never probes */
	sim_init(&s, 1000);
	sim_run(&s, light, 10 * HZ);
	check("light_load_never_probes", s.probes == 0 && s.switches == 0 &&
	      frac(&s, NM_RXM_WORKER) == 1.0);

	/* the thread kept, then the writer stops: its next write, worker */
	sim_init(&s, 1000);
	sim_run(&s, qd32, 2 * HZ);
	check("idle_setup_on_thread", s.m.mode == NM_RXM_THREAD);
	s.now += 5 * HZ;
	nm_rxm_note(&s.m, s.now);
	check("idle_gap_back_to_worker",
	      s.m.mode == NM_RXM_WORKER && !s.m.probing &&
	      nm_rxm_reader(&s.m) == NM_RXM_WORKER);

	/* two equal readers: no switch, probes back off to the longest wait */
	sim_init(&s, 1000);
	sim_run(&s, equal, 20 * HZ);
	check("equal_rates_no_flapping", s.switches == 0 &&
	      s.m.wait == NM_RXM_WAIT_MAX);

	/* the tick counter wraps in the middle of a depth-32 load */
	sim_init(&s, ULONG_MAX - HZ / 2);
	sim_run(&s, qd32, 3 * HZ);
	check("tick_wrap_still_switches", s.m.mode == NM_RXM_THREAD &&
	      s.switches == 1);

	/* a window of zero ticks is taken as one */
	nm_rxm_init(&s.m, 5, 0);
	check("zero_window_is_one_tick", s.m.win == 1);
	return nm_check_done();
}
