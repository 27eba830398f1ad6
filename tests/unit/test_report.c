// SPDX-License-Identifier: GPL-2.0-only
/*
 * The report writers on synthetic runs (a PASS and a FAIL-STALL): every file
 * is parsed back with the library a consumer would use (jansson, libxml2,
 * gnuplot) and checked field by field, so a writer cannot drift from
 * docs/report-schema.md or produce a file CI tools reject.
 */
#include <check.h>
#include <jansson.h>
#include <libxml/parser.h>
#include <libxml/xpath.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "report/report.h"
#include "scenario.h"
#include "util/fs.h"
#include "util/spawn.h"
#include "util/strbuf.h"
#include "util/xalloc.h"
#include "verdict.h"

#define T_FAULT 30000u
#define RATE (1u << 20)
/* 2025-12-03T10:03:13Z */
#define WALL_START 1764756193000ull

enum shape { SHAPE_PASS, SHAPE_STALL };

static struct scenario sc;
static struct verdict_input in;
static struct verdict v;
static struct run_report rep;
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
	tcase_add_test(json, json_unwritable);
	tcase_add_test(junit, junit_pass);
	tcase_add_test(junit, junit_stall);
	tcase_add_test(junit, junit_verdict_without_step);
	tcase_add_test(plot, plot_stall);
	tcase_add_test(plot, plot_empty);
	tcase_add_test(plot, plot_without_gnuplot);
	tcase_add_test(plot, plot_missing_dir);
	tcase_add_test(sum, summary_stall);
	tcase_add_test(sum, summary_pass);
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
