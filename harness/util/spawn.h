/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef TAKEOVER_SPAWN_H
#define TAKEOVER_SPAWN_H
/*
 * Every child process goes through here (git's run-command.h, kselftest's
 * supervision): argv only, never a shell string; its own process group; a
 * deadline after which the whole group is killed; stdout read line by line.
 */
#include <stdbool.h>
#include <stdint.h>

#include "strbuf.h"

enum spawn_io {
	SPAWN_NULL,    /* /dev/null */
	SPAWN_INHERIT, /* the harness's own fd */
	SPAWN_CAPTURE, /* stdout: into result->out and on_line; stderr: merged into stdout */
	SPAWN_FILE,    /* appended to log_path */
};

struct spawn_opts {
	const char *const *argv;
	const char *const *env_add; /* "NAME=value" entries added to the environment, NULL-terminated */
	enum spawn_io out, err;
	const char *log_path;       /* SPAWN_FILE */
	uint64_t timeout_ms;        /* 0: no deadline */
	size_t capture_max;         /* bytes kept in result->out (0: 1 MiB) */
	void (*on_line)(void *ctx, const char *line); /* each captured stdout line */
	void (*on_tick)(void *ctx);                   /* about once a second while it runs */
	void *ctx;
};

struct spawn_result {
	int exit_code;   /* exit status, or 128+signal */
	bool timed_out;  /* killed at the deadline */
	bool cancelled;  /* killed because the user interrupted the harness */
	struct strbuf out;
};

/* Returns 0 when the child ran (whatever its exit code), -errno when it could not start. */
int spawn_run(const struct spawn_opts *o, struct spawn_result *res);
void spawn_result_release(struct spawn_result *res);

/* Convenience: run argv with a deadline, output captured; 0 only if it exited 0. */
int spawn_simple(const char *const *argv, uint64_t timeout_ms, struct strbuf *out);

/* Monotonic milliseconds, the clock of every deadline in the harness. */
uint64_t now_ms(void);
/* Wall-clock milliseconds since the epoch, for timestamps people read. */
uint64_t wall_ms(void);

#endif
