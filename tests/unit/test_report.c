// SPDX-License-Identifier: GPL-2.0-only
/*
 * The report writers on synthetic runs (a PASS and a FAIL-STALL, the latter
 * also with the evidence captured from a real sysrq-w/-m of a dd blocked on
 * NFS): every file is parsed back with the library a consumer would use
 * (jansson, libxml2, gnuplot) and checked field by field, so a writer cannot
 * drift from docs/report-schema.md or produce a file CI tools reject.
 */
#include <check.h>
#include <jansson.h>
#include <libxml/parser.h>
#include <libxml/xpath.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "forensics/forensics.h"
#include "report/common.h"
#include "report/report.h"
#include "scenario/scenario.h"
#include "util/fs.h"
#include "util/spawn.h"
#include "util/strbuf.h"
#include "util/xalloc.h"
#include "verdict/verdict.h"

#define T_FAULT 30000u
#define RATE (1u << 20)
/* 2025-12-03T10:03:13Z */
#define WALL_START 1764756193000ull

enum shape { SHAPE_PASS, SHAPE_STALL };

static struct scenario sc;
static struct verdict_input in;
static struct verdict v;
static struct run_report rep;
static struct forensics fx;
static char dir[64];

/*
 * Three writers; n1 dies at the fault, n2 takes over 62 s later and resumes
 * at +66 s; in the stall shape n2 then stops for max_stall + 15 s.
 */
static void add_samples(enum shape shape, uint64_t end)
{
	uint64_t resume = T_FAULT + 66000, a[3] = { 0 };
	uint64_t stall_from = resume + 10000, stall_to = stall_from + in.max_stall + 15000;

	for (uint64_t t = 1000; t <= end; t += 1000) {
		bool up = t < T_FAULT || t >= resume;
		bool n2 = up && !(shape == SHAPE_STALL && t >= stall_from && t < stall_to);
		if (t < T_FAULT)
			verdict_add_sample(&in, "n1", t, a[0] += RATE);
		verdict_add_sample(&in, "n2", t, a[1] += n2 ? RATE : 0);
		verdict_add_sample(&in, "n3", t, a[2] += up ? RATE : 0);
	}
}

static void add_crm(uint64_t end)
{
	for (uint64_t t = T_FAULT; t <= end; t += 2000) {
		struct vcrm *c = verdict_add_crm(&in);
		uint64_t dt = t - T_FAULT;
		c->t = t;
		c->victim_online = dt < 24000;
		c->fenced = dt >= 28000;
		snprintf(c->group_node, sizeof(c->group_node), "%s", dt >= 42000 ? "n2" : "");
		c->fs = dt >= 42000;
		c->nfsd = dt >= 56000;
		c->export_ = dt >= 58000;
		c->ip = c->group_started = dt >= 62000;
	}
}

static void add_node(const char *name, const char *role)
{
	struct report_node *n = &rep.nodes[rep.nnodes++];

	snprintf(n->name, sizeof(n->name), "%s", name);
	snprintf(n->role, sizeof(n->role), "%s", role);
	n->writer = true;
	n->pressure = !strcmp(role, "takeover");
	snprintf(n->kernel, sizeof(n->kernel), "6.1.0-28-cloud-amd64");
	snprintf(n->console, sizeof(n->console), "console-%s.log", name);
	/* The victim's journal died with it: none collected. */
	if (strcmp(role, "victim"))
		snprintf(n->corosync_log, sizeof(n->corosync_log), "corosync-%s.log", name);
}

static void add_step(const char *name, bool ran, bool ok, const char *msg)
{
	struct report_step *st = &rep.steps[rep.nsteps++];

	snprintf(st->name, sizeof(st->name), "%s", name);
	st->ran = ran;
	st->ok = ok;
	st->seconds = ran ? 12.5 : 0;
	snprintf(st->message, sizeof(st->message), "%s", msg);
}

static void add_steps(enum shape shape)
{
	add_step("cluster-up", true, true, "3 nodes up, NFS mounted");
	add_step("fault", true, true, "n1 destroyed");
	add_step("takeover", true, true, "group on n2 after 62.0s");
	if (shape == SHAPE_PASS) {
		add_step("no-stall", true, true, v.reason);
		add_step("min-rate", true, true, "1024 KiB/s");
		add_step("verify", true, true, "all acknowledged records present");
		return;
	}
	add_step("no-stall", true, false, v.reason);
	add_step("min-rate", false, false, "");
	/* A second failure that did not decide the verdict, with bytes a guest might print. */
	add_step("collect-cores", true, false, "core dump of n2 failed: \x1b[31m\xc3( <&>\"");
}

static void build(enum shape shape)
{
	struct strbuf errs = STRBUF_INIT;

	ck_assert_int_eq(scenario_parse("empty", NULL, 0, NULL, &sc, &errs), 0);
	strbuf_release(&errs);
	verdict_input_init(&in, &sc);
	in.fault_fired = true;
	in.t_fault = T_FAULT;
	snprintf(in.victim, sizeof(in.victim), "n1");
	snprintf(in.takeover, sizeof(in.takeover), "n2");
	in.t_end = T_FAULT + 66000 + in.observe + 5000;
	add_samples(shape, in.t_end);
	add_crm(in.t_end);
	/* Ignored by the verdict (the victim), but reported; its title is not UTF-8. */
	in.nkernel = 1;
	in.kernel[0].t = T_FAULT + 100;
	snprintf(in.kernel[0].node, sizeof(in.kernel[0].node), "n1");
	snprintf(in.kernel[0].cls, sizeof(in.kernel[0].cls), "panic");
	snprintf(in.kernel[0].title, sizeof(in.kernel[0].title), "Kernel panic \xff\x01 sysrq");
	in.nverify = 1;
	snprintf(in.verify[0].node, sizeof(in.verify[0].node), "n2");
	in.verify[0].ran = true;
	in.verify[0].acked = 4096;
	verdict_judge(&in, &v);
	ck_assert_int_eq(v.cls, shape == SHAPE_PASS ? VERDICT_PASS : VERDICT_FAIL_STALL);

	memset(&rep, 0, sizeof(rep));
	snprintf(rep.run_id, sizeof(rep.run_id), "20251203-100313-ab12");
	snprintf(rep.cluster, sizeof(rep.cluster), "tk-ab12");
	snprintf(rep.scenario_path, sizeof(rep.scenario_path), "/srv/scenarios/loopback-failover.ini");
	rep.sc = &sc;
	snprintf(rep.kernel_release, sizeof(rep.kernel_release), "6.1.0-28-cloud-amd64");
	rep.wall_start_ms = WALL_START;
	rep.duration_ms = in.t_end + 20000;
	rep.harness_cpu_s = 3.25;
	rep.v = &v;
	rep.in = &in;
	add_node("n1", "victim");
	add_node("n2", "takeover");
	add_node("n3", "client");
	add_steps(shape);
}

