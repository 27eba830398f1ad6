// SPDX-License-Identifier: GPL-2.0-only
#include "verdict.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exitcode.h"
#include "util/units.h"
#include "util/xalloc.h"

/*
 * Acks that were in flight when the fault hit, or reported a little late (the
 * agent reports once a second), do not count as "resumed".
 */
#define RESUME_GRACE_MS 3000

static const char *const names[] = {
	[VERDICT_PASS] = "PASS",
	[VERDICT_FAIL_TAKEOVER_TIMEOUT] = "FAIL-TAKEOVER-TIMEOUT",
	[VERDICT_FAIL_STALL] = "FAIL-STALL",
	[VERDICT_FAIL_LIVELOCK] = "FAIL-LIVELOCK",
	[VERDICT_FAIL_DATA_LOSS] = "FAIL-DATA-LOSS",
	[VERDICT_FAIL_KERNEL] = "FAIL-KERNEL",
	[VERDICT_ERROR] = "ERROR",
};

const char *verdict_name(enum verdict_class c)
{
	return names[c];
}

int verdict_exit_code(enum verdict_class c)
{
	return c == VERDICT_PASS ? TK_EXIT_PASS : c == VERDICT_ERROR ? TK_EXIT_SKIP : TK_EXIT_FAIL;
}

void verdict_input_init(struct verdict_input *in, const struct scenario *sc)
{
	memset(in, 0, sizeof(*in));
	in->steady_time = sc->verdict.steady_time;
	in->takeover_timeout = sc->verdict.takeover_timeout;
	in->observe = sc->verdict.observe;
	in->max_stall = sc->verdict.max_stall;
	in->min_rate = sc->verdict.min_rate;
}

void verdict_input_release(struct verdict_input *in)
{
	for (int i = 0; i < in->nnodes; i++)
		free(in->nodes[i].s);
	free(in->crm);
	memset(in, 0, sizeof(*in));
}

struct vseries *verdict_series(struct verdict_input *in, const char *node)
{
	for (int i = 0; i < in->nnodes; i++)
		if (!strcmp(in->nodes[i].node, node))
			return &in->nodes[i];
	if (in->nnodes == SCENARIO_MAX_NODES)
		return NULL;
	struct vseries *s = &in->nodes[in->nnodes++];
	snprintf(s->node, sizeof(s->node), "%s", node);
	return s;
}

void verdict_add_sample(struct verdict_input *in, const char *node, uint64_t t, uint64_t acked_bytes)
{
	struct vseries *s = verdict_series(in, node);

	if (!s)
		return;
	if (s->n == s->alloc) {
		s->alloc = s->alloc ? s->alloc * 2 : 256;
		s->s = xrealloc(s->s, s->alloc * sizeof(*s->s));
	}
	s->s[s->n++] = (struct vsample){ t, acked_bytes };
}

struct vcrm *verdict_add_crm(struct verdict_input *in)
{
	if (in->ncrm == in->crm_alloc) {
		in->crm_alloc = in->crm_alloc ? in->crm_alloc * 2 : 64;
		in->crm = xrealloc(in->crm, in->crm_alloc * sizeof(*in->crm));
	}
	memset(&in->crm[in->ncrm], 0, sizeof(in->crm[0]));
	return &in->crm[in->ncrm++];
}

static const struct vseries *find_series(const struct verdict_input *in, const char *node)
{
	for (int i = 0; i < in->nnodes; i++)
		if (!strcmp(in->nodes[i].node, node))
			return &in->nodes[i];
	return NULL;
}

/* acked_bytes as last reported at or before t (0 before the first sample). */
static uint64_t acked_at(const struct vseries *s, uint64_t t)
{
	uint64_t v = 0;

	for (size_t i = 0; i < s->n && s->s[i].t <= t; i++)
		v = s->s[i].acked_bytes;
	return v;
}

/*
 * First report after `after` whose acked_bytes exceeds the value at `after`.
 * The base is taken at `after`, not at the fault: an ack that was in flight
 * when the fault hit lands within the grace, and the agent then repeats that
 * total every second; measured from the fault, that repetition would look
 * like the writer resuming.
 */
/*
 * No write can complete while the group is not running anywhere: progress
 * reported before the last Pacemaker poll that showed the group down (after
 * the fault) is a late report of an earlier write, not a resumption.
 */
static uint64_t server_back_after(const struct verdict_input *in)
{
	uint64_t bound = in->t_fault + RESUME_GRACE_MS;

	for (size_t i = 0; i < in->ncrm; i++) {
		const struct vcrm *c = &in->crm[i];
		bool down = !c->group_started || !strcmp(c->group_node, in->victim);
		if (c->t > in->t_fault && down && c->t > bound)
			bound = c->t;
		if (c->t > in->t_fault && c->group_started && strcmp(c->group_node, in->victim))
			break;
	}
	return bound;
}

static uint64_t first_progress_after(const struct vseries *s, uint64_t after)
{
	uint64_t base = acked_at(s, after);

	for (size_t i = 0; i < s->n; i++)
		if (s->s[i].t > after && s->s[i].acked_bytes > base)
			return s->s[i].t;
	return 0;
}

