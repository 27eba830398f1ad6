/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef TAKEOVER_XALLOC_H
#define TAKEOVER_XALLOC_H
/*
 * Allocation that cannot fail: out of memory in the harness is not a state
 * worth propagating through every caller, so it aborts with a message.
 */
#include <stddef.h>

_Noreturn void xdie_oom(void);
void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static inline void freep(void *p) { extern void free(void *); free(*(void **)p); }
#define _cleanup_free_ __attribute__((cleanup(freep)))

#endif
