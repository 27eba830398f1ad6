// SPDX-License-Identifier: GPL-2.0-only
/*
 * Serial-console classification (harness/forensics/console/): line cleaning, one
 * classifier per family, and the tailer that turns a byte stream into
 * reports with syzkaller-style titles. Multi-line inputs are console logs
 * under tests/fixtures/console/ (README.md there says which are real), fed
 * in odd-sized chunks the way read() hands them over.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "forensics/console/console.h"
#include "forensics/console/families.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

#define CONSOLE_FIXTURES FIXTURES_DIR "/console/"

/* ---- console_clean_line ---- */

static double clean(const char *in, char *out, size_t len)
{
	snprintf(out, len, "%s", in);
	return console_clean_line(out);
}

START_TEST(clean_prefix_and_crlf)
{
	char l[256];

	ck_assert_double_eq_tol(clean("[   12.345678] foo bar\r", l, sizeof(l)), 12.345678, 1e-9);
	ck_assert_str_eq(l, "foo bar");
	/* the real console: CR before the LF the tailer split on */
	ck_assert_double_eq_tol(
		clean("[  340.899074] INFO: task takeover-writer:662 blocked for more than 30 seconds.\r", l,
		      sizeof(l)),
		340.899074, 1e-9);
	ck_assert_str_eq(l, "INFO: task takeover-writer:662 blocked for more than 30 seconds.");
	/* continuation lines lose their indentation with the prefix */
	ck_assert_double_eq_tol(clean("[  340.903816]       Not tainted 6.1.0-57-cloud-amd64 #1\r", l,
				      sizeof(l)),
				340.903816, 1e-9);
	ck_assert_str_eq(l, "Not tainted 6.1.0-57-cloud-amd64 #1");
	/* an empty kernel line is empty */
	ck_assert_double_eq_tol(clean("[    0.000000] \r", l, sizeof(l)), 0.0, 1e-9);
	ck_assert_str_eq(l, "");
	/* a CR in the middle goes too */
	ck_assert_double_eq(clean("a\rb\r\r", l, sizeof(l)), -1);
	ck_assert_str_eq(l, "ab");
}
END_TEST

START_TEST(clean_ansi)
{
	char l[256];

	/* systemd's coloured status: no kernel time, brackets kept */
	ck_assert_double_eq(clean("[\033[0;32m  OK  \033[0m] Started takeover-agent.service.\r", l,
				  sizeof(l)),
			    -1);
	ck_assert_str_eq(l, "[  OK  ] Started takeover-agent.service.");
	/* bash's bracketed-paste switch before the prompt */
	ck_assert_double_eq(clean("\033[?2004hroot@n1:~# ", l, sizeof(l)), -1);
	ck_assert_str_eq(l, "root@n1:~# ");
	/* colour around a kernel line, and an escape cut off at the end of the line */
	ck_assert_double_eq_tol(clean("\033[1m[  101.000001] BUG: foo\033[0m\033[", l, sizeof(l)),
				101.000001, 1e-9);
	ck_assert_str_eq(l, "BUG: foo");
	/* ESC not followed by '[' is left alone */
	ck_assert_double_eq(clean("a\033b", l, sizeof(l)), -1);
	ck_assert_str_eq(l, "a\033b");
}
END_TEST

START_TEST(clean_wall_clock)
{
	char l[256];

	/* dmesg -T's stamp goes, with no kernel time to return */
	ck_assert_double_eq(clean("[Mon Dec  7 07:40:26 2026] nfsd: last server has exited", l,
				  sizeof(l)),
			    -1);
	ck_assert_str_eq(l, "nfsd: last server has exited");
	/* a bracket that ends in its only colon is not a stamp: the check stops at the
	 * string's end (the fuzzer's stack-buffer-overflow, 31 characters in a 32-byte copy) */
	ck_assert_double_eq(clean("[Aaaaaaaaaaaaaaaaaaaaaaaaaaaaa1:] x", l, sizeof(l)), -1);
	ck_assert_str_eq(l, "[Aaaaaaaaaaaaaaaaaaaaaaaaaaaaa1:] x");
	ck_assert_double_eq(clean("[Aaaaaaaaaaaaaaaaaa1:2] x", l, sizeof(l)), -1);
	ck_assert_str_eq(l, "[Aaaaaaaaaaaaaaaaaa1:2] x");
}
END_TEST

START_TEST(clean_no_prefix)
{
	char l[256];

	ck_assert_double_eq(clean("Debian GNU/Linux 12 n1 ttyS0", l, sizeof(l)), -1);
	ck_assert_str_eq(l, "Debian GNU/Linux 12 n1 ttyS0");
	ck_assert_double_eq(clean("[ not a time] x", l, sizeof(l)), -1);
	ck_assert_str_eq(l, "[ not a time] x");
	ck_assert_double_eq(clean("[12.5 x] y", l, sizeof(l)), -1);
	ck_assert_str_eq(l, "[12.5 x] y");
	ck_assert_double_eq(clean("", l, sizeof(l)), -1);
	ck_assert_str_eq(l, "");
	/* no space after the stamp */
	ck_assert_double_eq_tol(clean("[1.5]x", l, sizeof(l)), 1.5, 1e-9);
	ck_assert_str_eq(l, "x");
	/* only the first bracket is the kernel's: the OOM task table keeps its own */
	ck_assert_double_eq_tol(clean("[  155.432100] [    156]     0   156", l, sizeof(l)), 155.4321,
				1e-9);
	ck_assert_str_eq(l, "[    156]     0   156");
}
END_TEST

/* ---- console_classify ---- */