/* Longest time in [from, to] without an increase of acked_bytes. */
static uint64_t longest_gap(const struct vseries *s, uint64_t from, uint64_t to)
{
	uint64_t last_change = from, gap = 0, prev = acked_at(s, from);

	for (size_t i = 0; i < s->n; i++) {
		if (s->s[i].t <= from || s->s[i].t > to)
			continue;
		if (s->s[i].acked_bytes > prev) {
			if (s->s[i].t - last_change > gap)
				gap = s->s[i].t - last_change;
			last_change = s->s[i].t;
			prev = s->s[i].acked_bytes;
		}
	}
	if (to - last_change > gap)
		gap = to - last_change;
	return gap;
}

static void compute_phases(const struct verdict_input *in, struct verdict *v)
{
	struct phases *p = &v->ph;
	int64_t *slots[] = { &p->seen_offline, &p->fenced, &p->fs_mounted, &p->nfsd_started,
			     &p->export_up, &p->ip_up, &p->group_started, &p->first_remote_write,
			     &p->first_loopback_write };

	for (size_t i = 0; i < sizeof(slots) / sizeof(slots[0]); i++)
		*slots[i] = -1;
	if (!in->fault_fired)
		return;
	for (size_t i = 0; i < in->ncrm; i++) {
		const struct vcrm *c = &in->crm[i];
		int64_t dt = (int64_t)c->t - (int64_t)in->t_fault;
		bool here = !strcmp(c->group_node, in->takeover);
		if (c->t < in->t_fault)
			continue;
#define FIRST(slot, cond) do { if ((cond) && (slot) < 0) (slot) = dt; } while (0)
		FIRST(p->seen_offline, !c->victim_online);
		FIRST(p->fenced, c->fenced);
		FIRST(p->fs_mounted, c->fs && here);
		FIRST(p->nfsd_started, c->nfsd && here);
		FIRST(p->export_up, c->export_ && here);
		FIRST(p->ip_up, c->ip && here);
		FIRST(p->group_started, c->group_started && here);
#undef FIRST
	}
	for (int i = 0; i < in->nnodes; i++) {
		const struct vseries *s = &in->nodes[i];
		uint64_t t;
		if (!strcmp(s->node, in->victim))
			continue;
		t = first_progress_after(s, server_back_after(in));
		if (!t)
			continue;
		int64_t *slot = !strcmp(s->node, in->takeover) ? &p->first_loopback_write
							       : &p->first_remote_write;
		if (*slot < 0 || (int64_t)(t - in->t_fault) < *slot)
			*slot = (int64_t)(t - in->t_fault);
	}
}

