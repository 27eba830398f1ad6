/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef TAKEOVER_STRBUF_H
#define TAKEOVER_STRBUF_H
/*
 * A growable string in the spirit of git's strbuf: buf is never NULL (it
 * points at a static "" until the first growth) and is always NUL-terminated,
 * so callers never special-case the empty buffer.
 */
#include <stdarg.h>
#include <stddef.h>

struct strbuf {
	size_t alloc;
	size_t len;
	char *buf;
};

extern char strbuf_slopbuf[];
#define STRBUF_INIT { 0, 0, strbuf_slopbuf }

void strbuf_init(struct strbuf *sb, size_t hint);
void strbuf_release(struct strbuf *sb);
char *strbuf_detach(struct strbuf *sb, size_t *len);
void strbuf_grow(struct strbuf *sb, size_t extra);
void strbuf_reset(struct strbuf *sb);
void strbuf_add(struct strbuf *sb, const void *data, size_t len);
void strbuf_addstr(struct strbuf *sb, const char *s);
void strbuf_addch(struct strbuf *sb, char c);
void strbuf_addf(struct strbuf *sb, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* format(printf, 2, 0): lets clang's -Wformat-nonliteral accept the vsnprintf inside. */
void strbuf_vaddf(struct strbuf *sb, const char *fmt, va_list ap)
	__attribute__((format(printf, 2, 0)));
void strbuf_rtrim(struct strbuf *sb);
/* Reads a whole file; returns 0 or -errno. Refuses files over max bytes (-EFBIG). */
int strbuf_read_file(struct strbuf *sb, const char *path, size_t max);
/* Reads everything from fd until EOF; returns 0 or -errno. */
int strbuf_read_fd(struct strbuf *sb, int fd, size_t max);

static inline void strbuf_freep(struct strbuf *sb) { strbuf_release(sb); }
#define _cleanup_strbuf_ __attribute__((cleanup(strbuf_freep)))

#endif