static const struct {
	const char *line;
	const char *cls; /* NULL: starts no report */
	enum console_severity sev;
} lines[] = {
	{ "INFO: task writer:123 blocked for more than 30 seconds.", "hung-task", SEV_INFO },
	{ "INFO: task takeover-writer:662 blocked for more than 122 seconds.", "hung-task", SEV_INFO },
	{ "watchdog: BUG: soft lockup - CPU#0 stuck for 22s! [kworker/0:1:42]", "soft-lockup", SEV_INFO },
	{ "NMI watchdog: Watchdog detected hard LOCKUP on cpu 0", "hard-lockup", SEV_INFO },
	{ "watchdog: Watchdog detected hard LOCKUP on cpu 182", "hard-lockup", SEV_INFO },
	{ "rcu: INFO: rcu_preempt self-detected stall on CPU", "rcu-stall", SEV_INFO },
	{ "rcu: INFO: rcu_sched self-detected stall on CPU", "rcu-stall", SEV_INFO },
	{ "rcu: INFO: rcu_preempt detected stalls on CPUs/tasks:", "rcu-stall", SEV_INFO },
	{ "BUG: workqueue lockup - pool cpus=0 node=0 flags=0x0 nice=0 stuck for 31s!",
	  "workqueue-lockup", SEV_INFO },
	{ "Out of memory: Killed process 1234 (takeover-hog) total-vm:1048576kB, anon-rss:600000kB, "
	  "file-rss:4kB, shmem-rss:0kB, UID:0 pgtables:1216kB oom_score_adj:1000",
	  "oom-kill", SEV_INFO },
	{ "Memory cgroup out of memory: Killed process 1234 (takeover-hog) total-vm:1048576kB",
	  "oom-kill", SEV_INFO },
	{ "Kernel panic - not syncing: sysrq triggered crash", "panic", SEV_FATAL },
	{ "Kernel panic - not syncing: hung_task: blocked tasks", "panic", SEV_FATAL },
	{ "BUG: kernel NULL pointer dereference, address: 0000000000000000", "oops", SEV_FATAL },
	{ "BUG: unable to handle page fault for address: ffffc90000a3f000", "oops", SEV_FATAL },
	{ "BUG: Bad page state in process takeover-writer  pfn:1a2b3", "oops", SEV_FATAL },
	{ "kernel BUG at fs/nfs/write.c:1234!", "oops", SEV_FATAL },
	{ "general protection fault, probably for non-canonical address 0xdead000000000122: 0000 [#1] "
	  "PREEMPT SMP NOPTI",
	  "oops", SEV_FATAL },
	{ "Oops: 0000 [#1] PREEMPT SMP NOPTI", "oops", SEV_FATAL },
	{ "Oops: invalid opcode: 0000 [#1] PREEMPT SMP NOPTI", "oops", SEV_FATAL },
	{ "WARNING: CPU: 0 PID: 1 at fs/nfs/write.c:100 nfs_foo+0x12/0x40 [nfs]", "warning", SEV_INFO },
	{ "WARNING: possible circular locking dependency detected", "lockdep", SEV_FATAL },
	{ "WARNING: possible recursive locking detected", "lockdep", SEV_FATAL },
	{ "WARNING: inconsistent lock state", "lockdep", SEV_FATAL },
	{ "WARNING: bad unlock balance detected!", "lockdep", SEV_FATAL },
	{ "nfs: server 10.99.0.100 not responding, still trying", "nfs-server", SEV_INFO },
	{ "nfs: server 10.99.0.100 not responding, timed out", "nfs-server", SEV_INFO },
	{ "nfs: server 10.99.0.100 OK", "nfs-server", SEV_INFO },
	{ "NFSD: starting 10-second grace period (net f0000000)", "nfsd", SEV_INFO },
	{ "NFSD: Using UMH upcall client tracking operations.", "nfsd", SEV_INFO },
	{ "nfsd: last server has exited, flushing export cache", "nfsd", SEV_INFO },
	{ "lockd: server 10.99.0.100 not responding, still trying", "nfsd", SEV_INFO },
	/* lines that start nothing */
	{ "EXT4-fs (vdc): mounted filesystem with ordered data mode. Quota mode: none.", NULL, 0 },
	{ "Not tainted 6.1.0-57-cloud-amd64 #1 Debian 6.1.192-3", NULL, 0 },
	{ "\"echo 0 > /proc/sys/kernel/hung_task_timeout_secs\" disables this message.", NULL, 0 },
	{ "INFO: task takeover-writer:662 can't die for more than 30 seconds.", NULL, 0 },
	{ "takeover-hog invoked oom-killer: gfp_mask=0x140cca(GFP_HIGHUSER_MOVABLE|__GFP_COMP), order=0",
	  NULL, 0 },
	{ "oom-kill:constraint=CONSTRAINT_NONE,nodemask=(null),cpuset=/,mems_allowed=0-1,global_oom", NULL,
	  0 },
	{ "memcpy: detected field-spanning write (size 28) of single field \"request.sap\" at "
	  "fs/nfs/super.c:857 (size 18446744073709551615)",
	  NULL, 0 },
	{ "nfs: server 10.99.0.100 is slow", NULL, 0 },
	{ "NFS: Registering the id_resolver key type", NULL, 0 },
	{ "sysrq: Trigger a crash", NULL, 0 },
	{ "invalid opcode: 0000 [#1] PREEMPT SMP NOPTI", NULL, 0 },
	{ "------------[ cut here ]------------", NULL, 0 },
	{ "hrtimer: interrupt took 109284 ns", NULL, 0 },
	{ "[  OK  ] Started takeover-agent.service.", NULL, 0 },
	{ "", NULL, 0 },
};

START_TEST(classify_line)
{
	const struct classifier *c = console_classify(lines[_i].line);

	if (!lines[_i].cls) {
		ck_assert_msg(!c, "'%s' classified as %s", lines[_i].line, c ? c->cls : "");
		return;
	}
	ck_assert_msg(c, "'%s' not classified (expected %s)", lines[_i].line, lines[_i].cls);
	ck_assert_str_eq(c->cls, lines[_i].cls);
	ck_assert_int_eq(c->sev, lines[_i].sev);
}
END_TEST

/* Every classifier of families.h is in the registry, once; a forgotten one would never match. */
/* Stack frames of nfsd functions (in sysrq and hung-task output) are not nfsd messages. */
START_TEST(frames_are_not_messages)
{
	ck_assert_ptr_null(console_classify("nfsd4_commit+0x5e/0x90 [nfsd]"));
	ck_assert_ptr_null(console_classify(" nfsd4_proc_compound+0x344/0x670 [nfsd]"));
	ck_assert_ptr_nonnull(console_classify("NFSD: starting 10-second grace period (net f0000000)"));
}
END_TEST

START_TEST(registry_complete)
{
	const struct classifier *const families[] = {
		&classifier_hung_task, &classifier_soft_lockup, &classifier_hard_lockup,
		&classifier_rcu_stall, &classifier_workqueue,   &classifier_oom,
		&classifier_oops,      &classifier_panic,       &classifier_warning,
		&classifier_lockdep,   &classifier_nfs_server,  &classifier_nfsd,
	};
	size_t n = 0;

	while (console_classifiers[n])
		n++;
	ck_assert_uint_eq(n, sizeof(families) / sizeof(families[0]));
	for (size_t i = 0; i < sizeof(families) / sizeof(families[0]); i++) {
		int seen = 0;
		for (size_t k = 0; k < n; k++)
			seen += console_classifiers[k] == families[i];
		ck_assert_msg(seen == 1, "%s registered %d times", families[i]->cls, seen);
		ck_assert_ptr_nonnull(families[i]->match);
		ck_assert_int_ge(families[i]->max_lines, 0);
		for (size_t k = 0; k < i; k++)
			ck_assert_str_ne(families[k]->cls, families[i]->cls);
	}
}
END_TEST

