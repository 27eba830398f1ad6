// SPDX-License-Identifier: GPL-2.0-only
/* The run path on its own: the monitor's loop when it cannot wait, the verifier's result line. */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "run/run.h"
#include "util/log.h"
#include "util/spawn.h"

/*
 * poll() fails with EINVAL when nfds exceeds RLIMIT_NOFILE: with the limit
 * just above the fds open now (so the loop's timerfd still fits) and a
 * channel per node on fd 0, the loop asks for more entries than the limit.
 * It must report the failure, not return 0 as if its predicate had become
 * true. (Check runs each test in its own process.)
 */
START_TEST(poll_failure_is_an_error)
{
	static struct run r;
	struct rlimit rl;
	char tl[] = "/tmp/takeover-test-monitor-XXXXXX";
	int fd = mkstemp(tl), lowest;

	ck_assert_int_ge(fd, 0);
	close(fd);
	ck_assert_int_eq(timeline_open(&r.tl, tl, now_ms()), 0);
	r.o.quiet = true;
	r.c.n = SCENARIO_MAX_NODES;
	for (int i = 0; i < r.c.n; i++)
		r.c.nodes[i].ch.fd = 0;
	lowest = dup(0); /* the fd the timerfd will get */
	close(lowest);
	rl.rlim_cur = rl.rlim_max = (rlim_t)lowest + 1;
	ck_assert_msg(rl.rlim_cur < (rlim_t)r.c.n + 1, "too many fds open (%d) for this test", lowest);
	ck_assert_int_eq(setrlimit(RLIMIT_NOFILE, &rl), 0);
	ck_assert_int_eq(monitor_until(&r, timeline_now(&r.tl) + 60000, NULL, NULL), -EINVAL);
	timeline_close(&r.tl);
	unlink(tl);
}
END_TEST

/* takeover-verify's result line, as recorded in a real run's timeline, and what is not one. */
START_TEST(verify_line)
{
	uint64_t m = 99, c = 99;

	ck_assert_int_eq(parse_verify_line("verify name=n1 slots=4096 acked=12608 checked=4096 missing=0 corrupt=0",
					   &m, &c), 0);
	ck_assert_uint_eq(m, 0);
	ck_assert_uint_eq(c, 0);
	/* stderr first (the agent merges it), first_bad percent-encoded */
	ck_assert_int_eq(parse_verify_line("takeover-verify: short read\nverify name=n2 slots=4096 acked=2112 "
					   "checked=2112 missing=3 corrupt=1 first_bad=17:bad%20payload",
					   &m, &c), 0);
	ck_assert_uint_eq(m, 3);
	ck_assert_uint_eq(c, 1);
	ck_assert_int_eq(parse_verify_line("verify name=n1 slots=4096", &m, &c), -EINVAL);
	ck_assert_int_eq(parse_verify_line("verify name=n1 missing=x corrupt=0", &m, &c), -EINVAL);
	ck_assert_int_eq(parse_verify_line("takeover-verify: /mnt/takeover/writer-n1.dat: No such file or directory",
					   &m, &c), -EINVAL);
	ck_assert_int_eq(parse_verify_line("", &m, &c), -EINVAL);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("monitor");
	TCase *loop = tcase_create("loop");
	SRunner *sr;
	int failed;

	tcase_add_test(loop, poll_failure_is_an_error);
	tcase_add_test(loop, verify_line);
	suite_add_tcase(s, loop);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
