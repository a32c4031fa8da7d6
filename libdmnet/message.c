// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * netmirror target messages, generated from NM_MESSAGES (nm_params.h):
 * the table of messages and a check that refuses what the kernel refuses,
 * with the kernel's text.  Pure code.
 */
#include <errno.h>
#include <string.h>

#include "libdmnet.h"
#include "internal.h"

#define MSG_DEF_ROW(w, id, nargs, since, arg_help, want, help)		\
	{ #w, NM_MSG_##id, nargs, since, arg_help, want, help },
static const struct nm_msg_def msg_defs[] = { NM_MESSAGES(MSG_DEF_ROW) };

_Static_assert(NELEM(msg_defs) == NM_MSG_COUNT, "message table incomplete");

const struct nm_msg_def *nm_msg_defs(size_t *n)
{
	if (n)
		*n = NELEM(msg_defs);
	return msg_defs;
}

const struct nm_msg_def *nm_msg_find(const char *word)
{
	size_t i;

	for (i = 0; word && i < NELEM(msg_defs); i++)
		if (!strcmp(msg_defs[i].word, word))
			return &msg_defs[i];
	return NULL;
}

int nm_message_check(const char *msg, char *err, size_t errlen)
{
	const struct nm_msg_def *d;
	struct nm_words w;
	char word[64], arg[64];
	uint64_t v64;
	uint32_t v;
	unsigned i;
	int r;

	nm_words_init(&w, msg, 0);
	r = nm_words_next(&w, word, sizeof(word), NULL, 0);
	d = r > 0 ? nm_msg_find(word) : NULL;
	if (!d || nm_words_remaining(&w) != d->nargs) {
		nm_seterr(err, errlen, "unknown message");
		return -EINVAL;
	}
	/* the argument kinds so far: decimal numbers, 32-bit (resync_rate)
	 * or 64-bit (verify_range's sectors) */
	for (i = 0; i < d->nargs; i++) {
		if (nm_words_next(&w, arg, sizeof(arg), NULL, 0) <= 0 ||
		    (d->id == NM_MSG_VERIFY_RANGE ? nm_parse_u64(arg, &v64) :
		     nm_parse_u32(arg, 0, UINT32_MAX, &v))) {
			nm_seterr(err, errlen, "Invalid %s (want %s)", d->word,
				  d->want);
			return -EINVAL;
		}
	}
	return 0;
}
