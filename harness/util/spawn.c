// SPDX-License-Identifier: GPL-2.0-only
#include "spawn.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cancel.h"
#include "xalloc.h"

extern char **environ;

uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

uint64_t wall_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static int pidfd_open_compat(pid_t pid)
{
	return (int)syscall(SYS_pidfd_open, pid, 0);
}

static char **build_env(const char *const *add)
{
	size_t n = 0, k = 0;
	char **env;

	while (environ[n])
		n++;
	while (add && add[k])
		k++;
	env = xcalloc(n + k + 1, sizeof(*env));
	for (size_t i = 0; i < n; i++)
		env[i] = environ[i];
	for (size_t i = 0; i < k; i++)
		env[n + i] = (char *)add[i];
	return env;
}

static int setup_io(posix_spawn_file_actions_t *fa, int fd, enum spawn_io how,
		    const char *log_path, int pipe_w)
{
	switch (how) {
	case SPAWN_NULL:
		return posix_spawn_file_actions_addopen(fa, fd, "/dev/null", O_RDWR, 0);
	case SPAWN_INHERIT:
		return 0;
	case SPAWN_CAPTURE:
		return posix_spawn_file_actions_adddup2(fa, pipe_w, fd);
	case SPAWN_FILE:
		return posix_spawn_file_actions_addopen(fa, fd, log_path,
							O_WRONLY | O_CREAT | O_APPEND, 0644);
	}
	return EINVAL;
}

/* Feeds complete lines to on_line; keeps a partial last line in pending. */
static void take_output(const struct spawn_opts *o, struct spawn_result *res, struct strbuf *pending,
			const char *buf, size_t n, size_t cap)
{
	if (res->out.len < cap)
		strbuf_add(&res->out, buf, n < cap - res->out.len ? n : cap - res->out.len);
	if (!o->on_line)
		return;
	strbuf_add(pending, buf, n);
	char *start = pending->buf, *nl;
	while ((nl = memchr(start, '\n', pending->len - (size_t)(start - pending->buf)))) {
		*nl = '\0';
		o->on_line(o->ctx, start);
		start = nl + 1;
	}
	size_t rest = pending->len - (size_t)(start - pending->buf);
	memmove(pending->buf, start, rest);
	pending->len = rest;
	pending->buf[rest] = '\0';
}

static void kill_group(pid_t pid, int pidfd)
{
	struct pollfd p = { .fd = pidfd, .events = POLLIN };

	kill(-pid, SIGTERM);
	if (poll(&p, 1, 3000) <= 0)
		kill(-pid, SIGKILL);
}

static int supervise(const struct spawn_opts *o, struct spawn_result *res, pid_t pid, int pidfd,
		     int rfd)
{
	struct strbuf pending = STRBUF_INIT;
	uint64_t deadline = o->timeout_ms ? now_ms() + o->timeout_ms : 0;
	size_t cap = o->capture_max ? o->capture_max : 1 << 20;
	bool exited = false;
	char buf[8192];

	while (!exited || rfd >= 0) {
		struct pollfd p[2] = { { .fd = pidfd, .events = POLLIN }, { .fd = rfd, .events = POLLIN } };
		int wait = o->on_tick ? 1000 : -1;
		if (cancel_requested()) {
			res->cancelled = true;
			kill_group(pid, pidfd);
			break;
		}
		if (deadline) {
			uint64_t now = now_ms();
			if (now >= deadline) {
				res->timed_out = true;
				kill_group(pid, pidfd);
				break;
			}
			if (wait < 0 || deadline - now < (uint64_t)wait)
				wait = (int)(deadline - now);
		}
		int pr = poll(p, rfd >= 0 ? 2 : 1, wait);
		if (pr < 0 && errno != EINTR)
			break;
		if (pr <= 0) {
			if (o->on_tick)
				o->on_tick(o->ctx);
			continue;
		}
		if (p[0].revents)
			exited = true;
		if (rfd >= 0 && p[1].revents) {
			ssize_t n = read(rfd, buf, sizeof(buf));
			if (n > 0) {
				take_output(o, res, &pending, buf, (size_t)n, cap);
			} else if (n == 0 || errno != EINTR) {
				close(rfd);
				rfd = -1;
			}
		}
	}
	if (rfd >= 0)
		close(rfd);
	if (pending.len && o->on_line)
		o->on_line(o->ctx, pending.buf);
	strbuf_release(&pending);
	return 0;
}

int spawn_run(const struct spawn_opts *o, struct spawn_result *res)
{
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t attr;
	int pipefd[2] = { -1, -1 };
	bool capture = o->out == SPAWN_CAPTURE || o->err == SPAWN_CAPTURE;
	char **env = build_env(o->env_add);
	int r, status, pidfd;
	pid_t pid;

	memset(res, 0, sizeof(*res));
	strbuf_init(&res->out, 0);
	if (capture && pipe2(pipefd, O_CLOEXEC) < 0) {
		free(env);
		return -errno;
	}
	posix_spawn_file_actions_init(&fa);
	posix_spawnattr_init(&attr);
	posix_spawnattr_setpgroup(&attr, 0);
	posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
	r = setup_io(&fa, STDIN_FILENO, SPAWN_NULL, NULL, -1);
	if (!r)
		r = setup_io(&fa, STDOUT_FILENO, o->out, o->log_path, pipefd[1]);
	if (!r)
		r = setup_io(&fa, STDERR_FILENO, o->err, o->log_path, pipefd[1]);
	if (!r)
		r = posix_spawnp(&pid, o->argv[0], &fa, &attr, (char *const *)o->argv, env);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&attr);
	free(env);
	if (pipefd[1] >= 0)
		close(pipefd[1]);
	if (r) {
		if (pipefd[0] >= 0)
			close(pipefd[0]);
		return -r;
	}
	pidfd = pidfd_open_compat(pid);
	if (pidfd < 0) {
		/* Old kernel: no deadline possible, but never leave a zombie. */
		waitpid(pid, &status, 0);
	} else {
		supervise(o, res, pid, pidfd, pipefd[0]);
		pipefd[0] = -1;
		close(pidfd);
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
	}
	if (pipefd[0] >= 0)
		close(pipefd[0]);
	res->exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
	return 0;
}

void spawn_result_release(struct spawn_result *res)
{
	strbuf_release(&res->out);
}

int spawn_simple(const char *const *argv, uint64_t timeout_ms, struct strbuf *out)
{
	struct spawn_opts o = {
		.argv = argv, .out = SPAWN_CAPTURE, .err = SPAWN_CAPTURE, .timeout_ms = timeout_ms,
	};
	struct spawn_result res;
	int r = spawn_run(&o, &res);

	if (r < 0)
		return r;
	if (out)
		strbuf_add(out, res.out.buf, res.out.len);
	r = res.cancelled ? -EINTR : res.timed_out ? -ETIMEDOUT : res.exit_code ? -EIO : 0;
	spawn_result_release(&res);
	return r;
}
