/*
 * rtrun: hold the kernel's own threads off the CPUs for a moment, so that
 * a test can order two events that otherwise race (a request queued for a
 * thread, and a state change that thread must not send first).
 *
 *   rtrun --hog PRIO CPU MS        spin on CPU under SCHED_FIFO PRIO for MS
 *                                  milliseconds (or until killed)
 *   rtrun --pid PID PRIO           put process PID under SCHED_FIFO PRIO, or
 *                                  back to SCHED_OTHER with PRIO 0 (a test
 *                                  shell, whose later children inherit it)
 *
 * Threads of the normal class (kthreads included) do not run on a CPU
 * where a hog spins, unless RT throttling gives them its share: a test
 * writes -1 to /proc/sys/kernel/sched_rt_runtime_us for the moment and
 * writes the old value back after.  A process with a higher PRIO than the
 * hogs (the test's shell, --pid) preempts them whenever it can run.  Exit
 * status 0, or 2 on bad arguments or a failed system call.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int num(const char *s, long lo, long hi, long *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < lo || v > hi)
		return -1;
	*out = v;
	return 0;
}

static int policy(pid_t pid, long prio)
{
	struct sched_param sp = { .sched_priority = (int)prio };

	if (sched_setscheduler(pid, prio ? SCHED_FIFO : SCHED_OTHER, &sp)) {
		fprintf(stderr, "rtrun: pid %d, priority %ld: %s\n", (int)pid, prio,
			strerror(errno));
		return -1;
	}
	return 0;
}



static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int hog(long prio, long cpu, long ms)
{
	cpu_set_t set;
	double end;

	CPU_ZERO(&set);
	CPU_SET((int)cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set)) {
		fprintf(stderr, "rtrun: CPU %ld: %s\n", cpu, strerror(errno));
		return 2;
	}
	if (policy(0, prio))
		return 2;
	end = now() + ms / 1000.0;
	while (now() < end)
		;
	return 0;
}

int main(int argc, char **argv)
{
	long prio, cpu, ms;

	if (argc == 5 && !strcmp(argv[1], "--hog")) {
		if (num(argv[2], 1, 99, &prio) || num(argv[3], 0, CPU_SETSIZE - 1, &cpu) ||
		    num(argv[4], 1, 600000, &ms)) {
			fprintf(stderr, "rtrun: --hog PRIO(1..99) CPU MS\n");
			return 2;
		}
		return hog(prio, cpu, ms);
	}
	if (argc == 4 && !strcmp(argv[1], "--pid")) {
		long pid;

		if (num(argv[2], 1, 1L << 22, &pid) || num(argv[3], 0, 99, &prio)) {
			fprintf(stderr, "rtrun: --pid PID PRIO(0..99)\n");
			return 2;
		}
		return policy((pid_t)pid, prio) ? 2 : 0;
	}
	fprintf(stderr, "usage: rtrun --hog PRIO CPU MS | rtrun --pid PID PRIO\n");
	return 2;
}

