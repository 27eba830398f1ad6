// SPDX-License-Identifier: GPL-2.0-only
/*
 * junit.xml: one <testsuite> with a <testcase> per step of the run, the shape
 * Jenkins' and GitLab's JUnit importers read (Ant's schema: properties first,
 * then testcases; failure and skipped as children of a testcase). When the
 * stuck node's evidence was captured, the failure the verdict is about also
 * carries the blocked stacks and its testcase a system-out naming the files.
 */
#include <errno.h>
#include <libxml/xmlwriter.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "report/common.h"
#include "report/report.h"
#include "util/fs.h"
#include "util/xmlw.h"

#define open_el xw_open
#define close_el xw_close

/* Text from guests and the verdict is cleaned: one stray byte must not void the file. */
static void attr(struct xw *x, const char *name, const char *value)
{
	_cleanup_strbuf_ struct strbuf sb = STRBUF_INIT;

	report_clean_text(&sb, value);
	xw_attr(x, name, sb.buf);
}

static void attrf(struct xw *x, const char *name, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void attrf(struct xw *x, const char *name, const char *fmt, ...)
{
	char buf[64];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	attr(x, name, buf);
}

static void text(struct xw *x, const char *s)
{
	_cleanup_strbuf_ struct strbuf sb = STRBUF_INIT;

	report_clean_text(&sb, s);
	xw_text(x, sb.buf);
}

static void property(struct xw *x, const char *name, const char *value)
{
	open_el(x, "property");
	attr(x, "name", name);
	attr(x, "value", value);
	close_el(x);
}

static void properties(struct xw *x, const struct run_report *r)
{
	open_el(x, "properties");
	property(x, "verdict", verdict_name(r->v->cls));
	property(x, "kernel_release", r->kernel_release);
	property(x, "cluster", r->cluster);
	property(x, "run_id", r->run_id);
	close_el(x);
}

/* The failure's text is read in a CI web page: every group, every frame, up to a sane bound. */
#define JUNIT_MAX_GROUPS 20

static bool have_evidence(const struct run_report *r)
{
	return r->fx && r->fx->captured;
}

/* The message; for the failure the verdict is about, then why: the blocked stacks. */
static void failure_text(struct xw *x, const struct run_report *r, const char *message, bool deciding)
{
	_cleanup_strbuf_ struct strbuf sb = STRBUF_INIT;

	report_failure_text(&sb, r, message, deciding, JUNIT_MAX_GROUPS);
	text(x, sb.buf);
}

/* Where the full evidence is, relative to the run directory. */
static void evidence_out(struct xw *x, const struct run_report *r)
{
	_cleanup_strbuf_ struct strbuf sb = STRBUF_INIT;
	const struct forensics *fx = r->fx;
	const char *files[] = { fx->sysrq_w_file, fx->sysrq_t_file, fx->sysrq_m_file, fx->vmcore_file };

	strbuf_addf(&sb, "evidence from %s (%s), files in the directory of run %s:\n", fx->node, fx->reason,
		    r->run_id);
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++)
		if (files[i][0])
			strbuf_addf(&sb, "  %s\n", files[i]);
	strbuf_addstr(&sb, "  report.json (why: blocked stacks, meminfo)\n");
	if (fx->vmcore_note[0])
		strbuf_addf(&sb, "vmcore: %s\n", fx->vmcore_note);
	open_el(x, "system-out");
	text(x, sb.buf);
	close_el(x);
}

static void testcase(struct xw *x, const struct run_report *r, const struct report_step *st,
		     const char *classname)
{
	open_el(x, "testcase");
	attr(x, "classname", classname);
	attr(x, "name", st->name);
	attrf(x, "time", "%.3f", st->ran ? st->seconds : 0.0);
	if (!st->ran) {
		open_el(x, "skipped");
		close_el(x);
	} else if (!st->ok) {
		bool deciding = st == report_deciding_step(r);
		open_el(x, "failure");
		attr(x, "message", st->message);
		attr(x, "type", deciding ? verdict_name(r->v->cls) : "FAIL");
		failure_text(x, r, st->message, deciding);
		close_el(x);
		if (deciding && have_evidence(r))
			evidence_out(x, r);
	}
	close_el(x);
}

/*
 * A verdict that no failed step carries (every check passed, then the
 * verdict found a stall in the recorded timeline) still has to turn the CI
 * job red: it becomes a testcase of its own.
 */
static bool verdict_case_needed(const struct run_report *r)
{
	return r->v->cls != VERDICT_PASS && !report_deciding_step(r);
}

static void verdict_case(struct xw *x, const struct run_report *r, const char *classname)
{
	open_el(x, "testcase");
	attr(x, "classname", classname);
	attr(x, "name", "verdict");
	attr(x, "time", "0.000");
	open_el(x, "failure");
	attr(x, "message", r->v->reason);
	attr(x, "type", verdict_name(r->v->cls));
	failure_text(x, r, r->v->reason, true);
	close_el(x);
	if (have_evidence(r))
		evidence_out(x, r);
	close_el(x);
}

static void testsuite(struct xw *x, const struct run_report *r)
{
	char name[256], classname[300], stamp[32];
	int extra = verdict_case_needed(r), failures = extra, skipped = 0;

	for (int i = 0; i < r->nsteps; i++) {
		skipped += !r->steps[i].ran;
		failures += r->steps[i].ran && !r->steps[i].ok;
	}
	report_scenario_name(r, name, sizeof(name));
	snprintf(classname, sizeof(classname), "takeover.%s", name);
	/* Ant's schema: local time without a zone; UTC is what a CI log next to it shows. */
	report_iso8601(r->wall_start_ms, false, stamp, sizeof(stamp));
	open_el(x, "testsuite");
	attr(x, "name", "takeover");
	attrf(x, "tests", "%d", r->nsteps + extra);
	attrf(x, "failures", "%d", failures);
	attr(x, "errors", "0");
	attrf(x, "skipped", "%d", skipped);
	attrf(x, "time", "%.3f", (double)r->duration_ms / 1000.0);
	attr(x, "timestamp", stamp);
	properties(x, r);
	for (int i = 0; i < r->nsteps; i++)
		testcase(x, r, &r->steps[i], classname);
	if (extra)
		verdict_case(x, r, classname);
	close_el(x);
}

int report_junit(const struct run_report *r, const char *path)
{
	struct strbuf out = STRBUF_INIT;
	struct xw x;
	int ret;

	if (!r->v)
		return -EINVAL;
	ret = xw_begin(&x);
	if (ret < 0)
		return ret;
	x.err |= xmlTextWriterStartDocument(x.w, NULL, "UTF-8", NULL) < 0;
	testsuite(&x, r);
	ret = xw_finish(&x, &out);
	if (!ret)
		ret = write_file_atomic(path, out.buf, out.len, 0644);
	strbuf_release(&out);
	return ret;
}
