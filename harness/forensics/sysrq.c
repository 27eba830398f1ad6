// SPDX-License-Identifier: GPL-2.0-only
/*
 * sysrq-w / sysrq-t output as tasks and stacks. Each task is one block, as
 * sched_show_task() prints it (6.1):
 *
 *   task:dd              state:D stack:0     pid:2695  ppid:1      flags:0x00004002
 *   Workqueue: ...                               (kworkers only)
 *   Call Trace:
 *    <TASK>
 *    __schedule+0x34d/0xa00
 *    ? __bpf_trace_cache_event+0x10/0x10 [sunrpc]  (unreliable: left out)
 *    rpc_wait_bit_killable+0xd/0x70 [sunrpc]
 *   RIP: 0033:0x7fb1ea3fd011                      (registers: left out)
 *    </TASK>
 *
 * A running task may show an <IRQ> section first and a kernel "RIP:
 * 0010:func+0x0/0x20" where the interrupt hit; both are kept, in printed
 * order, which is innermost first. The console is shared with every other
 * printk, so a few unrelated lines inside a block are skipped; more than
 * MAX_JUNK in a row end it (a block cut off by the end of the capture, or
 * followed by the scheduler debug dump of sysrq-t).
 */
#include "forensics/sysrq.h"

#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "forensics/console/console.h"
#include "util/units.h"
#include "util/xalloc.h"

#define MAX_JUNK 4
/* Longer lines are cut: every line this parser cares about is far shorter. */
#define MAX_LINE 1024
/* A kernel stack holds fewer; the cap bounds what garbage input can cost. */
#define MAX_FRAMES 256

struct parser {
	struct sysrq_dump d;
	size_t cap;
	bool in_block;
	int junk;
	int nframes;
	char *stack;          /* the current task's frames so far */
	size_t len, alloc;
};

/* "[ T1234] " / "[ C0] ": printk's caller id (CONFIG_PRINTK_CALLER), after the time stamp. */
static const char *skip_caller_id(const char *p)
{
	const char *q = p + 1;

	if (*p != '[')
		return p;
	while (*q == ' ')
		q++;
	if (*q != 'T' && *q != 'C')
		return p;
	q++;
	if (!isdigit((unsigned char)*q))
		return p;
	while (isdigit((unsigned char)*q))
		q++;
	if (*q != ']')
		return p;
	q++;
	while (*q == ' ')
		q++;
	return q;
}

/* "task:NAME state:X ... pid:P ...": NAME is %-15.15s, so it may hold spaces. */
static bool parse_header(const char *p, struct sysrq_task *t)
{
	const char *name = p + 5, *st, *pid;
	size_t n, i = 0;

	if (strncmp(p, "task:", 5))
		return false;
	if (strnlen(name, 15) == 15 && !strncmp(name + 15, " state:", 7))
		st = name + 15;
	else
		st = strstr(name, " state:");
	if (!st)
		return false;
	for (n = (size_t)(st - name); n && name[n - 1] == ' '; n--)
		;
	memset(t, 0, sizeof(*t));
	snprintf(t->comm, sizeof(t->comm), "%.*s", (int)(n < sizeof(t->comm) ? n : sizeof(t->comm) - 1), name);
	for (st += 7; *st && *st != ' ' && i < sizeof(t->state) - 1; st++)
		t->state[i++] = *st;
	if (!i)
		t->state[i++] = '?';
	t->pid = -1;
	pid = strstr(st, " pid:");
	if (pid) {
		char num[16];
		uint64_t v;
		const char *why;
		snprintf(num, sizeof(num), "%.*s", (int)strspn(pid + 5, "0123456789"), pid + 5);
		if (parse_uint(num, &v, &why) == 0 && v <= INT32_MAX)
			t->pid = (int)v;
	}
	return true;
}

