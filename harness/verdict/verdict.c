// SPDX-License-Identifier: GPL-2.0-only
#include "verdict/verdict.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cluster/crm.h"
#include "util/exitcode.h"
#include "util/strbuf.h"
#include "util/units.h"
#include "util/xalloc.h"

static const char *const names[] = {
	[VERDICT_PASS] = "PASS",
	[VERDICT_FAIL_TAKEOVER_TIMEOUT] = "FAIL-TAKEOVER-TIMEOUT",
	[VERDICT_FAIL_STALL] = "FAIL-STALL",
	[VERDICT_FAIL_LIVELOCK] = "FAIL-LIVELOCK",
	[VERDICT_FAIL_DATA_LOSS] = "FAIL-DATA-LOSS",
	[VERDICT_FAIL_KERNEL] = "FAIL-KERNEL",
	[VERDICT_FAIL_SPLIT_BRAIN] = "FAIL-SPLIT-BRAIN",
	[VERDICT_ERROR] = "ERROR",
	[VERDICT_ERROR_PRESSURE_LOST] = "ERROR-PRESSURE-LOST",
};

const char *verdict_name(enum verdict_class c)
{
	return names[c];
}

int verdict_code_of_name(const char *name)
{
	for (size_t c = 0; name && c < sizeof(names) / sizeof(names[0]); c++)
		if (!strcmp(names[c], name))
			return verdict_exit_code((enum verdict_class)c);
	return -1;
}

bool verdict_is_error(enum verdict_class c)
{
	return c == VERDICT_ERROR || c == VERDICT_ERROR_PRESSURE_LOST;
}

int verdict_exit_code(enum verdict_class c)
{
	return c == VERDICT_PASS ? TK_EXIT_PASS : verdict_is_error(c) ? TK_EXIT_SKIP : TK_EXIT_FAIL;
}

bool verdict_server_to_client(const struct verdict_input *in)
{
	return in->victim_survives && !in->group_stays;
}

const char *verdict_judged_node(const struct verdict_input *in)
{
	return in->judged[0] ? in->judged : in->takeover;
}

void verdict_input_init(struct verdict_input *in, const struct scenario *sc)
{
	memset(in, 0, sizeof(*in));
	in->steady_time = sc->verdict.steady_time;
	in->takeover_timeout = sc->verdict.takeover_timeout;
	in->observe = sc->verdict.observe;
	in->max_stall = sc->verdict.max_stall;
	in->min_rate = sc->verdict.min_rate;
	in->available = sc->pressure.available;
	in->tolerance = sc->pressure.tolerance;
	in->ramp = sc->pressure.ramp;
	in->min_held = sc->pressure.min_held;
}

