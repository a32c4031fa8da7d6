// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests for libdmnet's pure models: table, status, config file.
 * One output line per case; with $NM_RESULTS set, appends
 * "PASS unit/test_table/<case>" or "FAIL ..." per case.  Exit 1 on failure.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libdmnet.h"
#pragma GCC diagnostic ignored "-Wformat-truncation"	/* FAILWHY details */
#include "nm_wire.h"	/* both headers in one file: no clashing names */

static unsigned npass, nfail;
static FILE *results;
static const char *group = "test_table";	/* unit/<group>/<case> */

static void report(int ok, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#include <stdarg.h>
static void report_detail(int ok, const char *name, const char *detail)
{
	printf("%s %s%s%s%s%s\n", ok ? "PASS" : "FAIL",
	       strcmp(group, "test_table") ? group : "",
	       strcmp(group, "test_table") ? "/" : "", name,
	       detail && *detail ? ": " : "", detail ? detail : "");
	if (results)
		fprintf(results, "%s unit/%s/%s\n", ok ? "PASS" : "FAIL", group, name);
	if (ok)
		npass++;
	else
		nfail++;
}

static char detail[8192];

static void report(int ok, const char *fmt, ...)
{
	char name[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(name, sizeof(name), fmt, ap);
	va_end(ap);
	report_detail(ok, name, ok ? NULL : detail);
	detail[0] = '\0';
}

#define FAILWHY(...) snprintf(detail, sizeof(detail), __VA_ARGS__)

/* ---------------------------------------------------------------- */
/* Table: valid lines that must round-trip unchanged (canonical).    */

static const char *const canonical[] = {
	"/dev/vdb 169.254.0.2:7789 C flush",
	"8:16 10.0.0.1:1 A drain",
	"/dev/mapper/vg-lv 255.255.255.255:65535 B none",
	"0:0 0.0.0.0:7789 C flush",
	"4095:1048575 1.2.3.4:7789 C flush",
	"/dev/disk/by-id/virtio-x_y.z 1.2.3.4:7789 C flush",
	"/dev/vdb [::1]:7789 C flush",
	"/dev/vdb [fe80::1]:7789 C drain",
	"/dev/vdb [2001:db8::1:0:0:1]:7789 A none",
	"/dev/vdb [::ffff:1.2.3.4]:7789 C flush",
	"/dev/vdb [2001:db8::42]:7789 C flush 2 role primary",
	"/dev/vdb 1.2.3.4:7789 C flush 2 listen 0.0.0.0:7789",
	"/dev/vdb [::2]:7789 C flush 2 listen [::]:7789",
	"/dev/vdb 1.2.3.4:7789 B drain 4 listen 1.2.3.5:7789 role primary",
	"/dev/vdb 1.2.3.4:7789 C flush 2 meta /dev/vdc",
	"/dev/vdb 1.2.3.4:7789 C flush 2 meta 252:3",
	"/dev/vdb 1.2.3.4:7789 C flush 2 meta internal",
	"/dev/vdb 1.2.3.4:7789 A drain 4 meta internal region_size 128",
	"/dev/vdb 1.2.3.4:7789 C flush 2 region_size 8",
	"/dev/vdb 1.2.3.4:7789 C flush 2 region_size 2048",
	"/dev/vdb 1.2.3.4:7789 C flush 2 sync none",
	"/dev/vdb 1.2.3.4:7789 C flush 2 sync full",
	"/dev/vdb 1.2.3.4:7789 C flush 2 resync_rate 0",
	"/dev/vdb 1.2.3.4:7789 C flush 2 resync_rate 1",
	"/dev/vdb 1.2.3.4:7789 C flush 2 resync_rate 4294967295",
	"/dev/vdb 1.2.3.4:7789 C flush 2 timeout 6000",
	"/dev/vdb 1.2.3.4:7789 C flush 2 ping 1000",
	"/dev/vdb 1.2.3.4:7789 C flush 4 timeout 500 ping 100",
	"/dev/vdb 1.2.3.4:7789 C flush 4 timeout 600000 ping 60000",
	"/dev/vdb 1.2.3.4:7789 C flush 2 on_io_error detach",
	"/dev/vdb 1.2.3.4:7789 C flush 2 on_io_error pass_on",
	"/dev/vdb 1.2.3.4:7789 C flush 2 integrity crc32c",
	"/dev/vdb 1.2.3.4:7789 C flush 2 secret netmirror:r0",
	"/dev/vdb 1.2.3.4:7789 C flush 6 role primary region_size 1024 secret k",
	"/dev/vdb 1.2.3.4:7789 C flush 22 listen 1.2.3.5:7789 role primary "
	"meta /dev/vdc region_size 1024 sync none resync_rate 10240 timeout 6000 "
	"ping 1000 on_io_error pass_on integrity crc32c secret netmirror:r0",
};

/* Accepted non-canonical input -> canonical output. */
static const struct { const char *in, *out; } canon_map[] = {
	{ "  /dev/vdb   1.2.3.4:7789  C  flush  ", "/dev/vdb 1.2.3.4:7789 C flush" },
	{ "/dev/vdb\t1.2.3.4:7789\tC\tflush\n", "/dev/vdb 1.2.3.4:7789 C flush" },
	{ "/dev/vdb 1.2.3.4:7789 C flush 0", "/dev/vdb 1.2.3.4:7789 C flush" },
	{ "/dev/vdb 1.2.3.4:7789 C flush 2 role secondary", "/dev/vdb 1.2.3.4:7789 C flush" },
	{ "/dev/vdb 1.2.3.4:7789 C flush 4 role secondary listen 1.2.3.5:7789",
	  "/dev/vdb 1.2.3.4:7789 C flush 2 listen 1.2.3.5:7789" },
	{ "/dev/vdb 1.2.3.4:7789 C flush 4 role primary listen 1.2.3.5:7789",
	  "/dev/vdb 1.2.3.4:7789 C flush 4 listen 1.2.3.5:7789 role primary" },
	{ "/dev/vdb [0:0::1]:7789 C flush", "/dev/vdb [::1]:7789 C flush" },
	{ "/dev/vdb [2001:DB8::1]:7789 C flush", "/dev/vdb [2001:db8::1]:7789 C flush" },
	{ "/dev/vdb [2001:db8:0:0:0:0:0:1]:7789 C flush", "/dev/vdb [2001:db8::1]:7789 C flush" },
	{ "/dev/vdb 1.2.3.4:7789 C flush 22 secret s integrity crc32c on_io_error detach "
	  "ping 500 timeout 600 resync_rate 7 sync full region_size 16 meta /dev/vdc "
	  "role secondary listen 1.2.3.5:1",
	  "/dev/vdb 1.2.3.4:7789 C flush 20 listen 1.2.3.5:1 meta /dev/vdc "
	  "region_size 16 sync full resync_rate 7 timeout 600 ping 500 on_io_error detach "
	  "integrity crc32c secret s" },
};

static void test_canonical(void)
{
	char buf[NM_LINE_MAX], err[NM_ERRLEN];
	struct nm_table t, t2;
	size_t i;

	for (i = 0; i < sizeof(canonical) / sizeof(canonical[0]); i++) {
		int ok = 0;

		if (nm_table_parse(canonical[i], &t, err, sizeof(err)))
			FAILWHY("parse \"%s\": %s", canonical[i], err);
		else if (nm_table_format(&t, buf, sizeof(buf)) < 0)
			FAILWHY("format failed");
		else if (strcmp(buf, canonical[i]))
			FAILWHY("got \"%s\"", buf);
		else if (nm_table_parse(buf, &t2, err, sizeof(err)) ||
			 memcmp(&t, &t2, sizeof(t)))
			FAILWHY("reparse differs");
		else
			ok = 1;
		report(ok, "roundtrip/%02zu", i + 1);
	}
	for (i = 0; i < sizeof(canon_map) / sizeof(canon_map[0]); i++) {
		int ok = 0;

		if (nm_table_parse(canon_map[i].in, &t, err, sizeof(err)))
			FAILWHY("parse: %s", err);
		else if (nm_table_format(&t, buf, sizeof(buf)) < 0)
			FAILWHY("format failed");
		else if (strcmp(buf, canon_map[i].out))
			FAILWHY("got \"%s\" want \"%s\"", buf, canon_map[i].out);
		else
			ok = 1;
		report(ok, "canonicalize/%02zu", i + 1);
	}
}

/* All protocol x ordering combinations, IPv4 and IPv6, as full lines. */
static void test_combinations(void)
{
	static const char *const protos[] = { "A", "B", "C" };
	static const char *const orders[] = { "flush", "drain", "none" };
	static const char *const peers[] = { "192.168.1.2:7789", "[fd00::2]:7789" };
	char line[NM_LINE_MAX], buf[NM_LINE_MAX], err[NM_ERRLEN];
	struct nm_table t;
	unsigned p, o, a;

	for (p = 0; p < 3; p++)
		for (o = 0; o < 3; o++)
			for (a = 0; a < 2; a++) {
				int ok = 0;

				snprintf(line, sizeof(line), "%u 2097152 netmirror /dev/vdb %s %s %s",
					 p * 8, peers[a], protos[p], orders[o]);
				if (nm_table_parse_line(line, &t, err, sizeof(err)))
					FAILWHY("%s", err);
				else if (nm_table_format_line(&t, buf, sizeof(buf)) < 0 ||
					 strcmp(buf, line))
					FAILWHY("got \"%s\"", buf);
				else if (t.start != p * 8 || t.len != 2097152 ||
					 (unsigned)t.protocol != p ||
					 (unsigned)t.ordering != o)
					FAILWHY("fields wrong");
				else
					ok = 1;
				report(ok, "line/%s-%s-%s", protos[p], orders[o],
				       a ? "v6" : "v4");
			}
}

static void test_fields(void)
{
	struct nm_table t;
	char err[NM_ERRLEN];
	int ok;

	ok = !nm_table_parse("/dev/vdb 1.2.3.4:7789 B drain 4 role primary listen 5.6.7.8:9",
			     &t, err, sizeof(err)) &&
	     !strcmp(t.local_dev, "/dev/vdb") && t.peer.family != 0 &&
	     t.peer.port == 7789 && t.peer.addr[0] == 1 && t.peer.addr[3] == 4 &&
	     t.protocol == DMNET_PROTO_B && t.ordering == DMNET_ORDER_DRAIN &&
	     t.role == DMNET_ROLE_PRIMARY && t.listen.port == 9 &&
	     t.opts == (NM_OPT_BIT(NM_OPT_ROLE) | NM_OPT_BIT(NM_OPT_LISTEN));
	if (!ok)
		FAILWHY("fields");
	report(ok, "fields/basic");

	nm_table_init(&t);
	ok = t.protocol == DMNET_PROTO_C && t.ordering == DMNET_ORDER_FLUSH &&
	     t.role == DMNET_ROLE_SECONDARY && t.opts == 0 && t.sync == DMNET_SYNC_FULL &&
	     t.on_io_error == DMNET_IOERR_DETACH;
	report(ok, "fields/defaults");

	ok = !nm_table_parse("/dev/vdb 1.2.3.4:7789 C flush", &t, err, sizeof(err)) &&
	     t.role == DMNET_ROLE_SECONDARY && t.opts == 0;
	report(ok, "fields/default-role");

	/* A struct built by hand formats and validates. */
	nm_table_init(&t);
	strcpy(t.local_dev, "/dev/sdb");
	ok = !nm_parse_addr("[::1]:1", &t.peer, err, sizeof(err)) &&
	     !nm_table_set_option(&t, "role", "primary", err, sizeof(err)) &&
	     !nm_table_set_option(&t, "region_size", "64", err, sizeof(err));
	{
		char buf[256];

		ok = ok && nm_table_format(&t, buf, sizeof(buf)) > 0 &&
		     !strcmp(buf, "/dev/sdb [::1]:1 C flush 4 role primary region_size 64");
		report(ok, "build/by-hand");
		ok = nm_table_format(&t, buf, 10) == -ENOSPC;
		report(ok, "build/enospc");
	}
	ok = nm_table_set_option(&t, "colour", "red", err, sizeof(err)) == -EINVAL &&
	     strstr(err, "Unknown optional argument \"colour\"");
	if (!ok)
		FAILWHY("%s", err);
	report(ok, "set_option/unknown");
	ok = nm_table_set_option(&t, "role", "boss", err, sizeof(err)) == -EINVAL &&
	     !strcmp(err, "Invalid role (want primary or secondary)");
	if (!ok)
		FAILWHY("%s", err);
	report(ok, "set_option/bad-value");

	/* Validation of hand-made structs. */
	nm_table_init(&t);
	strcpy(t.local_dev, "/dev/sdb");
	ok = nm_table_validate(&t, err, sizeof(err)) == -EINVAL &&
	     !strcmp(err, "Invalid peer address (want a.b.c.d:port or [v6]:port)");
	report(ok, "validate/no-peer");
	nm_parse_addr("1.2.3.4:5", &t.peer, NULL, 0);
	t.protocol = (enum dmnet_protocol)7;
	ok = nm_table_validate(&t, err, sizeof(err)) == -EINVAL &&
	     !strcmp(err, "Invalid protocol (want A, B or C)");
	report(ok, "validate/bad-protocol");
	t.protocol = DMNET_PROTO_A;
	t.opts = NM_OPT_BIT(NM_OPT_REGION_SIZE);
	t.region_size = 100;
	ok = nm_table_validate(&t, err, sizeof(err)) == -EINVAL &&
	     !strcmp(err, "Invalid region_size (want a power of two, 8..2048 sectors)");
	report(ok, "validate/bad-region");
	t.opts = 1u << 30;
	ok = nm_table_validate(&t, err, sizeof(err)) == -EINVAL &&
	     strstr(err, "unknown option bits");
	report(ok, "validate/unknown-bits");
}

static void test_versions(void)
{
	struct nm_table t;
	char err[NM_ERRLEN];
	const struct nm_opt_def *d;
	size_t n, i;
	int ok;

	d = nm_opt_defs(&n);
	ok = n == NM_OPT_COUNT && !strcmp(d[0].keyword, "listen") &&
	     !strcmp(d[1].keyword, "role") && d[0].min_minor <= NM_TARGET_MINOR &&
	     d[1].min_minor <= NM_TARGET_MINOR;
	/* meta, region_size, sync, resync_rate: 1.2; timeout, ping,
	 * integrity, secret: 1.3; on_io_error: 1.4; after_sb_*: 1.7;
	 * csums, verify_alg: 1.12; max_buffers: 1.15 */
	for (i = 2; i < n; i++)
		ok = ok && d[i].min_minor == (i < NM_OPT_TIMEOUT ? 2u :
					      i == NM_OPT_ON_IO_ERROR ? 4u :
					      i >= NM_OPT_MAX_BUFFERS ? 15u :
					      i >= NM_OPT_CSUMS ? 12u :
					      i >= NM_OPT_AFTER_SB_0PRI ? 7u : 3u) &&
		     (unsigned)d[i].id == i;
	ok = ok && NM_TARGET_MINOR >= 7;
	report(ok, "version/option-table");

	nm_table_parse("/dev/vdb 1.2.3.4:7789 C flush 4 listen 1.2.3.5:1 role primary",
		       &t, err, sizeof(err));
	ok = nm_table_required_minor(&t) <= 1 &&
	     !nm_table_check_version(&t, 1, 1, err, sizeof(err));
	report(ok, "version/1.1-ok");

	nm_table_parse("/dev/vdb 1.2.3.4:7789 C flush 4 role primary meta /dev/vdc",
		       &t, err, sizeof(err));
	ok = nm_table_required_minor(&t) == 2 &&
	     nm_table_check_version(&t, 1, 1, err, sizeof(err)) == -ENOTSUP &&
	     strstr(err, "option \"meta\" needs netmirror 1.2, loaded module is 1.1");
	if (!ok)
		FAILWHY("%s", err);
	report(ok, "version/meta-needs-1.2");
	ok = !nm_table_check_version(&t, 1, 2, err, sizeof(err)) &&
	     !nm_table_check_version(&t, 1, 7, err, sizeof(err));
	report(ok, "version/1.2-ok");
	ok = nm_table_check_version(&t, 2, 0, err, sizeof(err)) == -ENOTSUP &&
	     strstr(err, "needs major version 1");
	report(ok, "version/major");

	/* "meta internal": a value of the 1.2 row that needs 1.11 */
	ok = !nm_table_parse("/dev/vdb 1.2.3.4:7789 C flush 2 meta internal",
			     &t, err, sizeof(err)) &&
	     nm_table_meta_internal(&t) && !strcmp(t.meta, "internal") &&
	     nm_table_required_minor(&t) == NM_META_INTERNAL_SINCE &&
	     NM_META_INTERNAL_SINCE == 11 && NM_TARGET_MINOR >= 11 &&
	     nm_table_check_version(&t, 1, 10, err, sizeof(err)) == -ENOTSUP &&
	     strstr(err, "option \"meta internal\" needs netmirror 1.11, loaded module is 1.10") &&
	     !nm_table_check_version(&t, 1, 11, err, sizeof(err));
	if (!ok)
		FAILWHY("%s", err);
	report(ok, "version/meta-internal-needs-1.11");
	ok = !nm_table_parse("/dev/vdb 1.2.3.4:7789 C flush 2 meta /dev/vdc",
			     &t, err, sizeof(err)) &&
	     !nm_table_meta_internal(&t) && nm_table_required_minor(&t) == 2;
	report(ok, "version/meta-dev-still-1.2");
	/* set by keyword (CLI --meta, config file "meta internal;") */
	ok = !nm_table_parse("/dev/vdb 1.2.3.4:7789 C flush", &t, err,
			     sizeof(err)) &&
	     !nm_table_set_option(&t, "meta", "internal", err, sizeof(err)) &&
	     nm_table_meta_internal(&t);
	{
		char line[256];

		ok = ok && nm_table_format(&t, line, sizeof(line)) > 0 &&
		     strstr(line, " 2 meta internal") != NULL;
		if (!ok)
			FAILWHY("%s / %s", err, line);
	}
	report(ok, "meta-internal/set-option-and-format");
	/* the word matches exactly, like the kernel's (lower case) */
	ok = nm_table_parse("/dev/vdb 1.2.3.4:7789 C flush 2 meta Internal",
			    &t, err, sizeof(err)) == -EINVAL &&
	     !strcmp(err, "Cannot open metadata device");
	if (!ok)
		FAILWHY("%s", err);
	report(ok, "meta-internal/exact-word");

	nm_table_parse("/dev/vdb 1.2.3.4:7789 C flush 12 listen 1.2.3.5:1 role primary "
		       "meta /dev/vdc region_size 2048 sync none resync_rate 0",
		       &t, err, sizeof(err));
	ok = nm_table_required_minor(&t) == 2 &&
	     !nm_table_check_version(&t, 1, 2, err, sizeof(err));
	report(ok, "version/1.2-all-kernel-options");

	{
		static const struct { const char *opt; unsigned minor; } future[] = {
			{ "timeout 6000", 3 }, { "ping 1000", 3 },
			{ "integrity crc32c", 3 }, { "secret k", 3 },
			{ "on_io_error detach", 4 },
		};
		char line[256], want[128];

		for (i = 0; i < sizeof(future) / sizeof(future[0]); i++) {
			unsigned m = future[i].minor;
			int kw = (int)strcspn(future[i].opt, " ");

			snprintf(line, sizeof(line), "/dev/vdb 1.2.3.4:7789 C flush 2 %s", future[i].opt);
			snprintf(want, sizeof(want), "option \"%.*s\" needs netmirror 1.%u, loaded module is 1.%u",
				 kw, future[i].opt, m, m - 1);
			ok = !nm_table_parse(line, &t, err, sizeof(err)) &&
			     nm_table_required_minor(&t) == m &&
			     nm_table_check_version(&t, 1, m - 1, err, sizeof(err)) == -ENOTSUP &&
			     strstr(err, want) &&
			     !nm_table_check_version(&t, 1, m, err, sizeof(err));
			if (!ok)
				FAILWHY("%s: %s", future[i].opt, err);
			report(ok, "version/%.*s-needs-1.%u", kw, future[i].opt, m);
		}
	}
}

/* ---------------------------------------------------------------- */
/* Invalid lines: each must fail with its specific message.          */

#define P "/dev/vdb 1.2.3.4:7789 C flush"
static const struct { const char *in, *frag; } invalid[] = {
	{ "", "Not enough arguments (want <local_dev> <peer_addr> <protocol> <ordering>)" },
	{ "   ", "Not enough arguments (want <local_dev> <peer_addr> <protocol> <ordering>)" },
	{ "/dev/vdb", "Not enough arguments (want <local_dev> <peer_addr> <protocol> <ordering>)" },
	{ "/dev/vdb 1.2.3.4:7789", "Not enough arguments (want <local_dev> <peer_addr> <protocol> <ordering>)" },
	{ "/dev/vdb 1.2.3.4:7789 C", "Not enough arguments (want <local_dev> <peer_addr> <protocol> <ordering>)" },
	{ "vdb 1.2.3.4:7789 C flush", "Cannot open local device" },
	{ "8: 1.2.3.4:7789 C flush", "Cannot open local device" },
	{ ":16 1.2.3.4:7789 C flush", "Cannot open local device" },
	{ "8:016 1.2.3.4:7789 C flush", "Cannot open local device" },
	{ "-8:16 1.2.3.4:7789 C flush", "Cannot open local device" },
	{ "8:16:1 1.2.3.4:7789 C flush", "Cannot open local device" },
	{ "4096:0 1.2.3.4:7789 C flush", "Cannot open local device" },
	{ "8:1048576 1.2.3.4:7789 C flush", "Cannot open local device" },
	{ "/ 1.2.3.4:7789 C flush", "Cannot open local device" },
	{ "/dev/a\\b 1.2.3.4:7789 C flush", "Cannot open local device" },
	{ "/dev/a\x01 1.2.3.4:7789 C flush", "Cannot open local device" },
	/* only libdmnet checks these (the corpus has what the kernel checks) */
	{ P " 2 listen [::1]:1", "Listen and peer addresses must be of one family" },
	{ P " 2 secret a\\b", "Invalid secret (want a logon key description, 1..63 characters)" },
	{ P " 2 secret a%b", "Invalid secret (want a logon key description, 1..63 characters)" },
};

static const struct { const char *in, *frag; } invalid_line[] = {
	{ "", "word 1: missing start sector" },
	{ "0", "word 2: missing length" },
	{ "0 8", "word 3: missing target type" },
	{ "x 8 netmirror " P, "word 1 \"x\": start must be a decimal sector number" },
	{ "0 0 netmirror " P, "word 2 \"0\": length must be a decimal sector count > 0" },
	{ "0 -8 netmirror " P, "word 2 \"-8\": length must be a decimal sector count > 0" },
	{ "18446744073709551615 2 netmirror " P, "word 2 \"2\": start + length overflows" },
	{ "0 8 linear /dev/vdb 0", "word 3 \"linear\": target type must be \"netmirror\"" },
	{ "0 8 netmirror", "Not enough arguments (want <local_dev> <peer_addr> <protocol> <ordering>)" },
	{ "0 8 netmirror /dev/vdb 1.2.3.4:7789 D flush", "Invalid protocol (want A, B or C)" },
	{ "0 8 netmirror " P " 1", "Optional argument count does not match the words given" },
	{ "0 8 netmirror " P " 2 role x", "Invalid role (want primary or secondary)" },
};

static void test_invalid(void)
{
	char err[NM_ERRLEN];
	struct nm_table t;
	size_t i;

	for (i = 0; i < sizeof(invalid) / sizeof(invalid[0]); i++) {
		int r = nm_table_parse(invalid[i].in, &t, err, sizeof(err));
		int ok = r == -EINVAL && strstr(err, invalid[i].frag);

		if (!ok)
			FAILWHY("\"%s\": r=%d err=\"%s\" want \"%s\"", invalid[i].in,
				r, r ? err : "", invalid[i].frag);
		report(ok, "invalid/%02zu", i + 1);
	}
	for (i = 0; i < sizeof(invalid_line) / sizeof(invalid_line[0]); i++) {
		int r = nm_table_parse_line(invalid_line[i].in, &t, err, sizeof(err));
		int ok = r == -EINVAL && strstr(err, invalid_line[i].frag);

		if (!ok)
			FAILWHY("\"%s\": r=%d err=\"%s\" want \"%s\"", invalid_line[i].in,
				r, r ? err : "", invalid_line[i].frag);
		report(ok, "invalid-line/%02zu", i + 1);
	}
	{
		/* An over-long word is rejected, not truncated. */
		static char line[4096];
		int r, ok;

		memset(line, 'a', 2000);
		line[0] = '/';
		strcpy(line + 2000, " 1.2.3.4:1 C flush");
		r = nm_table_parse(line, &t, err, sizeof(err));
		ok = r == -EINVAL && strstr(err, "too long");
		report(ok, "invalid/long-word");
		/* NULL err buffer is allowed. */
		ok = nm_table_parse("x", &t, NULL, 0) == -EINVAL;
		report(ok, "invalid/null-err");
	}
}

/* ---------------------------------------------------------------- */
/* Status                                                            */

static void test_status(void)
{
	static const struct { const char *in; unsigned groups; } rt[] = {
		{ "primary connected uptodate/uptodate 100/100 5 0 0 20480 0", 9 },
		{ "secondary sync_target inconsistent/uptodate 10/100 0 5 1 0 20480", 9 },
		{ "primary sync_source uptodate/inconsistent 10/100 7 0 2 28672 0 0 -", 11 },
		{ "primary connected uptodate/uptodate 1/1 0 0 0 0 0 0 0 0 0 0 - running none 0 0 0 0 0 0 0 0 0 foo 7 bar", 26 },
		{ "primary standalone uptodate/unknown 0/0", 4 },
		{ "secondary connecting outdated/unknown 3/8 1 2", 6 },
		{ "primary standalone failed/diskless 0/16 0 0 0 0 0", 9 },
		{ "primary verifying uptodate/uptodate 5/5 0 0 0 0 0", 9 },
		{ "secondary connected attaching/uptodate 5/5", 4 },
		{ "secondary connecting outdated/unknown 0/16 0 0 0 0 0 3 peer_timeout", 11 },
		{ "primary connected uptodate/uptodate 1/1 0 0 0 0 0 0 - 1024 90", 13 },
		/* dm-netmirror 1.2.0: all 14 fields */
		{ "primary sync_source uptodate/inconsistent 300/512 12 0 0 49152 0 0 - 20480 9 109051904", 14 },
		{ "secondary sync_target inconsistent/uptodate 300/512 0 12 0 0 49152 0 - 20480 9 109051904", 14 },
		{ "primary connected uptodate/uptodate 512/512 12 0 0 49152 0 0 - 0 0 268435456", 14 },
		{ "primary connected uptodate/uptodate 512/512 12 0 0 49152 0 0 - 0 0 268435456 0123456789abcdef running done 2048 2048 0 0 0 1048576 4096 0 3 new 1", 26 },
		/* dm-netmirror 1.7.0: the data generation */
		{ "secondary standalone uptodate/unknown 512/512 0 0 0 0 0 0 split_brain 0 0 0 00000000000000ff", 15 },
		{ "primary connecting uptodate/unknown 512/512 0 0 1 0 0 0 peer_timeout 0 0 0 00000000000000ff frozen", 16 },
		/* dm-netmirror 1.10.0: online verify */
		{ "primary connected uptodate/outdated 510/512 0 0 0 0 0 0 - 0 0 0 00000000000000ff running running 1024 65536 5 8192 7", 22 },
		/* dm-netmirror 1.12: resync counters, no unconfirmed yet */
		{ "primary connected uptodate/uptodate 512/512 12 0 0 49152 0 0 - 0 0 0 00000000000000ff running none 0 0 0 0 0 0 0 0", 25 },
	};
	static const struct { const char *in, *frag; } bad[] = {
		{ "", "word 1: missing role" },
		{ "primary", "word 2: missing connection" },
		{ "primary connected", "word 3: missing disks" },
		{ "primary connected uptodate/uptodate", "word 4: missing regions" },
		{ "boss connected uptodate/uptodate 1/1", "word 1 \"boss\": role must be primary or secondary" },
		{ "primary Connected uptodate/uptodate 1/1", "word 2 \"Connected\": bad connection state" },
		{ "primary connected uptodate 1/1", "word 3 \"uptodate\": expected disk/peer_disk" },
		{ "primary connected up-to-date/uptodate 1/1", "word 3 \"up-to-date/uptodate\": bad disk state" },
		{ "primary connected uptodate/ 1/1", "bad disk state" },
		{ "primary connected uptodate/uptodate 10", "word 4 \"10\": expected in_sync/total region counts" },
		{ "primary connected uptodate/uptodate 1/x", "expected in_sync/total region counts" },
		{ "primary connected uptodate/uptodate 101/100", "word 4 \"101/100\": in_sync regions exceed total" },
		{ "primary connected uptodate/uptodate 1/1 -5", "word 5 \"-5\": writes_sent must be a decimal number" },
		{ "primary connected uptodate/uptodate 1/1 1 2 x", "word 7 \"x\": pending must be a decimal number" },
		{ "primary connected uptodate/uptodate 1/1 1 2 3 4 5x", "word 9 \"5x\": bytes_received must be a decimal number" },
		{ "primary connected uptodate/uptodate 1/1 1 2 3 4 5 x", "word 10 \"x\": writes_rejected must be a decimal number" },
		{ "primary connected uptodate/uptodate 1/1 1 2 3 4 5 6 a\"b", "word 11 \"a\"b\": bad last_error word" },
		{ "primary connected uptodate/uptodate 1/1 1 2 3 4 5 6 - x", "word 12 \"x\": resync_kibs must be a decimal number" },
		{ "primary connected uptodate/uptodate 1/1 1 2 3 4 5 6 - 1 -1", "word 13 \"-1\": eta_seconds must be a decimal number" },
		{ "primary connected uptodate/uptodate 1/1 1 2 3 4 5 6 - 1 2 3.5", "word 14 \"3.5\": resync_bytes must be a decimal number" },
		{ "primary connected uptodate/uptodate 1/1 1 2 3 4 5 6 - 1 2 3 0123", "word 15 \"0123\": generation must be 16 hex digits or -" },
		{ "primary connected uptodate/uptodate 1/1 1 2 3 4 5 6 - 1 2 3 0123456789ABCDEF", "word 15 \"0123456789ABCDEF\": generation must be 16 hex digits or -" },
		{ "primary connected uptodate/uptodate 1/1 1 2 3 4 5 6 - 1 2 3 - running Done", "word 17 \"Done\": bad verify state" },
		{ "primary connected uptodate/uptodate 1/1 1 2 3 4 5 6 - 1 2 3 - running done 1 x", "word 19 \"x\": verify_total must be a decimal number" },
	};
	char buf[NM_LINE_MAX], err[NM_ERRLEN];
	struct nm_status s;
	size_t i;
	int ok;

	for (i = 0; i < sizeof(rt) / sizeof(rt[0]); i++) {
		ok = 0;
		if (nm_status_parse(rt[i].in, &s, err, sizeof(err)))
			FAILWHY("%s", err);
		else if (s.ngroups != rt[i].groups)
			FAILWHY("ngroups %u", s.ngroups);
		else if (nm_status_format(&s, buf, sizeof(buf)) < 0 || strcmp(buf, rt[i].in))
			FAILWHY("got \"%s\"", buf);
		else
			ok = 1;
		report(ok, "status/roundtrip/%02zu", i + 1);
	}
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int r = nm_status_parse(bad[i].in, &s, err, sizeof(err));

		ok = r == -EINVAL && strstr(err, bad[i].frag);
		if (!ok)
			FAILWHY("\"%s\": r=%d err=\"%s\"", bad[i].in, r, r ? err : "");
		report(ok, "status/invalid/%02zu", i + 1);
	}

	nm_status_parse(rt[0].in, &s, err, sizeof(err));
	ok = s.role == DMNET_ROLE_PRIMARY && s.conn == DMNET_CONN_CONNECTED &&
	     s.disk == DMNET_DISK_UPTODATE && s.peer_disk == DMNET_DISK_UPTODATE &&
	     s.in_sync_regions == 100 && s.total_regions == 100 &&
	     s.writes_sent == 5 && s.bytes_sent == 20480 && s.nextra == 0 &&
	     nm_status_is_synced(&s) && nm_status_sync_percent(&s) == 100.0;
	report(ok, "status/fields");

	nm_status_parse(rt[1].in, &s, err, sizeof(err));
	ok = s.conn == DMNET_CONN_SYNC_TARGET && s.disk == DMNET_DISK_INCONSISTENT &&
	     !nm_status_is_synced(&s) && nm_status_sync_percent(&s) == 10.0 &&
	     s.pending == 1 && s.bytes_received == 20480;
	report(ok, "status/progress");

	nm_status_parse(rt[2].in, &s, err, sizeof(err));
	/* dm-netmirror 1.1.0 appends <writes_rejected> <last_error>. */
	ok = s.ngroups == 11 && s.nextra == 0 && s.writes_rejected == 0 &&
	     !strcmp(s.last_error, "-");
	report(ok, "status/kernel-1.1-fields");

	nm_status_parse(rt[9].in, &s, err, sizeof(err));
	ok = s.ngroups == 11 && s.writes_rejected == 3 &&
	     !strcmp(s.last_error, "peer_timeout") && s.disk == DMNET_DISK_OUTDATED;
	report(ok, "status/last-error");

	/* A module that stops after eta_seconds. */
	nm_status_parse(rt[10].in, &s, err, sizeof(err));
	ok = s.ngroups == 13 && s.nextra == 0 && s.resync_kibs == 1024 &&
	     s.eta_seconds == 90 && s.resync_bytes == 0;
	report(ok, "status/partial-1.2-fields");

	nm_status_parse(rt[11].in, &s, err, sizeof(err));
	ok = s.ngroups == 14 && s.conn == DMNET_CONN_SYNC_SOURCE &&
	     s.resync_kibs == 20480 && s.eta_seconds == 9 &&
	     s.resync_bytes == 109051904 && s.nextra == 0 &&
	     !nm_status_is_synced(&s);
	report(ok, "status/kernel-1.2-fields");

	nm_status_parse(rt[13].in, &s, err, sizeof(err));
	ok = s.ngroups == 14 && nm_status_is_synced(&s) && s.resync_kibs == 0 &&
	     s.resync_bytes == 268435456;
	report(ok, "status/kernel-1.2-synced");

	nm_status_parse(rt[14].in, &s, err, sizeof(err));
	ok = s.nextra == 2 && !strcmp(s.extra, "new 1") && s.resync_bytes == 268435456 &&
	     !strcmp(s.generation, "0123456789abcdef") &&
	     s.resync_marked == 1048576 && s.resync_compared == 4096 &&
	     s.resync_sent == 0 && s.unconfirmed == 3 &&
	     nm_status_format_json(&s, NULL, buf, sizeof(buf)) > 0 &&
	     strstr(buf, ",\"resync_marked\":1048576,\"resync_compared\":4096,"
		    "\"resync_sent\":0,\"unconfirmed\":3");
	report(ok, "status/newer-fields-kept");

	nm_status_parse(rt[15].in, &s, err, sizeof(err));
	ok = s.ngroups == 15 && !strcmp(s.generation, "00000000000000ff") &&
	     !strcmp(s.last_error, "split_brain") &&
	     nm_status_format_json(&s, NULL, buf, sizeof(buf)) > 0 &&
	     strstr(buf, ",\"generation\":\"00000000000000ff\"}");
	report(ok, "status/kernel-1.7-generation");

	nm_status_parse(rt[16].in, &s, err, sizeof(err));
	ok = s.ngroups == 16 && !strcmp(s.io, "frozen") &&
	     nm_status_format_json(&s, NULL, buf, sizeof(buf)) > 0 &&
	     strstr(buf, ",\"io\":\"frozen\"}");
	report(ok, "status/kernel-1.7-io-frozen");

	nm_status_parse(rt[17].in, &s, err, sizeof(err));
	ok = s.ngroups == 22 && !strcmp(s.verify, "running") &&
	     s.verify_sectors == 1024 && s.verify_total == 65536 &&
	     s.verify_diffs == 5 && s.verify_kibs == 8192 && s.verify_eta == 7 &&
	     nm_status_format(&s, buf, sizeof(buf)) > 0 && !strcmp(buf, rt[17].in) &&
	     nm_status_format_json(&s, NULL, buf, sizeof(buf)) > 0 &&
	     strstr(buf, ",\"verify\":\"running\",\"verify_sectors\":1024,"
		    "\"verify_total\":65536,\"verify_diffs\":5,\"verify_kibs\":8192,"
		    "\"verify_eta\":7}");
	report(ok, "status/kernel-1.10-verify");

	nm_status_parse(rt[18].in, &s, err, sizeof(err));
	ok = s.ngroups == 25 && s.unconfirmed == 0 && s.nextra == 0 &&
	     nm_status_format(&s, buf, sizeof(buf)) > 0 && !strcmp(buf, rt[18].in) &&
	     nm_status_format_json(&s, NULL, buf, sizeof(buf)) > 0 &&
	     !strstr(buf, "unconfirmed");
	report(ok, "status/kernel-1.12-no-unconfirmed");

	nm_status_parse(rt[3].in, &s, err, sizeof(err));
	ok = s.nextra == 3 && !strcmp(s.extra, "foo 7 bar") && !strcmp(s.last_error, "0");
	report(ok, "status/unknown-extra-kept");

	nm_status_parse(rt[11].in, &s, err, sizeof(err));
	ok = nm_status_format_json(&s, "nm0", buf, sizeof(buf)) > 0 &&
	     !strcmp(buf, "{\"name\":\"nm0\",\"role\":\"primary\",\"connection\":\"sync_source\","
		     "\"disk\":\"uptodate\",\"peer_disk\":\"inconsistent\",\"in_sync_regions\":300,"
		     "\"total_regions\":512,\"sync_percent\":58.59,\"writes_sent\":12,"
		     "\"writes_received\":0,\"pending\":0,\"bytes_sent\":49152,\"bytes_received\":0,"
		     "\"writes_rejected\":0,\"last_error\":\"-\",\"resync_kibs\":20480,"
		     "\"eta_seconds\":9,\"resync_bytes\":109051904}");
	if (!ok)
		FAILWHY("%s", buf);
	report(ok, "status/json-1.2");

	nm_status_parse(rt[4].in, &s, err, sizeof(err));
	ok = s.ngroups == 4 && s.total_regions == 0 && s.writes_sent == 0 &&
	     nm_status_sync_percent(&s) == 100.0 && !nm_status_is_synced(&s);
	report(ok, "status/old-module-4-groups");

	nm_status_parse(rt[7].in, &s, err, sizeof(err));
	ok = s.conn == DMNET_CONN_OTHER && !strcmp(s.conn_str, "verifying");
	report(ok, "status/unknown-state-kept");

	nm_status_parse(rt[8].in, &s, err, sizeof(err));
	ok = s.disk == DMNET_DISK_OTHER && !strcmp(s.disk_str, "attaching") &&
	     s.peer_disk == DMNET_DISK_UPTODATE;
	report(ok, "status/unknown-disk-kept");

	nm_status_parse(rt[3].in, &s, err, sizeof(err));
	ok = nm_status_format_json(&s, "nm\"0", buf, sizeof(buf)) > 0 &&
	     !strcmp(buf, "{\"name\":\"nm\\\"0\",\"role\":\"primary\",\"connection\":\"connected\","
		     "\"disk\":\"uptodate\",\"peer_disk\":\"uptodate\",\"in_sync_regions\":1,"
		     "\"total_regions\":1,\"sync_percent\":100.00,\"writes_sent\":0,"
		     "\"writes_received\":0,\"pending\":0,\"bytes_sent\":0,\"bytes_received\":0,"
		     "\"writes_rejected\":0,\"last_error\":\"0\",\"resync_kibs\":0,"
		     "\"eta_seconds\":0,\"resync_bytes\":0,\"generation\":\"-\","
		     "\"io\":\"running\",\"verify\":\"none\",\"verify_sectors\":0,"
		     "\"verify_total\":0,\"verify_diffs\":0,\"verify_kibs\":0,"
		     "\"verify_eta\":0,\"resync_marked\":0,\"resync_compared\":0,"
		     "\"resync_sent\":0,\"unconfirmed\":0,\"extra\":\"foo 7 bar\"}");
	if (!ok)
		FAILWHY("%s", buf);
	report(ok, "status/json");
}

/* ---------------------------------------------------------------- */
/* Config file                                                       */

static struct nm_conf conf;

static const char good_conf[] =
	"# two-node mirror\n"
	"resource r0 {\n"
	"    protocol C;\n"
	"    ordering drain;   # comment after\n"
	"    role secondary;\n"
	"    on alpha {\n"
	"        device nm0;\n"
	"        disk /dev/vdb;\n"
	"        address 169.254.0.1:7789;\n"
	"        role primary;\n"
	"    }\n"
	"    on beta { device nm0; disk \"/dev/vdb\"; address 169.254.0.2:7789; size 2048; }\n"
	"}\n"
	"resource r1{protocol A;on alpha{device nm1;disk 252:1;address [fd00::1]:7790;}"
	"on beta{device nm1;disk 252:1;address [fd00::2]:7790;}}\n";

static void test_config(void)
{
	static const struct { const char *in, *frag; } bad[] = {
		{ "resource r0 {", "netmirror.conf:1: expected a keyword or '}' in resource r0, got end of file" },
		{ "resource { }", "netmirror.conf:1: expected a resource name after \"resource\"" },
		{ "foo", "netmirror.conf:1: expected \"resource\", got \"foo\"" },
		{ "resource r0 {\n protocol C }", "netmirror.conf:2: expected ';' after \"protocol C\", got '}'" },
		{ "resource r0 {\n protocol D; }", "netmirror.conf:2: Invalid protocol (want A, B or C)" },
		{ "resource r0 {\n ordering sync; }", "netmirror.conf:2: Invalid ordering (want flush, drain or none)" },
		{ "resource r0 { protocol C; protocol A; }", "\"protocol\" given twice" },
		{ "resource r0 { on a { device x; disk /d; address 1.2.3.4:1; } }",
		  "netmirror.conf:1: resource r0 needs exactly two \"on HOST { }\" sections, has 1" },
		{ "resource r0 { on a { device x; disk /d; address 1.2.3.4:1; } on b { device x; disk /d; address 1.2.3.5:1; } on c { } }",
		  "more than 2 \"on\" sections" },
		{ "resource r0 { on a { device x; disk /d; address 1.2.3.4:1; } on a { } }",
		  "host \"a\" given twice in resource r0" },
		{ "resource r0 {\n on a {\n device x; address 1.2.3.4:1; } }",
		  "netmirror.conf:2: \"on a\" needs device, disk and address" },
		{ "resource r0 { on a { address 1.2.3.4:0; } }", "address: port must be a decimal number 1..65535" },
		{ "resource r0 { on a { disk vdb; } }", "disk: device must be an absolute path or major:minor" },
		{ "resource r0 { on a { device a/b; } }", "must not contain '/'" },
		{ "resource r0 { on a { color red; } }", "unknown keyword \"color\" in \"on a\"" },
		{ "resource r0 { color red; }", "unknown keyword \"color\" in resource r0" },
		{ "resource r0 { listen 1.2.3.4:1; }", "\"listen\" is not allowed here" },
		{ "resource r0 {\n region_size 8;\n region_size 16; }", "netmirror.conf:3: \"region_size\" given twice (first on line 2)" },
		{ "resource r0 { region_size 12; }", "netmirror.conf:1: Invalid region_size (want a power of two, 8..2048 sectors)" },
		{ "resource r0 { role; }", "expected a value after \"role\", got ';'" },
		{ "resource r0 { on a { device \"x; } }", "unterminated quoted string" },
		{ "resource r0 { on a { size 0; } }", "size must be a decimal sector count > 0" },
		{ "resource r0 { on a { device x; device y; } }", "\"device\" given twice" },
		{ "resource r0 { on a { device x; disk /d; address 1.2.3.4:1; } on b { device x; disk /d; address [::1]:1; } }",
		  "resource r0: both addresses must be IPv4 or both IPv6" },
		{ "resource r0 { on a { device x; disk /d; address 1.2.3.4:1; } on b { device x; disk /d; address 1.2.3.5:1; } }\n"
		  "resource r0 { }", "netmirror.conf:2: resource \"r0\" defined twice (first on line 1)" },
		{ "resource r0 { on { } }", "netmirror.conf:1: expected a host name after \"on\"" },
		{ "}", "expected \"resource\", got '}'" },
	};
	char err[NM_ERRLEN], buf[NM_LINE_MAX], dev[NM_NAME_MAX];
	const struct nm_conf_resource *r;
	struct nm_table t;
	size_t i;
	int ok;

	ok = !nm_conf_parse(good_conf, "netmirror.conf", &conf, err, sizeof(err)) &&
	     conf.nres == 2;
	if (!ok)
		FAILWHY("%s", err);
	report(ok, "config/parse");

	{
		/* "meta internal" in the config file, per host or per resource */
		static const char imeta_conf[] =
			"resource ri {\n meta internal;\n"
			" on a { device nmi; disk /dev/vdb; address 169.254.0.1:7789; }\n"
			" on b { device nmi; disk /dev/vdc; address 169.254.0.2:7789; }\n}\n";
		static struct nm_conf c2;

		ok = !nm_conf_parse(imeta_conf, "netmirror.conf", &c2, err, sizeof(err)) &&
		     (r = nm_conf_find(&c2, "ri")) &&
		     !nm_conf_build_table(r, "b", &t, dev, sizeof(dev), err, sizeof(err)) &&
		     nm_table_format(&t, buf, sizeof(buf)) > 0 &&
		     !strcmp(buf, "/dev/vdc 169.254.0.1:7789 C flush 4 listen 169.254.0.2:7789 meta internal") &&
		     nm_table_meta_internal(&t);
		if (!ok)
			FAILWHY("%s / %s", err, buf);
		report(ok, "config/meta-internal");
	}

	r = nm_conf_find(&conf, "r0");
	ok = r && r->nhosts == 2 && !strcmp(r->hosts[1].name, "beta") &&
	     r->hosts[1].size == 2048 && !strcmp(r->hosts[1].disk, "/dev/vdb") &&
	     !nm_conf_find(&conf, "r9");
	report(ok, "config/find");

	ok = r && !nm_conf_build_table(r, "alpha", &t, dev, sizeof(dev), err, sizeof(err)) &&
	     nm_table_format(&t, buf, sizeof(buf)) > 0 &&
	     !strcmp(buf, "/dev/vdb 169.254.0.2:7789 C drain 4 listen 169.254.0.1:7789 role primary") &&
	     !strcmp(dev, "nm0") && t.len == 0;
	if (!ok)
		FAILWHY("%s / %s", err, buf);
	report(ok, "config/table-alpha");

	ok = r && !nm_conf_build_table(r, "beta", &t, dev, sizeof(dev), err, sizeof(err)) &&
	     nm_table_format_line(&t, buf, sizeof(buf)) > 0 &&
	     !strcmp(buf, "0 2048 netmirror /dev/vdb 169.254.0.1:7789 C drain 2 listen 169.254.0.2:7789");
	if (!ok)
		FAILWHY("%s / %s", err, buf);
	report(ok, "config/table-beta");

	r = nm_conf_find(&conf, "r1");
	ok = r && !nm_conf_build_table(r, "beta", &t, dev, sizeof(dev), err, sizeof(err)) &&
	     nm_table_format(&t, buf, sizeof(buf)) > 0 &&
	     !strcmp(buf, "252:1 [fd00::1]:7790 A flush 2 listen [fd00::2]:7790") &&
	     !strcmp(dev, "nm1");
	if (!ok)
		FAILWHY("%s / %s", err, buf);
	report(ok, "config/table-v6");

	ok = r && nm_conf_build_table(r, "gamma", &t, dev, sizeof(dev), err, sizeof(err)) == -ENOENT &&
	     strstr(err, "resource r1 has no \"on gamma\" section");
	report(ok, "config/unknown-host");

	ok = !nm_conf_parse("# only a comment\n\n", "x", &conf, err, sizeof(err)) &&
	     conf.nres == 0;
	report(ok, "config/empty");

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int rc = nm_conf_parse(bad[i].in, "netmirror.conf", &conf, err, sizeof(err));

		ok = rc == -EINVAL && strstr(err, bad[i].frag);
		if (!ok)
			FAILWHY("\"%s\": rc=%d err=\"%s\"", bad[i].in, rc, rc ? err : "");
		report(ok, "config/invalid/%02zu", i + 1);
	}

	ok = nm_conf_load("/nonexistent/netmirror.conf", &conf, err, sizeof(err)) == -ENOENT &&
	     strstr(err, "/nonexistent/netmirror.conf: No such file");
	report(ok, "config/load-missing");
}

