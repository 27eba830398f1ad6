// SPDX-License-Identifier: GPL-2.0-only
/*
 * The sysrq-w/-t parser on real 6.1 console captures (tests/fixtures/sysrq/)
 * and on what a shared serial console does to them: CRLF, colour codes, time
 * stamps, other printks in between, a capture cut off mid-block, garbage.
 */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "forensics/forensics.h"
#include "forensics/sysrq.h"
#include "util/units.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

static struct sysrq_dump d;

static void teardown(void)
{
	sysrq_release(&d);
}

static void load(const char *name, struct strbuf *sb)
{
	_cleanup_free_ char *p = xasprintf("%s/sysrq/%s", FIXTURES_DIR, name);

	ck_assert_msg(strbuf_read_file(sb, p, 16 << 20) == 0, "cannot read %s", p);
}

static void parse_fixture(const char *name)
{
	_cleanup_strbuf_ struct strbuf sb = STRBUF_INIT;

	load(name, &sb);
	ck_assert_int_eq(sysrq_parse(sb.buf, &d), 0);
}

static void parse(const char *text)
{
	ck_assert_int_eq(sysrq_parse(text, &d), 0);
}

/* Position of frame fn in a stack (one name a line), -1 when absent. */
static int frame_at(const char *stack, const char *fn)
{
	size_t n = strlen(fn);
	int i = 0;

	for (const char *p = stack; *p; i++) {
		size_t l = strcspn(p, "\n");
		if (l == n && !strncmp(p, fn, n))
			return i;
		p += l + (p[l] == '\n');
	}
	return -1;
}

static int nframes(const char *stack)
{
	int n = *stack ? 1 : 0;

	for (const char *p = stack; *p; p++)
		n += *p == '\n';
	return n;
}

static const struct sysrq_task *find_pid(int pid)
{
	for (size_t i = 0; i < d.ntasks; i++)
		if (d.tasks[i].pid == pid)
			return &d.tasks[i];
	ck_abort_msg("no task with pid %d", pid);
	return NULL;
}

/* ---- real captures ---- */

static void check_dd(const struct sysrq_task *t)
{
	static const char *const order[] = {
		"__schedule", "schedule", "rpc_wait_bit_killable", "__wait_on_bit",
		"out_of_line_wait_on_bit", "__rpc_execute", "rpc_execute", "rpc_run_task",
		"nfs4_call_sync_sequence", "_nfs4_proc_access", "nfs4_proc_access", "nfs_do_access",
		"nfs_permission", "inode_permission", "link_path_walk.part.0.constprop.0",
		"path_openat", "do_filp_open", "do_sys_openat2", "__x64_sys_openat", "do_syscall_64",
		"entry_SYSCALL_64_after_hwframe",
	};

	ck_assert_str_eq(t->comm, "dd");
	ck_assert_str_eq(t->state, "D");
	ck_assert_int_eq(t->pid, 2695);
	/* Exactly these, innermost first: no "?" frames, offsets, modules or registers. */
	ck_assert_int_eq(nframes(t->stack), (int)(sizeof(order) / sizeof(order[0])));
	for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++)
		ck_assert_msg(frame_at(t->stack, order[i]) == (int)i, "%s not frame %zu in\n%s", order[i], i,
			      t->stack);
	ck_assert_int_eq(frame_at(t->stack, "sugov_init"), -1);
	ck_assert_ptr_null(strstr(t->stack, "+0x"));
	ck_assert_ptr_null(strstr(t->stack, "["));
	ck_assert_ptr_null(strstr(t->stack, "RIP"));
	ck_assert_ptr_null(strchr(t->stack, '\r'));
}

START_TEST(sysrq_w_blocked_dd)
{
	parse_fixture("sysrq-w-nfs-blocked.log");
	ck_assert_uint_eq(d.ntasks, 1);
	check_dd(&d.tasks[0]);
	sysrq_group(&d, true);
	ck_assert_uint_eq(d.ngroups, 1);
	ck_assert_int_eq(d.groups[0].count, 1);
	ck_assert_str_eq(d.groups[0].state, "D");
	ck_assert_str_eq(d.groups[0].tasks, "dd:2695");
	ck_assert_str_eq(d.groups[0].stack, d.tasks[0].stack);
}
END_TEST

