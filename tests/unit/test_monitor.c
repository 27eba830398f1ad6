// SPDX-License-Identifier: GPL-2.0-only
/* The run path on its own: the monitor's loop when it cannot wait, the verifier's result line. */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include "run/run.h"
#include "util/log.h"
#include "util/spawn.h"
#include "util/strbuf.h"

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

/* Appends the file at path to the file at dst (the console log a node "prints"). */
static void append_file(const char *dst, const char *path)
{
	struct strbuf sb = STRBUF_INIT;
	FILE *f = fopen(dst, "ae");

	ck_assert_int_eq(strbuf_read_file(&sb, path, 1 << 20), 0);
	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(fwrite(sb.buf, 1, sb.len, f), sb.len);
	fclose(f);
	strbuf_release(&sb);
}

/*
 * The monitor's handlers on recorded input, through its real loop: n1's agent
 * stream from a real run (tests/fixtures/agent/n1-pressure-start.txt: the
 * samples and progress reports of 20 s around the hog's start, as the agent
 * sent them) on a socket, and real console logs (an OOM kill, an oops)
 * appearing in n1's console file. What the loop writes to the timeline is read back with
 * timeline_load(), as the verdict reads it. No libvirt connection: the
 * monitor then polls no domain states.
 */
START_TEST(handlers_on_recorded_stream)
{
	static struct run r;
	char tl[] = "/tmp/takeover-test-monitor-XXXXXX", con[] = "/tmp/takeover-test-console-XXXXXX";
	struct strbuf stream = STRBUF_INIT;
	struct verdict_input in;
	struct scenario sc;
	struct strbuf errs = STRBUF_INIT;
	int sv[2], bad, fd;

	ck_assert_int_eq(scenario_parse("m.ini", "", 0, "/nonexistent", &sc, &errs), 0);
	fd = mkstemp(tl);
	close(fd);
	fd = mkstemp(con);
	close(fd);
	ck_assert_int_eq(timeline_open(&r.tl, tl, now_ms()), 0);
	r.sc = &sc;
	r.o.quiet = true;
	r.c.n = 1;
	r.takeover = 1;
	snprintf(r.c.nodes[0].name, sizeof(r.c.nodes[0].name), "n1");
	r.c.nodes[0].console = con;
	channel_init(&r.c.nodes[0].ch, "/nonexistent.agent", "n1");
	/* the channel reads until EAGAIN, as on its real socket */
	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0, sv), 0);
	r.c.nodes[0].ch.fd = sv[0];
	r.nodes[0].writer = r.nodes[0].hog = true;
	monitor_init(&r);

	ck_assert_int_eq(strbuf_read_file(&stream, FIXTURES_DIR "/agent/n1-pressure-start.txt", 1 << 20), 0);
	ck_assert_int_eq(write(sv[1], stream.buf, stream.len), (ssize_t)stream.len);
	append_file(con, FIXTURES_DIR "/console/real-oom-kill-nfsd.log");
	append_file(con, FIXTURES_DIR "/console/real-oops-null-deref-nfs-commit.log");
	ck_assert_int_eq(monitor_until(&r, timeline_now(&r.tl) + 2500, NULL, NULL), -ETIMEDOUT);
	monitor_release(&r);
	timeline_close(&r.tl);

	/* the handlers' own state: the last writer report */
	ck_assert_uint_eq(r.nodes[0].acked_bytes, 165675008);
	ck_assert_uint_eq(r.nodes[0].acked_records, 2528);
	/* and the timeline, as the verdict sees it */
	ck_assert_int_eq(timeline_load(tl, &sc, &in, &bad), 0);
	ck_assert_int_eq(bad, 0);
	const struct vseries *w = NULL;
	for (int i = 0; i < in.nnodes; i++)
		if (!strcmp(in.nodes[i].node, "n1"))
			w = &in.nodes[i];
	ck_assert_ptr_nonnull(w);
	ck_assert_uint_eq(w->n, 20); /* every writer report of the stream */
	/* the samples: MemAvailable of each */
	ck_assert_int_eq(in.nmem, 1);
	ck_assert_uint_eq(in.mem[0].n, 20);
	ck_assert_uint_eq(in.mem[0].s[0].avail_kb, 372536);
	/* the console: the OOM kill's victim (info) and the oops (fatal: a FAIL-KERNEL) */
	ck_assert_str_eq(in.mem[0].oom_victim, "(sd-pam)");
	ck_assert_int_ge(in.nkernel, 1);
	ck_assert_str_eq(in.kernel[0].node, "n1");
	ck_assert_str_eq(in.kernel[0].cls, "oops");
	verdict_input_release(&in);
	scenario_release(&sc);
	channel_release(&r.c.nodes[0].ch);
	close(sv[1]);
	strbuf_release(&stream);
	strbuf_release(&errs);
	unlink(tl);
	unlink(con);
}
END_TEST

/* The audit's command on a guest holding the group (iproute2 and util-linux of Debian 12, as the image has). */
static const char audit_server[] =
	"1: lo    inet 127.0.0.1/8 scope host lo\\       valid_lft forever preferred_lft forever\n"
	"2: eth0    inet 10.99.0.11/24 brd 10.99.0.255 scope global eth0\\       valid_lft forever preferred_lft forever\n"
	"2: eth0    inet 10.99.0.100/24 brd 10.99.0.255 scope global secondary eth0\\       valid_lft forever preferred_lft forever\n"
	"--\n"
	"/ ext4\n/proc proc\n/srv/nfs ext4\n/mnt/nfs nfs4\n/run/rpc_pipefs rpc_pipefs\n";
static const char audit_client[] =
	"1: lo    inet 127.0.0.1/8 scope host lo\\       valid_lft forever preferred_lft forever\n"
	"2: eth0    inet 10.99.0.12/24 brd 10.99.0.255 scope global eth0\\       valid_lft forever preferred_lft forever\n"
	"--\n"
	"/ ext4\n/srv/nfsx ext4\n/mnt/nfs nfs4\n";

START_TEST(audit_node_answers)
{
	ck_assert(audit_holds_ip(audit_server, "10.99.0.100"));
	ck_assert(audit_mounts_shared_fs(audit_server));
	ck_assert(!audit_holds_ip(audit_client, "10.99.0.100"));
	ck_assert(!audit_holds_ip(audit_server, "10.99.0.10")); /* a prefix of an address is not it */
	ck_assert(!audit_mounts_shared_fs(audit_client));     /* /srv/nfsx is not /srv/nfs */
	ck_assert(!audit_mounts_shared_fs("/srv/nfs ext4\n")); /* before the separator: ip's part */
	ck_assert(audit_mounts_shared_fs("--\n/srv/nfs ext4")); /* the last line without its newline */
}
END_TEST

int main(void)
{
	Suite *s = suite_create("monitor");
	TCase *loop = tcase_create("loop");
	SRunner *sr;
	int failed;

	tcase_add_test(loop, verify_line);
	tcase_add_test(loop, audit_node_answers);
	tcase_add_test(loop, handlers_on_recorded_stream);
	tcase_add_test(loop, poll_failure_is_an_error); /* last: it lowers RLIMIT_NOFILE (CK_FORK=no) */
	suite_add_tcase(s, loop);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
