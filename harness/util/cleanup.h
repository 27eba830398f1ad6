/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef TAKEOVER_CLEANUP_H
#define TAKEOVER_CLEANUP_H
/*
 * Scope-bound release of fds, FILE* and DIR* (systemd's _cleanup_ idiom):
 *
 *	_cleanup_close_ int fd = open(...);
 *	if (fd < 0)
 *		return -errno;
 *	...every return below closes fd...
 *
 * Each helper ignores the "nothing held" value (-1, NULL), so a variable may
 * be declared before its resource is acquired. To hand a resource on, take it
 * out with take_fd()/take_ptr(). Heap memory: _cleanup_free_ (xalloc.h);
 * strbufs: _cleanup_strbuf_ (strbuf.h); libvirt handles: cluster/virt.h.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <unistd.h>

static inline void closep(const int *fd)
{
	if (*fd >= 0) {
		int saved = errno; /* a close() on the way out must not change the errno being returned */
		close(*fd);
		errno = saved;
	}
}
static inline void fclosep(FILE **f)
{
	if (*f)
		fclose(*f);
}
static inline void closedirp(DIR **d)
{
	if (*d)
		closedir(*d);
}
#define _cleanup_close_ __attribute__((cleanup(closep)))
#define _cleanup_fclose_ __attribute__((cleanup(fclosep)))
#define _cleanup_closedir_ __attribute__((cleanup(closedirp)))

/* The value of an fd variable, leaving -1 behind so its cleanup does nothing. */
static inline int take_fd(int *fd)
{
	int v = *fd;
	*fd = -1;
	return v;
}
#define take_ptr(p)                            \
	({                                     \
		__typeof__(p) take_ptr_v_ = (p); \
		(p) = NULL;                    \
		take_ptr_v_;                   \
	})

#endif