/*
 * n2 under the default pressure (48M): at the target until the OOM killer
 * takes the hog 20 s after the fault, then 470M available to the end.
 */
static void lose_pressure(void)
{
	struct vmemseries *m = verdict_mem_series(&in, "n2");

	m->pressured = true;
	m->t_start = T_FAULT - in.ramp;
	m->oom_kills = 1;
	m->t_first_oom = T_FAULT + 20000;
	snprintf(m->oom_victim, sizeof(m->oom_victim), "takeover-hog");
	for (uint64_t t = m->t_start; t <= in.t_end; t += 1000)
		verdict_add_mem(&in, "n2", t, t < T_FAULT + 20000 ? 47u << 10 : 470u << 10, 738560);
	verdict_judge(&in, &v);
	ck_assert_int_eq(v.cls, VERDICT_ERROR_PRESSURE_LOST);
}

static char *fixture(const char *name)
{
	_cleanup_free_ char *p = xasprintf("%s/sysrq/%s", FIXTURES_DIR, name);
	struct strbuf sb = STRBUF_INIT;

	ck_assert_msg(strbuf_read_file(&sb, p, 16 << 20) == 0, "cannot read %s", p);
	return strbuf_detach(&sb, NULL);
}

/*
 * What evidence.c leaves after a stall on n2: the real sysrq-w of a dd
 * blocked in an NFS ACCESS call, grouped; the raw sysrq-m console text.
 * sysrq-t instead of sysrq-w gives many groups (only_blocked false).
 */
static void add_evidence(const char *sysrq, bool only_blocked)
{
	_cleanup_free_ char *w = fixture(sysrq);

	memset(&fx, 0, sizeof(fx));
	fx.captured = true;
	snprintf(fx.node, sizeof(fx.node), "n2");
	snprintf(fx.reason, sizeof(fx.reason), "no loop-back progress for 21s");
	fx.t_capture = 130500;
	fx.capture_seconds = 14.25;
	fx.cls = HANG_DEADLOCK;
	fx.guest_cpu_busy = 0.03;
	fx.window_seconds = 21.0;
	fx.bytes_in_window = 0;
	ck_assert_int_eq(sysrq_parse(w, &fx.blocked), 0);
	sysrq_group(&fx.blocked, only_blocked);
	fx.meminfo = fixture("sysrq-m.log");
	snprintf(fx.sysrq_w_file, sizeof(fx.sysrq_w_file), "sysrq-w-n2.txt");
	snprintf(fx.sysrq_t_file, sizeof(fx.sysrq_t_file), "sysrq-t-n2.txt");
	snprintf(fx.sysrq_m_file, sizeof(fx.sysrq_m_file), "sysrq-m-n2.txt");
	rep.fx = &fx;
}

