// SPDX-License-Identifier: GPL-2.0-only
#include "strbuf.h"
#include "xalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

char strbuf_slopbuf[1];

void strbuf_init(struct strbuf *sb, size_t hint)
{
	sb->alloc = sb->len = 0;
	sb->buf = strbuf_slopbuf;
	if (hint)
		strbuf_grow(sb, hint);
}

void strbuf_release(struct strbuf *sb)
{
	if (sb->alloc)
		free(sb->buf);
	strbuf_init(sb, 0);
}

char *strbuf_detach(struct strbuf *sb, size_t *len)
{
	char *ret;

	strbuf_grow(sb, 0);
	ret = sb->buf;
	if (len)
		*len = sb->len;
	strbuf_init(sb, 0);
	return ret;
}

void strbuf_grow(struct strbuf *sb, size_t extra)
{
	size_t want = sb->len + extra + 1;

	if (want < sb->len)
		xdie_oom();
	if (want <= sb->alloc)
		return;
	size_t nalloc = sb->alloc ? sb->alloc : 64;
	while (nalloc < want)
		nalloc = nalloc < SIZE_MAX / 2 ? nalloc * 2 : want;
	char *nbuf = xrealloc(sb->alloc ? sb->buf : NULL, nalloc);
	if (!sb->alloc)
		nbuf[0] = '\0';
	sb->buf = nbuf;
	sb->alloc = nalloc;
}

void strbuf_reset(struct strbuf *sb)
{
	sb->len = 0;
	if (sb->alloc)
		sb->buf[0] = '\0';
}

void strbuf_add(struct strbuf *sb, const void *data, size_t len)
{
	strbuf_grow(sb, len);
	memcpy(sb->buf + sb->len, data, len);
	sb->len += len;
	sb->buf[sb->len] = '\0';
}

void strbuf_addstr(struct strbuf *sb, const char *s)
{
	strbuf_add(sb, s, strlen(s));
}

void strbuf_addch(struct strbuf *sb, char c)
{
	strbuf_add(sb, &c, 1);
}

void strbuf_vaddf(struct strbuf *sb, const char *fmt, va_list ap)
{
	va_list cp;
	int n;

	va_copy(cp, ap);
	n = vsnprintf(sb->buf + sb->len, sb->alloc ? sb->alloc - sb->len : 0, fmt, cp);
	va_end(cp);
	if (n < 0)
		return;
	if ((size_t)n >= (sb->alloc ? sb->alloc - sb->len : 0)) {
		strbuf_grow(sb, (size_t)n);
		n = vsnprintf(sb->buf + sb->len, sb->alloc - sb->len, fmt, ap);
	}
	sb->len += (size_t)n;
}

void strbuf_addf(struct strbuf *sb, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	strbuf_vaddf(sb, fmt, ap);
	va_end(ap);
}

void strbuf_rtrim(struct strbuf *sb)
{
	while (sb->len && (sb->buf[sb->len - 1] == ' ' || sb->buf[sb->len - 1] == '\t' ||
			   sb->buf[sb->len - 1] == '\n' || sb->buf[sb->len - 1] == '\r'))
		sb->len--;
	if (sb->alloc)
		sb->buf[sb->len] = '\0';
}

int strbuf_read_fd(struct strbuf *sb, int fd, size_t max)
{
	for (;;) {
		strbuf_grow(sb, 8192);
		ssize_t n = read(fd, sb->buf + sb->len, sb->alloc - sb->len - 1);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0)
			break;
		sb->len += (size_t)n;
		sb->buf[sb->len] = '\0';
		if (sb->len > max)
			return -EFBIG;
	}
	return 0;
}

int strbuf_read_file(struct strbuf *sb, const char *path, size_t max)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	int r;

	if (fd < 0)
		return -errno;
	r = strbuf_read_fd(sb, fd, max);
	close(fd);
	return r;
}