/* ---------------------------------------------------------------- */
/* libdmnet's enums carry the wire's values.                         */

static void test_wire_values(void)
{
	int ok = (int)DMNET_DISK_UNKNOWN == (int)NM_DISK_UNKNOWN &&
		 (int)DMNET_DISK_UPTODATE == (int)NM_DISK_UPTODATE &&
		 (int)DMNET_DISK_INCONSISTENT == (int)NM_DISK_INCONSISTENT &&
		 (int)DMNET_DISK_OUTDATED == (int)NM_DISK_OUTDATED &&
		 (int)DMNET_DISK_DISKLESS == (int)NM_DISK_DISKLESS &&
		 (int)DMNET_DISK_OTHER == (int)NM_DISK_MAX &&
		 (int)DMNET_ROLE_PRIMARY == (int)NM_ROLE_PRIMARY &&
		 (int)DMNET_ROLE_SECONDARY == (int)NM_ROLE_SECONDARY &&
		 (int)DMNET_PROTO_A == (int)NM_PROTO_A && (int)DMNET_PROTO_C == (int)NM_PROTO_C &&
		 (int)DMNET_ORDER_FLUSH == (int)NM_ORD_FLUSH && (int)DMNET_ORDER_NONE == (int)NM_ORD_NONE;

	report(ok, "enums/wire-values");
	ok = !strcmp(nm_disk_str(DMNET_DISK_DISKLESS), "diskless") &&
	     !strcmp(nm_disk_str((enum dmnet_disk)NM_DISK_UNKNOWN), "unknown") &&
	     !strcmp(nm_disk_str(DMNET_DISK_OTHER), "other");
	report(ok, "enums/disk-words");
}