static void setup(void)
{
	snprintf(dir, sizeof(dir), "/tmp/takeover-report-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
}

/* TAKEOVER_TEST_KEEP=1 keeps the files for a look (the directory is printed). */
static void teardown(void)
{
	if (getenv("TAKEOVER_TEST_KEEP"))
		fprintf(stderr, "kept %s\n", dir);
	else
		rm_rf(dir);
	verdict_input_release(&in);
	scenario_release(&sc);
	forensics_release(&fx);
}

static char *path_in(const char *name)
{
	return xasprintf("%s/%s", dir, name);
}

/* ---- report.json ---- */

static json_t *load_json(void)
{
	_cleanup_free_ char *p = path_in("report.json");
	json_error_t err;
	json_t *o;

	ck_assert_int_eq(report_json(&rep, p), 0);
	o = json_load_file(p, 0, &err);
	ck_assert_msg(o, "report.json: %d: %s", err.line, err.text);
	return o;
}

static json_t *at(json_t *o, const char *path)
{
	json_t *x = json_object_get(o, path);

	ck_assert_msg(x, "no key %s", path);
	return x;
}

static double num(json_t *o, const char *key)
{
	json_t *x = at(o, key);

	ck_assert_msg(json_is_number(x), "%s is not a number", key);
	return json_number_value(x);
}

static const char *str(json_t *o, const char *key)
{
	json_t *x = at(o, key);

	ck_assert_msg(json_is_string(x), "%s is not a string", key);
	return json_string_value(x);
}

static void check_json_common(json_t *o)
{
	json_t *tk = at(o, "takeover"), *ph = at(tk, "phases_s"), *files = at(o, "files");

	ck_assert_int_eq(json_integer_value(at(o, "schema")), REPORT_SCHEMA_VERSION);
	ck_assert_str_eq(str(o, "run_id"), "20251203-100313-ab12");
	ck_assert_str_eq(str(o, "cluster"), "tk-ab12");
	ck_assert_str_eq(str(o, "scenario"), "/srv/scenarios/loopback-failover.ini");
	ck_assert_str_eq(str(o, "kernel_release"), "6.1.0-28-cloud-amd64");
	ck_assert_str_eq(str(o, "accel"), "tcg");
	ck_assert_str_eq(str(o, "started"), "2025-12-03T10:03:13Z");
	ck_assert_double_eq_tol(num(o, "harness_cpu_s"), 3.25, 1e-9);
	ck_assert_str_eq(str(tk, "victim"), "n1");
	ck_assert_str_eq(str(tk, "takeover_node"), "n2");
	ck_assert_double_eq_tol(num(tk, "fault_t_s"), 30.0, 1e-9);
	ck_assert_double_eq_tol(num(ph, "seen_offline"), 24.0, 1e-9);
	ck_assert_double_eq_tol(num(ph, "fenced"), 28.0, 1e-9);
	ck_assert_double_eq_tol(num(ph, "group_started"), 62.0, 1e-9);
	ck_assert_double_eq_tol(num(ph, "first_loopback_write"), 66.0, 1e-9);
	ck_assert_int_eq(json_object_size(ph), 9);
	ck_assert_double_eq_tol(num(tk, "resume_s"), 66.0, 1e-9);
	ck_assert_double_eq_tol(num(at(o, "criteria"), "max_stall_s"), (double)in.max_stall / 1000.0, 1e-9);
	ck_assert_int_eq(json_integer_value(at(at(o, "criteria"), "min_rate_Bps")), (json_int_t)in.min_rate);
	ck_assert_str_eq(str(files, "timeline"), "timeline.jsonl");
	ck_assert_str_eq(str(files, "junit"), "junit.xml");
	ck_assert_str_eq(str(files, "plot"), "progress.svg");
	ck_assert_str_eq(str(files, "scenario"), "scenario.ini");
}

static void check_json_arrays(json_t *o)
{
	json_t *nodes = at(o, "nodes"), *kev = at(o, "kernel_events");

	ck_assert_int_eq(json_array_size(nodes), 3);
	ck_assert_str_eq(str(json_array_get(nodes, 1), "role"), "takeover");
	ck_assert(json_is_true(at(json_array_get(nodes, 1), "pressure")));
	ck_assert(json_is_null(at(json_array_get(nodes, 0), "corosync_log")));
	ck_assert_str_eq(str(json_array_get(nodes, 1), "corosync_log"), "corosync-n2.log");
	/* The victim's series ends at the fault: 29 one-second samples of RATE. */
	ck_assert_int_eq(json_integer_value(at(json_array_get(nodes, 0), "acked_bytes")), 29 * RATE);
	ck_assert_int_eq(json_array_size(kev), 1);
	ck_assert_str_eq(str(json_array_get(kev, 0), "class"), "panic");
	/* Invalid bytes became '?', the rest survived. */
	ck_assert_str_eq(str(json_array_get(kev, 0), "title"), "Kernel panic ?? sysrq");
	ck_assert_int_eq(json_array_size(at(o, "verify")), 1);
	ck_assert_int_eq(json_integer_value(at(json_array_get(at(o, "verify"), 0), "acked")), 4096);
	ck_assert_int_eq(json_array_size(at(o, "steps")), rep.nsteps);
}

START_TEST(json_pass)
{
	json_t *o, *vd;

	build(SHAPE_PASS);
	o = load_json();
	check_json_common(o);
	check_json_arrays(o);
	vd = at(o, "verdict");
	ck_assert_str_eq(str(vd, "class"), "PASS");
	ck_assert_int_eq(json_integer_value(at(vd, "exit_code")), 0);
	ck_assert_str_eq(str(vd, "node"), "n2");
	ck_assert_str_eq(str(vd, "reason"), v.reason);
	ck_assert_int_eq(json_integer_value(at(at(o, "takeover"), "window_bytes")),
			 (json_int_t)(in.observe / 1000 * RATE));
	ck_assert_double_le(num(at(o, "takeover"), "max_gap_s"), 1.0);
	ck_assert(json_is_null(at(o, "why")));
	json_decref(o);
}
END_TEST

START_TEST(json_stall)
{
	json_t *o, *vd;

	build(SHAPE_STALL);
	o = load_json();
	check_json_common(o);
	check_json_arrays(o);
	vd = at(o, "verdict");
	ck_assert_str_eq(str(vd, "class"), "FAIL-STALL");
	ck_assert_int_eq(json_integer_value(at(vd, "exit_code")), 1);
	ck_assert_double_ge(num(at(o, "takeover"), "max_gap_s"), (double)in.max_stall / 1000.0 + 15);
	ck_assert(json_is_false(at(json_array_get(at(o, "steps"), 3), "ok")));
	json_decref(o);
}
END_TEST

/* Before the fault nothing after it is known: every such value is null, not absent. */
START_TEST(json_nulls)
{
	json_t *o, *tk;

	build(SHAPE_PASS);
	in.fault_fired = false;
	verdict_judge(&in, &v);
	o = load_json();
	tk = at(o, "takeover");
	ck_assert(json_is_null(at(tk, "fault_t_s")));
	ck_assert(json_is_null(at(tk, "resume_s")));
	ck_assert(json_is_null(at(tk, "window_rate_Bps")));
	ck_assert(json_is_null(at(at(tk, "phases_s"), "fenced")));
	ck_assert_str_eq(str(at(o, "verdict"), "class"), "ERROR");
	ck_assert_int_eq(json_integer_value(at(at(o, "verdict"), "exit_code")), 125);
	json_decref(o);
}
END_TEST

START_TEST(json_pressure_lost)
{
	json_t *o, *pr, *n2;

	build(SHAPE_PASS);
	lose_pressure();
	o = load_json();
	ck_assert_str_eq(str(at(o, "verdict"), "class"), "ERROR-PRESSURE-LOST");
	ck_assert_int_eq(json_integer_value(at(at(o, "verdict"), "exit_code")), 125);
	pr = at(o, "pressure");
	ck_assert(json_is_false(at(pr, "held")));
	ck_assert_int_eq(json_integer_value(at(pr, "min_held_pct")), 90);
	ck_assert_double_eq_tol(num(pr, "held_pct"), 100.0 * 20000 / (66000 + in.observe), 0.01);
	ck_assert_double_eq_tol(num(pr, "window_from_s"), 0.0, 1e-9);
	ck_assert_double_eq_tol(num(pr, "window_to_s"), (66000.0 + (double)in.observe) / 1000.0, 1e-9);
	ck_assert_int_eq(json_array_size(at(pr, "nodes")), 1);
	n2 = json_array_get(at(pr, "nodes"), 0);
	ck_assert_str_eq(str(n2, "node"), "n2");
	ck_assert_int_eq(json_integer_value(at(n2, "oom_kills")), 1);
	ck_assert_str_eq(str(n2, "oom_victim"), "takeover-hog");
	ck_assert_double_eq_tol(num(n2, "first_oom_s"), 20.0, 1e-9);
	ck_assert_double_eq_tol(num(n2, "first_lost_s"), 20.0, 1e-9);
	ck_assert_int_eq(json_integer_value(at(n2, "within_bytes")), 64 << 20);
	ck_assert_int_eq(json_integer_value(at(n2, "max_available_bytes")), 470 << 20);
	ck_assert_int_eq(json_integer_value(at(at(o, "criteria"), "tolerance_bytes")), 16 << 20);
	json_decref(o);
}
END_TEST

/* No pressured node: null, not absent. */
START_TEST(json_pressure_null)
{
	json_t *o;

	build(SHAPE_PASS);
	o = load_json();
	ck_assert(json_is_null(at(o, "pressure")));
	json_decref(o);
}
END_TEST

/* Keys as a consumer reads them: "why" comes right after "verdict". */
static void check_key_order(json_t *o)
{
	const char *prev = NULL;

	for (void *it = json_object_iter(o); it; it = json_object_iter_next(o, it)) {
		const char *k = json_object_iter_key(it);
		if (!strcmp(k, "why")) {
			ck_assert_ptr_nonnull(prev);
			ck_assert_str_eq(prev, "verdict");
			return;
		}
		prev = k;
	}
	ck_abort_msg("no key why");
}

static const char *const why_keys[] = {
	"node", "reason", "hang_class", "t_s", "guest_cpu_busy", "window_s", "bytes_in_window",
	"blocked", "meminfo", "files", "vmcore_note", "capture_s",
};

#define MEM_HEAD "sysrq: Show Memory\nMem-Info:\nactive_anon:200 inactive_anon:16102 isolated_anon:0\n"

START_TEST(json_why)
{
	json_t *o, *why, *g, *stack, *files;
	const char *mem;

	build(SHAPE_STALL);
	add_evidence("sysrq-w-nfs-blocked.log", true);
	o = load_json();
	check_json_common(o);
	check_key_order(o);
	why = at(o, "why");
	ck_assert_int_eq(json_object_size(why), sizeof(why_keys) / sizeof(why_keys[0]));
	for (size_t i = 0; i < sizeof(why_keys) / sizeof(why_keys[0]); i++)
		at(why, why_keys[i]);
	ck_assert_str_eq(str(why, "node"), "n2");
	ck_assert_str_eq(str(why, "reason"), "no loop-back progress for 21s");
	ck_assert_str_eq(str(why, "hang_class"), "DEADLOCK");
	ck_assert_double_eq_tol(num(why, "t_s"), 130.5, 1e-9);
	ck_assert_double_eq_tol(num(why, "guest_cpu_busy"), 0.03, 1e-9);
	ck_assert_double_eq_tol(num(why, "window_s"), 21.0, 1e-9);
	ck_assert_int_eq(json_integer_value(at(why, "bytes_in_window")), 0);
	ck_assert_double_eq_tol(num(why, "capture_s"), 14.25, 1e-9);
	/* The blocked writer, its stack as function names, innermost first. */
	ck_assert_int_eq(json_array_size(at(why, "blocked")), 1);
	g = json_array_get(at(why, "blocked"), 0);
	ck_assert_str_eq(str(g, "state"), "D");
	ck_assert_int_eq(json_integer_value(at(g, "count")), 1);
	ck_assert_str_eq(str(g, "tasks"), "dd:2695");
	stack = at(g, "stack");
	ck_assert_int_eq(json_array_size(stack), 21);
	ck_assert_str_eq(json_string_value(json_array_get(stack, 0)), "__schedule");
	ck_assert_str_eq(json_string_value(json_array_get(stack, 2)), "rpc_wait_bit_killable");
	ck_assert_str_eq(json_string_value(json_array_get(stack, 5)), "__rpc_execute");
	ck_assert_str_eq(json_string_value(json_array_get(stack, 10)), "nfs4_proc_access");
	ck_assert_str_eq(json_string_value(json_array_get(stack, 20)), "entry_SYSCALL_64_after_hwframe");
	/* meminfo as people read it: no CR, no time stamps. */
	mem = str(why, "meminfo");
	ck_assert_msg(!strncmp(mem, MEM_HEAD, strlen(MEM_HEAD)), "%s", mem);
	ck_assert_ptr_nonnull(strstr(mem, "\n11834 pages reserved\n"));
	ck_assert_ptr_null(strchr(mem, '\r'));
	ck_assert_ptr_null(strstr(mem, "[  671."));
	files = at(why, "files");
	ck_assert_int_eq(json_object_size(files), 4);
	ck_assert_str_eq(str(files, "sysrq_w"), "sysrq-w-n2.txt");
	ck_assert_str_eq(str(files, "sysrq_t"), "sysrq-t-n2.txt");
	ck_assert_str_eq(str(files, "sysrq_m"), "sysrq-m-n2.txt");
	ck_assert(json_is_null(at(files, "vmcore")));
	ck_assert(json_is_null(at(why, "vmcore_note")));
	json_decref(o);
}
END_TEST

/* Captured, but no CPU figure, nothing blocked, no sysrq-m; a vmcore taken. */
START_TEST(json_why_sparse)
{
	json_t *o, *why;

	build(SHAPE_STALL);
	add_evidence("sysrq-m.log", true);
	fx.cls = HANG_UNKNOWN;
	fx.guest_cpu_busy = -1;
	free(fx.meminfo);
	fx.meminfo = NULL;
	fx.sysrq_m_file[0] = '\0';
	snprintf(fx.vmcore_file, sizeof(fx.vmcore_file), "vmcore-n2.elf");
	snprintf(fx.vmcore_note, sizeof(fx.vmcore_note), "crash vmlinux vmcore-n2.elf \xff");
	o = load_json();
	why = at(o, "why");
	ck_assert_str_eq(str(why, "hang_class"), "unknown");
	ck_assert(json_is_null(at(why, "guest_cpu_busy")));
	ck_assert(json_is_null(at(why, "window_s")));
	ck_assert_int_eq(json_array_size(at(why, "blocked")), 0);
	ck_assert(json_is_null(at(why, "meminfo")));
	ck_assert(json_is_null(at(at(why, "files"), "sysrq_m")));
	ck_assert_str_eq(str(at(why, "files"), "vmcore"), "vmcore-n2.elf");
	ck_assert_str_eq(str(why, "vmcore_note"), "crash vmlinux vmcore-n2.elf ?");
	json_decref(o);
}
END_TEST

START_TEST(json_unwritable)
{
	build(SHAPE_PASS);
	ck_assert_int_lt(report_json(&rep, "/nonexistent-dir/report.json"), 0);
}
END_TEST

/* ---- junit.xml ---- */

static xmlDocPtr load_junit(void)
{
	_cleanup_free_ char *p = path_in("junit.xml");
	xmlDocPtr doc;

	ck_assert_int_eq(report_junit(&rep, p), 0);
	doc = xmlReadFile(p, NULL, XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
	ck_assert_msg(doc, "junit.xml is not well-formed XML");
	return doc;
}

static double xcount(xmlDocPtr doc, const char *expr)
{
	xmlXPathContextPtr ctx = xmlXPathNewContext(doc);
	xmlXPathObjectPtr res = xmlXPathEvalExpression(BAD_CAST expr, ctx);
	double n;

	ck_assert_msg(res && res->type == XPATH_NUMBER, "%s", expr);
	n = res->floatval;
	xmlXPathFreeObject(res);
	xmlXPathFreeContext(ctx);
	return n;
}

static char *xstr(xmlDocPtr doc, const char *expr)
{
	xmlXPathContextPtr ctx = xmlXPathNewContext(doc);
	xmlXPathObjectPtr res = xmlXPathEvalExpression(BAD_CAST expr, ctx);
	char *s;

	ck_assert_msg(res && res->type == XPATH_STRING, "%s", expr);
	s = xstrdup((const char *)res->stringval);
	xmlXPathFreeObject(res);
	xmlXPathFreeContext(ctx);
	return s;
}

static void check_attr(xmlDocPtr doc, const char *expr, const char *want)
{
	_cleanup_free_ char *got = xstr(doc, expr);

	ck_assert_msg(!strcmp(got, want), "%s: got '%s', want '%s'", expr, got, want);
}

static void check_junit_common(xmlDocPtr doc)
{
	ck_assert_double_eq(xcount(doc, "count(/testsuite)"), 1);
	check_attr(doc, "string(/testsuite/@name)", "takeover");
	ck_assert_double_eq(xcount(doc, "number(/testsuite/@tests)"), rep.nsteps);
	ck_assert_double_eq(xcount(doc, "count(/testsuite/testcase)"), rep.nsteps);
	ck_assert_double_eq(xcount(doc, "count(/testsuite/testcase[@classname='takeover.loopback-failover'])"),
			    rep.nsteps);
	check_attr(doc, "string(/testsuite/testcase[1]/@name)", "cluster-up");
	check_attr(doc, "string(/testsuite/testcase[1]/@time)", "12.500");
	check_attr(doc, "string(/testsuite/properties/property[@name='kernel_release']/@value)",
		   "6.1.0-28-cloud-amd64");
	check_attr(doc, "string(/testsuite/properties/property[@name='cluster']/@value)", "tk-ab12");
	check_attr(doc, "string(/testsuite/properties/property[@name='run_id']/@value)",
		   "20251203-100313-ab12");
	check_attr(doc, "string(/testsuite/@timestamp)", "2025-12-03T10:03:13");
}

START_TEST(junit_pass)
{
	xmlDocPtr doc;

	build(SHAPE_PASS);
	doc = load_junit();
	check_junit_common(doc);
	ck_assert_double_eq(xcount(doc, "number(/testsuite/@failures)"), 0);
	ck_assert_double_eq(xcount(doc, "number(/testsuite/@skipped)"), 0);
	ck_assert_double_eq(xcount(doc, "count(//failure)"), 0);
	ck_assert_double_eq(xcount(doc, "count(//skipped)"), 0);
	check_attr(doc, "string(/testsuite/properties/property[@name='verdict']/@value)", "PASS");
	xmlFreeDoc(doc);
}
END_TEST

START_TEST(junit_stall)
{
	xmlDocPtr doc;

	build(SHAPE_STALL);
	doc = load_junit();
	check_junit_common(doc);
	ck_assert_double_eq(xcount(doc, "number(/testsuite/@failures)"), 2);
	ck_assert_double_eq(xcount(doc, "number(/testsuite/@skipped)"), 1);
	ck_assert_double_eq(xcount(doc, "count(/testsuite/testcase/failure)"), 2);
	ck_assert_double_eq(xcount(doc, "count(/testsuite/testcase[@name='min-rate']/skipped)"), 1);
	/* The deciding step carries the verdict class, the other failure plain FAIL. */
	check_attr(doc, "string(/testsuite/testcase[@name='no-stall']/failure/@type)", "FAIL-STALL");
	check_attr(doc, "string(/testsuite/testcase[@name='no-stall']/failure/@message)", v.reason);
	check_attr(doc, "string(/testsuite/testcase[@name='no-stall']/failure)", v.reason);
	check_attr(doc, "string(/testsuite/testcase[@name='collect-cores']/failure/@type)", "FAIL");
	check_attr(doc, "string(/testsuite/testcase[@name='collect-cores']/failure/@message)",
		   "core dump of n2 failed: ?[31m?( <&>\"");
	check_attr(doc, "string(/testsuite/properties/property[@name='verdict']/@value)", "FAIL-STALL");
	xmlFreeDoc(doc);
}
END_TEST

/* Every step passed, yet the verdict (judged afterwards from the timeline) failed: CI must see red. */
START_TEST(junit_verdict_without_step)
{
	xmlDocPtr doc;

	build(SHAPE_STALL);
	for (int i = 0; i < rep.nsteps; i++)
		rep.steps[i].ran = rep.steps[i].ok = true;
	doc = load_junit();
	ck_assert_double_eq(xcount(doc, "number(/testsuite/@tests)"), rep.nsteps + 1);
	ck_assert_double_eq(xcount(doc, "number(/testsuite/@failures)"), 1);
	ck_assert_double_eq(xcount(doc, "count(/testsuite/testcase)"), rep.nsteps + 1);
	check_attr(doc, "string(/testsuite/testcase[last()]/@name)", "verdict");
	check_attr(doc, "string(/testsuite/testcase[last()]/failure/@type)", "FAIL-STALL");
	check_attr(doc, "string(/testsuite/testcase[last()]/failure/@message)", v.reason);
	xmlFreeDoc(doc);
}
END_TEST

/* The deciding failure carries the blocked stacks, its test case the evidence files. */
START_TEST(junit_why)
{
	_cleanup_free_ char *body = NULL, *out = NULL;
	xmlDocPtr doc;

	build(SHAPE_STALL);
	add_evidence("sysrq-w-nfs-blocked.log", true);
	doc = load_junit();
	check_junit_common(doc);
	ck_assert_double_eq(xcount(doc, "number(/testsuite/@failures)"), 2);
	check_attr(doc, "string(/testsuite/testcase[@name='no-stall']/failure/@message)", v.reason);
	body = xstr(doc, "string(/testsuite/testcase[@name='no-stall']/failure)");
	ck_assert_msg(!strncmp(body, v.reason, strlen(v.reason)), "%s", body);
	ck_assert_ptr_nonnull(strstr(body, "\n\nwhy: DEADLOCK on n2 (guest CPU 3% busy over 21.0s, 0 B written)\n"));
	ck_assert_ptr_nonnull(strstr(body, "  1 x D: dd:2695\n    __schedule\n"));
	ck_assert_ptr_nonnull(strstr(body, "    nfs4_proc_access\n"));
	/* All frames here, not the summary's first few. */
	ck_assert_ptr_nonnull(strstr(body, "    entry_SYSCALL_64_after_hwframe\n"));
	/* The other failure is not about the hang. */
	check_attr(doc, "string(/testsuite/testcase[@name='collect-cores']/failure)",
		   "core dump of n2 failed: ?[31m?( <&>\"");
	ck_assert_double_eq(xcount(doc, "count(//system-out)"), 1);
	ck_assert_double_eq(xcount(doc, "count(/testsuite/testcase[@name='no-stall']/system-out)"), 1);
	/* Ant's order inside a test case: failure, then system-out. */
	ck_assert_double_eq(xcount(doc, "count(/testsuite/testcase[@name='no-stall']/failure/following-sibling::system-out)"), 1);
	out = xstr(doc, "string(/testsuite/testcase[@name='no-stall']/system-out)");
	ck_assert_ptr_nonnull(strstr(out, "  sysrq-w-n2.txt\n  sysrq-t-n2.txt\n  sysrq-m-n2.txt\n"));
	ck_assert_ptr_nonnull(strstr(out, "20251203-100313-ab12"));
	ck_assert_ptr_null(strstr(out, "vmcore"));
	xmlFreeDoc(doc);
}
END_TEST

START_TEST(junit_why_on_verdict_case)
{
	_cleanup_free_ char *body = NULL;
	xmlDocPtr doc;

	build(SHAPE_STALL);
	add_evidence("sysrq-w-nfs-blocked.log", true);
	for (int i = 0; i < rep.nsteps; i++)
		rep.steps[i].ran = rep.steps[i].ok = true;
	doc = load_junit();
	ck_assert_double_eq(xcount(doc, "count(//system-out)"), 1);
	ck_assert_double_eq(xcount(doc, "count(/testsuite/testcase[last()]/system-out)"), 1);
	body = xstr(doc, "string(/testsuite/testcase[last()]/failure)");
	ck_assert_ptr_nonnull(strstr(body, "1 x D: dd:2695"));
	xmlFreeDoc(doc);
}
END_TEST

/* A capture on a run that then passed: nothing failed, nothing to explain. */
START_TEST(junit_pass_with_evidence)
{
	xmlDocPtr doc;

	build(SHAPE_PASS);
	add_evidence("sysrq-w-nfs-blocked.log", true);
	doc = load_junit();
	ck_assert_double_eq(xcount(doc, "count(//failure)"), 0);
	ck_assert_double_eq(xcount(doc, "count(//system-out)"), 0);
	xmlFreeDoc(doc);
}
END_TEST

/* ---- the plot ---- */

static bool have_gnuplot(void)
{
	const char *argv[] = { "gnuplot", "--version", NULL };

	return spawn_simple(argv, 30000, NULL) == 0;
}

static size_t count(const char *hay, const char *needle)
{
	size_t n = 0;

	for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle))
		n++;
	return n;
}

