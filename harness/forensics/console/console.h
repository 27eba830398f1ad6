/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef TAKEOVER_CONSOLE_H
#define TAKEOVER_CONSOLE_H
/*
 * Serial-console classification. Each family of kernel messages (hung task,
 * oops, lockdep, ...) is one classifier in console/, listed in one table in
 * console.c (stress-ng's explicit registry, no constructors). A classifier
 * looks at one cleaned line (no CR, no ANSI colours, no "[ 12.345]" prefix)
 * and says whether it starts a report of its family; the tailer then keeps
 * the following lines as the report's text until a blank line, a new report
 * or a line limit.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/strbuf.h"

enum console_severity {
	SEV_INFO,  /* worth a timeline entry (nfs not responding, hung task) */
	SEV_FATAL, /* the kernel is broken: FAIL-KERNEL on a surviving node */
};

struct classifier {
	const char *cls;          /* "oops", "hung-task", ... */
	enum console_severity sev;
	/* Does line start a report of this family? */
	bool (*match)(const char *line);
	/* Short title from the first line (and the report so far); NULL: the line itself. */
	void (*title)(const char *first, const char *text, char *buf, size_t len);
	int max_lines;            /* how many following lines belong to the report */
	bool blank_lines_inside;  /* the report has empty lines of its own (lockdep): they do not end it */
	bool ends_with_stack;     /* the report ends with its stack's "</TASK>" (hung task, lockups, lockdep) */
};

extern const struct classifier *const console_classifiers[];

/* One complete report, handed to the sink when it is finished. */
struct console_report {
	const struct classifier *c;
	char title[160];
	struct strbuf text;
	double kernel_time;       /* the kernel's own [seconds] stamp of the first line, -1 if none */
	unsigned line;            /* the first line's number in what was fed (1 = the first line) */
};

typedef void (*console_sink)(void *ctx, const struct console_report *rep);

/* A tailer for one node's console log: feed it bytes, it emits reports. */
struct console_tail {
	struct strbuf partial;
	struct console_report cur;
	int cur_lines;
	bool in_report;
	unsigned lineno;          /* lines taken so far */
	console_sink sink;
	void *ctx;
};

void console_tail_init(struct console_tail *t, console_sink sink, void *ctx);
void console_tail_feed(struct console_tail *t, const char *data, size_t len);
/* Emits the report in progress (at the end of a run). */
void console_tail_flush(struct console_tail *t);
/*
 * Ends the report in progress when the console has been quiet: a report
 * usually ends with the next message, which may not come for minutes.
 */
void console_tail_idle(struct console_tail *t);
void console_tail_release(struct console_tail *t);

/*
 * Strips CR, ANSI escapes and the "[   12.345678] " prefix in place; returns
 * the kernel time or -1. dmesg -T's "[Mon Dec  7 07:40:26 2026] " goes too
 * (a wall-clock time, so -1).
 */
double console_clean_line(char *line);
/* Classifies one cleaned line; NULL when it starts no report. */
const struct classifier *console_classify(const char *line);
/*
 * syzkaller-style title: the first stack frame that is not a scheduler,
 * locking or generic helper ("INFO: task hung in nfs_commit_inode").
 */
bool console_first_meaningful_frame(const char *text, char *fn, size_t len);

#endif