/* ---------------------------------------------------------------- */
/* The shared corpus (tests/corpus, format in its README.md): the    */
/* kernel must give the same verdicts (tests/vm).                    */

#define DEV "/dev/vdb"
#define META "/dev/vdc"
#define SECTORS "2097152"

static const char *corpus_dir(void)
{
	const char *d = getenv("NM_CORPUS");

	return d && *d ? d : "../corpus";
}

/* Replace @DEV@, @META@, @SECTORS@. */
static void subst(const char *in, char *out, size_t len)
{
	static const struct { const char *ph, *val; } ph[] = {
		{ "@DEV@", DEV }, { "@META@", META }, { "@SECTORS@", SECTORS },
	};
	size_t o = 0, i;

	while (*in && o + 1 < len) {
		for (i = 0; i < sizeof(ph) / sizeof(ph[0]); i++) {
			size_t n = strlen(ph[i].ph);

			if (!strncmp(in, ph[i].ph, n) &&
			    o + strlen(ph[i].val) + 1 < len) {
				strcpy(out + o, ph[i].val);
				o += strlen(ph[i].val);
				in += n;
				break;
			}
		}
		if (i == sizeof(ph) / sizeof(ph[0]))
			out[o++] = *in++;
	}
	out[o] = '\0';
}

/* Split a corpus line into its 4 tab-separated fields; 0 if not a case. */
static int fields(char *line, char *f[4])
{
	size_t n = strcspn(line, "\r\n");
	int i;

	line[n] = '\0';
	if (!*line || *line == '#')
		return 0;
	for (i = 0; i < 4; i++) {
		f[i] = line;
		line = strchr(line, '\t');
		if (i < 3) {
			if (!line)
				return -1;
			*line++ = '\0';
		}
	}
	return strchr(f[3], '\t') ? -1 : 1;
}