START_TEST(first_meaningful_frame)
{
	char fn[64];

	ck_assert(console_first_meaningful_frame("Call Trace:\n<TASK>\n__schedule+0x34d/0xa00\n"
						 "? filemap_alloc_folio+0x100/0x100\n"
						 "nfs_file_fsync+0x94/0x1b0 [nfs]\n",
						 fn, sizeof(fn)));
	ck_assert_str_eq(fn, "nfs_file_fsync");
	ck_assert(console_first_meaningful_frame("RIP: 0010:nfs_commit_inode+0x4d/0x80 [nfs]\n", fn,
						 sizeof(fn)));
	ck_assert_str_eq(fn, "nfs_commit_inode");
	/* user-space RIP, unreliable frames, lock/scheduler helpers only */
	ck_assert(!console_first_meaningful_frame("RIP: 0033:0x443220\n? nfs_write_end+0xaf/0x340 [nfs]\n"
						  "schedule+0x5a/0xd0\n_raw_spin_lock+0x1e/0x30\n"
						  "native_queued_spin_lock_slowpath+0x65/0x2d0\n",
						  fn, sizeof(fn)));
	ck_assert(!console_first_meaningful_frame("", fn, sizeof(fn)));
	/* GCC's clones are their function; helpers stay helpers with a suffix */
	ck_assert(console_first_meaningful_frame("nmi_cpu_backtrace.cold+0x30/0x76\n"
						 "RIP: 0010:nfs_request_mount.constprop.0.isra.0+0x1cf/0x1e0 [nfs]\n",
						 fn, sizeof(fn)));
	ck_assert_str_eq(fn, "nfs_request_mount");
	ck_assert(!console_first_meaningful_frame(".cold+0x1/0x2\n_raw_spin_lock.part.0+0x1/0x2\n", fn,
						  sizeof(fn)));
	/* a truncated name still fits the buffer */
	ck_assert(console_first_meaningful_frame("a_rather_long_function_name+0x1/0x2\n", fn, 8));
	ck_assert_str_eq(fn, "a_rathe");
}
END_TEST

/* ---- the tailer ---- */

#define MAX_REPORTS 16

struct seen {
	int n;
	struct {
		char cls[24];
		enum console_severity sev;
		char title[160];
		char *text;
		double kernel_time;
	} r[MAX_REPORTS];
};

static void sink(void *ctx, const struct console_report *rep)
{
	struct seen *s = ctx;

	ck_assert_int_lt(s->n, MAX_REPORTS);
	snprintf(s->r[s->n].cls, sizeof(s->r[0].cls), "%s", rep->c->cls);
	s->r[s->n].sev = rep->c->sev;
	snprintf(s->r[s->n].title, sizeof(s->r[0].title), "%s", rep->title);
	s->r[s->n].text = xstrdup(rep->text.buf);
	s->r[s->n].kernel_time = rep->kernel_time;
	s->n++;
}

static void seen_release(struct seen *s)
{
	for (int i = 0; i < s->n; i++)
		free(s->r[i].text);
	s->n = 0;
}

/* Feeds data in chunk sizes that split lines, CRLFs and prefixes anywhere. */
static void feed_odd(struct console_tail *t, const char *data, size_t len)
{
	static const size_t sizes[] = { 1, 7, 13, 61, 2, 3, 128, 5, 4096 };
	size_t off = 0;

	for (int i = 0; off < len; i++) {
		size_t n = sizes[i % (sizeof(sizes) / sizeof(sizes[0]))];
		if (n > len - off)
			n = len - off;
		console_tail_feed(t, data + off, n);
		off += n;
	}
}

static void feed_str(struct console_tail *t, const char *s)
{
	console_tail_feed(t, s, strlen(s));
}

enum feeding { FEED_ODD, FEED_BYTES, FEED_WHOLE };

/* Runs a fixture through a tailer, flushed at the end; the reports land in *s. */
static void tail_fixture(const char *name, enum feeding how, struct seen *s)
{
	struct strbuf log = STRBUF_INIT;
	struct console_tail t;
	char *path = xasprintf(CONSOLE_FIXTURES "%s", name);

	ck_assert_msg(strbuf_read_file(&log, path, 1 << 20) == 0, "cannot read %s", path);
	memset(s, 0, sizeof(*s));
	console_tail_init(&t, sink, s);
	if (how == FEED_WHOLE)
		console_tail_feed(&t, log.buf, log.len);
	else if (how == FEED_BYTES)
		for (size_t i = 0; i < log.len; i++)
			console_tail_feed(&t, log.buf + i, 1);
	else
		feed_odd(&t, log.buf, log.len);
	console_tail_flush(&t);
	console_tail_release(&t);
	strbuf_release(&log);
	free(path);
}

static int count_lines(const char *text)
{
	int n = 0;

	for (const char *p = text; *p; p++)
		n += *p == '\n';
	return n;
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);

	return a >= b && !strcmp(s + a - b, suffix);
}

/* The one report a single-report fixture holds. */
static void one_report(const char *name, const char *cls, enum console_severity sev,
		       const char *title, struct seen *s)
{
	tail_fixture(name, FEED_ODD, s);
	ck_assert_msg(s->n == 1, "%s: %d reports, expected 1 (first: %s)", name, s->n,
		      s->n ? s->r[0].title : "");
	ck_assert_str_eq(s->r[0].cls, cls);
	ck_assert_int_eq(s->r[0].sev, sev);
	ck_assert_str_eq(s->r[0].title, title);
	ck_assert_ptr_null(strchr(s->r[0].text, '\r'));
	ck_assert_double_gt(s->r[0].kernel_time, 0);
}

