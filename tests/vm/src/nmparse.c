// SPDX-License-Identifier: GPL-2.0-only
/*
 * nmparse - libdmnet's verdict on a table line or a target message, without
 * root or ioctls, for the guest tests that compare it with the kernel's
 * (guest-lib/tables.sh: agree/<name>).  Linked statically against
 * libdmnet.a (mkoverlay.sh builds it when libdmnet is built).
 *
 *   nmparse table "LINE"      "<start> <len> netmirror <params>" (one argument)
 *   nmparse message "WORDS"   "resync_rate 100" (one argument)
 *
 * Prints one line: "ok <canonical line>" (table) or "ok" (message) if
 * libdmnet accepts it, else "err <text>" (libdmnet's text, which is the
 * kernel's where the kernel checks the same thing).  Exit 0 either way;
 * 2 on a usage error.
 */
#include <stdio.h>
#include <string.h>

#include "libdmnet.h"

int main(int argc, char **argv)
{
	char err[NM_ERRLEN], buf[NM_LINE_MAX];
	struct nm_table t;

	if (argc != 3)
		goto usage;
	err[0] = '\0';
	if (!strcmp(argv[1], "table")) {
		if (nm_table_parse_line(argv[2], &t, err, sizeof(err)))
			printf("err %s\n", err);
		else if (nm_table_format_line(&t, buf, sizeof(buf)) < 0)
			printf("err (nm_table_format_line failed)\n");
		else
			printf("ok %s\n", buf);
		return 0;
	}
	if (!strcmp(argv[1], "message")) {
		if (nm_message_check(argv[2], err, sizeof(err)))
			printf("err %s\n", err);
		else
			printf("ok\n");
		return 0;
	}
usage:
	fprintf(stderr, "usage: nmparse table LINE | nmparse message WORDS\n");
	return 2;
}
