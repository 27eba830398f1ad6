// SPDX-License-Identifier: GPL-2.0-only
#include "proto.h"

#include <ctype.h>
#include <string.h>

static int plain(unsigned char c)
{
	return isalnum(c) || strchr("._/:=,+@-", c);
}

void proto_encode(struct strbuf *out, const char *s, size_t n)
{
	static const char hex[] = "0123456789ABCDEF";

	strbuf_grow(out, n);
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c && plain(c)) {
			strbuf_addch(out, (char)c);
		} else {
			char e[3] = { '%', hex[c >> 4], hex[c & 15] };
			strbuf_add(out, e, 3);
		}
	}
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

ssize_t proto_decode(char *s)
{
	char *w = s;

	for (char *r = s; *r; r++) {
		if (*r != '%') {
			*w++ = *r;
			continue;
		}
		int hi = hexval(r[1]), lo = hi < 0 ? -1 : hexval(r[2]);
		if (hi < 0 || lo < 0)
			return -1;
		*w++ = (char)(hi << 4 | lo);
		r += 2;
	}
	*w = '\0';
	return w - s;
}

int proto_split(char *line, char **words, int max)
{
	int n = 0;
	char *p = line;

	while (*p && n < max) {
		words[n++] = p;
		p = strchr(p, ' ');
		if (!p)
			break;
		*p++ = '\0';
	}
	return n;
}

const char *proto_get(char *const *words, int n, const char *key)
{
	size_t kl = strlen(key);

	for (int i = 1; i < n; i++)
		if (!strncmp(words[i], key, kl) && words[i][kl] == '=')
			return words[i] + kl + 1;
	return NULL;
}
