/* SPDX-License-Identifier: GPL-2.0 */
/*
 * netmirror discards: the part of a discard that a device discards in
 * whole units of its discard granularity.  A discard over [s, e) (device
 * sectors) covers the units [first, end), each @gran sectors long, their
 * boundaries at @off + k * @gran (@off the device's discard alignment,
 * reduced modulo @gran).  nm_zero_range() (nm_secondary.c) discards those
 * and writes zeroes over [s, first) and [end, e): a device may keep the
 * data under the part of a discard short of a unit (dm-thin does), and
 * then the two nodes would differ.
 *
 * A pure function shared by the kernel and the unit tests
 * (tests/unit/test_zero.c).  No includes: sectors are unsigned long long
 * (the module is built for 64-bit only: plain division).
 */
#ifndef NM_ZERO_H
#define NM_ZERO_H

/*
 * [*first, *end): the whole units in [s, e); false if there is none
 * (then *end == *first or below it).
 */
static inline int nm_zero_whole(unsigned long long s, unsigned long long e,
				unsigned int gran, unsigned int off,
				unsigned long long *first,
				unsigned long long *end)
{
	unsigned long long rs, re;

	if (!gran)
		gran = 1;
	off %= gran;
	/* (x + gran - off) % gran: x's distance past a unit boundary */
	rs = (s + gran - off) % gran;
	re = (e + gran - off) % gran;
	*first = rs ? s + (gran - rs) : s;
	*end = re > e ? *first : e - re;	/* re > e: no boundary <= e */
	return *first < *end;
}

#endif