static bool is_marker(const char *p)
{
	static const char *const markers[] = {
		"Call Trace:", "<TASK>", "<IRQ>", "</IRQ>", "<NMI>", "</NMI>",
		"<SOFTIRQ>", "</SOFTIRQ>", "<EOI>",
	};

	for (size_t i = 0; i < sizeof(markers) / sizeof(markers[0]); i++)
		if (!strncmp(p, markers[i], strlen(markers[i])))
			return true;
	return false;
}

static bool is_hex_run(const char **p)
{
	const char *q = *p;

	if (strncmp(q, "0x", 2) || !isxdigit((unsigned char)q[2]))
		return false;
	for (q += 2; isxdigit((unsigned char)*q); q++)
		;
	*p = q;
	return true;
}

/*
 * "name+0xd/0x70 [sunrpc]" -> name (its length in *n). Older kernels put
 * "[<ffffffff81234567>] " first; that is skipped too.
 */
static bool frame_name(const char *p, const char **name, size_t *n)
{
	const char *q;

	if (p[0] == '[' && p[1] == '<') {
		const char *e = strstr(p, ">] ");
		if (!e)
			return false;
		p = e + 3;
		while (*p == ' ')
			p++;
	}
	for (q = p; isalnum((unsigned char)*q) || *q == '_' || *q == '.' || *q == '$'; q++)
		;
	if (q == p || *q != '+')
		return false;
	*name = p;
	*n = (size_t)(q - p);
	q++;
	if (!is_hex_run(&q) || *q++ != '/' || !is_hex_run(&q))
		return false;
	return *q == '\0' || *q == ' ';
}

/* RAX:, R10:, CR2:, PKRU:, FS: and the other register dump lines. */
static bool is_register_line(const char *p)
{
	size_t n = 0;

	if (!isupper((unsigned char)p[0]))
		return false;
	while (n < 5 && (isupper((unsigned char)p[n]) || isdigit((unsigned char)p[n])))
		n++;
	return n >= 2 && p[n] == ':';
}

/* Lines a block may hold that carry nothing for the stack. */
static bool is_block_noise(const char *p)
{
	return is_register_line(p) || !strncmp(p, "Code: ", 6) || !strncmp(p, "Workqueue:", 10) ||
	       !strncmp(p, "Stopper:", 8);
}

static int add_frame(struct parser *ps, const char *name, size_t n)
{
	size_t need = ps->len + n + 2;

	if (ps->nframes >= MAX_FRAMES)
		return 0;
	if (need > ps->alloc) {
		size_t alloc = ps->alloc ? ps->alloc : 256;
		char *s;
		while (alloc < need)
			alloc *= 2;
		s = realloc(ps->stack, alloc);
		if (!s)
			return -ENOMEM;
		ps->stack = s;
		ps->alloc = alloc;
	}
	if (ps->len)
		ps->stack[ps->len++] = '\n';
	memcpy(ps->stack + ps->len, name, n);
	ps->len += n;
	ps->stack[ps->len] = '\0';
	ps->nframes++;
	return 0;
}

/* The current task takes the frames collected so far ("" when none). */
static int finish_block(struct parser *ps)
{
	struct sysrq_task *t;

	if (!ps->in_block)
		return 0;
	ps->in_block = false;
	t = &ps->d.tasks[ps->d.ntasks - 1];
	if (!ps->stack) {
		ps->stack = malloc(1);
		if (!ps->stack)
			return -ENOMEM;
		ps->stack[0] = '\0';
	}
	t->stack = ps->stack;
	ps->stack = NULL;
	ps->len = ps->alloc = 0;
	ps->nframes = 0;
	return 0;
}

static int start_block(struct parser *ps, const struct sysrq_task *t)
{
	int r = finish_block(ps);

	if (r < 0)
		return r;
	if (ps->d.ntasks == ps->cap) {
		size_t cap = ps->cap ? ps->cap * 2 : 64;
		struct sysrq_task *n = reallocarray(ps->d.tasks, cap, sizeof(*n));
		if (!n)
			return -ENOMEM;
		ps->d.tasks = n;
		ps->cap = cap;
	}
	ps->d.tasks[ps->d.ntasks++] = *t;
	ps->in_block = true;
	ps->junk = 0;
	return 0;
}

