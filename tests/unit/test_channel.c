// SPDX-License-Identifier: GPL-2.0-only
/*
 * The host end of the agent protocol over a real unix socket: the test plays
 * QEMU's socket and the agent behind it. What is checked is how hellos are
 * told apart: replies to our pings (also a ping that waited in the port while
 * the node booted, answered after the agent's own hello), a hello after a
 * reboot (new boot id), and a hello with the same boot id from a newly
 * started agent, which means the agent restarted while the node kept running
 * (its workloads died with it).
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "run/channel.h"
#include "util/xalloc.h"

static char dir[] = "/tmp/takeover-test-channel.XXXXXX";
static char *path;
static int lfd = -1, peer = -1;
static struct channel ch;

static void setup(void)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };

	ck_assert_ptr_nonnull(mkdtemp(dir));
	path = xasprintf("%s/agent.sock", dir);
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	lfd = socket(AF_UNIX, SOCK_STREAM, 0);
	ck_assert_int_ge(lfd, 0);
	ck_assert_int_eq(bind(lfd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	ck_assert_int_eq(listen(lfd, 4), 0);
	channel_init(&ch, path, "n1");
}

static void teardown(void)
{
	channel_release(&ch);
	if (peer >= 0)
		close(peer);
	close(lfd);
	unlink(path);
	rmdir(dir);
	free(path);
}

/* Connects the channel and accepts it; returns what the harness sent first. */
static void connect_and_accept(void)
{
	char buf[64] = "";

	ck_assert_int_eq(channel_connect(&ch), 0);
	if (peer >= 0)
		close(peer);
	peer = accept(lfd, NULL, NULL);
	ck_assert_int_ge(peer, 0);
	ck_assert_int_gt(read(peer, buf, sizeof(buf) - 1), 0);
	ck_assert_str_eq(buf, "ping\n");
}

static void agent_says_hello(const char *boot, unsigned started)
{
	char line[160];
	int n = snprintf(line, sizeof(line), "hello proto=1 node=n1 kernel=6.1.0 boot=%s t=9 started=%u\n",
			 boot, started);

	ck_assert_int_eq(write(peer, line, (size_t)n), n);
	ck_assert_int_ge(channel_poll(&ch, 2000), 0);
	ck_assert(ch.hello);
	ck_assert_str_eq(ch.boot_id, boot);
}

START_TEST(ping_replies_are_not_restarts)
{
	connect_and_accept();
	agent_says_hello("boot-a", 700);
	ck_assert(!ch.agent_restarted);
	/* the harness reconnects to a node that kept running: same boot, same agent */
	channel_close(&ch);
	connect_and_accept();
	agent_says_hello("boot-a", 700);
	ck_assert(!ch.agent_restarted);
	/* the node rebooted: the agent's own hello, then the reply to a ping that waited */
	agent_says_hello("boot-b", 650);
	ck_assert(!ch.agent_restarted);
	agent_says_hello("boot-b", 650);
	ck_assert(!ch.agent_restarted);
}
END_TEST

START_TEST(new_agent_same_boot_is_restart)
{
	connect_and_accept();
	agent_says_hello("boot-a", 700);
	agent_says_hello("boot-a", 96000);
	ck_assert(ch.agent_restarted);
	/* the next reply from that agent is not a second restart */
	agent_says_hello("boot-a", 96000);
	ck_assert(!ch.agent_restarted);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("channel");
	TCase *tc = tcase_create("hello");
	SRunner *sr;
	int failed;

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, ping_replies_are_not_restarts);
	tcase_add_test(tc, new_agent_same_boot_is_restart);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
