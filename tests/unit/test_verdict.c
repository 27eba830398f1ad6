// SPDX-License-Identifier: GPL-2.0-only
/*
 * verdict_judge() on synthetic timelines: a three-node run (n1 the victim,
 * n2 the takeover node, n3 a remote client) shaped like the failovers
 * measured on TCG (docs: platform notes), then bent into each failure class.
 * Criteria are the scenario defaults; timelines are built from them, so the
 * tests follow if a default changes.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "scenario/scenario.h"
#include "util/strbuf.h"
#include "verdict/verdict.h"

#define T_FAULT 30000u
#define STEP 1000u         /* the agent's progress period */
#define POLL 2000u         /* the harness's crm_mon period */
#define RATE (1u << 20)    /* bytes per second of a healthy writer */

/* How the run after the fault goes; times are ms after the fault. */
struct plan {
	int64_t group_at;      /* the group runs on n2 (-1: never) */
	int64_t resume_at;     /* n2's loop-back writes resume (-1: never) */
	uint64_t rate;         /* n2's bytes per second once resumed */
	uint64_t stall_from;   /* ms after resuming that n2 stops... */
	uint64_t stall_len;    /* ...for this long (0: no stall) */
	int64_t end_after;     /* t_end, ms after the resume (-1: resume + observe + 5s) */
	bool inflight_ack;     /* n2 reports one more record 0.5 s after the fault */
};

static struct scenario sc;
static struct verdict_input in;
static struct verdict v;

static void setup(void)
{
	struct strbuf errs = STRBUF_INIT;

	ck_assert_int_eq(scenario_parse("empty", NULL, 0, NULL, &sc, &errs), 0);
	strbuf_release(&errs);
	verdict_input_init(&in, &sc);
	memset(&v, 0, sizeof(v));
}

static void teardown(void)
{
	verdict_input_release(&in);
	scenario_release(&sc);
}

static struct plan healthy(void)
{
	return (struct plan){ .group_at = 62000, .resume_at = 66000, .rate = RATE, .end_after = -1 };
}

static uint64_t plan_end(const struct plan *p)
{
	uint64_t resume = p->resume_at >= 0 ? (uint64_t)p->resume_at : in.takeover_timeout;

	if (p->end_after >= 0)
		return T_FAULT + resume + (uint64_t)p->end_after;
	return T_FAULT + resume + in.observe + 5000;
}

static bool n2_progresses(const struct plan *p, uint64_t t)
{
	uint64_t since;

	if (t < T_FAULT)
		return true;
	if (p->resume_at < 0 || t < T_FAULT + (uint64_t)p->resume_at)
		return false;
	since = t - T_FAULT - (uint64_t)p->resume_at;
	return !p->stall_len || since < p->stall_from || since >= p->stall_from + p->stall_len;
}

/* The remote client comes back 2 s after the group, whatever n2 does. */
static bool n3_progresses(const struct plan *p, uint64_t t)
{
	return t < T_FAULT || (p->group_at >= 0 && t >= T_FAULT + (uint64_t)p->group_at + 2000);
}

static void add_samples(const struct plan *p, uint64_t end)
{
	uint64_t a1 = 0, a2 = 0, a3 = 0;

	for (uint64_t t = STEP; t <= end; t += STEP) {
		if (t < T_FAULT)
			verdict_add_sample(&in, "n1", t, a1 += RATE);
		if (n2_progresses(p, t))
			a2 += t < T_FAULT ? RATE : p->rate;
		verdict_add_sample(&in, "n2", t, a2);
		if (n3_progresses(p, t))
			a3 += RATE;
		verdict_add_sample(&in, "n3", t, a3);
		if (p->inflight_ack && t == T_FAULT)
			verdict_add_sample(&in, "n2", t + 500, a2 += 65536);
	}
}

/* Pacemaker as measured: offline +24 s, fenced +28 s, then fs, nfsd, export, IP, group. */
static void add_crm(const struct plan *p, uint64_t end)
{
	for (uint64_t t = 0; t <= end; t += POLL) {
		struct vcrm *c = verdict_add_crm(&in);
		int64_t dt = (int64_t)t - (int64_t)T_FAULT;
		bool moving = p->group_at >= 0 && dt >= 42000;
		c->t = t;
		c->victim_online = dt < 24000;
		c->fenced = dt >= 28000;
		snprintf(c->group_node, sizeof(c->group_node), "%s", dt < 0 ? "n1" : moving ? "n2" : "");
		c->group_started = dt < 0 || (p->group_at >= 0 && dt >= p->group_at);
		c->fs = moving;
		c->nfsd = moving && dt >= 56000;
		c->export_ = moving && dt >= 58000;
		c->ip = moving && dt >= 62000;
	}
}

static void build(const struct plan *p)
{
	uint64_t end = plan_end(p);

	in.fault_fired = true;
	in.t_fault = T_FAULT;
	snprintf(in.victim, sizeof(in.victim), "n1");
	snprintf(in.takeover, sizeof(in.takeover), "n2");
	in.t_end = end;
	add_samples(p, end);
	add_crm(p, end);
}

static void judge_plan(struct plan p)
{
	build(&p);
	verdict_judge(&in, &v);
}

static void add_kernel(const char *node, const char *cls, const char *title)
{
	int i = in.nkernel++;

	in.kernel[i].t = T_FAULT + 40000;
	snprintf(in.kernel[i].node, sizeof(in.kernel[i].node), "%s", node);
	snprintf(in.kernel[i].cls, sizeof(in.kernel[i].cls), "%s", cls);
	snprintf(in.kernel[i].title, sizeof(in.kernel[i].title), "%s", title);
}

static void add_verify(const char *node, uint64_t acked, uint64_t missing, uint64_t corrupt)
{
	int i = in.nverify++;

	snprintf(in.verify[i].node, sizeof(in.verify[i].node), "%s", node);
	in.verify[i].ran = true;
	in.verify[i].acked = acked;
	in.verify[i].missing = missing;
	in.verify[i].corrupt = corrupt;
	snprintf(in.verify[i].detail, sizeof(in.verify[i].detail), "first gap at record 1234");
}