/*
 * The known-bad kernel's takeover node (docs/kernel-patches.md, session 2):
 * sysrq-w caught the writer and the hog; nfsd blocked 5 s later, in reclaim
 * waiting for a COMMIT only it could answer, and only sysrq-t shows it.
 */
START_TEST(sysrq_t_adds_later_blocked)
{
	_cleanup_strbuf_ struct strbuf sb = STRBUF_INIT;
	struct sysrq_dump later = { 0 };
	bool nfsd = false;

	parse_fixture("sysrq-w-knownbad-takeover.log");
	ck_assert_uint_eq(d.ntasks, 2);
	load("sysrq-t-knownbad-takeover.log", &sb);
	ck_assert_int_eq(sysrq_parse(sb.buf, &later), 0);
	ck_assert_uint_eq(later.ntasks, 4); /* rpcbind (S), writer, hog, nfsd */
	ck_assert_int_eq(sysrq_merge_blocked(&d, &later), 0);
	sysrq_release(&later);
	ck_assert_uint_eq(d.ntasks, 3); /* writer and hog once, rpcbind not at all */
	sysrq_group(&d, true);
	ck_assert_uint_eq(d.ngroups, 3);
	for (size_t i = 0; i < d.ngroups; i++) {
		if (strncmp(d.groups[i].tasks, "nfsd:", 5))
			continue;
		nfsd = true;
		ck_assert_int_lt(frame_at(d.groups[i].stack, "wait_on_commit"),
				 frame_at(d.groups[i].stack, "nfs_release_folio"));
		ck_assert_int_lt(frame_at(d.groups[i].stack, "try_to_free_pages"),
				 frame_at(d.groups[i].stack, "svc_recv"));
		ck_assert_int_ge(frame_at(d.groups[i].stack, "wait_on_commit"), 0);
	}
	ck_assert(nfsd);
}
END_TEST

START_TEST(sysrq_t_every_task)
{
	const struct sysrq_task *t;

	parse_fixture("sysrq-t.log");
	/* The capture has 101 "task:" lines. */
	ck_assert_uint_eq(d.ntasks, 101);
	ck_assert_str_eq(d.tasks[0].comm, "systemd");
	ck_assert_int_eq(d.tasks[0].pid, 1);
	ck_assert_str_eq(d.tasks[0].state, "S");
	check_dd(find_pid(2695));
	/* %-15.15s names: spaces inside, colons, truncation to 15. */
	ck_assert_str_eq(find_pid(612)->comm, "NFSv4 callback");
	ck_assert_str_eq(find_pid(24)->comm, "kworker/u2:1");
	ck_assert_str_eq(find_pid(11)->comm, "rcu_tasks_kthre");
	/* A kworker's "Workqueue:" line is not a frame. */
	ck_assert_int_eq(frame_at(find_pid(7)->stack, "worker_thread"), 2);
	ck_assert_int_eq(nframes(find_pid(7)->stack), 5);
	/* The running task: "state:R  running task", its <IRQ> section and the kernel RIP kept. */
	t = find_pid(220);
	ck_assert_str_eq(t->state, "R");
	ck_assert_int_eq(frame_at(t->stack, "sched_show_task.cold"), 0);
	ck_assert_int_eq(frame_at(t->stack, "mntget"), frame_at(t->stack, "asm_common_interrupt") + 1);
	ck_assert_int_eq(frame_at(t->stack, "path_init"), frame_at(t->stack, "mntget") + 1);
	ck_assert_str_eq(find_pid(3465)->stack, "__switch_to_asm");
	/* The last block is followed by the scheduler debug dump: none of it is a frame. */
	ck_assert_int_eq(frame_at(find_pid(3465)->stack, "S"), -1);
}
END_TEST

