// SPDX-License-Identifier: GPL-2.0-only
/*
 * The guest agent on the host, serving a pty instead of its virtio port
 * (TAKEOVER_AGENT_PORT): with a real syscall fault injected by strace,
 * when pipe2() fails, the exec's error says so, not "no job slot"; and its
 * sample line, read from this host's /proc, carries every field.
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pty.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include "util/cleanup.h"
#include "util/spawn.h"
#include "util/strbuf.h"
#include "util/units.h"
#include "util/xalloc.h"

/* Reads from fd until a line starting with prefix arrives (returned in line) or 20 s pass. */
static bool read_line(int fd, struct strbuf *buf, const char *prefix, struct strbuf *line)
{
	uint64_t deadline = now_ms() + 20000;

	for (;;) {
		char *nl, chunk[4096];
		while ((nl = strchr(buf->buf, '\n'))) {
			bool hit = !strncmp(buf->buf, prefix, strlen(prefix));
			if (hit) {
				strbuf_reset(line);
				strbuf_add(line, buf->buf, (size_t)(nl - buf->buf));
			}
			memmove(buf->buf, nl + 1, buf->len - (size_t)(nl + 1 - buf->buf) + 1);
			buf->len -= (size_t)(nl + 1 - buf->buf);
			if (hit)
				return true;
		}
		struct pollfd p = { .fd = fd, .events = POLLIN };
		uint64_t now = now_ms();
		if (now >= deadline || poll(&p, 1, (int)(deadline - now)) <= 0)
			return false;
		ssize_t n = read(fd, chunk, sizeof(chunk));
		if (n <= 0)
			return false;
		strbuf_add(buf, chunk, (size_t)n);
	}
}

/* The agent on a pty (under strace failing every pipe2() with pipe_fails); *master gets the host's end. */
static pid_t start_agent(int *master, int *slave, bool pipe_fails)
{
	struct termios tio;
	char name[64];
	pid_t pid;

	ck_assert_int_eq(openpty(master, slave, name, NULL, NULL), 0);
	ck_assert_int_eq(tcgetattr(*slave, &tio), 0);
	cfmakeraw(&tio);
	ck_assert_int_eq(tcsetattr(*slave, TCSANOW, &tio), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		setenv("TAKEOVER_AGENT_PORT", name, 1);
		if (pipe_fails)
			execlp("strace", "strace", "-qq", "-f", "-o", "/dev/null", "-e", "trace=pipe2",
			       "-e", "inject=pipe2:error=EMFILE", AGENT, (char *)NULL);
		else
			execl(AGENT, AGENT, (char *)NULL);
		_exit(127);
	}
	return pid;
}

static void stop_agent(pid_t pid, int master, int slave)
{
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	close(master);
	close(slave);
}

START_TEST(pipe_failure_is_reported)
{
	struct strbuf buf = STRBUF_INIT, line = STRBUF_INIT;
	int master, slave;
	pid_t pid = start_agent(&master, &slave, true);

	ck_assert_msg(read_line(master, &buf, "hello ", &line), "no hello from the agent (is strace installed?)");
	ck_assert_int_eq(write(master, "exec 7 5000 true\n", 17), 17);
	ck_assert_msg(read_line(master, &buf, "error 7 ", &line) || read_line(master, &buf, "done 7 ", &line),
		      "no answer to the exec");
	ck_assert_msg(strstr(line.buf, "msg=pipe") != NULL, "the agent answered: %s", line.buf);
	stop_agent(pid, master, slave);
	strbuf_release(&buf);
	strbuf_release(&line);
}
END_TEST

/*
 * The once-a-second sample, read from this host's real /proc: every field the
 * monitor plots is there, each a number (a field the agent could not parse is
 * left out, never sent as 0).
 */
START_TEST(sample_has_every_field)
{
	static const char *const keys[] = { "t", "memtotal", "memfree", "memavail", "dirty", "writeback",
					    "pgscan_direct", "nr_dirty", "cpu_busy", "cpu_idle", "cpu_iowait" };
	struct strbuf buf = STRBUF_INIT, line = STRBUF_INIT;
	int master, slave;
	pid_t pid = start_agent(&master, &slave, false);

	ck_assert_msg(read_line(master, &buf, "sample ", &line), "no sample from the agent within the deadline");
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		_cleanup_free_ char *k = xasprintf(" %s=", keys[i]);
		const char *v = strstr(line.buf, k), *why;
		uint64_t n;
		ck_assert_msg(v, "no %s in: %s", keys[i], line.buf);
		_cleanup_free_ char *num = xstrndup(v + strlen(k), strcspn(v + strlen(k), " "));
		ck_assert_msg(parse_uint(num, &n, &why) == 0, "%s=%s: %s", keys[i], num, why);
	}
	if (access("/proc/pressure/memory", R_OK) == 0)
		ck_assert_msg(strstr(line.buf, " psi_some=") && strstr(line.buf, " psi_full="), "no PSI in: %s",
			      line.buf);
	stop_agent(pid, master, slave);
	strbuf_release(&buf);
	strbuf_release(&line);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("agent");
	TCase *tc = tcase_create("faults");
	SRunner *sr;
	int failed;

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, pipe_failure_is_reported);
	tcase_add_test(tc, sample_has_every_field);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