typedef int (*corpus_fn)(const char *in, const char *verdict,
			 const char *expect);

static int table_case(const char *in, const char *verdict, const char *expect)
{
	char line[NM_LINE_MAX], want[NM_LINE_MAX], buf[NM_LINE_MAX], err[NM_ERRLEN];
	struct nm_table t;
	int r;

	subst(in, line, sizeof(line));
	subst(expect, want, sizeof(want));
	r = nm_table_parse_line(line, &t, err, sizeof(err));
	if (!strcmp(verdict, "ok")) {
		if (r) {
			FAILWHY("refused: %s", err);
			return 0;
		}
		if (nm_table_format_line(&t, buf, sizeof(buf)) < 0 || strcmp(buf, want)) {
			FAILWHY("reprint \"%s\", want \"%s\"", buf, want);
			return 0;
		}
		return 1;
	}
	if (!r) {
		FAILWHY("accepted, want \"%s\"", want);
		return 0;
	}
	if (strcmp(err, want)) {
		FAILWHY("error \"%s\", want \"%s\"", err, want);
		return 0;
	}
	return 1;
}

static int message_case(const char *in, const char *verdict, const char *expect)
{
	char err[NM_ERRLEN];
	int r = nm_message_check(in, err, sizeof(err));

	if (!strcmp(verdict, "ok")) {
		if (r)
			FAILWHY("refused: %s", err);
		return !r;
	}
	if (!r || strcmp(err, expect)) {
		FAILWHY("%s, want \"%s\"", r ? err : "accepted", expect);
		return 0;
	}
	return 1;
}