static void read_in(const char *name, struct strbuf *sb)
{
	_cleanup_free_ char *p = path_in(name);

	ck_assert_msg(strbuf_read_file(sb, p, 16 << 20) == 0, "cannot read %s", p);
}

START_TEST(plot_stall)
{
	_cleanup_strbuf_ struct strbuf dat = STRBUF_INIT;
	_cleanup_strbuf_ struct strbuf gp = STRBUF_INIT;
	_cleanup_strbuf_ struct strbuf svg = STRBUF_INIT;

	build(SHAPE_STALL);
	ck_assert_int_eq(report_plot(&rep, dir), 0);
	read_in("progress.dat", &dat);
	/* Three blocks for gnuplot's index: two double blank lines between them. */
	ck_assert_uint_eq(count(dat.buf, "# index "), 3);
	ck_assert_uint_eq(count(dat.buf, "\n\n\n"), 2);
	read_in("progress.gp", &gp);
	ck_assert_ptr_nonnull(strstr(gp.buf, "set terminal svg size 1000,600"));
	ck_assert_ptr_nonnull(strstr(gp.buf, "'n2 (takeover)'"));
	ck_assert_ptr_nonnull(strstr(gp.buf, "'fault'"));
	ck_assert_ptr_nonnull(strstr(gp.buf, "FAIL-STALL: loopback-failover"));
	ck_assert_ptr_nonnull(strstr(gp.buf, "set object 1 rect from first 96.000"));
	/* IP and group were seen at the same poll: one marker for both. */
	ck_assert_ptr_nonnull(strstr(gp.buf, "'IP, group'"));
	ck_assert_ptr_nonnull(strstr(gp.buf, dir));
	if (!have_gnuplot())
		return;
	read_in("progress.svg", &svg);
	ck_assert_ptr_nonnull(strstr(svg.buf, "<svg"));
}
END_TEST