/* REAL: the takeover node's writer blocked in fsync while the server moved. */
START_TEST(tail_hung_task_real)
{
	static const char head[] = "INFO: task takeover-writer:662 blocked for more than 30 seconds.\n"
				   "Not tainted 6.1.0-57-cloud-amd64 #1 Debian 6.1.192-3\n";
	struct seen s, bytes, whole;

	one_report("hung-task.log", "hung-task", SEV_INFO,
		   "INFO: task hung in nfs_file_fsync", &s);
	ck_assert_double_eq_tol(s.r[0].kernel_time, 340.899074, 1e-6);
	ck_assert_msg(!strncmp(s.r[0].text, head, strlen(head)), "%s", s.r[0].text);
	ck_assert_ptr_nonnull(strstr(s.r[0].text, "\nfolio_wait_writeback+0x28/0x80\n"
						  "__filemap_fdatawait_range+0x90/0x120\n"
						  "file_write_and_wait_range+0x6f/0x90\n"
						  "nfs_file_fsync+0x94/0x1b0 [nfs]\n"
						  "__x64_sys_fsync+0x37/0x60\n"));
	ck_assert(ends_with(s.r[0].text, "\n</TASK>\n"));
	ck_assert_ptr_null(strstr(s.r[0].text, "[  340."));
	ck_assert_int_eq(count_lines(s.r[0].text), 27);

	/* however read() splits the stream, the report is the same */
	tail_fixture("hung-task.log", FEED_BYTES, &bytes);
	tail_fixture("hung-task.log", FEED_WHOLE, &whole);
	ck_assert_int_eq(bytes.n, 1);
	ck_assert_int_eq(whole.n, 1);
	ck_assert_str_eq(bytes.r[0].text, s.r[0].text);
	ck_assert_str_eq(whole.r[0].text, s.r[0].text);
	ck_assert_str_eq(bytes.r[0].title, s.r[0].title);
	seen_release(&s);
	seen_release(&bytes);
	seen_release(&whole);
}
END_TEST

/* REAL: three reports of the same task with other messages between them. */
START_TEST(tail_hung_task_repeated_real)
{
	static const struct {
		const char *cls;
		double kt;
		const char *title;
	} want[] = {
		{ "hung-task", 340.899074, "INFO: task hung in nfs_file_fsync" },
		{ "hung-task", 371.618582, "INFO: task hung in nfs_file_fsync" },
		{ "nfsd", 382.739089, "NFSD: Using UMH upcall client tracking operations." },
		{ "nfsd", 382.741722, "NFSD: starting 10-second grace period (net f0000000)" },
		{ "hung-task", 402.339456, "INFO: task hung in nfs_file_fsync" },
	};
	struct seen s;

	tail_fixture("hung-task-repeated.log", FEED_ODD, &s);
	ck_assert_int_eq(s.n, 5);
	for (int i = 0; i < s.n; i++) {
		ck_assert_str_eq(s.r[i].cls, want[i].cls);
		ck_assert_double_eq_tol(s.r[i].kernel_time, want[i].kt, 1e-6);
		ck_assert_str_eq(s.r[i].title, want[i].title);
	}
	ck_assert_ptr_nonnull(strstr(s.r[1].text, "blocked for more than 61 seconds"));
	ck_assert_int_eq(count_lines(s.r[2].text), 1);
	seen_release(&s);
}
END_TEST

/* A hung task's report ends with its stack (</TASK>): it need not wait for the next message. */
START_TEST(tail_report_pending_until_next)
{
	struct strbuf log = STRBUF_INIT;
	struct console_tail t;
	struct seen s = { 0 };

	ck_assert_int_eq(strbuf_read_file(&log, CONSOLE_FIXTURES "hung-task.log", 1 << 20), 0);
	console_tail_init(&t, sink, &s);
	feed_odd(&t, log.buf, log.len);
	ck_assert_int_eq(s.n, 1);
	/* a line without its newline is not a line yet */
	feed_str(&t, "[  343.855250] NFSD: starting 10-second grace period (net f0000000)");
	ck_assert_int_eq(s.n, 1);
	feed_str(&t, "\r\n");
	ck_assert_int_eq(s.n, 2); /* the hung task, then the one-line nfsd report */
	ck_assert_str_eq(s.r[0].cls, "hung-task");
	ck_assert_str_eq(s.r[1].cls, "nfsd");
	console_tail_flush(&t);
	ck_assert_int_eq(s.n, 2);
	console_tail_release(&t);
	strbuf_release(&log);
	seen_release(&s);
}
END_TEST

/*
 * SYNTHETIC: lockdep's empty lines are part of its report, up to the stack
 * backtrace. Titled by the site that tries to take the lock ("at:
 * nfs_commit_inode"), as syzkaller does, not by the first frame of the chain.
 */
START_TEST(tail_lockdep)
{
	struct seen s;

	one_report("lockdep.log", "lockdep", SEV_FATAL, "possible deadlock in nfs_commit_inode", &s);
	ck_assert_ptr_nonnull(strstr(s.r[0].text, "\nbut task is already holding lock:\n"));
	ck_assert_ptr_nonnull(strstr(s.r[0].text, "\n*** DEADLOCK ***\n"));
	ck_assert_ptr_nonnull(strstr(s.r[0].text, "\nstack backtrace:\n"));
	ck_assert(ends_with(s.r[0].text, "\n</TASK>\n"));
	seen_release(&s);
}
END_TEST

/* SYNTHETIC: "BUG: ..." then, four lines later, "Oops: ...": one oops, titled by its RIP. */
START_TEST(tail_oops_null_deref)
{
	struct seen s;

	one_report("oops-null-deref.log", "oops", SEV_FATAL,
		   "BUG: kernel NULL pointer dereference in nfs_commit_inode", &s);
	ck_assert_ptr_nonnull(strstr(s.r[0].text, "\nOops: 0000 [#1] PREEMPT SMP NOPTI\n"));
	ck_assert(ends_with(s.r[0].text, "\n---[ end trace 0000000000000000 ]---\n"));
	seen_release(&s);
}
END_TEST

START_TEST(tail_kernel_bug)
{
	struct seen s;

	one_report("kernel-bug.log", "oops", SEV_FATAL, "kernel BUG at fs/nfs/write.c:1234!", &s);
	ck_assert(ends_with(s.r[0].text, "---[ end trace 0000000000000000 ]---\n"));
	seen_release(&s);
}
END_TEST

START_TEST(tail_warning)
{
	struct seen s;

	one_report("warning.log", "warning", SEV_INFO, "WARNING in nfs_foo", &s);
	seen_release(&s);
}
END_TEST

START_TEST(tail_panic)
{
	struct seen s;

	one_report("panic-sysrq.log", "panic", SEV_FATAL,
		   "Kernel panic - not syncing: sysrq triggered crash", &s);
	seen_release(&s);
}
END_TEST

START_TEST(tail_soft_lockup)
{
	struct seen s;

	one_report("soft-lockup.log", "soft-lockup", SEV_INFO, "BUG: soft lockup in nfs4_renew_state", &s);
	seen_release(&s);
}
END_TEST