static void run_corpus(const char *file, const char *grp, corpus_fn fn,
		       unsigned min_cases)
{
	char path[512], line[NM_LINE_MAX * 2];
	unsigned n = 0, lineno = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", corpus_dir(), file);
	f = fopen(path, "r");
	group = grp;
	if (!f) {
		FAILWHY("%s: cannot open (set NM_CORPUS)", path);
		report(0, "open");
		group = "test_table";
		return;
	}
	while (fgets(line, sizeof(line), f)) {
		char *fl[4];
		int k = fields(line, fl);

		lineno++;
		if (!k)
			continue;
		n++;
		if (k < 0 || (strcmp(fl[1], "ok") && strcmp(fl[1], "err"))) {
			FAILWHY("%s:%u: not name<TAB>ok|err<TAB>input<TAB>expected", path, lineno);
			report(0, "%03u-format", n);
			continue;
		}
		report(fn(fl[2], fl[1], fl[3]), "%03u-%s", n, fl[0]);
	}
	fclose(f);
	if (n < min_cases)
		FAILWHY("%u cases, want at least %u", n, min_cases);
	report(n >= min_cases, "count");
	group = "test_table";
}

static void test_table_corpus(void)
{
	run_corpus("table-lines.txt", "table-corpus", table_case, 150);
}