static void assert_class(enum verdict_class c, const char *node)
{
	ck_assert_msg(v.cls == c, "expected %s, got %s: %s", verdict_name(c), verdict_name(v.cls),
		      v.reason);
	if (node)
		ck_assert_str_eq(v.node, node);
	ck_assert_msg(v.reason[0], "a verdict always says why");
}

/* ---- PASS and the measured figures ---- */

START_TEST(pass_healthy)
{
	judge_plan(healthy());
	assert_class(VERDICT_PASS, "n2");
	ck_assert_int_eq(verdict_exit_code(v.cls), 0);
	ck_assert_uint_eq(v.t_resume, T_FAULT + 66000);
	ck_assert_uint_le(v.max_gap, STEP);
	ck_assert_uint_eq(v.window_bytes, in.observe / 1000 * RATE);
	ck_assert_double_eq_tol(v.window_rate, RATE, 1.0);
}
END_TEST

START_TEST(phases_computed)
{
	judge_plan(healthy());
	ck_assert_int_eq(v.ph.seen_offline, 24000);
	ck_assert_int_eq(v.ph.fenced, 28000);
	ck_assert_int_eq(v.ph.fs_mounted, 42000);
	ck_assert_int_eq(v.ph.nfsd_started, 56000);
	ck_assert_int_eq(v.ph.export_up, 58000);
	ck_assert_int_eq(v.ph.ip_up, 62000);
	ck_assert_int_eq(v.ph.group_started, 62000);
	ck_assert_int_eq(v.ph.first_remote_write, 64000);
	ck_assert_int_eq(v.ph.first_loopback_write, 66000);
}
END_TEST

/* Phases are computed whatever the verdict, and -1 for what never happened. */
START_TEST(phases_unseen)
{
	struct plan p = healthy();

	p.group_at = -1;
	p.resume_at = -1;
	judge_plan(p);
	ck_assert_int_eq(v.ph.seen_offline, 24000);
	ck_assert_int_eq(v.ph.fenced, 28000);
	ck_assert_int_eq(v.ph.fs_mounted, -1);
	ck_assert_int_eq(v.ph.group_started, -1);
	ck_assert_int_eq(v.ph.first_remote_write, -1);
	ck_assert_int_eq(v.ph.first_loopback_write, -1);
}
END_TEST

START_TEST(phases_without_fault)
{
	judge_plan(healthy());
	in.fault_fired = false;
	verdict_judge(&in, &v);
	assert_class(VERDICT_ERROR, NULL);
	ck_assert_int_eq(v.ph.seen_offline, -1);
	ck_assert_int_eq(v.ph.first_loopback_write, -1);
}
END_TEST

/* Both deadlines are inclusive: exactly takeover_timeout is still in time. */
START_TEST(pass_at_deadline)
{
	struct plan p = healthy();

	p.group_at = (int64_t)in.takeover_timeout;
	p.resume_at = (int64_t)in.takeover_timeout;
	judge_plan(p);
	assert_class(VERDICT_PASS, "n2");
}
END_TEST

/*
 * The write in flight when the server died is acknowledged just after the
 * fault; the agent then keeps reporting that same total every second. That
 * is not the writer resuming: resume is the first progress past the grace.
 */
START_TEST(inflight_ack_is_not_resume)
{
	struct plan p = healthy();

	p.inflight_ack = true;
	judge_plan(p);
	assert_class(VERDICT_PASS, "n2");
	ck_assert_uint_eq(v.t_resume, T_FAULT + 66000);
	ck_assert_int_eq(v.ph.first_loopback_write, 66000);
}
END_TEST

/* ---- FAIL-TAKEOVER-TIMEOUT ---- */

START_TEST(timeout_group_never)
{
	struct plan p = healthy();

	p.group_at = -1;
	p.resume_at = -1;
	judge_plan(p);
	assert_class(VERDICT_FAIL_TAKEOVER_TIMEOUT, "n2");
	ck_assert_int_eq(verdict_exit_code(v.cls), 1);
	ck_assert_ptr_nonnull(strstr(v.reason, "group"));
}
END_TEST

/*
 * The group never moves; the fence history lists the takeover node from
 * fenced_from (ms after the fault, negative: already before it) on.
 */
static void judge_takeover_fenced(int64_t fenced_from)
{
	struct plan p = healthy();

	p.group_at = -1;
	p.resume_at = -1;
	build(&p);
	for (size_t i = 0; i < in.ncrm; i++)
		in.crm[i].takeover_fenced = (int64_t)in.crm[i].t - (int64_t)T_FAULT >= fenced_from;
	verdict_judge(&in, &v);
	assert_class(VERDICT_FAIL_TAKEOVER_TIMEOUT, "n2");
}

/* The takeover node hangs half-way and the cluster fences it: the reason says so. */
START_TEST(timeout_takeover_node_fenced)
{
	judge_takeover_fenced(90000);
	ck_assert_ptr_nonnull(strstr(v.reason, "fenced n2 itself 90s after the fault"));
}
END_TEST

/* A fencing of the takeover node already in the history before the fault is old news. */
START_TEST(timeout_takeover_fenced_before_fault)
{
	judge_takeover_fenced(-(int64_t)T_FAULT);
	ck_assert_ptr_null(strstr(v.reason, "itself"));
}
END_TEST

START_TEST(timeout_group_late)
{
	struct plan p = healthy();

	p.group_at = (int64_t)in.takeover_timeout + POLL;
	p.resume_at = p.group_at + 2000;
	judge_plan(p);
	assert_class(VERDICT_FAIL_TAKEOVER_TIMEOUT, "n2");
	ck_assert_int_eq(v.ph.group_started, p.group_at);
}
END_TEST

