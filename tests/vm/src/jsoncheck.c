// SPDX-License-Identifier: GPL-2.0-only
/*
 * jsoncheck - strict JSON validator for guest tests (no python in the VM).
 *
 *   jsoncheck [KEY...] < input
 *
 * Reads one JSON text (RFC 8259: one value, surrounded by whitespace only)
 * from stdin.  Exit 1 with "jsoncheck: offset N: reason" on stderr if it
 * is not valid JSON.  With KEYs the value must be an object; each KEY's
 * value is printed on its own line (strings without quotes, with the
 * simple escapes undone; numbers, true/false/null as written; objects and
 * arrays as "{...}"/"[...]").  Exit 2 if a KEY is missing.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *buf;
static size_t len, pos;

static void bad(const char *why)
{
	fprintf(stderr, "jsoncheck: offset %zu: %s\n", pos, why);
	exit(1);
}

static void ws(void)
{
	while (pos < len && strchr(" \t\r\n", buf[pos]))
		pos++;
}

static int peek(void)
{
	return pos < len ? (unsigned char)buf[pos] : -1;
}

static void lit(const char *w)
{
	size_t n = strlen(w);

	if (len - pos < n || memcmp(buf + pos, w, n))
		bad("invalid literal");
	pos += n;
}

static int hex(int c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/* Parse a string at pos; copy its (unescaped, \uXXXX kept) text to out. */
static void string(char *out, size_t outlen)
{
	size_t o = 0;

	if (peek() != '"')
		bad("expected string");
	pos++;
	for (;;) {
		int c = peek();

		if (c < 0)
			bad("unterminated string");
		pos++;
		if (c == '"')
			break;
		if (c < 0x20)
			bad("control character in string");
		if (c == '\\') {
			c = peek();
			pos++;
			switch (c) {
			case '"': case '\\': case '/': break;
			case 'b': c = '\b'; break;
			case 'f': c = '\f'; break;
			case 'n': c = '\n'; break;
			case 'r': c = '\r'; break;
			case 't': c = '\t'; break;
			case 'u':
				if (len - pos < 4 || !hex(buf[pos]) || !hex(buf[pos + 1]) ||
				    !hex(buf[pos + 2]) || !hex(buf[pos + 3]))
					bad("bad \\u escape");
				pos += 4;
				c = '?';
				break;
			default:
				bad("bad escape");
			}
		}
		if (out && o + 1 < outlen)
			out[o++] = (char)c;
	}
	if (out)
		out[o] = '\0';
}

static void number(void)
{
	int d = 0;

	if (peek() == '-')
		pos++;
	if (peek() == '0') {
		pos++;
		d = 1;
	} else {
		while (peek() >= '0' && peek() <= '9') {
			pos++;
			d = 1;
		}
	}
	if (!d)
		bad("bad number");
	if (peek() == '.') {
		pos++;
		d = 0;
		while (peek() >= '0' && peek() <= '9') {
			pos++;
			d = 1;
		}
		if (!d)
			bad("bad fraction");
	}
	if (peek() == 'e' || peek() == 'E') {
		pos++;
		if (peek() == '+' || peek() == '-')
			pos++;
		d = 0;
		while (peek() >= '0' && peek() <= '9') {
			pos++;
			d = 1;
		}
		if (!d)
			bad("bad exponent");
	}
}

static int nkeys;
static char **keys;
static char **vals;

static void value(int depth);

static void object(int depth)
{
	char key[256];

	pos++;
	ws();
	if (peek() == '}') {
		pos++;
		return;
	}
	for (;;) {
		size_t vstart;
		int i;

		ws();
		string(key, sizeof(key));
		ws();
		if (peek() != ':')
			bad("expected ':'");
		pos++;
		ws();
		vstart = pos;
		value(depth + 1);
		for (i = 0; depth == 0 && i < nkeys; i++) {
			if (strcmp(keys[i], key))
				continue;
			if (buf[vstart] == '"') {
				size_t save = pos, n = pos - vstart + 1;
				char *v = malloc(n);

				pos = vstart;
				string(v, n);
				pos = save;
				vals[i] = v;
			} else if (buf[vstart] == '{' || buf[vstart] == '[') {
				vals[i] = strdup(buf[vstart] == '{' ? "{...}" : "[...]");
			} else {
				vals[i] = strndup(buf + vstart, pos - vstart);
			}
		}
		ws();
		if (peek() == ',') {
			pos++;
			continue;
		}
		if (peek() == '}') {
			pos++;
			return;
		}
		bad("expected ',' or '}'");
	}
}

static void array(int depth)
{
	pos++;
	ws();
	if (peek() == ']') {
		pos++;
		return;
	}
	for (;;) {
		ws();
		value(depth + 1);
		ws();
		if (peek() == ',') {
			pos++;
			continue;
		}
		if (peek() == ']') {
			pos++;
			return;
		}
		bad("expected ',' or ']'");
	}
}

static void value(int depth)
{
	int c = peek();

	if (depth > 64)
		bad("nested too deeply");
	if (c == '{')
		object(depth);
	else if (c == '[')
		array(depth);
	else if (c == '"')
		string(NULL, 0);
	else if (c == 't')
		lit("true");
	else if (c == 'f')
		lit("false");
	else if (c == 'n')
		lit("null");
	else if (c == '-' || (c >= '0' && c <= '9'))
		number();
	else
		bad(c < 0 ? "unexpected end of input" : "unexpected character");
}

int main(int argc, char **argv)
{
	size_t cap = 4096;
	int i, rc = 0;

	buf = malloc(cap);
	for (;;) {
		size_t n;

		if (len == cap)
			buf = realloc(buf, cap *= 2);
		n = fread(buf + len, 1, cap - len, stdin);
		if (!n)
			break;
		len += n;
	}
	nkeys = argc - 1;
	keys = argv + 1;
	vals = calloc(argc, sizeof(*vals));
	ws();
	if (nkeys && peek() != '{')
		bad("keys given but the value is not an object");
	value(0);
	ws();
	if (pos != len)
		bad("trailing characters after the value");
	for (i = 0; i < nkeys; i++) {
		if (!vals[i]) {
			fprintf(stderr, "jsoncheck: no key \"%s\"\n", keys[i]);
			rc = 2;
			continue;
		}
		printf("%s\n", vals[i]);
	}
	return rc;
}
