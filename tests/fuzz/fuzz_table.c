// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer target for libdmnet's pure parsers: table params, full table
 * lines, status lines and the config file.  Checks, besides memory safety:
 *   - every accepted table formats, and the formatted text re-parses to
 *     the identical struct and formats to the identical text (canonical
 *     form is a fixed point);
 *   - every accepted status line reprints and re-parses identically.
 * The first input byte selects the parser so one corpus serves all.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "libdmnet.h"

static void check_table(const char *s, int line)
{
	char err[NM_ERRLEN], b1[NM_LINE_MAX], b2[NM_LINE_MAX];
	struct nm_table t, t2;
	int n1, n2;

	memset(&t, 0, sizeof(t));
	if (line ? nm_table_parse_line(s, &t, err, sizeof(err)) :
		   nm_table_parse(s, &t, err, sizeof(err)))
		return;
	n1 = line ? nm_table_format_line(&t, b1, sizeof(b1)) :
		    nm_table_format(&t, b1, sizeof(b1));
	if (n1 < 0)
		abort();
	memset(&t2, 0, sizeof(t2));
	if (line ? nm_table_parse_line(b1, &t2, err, sizeof(err)) :
		   nm_table_parse(b1, &t2, err, sizeof(err)))
		abort();
	if (memcmp(&t, &t2, sizeof(t)))
		abort();
	n2 = line ? nm_table_format_line(&t2, b2, sizeof(b2)) :
		    nm_table_format(&t2, b2, sizeof(b2));
	if (n1 != n2 || strcmp(b1, b2))
		abort();
}

static void check_status(const char *s)
{
	char err[NM_ERRLEN], b1[NM_LINE_MAX * 2], b2[NM_LINE_MAX * 2];
	struct nm_status st, st2;

	if (nm_status_parse(s, &st, err, sizeof(err)))
		return;
	if (nm_status_format(&st, b1, sizeof(b1)) < 0)
		abort();
	if (nm_status_parse(b1, &st2, err, sizeof(err)))
		abort();
	if (nm_status_format(&st2, b2, sizeof(b2)) < 0 || strcmp(b1, b2))
		abort();
	if (nm_status_format_json(&st, "x", b2, sizeof(b2)) < 0)
		abort();
}

static struct nm_conf conf;

static void check_conf(const char *s)
{
	char err[NM_ERRLEN], dev[NM_NAME_MAX], buf[NM_LINE_MAX];
	struct nm_table t;
	unsigned i, h;

	if (nm_conf_parse(s, "fuzz.conf", &conf, err, sizeof(err)))
		return;
	for (i = 0; i < conf.nres; i++)
		for (h = 0; h < conf.res[i].nhosts; h++)
			if (!nm_conf_build_table(&conf.res[i], conf.res[i].hosts[h].name,
						 &t, dev, sizeof(dev), err, sizeof(err)) &&
			    nm_table_format(&t, buf, sizeof(buf)) < 0)
				abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s;

	if (size < 1 || size > 64 * 1024)
		return 0;
	s = malloc(size);
	if (!s)
		return 0;
	memcpy(s, data + 1, size - 1);
	s[size - 1] = '\0';
	switch (data[0] % 4) {
	case 0:
		check_table(s, 0);
		break;
	case 1:
		check_table(s, 1);
		break;
	case 2:
		check_status(s);
		break;
	case 3:
		check_conf(s);
		break;
	}
	free(s);
	return 0;
}
