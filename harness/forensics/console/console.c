// SPDX-License-Identifier: GPL-2.0-only
#include "forensics/console/console.h"

#include <ctype.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "forensics/console/families.h"
#include "util/units.h"

/* The registry: one entry per file in console/. Order matters only for ties. */
const struct classifier *const console_classifiers[] = {
	&classifier_lockdep,   &classifier_hung_task, &classifier_soft_lockup,
	&classifier_hard_lockup, &classifier_rcu_stall, &classifier_workqueue,
	&classifier_oom,       &classifier_panic,     &classifier_oops,
	&classifier_warning,   &classifier_nfs_server, &classifier_nfsd,
	NULL,
};

/* dmesg -T's "Mon Dec  7 07:40:26 2026": a weekday, a month, hh:mm:ss and a year. */
static bool is_wall_clock(const char *s)
{
	size_t n = strlen(s);
	const char *colon = strchr(s, ':');

	return n >= 20 && isalpha((unsigned char)s[0]) && colon && colon > s + 2 &&
	       (size_t)(colon - s) + 3 < n && isdigit((unsigned char)colon[-1]) && colon[3] == ':' &&
	       isdigit((unsigned char)s[n - 1]) && isdigit((unsigned char)s[n - 4]) && s[n - 5] == ' ';
}

double console_clean_line(char *line)
{
	char *w = line;
	double t = -1;

	/* Drop CR and ANSI CSI sequences (systemd colours its status lines). */
	for (char *r = line; *r; r++) {
		if (*r == '\r')
			continue;
		if (*r == '\033' && r[1] == '[') {
			r += 2;
			while (*r && !isalpha((unsigned char)*r))
				r++;
			if (!*r)
				break;
			continue;
		}
		*w++ = *r;
	}
	*w = '\0';
	if (line[0] == '[') {
		char *end = strchr(line, ']'), num[32];
		const char *digits = line + 1 + strspn(line + 1, " "), *why;
		double v;
		if (end && end > digits && end - digits < (ptrdiff_t)sizeof(num)) {
			snprintf(num, sizeof(num), "%.*s", (int)(end - digits), digits);
			bool stamp = parse_double(num, &v, &why) == 0;
			if (stamp)
				t = v;
			if (stamp || is_wall_clock(num)) {
				end++;
				while (*end == ' ')
					end++;
				memmove(line, end, strlen(end) + 1);
			}
		}
	}
	return t;
}

const struct classifier *console_classify(const char *line)
{
	for (int i = 0; console_classifiers[i]; i++)
		if (console_classifiers[i]->match(line))
			return console_classifiers[i];
	return NULL;
}

/* Frames that say where a task waits, not why: syzkaller skips the same kind. */
static const char *const boring_prefixes[] = {
	"__schedule", "schedule", "io_schedule", "preempt_schedule", "__cond_resched",
	"wait_for_completion", "__wait_for_common", "wait_for_common", "__wait_on_bit",
	"out_of_line_wait_on_bit", "bit_wait", "wait_on_page_bit", "folio_wait_bit",
	"__folio_lock", "folio_wait", "rwsem_down", "down_read", "down_write", "down",
	"__down", "mutex_lock", "__mutex_lock", "rt_mutex", "_raw_spin", "queued_spin",
	"native_queued_spin", /* x86 with paravirt spinlocks: every guest kernel */
	"do_raw_spin", "__x64_sys_", "__ia32_sys_", "x64_sys_call", "do_syscall_64",
	"entry_SYSCALL", "ret_from_fork", "kthread", "worker_thread", "process_one_work",
	"dump_stack", "show_stack", "__warn", "warn_slowpath", "report_bug", "handle_bug",
	"exc_invalid_op", "asm_exc_", "asm_sysvec", "sysvec_", "__sysvec", "irq_exit",
	"__filemap_fdatawait_range", "filemap_fdatawait", "filemap_fdatawrite", "__filemap_fdatawrite",
	"filemap_write_and_wait", "file_write_and_wait", "file_check_and_advance_wb_err",
	"rpc_wait_bit_killable", "__rpc_wait_for_completion_task", "rpc_wait_for_completion",
	"schedule_timeout", "schedule_preempt_disabled", "percpu_rwsem_wait", "__percpu_down",
	"lock_acquire", "__lock_acquire", "lock_release", "print_circular_bug",
	"check_noncircular", "validate_chain", "check_prev_add", "__bfs", "panic", "nmi_",
	"watchdog", "__handle_irq", "hrtimer", "__hrtimer", "tick_", "update_process_times",
	"rcu_", "print_cpu_stall", "NULL",
};

static bool boring(const char *fn)
{
	for (size_t i = 0; i < sizeof(boring_prefixes) / sizeof(boring_prefixes[0]); i++)
		if (!strncmp(fn, boring_prefixes[i], strlen(boring_prefixes[i])))
			return true;
	return false;
}

/* " ? nfs_commit_inode+0x4d/0x80 [nfs]" or "RIP: 0010:func+0x1/0x2" -> "nfs_commit_inode". */
static bool frame_name(const char *line, char *fn, size_t len)
{
	const char *p = line, *plus;
	size_t n;

	while (*p == ' ' || *p == '\t')
		p++;
	if (!strncmp(p, "RIP: ", 5)) {
		p = strchr(p, ':') ? strchr(p + 5, ':') : NULL;
		if (!p)
			return false;
		p++;
	}
	if (p[0] == '?' && p[1] == ' ')
		return false; /* unreliable frame */
	plus = strstr(p, "+0x");
	if (!plus || plus == p)
		return false;
	for (const char *q = p; q < plus; q++)
		if (!isalnum((unsigned char)*q) && *q != '_' && *q != '.')
			return false;
	/* GCC's clones ("nfs_request_mount.constprop.0.isra.0", "foo.cold") are the function itself */
	n = strcspn(p, ".+");
	if (!n)
		return false;
	if (n >= len)
		n = len - 1;
	memcpy(fn, p, n);
	fn[n] = '\0';
	return true;
}

