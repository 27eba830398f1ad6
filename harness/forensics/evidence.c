// SPDX-License-Identifier: GPL-2.0-only
/*
 * Capturing the kernel's evidence on trouble, while the node is still in
 * trouble: sysrq-w (blocked tasks), sysrq-m (memory) and sysrq-t (every
 * task) through the virtual keyboard, each cut out of the console log once
 * the console has gone quiet; the vCPU time over the stall; optionally a
 * vmcore. The event loop keeps running meanwhile, so the timeline goes on.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "run/run.h"
#include "util/cleanup.h"
#include "util/fs.h"
#include "util/log.h"
#include "util/spawn.h"
#include "util/xalloc.h"

/* Quiet for this long means the kernel finished printing. */
#define QUIET_MS 2000
/* Below this vCPU use over the stall, the node is waiting, not spinning. */
#define LIVELOCK_CPU 0.5
#define WRITER_COMM "takeover-writer"

static off_t console_size(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 ? st.st_size : 0;
}

struct quiet_wait {
	const char *path;
	off_t last;
	uint64_t last_change;
};

static bool console_quiet(struct run *r, void *arg)
{
	struct quiet_wait *q = arg;
	off_t now = console_size(q->path);

	if (now != q->last) {
		q->last = now;
		q->last_change = timeline_now(&r->tl);
		return false;
	}
	return timeline_now(&r->tl) - q->last_change >= QUIET_MS;
}

/* Sends sysrq-key and returns the console text it produced (until quiet or max_ms). */
static char *sysrq_section(struct run *r, struct node *nd, char key, uint64_t max_ms)
{
	struct quiet_wait q = { .path = nd->console, .last = console_size(nd->console) };
	off_t start = q.last;
	char *text = NULL;

	q.last_change = timeline_now(&r->tl);
	if (capture_sysrq(r->c.conn, nd->domain, key) < 0)
		return NULL;
	monitor_until(r, timeline_now(&r->tl) + max_ms, console_quiet, &q);

	_cleanup_close_ int fd = open(nd->console, O_RDONLY | O_CLOEXEC);
	off_t end = console_size(nd->console);
	if (fd >= 0 && end > start) {
		size_t len = (size_t)(end - start);
		text = xmalloc(len + 1);
		ssize_t n = pread(fd, text, len, start);
		text[n > 0 ? n : 0] = '\0';
	}
	return text;
}

/* Writes text to the run directory as "sysrq-KEY-NODE.txt", recording the name. */
static void save(struct run *r, char *name, size_t len, char key, const char *node, const char *text)
{
	char *path;

	snprintf(name, len, "sysrq-%c-%s.txt", key, node);
	path = xasprintf("%s/%s", r->dir, name);
	write_file_atomic(path, text ? text : "", text ? strlen(text) : 0, 0644);
	free(path);
}

/*
 * DEADLOCK: the writer sleeps in the kernel (it is among sysrq-w's blocked
 * tasks) and nothing it waits for is going to happen. LIVELOCK: the writer
 * is not blocked, yet makes no progress while the vCPU is busy. The node's
 * vCPU figure alone cannot tell: after a takeover the node also serves the
 * other clients, so it can be busy while its own writer sleeps.
 */
static void classify(struct run *r, int node, struct forensics *fx)
{
	struct run_node *rn = &r->nodes[node - 1];
	uint64_t from = rn->last_ack_t ? rn->last_ack_t : r->t_fault;
	bool writer_blocked = false;

	fx->guest_cpu_busy = cpu_ring_busy(&rn->cpu, from, fx->t_capture, &fx->window_seconds);
	fx->bytes_in_window = 0; /* by construction: no acknowledged write since `from` */
	for (size_t i = 0; i < fx->blocked.ntasks; i++)
		writer_blocked |= !strcmp(fx->blocked.tasks[i].comm, WRITER_COMM) &&
				  !strcmp(fx->blocked.tasks[i].state, "D");
	/*
	 * Fenced (or crashed) and booted again since the fault: what sysrq shows
	 * now says nothing about the hang (the writer and its waits are gone).
	 */
	if (r->t_fault && rn->booted_t > r->t_fault)
		fx->cls = HANG_REBOOTED;
	else if (writer_blocked)
		fx->cls = HANG_DEADLOCK;
	else if (fx->guest_cpu_busy < 0)
		fx->cls = HANG_UNKNOWN;
	else
		fx->cls = fx->guest_cpu_busy >= LIVELOCK_CPU ? HANG_LIVELOCK : HANG_DEADLOCK;
}