/* The pressured node's MemAvailable on the right axis, with the ceiling the verdict used. */
START_TEST(plot_pressure)
{
	_cleanup_strbuf_ struct strbuf dat = STRBUF_INIT;
	_cleanup_strbuf_ struct strbuf gp = STRBUF_INIT;
	_cleanup_strbuf_ struct strbuf svg = STRBUF_INIT;

	build(SHAPE_PASS);
	lose_pressure();
	ck_assert_int_eq(report_plot(&rep, dir), 0);
	read_in("progress.dat", &dat);
	ck_assert_uint_eq(count(dat.buf, "# index "), 4);
	ck_assert_ptr_nonnull(strstr(dat.buf, "# index 3: n2 MemAvailable, MiB\n"));
	read_in("progress.gp", &gp);
	ck_assert_ptr_nonnull(strstr(gp.buf, "set y2tics"));
	ck_assert_ptr_nonnull(strstr(gp.buf, "index 3 using 1:2 axes x1y2"));
	ck_assert_ptr_nonnull(strstr(gp.buf, "'pressure held 16% (min_held 90%)'"));
	ck_assert_ptr_nonnull(strstr(gp.buf, "second 64.000"));
	ck_assert_ptr_nonnull(strstr(gp.buf, "'n2: OOM kill'"));
	if (!have_gnuplot())
		return;
	read_in("progress.svg", &svg);
	ck_assert_ptr_nonnull(strstr(svg.buf, "<svg"));
}
END_TEST

