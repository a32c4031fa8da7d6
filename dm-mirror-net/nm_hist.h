/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Latency histograms of the write path's stages (the "latency" message):
 * the pure part, shared by the kernel and tests/unit/test_hist.c.
 *
 * A value in microseconds goes to one of NM_HIST_BUCKETS buckets: 0..7 us
 * one bucket each, then four buckets per power of two (so a bucket is at
 * most 25% wide); values from 2^31 us up share the last bucket.
 * nm_hist_lower() is a bucket's smallest value; a percentile is reported as
 * the lower bound of the bucket it falls in.
 */
#ifndef NM_HIST_H
#define NM_HIST_H

#ifdef __KERNEL__
#include <linux/types.h>
#include <linux/bitops.h>
#else
#include <stdint.h>
typedef uint64_t u64;
static inline int fls64(u64 x)
{
	return x ? 64 - __builtin_clzll(x) : 0;
}
#endif

#define NM_HIST_BUCKETS	120

static inline unsigned int nm_hist_bucket(u64 us)
{
	unsigned int e, idx;

	if (us < 8)
		return (unsigned int)us;
	e = fls64(us) - 1;		/* 3.. */
	idx = 8 + (e - 3) * 4 + (unsigned int)((us >> (e - 2)) & 3);
	return idx < NM_HIST_BUCKETS ? idx : NM_HIST_BUCKETS - 1;
}

static inline u64 nm_hist_lower(unsigned int idx)
{
	unsigned int e;

	if (idx < 8)
		return idx;
	e = (idx - 8) / 4 + 3;
	return ((u64)4 + (idx - 8) % 4) << (e - 2);
}

/*
 * The bucket holding the pct-th percentile (0 < pct <= 100) of @n counts
 * (total @total > 0): its lower bound in us.
 */
static inline u64 nm_hist_pct(const u64 *n, u64 total, unsigned int pct)
{
	u64 want = (total * pct + 99) / 100, seen = 0;
	unsigned int i;

	if (!want)
		want = 1;
	for (i = 0; i < NM_HIST_BUCKETS; i++) {
		seen += n[i];
		if (seen >= want)
			return nm_hist_lower(i);
	}
	return nm_hist_lower(NM_HIST_BUCKETS - 1);
}

/* Stages, in the order the "latency" message prints them (nm_lat_names). */
enum nm_lat_stage {
	/* primary: map to its P_DATA sent */
	NM_LAT_p_queue,
	/* primary: P_DATA sent to its peer part done (A: sent, B: P_RECV_ACK, C: P_WRITE_ACK) */
	NM_LAT_p_peer,
	/* primary: map to the write's completion */
	NM_LAT_p_total,
	/* secondary: fixed part read to the write submitted (payload, allocation, overlaps) */
	NM_LAT_s_recv,
	/* secondary: submitted to completed on its disk */
	NM_LAT_s_disk,
	/* secondary: completed to its ack sent (C; failures under A and B) */
	NM_LAT_s_ack,
	NM_LAT_COUNT
};

#endif