bool console_first_meaningful_frame(const char *text, char *fn, size_t len)
{
	const char *line = text;

	while (line && *line) {
		const char *nl = strchr(line, '\n');
		size_t l = nl ? (size_t)(nl - line) : strlen(line);
		char buf[256], name[128];
		snprintf(buf, sizeof(buf), "%.*s", (int)(l < 255 ? l : 255), line);
		if (frame_name(buf, name, sizeof(name)) && !boring(name)) {
			snprintf(fn, len, "%s", name);
			return true;
		}
		line = nl ? nl + 1 : NULL;
	}
	return false;
}

void console_tail_init(struct console_tail *t, console_sink sink, void *ctx)
{
	memset(t, 0, sizeof(*t));
	strbuf_init(&t->partial, 0);
	strbuf_init(&t->cur.text, 0);
	t->sink = sink;
	t->ctx = ctx;
}

static void finish(struct console_tail *t)
{
	const char *first = t->cur.text.buf;
	size_t fl = strcspn(first, "\n");
	char firstline[256];

	if (!t->in_report)
		return;
	/* some consoles pad lines with blanks: not part of a title */
	while (fl && (first[fl - 1] == ' ' || first[fl - 1] == '\t'))
		fl--;
	snprintf(firstline, sizeof(firstline), "%.*s", (int)(fl < 255 ? fl : 255), first);
	if (t->cur.c->title)
		t->cur.c->title(firstline, t->cur.text.buf, t->cur.title, sizeof(t->cur.title));
	else
		snprintf(t->cur.title, sizeof(t->cur.title), "%.159s", firstline);
	t->sink(t->ctx, &t->cur);
	t->in_report = false;
	strbuf_reset(&t->cur.text);
}

/*
 * x86 prints "Oops: 0000 [#1] ..." a few lines after the "BUG: ..." line that
 * opened the report: the same oops, not a second one.
 */
static bool continues_report(const struct console_tail *t, const struct classifier *c,
			     const char *line)
{
	return t->in_report && c == &classifier_oops && t->cur.c == &classifier_oops &&
	       t->cur_lines < 8 && !strncmp(line, "Oops: ", 6);
}

/* "</TASK>", also as printed without "[ time]" (" </TASK>") or padded with blanks. */
static bool is_task_end(const char *line)
{
	line += strspn(line, " \t");
	return !strncmp(line, "</TASK>", 7) && !line[7 + strspn(line + 7, " \t")];
}

static void take_line(struct console_tail *t, char *line)
{
	double kt = console_clean_line(line);
	const struct classifier *c = console_classify(line);

	t->lineno++;
	if (c && !continues_report(t, c, line)) {
		finish(t);
		t->in_report = true;
		t->cur.c = c;
		t->cur.kernel_time = kt;
		t->cur.line = t->lineno;
		t->cur_lines = 0;
		strbuf_addstr(&t->cur.text, line);
		strbuf_addch(&t->cur.text, '\n');
		if (!c->max_lines)
			finish(t);
		return;
	}
	if (!t->in_report)
		return;
	/* A hung task's or a lockup's report ends with its stack. */
	bool stack_end = t->cur.c->ends_with_stack && is_task_end(line);
	if ((!*line && !t->cur.c->blank_lines_inside) || ++t->cur_lines > t->cur.c->max_lines ||
	    !strncmp(line, "---[ end", 8) || stack_end) {
		if (*line && (!strncmp(line, "---[ end", 8) || stack_end)) {
			strbuf_addstr(&t->cur.text, line);
			strbuf_addch(&t->cur.text, '\n');
		}
		finish(t);
		return;
	}
	strbuf_addstr(&t->cur.text, line);
	strbuf_addch(&t->cur.text, '\n');
}

void console_tail_feed(struct console_tail *t, const char *data, size_t len)
{
	strbuf_add(&t->partial, data, len);
	char *start = t->partial.buf, *nl;
	while ((nl = memchr(start, '\n', t->partial.len - (size_t)(start - t->partial.buf)))) {
		*nl = '\0';
		take_line(t, start);
		start = nl + 1;
	}
	size_t rest = t->partial.len - (size_t)(start - t->partial.buf);
	if (rest > 65536)
		rest = 0; /* a console without newlines: nothing to classify */
	memmove(t->partial.buf, start, rest);
	t->partial.len = rest;
	t->partial.buf[rest] = '\0';
}

void console_tail_idle(struct console_tail *t)
{
	finish(t);
}

void console_tail_flush(struct console_tail *t)
{
	finish(t);
}

void console_tail_release(struct console_tail *t)
{
	strbuf_release(&t->partial);
	strbuf_release(&t->cur.text);
}

void title_in_frame(const char *prefix, const char *text, const char *fallback, char *buf,
		    size_t len)
{
	char fn[128];

	if (console_first_meaningful_frame(text, fn, sizeof(fn)))
		snprintf(buf, len, "%s %s", prefix, fn);
	else
		snprintf(buf, len, "%s", fallback);
}