/* An empty run (nothing recorded) still yields a plot, not a gnuplot error. */
START_TEST(plot_empty)
{
	_cleanup_strbuf_ struct strbuf dat = STRBUF_INIT;
	_cleanup_strbuf_ struct strbuf svg = STRBUF_INIT;

	build(SHAPE_PASS);
	verdict_input_release(&in);
	verdict_input_init(&in, &sc);
	verdict_judge(&in, &v);
	ck_assert_int_eq(report_plot(&rep, dir), 0);
	read_in("progress.dat", &dat);
	ck_assert_uint_eq(count(dat.buf, "# index "), 0);
	if (!have_gnuplot())
		return;
	read_in("progress.svg", &svg);
	ck_assert_ptr_nonnull(strstr(svg.buf, "<svg"));
}
END_TEST

/* gnuplot is optional: without it the data and script are still written. */
START_TEST(plot_without_gnuplot)
{
	_cleanup_free_ char *svg = path_in("progress.svg");
	_cleanup_free_ char *gp = path_in("progress.gp");

	build(SHAPE_PASS);
	setenv("PATH", dir, 1);
	ck_assert_int_eq(report_plot(&rep, dir), 0);
	ck_assert_int_eq(access(gp, F_OK), 0);
	ck_assert_int_ne(access(svg, F_OK), 0);
}
END_TEST