START_TEST(sysrq_t_groups)
{
	int total = 0;
	bool kworkers = false;

	parse_fixture("sysrq-t.log");
	sysrq_group(&d, false);
	ck_assert_uint_gt(d.ngroups, 1);
	ck_assert_uint_lt(d.ngroups, d.ntasks);
	for (size_t i = 0; i < d.ngroups; i++) {
		const struct sysrq_group *g = &d.groups[i];
		total += g->count;
		if (i)
			ck_assert_int_le(g->count, d.groups[i - 1].count);
		ck_assert_uint_lt(strlen(g->tasks), sizeof(g->tasks));
		if (!strcmp(g->state, "I") && frame_at(g->stack, "worker_thread") == 2) {
			/* Nine idle kworkers share one stack. */
			ck_assert_int_eq(g->count, 9);
			ck_assert_ptr_nonnull(strstr(g->tasks, "kworker/0:0:7 "));
			kworkers = true;
		}
	}
	ck_assert_int_eq(total, 101);
	ck_assert(kworkers);
	ck_assert_int_gt(d.groups[0].count, 1);
	/* Blocked only: the one dd. */
	sysrq_group(&d, true);
	ck_assert_uint_eq(d.ngroups, 1);
	ck_assert_str_eq(d.groups[0].tasks, "dd:2695");
}
END_TEST

/* The 25 rescuer threads' list is longer than the field: whole entries, then the rest counted. */
START_TEST(sysrq_t_task_list_truncated)
{
	const struct sysrq_group *g;
	const char *more;
	int listed = 0;

	parse_fixture("sysrq-t.log");
	sysrq_group(&d, false);
	g = &d.groups[0];
	ck_assert_int_eq(g->count, 25);
	ck_assert_int_eq(frame_at(g->stack, "rescuer_thread"), 2);
	more = strstr(g->tasks, " more");
	ck_assert_ptr_nonnull(more);
	ck_assert_str_eq(more, " more");
	for (const char *p = g->tasks; *p; p++)
		listed += *p == ':';
	uint64_t more_n;
	const char *why, *plus = strrchr(g->tasks, '+') + 1;
	char num[16];
	snprintf(num, sizeof(num), "%.*s", (int)strspn(plus, "0123456789"), plus);
	ck_assert_int_eq(parse_uint(num, &more_n, &why), 0);
	ck_assert_int_eq(listed + (int)more_n, 25);
	ck_assert_ptr_nonnull(strstr(g->tasks, "rcu_gp:3 rcu_par_gp:4 "));
}
END_TEST

START_TEST(sysrq_m_has_no_tasks)
{
	parse_fixture("sysrq-m.log");
	ck_assert_uint_eq(d.ntasks, 0);
	sysrq_group(&d, true);
	ck_assert_uint_eq(d.ngroups, 0);
	ck_assert_ptr_null(d.groups);
}
END_TEST

/* ---- what a console does to the text ---- */

#define HDR "task:writer          state:D stack:0     pid:812   ppid:1      flags:0x00004002"

START_TEST(raw_console_lines)
{
	/* CRLF, a colour code, time stamps, printk caller ids, tabs. */
	parse("\x1b[0m[  663.864324] " HDR "\r\n"
	      "[  663.866291] Call Trace:\r\n"
	      "[  663.867257][ T812]  <TASK>\r\n"
	      "[  663.868280]  __schedule+0x34d/0xa00\r\n"
	      "\x1b[1;31m[  663.870220]  schedule+0x5a/0xd0\x1b[0m\r\n"
	      "[  663.870723]  ? foo+0x10/0x10 [sunrpc]\r\n"
	      "[  663.870723] \tnfs_wb_folio+0x12/0x80 [nfs]\r\n"
	      "[  663.870723]  [<ffffffff8123abcd>] nfs_flush+0x12/0x80 [nfs]\r\n"
	      "[  663.884964]  </TASK>\r\n");
	ck_assert_uint_eq(d.ntasks, 1);
	ck_assert_str_eq(d.tasks[0].comm, "writer");
	ck_assert_int_eq(d.tasks[0].pid, 812);
	ck_assert_str_eq(d.tasks[0].stack, "__schedule\nschedule\nnfs_wb_folio\nnfs_flush");
}
END_TEST

