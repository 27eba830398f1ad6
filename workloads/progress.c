// SPDX-License-Identifier: GPL-2.0-only
#include "progress.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

void progress_path(const char *name, char *buf, size_t len)
{
	snprintf(buf, len, "/dev/shm/takeover-%s", name);
}

static struct progress_shm *map_fd(int fd)
{
	void *p = mmap(NULL, sizeof(struct progress_shm), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);

	close(fd);
	return p == MAP_FAILED ? NULL : p;
}

struct progress_shm *progress_create(const char *name)
{
	char path[128];
	int fd;

	progress_path(name, path, sizeof(path));
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0 || ftruncate(fd, sizeof(struct progress_shm)) < 0) {
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	return map_fd(fd);
}

void progress_destroy(struct progress_shm *p, const char *name)
{
	char path[128];

	progress_path(name, path, sizeof(path));
	munmap(p, sizeof(*p));
	unlink(path);
}

void progress_snapshot(const struct progress_shm *p, struct progress_shm *out)
{
	for (int tries = 0; tries < 1000; tries++) {
		uint64_t s1 = __atomic_load_n(&p->seq, __ATOMIC_ACQUIRE);
		if (s1 & 1)
			continue;
		memcpy(out, p, sizeof(*out));
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (__atomic_load_n(&p->seq, __ATOMIC_RELAXED) == s1)
			return;
	}
	memcpy(out, p, sizeof(*out)); /* a writer died mid-update: take what is there */
}

struct progress_shm *progress_attach(enum progress_kind kind)
{
	const char *path = getenv(PROGRESS_ENV);
	struct progress_shm *p = NULL;

	if (path && *path) {
		int fd = open(path, O_RDWR | O_CLOEXEC);
		if (fd >= 0)
			p = map_fd(fd);
	}
	if (!p) {
		p = mmap(NULL, sizeof(*p), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED)
			return NULL;
	}
	p->magic = PROGRESS_MAGIC;
	p->kind = kind;
	return p;
}

void progress_begin(struct progress_shm *p)
{
	__atomic_add_fetch(&p->seq, 1, __ATOMIC_ACQ_REL);
}

void progress_end(struct progress_shm *p)
{
	__atomic_add_fetch(&p->seq, 1, __ATOMIC_RELEASE);
}

const char *progress_kind_name(uint32_t kind)
{
	static const char *const n[] = { "writer", "hog", "other" };

	return kind < 3 ? n[kind] : "other";
}

const char *progress_phase_name(uint32_t phase)
{
	static const char *const n[] = { "start", "write", "fsync", "sleep", "done", "error" };

	return phase <= PHASE_ERROR ? n[phase] : "unknown";
}
