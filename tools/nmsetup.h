/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * nmsetup's parts, by role: nmsetup.c (arguments, the command table, the
 * commands that create, change and show a device), nmsetup-watch.c (the
 * commands that follow a device: wait-sync, fence, events) and
 * nmsetup-options.c (the tables of nm_params.h printed: options).
 */
#ifndef NMSETUP_H
#define NMSETUP_H

#include <stddef.h>
#include <stdint.h>

#include "libdmnet.h"

enum {
	EX_OK = 0, EX_USAGE = 1, EX_CONFIG = 2, EX_DEVICE = 3, EX_TIMEOUT = 4,
	EX_NODEV = 5, EX_UNSUPPORTED = 6, EX_DIFFER = 7,
};

/* Groups of flags; a command lists the groups it takes. */
enum {
	F_TABLE = 1 << 0,	/* --protocol, --ordering, --size, -o, --<option> */
	F_JSON = 1 << 1,	/* --json */
	F_WAIT = 1 << 2,	/* --wait-timeout */
	F_DOC = 1 << 3,		/* --man, --rst */
	F_DISCARD = 1 << 4,	/* connect --discard-my-data */
	F_FORCE = 1 << 5,	/* primary --force; create/up/adjust --force */
	F_FENCE = 1 << 6,	/* fence --handler, --unfence-handler, --once */
	F_VWAIT = 1 << 7,	/* verify --wait */
	F_EVENTS = 1 << 8,	/* events --now, --timestamps */
	F_NGROUPS = 9
};

#define MAX_OPTS 64

/* A table option from "--<keyword>" (keyword with '_' -> '-') or -o. */
struct cli_opt {
	char flag[40];			/* as given (without "=V"), for messages */
	char kw[32];
	const char *val;
};

struct nmsetup_args {
	const char *config;
	const char *host;
	int dry_run;
	int verbose;
	int help;
	unsigned given;			/* F_* groups seen */
	const char *first[F_NGROUPS];	/* first flag seen of each group */
	const char *protocol, *ordering, *size;
	struct cli_opt opts[MAX_OPTS];
	unsigned nopts;
	int json, man, rst;
	int discard;			/* connect --discard-my-data */
	const char *handler;		/* fence --handler PROG */
	const char *unfence;		/* fence --unfence-handler PROG */
	int once;			/* fence --once */
	int force;			/* primary: force_primary; create:
					 * internal metadata over a signature */
	int vwait;			/* verify --wait */
	int now, timestamps;		/* events --now, --timestamps */
	double wait_timeout;		/* seconds, 0 = none */
	int argc;
	char **argv;			/* positional arguments after command */
};

/* the arguments of this run (nmsetup.c: main) */
extern struct nmsetup_args g;

/* nmsetup.c */
void die_usage(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
int fail(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int dm_exit(int r);
int resolve_name(const char *name, char *dev, size_t devlen);
double now(void);
void print_eta(uint64_t eta);

/* nmsetup-watch.c */
int cmd_wait_sync(void);
int cmd_fence(void);
int cmd_events(void);

/* nmsetup-options.c */
void flag_name(const char *kw, char *buf, size_t len);
void opt_limits(const struct nm_opt_def *d, char *buf, size_t len);
int cmd_options(void);

#endif /* NMSETUP_H */