/* Cleaned text (console_clean_line output) and text without time stamps parse the same. */
START_TEST(clean_lines)
{
	parse(HDR "\nCall Trace:\n<TASK>\n__schedule+0x34d/0xa00\n? x+0x1/0x2\nschedule+0x5a/0xd0\n</TASK>\n"
		  HDR "\n Call Trace:\n  <TASK>\n  __schedule+0x34d/0xa00\n  schedule+0x5a/0xd0\n  </TASK>");
	ck_assert_uint_eq(d.ntasks, 2);
	ck_assert_str_eq(d.tasks[0].stack, "__schedule\nschedule");
	ck_assert_str_eq(d.tasks[1].stack, d.tasks[0].stack);
}
END_TEST

START_TEST(empty_input)
{
	parse("");
	ck_assert_uint_eq(d.ntasks, 0);
	ck_assert_ptr_null(d.tasks);
	sysrq_group(&d, false);
	ck_assert_uint_eq(d.ngroups, 0);
	sysrq_release(&d);
	parse(NULL);
	ck_assert_uint_eq(d.ntasks, 0);
	sysrq_release(&d);
	parse("\n\n\r\n");
	ck_assert_uint_eq(d.ntasks, 0);
}
END_TEST

/* The capture ended (console quiet, deadline) in the middle of a block. */
START_TEST(truncated_at_end)
{
	parse("[ 1.0] " HDR "\n[ 1.0] Call Trace:\n[ 1.0]  <TASK>\n[ 1.0]  __schedule+0x34d/0xa00\n"
	      "[ 1.0]  schedule+0x5a/0xd0\n[ 1.0]  nfs_wa");
	ck_assert_uint_eq(d.ntasks, 1);
	ck_assert_str_eq(d.tasks[0].stack, "__schedule\nschedule");
	sysrq_release(&d);
	/* Cut right after the header: a task without a stack. */
	parse(HDR);
	ck_assert_uint_eq(d.ntasks, 1);
	ck_assert_str_eq(d.tasks[0].stack, "");
	ck_assert_str_eq(d.tasks[0].state, "D");
}
END_TEST

/* A task with no trace at all (exiting, stack gone), then the next task. */
START_TEST(task_without_trace)
{
	parse("task:kworker/u2:3    state:D stack:0 pid:77 ppid:2 flags:0x0\n" HDR
	      "\nCall Trace:\n<TASK>\nschedule+0x5a/0xd0\n</TASK>\n");
	ck_assert_uint_eq(d.ntasks, 2);
	ck_assert_str_eq(d.tasks[0].comm, "kworker/u2:3");
	ck_assert_str_eq(d.tasks[0].stack, "");
	ck_assert_str_eq(d.tasks[1].stack, "schedule");
	sysrq_group(&d, true);
	ck_assert_uint_eq(d.ngroups, 2);
	ck_assert_int_eq(d.groups[0].count, 1);
	/* Equal counts keep the printed order. */
	ck_assert_str_eq(d.groups[0].tasks, "kworker/u2:3:77");
}
END_TEST

/* Another printk inside a block is skipped; a run of foreign lines ends the block. */
START_TEST(interleaved_and_junk)
{
	parse(HDR "\nCall Trace:\n<TASK>\nschedule+0x5a/0xd0\n"
		  "nfs: server 10.0.0.10 not responding, still trying\n"
		  "rpc_wait_bit_killable+0xd/0x70 [sunrpc]\n"
		  "a\nb\nc\nd\ne\n"
		  "not_mine+0x1/0x2\n");
	ck_assert_uint_eq(d.ntasks, 1);
	ck_assert_str_eq(d.tasks[0].stack, "schedule\nrpc_wait_bit_killable");
}
END_TEST

/* A hung-task report and sysrq-w both print the same task: it counts once. */
START_TEST(duplicate_task_counts_once)
{
	parse(HDR "\nCall Trace:\n<TASK>\nschedule+0x5a/0xd0\n</TASK>\n"
		  "task:nfsd            state:D stack:0     pid:900   ppid:2      flags:0x00004000\n"
		  "Call Trace:\n<TASK>\nschedule+0x5a/0xd0\n</TASK>\n"
		  HDR "\nCall Trace:\n<TASK>\nschedule+0x5a/0xd0\n</TASK>\n");
	ck_assert_uint_eq(d.ntasks, 3);
	sysrq_group(&d, true);
	ck_assert_uint_eq(d.ngroups, 1);
	ck_assert_int_eq(d.groups[0].count, 2);
	ck_assert_str_eq(d.groups[0].tasks, "nfsd:900 writer:812");
}
END_TEST