static void take_vmcore(struct run *r, struct node *nd, struct forensics *fx)
{
	char *path;

	snprintf(fx->vmcore_file, sizeof(fx->vmcore_file), "vmcore-%s.elf", nd->name);
	path = xasprintf("%s/%s", r->dir, fx->vmcore_file);
	log_info("%s: writing a memory-only vmcore (%s)", nd->name, fx->vmcore_file);
	if (capture_vmcore(r->c.conn, nd->domain, path) < 0) {
		fx->vmcore_file[0] = '\0';
	} else {
		const char *rel = nd->ch.kernel[0] ? nd->ch.kernel : r->c.kernel_release;
		snprintf(fx->vmcore_note, sizeof(fx->vmcore_note),
			 "crash /usr/lib/debug/boot/vmlinux-%.60s %.40s (Debian: linux-image-%.60s-dbg)",
			 rel, fx->vmcore_file, rel);
	}
	free(path);
}

static void timeline_summary(struct run *r, const struct forensics *fx)
{
	json_t *f = json_object(), *groups = json_array();

	json_object_set_new(f, "reason", json_string(fx->reason));
	json_object_set_new(f, "hang_class", json_string(hang_class_name(fx->cls)));
	json_object_set_new(f, "guest_cpu_busy", json_real(fx->guest_cpu_busy));
	json_object_set_new(f, "window_s", json_real(fx->window_seconds));
	json_object_set_new(f, "capture_s", json_real(fx->capture_seconds));
	for (size_t i = 0; i < fx->blocked.ngroups; i++) {
		json_t *g = json_object();
		json_object_set_new(g, "count", json_integer(fx->blocked.groups[i].count));
		json_object_set_new(g, "tasks", json_string(fx->blocked.groups[i].tasks));
		json_object_set_new(g, "stack", json_string(fx->blocked.groups[i].stack));
		json_array_append_new(groups, g);
	}
	json_object_set_new(f, "blocked", groups);
	json_object_set_new(f, "vmcore", json_string(fx->vmcore_file));
	json_object_set_new(f, "vmcore_note", json_string(fx->vmcore_note));
	json_object_set_new(f, "bytes_in_window", json_integer((json_int_t)fx->bytes_in_window));
	json_object_set_new(f, "t_capture", json_integer((json_int_t)fx->t_capture));
	json_object_set_new(f, "sysrq_w", json_string(fx->sysrq_w_file));
	json_object_set_new(f, "sysrq_t", json_string(fx->sysrq_t_file));
	json_object_set_new(f, "sysrq_m", json_string(fx->sysrq_m_file));
	timeline_event(&r->tl, "forensics", fx->node, f);
}

int evidence_capture(struct run *r, int node, const char *reason)
{
	struct forensics *fx = &r->fx;
	struct node *nd = &r->c.nodes[node - 1];
	uint64_t t0 = now_ms();
	char *w, *m, *t;

	if (fx->captured)
		return 0;
	fx->captured = true;
	snprintf(fx->node, sizeof(fx->node), "%s", nd->name);
	snprintf(fx->reason, sizeof(fx->reason), "%s", reason);
	fx->t_capture = timeline_now(&r->tl);
	log_info("%s: %s: capturing sysrq-w, sysrq-m, sysrq-t", nd->name, reason);
	w = sysrq_section(r, nd, 'w', 15000);
	m = sysrq_section(r, nd, 'm', 10000);
	t = sysrq_section(r, nd, 't', 30000);
	save(r, fx->sysrq_w_file, sizeof(fx->sysrq_w_file), 'w', nd->name, w);
	save(r, fx->sysrq_m_file, sizeof(fx->sysrq_m_file), 'm', nd->name, m);
	save(r, fx->sysrq_t_file, sizeof(fx->sysrq_t_file), 't', nd->name, t);
	forensics_stacks(fx, w, t);
	classify(r, node, fx);
	fx->meminfo = m ? m : xstrdup("");
	if (r->o.vmcore)
		take_vmcore(r, nd, fx);
	fx->capture_seconds = (double)(now_ms() - t0) / 1000.0;
	timeline_summary(r, fx);
	/* Only a snapshot: a node stuck now may still recover before the verdict. */
	log_info("%s: evidence captured in %.1fs: %zu blocked stack group(s), %s at this moment", nd->name,
		 fx->capture_seconds, fx->blocked.ngroups, hang_class_name(fx->cls));
	free(w);
	free(t);
	return 0;
}