/* A line inside a block: a frame, a marker, registers, or something else's printk. */
static int block_line(struct parser *ps, const char *p)
{
	const char *name;
	size_t n;

	if (!strncmp(p, "</TASK>", 7))
		return finish_block(ps);
	if (frame_name(p, &name, &n) ||
	    /* Where an interrupt hit a running task: "RIP: 0010:mntget+0x0/0x20". */
	    (!strncmp(p, "RIP: ", 5) && strlen(p) > 10 && p[9] == ':' && frame_name(p + 10, &name, &n))) {
		ps->junk = 0;
		return add_frame(ps, name, n);
	}
	if (is_marker(p) || is_block_noise(p) || (p[0] == '?' && p[1] == ' ' && frame_name(p + 2, &name, &n))) {
		ps->junk = 0;
		return 0;
	}
	if (++ps->junk > MAX_JUNK)
		return finish_block(ps);
	return 0;
}

static int parse_line(struct parser *ps, char *line)
{
	struct sysrq_task t;
	const char *p;

	console_clean_line(line);
	p = skip_caller_id(line);
	while (*p == ' ' || *p == '\t')
		p++;
	if (parse_header(p, &t))
		return start_block(ps, &t);
	return ps->in_block ? block_line(ps, p) : 0;
}

int sysrq_parse(const char *text, struct sysrq_dump *out)
{
	struct parser ps = { 0 };
	char line[MAX_LINE];
	int r = 0;

	for (const char *p = text ? text : ""; *p && r == 0;) {
		size_t n = strcspn(p, "\n");
		snprintf(line, sizeof(line), "%.*s", (int)(n < sizeof(line) ? n : sizeof(line) - 1), p);
		r = parse_line(&ps, line);
		p += n + (p[n] == '\n');
	}
	if (r == 0)
		r = finish_block(&ps);
	free(ps.stack);
	if (r < 0) {
		sysrq_release(&ps.d);
		return r;
	}
	*out = ps.d;
	return 0;
}

/* ---- grouping ---- */

struct ent {
	const struct sysrq_task *t;
	size_t idx;             /* order in the dump */
};

static int by_pid_last_first(const void *a, const void *b)
{
	const struct ent *x = a, *y = b;

	if (x->t->pid != y->t->pid)
		return x->t->pid < y->t->pid ? -1 : 1;
	return x->idx > y->idx ? -1 : x->idx < y->idx;
}

static int by_key_then_order(const void *a, const void *b)
{
	const struct ent *x = a, *y = b;
	int c = strcmp(x->t->state, y->t->state);

	if (!c)
		c = strcmp(x->t->stack ? x->t->stack : "", y->t->stack ? y->t->stack : "");
	if (!c)
		c = x->idx < y->idx ? -1 : x->idx > y->idx;
	return c;
}