/* Same stack in another state is another group; only D counts as blocked. */
START_TEST(groups_by_state_and_stack)
{
	struct strbuf sb = STRBUF_INIT;

	for (int i = 0; i < 40; i++)
		strbuf_addf(&sb, "task:w%-14d state:%s stack:0 pid:%d ppid:1 flags:0x0\n"
				 "Call Trace:\n<TASK>\nschedule+0x5a/0xd0\n%s</TASK>\n",
			    i, i % 4 == 3 ? "S" : "D", 1000 + i, i % 2 ? "nfs_flush+0x1/0x2\n" : "");
	parse(sb.buf);
	strbuf_release(&sb);
	ck_assert_uint_eq(d.ntasks, 40);
	sysrq_group(&d, true);
	ck_assert_uint_eq(d.ngroups, 2);
	ck_assert_int_eq(d.groups[0].count, 20);
	ck_assert_str_eq(d.groups[0].stack, "schedule");
	ck_assert_int_eq(d.groups[1].count, 10);
	ck_assert_str_eq(d.groups[1].stack, "schedule\nnfs_flush");
	sysrq_group(&d, false);
	ck_assert_uint_eq(d.ngroups, 3);
	ck_assert_str_eq(d.groups[2].state, "S");
	ck_assert_int_eq(d.groups[2].count, 10);
}
END_TEST

START_TEST(garbage)
{
	static const char *const bad[] = {
		"task:", "task:x", "task:x state:", "task: state:D pid:", "task:x state:D pid:-5",
		"task:x state:DDDDDDDD pid:99999999999999999999",
		"Call Trace:\n<TASK>\nschedule+0x5a/0xd0\n</TASK>",
		"task:x state:D\nfoo+0x\nfoo+0x1/\n+0x1/0x2\nfoo+0x1/0x2junk\n\x1b[",
		"\x1b[31", "[", "[ 1.0", "[ T", "[ T1", "\xff\xfe\x80task:\xff state:\xff",
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		parse(bad[i]);
		sysrq_group(&d, false);
		for (size_t j = 0; j < d.ntasks; j++) {
			ck_assert_ptr_nonnull(d.tasks[j].stack);
			ck_assert_uint_lt(strlen(d.tasks[j].comm), sizeof(d.tasks[j].comm));
			ck_assert_uint_lt(strlen(d.tasks[j].state), sizeof(d.tasks[j].state));
		}
		sysrq_release(&d);
	}
	parse("task:x state:DDDDDDDD pid:99999999999999999999");
	ck_assert_str_eq(d.tasks[0].state, "DDD");
	ck_assert_int_eq(d.tasks[0].pid, -1);
	sysrq_release(&d);
	parse("task:x state:D\nfoo+0x\nfoo+0x1/\n+0x1/0x2\nfoo+0x1/0x2junk\n");
	ck_assert_str_eq(d.tasks[0].stack, "");
}
END_TEST

/* Pseudo-random bytes and lines, for the sanitizers: no crash, leak or overrun. */
START_TEST(random_input)
{
	static const char *const pieces[] = {
		HDR, "Call Trace:", "<TASK>", "</TASK>", "schedule+0x5a/0xd0", "? x+0x1/0x2",
		"RIP: 0010:mntget+0x0/0x20", "RAX: 0", "[  1.0] ", "\x1b[0m", "\r", "\n", " ",
		"task:a b c d e f g h i j k state:R pid:1", "\xff",
	};
	uint32_t seed = 12345;
	struct strbuf sb = STRBUF_INIT;

	for (int round = 0; round < 200; round++) {
		strbuf_reset(&sb);
		for (int i = 0; i < 300; i++) {
			seed = seed * 1103515245u + 12345u;
			if ((seed >> 16) % 8 == 0)
				strbuf_addch(&sb, (char)(1 + (seed >> 8) % 255));
			else
				strbuf_addstr(&sb, pieces[(seed >> 16) % (sizeof(pieces) / sizeof(pieces[0]))]);
		}
		parse(sb.buf);
		sysrq_group(&d, round % 2);
		sysrq_release(&d);
	}
	/* One very long line: cut, not overrun. */
	strbuf_reset(&sb);
	strbuf_addstr(&sb, HDR "\n");
	for (int i = 0; i < 5000; i++)
		strbuf_addstr(&sb, "abcdefgh");
	strbuf_addstr(&sb, "+0x1/0x2\nschedule+0x5a/0xd0\n");
	parse(sb.buf);
	ck_assert_str_eq(d.tasks[0].stack, "schedule");
	strbuf_release(&sb);
}
END_TEST