/* The group is up and remote clients write, but the loop-back mount never moves. */
START_TEST(timeout_loopback_never)
{
	struct plan p = healthy();

	p.resume_at = -1;
	judge_plan(p);
	assert_class(VERDICT_FAIL_TAKEOVER_TIMEOUT, "n2");
	ck_assert_ptr_nonnull(strstr(v.reason, "did not resume"));
	ck_assert_int_eq(v.ph.first_remote_write, 64000);
	ck_assert_uint_eq(v.t_resume, 0);
}
END_TEST

START_TEST(timeout_loopback_late)
{
	struct plan p = healthy();

	p.resume_at = (int64_t)in.takeover_timeout + STEP;
	judge_plan(p);
	assert_class(VERDICT_FAIL_TAKEOVER_TIMEOUT, "n2");
}
END_TEST

/* No progress series at all from the takeover node (its writer never started). */
START_TEST(timeout_no_series)
{
	judge_plan(healthy());
	for (int i = 0; i < in.nnodes; i++)
		if (!strcmp(in.nodes[i].node, "n2"))
			snprintf(in.nodes[i].node, sizeof(in.nodes[i].node), "n9");
	verdict_judge(&in, &v);
	assert_class(VERDICT_FAIL_TAKEOVER_TIMEOUT, "n2");
	ck_assert_ptr_nonnull(strstr(v.reason, "did not resume"));
}
END_TEST

/* ---- FAIL-STALL, FAIL-LIVELOCK ---- */

START_TEST(stall_after_resume)
{
	struct plan p = healthy();

	p.stall_from = 10000;
	p.stall_len = in.max_stall + 14000;
	judge_plan(p);
	assert_class(VERDICT_FAIL_STALL, "n2");
	ck_assert_uint_ge(v.max_gap, p.stall_len);
	ck_assert_uint_le(v.max_gap, p.stall_len + STEP);
	/* Where it began (the page shades it there): within a sample of the stall's start. */
	ck_assert_uint_ge(v.t_gap + STEP, v.t_resume + p.stall_from);
	ck_assert_uint_le(v.t_gap, v.t_resume + p.stall_from);
	ck_assert_ptr_nonnull(strstr(v.reason, "stalled"));
}
END_TEST

/* A gap at max_stall exactly is allowed; it must be longer to fail. */
START_TEST(stall_within_limit)
{
	struct plan p = healthy();

	p.stall_from = 10000;
	p.stall_len = in.max_stall - STEP;
	judge_plan(p);
	assert_class(VERDICT_PASS, "n2");
	ck_assert_uint_eq(v.max_gap, in.max_stall);
}
END_TEST

/* Writes that stop for good before the window closes are a stall too (the trailing gap). */
START_TEST(stall_until_end)
{
	struct plan p = healthy();

	p.stall_from = 5000;
	p.stall_len = 10 * in.observe;
	judge_plan(p);
	assert_class(VERDICT_FAIL_STALL, "n2");
}
END_TEST

START_TEST(livelock_slow_progress)
{
	struct plan p = healthy();

	p.rate = in.min_rate / 4;
	judge_plan(p);
	assert_class(VERDICT_FAIL_LIVELOCK, "n2");
	ck_assert_uint_le(v.max_gap, STEP);
	ck_assert_double_lt(v.window_rate, (double)in.min_rate);
}
END_TEST

/* ---- FAIL-DATA-LOSS, FAIL-KERNEL ---- */

START_TEST(data_loss_missing)
{
	judge_plan(healthy());
	add_verify("n1", 400, 0, 0);
	add_verify("n2", 1000, 3, 0);
	verdict_judge(&in, &v);
	assert_class(VERDICT_FAIL_DATA_LOSS, "n2");
	ck_assert_ptr_nonnull(strstr(v.reason, "3 acknowledged records missing"));
}
END_TEST

START_TEST(data_loss_corrupt)
{
	judge_plan(healthy());
	add_verify("n3", 1000, 0, 1);
	verdict_judge(&in, &v);
	assert_class(VERDICT_FAIL_DATA_LOSS, "n3");
}
END_TEST

/* A verifier that could not run is not evidence of loss. */
START_TEST(verify_not_run)
{
	judge_plan(healthy());
	add_verify("n2", 0, 5, 0);
	in.verify[0].ran = false;
	verdict_judge(&in, &v);
	assert_class(VERDICT_PASS, "n2");
}
END_TEST

START_TEST(kernel_on_survivor)
{
	judge_plan(healthy());
	add_kernel("n3", "oops", "BUG: unable to handle page fault in nfs_commit_inode");
	verdict_judge(&in, &v);
	assert_class(VERDICT_FAIL_KERNEL, "n3");
	ck_assert_ptr_nonnull(strstr(v.reason, "nfs_commit_inode"));
}
END_TEST

/* The victim was killed on purpose: whatever it printed dying is not a verdict. */
START_TEST(kernel_on_victim_ignored)
{
	judge_plan(healthy());
	add_kernel("n1", "panic", "Kernel panic - not syncing: sysrq triggered crash");
	verdict_judge(&in, &v);
	assert_class(VERDICT_PASS, "n2");
}
END_TEST

/* ---- ERROR ---- */

START_TEST(error_infra)
{
	judge_plan(healthy());
	snprintf(in.infra_error, sizeof(in.infra_error), "libvirtd died");
	verdict_judge(&in, &v);
	assert_class(VERDICT_ERROR, NULL);
	ck_assert_str_eq(v.reason, "libvirtd died");
	ck_assert_int_eq(verdict_exit_code(v.cls), 125);
}
END_TEST

START_TEST(error_window_incomplete)
{
	struct plan p = healthy();

	p.end_after = (int64_t)in.observe / 2;
	judge_plan(p);
	assert_class(VERDICT_ERROR, "n2");
	ck_assert_ptr_nonnull(strstr(v.reason, "observe window"));
}
END_TEST

/* ---- precedence: ERROR > KERNEL > DATA-LOSS > TAKEOVER-TIMEOUT > STALL > LIVELOCK ---- */