static int by_order(const void *a, const void *b)
{
	const struct ent *x = a, *y = b;

	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/*
 * The same task can be printed twice in one capture (a hung-task report and
 * sysrq-w): it counts once, as printed last.
 */
static size_t select_tasks(const struct sysrq_dump *d, bool only_blocked, struct ent *e)
{
	size_t n = 0, kept = 0;

	for (size_t i = 0; i < d->ntasks; i++)
		if (!only_blocked || !strcmp(d->tasks[i].state, "D"))
			e[n++] = (struct ent){ &d->tasks[i], i };
	qsort(e, n, sizeof(*e), by_pid_last_first);
	for (size_t i = 0; i < n; i++)
		if (i == 0 || e[i].t->pid <= 0 || e[i].t->pid != e[kept - 1].t->pid)
			e[kept++] = e[i];
	qsort(e, kept, sizeof(*e), by_order);
	return kept;
}

/* "dd:2695 nfsd:1052 ... +12 more": whole entries only, the count of the rest always fits. */
#define MORE_ROOM 20

static void task_list(const struct ent *e, size_t n, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < n; i++) {
		char one[64];
		int l = snprintf(one, sizeof(one), "%s%s:%d", i ? " " : "", e[i].t->comm, e[i].t->pid);
		size_t room = i + 1 == n ? 0 : MORE_ROOM;
		if (used + (size_t)l + room >= len) {
			snprintf(buf + used, len - used, " +%zu more", n - i);
			return;
		}
		memcpy(buf + used, one, (size_t)l + 1);
		used += (size_t)l;
	}
}

struct pending {
	struct sysrq_group g;
	size_t first;
};

static int by_count(const void *a, const void *b)
{
	const struct pending *x = a, *y = b;

	if (x->g.count != y->g.count)
		return x->g.count > y->g.count ? -1 : 1;
	return x->first < y->first ? -1 : x->first > y->first;
}

static void free_groups(struct sysrq_dump *d)
{
	for (size_t i = 0; i < d->ngroups; i++)
		free(d->groups[i].stack);
	free(d->groups);
	d->groups = NULL;
	d->ngroups = 0;
}

void sysrq_group(struct sysrq_dump *d, bool only_blocked)
{
	struct ent *e;
	struct pending *p;
	size_t n, np = 0;

	free_groups(d);
	if (!d->ntasks)
		return;
	e = xcalloc(d->ntasks, sizeof(*e));
	n = select_tasks(d, only_blocked, e);
	qsort(e, n, sizeof(*e), by_key_then_order);
	p = xcalloc(n ? n : 1, sizeof(*p));
	for (size_t i = 0, j; i < n; i = j) {
		struct sysrq_group *g = &p[np].g;
		for (j = i + 1; j < n && !strcmp(e[i].t->state, e[j].t->state) &&
				!strcmp(e[i].t->stack ? e[i].t->stack : "", e[j].t->stack ? e[j].t->stack : "");
		     j++)
			;
		g->stack = xstrdup(e[i].t->stack ? e[i].t->stack : "");
		snprintf(g->state, sizeof(g->state), "%s", e[i].t->state);
		g->count = (int)(j - i);
		task_list(e + i, j - i, g->tasks, sizeof(g->tasks));
		p[np++].first = e[i].idx;
	}
	qsort(p, np, sizeof(*p), by_count);
	d->groups = np ? xcalloc(np, sizeof(*d->groups)) : NULL;
	for (size_t i = 0; i < np; i++)
		d->groups[i] = p[i].g;
	d->ngroups = np;
	free(p);
	free(e);
}

int sysrq_merge_blocked(struct sysrq_dump *into, const struct sysrq_dump *from)
{
	/* Room for all of from at once; at most that many are added. */
	struct sysrq_task *n = reallocarray(into->tasks, into->ntasks + from->ntasks + 1, sizeof(*n));
	size_t have = into->ntasks;

	if (!n)
		return -ENOMEM;
	into->tasks = n;
	for (size_t i = 0; i < from->ntasks; i++) {
		const struct sysrq_task *t = &from->tasks[i];
		size_t j = 0;
		while (j < have && n[j].pid != t->pid)
			j++;
		if (strcmp(t->state, "D") || j < have)
			continue;
		n[into->ntasks] = *t;
		n[into->ntasks++].stack = xstrdup(t->stack ? t->stack : "");
	}
	return 0;
}

void sysrq_release(struct sysrq_dump *d)
{
	free_groups(d);
	for (size_t i = 0; i < d->ntasks; i++)
		free(d->tasks[i].stack);
	free(d->tasks);
	d->tasks = NULL;
	d->ntasks = 0;
}