static bool fail(struct verdict *v, enum verdict_class c, const char *node, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static bool fail(struct verdict *v, enum verdict_class c, const char *node, const char *fmt, ...)
{
	va_list ap;

	v->cls = c;
	snprintf(v->node, sizeof(v->node), "%s", node ? node : "");
	va_start(ap, fmt);
	vsnprintf(v->reason, sizeof(v->reason), fmt, ap);
	va_end(ap);
	return true;
}

static bool judge_integrity(const struct verdict_input *in, struct verdict *v)
{
	/* The victim's reports count until it was killed on purpose. */
	for (int i = 0; i < in->nkernel; i++)
		if (strcmp(in->kernel[i].node, in->victim) || in->kernel[i].t < in->t_fault)
			return fail(v, VERDICT_FAIL_KERNEL, in->kernel[i].node, "%s on %s: %s",
				    in->kernel[i].cls, in->kernel[i].node, in->kernel[i].title);
	for (int i = 0; i < in->nverify; i++)
		if (in->verify[i].ran && (in->verify[i].missing || in->verify[i].corrupt))
			return fail(v, VERDICT_FAIL_DATA_LOSS, in->verify[i].node,
				    "writer %s: %llu acknowledged records missing, %llu corrupt (%s)",
				    in->verify[i].node, (unsigned long long)in->verify[i].missing,
				    (unsigned long long)in->verify[i].corrupt, in->verify[i].detail);
	return false;
}

/* Fencing of the victim failed after the fault and never succeeded within the timeout. */
static bool victim_fence_failed(const struct verdict_input *in)
{
	bool failed = false;

	for (size_t i = 0; i < in->ncrm; i++) {
		const struct vcrm *c = &in->crm[i];
		if (c->t < in->t_fault || c->t > in->t_fault + in->takeover_timeout)
			continue;
		if (c->fenced)
			return false;
		failed |= c->fence_failed;
	}
	return failed;
}

/*
 * When the cluster fenced the takeover node itself after the fault (it
 * stopped answering while taking over: the typical end of a loop-back
 * deadlock in a real cluster), ms after the fault; -1 when it did not. The
 * fence history is not time-stamped here: a fencing already listed before
 * the fault does not count.
 */
static int64_t takeover_fenced_at(const struct verdict_input *in)
{
	bool before = false;

	for (size_t i = 0; i < in->ncrm; i++) {
		const struct vcrm *c = &in->crm[i];
		if (c->t < in->t_fault)
			before = c->takeover_fenced;
		else if (c->takeover_fenced && !before)
			return (int64_t)(c->t - in->t_fault);
	}
	return -1;
}

static bool judge_takeover(const struct verdict_input *in, struct verdict *v,
			   const struct vseries *tk)
{
	char lim[32];
	uint64_t deadline = in->t_fault + in->takeover_timeout;
	uint64_t resume = tk ? first_progress_after(tk, server_back_after(in)) : 0;

	format_duration_ms(in->takeover_timeout, lim, sizeof(lim));
	bool group_late = v->ph.group_started < 0 || (uint64_t)v->ph.group_started > in->takeover_timeout;

	if (group_late && victim_fence_failed(in))
		/* Pacemaker rightly refuses to move the group; the fencing set-up failed, not the kernel. */
		return fail(v, VERDICT_ERROR, in->victim,
			    "fencing %s failed and the NFS group could not move: cannot judge the kernel "
			    "(see fence_virtd.out in the cluster's state directory)",
			    in->victim);
	/* Not moved or not resumed yet, and the run ended before the deadline: cut short. */
	if ((v->ph.group_started < 0 || !resume) && in->t_end < deadline)
		return fail(v, VERDICT_ERROR, in->takeover,
			    "the run ended %.0fs after the fault, before takeover_timeout (%s) passed",
			    (double)(in->t_end - in->t_fault) / 1000.0, lim);
	if (group_late) {
		int64_t tk_fenced = takeover_fenced_at(in);
		if (tk_fenced >= 0)
			return fail(v, VERDICT_FAIL_TAKEOVER_TIMEOUT, in->takeover,
				    "the NFS group was not running on %s within %s of the fault: the cluster "
				    "had fenced %s itself %.0fs after the fault (it stopped responding while taking over)",
				    in->takeover, lim, in->takeover, (double)tk_fenced / 1000.0);
		return fail(v, VERDICT_FAIL_TAKEOVER_TIMEOUT, in->takeover,
			    "the NFS group was not running on %s within %s of the fault", in->takeover, lim);
	}
	v->t_resume = resume;
	if (!v->t_resume || v->t_resume > deadline)
		return fail(v, VERDICT_FAIL_TAKEOVER_TIMEOUT, in->takeover,
			    "loop-back writes on %s did not resume within %s of the fault", in->takeover,
			    lim);
	return false;
}

static bool judge_progress(const struct verdict_input *in, struct verdict *v,
			   const struct vseries *tk)
{
	uint64_t end = v->t_resume + in->observe;
	char gap[32], lim[32], obs[32];

	if (in->t_end < end)
		return fail(v, VERDICT_ERROR, in->takeover,
			    "the run ended %llums before the observe window closed",
			    (unsigned long long)(end - in->t_end));
	v->max_gap = longest_gap(tk, v->t_resume, end);
	v->window_bytes = acked_at(tk, end) - acked_at(tk, v->t_resume);
	v->window_rate = (double)v->window_bytes * 1000.0 / (double)in->observe;
	snprintf(gap, sizeof(gap), "%.1fs", (double)v->max_gap / 1000.0);
	format_duration_ms(in->max_stall, lim, sizeof(lim));
	format_duration_ms(in->observe, obs, sizeof(obs));
	if (v->max_gap > in->max_stall)
		return fail(v, VERDICT_FAIL_STALL, in->takeover,
			    "loop-back writes on %s stalled for %s after resuming (max_stall %s)",
			    in->takeover, gap, lim);
	if (v->window_rate < (double)in->min_rate)
		return fail(v, VERDICT_FAIL_LIVELOCK, in->takeover,
			    "loop-back writes on %s progressed at %.0f B/s over %s, below min_rate %llu B/s",
			    in->takeover, v->window_rate, obs, (unsigned long long)in->min_rate);
	return false;
}

void verdict_judge(const struct verdict_input *in, struct verdict *v)
{
	const struct vseries *tk;

	memset(v, 0, sizeof(*v));
	compute_phases(in, v);
	if (in->infra_error[0]) {
		fail(v, VERDICT_ERROR, NULL, "%s", in->infra_error);
		return;
	}
	if (judge_integrity(in, v))
		return;
	if (!in->fault_fired) {
		fail(v, VERDICT_ERROR, NULL, "the fault was never injected");
		return;
	}
	tk = find_series(in, in->takeover);
	if (judge_takeover(in, v, tk) || judge_progress(in, v, tk))
		return;
	v->cls = VERDICT_PASS;
	snprintf(v->node, sizeof(v->node), "%s", in->takeover);
	snprintf(v->reason, sizeof(v->reason),
		 "%s took over and kept writing through its loop-back mount: resumed %.1fs after the "
		 "fault, longest gap %.1fs, %.0f KiB/s",
		 in->takeover, (double)(v->t_resume - in->t_fault) / 1000.0, (double)v->max_gap / 1000.0,
		 v->window_rate / 1024.0);
}
