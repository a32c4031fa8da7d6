/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The unit tests' reporter: one line "PASS|FAIL <case>" on stdout per
 * case, and with $NM_RESULTS set "PASS|FAIL unit/<group>/<case>" appended
 * to that file (scripts/summarize.sh counts them).  NM_CHECK_GROUP names
 * the test; nm_check_done() prints the total and gives the exit status.
 */
#ifndef NM_UNIT_CHECK_H
#define NM_UNIT_CHECK_H

#include <stdio.h>
#include <stdlib.h>

static int nm_check_passed, nm_check_failed;

static void check(const char *name, int ok)
{
	const char *res = getenv("NM_RESULTS");
	FILE *f;

	printf("%s %s\n", ok ? "PASS" : "FAIL", name);
	if (ok)
		nm_check_passed++;
	else
		nm_check_failed++;
	if (res && (f = fopen(res, "a"))) {
		fprintf(f, "%s unit/%s/%s\n", ok ? "PASS" : "FAIL",
			NM_CHECK_GROUP, name);
		fclose(f);
	}
}

static int nm_check_done(void)
{
	printf("%s: %d passed, %d failed\n", NM_CHECK_GROUP, nm_check_passed,
	       nm_check_failed);
	return nm_check_failed != 0;
}

#endif