START_TEST(plot_missing_dir)
{
	build(SHAPE_PASS);
	ck_assert_int_lt(report_plot(&rep, "/nonexistent-dir"), 0);
}
END_TEST

/* ---- the summary ---- */

static void summary_text(struct strbuf *sb)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	ck_assert_ptr_nonnull(f);
	report_summary(&rep, f);
	fclose(f);
	strbuf_add(sb, buf, len);
	free(buf);
}

START_TEST(summary_stall)
{
	_cleanup_strbuf_ struct strbuf sb = STRBUF_INIT;
	size_t lines;

	build(SHAPE_STALL);
	summary_text(&sb);
	lines = count(sb.buf, "\n");
	ck_assert_msg(lines >= 6 && lines <= 10, "%zu lines:\n%s", lines, sb.buf);
	ck_assert_msg(!strncmp(sb.buf, "FAIL-STALL: loop-back writes on n2 stalled", 42), "%s", sb.buf);
	ck_assert_ptr_nonnull(strstr(sb.buf, "(exit 1)\n"));
	ck_assert_ptr_nonnull(strstr(sb.buf, "fenced +28.0s"));
	ck_assert_ptr_nonnull(strstr(sb.buf, "loop-back writes +66.0s"));
	ck_assert_ptr_nonnull(strstr(sb.buf, "longest gap"));
	ck_assert_ptr_nonnull(strstr(sb.buf, "2 failed (no-stall, collect-cores), 1 skipped"));
	ck_assert_ptr_nonnull(strstr(sb.buf, "report.json"));
}
END_TEST

START_TEST(summary_pass)
{
	_cleanup_strbuf_ struct strbuf sb = STRBUF_INIT;

	build(SHAPE_PASS);
	summary_text(&sb);
	ck_assert_msg(!strncmp(sb.buf, "PASS: ", 6), "%s", sb.buf);
	ck_assert_ptr_nonnull(strstr(sb.buf, "(exit 0)\n"));
	ck_assert_ptr_null(strstr(sb.buf, "not seen"));
	ck_assert_ptr_nonnull(strstr(sb.buf, "n2 ok (4096"));
}
END_TEST

START_TEST(summary_pressure_lost)
{
	_cleanup_strbuf_ struct strbuf sb = STRBUF_INIT;

	build(SHAPE_PASS);
	lose_pressure();
	summary_text(&sb);
	ck_assert_msg(!strncmp(sb.buf, "ERROR-PRESSURE-LOST: the memory pressure on n2 held for only 16%", 64),
		      "%s", sb.buf);
	ck_assert_ptr_nonnull(strstr(sb.buf, "(exit 125)\n"));
	ck_assert_ptr_nonnull(strstr(sb.buf, "\npressure +0.0s..+126.0s (min_held 90%): n2 held 16% "
					     "(MemAvailable <= 64M), lost from +20.0s, longest 106.0s, "
					     "1 OOM kill, hog restarted 0 times\n"));
}
END_TEST

static void check_in_order(const char *text, const char *const *parts, size_t n)
{
	const char *p = text;

	for (size_t i = 0; i < n; i++) {
		const char *q = strstr(p, parts[i]);
		ck_assert_msg(q, "'%s' missing or out of order in:\n%s", parts[i], text);
		p = q + strlen(parts[i]);
	}
}