/* The paravirt spinlock slow path under every x86 guest is a helper, not the culprit. */
START_TEST(tail_hard_lockup)
{
	struct seen s;

	one_report("hard-lockup.log", "hard-lockup", SEV_INFO,
		   "BUG: hard lockup in nfs_inode_remove_request", &s);
	seen_release(&s);
}
END_TEST

START_TEST(tail_rcu_stall)
{
	struct seen s;

	one_report("rcu-stall.log", "rcu-stall", SEV_INFO,
		   "INFO: rcu detected stall in nfs_scan_commit_list", &s);
	seen_release(&s);
}
END_TEST

START_TEST(tail_workqueue_lockup)
{
	struct seen s;

	one_report("workqueue-lockup.log", "workqueue-lockup", SEV_INFO, "BUG: workqueue lockup", &s);
	ck_assert_ptr_nonnull(strstr(s.r[0].text, "in-flight: 41:rpc_async_release [sunrpc]"));
	seen_release(&s);
}
END_TEST

/* The report is the one "Killed process" line; the dump before it starts nothing. */
START_TEST(tail_oom)
{
	struct seen s;

	one_report("out-of-memory.log", "oom-kill", SEV_INFO, "OOM kill: takeover-hog", &s);
	ck_assert_int_eq(count_lines(s.r[0].text), 1);
	ck_assert(!strncmp(s.r[0].text, "Out of memory: Killed process 1234 (takeover-hog)", 49));
	seen_release(&s);
}
END_TEST

START_TEST(tail_nfs_real)
{
	struct seen s;

	tail_fixture("nfs-not-responding.log", FEED_ODD, &s);
	ck_assert_int_eq(s.n, 5);
	for (int i = 0; i < s.n; i++) {
		ck_assert_str_eq(s.r[i].cls, "nfs-server");
		ck_assert_int_eq(s.r[i].sev, SEV_INFO);
		ck_assert(!strncmp(s.r[i].title, "nfs: server 10.99.0.100 not responding, ", 40));
	}
	ck_assert_str_eq(s.r[3].title, "nfs: server 10.99.0.100 not responding, timed out");
	ck_assert_double_eq_tol(s.r[3].kernel_time, 452.967352, 1e-6);
	seen_release(&s);

	tail_fixture("nfsd-grace.log", FEED_BYTES, &s);
	ck_assert_int_eq(s.n, 2);
	ck_assert_str_eq(s.r[1].cls, "nfsd");
	ck_assert_str_eq(s.r[1].title, "NFSD: starting 10-second grace period (net f0000000)");
	ck_assert_str_eq(s.r[1].text, "NFSD: starting 10-second grace period (net f0000000)\n");
	seen_release(&s);
}
END_TEST

/* Fixtures back to back, as one console would print them, fed in odd pieces and flushed. */
static void tail_stream(const char *const *files, size_t n, struct seen *s)
{
	struct strbuf all = STRBUF_INIT;
	struct console_tail t;

	for (size_t i = 0; i < n; i++) {
		char *path = xasprintf(CONSOLE_FIXTURES "%s", files[i]);
		ck_assert_int_eq(strbuf_read_file(&all, path, 1 << 20), 0);
		free(path);
	}
	memset(s, 0, sizeof(*s));
	console_tail_init(&t, sink, s);
	feed_odd(&t, all.buf, all.len);
	console_tail_flush(&t);
	console_tail_release(&t);
	strbuf_release(&all);
}

/* Every fixture back to back: one report each (two for the repeated nfsd lines), none merged. */
START_TEST(tail_all_fixtures_in_one_stream)
{
	static const char *const files[] = {
		"hung-task.log", "lockdep.log", "oops-null-deref.log", "kernel-bug.log", "warning.log",
		"panic-sysrq.log", "soft-lockup.log", "hard-lockup.log", "rcu-stall.log",
		"workqueue-lockup.log", "out-of-memory.log", "nfsd-grace.log",
	};
	static const char *const want[] = {
		"hung-task", "lockdep", "oops", "oops", "warning", "panic", "soft-lockup",
		"hard-lockup", "rcu-stall", "workqueue-lockup", "oom-kill", "nfsd", "nfsd",
	};
	struct seen s;

	tail_stream(files, sizeof(files) / sizeof(files[0]), &s);
	ck_assert_int_eq(s.n, (int)(sizeof(want) / sizeof(want[0])));
	for (int i = 0; i < s.n; i++)
		ck_assert_msg(!strcmp(s.r[i].cls, want[i]), "report %d: %s (%s), expected %s", i,
			      s.r[i].cls, s.r[i].title, want[i]);
	seen_release(&s);
}
END_TEST

/* Outside lockdep, an empty line ends a report; max_lines bounds it otherwise. */
START_TEST(tail_report_limits)
{
	struct console_tail t;
	struct seen s = { 0 };
	struct strbuf in = STRBUF_INIT;

	console_tail_init(&t, sink, &s);
	feed_str(&t, "[    1.000000] INFO: task a:1 blocked for more than 30 seconds.\n"
		     "[    1.000001] Call Trace:\n"
		     "[    1.000002] \n"
		     "[    1.000003] not part of it\n");
	ck_assert_int_eq(s.n, 1);
	ck_assert_str_eq(s.r[0].text,
			 "INFO: task a:1 blocked for more than 30 seconds.\nCall Trace:\n");
	ck_assert_str_eq(s.r[0].title, "INFO: task a:1 blocked for more than 30 seconds.");

	/* the first line plus max_lines more; the line after the limit is dropped */
	strbuf_addstr(&in, "[    2.000000] INFO: task b:2 blocked for more than 30 seconds.\n");
	for (int i = 0; i < classifier_hung_task.max_lines + 5; i++)
		strbuf_addf(&in, "[    2.%06d] line %d\n", i + 1, i);
	console_tail_feed(&t, in.buf, in.len);
	ck_assert_int_eq(s.n, 2);
	ck_assert_int_eq(count_lines(s.r[1].text), 1 + classifier_hung_task.max_lines);
	console_tail_flush(&t);
	ck_assert_int_eq(s.n, 2);
	console_tail_release(&t);
	strbuf_release(&in);
	seen_release(&s);
}
END_TEST