void verdict_input_release(struct verdict_input *in)
{
	for (int i = 0; i < in->nnodes; i++)
		free(in->nodes[i].s);
	for (int i = 0; i < in->nmem; i++)
		free(in->mem[i].s);
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

/* Makes room for one more element in the array *p of n used, *alloc allocated. */
static void grow(void **p, size_t n, size_t *alloc, size_t elem)
{
	if (n < *alloc)
		return;
	*alloc = *alloc ? *alloc * 2 : 256;
	*p = xrealloc(*p, *alloc * elem);
}

void verdict_add_sample(struct verdict_input *in, const char *node, uint64_t t, uint64_t acked_bytes)
{
	struct vseries *s = verdict_series(in, node);

	if (!s)
		return;
	grow((void **)&s->s, s->n, &s->alloc, sizeof(*s->s));
	s->s[s->n++] = (struct vsample){ t, acked_bytes };
}

uint64_t oom_counter_add(struct oom_counter *c, uint64_t value)
{
	uint64_t n = c->have && value > c->last ? value - c->last : 0;

	c->have = true;
	c->last = value;
	return n;
}

struct vmemseries *verdict_mem_series(struct verdict_input *in, const char *node)
{
	for (int i = 0; i < in->nmem; i++)
		if (!strcmp(in->mem[i].node, node))
			return &in->mem[i];
	if (in->nmem == SCENARIO_MAX_NODES)
		return NULL;
	struct vmemseries *m = &in->mem[in->nmem++];
	snprintf(m->node, sizeof(m->node), "%s", node);
	return m;
}

struct vmemseries *verdict_add_mem(struct verdict_input *in, const char *node, uint64_t t, uint64_t avail_kb,
				   uint64_t total_kb)
{
	struct vmemseries *m = verdict_mem_series(in, node);

	if (!m)
		return NULL;
	grow((void **)&m->s, m->n, &m->alloc, sizeof(*m->s));
	m->s[m->n++] = (struct vmem){ t, avail_kb, total_kb };
	return m;
}

struct vcrm *verdict_add_crm(struct verdict_input *in)
{
	grow((void **)&in->crm, in->ncrm, &in->crm_alloc, sizeof(*in->crm));
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
	uint64_t bound = in->t_fault + VERDICT_RESUME_GRACE_MS;
	/* A group restarted in place still shows started until Pacemaker notices. */
	bool seen_down = !in->group_restarts;

	for (size_t i = 0; i < in->ncrm; i++) {
		const struct vcrm *c = &in->crm[i];
		bool away = in->group_stays || strcmp(c->group_node, in->victim);
		bool down = !c->group_started || !away;
		if (c->t > in->t_fault && down) {
			seen_down = true;
			if (c->t > bound)
				bound = c->t;
		}
		if (c->t > in->t_fault && c->group_started && away && seen_down)
			break;
	}
	return bound;
}

/* The writes are judged from the fault on, with nothing to resume (disk-stall). */
static bool judged_from_fault(const struct verdict_input *in)
{
	return in->group_stays && !in->group_restarts;
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
/* The longest stretch in (from, to] without new acks; *start gets where it began. */
static uint64_t longest_gap(const struct vseries *s, uint64_t from, uint64_t to, uint64_t *start)
{
	uint64_t last_change = from, gap = 0, prev = acked_at(s, from);

	*start = from;
	for (size_t i = 0; i < s->n; i++) {
		if (s->s[i].t <= from || s->s[i].t > to)
			continue;
		if (s->s[i].acked_bytes > prev) {
			if (s->s[i].t - last_change > gap) {
				gap = s->s[i].t - last_change;
				*start = last_change;
			}
			last_change = s->s[i].t;
			prev = s->s[i].acked_bytes;
		}
	}
	if (to - last_change > gap) {
		gap = to - last_change;
		*start = last_change;
	}
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
	/*
	 * A group restarted in place (nfsd-kill): each member's phase is its
	 * start after a poll saw it stopped (one that never stopped, say the
	 * file system under a restarted nfsd, has none).
	 */
	enum { NSLOTS = CRM_N_MEMBERS + 1 }; /* the members in group order, then the group */
	bool was_down[NSLOTS];

	for (size_t k = 0; k < NSLOTS; k++)
		was_down[k] = !in->group_restarts;
	for (size_t i = 0; i < in->ncrm; i++) {
		const struct vcrm *c = &in->crm[i];
		int64_t dt = (int64_t)c->t - (int64_t)in->t_fault;
		if (c->t < in->t_fault)
			continue;
		bool here = !strcmp(c->group_node, in->takeover);
		const bool up[NSLOTS] = { c->fs, c->nfsd, c->export_, c->ip, c->group_started };
		int64_t *slot[NSLOTS] = { &p->fs_mounted, &p->nfsd_started, &p->export_up, &p->ip_up, &p->group_started };
#define FIRST(slot, cond) do { if ((cond) && (slot) < 0) (slot) = dt; } while (0)
		/* The failure seen: the victim gone from the membership, or for a restart the group down. */
		FIRST(p->seen_offline, in->group_restarts ? !c->group_started : !c->victim_online);
		FIRST(p->fenced, c->fenced);
		for (size_t k = 0; k < NSLOTS; k++) {
			was_down[k] |= !up[k];
			FIRST(*slot[k], up[k] && here && was_down[k]);
		}
#undef FIRST
	}
	for (int i = 0; i < in->nnodes; i++) {
		const struct vseries *s = &in->nodes[i];
		uint64_t t;
		if (!in->victim_survives && !strcmp(s->node, in->victim))
			continue;
		t = first_progress_after(s, server_back_after(in));
		if (!t)
			continue;
		int64_t *slot = !strcmp(s->node, verdict_judged_node(in)) ? &p->first_loopback_write
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

/* Two nodes served at once (an audit saw it): the first audit that did. */
static bool judge_split_brain(const struct verdict_input *in, struct verdict *v)
{
	for (int i = 0; i < in->naudit; i++) {
		const struct vaudit *a = &in->audit[i];
		if (a->nip < 2 && a->nfs < 2)
			continue;
		return fail(v, VERDICT_FAIL_SPLIT_BRAIN, in->victim,
			    "split brain at the %s audit: the floating IP on %d node%s (%s), the shared file "
			    "system mounted on %d (%s)",
			    a->when, a->nip, a->nip == 1 ? "" : "s", a->ip_holders, a->nfs, a->fs_holders);
	}
	return false;
}

static bool judge_integrity(const struct verdict_input *in, struct verdict *v)
{
	if (judge_split_brain(in, v))
		return true;
	/* The victim's reports count until it was killed on purpose (a failback's victim lives on). */
	for (int i = 0; i < in->nkernel; i++)
		if (in->victim_survives || strcmp(in->kernel[i].node, in->victim) || in->kernel[i].t < in->t_fault)
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

/*
 * Pacemaker's first failed action on the takeover node after the fault and
 * until ms after it (when it was fenced: a stop that fails is fenced,
 * on-fail=fence; or the takeover's limit), with when it was first seen, ms
 * after the fault; NULL when there was none (a fence then came because the
 * node stopped answering).
 */
static const char *failed_action_before(const struct verdict_input *in, int64_t until, int64_t *at)
{
	char on[16], off[16] = "";

	/* nfsd-kill: nfsd's monitor saying "not running" is how the cluster noticed, not why it failed. */
	char mon[32];
	snprintf(mon, sizeof(mon), "%s_monitor_", crm_group_members[CRM_NFSD]);
	snprintf(on, sizeof(on), " on %s: ", in->takeover);
	/* A failback's group stops on the victim first: a failed stop there counts too. */
	if (verdict_server_to_client(in))
		snprintf(off, sizeof(off), " on %s: ", in->victim);
	for (size_t i = 0; until >= 0 && i < in->ncrm; i++) {
		const struct vcrm *c = &in->crm[i];
		if (c->t < in->t_fault || (int64_t)(c->t - in->t_fault) > until)
			continue;
		if (in->group_restarts && !strncmp(c->failure, mon, strlen(mon)))
			continue;
		if (strstr(c->failure, on) || (off[0] && strstr(c->failure, off))) {
			*at = (int64_t)(c->t - in->t_fault);
			return c->failure;
		}
	}
	return NULL;
}

/* The first error an NFS daemon logged on node from ms after the fault on; NULL when none. */
static const char *daemon_error_after(const struct verdict_input *in, const char *node, int64_t from)
{
	const char *first = NULL;
	uint64_t t = 0;

	for (int i = 0; i < in->ndaemon_err; i++) {
		const typeof(in->daemon_err[0]) *e = &in->daemon_err[i];
		if (strcmp(e->node, node) || e->t < in->t_fault + (uint64_t)(from > 0 ? from : 0))
			continue;
		if (!first || e->t < t) {
			first = e->text;
			t = e->t;
		}
	}
	return first;
}

/* The node the group started on after the fault when that is not the takeover node; NULL when none. */
static const char *group_started_elsewhere(const struct verdict_input *in)
{
	for (size_t i = 0; i < in->ncrm; i++) {
		const struct vcrm *c = &in->crm[i];
		if (c->t >= in->t_fault && c->group_started && c->group_node[0] && strcmp(c->group_node, in->takeover) &&
		    strcmp(c->group_node, in->victim))
			return c->group_node;
	}
	return NULL;
}

/* What the judged node's writes go through after the fault, for reasons. */
static const char *writes_of(const struct verdict_input *in)
{
	return verdict_server_to_client(in) ? "client writes" : "loop-back writes";
}

/* A failback's victim fenced after the fault (its stop failed, or it stopped answering), ms after it; -1: not. */
static int64_t victim_fenced_at(const struct verdict_input *in, const struct verdict *v)
{
	return verdict_server_to_client(in) ? v->ph.fenced : -1;
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
		int64_t tk_fenced = takeover_fenced_at(in), failed_at = -1;
		/* Up to its fence, or without one within the limit. */
		const char *failure = failed_action_before(in, tk_fenced >= 0 ? tk_fenced : (int64_t)in->takeover_timeout,
							   &failed_at);
		const char *elsewhere = group_started_elsewhere(in);
		/* Why, in the daemon's words, when its journal has them (the agent only says it failed). */
		const char *why = failure ? daemon_error_after(in, in->takeover, 0) : NULL;
		if (tk_fenced < 0 && failure)
			return fail(v, VERDICT_FAIL_TAKEOVER_TIMEOUT, in->takeover,
				    "the NFS group was not running on %s within %s of the fault: an action "
				    "failed there %.0fs after the fault (%s%s%s)%s%s%s",
				    in->takeover, lim, (double)failed_at / 1000.0, failure, why ? "; " : "",
				    why ? why : "", elsewhere ? " and the group started on " : "",
				    elsewhere ? elsewhere : "", elsewhere ? " instead" : "");
		if (tk_fenced >= 0 && failure)
			return fail(v, VERDICT_FAIL_TAKEOVER_TIMEOUT, in->takeover,
				    "the NFS group was not running on %s within %s of the fault: an action "
				    "failed there %.0fs after the fault (%s%s%s) and the cluster fenced %s "
				    "itself %.0fs after the fault",
				    in->takeover, lim, (double)failed_at / 1000.0, failure, why ? "; " : "",
				    why ? why : "", in->takeover, (double)tk_fenced / 1000.0);
		if (victim_fenced_at(in, v) >= 0)
			return fail(v, VERDICT_FAIL_TAKEOVER_TIMEOUT, in->victim,
				    "the NFS group was not running on %s within %s of the failback: the cluster "
				    "fenced %s, the node it was moving away from, %.0fs after the failback (it "
				    "could not stop the group or stopped responding)",
				    in->takeover, lim, in->victim, (double)victim_fenced_at(in, v) / 1000.0);
		if (tk_fenced >= 0)
			return fail(v, VERDICT_FAIL_TAKEOVER_TIMEOUT, in->takeover,
				    "the NFS group was not running on %s within %s of the fault: the cluster "
				    "had fenced %s itself %.0fs after the fault (it stopped responding while taking over)",
				    in->takeover, lim, in->takeover, (double)tk_fenced / 1000.0);
		if (in->group_restarts)
			return fail(v, VERDICT_FAIL_TAKEOVER_TIMEOUT, in->takeover,
				    "the NFS group was not restarted on %s within %s of the fault (%s)", in->takeover,
				    lim, v->ph.seen_offline >= 0 ? "Pacemaker saw it stop"
								 : "Pacemaker never saw it stop");
		return fail(v, VERDICT_FAIL_TAKEOVER_TIMEOUT, in->takeover,
			    "the NFS group was not running on %s within %s of the fault", in->takeover, lim);
	}
	v->t_resume = resume;
	/* The group never left: nothing resumes, the writes are judged from the fault on. */
	if (judged_from_fault(in))
		v->t_resume = in->t_fault;
	if ((!v->t_resume || v->t_resume > deadline) && victim_fenced_at(in, v) >= 0)
		return fail(v, VERDICT_FAIL_TAKEOVER_TIMEOUT, verdict_judged_node(in),
			    "%s on %s did not resume within %s of the failback: the cluster fenced %s "
			    "%.0fs after it",
			    writes_of(in), verdict_judged_node(in), lim, in->victim, (double)victim_fenced_at(in, v) / 1000.0);
	if (!v->t_resume || v->t_resume > deadline)
		return fail(v, VERDICT_FAIL_TAKEOVER_TIMEOUT, verdict_judged_node(in),
			    "%s on %s did not resume within %s of the fault", writes_of(in), verdict_judged_node(in),
			    lim);
	return false;
}

static bool judge_progress(const struct verdict_input *in, struct verdict *v,
			   const struct vseries *tk)
{
	uint64_t end = v->t_resume + in->observe;
	char gap[32], lim[32], obs[32];

	if (in->t_end < end)
		return fail(v, VERDICT_ERROR, verdict_judged_node(in),
			    "the run ended %llums before the observe window closed",
			    (unsigned long long)(end - in->t_end));
	v->max_gap = longest_gap(tk, v->t_resume, end, &v->t_gap);
	v->window_bytes = acked_at(tk, end) - acked_at(tk, v->t_resume);
	v->window_rate = (double)v->window_bytes * 1000.0 / (double)in->observe;
	snprintf(gap, sizeof(gap), "%.1fs", (double)v->max_gap / 1000.0);
	format_duration_ms(in->max_stall, lim, sizeof(lim));
	format_duration_ms(in->observe, obs, sizeof(obs));
	if (v->max_gap > in->max_stall)
		return fail(v, VERDICT_FAIL_STALL, verdict_judged_node(in),
			    "%s on %s stalled for %s %s (max_stall %s)", writes_of(in), verdict_judged_node(in),
			    gap, judged_from_fault(in) ? "after the fault" : "after resuming", lim);
	if (v->window_rate < (double)in->min_rate)
		return fail(v, VERDICT_FAIL_LIVELOCK, verdict_judged_node(in),
			    "%s on %s progressed at %.0f B/s over %s, below min_rate %llu B/s", writes_of(in),
			    verdict_judged_node(in), v->window_rate, obs, (unsigned long long)in->min_rate);
	return false;
}

/* ---- the pressure the scenario asked for ---- */

/*
 * A sample older than this no longer tells the node's state: the agent
 * samples every second, so a longer silence is a node that rebooted or an
 * agent that could not report, and counts as pressure not shown to hold.
 */
#define SAMPLE_STALE_MS 3000

/* MemAvailable, in kB, that is still within reach of the target for this sample. */
static uint64_t reach_kb(const struct verdict_input *in, const struct vmem *m)
{
	uint64_t target = in->available.is_percent ? m->total_kb * in->available.percent / 100
						   : in->available.bytes >> 10;

	return target + (in->tolerance >> 10);
}

struct held_acc {
	struct pressure_node *out;
	uint64_t held;
	uint64_t lost_start; /* start of the stretch out of reach, while lost_open */
	bool lost_open;
};

static void lost_end(struct held_acc *a, uint64_t t)
{
	if (!a->lost_open)
		return;
	if (t - a->lost_start > a->out->longest_lost)
		a->out->longest_lost = t - a->lost_start;
	a->lost_open = false;
}

static void lost_begin(struct held_acc *a, uint64_t t)
{
	if (a->lost_open)
		return;
	a->lost_open = true;
	a->lost_start = t;
	if (!a->out->first_lost)
		a->out->first_lost = t;
}

/* [from, to) as the sample m (NULL: none yet) tells it. */
static void account(const struct verdict_input *in, struct held_acc *a, const struct vmem *m,
		    uint64_t from, uint64_t to)
{
	uint64_t fresh_to = m ? m->t + SAMPLE_STALE_MS : 0;

	if (to <= from)
		return;
	if (m && fresh_to > from) {
		uint64_t end = fresh_to < to ? fresh_to : to;
		if (m->avail_kb <= reach_kb(in, m)) {
			lost_end(a, from);
			a->held += end - from;
		} else {
			lost_begin(a, from);
			a->out->lost_ms += end - from;
		}
		from = end;
	}
	if (from < to) {
		lost_begin(a, from);
		a->out->lost_ms += to - from;
		a->out->unsampled_ms += to - from;
	}
}

static void pressure_share(const struct verdict_input *in, const struct vmemseries *m,
			   uint64_t from, uint64_t to, struct pressure_node *out)
{
	struct held_acc a = { .out = out };
	const struct vmem *prev = NULL;
	uint64_t cur = from;

	memset(out, 0, sizeof(*out));
	snprintf(out->node, sizeof(out->node), "%s", m->node);
	snprintf(out->oom_victim, sizeof(out->oom_victim), "%s", m->oom_victim);
	out->oom_kills = m->oom_kills;
	out->first_oom = m->t_first_oom;
	out->restarts = m->restarts;
	for (size_t i = 0; i < m->n && m->s[i].t < to; i++) {
		const struct vmem *s = &m->s[i];
		if (s->t > from) {
			account(in, &a, prev, cur, s->t);
			cur = s->t;
			if (s->avail_kb > out->max_avail_kb)
				out->max_avail_kb = s->avail_kb;
		}
		prev = s;
		out->reach_kb = reach_kb(in, s);
	}
	account(in, &a, prev, cur, to);
	lost_end(&a, to);
	out->held = (double)a.held / (double)(to - from);
}

/*
 * The judged window: from the fault (or, when the pressure starts later or
 * is still ramping, from the end of its ramp) to the end of the observe
 * window, or of takeover_timeout when the writes never resumed.
 */
static void judge_pressure(const struct verdict_input *in, struct verdict *v)
{
	struct pressure_result *pr = &v->pr;
	uint64_t from = in->t_fault, to;

	pr->worst = -1;
	if (!in->fault_fired)
		return;
	to = v->t_resume ? v->t_resume + in->observe : in->t_fault + in->takeover_timeout;
	if (to > in->t_end)
		to = in->t_end;
	for (int i = 0; i < in->nmem; i++)
		if (in->mem[i].pressured && in->mem[i].t_start + in->ramp > from)
			from = in->mem[i].t_start + in->ramp;
	if (to <= from)
		return;
	pr->from = from;
	pr->to = to;
	for (int i = 0; i < in->nmem; i++) {
		if (!in->mem[i].pressured || (!in->victim_survives && !strcmp(in->mem[i].node, in->victim)))
			continue;
		pressure_share(in, &in->mem[i], from, to, &pr->nodes[pr->n]);
		if (pr->worst < 0 || pr->nodes[pr->n].held < pr->nodes[pr->worst].held)
			pr->worst = pr->n;
		pr->n++;
	}
	pr->judged = pr->n > 0;
	pr->ok = !pr->judged || !in->min_held ||
		 pr->nodes[pr->worst].held * 100.0 >= (double)in->min_held;
}

/* "memory pressure on n1 held 97% of the judged window" (nothing without pressure). */
static void pressure_words(const struct verdict *v, struct strbuf *sb)
{
	const struct pressure_result *pr = &v->pr;

	if (!pr->judged)
		return;
	strbuf_addf(sb, "memory pressure on %s held %.0f%% of the judged window",
		    pr->nodes[pr->worst].node, pr->nodes[pr->worst].held * 100.0);
}

/* Why the pressure did not hold, for the ERROR-PRESSURE-LOST reason. */
static void pressure_lost_reason(const struct verdict_input *in, struct verdict *v,
				 const char *would_pass)
{
	const struct pressure_node *p = &v->pr.nodes[v->pr.worst];
	char tol[32];
	_cleanup_strbuf_ struct strbuf sb = STRBUF_INIT;

	format_size(in->tolerance, tol, sizeof(tol));
	strbuf_addf(&sb, "the memory pressure on %s held for only %.0f%% of the judged window "
			 "(+%.1fs..+%.1fs after the fault; min_held %u%%): MemAvailable above %.0fM "
			 "(the target + tolerance %s)",
		    p->node, p->held * 100.0, (double)(v->pr.from - in->t_fault) / 1000.0,
		    (double)(v->pr.to - in->t_fault) / 1000.0, in->min_held, (double)p->reach_kb / 1024.0,
		    tol);
	if (p->first_lost)
		strbuf_addf(&sb, " from +%.1fs, %.1fs at the longest, up to %.0fM",
			    ((double)p->first_lost - (double)in->t_fault) / 1000.0,
			    (double)p->longest_lost / 1000.0, (double)p->max_avail_kb / 1024.0);
	if (p->unsampled_ms)
		strbuf_addf(&sb, ", %.1fs without a sample", (double)p->unsampled_ms / 1000.0);
	if (p->oom_kills)
		strbuf_addf(&sb, "; %d OOM kill%s (first %s at +%.1fs), hog restarted %d time%s",
			    p->oom_kills, p->oom_kills == 1 ? "" : "s",
			    p->oom_victim[0] ? p->oom_victim : "task",
			    ((double)p->first_oom - (double)in->t_fault) / 1000.0, p->restarts,
			    p->restarts == 1 ? "" : "s");
	strbuf_addf(&sb, "; not a test of the kernel under pressure (otherwise: %s)", would_pass);
	fail(v, VERDICT_ERROR_PRESSURE_LOST, p->node, "%s", sb.buf);
}

/* A FAIL keeps its class and says how long the pressure held; a PASS needs it to have held. */
static void apply_pressure(const struct verdict_input *in, struct verdict *v)
{
	_cleanup_strbuf_ struct strbuf words = STRBUF_INIT;

	judge_pressure(in, v);
	pressure_words(v, &words);
	if (!words.len)
		return;
	if (v->cls == VERDICT_PASS && !v->pr.ok) {
		char was[sizeof(v->reason)];
		snprintf(was, sizeof(was), "%s", v->reason);
		pressure_lost_reason(in, v, was);
		return;
	}
	size_t len = strlen(v->reason);
	snprintf(v->reason + len, sizeof(v->reason) - len, "; %s", words.buf);
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
	if (judge_integrity(in, v)) {
		apply_pressure(in, v);
		return;
	}
	if (!in->fault_fired) {
		fail(v, VERDICT_ERROR, NULL, "the fault was never injected");
		return;
	}
	tk = find_series(in, verdict_judged_node(in));
	if (judge_takeover(in, v, tk) || judge_progress(in, v, tk)) {
		if (v->cls != VERDICT_ERROR)
			apply_pressure(in, v);
		return;
	}
	v->cls = VERDICT_PASS;
	snprintf(v->node, sizeof(v->node), "%s", verdict_judged_node(in));
	if (in->group_restarts)
		snprintf(v->reason, sizeof(v->reason),
			 "%s's NFS group was restarted in place and its loop-back writes resumed %.1fs after the "
			 "fault: longest gap %.1fs, %.0f KiB/s",
			 verdict_judged_node(in), (double)(v->t_resume - in->t_fault) / 1000.0,
			 (double)v->max_gap / 1000.0, v->window_rate / 1024.0);
	else if (in->group_stays)
		snprintf(v->reason, sizeof(v->reason),
			 "%s kept the NFS group and kept writing through its loop-back mount across the "
			 "fault: longest gap %.1fs, %.0f KiB/s",
			 verdict_judged_node(in), (double)v->max_gap / 1000.0, v->window_rate / 1024.0);
	else if (verdict_server_to_client(in))
		snprintf(v->reason, sizeof(v->reason),
			 "%s handed the NFS group to %s and kept writing as its client: resumed %.1fs after "
			 "the failback, longest gap %.1fs, %.0f KiB/s",
			 verdict_judged_node(in), in->takeover, (double)(v->t_resume - in->t_fault) / 1000.0,
			 (double)v->max_gap / 1000.0, v->window_rate / 1024.0);
	else
		snprintf(v->reason, sizeof(v->reason),
			 "%s took over and kept writing through its loop-back mount: resumed %.1fs after the "
			 "fault, longest gap %.1fs, %.0f KiB/s",
			 in->takeover, (double)(v->t_resume - in->t_fault) / 1000.0, (double)v->max_gap / 1000.0,
			 v->window_rate / 1024.0);
	apply_pressure(in, v);
	/* ... and as the cluster's state after it (the audits); a FAIL keeps its class. */
	for (int i = 0; v->cls == VERDICT_PASS && i < in->naudit; i++)
		if (in->audit[i].problems[0])
			fail(v, VERDICT_ERROR, NULL, "it would have passed, but the cluster audit (%s) found: %s",
			     in->audit[i].when, in->audit[i].problems);
	/* A PASS is only as good as the clean-up after it; a FAIL keeps its class. */
	if (v->cls == VERDICT_PASS && in->teardown_failed)
		fail(v, VERDICT_ERROR, NULL, "the cluster could not be removed after the run");
}