START_TEST(precedence_error_over_kernel)
{
	judge_plan(healthy());
	add_kernel("n2", "oops", "BUG: something");
	snprintf(in.infra_error, sizeof(in.infra_error), "console lost");
	verdict_judge(&in, &v);
	assert_class(VERDICT_ERROR, NULL);
}
END_TEST

START_TEST(precedence_kernel_over_data_loss)
{
	struct plan p = healthy();

	p.group_at = -1;
	p.resume_at = -1;
	judge_plan(p);
	add_verify("n2", 1000, 7, 0);
	add_kernel("n2", "hung-task", "INFO: task hung in nfs_wait_bit_killable");
	verdict_judge(&in, &v);
	assert_class(VERDICT_FAIL_KERNEL, "n2");
}
END_TEST

START_TEST(precedence_data_loss_over_timeout)
{
	struct plan p = healthy();

	p.group_at = -1;
	p.resume_at = -1;
	judge_plan(p);
	add_verify("n3", 1000, 7, 0);
	verdict_judge(&in, &v);
	assert_class(VERDICT_FAIL_DATA_LOSS, "n3");
}
END_TEST

START_TEST(precedence_timeout_over_stall)
{
	struct plan p = healthy();

	p.resume_at = (int64_t)in.takeover_timeout + STEP;
	p.stall_from = 5000;
	p.stall_len = in.max_stall * 2;
	judge_plan(p);
	assert_class(VERDICT_FAIL_TAKEOVER_TIMEOUT, "n2");
}
END_TEST

START_TEST(precedence_stall_over_livelock)
{
	struct plan p = healthy();

	p.rate = in.min_rate / 4;
	p.stall_from = 5000;
	p.stall_len = in.max_stall * 2;
	judge_plan(p);
	assert_class(VERDICT_FAIL_STALL, "n2");
}
END_TEST

START_TEST(names_and_codes)
{
	static const struct {
		enum verdict_class c;
		const char *name;
		int code;
	} t[] = {
		{ VERDICT_PASS, "PASS", 0 },
		{ VERDICT_FAIL_TAKEOVER_TIMEOUT, "FAIL-TAKEOVER-TIMEOUT", 1 },
		{ VERDICT_FAIL_STALL, "FAIL-STALL", 1 },
		{ VERDICT_FAIL_LIVELOCK, "FAIL-LIVELOCK", 1 },
		{ VERDICT_FAIL_DATA_LOSS, "FAIL-DATA-LOSS", 1 },
		{ VERDICT_FAIL_KERNEL, "FAIL-KERNEL", 1 },
		{ VERDICT_FAIL_SPLIT_BRAIN, "FAIL-SPLIT-BRAIN", 1 },
		{ VERDICT_ERROR, "ERROR", 125 },
		{ VERDICT_ERROR_PRESSURE_LOST, "ERROR-PRESSURE-LOST", 125 },
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		ck_assert_str_eq(verdict_name(t[i].c), t[i].name);
		ck_assert_int_eq(verdict_exit_code(t[i].c), t[i].code);
	}
}
END_TEST

/* ---- the memory pressure the scenario asks for ---- */

#define TARGET_KB (48u << 10) /* the default [pressure] available, 48M */
#define TOTAL_KB 738560u      /* MemTotal of a 768M guest, as sampled */

/*
 * n2 is pressured from 10 s before the fault (its ramp ends at the fault):
 * MemAvailable at the target, except from lost_at (ms after the fault) on,
 * when the OOM killer took the hog and MemAvailable went to 470M, until
 * back_at (-1: never), when a restarted hog had ramped up again.
 */
static void add_pressure(int64_t lost_at, int64_t back_at, uint64_t end)
{
	struct vmemseries *m = verdict_mem_series(&in, "n2");

	m->pressured = true;
	m->t_start = T_FAULT - in.ramp;
	for (uint64_t t = m->t_start; t <= end; t += STEP) {
		int64_t dt = (int64_t)t - (int64_t)T_FAULT;
		bool lost = lost_at >= 0 && dt >= lost_at && (back_at < 0 || dt < back_at);
		verdict_add_mem(&in, "n2", t, lost ? 470u << 10 : TARGET_KB - 1024, TOTAL_KB);
	}
	if (lost_at >= 0) {
		m->oom_kills = 1;
		m->t_first_oom = T_FAULT + (uint64_t)lost_at;
		snprintf(m->oom_victim, sizeof(m->oom_victim), "takeover-hog");
		m->restarts = back_at >= 0;
	}
}

static void judge_pressured(struct plan p, int64_t lost_at, int64_t back_at)
{
	build(&p);
	add_pressure(lost_at, back_at, in.t_end);
	verdict_judge(&in, &v);
}

START_TEST(pressure_held_passes)
{
	judge_pressured(healthy(), -1, -1);
	assert_class(VERDICT_PASS, "n2");
	ck_assert(v.pr.judged);
	ck_assert(v.pr.ok);
	ck_assert_int_eq(v.pr.n, 1);
	ck_assert_double_eq_tol(v.pr.nodes[0].held, 1.0, 1e-9);
	ck_assert_uint_eq(v.pr.from, T_FAULT);
	ck_assert_uint_eq(v.pr.to, v.t_resume + in.observe);
	ck_assert_uint_eq(v.pr.nodes[0].reach_kb, TARGET_KB + (16u << 10));
	ck_assert_ptr_nonnull(strstr(v.reason, "memory pressure on n2 held 100% of the judged window"));
}
END_TEST