/* A pathological trace is capped, not unbounded. */
START_TEST(frame_cap)
{
	struct strbuf sb = STRBUF_INIT;

	strbuf_addstr(&sb, HDR "\nCall Trace:\n");
	for (int i = 0; i < 1000; i++)
		strbuf_addf(&sb, "f%d+0x1/0x2\n", i);
	parse(sb.buf);
	strbuf_release(&sb);
	ck_assert_int_eq(nframes(d.tasks[0].stack), 256);
}
END_TEST

START_TEST(hang_class_names)
{
	struct forensics fx = { 0 };

	ck_assert_str_eq(hang_class_name(HANG_NONE), "none");
	ck_assert_str_eq(hang_class_name(HANG_DEADLOCK), "DEADLOCK");
	ck_assert_str_eq(hang_class_name(HANG_LIVELOCK), "LIVELOCK");
	ck_assert_str_eq(hang_class_name(HANG_UNKNOWN), "unknown");
	ck_assert_str_eq(hang_class_name(HANG_REBOOTED), "REBOOTED");
	ck_assert_int_eq(hang_class_from_name("REBOOTED"), HANG_REBOOTED);
	ck_assert_str_eq(hang_class_name((enum hang_class)42), "unknown");
	forensics_release(&fx);
	parse_fixture("sysrq-w-nfs-blocked.log");
	fx.blocked = d;
	memset(&d, 0, sizeof(d));
	sysrq_group(&fx.blocked, true);
	fx.meminfo = xstrdup("Mem-Info:");
	forensics_release(&fx);
	ck_assert_ptr_null(fx.meminfo);
	ck_assert_uint_eq(fx.blocked.ntasks, 0);
	ck_assert_uint_eq(fx.blocked.ngroups, 0);
	forensics_release(&fx);
}
END_TEST

static Suite *sysrq_suite(void)
{
	Suite *s = suite_create("sysrq");
	TCase *real = tcase_create("fixtures");
	TCase *console = tcase_create("console");
	TCase *group = tcase_create("group");

	tcase_add_test(real, sysrq_w_blocked_dd);
	tcase_add_test(real, sysrq_t_every_task);
	tcase_add_test(real, sysrq_t_adds_later_blocked);
	tcase_add_test(real, sysrq_t_groups);
	tcase_add_test(real, sysrq_t_task_list_truncated);
	tcase_add_test(real, sysrq_m_has_no_tasks);
	tcase_add_test(console, raw_console_lines);
	tcase_add_test(console, clean_lines);
	tcase_add_test(console, empty_input);
	tcase_add_test(console, truncated_at_end);
	tcase_add_test(console, task_without_trace);
	tcase_add_test(console, interleaved_and_junk);
	tcase_add_test(console, garbage);
	tcase_add_test(console, random_input);
	tcase_add_test(console, frame_cap);
	tcase_add_test(group, duplicate_task_counts_once);
	tcase_add_test(group, groups_by_state_and_stack);
	tcase_add_test(group, hang_class_names);
	tcase_add_checked_fixture(real, NULL, teardown);
	tcase_add_checked_fixture(console, NULL, teardown);
	tcase_add_checked_fixture(group, NULL, teardown);
	suite_add_tcase(s, real);
	suite_add_tcase(s, console);
	suite_add_tcase(s, group);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(sysrq_suite());
	int failed;

	srunner_set_fork_status(sr, CK_FORK);
	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