/* A report that ends with its stack ends with "</TASK>" however the console prints it. */
START_TEST(tail_stack_end_forms)
{
	struct console_tail t;
	struct seen s = { 0 };

	console_tail_init(&t, sink, &s);
	/* printk.time=0: the stack's lines keep their leading blank */
	feed_str(&t, "INFO: task a:1 blocked for more than 30 seconds.\n"
		     " <TASK>\n __schedule+0x1/0x2\n nfs_file_fsync+0x94/0x1b0 [nfs]\n </TASK>\n");
	ck_assert_int_eq(s.n, 1);
	ck_assert(ends_with(s.r[0].text, "\n </TASK>\n"));
	ck_assert_str_eq(s.r[0].title, "INFO: task hung in nfs_file_fsync");
	/* a console that pads its lines with blanks */
	feed_str(&t, "[    5.000000] watchdog: BUG: soft lockup - CPU#0 stuck for 22s! [a:1] \r\n"
		     "[    5.000001] <TASK> \r\n[    5.000002] nfs_commit_inode+0x4d/0x80 [nfs] \r\n"
		     "[    5.000003] </TASK> \r\n");
	ck_assert_int_eq(s.n, 2);
	ck_assert_str_eq(s.r[1].title, "BUG: soft lockup in nfs_commit_inode");
	/* not the end of a stack */
	feed_str(&t, "[    6.000000] watchdog: BUG: soft lockup - CPU#0 stuck for 22s! [a:1]\n"
		     "[    6.000001] </TASKS>\n[    6.000002] x </TASK>\n");
	ck_assert_int_eq(s.n, 2);
	console_tail_flush(&t);
	ck_assert_int_eq(s.n, 3);
	ck_assert_int_eq(count_lines(s.r[2].text), 3);
	console_tail_release(&t);
	seen_release(&s);
}
END_TEST

/* A console that never sends a newline is dropped, not buffered forever; the tailer recovers. */
START_TEST(tail_no_newline)
{
	struct console_tail t;
	struct seen s = { 0 };
	char *junk = xmalloc(70000);

	memset(junk, 'x', 70000);
	console_tail_init(&t, sink, &s);
	console_tail_feed(&t, junk, 70000);
	ck_assert_uint_eq(t.partial.len, 0);
	feed_str(&t, "\n[    3.000000] Kernel panic - not syncing: Fatal exception\n");
	console_tail_flush(&t);
	ck_assert_int_eq(s.n, 1);
	ck_assert_str_eq(s.r[0].title, "Kernel panic - not syncing: Fatal exception");
	ck_assert_double_eq_tol(s.r[0].kernel_time, 3.0, 1e-9);
	console_tail_release(&t);
	free(junk);
	seen_release(&s);
}
END_TEST

/* A report without the kernel's stamp (printk.time=0) has no kernel time. */
START_TEST(tail_no_kernel_time)
{
	struct console_tail t;
	struct seen s = { 0 };

	console_tail_init(&t, sink, &s);
	feed_str(&t, "nfs: server 10.99.0.100 OK\r\n");
	ck_assert_int_eq(s.n, 1);
	ck_assert_double_eq(s.r[0].kernel_time, -1);
	ck_assert_str_eq(s.r[0].title, "nfs: server 10.99.0.100 OK");
	console_tail_release(&t);
	seen_release(&s);
}
END_TEST

/*
 * ---- REAL reports from public sources ----
 *
 * Console output of 5.14-6.15 kernels (x86_64 where registers show) posted
 * to linux-nfs and kernel bugzilla (README.md there gives each one's address
 * and date), copied as published: LF line ends, some without "[ time]".
 */

/*
 * What may come before the frame a title names: scheduler, locking,
 * interrupt, watchdog and report plumbing. The test's own list, written
 * apart from the classifier's, so that a title drifting to another frame fails.
 */
static const char *const helper_frames[] = {
	"_raw_",  "native_queued_spin", "queued_", "do_raw_spin", "lock_acquire", "__lock_acquire",
	"print_circular_bug", "check_noncircular", "dump_stack", "nmi_", "rcu_", "tick_",
	"update_process_times", "__hrtimer", "hrtimer_", "__sysvec_", "sysvec_", "asm_sysvec_",
};

static bool helper_frame(const char *fn)
{
	for (size_t i = 0; i < sizeof(helper_frames) / sizeof(helper_frames[0]); i++)
		if (!strncmp(fn, helper_frames[i], strlen(helper_frames[i])))
			return true;
	return false;
}