/* The hog OOM-killed 20 s after the fault and never back: not a test of the kernel under pressure. */
START_TEST(pressure_lost_is_not_pass)
{
	judge_pressured(healthy(), 20000, -1);
	assert_class(VERDICT_ERROR_PRESSURE_LOST, "n2");
	ck_assert_int_eq(verdict_exit_code(v.cls), 125);
	ck_assert(!v.pr.ok);
	/* held from the fault to +20 s of a window that ends at resume (+66 s) + observe */
	ck_assert_double_eq_tol(v.pr.nodes[0].held, 20000.0 / (66000.0 + (double)in.observe), 1e-3);
	ck_assert_uint_eq(v.pr.nodes[0].first_lost, T_FAULT + 20000);
	ck_assert_ptr_nonnull(strstr(v.reason, "held for only 16%"));
	ck_assert_ptr_nonnull(strstr(v.reason, "min_held 90%"));
	ck_assert_ptr_nonnull(strstr(v.reason, "1 OOM kill (first takeover-hog at +20.0s)"));
	ck_assert_ptr_nonnull(strstr(v.reason, "from +20.0s"));
	/* what it would have been says what the kernel did meanwhile */
	ck_assert_ptr_nonnull(strstr(v.reason, "otherwise: n2 took over"));
}
END_TEST

/* Killed at +20 s, back at +27 s: 7 s out of 126 s is within the default 90 %. */
START_TEST(pressure_back_in_time_passes)
{
	judge_pressured(healthy(), 20000, 27000);
	assert_class(VERDICT_PASS, "n2");
	ck_assert_double_eq_tol(v.pr.nodes[0].held, 1.0 - 7000.0 / (66000.0 + (double)in.observe), 1e-3);
	ck_assert_uint_eq(v.pr.nodes[0].longest_lost, 7000);
	ck_assert_int_eq(v.pr.nodes[0].restarts, 1);
}
END_TEST

START_TEST(pressure_min_held_zero_not_checked)
{
	in.min_held = 0;
	judge_pressured(healthy(), 20000, -1);
	assert_class(VERDICT_PASS, "n2");
	ck_assert(v.pr.ok);
	ck_assert(v.pr.judged); /* still measured and reported */
}
END_TEST

/* A hang under pressure that did not hold is still a hang, and says how long it held. */
START_TEST(pressure_lost_fail_keeps_class)
{
	struct plan p = healthy();

	p.stall_from = 5000;
	p.stall_len = in.max_stall * 2;
	judge_pressured(p, 20000, -1);
	assert_class(VERDICT_FAIL_STALL, "n2");
	ck_assert(!v.pr.ok);
	ck_assert_ptr_nonnull(strstr(v.reason, "; memory pressure on n2 held 16% of the judged window"));
}
END_TEST

/* No resume: the window ends at takeover_timeout. */
START_TEST(pressure_window_of_timeout)
{
	struct plan p = healthy();

	p.resume_at = -1;
	judge_pressured(p, -1, -1);
	assert_class(VERDICT_FAIL_TAKEOVER_TIMEOUT, "n2");
	ck_assert_uint_eq(v.pr.to, T_FAULT + in.takeover_timeout);
	ck_assert_ptr_nonnull(strstr(v.reason, "held 100%"));
}
END_TEST

/* Samples stop (the node rebooted): the silence beyond SAMPLE_STALE_MS counts as lost. */
START_TEST(pressure_unsampled_is_lost)
{
	struct plan p = healthy();
	struct vmemseries *m;

	build(&p);
	add_pressure(-1, -1, T_FAULT + 30000);
	m = verdict_mem_series(&in, "n2");
	ck_assert_uint_eq(m->s[m->n - 1].t, T_FAULT + 30000);
	verdict_judge(&in, &v);
	assert_class(VERDICT_ERROR_PRESSURE_LOST, "n2");
	ck_assert_uint_eq(v.pr.nodes[0].unsampled_ms, v.pr.to - (T_FAULT + 30000 + 3000));
	ck_assert_ptr_nonnull(strstr(v.reason, "without a sample"));
}
END_TEST

/* A percentage target is resolved against each sample's MemTotal. */
START_TEST(pressure_percent_target)
{
	in.available = (struct memtarget){ .is_percent = true, .percent = 5 };
	judge_pressured(healthy(), -1, -1);
	assert_class(VERDICT_PASS, "n2");
	ck_assert_uint_eq(v.pr.nodes[0].reach_kb, TOTAL_KB * 5 / 100 + (16u << 10));
}
END_TEST

/* Pressure that starts late (start = after): judged from the end of its ramp. */
START_TEST(pressure_window_from_ramp_end)
{
	struct plan p = healthy();
	struct vmemseries *m;

	build(&p);
	add_pressure(-1, -1, in.t_end);
	m = verdict_mem_series(&in, "n2");
	m->t_start = T_FAULT + 70000;
	verdict_judge(&in, &v);
	ck_assert_uint_eq(v.pr.from, T_FAULT + 70000 + in.ramp);
}
END_TEST

/* The victim's hog dies with it: only surviving pressured nodes are judged. */
START_TEST(pressure_victim_not_judged)
{
	struct plan p = healthy();
	struct vmemseries *m;

	build(&p);
	m = verdict_mem_series(&in, "n1");
	m->pressured = true;
	m->t_start = 1000;
	verdict_add_mem(&in, "n1", 2000, TARGET_KB, TOTAL_KB);
	verdict_judge(&in, &v);
	assert_class(VERDICT_PASS, "n2");
	ck_assert(!v.pr.judged);
	ck_assert_ptr_null(strstr(v.reason, "pressure"));
}
END_TEST

/* ---- failback: the group leaves n2 (which survives and is judged) for n3 ---- */

/* n2 serves and writes before the failback; the group stops there and starts on n3 at
 * p->group_at; n2 writes as n3's client from p->resume_at. fenced_at >= 0: n2 is fenced then. */