static void test_message_corpus(void)
{
	run_corpus("messages.txt", "message-corpus", message_case, 20);
}

/* ---------------------------------------------------------------- */
/* Boundaries generated from the rows themselves (nm_opt_defs()).    */

static void gen_check(const struct nm_opt_def *d, const char *val, int want_ok,
		      const char *what)
{
	char line[NM_LINE_MAX * 2], err[NM_ERRLEN], want[NM_ERRLEN];
	struct nm_table t;
	int r;

	/* keep ping < timeout out of the way of the range under test */
	if (d->id == NM_OPT_TIMEOUT)
		snprintf(line, sizeof(line), "%s 4 %s %s ping 100", P, d->keyword, val);
	else if (d->id == NM_OPT_PING)
		snprintf(line, sizeof(line), "%s 4 %s %s timeout 600000", P, d->keyword, val);
	else
		snprintf(line, sizeof(line), "%s 2 %s %s", P, d->keyword, val);
	snprintf(want, sizeof(want), "Invalid %s (want %s)", d->keyword, d->want);
	r = nm_table_parse(line, &t, err, sizeof(err));
	if (want_ok ? r != 0 : (r == 0 || strcmp(err, want)))
		FAILWHY("\"%s\": %s", line, r ? err : "accepted");
	report(want_ok ? !r : r && !strcmp(err, want), "generated/%s-%s", d->keyword, what);
}

