/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef TAKEOVER_SYSRQ_H
#define TAKEOVER_SYSRQ_H
/*
 * The kernel's own account of a stuck node: the tasks and stacks printed by
 * sysrq-w (blocked tasks) and sysrq-t (all tasks) on the serial console.
 * Pure parsing, unit-tested on real console output (tests/fixtures/sysrq/).
 */
#include <stdbool.h>
#include <stddef.h>

struct sysrq_task {
	char comm[32];
	int pid;
	char state[4];   /* "D", "R", "S", "I", "T", ... as printed after "state:" */
	char *stack;     /* function names, innermost first, one per line, no "?" frames */
};

/* Tasks with an identical stack, as syzkaller and crash users read them. */
struct sysrq_group {
	char *stack;     /* as in sysrq_task */
	char state[4];
	int count;
	char tasks[256]; /* "dd:2695 writer:812 ..." (truncated) */
};

struct sysrq_dump {
	struct sysrq_task *tasks;
	size_t ntasks;
	struct sysrq_group *groups;  /* sorted by count, largest first */
	size_t ngroups;
};

/*
 * Parses console text (cleaned or raw: timestamps, CR and colour codes are
 * handled) containing one or more "task:NAME state:X ..." blocks with their
 * "Call Trace:". Returns 0 (possibly with no tasks) or -ENOMEM.
 */
int sysrq_parse(const char *text, struct sysrq_dump *out);
/*
 * Adds to into the tasks of from in state D that into does not have (by
 * pid): a later sysrq-t catches tasks that blocked after sysrq-w. Call
 * before sysrq_group(). 0 or -ENOMEM.
 */
int sysrq_merge_blocked(struct sysrq_dump *into, const struct sysrq_dump *from);
/* Fills groups from tasks; only tasks in state D when only_blocked. */
void sysrq_group(struct sysrq_dump *d, bool only_blocked);
void sysrq_release(struct sysrq_dump *d);

#endif