static void judge_failback(struct plan p, int64_t fenced_at)
{
	uint64_t end = plan_end(&p), a1 = 0, a2 = 0, a3 = 0;

	in.fault_fired = true;
	in.t_fault = T_FAULT;
	in.victim_survives = true;
	snprintf(in.victim, sizeof(in.victim), "n2");
	snprintf(in.takeover, sizeof(in.takeover), "n3");
	snprintf(in.judged, sizeof(in.judged), "n2");
	in.t_end = end;
	for (uint64_t t = STEP; t <= end; t += STEP) {
		bool back = p.group_at >= 0 && t >= T_FAULT + (uint64_t)p.group_at + 2000;
		verdict_add_sample(&in, "n1", t, a1 += t < T_FAULT || back ? RATE : 0);
		if (n2_progresses(&p, t))
			a2 += t < T_FAULT ? RATE : p.rate;
		verdict_add_sample(&in, "n2", t, a2);
		verdict_add_sample(&in, "n3", t, a3 += t < T_FAULT || back ? RATE : 0);
	}
	for (uint64_t t = 0; t <= end; t += POLL) {
		struct vcrm *c = verdict_add_crm(&in);
		int64_t dt = (int64_t)t - (int64_t)T_FAULT;
		bool moved = p.group_at >= 0 && dt >= p.group_at;
		c->t = t;
		c->fenced = fenced_at >= 0 && dt >= fenced_at;
		c->victim_online = !c->fenced;
		snprintf(c->group_node, sizeof(c->group_node), "%s", dt < 2000 ? "n2" : moved ? "n3" : "");
		c->group_started = dt < 2000 || moved;
		c->fs = c->nfsd = c->export_ = c->ip = moved;
	}
	verdict_judge(&in, &v);
}

static struct plan failback_healthy(void)
{
	return (struct plan){ .group_at = 20000, .resume_at = 24000, .rate = RATE, .end_after = -1 };
}

START_TEST(failback_pass)
{
	judge_failback(failback_healthy(), -1);
	assert_class(VERDICT_PASS, "n2");
	ck_assert_ptr_nonnull(strstr(v.reason, "n2 handed the NFS group to n3 and kept writing as its client"));
	ck_assert_uint_eq(v.t_resume, T_FAULT + 24000);
	ck_assert_int_eq(v.ph.group_started, 20000);
	ck_assert_int_eq(v.ph.first_loopback_write, 24000); /* the judged node's slot */
	ck_assert_int_eq(v.ph.fenced, -1);
}
END_TEST

/* Not killed on purpose: what the kernel reports on the node the group left counts. */
START_TEST(failback_kernel_on_victim_counts)
{
	add_kernel("n2", "hung-task", "INFO: task nfsd:612 blocked for more than 30 seconds");
	judge_failback(failback_healthy(), -1);
	assert_class(VERDICT_FAIL_KERNEL, "n2");
}
END_TEST

/* The stop hung, the cluster fenced n2; the group then starts on n3 but n2's writer died with it. */
START_TEST(failback_victim_fenced)
{
	struct plan p = failback_healthy();

	p.resume_at = -1;
	judge_failback(p, 40000);
	assert_class(VERDICT_FAIL_TAKEOVER_TIMEOUT, "n2");
	ck_assert_ptr_nonnull(strstr(v.reason, "client writes on n2 did not resume"));
	ck_assert_ptr_nonnull(strstr(v.reason, "the cluster fenced n2 40s after it"));
}
END_TEST

START_TEST(failback_group_never_moves_fenced)
{
	struct plan p = failback_healthy();

	p.group_at = -1;
	p.resume_at = -1;
	judge_failback(p, 60000);
	assert_class(VERDICT_FAIL_TAKEOVER_TIMEOUT, "n2");
	ck_assert_ptr_nonnull(strstr(v.reason, "fenced n2, the node it was moving away from, 60s after"));
}
END_TEST

START_TEST(failback_stall)
{
	struct plan p = failback_healthy();

	p.stall_from = 10000;
	p.stall_len = in.max_stall + 5000;
	judge_failback(p, -1);
	assert_class(VERDICT_FAIL_STALL, "n2");
	ck_assert_ptr_nonnull(strstr(v.reason, "client writes on n2 stalled"));
}
END_TEST

/* ---- disk-stall: the group stays on n2, whose writes stop for stall_ms from the fault ---- */

static void judge_disk_stall(uint64_t stall_ms)
{
	uint64_t end = T_FAULT + in.takeover_timeout + 5000, a[3] = { 0 };
	const char *names[] = { "n1", "n2", "n3" };

	in.fault_fired = true;
	in.t_fault = T_FAULT;
	in.victim_survives = true;
	in.group_stays = true;
	snprintf(in.victim, sizeof(in.victim), "n2");
	snprintf(in.takeover, sizeof(in.takeover), "n2");
	snprintf(in.judged, sizeof(in.judged), "n2");
	in.t_end = end;
	for (uint64_t t = STEP; t <= end; t += STEP) {
		bool stalled = t > T_FAULT && t < T_FAULT + stall_ms;
		for (int k = 0; k < 3; k++)
			verdict_add_sample(&in, names[k], t, a[k] += stalled ? 0 : RATE);
	}
	for (uint64_t t = 0; t <= end; t += POLL) {
		struct vcrm *c = verdict_add_crm(&in);
		c->t = t;
		c->victim_online = true;
		snprintf(c->group_node, sizeof(c->group_node), "n2");
		c->group_started = c->fs = c->nfsd = c->export_ = c->ip = true;
	}
	verdict_judge(&in, &v);
}

START_TEST(disk_stall_short_passes)
{
	judge_disk_stall(10000);
	assert_class(VERDICT_PASS, "n2");
	ck_assert_ptr_nonnull(strstr(v.reason, "n2 kept the NFS group and kept writing through its loop-back mount"));
	ck_assert_uint_eq(v.t_resume, T_FAULT); /* judged from the fault on */
	ck_assert_uint_ge(v.max_gap, 10000);
	ck_assert_uint_le(v.max_gap, 10000 + STEP);
}
END_TEST

/* The gap counts from the fault: a stall longer than max_stall fails though writes "resume" after it. */
START_TEST(disk_stall_long_is_stall)
{
	judge_disk_stall(in.max_stall + 10000);
	assert_class(VERDICT_FAIL_STALL, "n2");
	ck_assert_ptr_nonnull(strstr(v.reason, "loop-back writes on n2 stalled"));
}
END_TEST