static void test_generated(void)
{
	size_t n, i;
	const struct nm_opt_def *d = nm_opt_defs(&n);
	char v[64], w[64];
	unsigned j;

	for (i = 0; i < n; i++, d++) {
		char kw[64];
		struct nm_table t;
		char err[NM_ERRLEN], line[256];

		switch (d->type) {
		case NM_PT_U32:
		case NM_PT_POW2:
			snprintf(v, sizeof(v), "%u", (unsigned)d->min);
			gen_check(d, v, 1, "min");
			snprintf(v, sizeof(v), "%u", (unsigned)d->max);
			gen_check(d, v, 1, "max");
			if (d->min) {
				snprintf(v, sizeof(v), "%u", (unsigned)d->min - 1);
				gen_check(d, v, 0, "min-1");
			}
			snprintf(v, sizeof(v), "%llu", (unsigned long long)d->max + 1);
			gen_check(d, v, 0, "max+1");
			snprintf(v, sizeof(v), "0%u", (unsigned)(d->min ? d->min : 1));
			gen_check(d, v, 0, "leading-zero");
			snprintf(v, sizeof(v), "+%u", (unsigned)d->max);
			gen_check(d, v, 0, "sign");
			break;
		case NM_PT_ENUM:
			for (j = 0; nm_opt_word(d, j, w, sizeof(w)) >= 0; j++) {
				char up[64], name[80];
				size_t k;

				snprintf(name, sizeof(name), "word-%s", w);
				gen_check(d, w, 1, name);
				for (k = 0; w[k]; k++)
					up[k] = (char)(w[k] >= 'a' && w[k] <= 'z' ? w[k] - 32 : w[k]);
				up[k] = '\0';
				snprintf(name, sizeof(name), "word-%s-upper", w);
				gen_check(d, up, 0, name);
			}
			break;
		default:
			break;
		}
		/* the keyword in upper case is an unknown option */
		for (j = 0; d->keyword[j] && j + 1 < sizeof(kw); j++)
			kw[j] = (char)(d->keyword[j] >= 'a' && d->keyword[j] <= 'z' ?
				       d->keyword[j] - 32 : d->keyword[j]);
		kw[j] = '\0';
		snprintf(line, sizeof(line), "%s 2 %s x", P, kw);
		report(nm_table_parse(line, &t, err, sizeof(err)) == -EINVAL &&
		       !strcmp(err, "Unknown optional argument"),
		       "generated/%s-keyword-upper", d->keyword);
		/* default and since */
		nm_table_init(&t);
		report(d->min_minor >= 1 && d->min_minor <= NM_TARGET_MINOR &&
		       (d->type != NM_PT_U32 ||
			!memcmp((char *)&t + d->offset, &d->def, sizeof(d->def))),
		       "generated/%s-default", d->keyword);
	}
}

/* ---------------------------------------------------------------- */

int main(void)
{
	const char *rf = getenv("NM_RESULTS");

	if (rf && *rf) {
		results = fopen(rf, "a");
		if (!results) {
			perror(rf);
			return 2;
		}
	}
	test_wire_values();
	test_table_corpus();
	test_message_corpus();
	test_generated();
	test_canonical();
	test_combinations();
	test_fields();
	test_versions();
	test_invalid();
	test_status();
	test_config();
	printf("test_table: %u passed, %u failed\n", npass, nfail);
	if (results)
		fclose(results);
	return nfail ? 1 : 0;
}