/* Why first: right after the verdict line, before the takeover phases. */
START_TEST(summary_why)
{
	_cleanup_strbuf_ struct strbuf sb = STRBUF_INIT;
	static const char *const parts[] = {
		"FAIL-STALL: loop-back writes on n2 stalled",
		"(exit 1)\nwhy: DEADLOCK on n2 (guest CPU 3% busy over 21.0s, 0 B written)\n",
		"  1 x D: dd:2695\n    __schedule\n    schedule\n    rpc_wait_bit_killable\n",
		"    __rpc_execute\n    rpc_execute\n    rpc_run_task\n    nfs4_call_sync_sequence\n",
		"    _nfs4_proc_access\n    ... 11 more frames\n",
		"  meminfo:\n    Mem-Info:\n    active_anon:200 inactive_anon:16102 isolated_anon:0\n",
		"    free:16196 free_pcp:2117 free_cma:0\n",
		"  evidence: sysrq-w-n2.txt, sysrq-t-n2.txt, sysrq-m-n2.txt\n",
		"takeover n1 -> n2",
		"2 failed (no-stall, collect-cores)",
	};

	build(SHAPE_STALL);
	add_evidence("sysrq-w-nfs-blocked.log", true);
	summary_text(&sb);
	check_in_order(sb.buf, parts, sizeof(parts) / sizeof(parts[0]));
	ck_assert_ptr_null(strstr(sb.buf, "Node 0"));
	ck_assert_ptr_null(strstr(sb.buf, "vmcore"));
	ck_assert_ptr_null(strchr(sb.buf, '\r'));
}
END_TEST

/* Many groups: the three largest, then how many more; a vmcore and an unknown CPU figure. */
START_TEST(summary_why_many_groups)
{
	_cleanup_strbuf_ struct strbuf sb = STRBUF_INIT;
	static const char *const parts[] = {
		"why: unknown on n2 (guest CPU unknown, 0 B written)\n",
		"  25 x I: rcu_gp:3 ", "\n  9 x ", "\n  9 x ", "\n  ... 27 more groups (58 tasks)\n",
		"  evidence: sysrq-w-n2.txt, sysrq-t-n2.txt, sysrq-m-n2.txt, vmcore-n2.elf\n",
		"  vmcore: crash x vmcore-n2.elf\n",
	};

	build(SHAPE_STALL);
	add_evidence("sysrq-t.log", false);
	fx.cls = HANG_UNKNOWN;
	fx.guest_cpu_busy = -1;
	snprintf(fx.vmcore_file, sizeof(fx.vmcore_file), "vmcore-n2.elf");
	snprintf(fx.vmcore_note, sizeof(fx.vmcore_note), "crash x vmcore-n2.elf");
	summary_text(&sb);
	check_in_order(sb.buf, parts, sizeof(parts) / sizeof(parts[0]));
}
END_TEST

/* Evidence from a run that then passed does not change the PASS summary. */
START_TEST(summary_pass_with_evidence)
{
	_cleanup_strbuf_ struct strbuf plain = STRBUF_INIT;
	_cleanup_strbuf_ struct strbuf with = STRBUF_INIT;

	build(SHAPE_PASS);
	summary_text(&plain);
	add_evidence("sysrq-w-nfs-blocked.log", true);
	summary_text(&with);
	ck_assert_str_eq(with.buf, plain.buf);
}
END_TEST

/* Console text for people: stamps, CR and colours gone; a line cut by the size limit dropped. */
START_TEST(console_text)
{
	_cleanup_strbuf_ struct strbuf sb = STRBUF_INIT;
	const char *raw = "[  671.896726] Mem-Info:\r\n\x1b[1m[  671.897082]  free:16196\x1b[0m\r\n[  671.9] Node 0 \xff";

	report_console_text(&sb, raw, strlen(raw));
	ck_assert_str_eq(sb.buf, "Mem-Info:\nfree:16196\nNode 0 ?\n");
	strbuf_reset(&sb);
	report_console_text(&sb, raw, strlen(raw) - 3);
	ck_assert_str_eq(sb.buf, "Mem-Info:\nfree:16196\n");
	strbuf_reset(&sb);
	report_console_text(&sb, NULL, 100);
	ck_assert_str_eq(sb.buf, "");
}
END_TEST

static Suite *report_suite(void)
{
	Suite *s = suite_create("report");
	TCase *json = tcase_create("json");
	TCase *junit = tcase_create("junit");
	TCase *plot = tcase_create("plot");
	TCase *sum = tcase_create("summary");
	TCase *all[] = { json, junit, plot, sum };

	tcase_add_test(json, json_pass);
	tcase_add_test(json, json_stall);
	tcase_add_test(json, json_nulls);
	tcase_add_test(json, json_pressure_lost);
	tcase_add_test(json, json_pressure_null);
	tcase_add_test(json, json_why);
	tcase_add_test(json, json_why_sparse);
	tcase_add_test(json, json_unwritable);
	tcase_add_test(junit, junit_pass);
	tcase_add_test(junit, junit_stall);
	tcase_add_test(junit, junit_verdict_without_step);
	tcase_add_test(junit, junit_why);
	tcase_add_test(junit, junit_why_on_verdict_case);
	tcase_add_test(junit, junit_pass_with_evidence);
	tcase_add_test(plot, plot_stall);
	tcase_add_test(plot, plot_pressure);
	tcase_add_test(plot, plot_empty);
	tcase_add_test(plot, plot_without_gnuplot);
	tcase_add_test(plot, plot_missing_dir);
	tcase_add_test(sum, summary_stall);
	tcase_add_test(sum, summary_pass);
	tcase_add_test(sum, summary_pressure_lost);
	tcase_add_test(sum, summary_why);
	tcase_add_test(sum, summary_why_many_groups);
	tcase_add_test(sum, summary_pass_with_evidence);
	tcase_add_test(sum, console_text);
	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++) {
		tcase_add_checked_fixture(all[i], setup, teardown);
		/* gnuplot under a sanitizer on a loaded runner takes seconds, not milliseconds. */
		tcase_set_timeout(all[i], 60);
		suite_add_tcase(s, all[i]);
	}
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(report_suite());
	int failed;

	srunner_set_fork_status(sr, CK_FORK);
	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