/*
 * ---- nfsd-kill: the group stays on n2 and is restarted there. Pacemaker's
 * polls show it started until down_at (its monitor noticed), down until
 * up_at; every writer stops at the fault and resumes at resume_at (-1:
 * never). Times are ms after the fault; down_at -1: never noticed. ----
 */

static void judge_nfsd_kill(int64_t down_at, int64_t up_at, int64_t resume_at)
{
	uint64_t end = T_FAULT + (resume_at >= 0 ? (uint64_t)resume_at : in.takeover_timeout) + in.observe + 5000;
	uint64_t a[3] = { 0 };
	const char *names[] = { "n1", "n2", "n3" };

	in.fault_fired = true;
	in.t_fault = T_FAULT;
	in.victim_survives = in.group_stays = in.group_restarts = true;
	snprintf(in.victim, sizeof(in.victim), "n2");
	snprintf(in.takeover, sizeof(in.takeover), "n2");
	snprintf(in.judged, sizeof(in.judged), "n2");
	in.t_end = end;
	for (uint64_t t = STEP; t <= end; t += STEP) {
		bool writes = t < T_FAULT || (resume_at >= 0 && t >= T_FAULT + (uint64_t)resume_at);
		for (int k = 0; k < 3; k++)
			verdict_add_sample(&in, names[k], t, a[k] += writes ? RATE : 0);
	}
	for (uint64_t t = 0; t <= end; t += POLL) {
		struct vcrm *c = verdict_add_crm(&in);
		bool down = down_at >= 0 && t >= T_FAULT + (uint64_t)down_at && t < T_FAULT + (uint64_t)up_at;
		c->t = t;
		c->victim_online = true;
		snprintf(c->group_node, sizeof(c->group_node), "n2");
		c->fs = c->export_ = true;
		c->group_started = c->nfsd = c->ip = !down;
	}
	verdict_judge(&in, &v);
}

START_TEST(nfsd_kill_restart_passes)
{
	judge_nfsd_kill(28000, 45000, 50000);
	assert_class(VERDICT_PASS, "n2");
	ck_assert_ptr_nonnull(strstr(v.reason, "n2's NFS group was restarted in place and its loop-back writes resumed"));
	/* judged from the resume, not from the kill */
	ck_assert_uint_ge(v.t_resume, T_FAULT + 50000);
	ck_assert_uint_le(v.t_resume, T_FAULT + 50000 + STEP);
	/* the group's phase is its restart, not the poll just after the kill that still showed it up */
	ck_assert_int_ge(v.ph.group_started, 45000);
	ck_assert_int_le(v.ph.group_started, 45000 + POLL);
	/* the failure seen: the poll that showed the group down; fs never stopped, so it has no phase */
	ck_assert_int_ge(v.ph.seen_offline, 28000);
	ck_assert_int_le(v.ph.seen_offline, 28000 + POLL);
	ck_assert_int_eq(v.ph.fs_mounted, -1);
}
END_TEST

/* Nothing noticed nfsd gone: the writes never came back. */
START_TEST(nfsd_kill_never_noticed)
{
	judge_nfsd_kill(-1, 0, -1);
	assert_class(VERDICT_FAIL_TAKEOVER_TIMEOUT, "n2");
	ck_assert_ptr_nonnull(strstr(v.reason, "not restarted on n2"));
	ck_assert_ptr_nonnull(strstr(v.reason, "Pacemaker never saw it stop"));
}
END_TEST

/* Restarted, but the writes came back after takeover_timeout. */
START_TEST(nfsd_kill_resume_late)
{
	judge_nfsd_kill(28000, 45000, (int64_t)in.takeover_timeout + 10000);
	assert_class(VERDICT_FAIL_TAKEOVER_TIMEOUT, "n2");
	ck_assert_ptr_nonnull(strstr(v.reason, "did not resume"));
}
END_TEST

/* ---- the cluster audits ---- */

static void add_audit(const char *when, const char *problems)
{
	int i = in.naudit++;

	snprintf(in.audit[i].when, sizeof(in.audit[i].when), "%s", when);
	snprintf(in.audit[i].problems, sizeof(in.audit[i].problems), "%s", problems);
}

START_TEST(audit_clean_passes)
{
	add_audit("after-observe", "");
	add_audit("end", "");
	judge_plan(healthy());
	assert_class(VERDICT_PASS, "n2");
}
END_TEST

START_TEST(audit_problem_takes_pass)
{
	add_audit("after-observe", "");
	add_audit("end", "the floating IP on 2 nodes (n2, n3)");
	judge_plan(healthy());
	assert_class(VERDICT_ERROR, NULL);
	ck_assert_str_eq(v.reason, "it would have passed, but the cluster audit (end) found: the floating IP on 2 "
				   "nodes (n2, n3)");
	ck_assert_int_eq(verdict_exit_code(v.cls), 125);
}
END_TEST

/* A hung takeover node explains what the audit finds: the FAIL stays. */
START_TEST(audit_problem_keeps_fail)
{
	struct plan p = healthy();

	add_audit("after-observe", "n2 did not answer");
	p.resume_at = -1;
	judge_plan(p);
	assert_class(VERDICT_FAIL_TAKEOVER_TIMEOUT, "n2");
}
END_TEST

/* What an audit event's ip_holders and fs_mounted lists say. */
static void audit_holders(int nip, const char *ip, int nfs, const char *fs)
{
	struct vaudit *a = &in.audit[in.naudit - 1];

	a->nip = nip;
	a->nfs = nfs;
	snprintf(a->ip_holders, sizeof(a->ip_holders), "%s", ip);
	snprintf(a->fs_holders, sizeof(a->fs_holders), "%s", fs);
}

/* One holder of each, as every healthy run's audits have: no split brain. */
START_TEST(audit_one_holder_passes)
{
	add_audit("after-observe", "");
	audit_holders(1, "n2", 1, "n2");
	judge_plan(healthy());
	assert_class(VERDICT_PASS, "n2");
}
END_TEST