/* The function a reliable kernel stack line names ("  nfs_wb_folio+0x1a4/0x290 [nfs]", "RIP: 0010:f+0x1/0x2"). */
static bool stack_frame(const char *line, char *fn, size_t len)
{
	size_t n;

	line += strspn(line, " \t");
	if (!strncmp(line, "RIP: 0010:", 10))
		line += 10;
	n = strspn(line, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_");
	if (!n || (line[n] != '+' && line[n] != '.') || !strstr(line + n, "+0x"))
		return false;
	snprintf(fn, len, "%.*s", (int)n, line);
	return true;
}

/*
 * A plausible title: it names a frame of the report's stack, and every
 * reliable frame above that one is a helper ("?" frames are guesses).
 */
static void assert_title_frame(const char *text, const char *title)
{
	const char *want = strstr(title, " in ");
	char fn[128];

	ck_assert_msg(want, "'%s' names no frame", title);
	want += 4;
	for (const char *line = text; line && *line;) {
		const char *nl = strchr(line, '\n');
		char buf[512];

		snprintf(buf, sizeof(buf), "%.*s", (int)(nl ? nl - line : (long)strlen(line)), line);
		if (stack_frame(buf, fn, sizeof(fn))) {
			if (!strcmp(fn, want))
				return;
			ck_assert_msg(helper_frame(fn), "'%s': %s comes first and is no helper", title, fn);
		}
		line = nl ? nl + 1 : NULL;
	}
	ck_abort_msg("'%s': no frame %s in the report", title, want);
}

/*
 * Each REAL report: its family, severity and exact title, its kernel time
 * (-1: printed without "[ time]"), length and last line (not cut short, not
 * run on), text it must hold, and where in it the title's frame is checked
 * against the stack ("": the whole report; NULL: the title names no frame).
 */
static const struct {
	const char *file;
	int n, idx; /* reports in the file, and which one this is */
	const char *cls;
	enum console_severity sev;
	const char *title;
	double kt;
	int lines;
	const char *last;
	const char *stack;
	const char *has[3];
} real_reports[] = {
	/* 6.12-rc5, QEMU Q35: stuck under nfs_release_folio(); 71 lines, past the 60 a lockup used to get */
	{ "real-soft-lockup-nfs-release-folio.log", 1, 0, "soft-lockup", SEV_INFO,
	  "BUG: soft lockup in nfs_folio_find_head_request", 23860.805728, 71, "</TASK>", "",
	  { "watchdog: BUG: soft lockup - CPU#2 stuck for 17446s! [751:691784]\nModules linked in: ",
	    "\nnfs_wb_folio+0x1a4/0x290 [nfs]\nnfs_release_folio+0x62/0xb0 [nfs]\n",
	    "\nRIP: 0033:0x7f591e812f64\n" } },
	/* 6.0.1, QEMU i440FX: nfsd's file cache purge spinning under exportfs */
	{ "real-soft-lockup-nfsd-cache-purge.log", 1, 0, "soft-lockup", SEV_INFO,
	  "BUG: soft lockup in __nfsd_file_cache_purge", 7972.371206, 39, "</TASK>", "",
	  { "\nexpkey_flush+0x2a/0x40 [nfsd]\n" } },
	/* 6.13.6, nfsd over RDMA: every <NMI> frame unreliable, then the spinlock's slow path */
	{ "real-hard-lockup-svcrdma.log", 1, 0, "hard-lockup", SEV_INFO, "BUG: hard lockup in alloc_iova",
	  976.676922, 86, "</TASK>", "",
	  { "\nsvc_rdma_sendto+0x99/0x510 [rpcrdma]\n", "\nnfsd+0xa7/0x110 [nfsd]\n" } },
	/* 5.19, QEMU i440FX: self-detected; the RIP under the timer interrupt */
	{ "real-rcu-stall-nfsd-cache-purge.log", 1, 0, "rcu-stall", SEV_INFO,
	  "INFO: rcu detected stall in __nfsd_file_cache_purge", 326.587135, 57, "</TASK>", "",
	  { "\nrcu: \t0-....: (5249 ticks this GP) " } },
	/* swap over NFS, 5.14 cycle: no stack; rpciod and writeback listed */
	{ "real-workqueue-lockup-nfs-swap.log", 1, 0, "workqueue-lockup", SEV_INFO, "BUG: workqueue lockup",
	  -1, 29, "pool 9: cpus=0-3 flags=0x5 nice=-20 hung=0s workers=2 manager: 5224 idle: 859", NULL,
	  { "\nworkqueue rpciod: flags=0xa\n", "in-flight: 433(RESCUER):wb_workfn\n" } },
	/*
	 * 6.1.119: the end of one kill, then "nfsd invoked oom-killer" and its
	 * stack, which start nothing; the victim's name has parentheses of its own
	 */
	{ "real-oom-kill-nfsd.log", 1, 0, "oom-kill", SEV_INFO, "OOM kill: (sd-pam)", 29924.805991, 1,
	  "Out of memory: Killed process 4503 ((sd-pam)) total-vm:173972kB, anon-rss:0kB, file-rss:0kB, "
	  "shmem-rss:0kB, UID:0 pgtables:96kB oom_score_adj:100",
	  NULL, { NULL } },
	/* 6.15-rc5: BUG() through NFS localio, then the panic; every line ends in a blank no title keeps */
	{ "real-panic-nfs-localio.log", 2, 0, "oops", SEV_FATAL, "kernel BUG at kernel/cred.c:104!",
	  1005.845547, 53, "---[ end trace 0000000000000000 ]--- ", NULL,
	  { "\nOops: invalid opcode: 0000 [#1] SMP KASAN NOPTI \n",
	    "\nnfs_local_call_write+0x4fc/0xa50 [nfs] \n" } },
	{ "real-panic-nfs-localio.log", 2, 1, "panic", SEV_FATAL,
	  "Kernel panic - not syncing: Fatal exception", 1006.325569, 3,
	  "---[ end Kernel panic - not syncing: Fatal exception ]--- ", NULL, { NULL } },
	/* 6.6-rc1, QEMU Q35: nfsiod's commit release; "Oops:" continues the "BUG:" */
	{ "real-oops-null-deref-nfs-commit.log", 1, 0, "oops", SEV_FATAL,
	  "BUG: kernel NULL pointer dereference in nfs_inode_remove_request", 6288.410761, 50,
	  "---[ end trace 0000000000000000 ]---", "",
	  { "\nOops: 0000 [#1] PREEMPT SMP PTI\n", "\nnfs_commit_release_pages+0x16e/0x340 [nfs]\n" } },
	/* 6.10-rc3, QEMU i440FX: kswapd reclaiming to a swap file on NFS; the BUG() names the place */
	{ "real-kernel-bug-nfs-swap.log", 1, 0, "oops", SEV_FATAL, "kernel BUG at fs/nfs/direct.c:144!",
	  65.065528, 38, "balance_pgdat+0x291/0x6f0", NULL,
	  { "\nOops: invalid opcode: 0000 [#1] PREEMPT SMP NOPTI\n", "\nRIP: 0010:nfs_swap_rw+0x3f/0x50\n",
	    "\nshrink_folio_list+0x3a1/0xed0\n" } },
	/* 6.1-rc3, QEMU Q35: a WARN in fs/nfs; GCC's ".constprop.0.isra.0" is not in the title */
	{ "real-warning-nfs-mount.log", 1, 0, "warning", SEV_INFO, "WARNING in nfs_request_mount",
	  125.777904, 46, "---[ end trace 0000000000000000 ]---", "",
	  { "WARNING: CPU: 0 PID: 3217 at fs/nfs/super.c:857 " } },
	/*
	 * 6.8-rc3, nfsd, no "[ time]": titled where nfsd tries to take flc_lock
	 * (syzkaller's choice), not by the chain's first frame, where the other
	 * order was recorded (nfsd_break_deleg_cb); the stack backtrace agrees
	 */
	{ "real-lockdep-nfsd-flc-lock.log", 1, 0, "lockdep", SEV_FATAL,
	  "possible deadlock in check_for_locks", -1, 115, " </TASK>", "\nstack backtrace:\n",
	  { "nfsd/1218 is trying to acquire lock:\nffff88814d754198 (&ctx->flc_lock){+.+.}-{2:2}, at: "
	    "check_for_locks+0xf6/0x1d0 [nfsd]\n",
	    "\n *** DEADLOCK ***\n" } },
};

/* The same whether read() hands the log over in odd pieces, byte by byte or whole. */
START_TEST(real_report)
{
	struct seen s, bytes, whole;
	const char *text, *end;

	tail_fixture(real_reports[_i].file, FEED_ODD, &s);
	tail_fixture(real_reports[_i].file, FEED_BYTES, &bytes);
	tail_fixture(real_reports[_i].file, FEED_WHOLE, &whole);
	ck_assert_msg(s.n == real_reports[_i].n, "%s: %d reports, expected %d", real_reports[_i].file, s.n, real_reports[_i].n);
	ck_assert_int_eq(bytes.n, real_reports[_i].n);
	ck_assert_int_eq(whole.n, real_reports[_i].n);
	text = s.r[real_reports[_i].idx].text;
	ck_assert_str_eq(s.r[real_reports[_i].idx].cls, real_reports[_i].cls);
	ck_assert_int_eq(s.r[real_reports[_i].idx].sev, real_reports[_i].sev);
	ck_assert_str_eq(s.r[real_reports[_i].idx].title, real_reports[_i].title);
	ck_assert_str_eq(whole.r[real_reports[_i].idx].title, real_reports[_i].title);
	ck_assert_str_eq(bytes.r[real_reports[_i].idx].text, text);
	ck_assert_str_eq(whole.r[real_reports[_i].idx].text, text);
	if (real_reports[_i].kt < 0)
		ck_assert_double_eq(s.r[real_reports[_i].idx].kernel_time, -1);
	else
		ck_assert_double_eq_tol(s.r[real_reports[_i].idx].kernel_time, real_reports[_i].kt, 1e-6);
	ck_assert_msg(count_lines(text) == real_reports[_i].lines, "%s: report of %d lines, expected %d",
		      real_reports[_i].file, count_lines(text), real_reports[_i].lines);
	end = text + strlen(text) - 1;
	while (end > text && end[-1] != '\n')
		end--;
	ck_assert_msg(!strncmp(end, real_reports[_i].last, strlen(real_reports[_i].last)) &&
			      end[strlen(real_reports[_i].last)] == '\n',
		      "%s: report ends with '%s', expected '%s'", real_reports[_i].file, end, real_reports[_i].last);
	for (int k = 0; k < 3 && real_reports[_i].has[k]; k++)
		ck_assert_msg(strstr(text, real_reports[_i].has[k]), "%s: no '%s'", real_reports[_i].file, real_reports[_i].has[k]);
	if (real_reports[_i].stack) {
		ck_assert_ptr_nonnull(strstr(text, real_reports[_i].stack));
		assert_title_frame(strstr(text, real_reports[_i].stack), real_reports[_i].title);
	}
	seen_release(&s);
	seen_release(&bytes);
	seen_release(&whole);
}
END_TEST

/* All REAL public fixtures back to back, as one console would print them: none merged, none lost. */
START_TEST(real_fixtures_in_one_stream)
{
	static const char *const files[] = {
		"real-soft-lockup-nfs-release-folio.log", "real-hard-lockup-svcrdma.log",
		"real-rcu-stall-nfsd-cache-purge.log",    "real-workqueue-lockup-nfs-swap.log",
		"real-oom-kill-nfsd.log",                 "real-oops-null-deref-nfs-commit.log",
		"real-kernel-bug-nfs-swap.log",           "real-warning-nfs-mount.log",
		"real-lockdep-nfsd-flc-lock.log",         "real-soft-lockup-nfsd-cache-purge.log",
		"real-panic-nfs-localio.log",
	};
	static const char *const want[] = {
		"BUG: soft lockup in nfs_folio_find_head_request",
		"BUG: hard lockup in alloc_iova",
		"INFO: rcu detected stall in __nfsd_file_cache_purge",
		"BUG: workqueue lockup",
		"OOM kill: (sd-pam)",
		"BUG: kernel NULL pointer dereference in nfs_inode_remove_request",
		"kernel BUG at fs/nfs/direct.c:144!",
		"WARNING in nfs_request_mount",
		"possible deadlock in check_for_locks",
		"BUG: soft lockup in __nfsd_file_cache_purge",
		"kernel BUG at kernel/cred.c:104!",
		"Kernel panic - not syncing: Fatal exception",
	};
	struct seen s;

	tail_stream(files, sizeof(files) / sizeof(files[0]), &s);
	ck_assert_int_eq(s.n, (int)(sizeof(want) / sizeof(want[0])));
	for (int i = 0; i < s.n; i++)
		ck_assert_msg(!strcmp(s.r[i].title, want[i]), "report %d: '%s', expected '%s'", i,
			      s.r[i].title, want[i]);
	seen_release(&s);
}
END_TEST

static Suite *console_suite(void)
{
	Suite *s = suite_create("console");
	TCase *cl = tcase_create("clean");
	TCase *cls = tcase_create("classify");
	TCase *tail = tcase_create("tail");
	TCase *real = tcase_create("real");

	tcase_set_timeout(cl, 30);
	tcase_set_timeout(cls, 30);
	tcase_set_timeout(tail, 60);
	tcase_set_timeout(real, 60);
	tcase_add_test(cl, clean_prefix_and_crlf);
	tcase_add_test(cl, frames_are_not_messages);
	tcase_add_test(cl, clean_ansi);
	tcase_add_test(cl, clean_wall_clock);
	tcase_add_test(cl, clean_no_prefix);
	tcase_add_loop_test(cls, classify_line, 0, (int)(sizeof(lines) / sizeof(lines[0])));
	tcase_add_test(cls, registry_complete);
	tcase_add_test(cls, first_meaningful_frame);
	tcase_add_test(tail, tail_hung_task_real);
	tcase_add_test(tail, tail_hung_task_repeated_real);
	tcase_add_test(tail, tail_report_pending_until_next);
	tcase_add_test(tail, tail_lockdep);
	tcase_add_test(tail, tail_oops_null_deref);
	tcase_add_test(tail, tail_kernel_bug);
	tcase_add_test(tail, tail_warning);
	tcase_add_test(tail, tail_panic);
	tcase_add_test(tail, tail_soft_lockup);
	tcase_add_test(tail, tail_hard_lockup);
	tcase_add_test(tail, tail_rcu_stall);
	tcase_add_test(tail, tail_workqueue_lockup);
	tcase_add_test(tail, tail_oom);
	tcase_add_test(tail, tail_nfs_real);
	tcase_add_test(tail, tail_all_fixtures_in_one_stream);
	tcase_add_test(tail, tail_report_limits);
	tcase_add_test(tail, tail_no_newline);
	tcase_add_test(tail, tail_no_kernel_time);
	tcase_add_test(tail, tail_stack_end_forms);
	tcase_add_loop_test(real, real_report, 0,
			    (int)(sizeof(real_reports) / sizeof(real_reports[0])));
	tcase_add_test(real, real_fixtures_in_one_stream);
	suite_add_tcase(s, cl);
	suite_add_tcase(s, cls);
	suite_add_tcase(s, tail);
	suite_add_tcase(s, real);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(console_suite());
	int failed;

	srunner_set_fork_status(sr, CK_FORK);
	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