/* Both sides of a partition serve: the cut-off victim and the takeover node. */
START_TEST(split_brain_fails)
{
	add_audit("after-observe", "the floating IP on 2 nodes (n1, n2); the shared file system on 2 nodes (n1, n2)");
	audit_holders(2, "n1, n2", 2, "n1, n2");
	add_audit("end", "");
	audit_holders(1, "n2", 1, "n2");
	judge_plan(healthy());
	assert_class(VERDICT_FAIL_SPLIT_BRAIN, "n1");
	ck_assert_str_eq(v.reason, "split brain at the after-observe audit: the floating IP on 2 nodes (n1, n2), "
				   "the shared file system mounted on 2 (n1, n2)");
	ck_assert_int_eq(verdict_exit_code(v.cls), 1);
}
END_TEST

/* The shared file system mounted twice is split brain even with the IP on one node. */
START_TEST(split_brain_fs_alone)
{
	add_audit("end", "the shared file system on 2 nodes (n1, n2)");
	audit_holders(1, "n2", 2, "n1, n2");
	judge_plan(healthy());
	assert_class(VERDICT_FAIL_SPLIT_BRAIN, "n1");
}
END_TEST

/* Two kernels writing one ext4: what they report, and the records lost, follow from the split. */
START_TEST(split_brain_over_kernel_and_loss)
{
	add_audit("after-observe", "");
	audit_holders(2, "n1, n2", 2, "n1, n2");
	judge_plan(healthy());
	add_kernel("n2", "oops", "EXT4-fs error (device vdc): ext4_find_entry: checksum invalid");
	add_verify("n2", 1000, 3, 0);
	verdict_judge(&in, &v);
	assert_class(VERDICT_FAIL_SPLIT_BRAIN, "n1");
}
END_TEST

static Suite *verdict_suite(void)
{
	Suite *s = suite_create("verdict");
	TCase *pass = tcase_create("pass");
	TCase *fail = tcase_create("fail");
	TCase *prec = tcase_create("precedence");

	tcase_add_checked_fixture(pass, setup, teardown);
	tcase_add_checked_fixture(fail, setup, teardown);
	tcase_add_checked_fixture(prec, setup, teardown);
	tcase_add_test(pass, pass_healthy);
	tcase_add_test(pass, phases_computed);
	tcase_add_test(pass, phases_unseen);
	tcase_add_test(pass, phases_without_fault);
	tcase_add_test(pass, pass_at_deadline);
	tcase_add_test(pass, inflight_ack_is_not_resume);
	tcase_add_test(pass, verify_not_run);
	tcase_add_test(pass, kernel_on_victim_ignored);
	tcase_add_test(pass, names_and_codes);
	tcase_add_test(fail, timeout_group_never);
	tcase_add_test(fail, timeout_takeover_node_fenced);
	tcase_add_test(fail, timeout_takeover_fenced_before_fault);
	tcase_add_test(fail, timeout_group_late);
	tcase_add_test(fail, timeout_loopback_never);
	tcase_add_test(fail, timeout_loopback_late);
	tcase_add_test(fail, timeout_no_series);
	tcase_add_test(fail, stall_after_resume);
	tcase_add_test(fail, stall_within_limit);
	tcase_add_test(fail, stall_until_end);
	tcase_add_test(fail, livelock_slow_progress);
	tcase_add_test(fail, data_loss_missing);
	tcase_add_test(fail, data_loss_corrupt);
	tcase_add_test(fail, kernel_on_survivor);
	tcase_add_test(fail, error_infra);
	tcase_add_test(fail, error_window_incomplete);
	tcase_add_test(pass, failback_pass);
	tcase_add_test(pass, audit_clean_passes);
	tcase_add_test(fail, audit_problem_takes_pass);
	tcase_add_test(fail, audit_problem_keeps_fail);
	tcase_add_test(pass, audit_one_holder_passes);
	tcase_add_test(fail, split_brain_fails);
	tcase_add_test(fail, split_brain_fs_alone);
	tcase_add_test(prec, split_brain_over_kernel_and_loss);
	tcase_add_test(pass, disk_stall_short_passes);
	tcase_add_test(pass, nfsd_kill_restart_passes);
	tcase_add_test(fail, nfsd_kill_never_noticed);
	tcase_add_test(fail, nfsd_kill_resume_late);
	tcase_add_test(fail, disk_stall_long_is_stall);
	tcase_add_test(fail, failback_kernel_on_victim_counts);
	tcase_add_test(fail, failback_victim_fenced);
	tcase_add_test(fail, failback_group_never_moves_fenced);
	tcase_add_test(fail, failback_stall);
	tcase_add_test(prec, precedence_error_over_kernel);
	tcase_add_test(prec, precedence_kernel_over_data_loss);
	tcase_add_test(prec, precedence_data_loss_over_timeout);
	tcase_add_test(prec, precedence_timeout_over_stall);
	tcase_add_test(prec, precedence_stall_over_livelock);
	TCase *press = tcase_create("pressure");
	tcase_add_checked_fixture(press, setup, teardown);
	tcase_add_test(press, pressure_held_passes);
	tcase_add_test(press, pressure_lost_is_not_pass);
	tcase_add_test(press, pressure_back_in_time_passes);
	tcase_add_test(press, pressure_min_held_zero_not_checked);
	tcase_add_test(press, pressure_lost_fail_keeps_class);
	tcase_add_test(press, pressure_window_of_timeout);
	tcase_add_test(press, pressure_unsampled_is_lost);
	tcase_add_test(press, pressure_percent_target);
	tcase_add_test(press, pressure_window_from_ramp_end);
	tcase_add_test(press, pressure_victim_not_judged);
	suite_add_tcase(s, press);
	suite_add_tcase(s, pass);
	suite_add_tcase(s, fail);
	suite_add_tcase(s, prec);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(verdict_suite());
	int failed;

	srunner_set_fork_status(sr, CK_FORK);
	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
