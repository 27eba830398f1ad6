// SPDX-License-Identifier: GPL-2.0-only
/*
 * report.json: the machine-readable result of a run (docs/report-schema.md).
 * Keys are stable within a schema version; times are seconds as numbers,
 * absent values are null rather than missing keys, so consumers never need
 * to test for a key's presence.
 */
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/common.h"
#include "report/report.h"
#include "util/fs.h"
#include "util/strbuf.h"

/*
 * Builders return NULL on failure; json_object_set_new() then fails on the
 * NULL and the error travels up to report_json() without a check at each
 * level.
 */
static int put(json_t *o, const char *key, json_t *v)
{
	return json_object_set_new(o, key, v) ? 1 : 0;
}

static json_t *done(json_t *o, int err)
{
	if (!err)
		return o;
	json_decref(o);
	return NULL;
}

/* Guest-supplied text may be anything; jansson accepts only UTF-8. */
static json_t *jstr(const char *s)
{
	_cleanup_strbuf_ struct strbuf sb = STRBUF_INIT;

	report_clean_text(&sb, s ? s : "");
	return json_string(sb.buf);
}

static json_t *jreal(double d)
{
	return isfinite(d) ? json_real(d) : json_null();
}

static json_t *jsec(uint64_t ms)
{
	return json_real((double)ms / 1000.0);
}

static json_t *juint(uint64_t v)
{
	return json_integer((json_int_t)v);
}

static json_t *phases_obj(const struct phases *p)
{
	json_t *o = json_object();
	int err = !o;

	for (size_t i = 0; o && i < REPORT_NPHASES; i++) {
		int64_t ms = report_phase_ms(p, &report_phases[i]);
		err |= put(o, report_phases[i].key, ms < 0 ? json_null() : jsec((uint64_t)ms));
	}
	return done(o, err);
}

static json_t *verdict_obj(const struct verdict *v)
{
	json_t *o = json_object();
	int err = !o;

	err |= put(o, "class", json_string(verdict_name(v->cls)));
	err |= put(o, "exit_code", json_integer(verdict_exit_code(v->cls)));
	err |= put(o, "node", jstr(v->node));
	err |= put(o, "reason", jstr(v->reason));
	return done(o, err);
}

/* The observe-window figures exist only once the verdict found the resume. */
static json_t *takeover_obj(const struct verdict_input *in, const struct verdict *v)
{
	json_t *o = json_object();
	bool resumed = v->t_resume != 0;
	int err = !o;

	err |= put(o, "victim", jstr(in->victim));
	err |= put(o, "takeover_node", jstr(in->takeover));
	err |= put(o, "judged_node", jstr(verdict_judged_node(in)));
	err |= put(o, "victim_survives", json_boolean(in->victim_survives));
	err |= put(o, "group_stays", json_boolean(in->group_stays));
	err |= put(o, "group_restarts", json_boolean(in->group_restarts));
	err |= put(o, "fault_t_s", in->fault_fired ? jsec(in->t_fault) : json_null());
	err |= put(o, "phases_s", phases_obj(&v->ph));
	err |= put(o, "resume_s", resumed ? jsec(v->t_resume - in->t_fault) : json_null());
	err |= put(o, "max_gap_s", resumed ? jsec(v->max_gap) : json_null());
	err |= put(o, "window_bytes", resumed ? juint(v->window_bytes) : json_null());
	err |= put(o, "window_rate_Bps", resumed ? jreal(v->window_rate) : json_null());
	return done(o, err);
}

static json_t *pressure_node_obj(const struct pressure_node *p, uint64_t t_fault)
{
	json_t *o = json_object();
	int err = !o;

	err |= put(o, "node", jstr(p->node));
	err |= put(o, "held_pct", jreal(p->held * 100.0));
	err |= put(o, "within_bytes", juint(p->reach_kb << 10));
	err |= put(o, "max_available_bytes", juint(p->max_avail_kb << 10));
	err |= put(o, "lost_s", jsec(p->lost_ms));
	err |= put(o, "unsampled_s", jsec(p->unsampled_ms));
	err |= put(o, "first_lost_s", p->first_lost ? jreal(((double)p->first_lost - (double)t_fault) / 1000.0)
						  : json_null());
	err |= put(o, "longest_lost_s", jsec(p->longest_lost));
	err |= put(o, "oom_kills", json_integer(p->oom_kills));
	err |= put(o, "first_oom_s", p->first_oom ? jreal(((double)p->first_oom - (double)t_fault) / 1000.0)
						: json_null());
	err |= put(o, "oom_victim", p->oom_victim[0] ? jstr(p->oom_victim) : json_null());
	err |= put(o, "hog_restarts", json_integer(p->restarts));
	return done(o, err);
}

/* How well the scenario's memory pressure held in the judged window; null without pressure. */
static json_t *pressure_obj(const struct verdict_input *in, const struct verdict *v)
{
	const struct pressure_result *pr = &v->pr;
	json_t *o, *nodes;
	int err;

	if (!pr->judged)
		return json_null();
	o = json_object();
	nodes = json_array();
	err = !o || !nodes;
	for (int i = 0; nodes && i < pr->n; i++)
		err |= json_array_append_new(nodes, pressure_node_obj(&pr->nodes[i], in->t_fault)) ? 1 : 0;
	err |= put(o, "held", json_boolean(pr->ok));
	err |= put(o, "held_pct", jreal(pr->nodes[pr->worst].held * 100.0));
	err |= put(o, "min_held_pct", json_integer(in->min_held));
	err |= put(o, "window_from_s", jreal(((double)pr->from - (double)in->t_fault) / 1000.0));
	err |= put(o, "window_to_s", jreal(((double)pr->to - (double)in->t_fault) / 1000.0));
	err |= put(o, "nodes", nodes);
	return done(o, err);
}

static json_t *criteria_obj(const struct verdict_input *in)
{
	json_t *o = json_object();
	int err = !o;

	err |= put(o, "steady_time_s", jsec(in->steady_time));
	err |= put(o, "takeover_timeout_s", jsec(in->takeover_timeout));
	err |= put(o, "observe_s", jsec(in->observe));
	err |= put(o, "max_stall_s", jsec(in->max_stall));
	err |= put(o, "min_rate_Bps", juint(in->min_rate));
	err |= put(o, "available", in->available.is_percent ? json_sprintf("%u%%", in->available.percent)
							 : juint(in->available.bytes));
	err |= put(o, "tolerance_bytes", juint(in->tolerance));
	err |= put(o, "min_held_pct", json_integer(in->min_held));
	return done(o, err);
}

static json_t *node_obj(const struct run_report *r, const struct report_node *n)
{
	json_t *o = json_object();
	int err = !o;

	err |= put(o, "name", jstr(n->name));
	err |= put(o, "role", jstr(n->role));
	err |= put(o, "writer", json_boolean(n->writer));
	err |= put(o, "pressure", json_boolean(n->pressure));
	err |= put(o, "kernel", jstr(n->kernel));
	err |= put(o, "console", jstr(n->console));
	err |= put(o, "corosync_log", n->corosync_log[0] ? jstr(n->corosync_log) : json_null());
	err |= put(o, "nfs_log", n->nfs_log[0] ? jstr(n->nfs_log) : json_null());
	err |= put(o, "localio", n->localio ? json_deep_copy(n->localio) : json_null());
	err |= put(o, "acked_bytes", juint(report_last_acked(r, n->name)));
	return done(o, err);
}

static json_t *nodes_arr(const struct run_report *r)
{
	json_t *a = json_array();
	int err = !a;

	for (int i = 0; a && i < r->nnodes; i++)
		err |= json_array_append_new(a, node_obj(r, &r->nodes[i])) ? 1 : 0;
	return done(a, err);
}

static json_t *kernel_arr(const struct verdict_input *in)
{
	json_t *a = json_array();
	int err = !a;

	for (int i = 0; a && i < in->nkernel; i++) {
		json_t *o = json_object();
		int e = !o;
		e |= put(o, "t_s", jsec(in->kernel[i].t));
		e |= put(o, "node", jstr(in->kernel[i].node));
		e |= put(o, "class", jstr(in->kernel[i].cls));
		e |= put(o, "title", jstr(in->kernel[i].title));
		err |= json_array_append_new(a, done(o, e)) ? 1 : 0;
	}
	return done(a, err);
}

static json_t *verify_arr(const struct verdict_input *in)
{
	json_t *a = json_array();
	int err = !a;

	for (int i = 0; a && i < in->nverify; i++) {
		json_t *o = json_object();
		int e = !o;
		e |= put(o, "node", jstr(in->verify[i].node));
		e |= put(o, "ran", json_boolean(in->verify[i].ran));
		e |= put(o, "acked", juint(in->verify[i].acked));
		e |= put(o, "missing", juint(in->verify[i].missing));
		e |= put(o, "corrupt", juint(in->verify[i].corrupt));
		e |= put(o, "detail", jstr(in->verify[i].detail));
		err |= json_array_append_new(a, done(o, e)) ? 1 : 0;
	}
	return done(a, err);
}

/* "n1, n2" as ["n1", "n2"]. */
static json_t *names_arr(const char *list)
{
	json_t *a = json_array();
	int err = !a;

	for (const char *p = list; a && *p;) {
		size_t n = strcspn(p, ",");
		char name[16];
		snprintf(name, sizeof(name), "%.*s", (int)n, p);
		err |= json_array_append_new(a, json_string(name)) ? 1 : 0;
		p += n;
		p += strspn(p, ", ");
	}
	return done(a, err);
}

static json_t *audits_arr(const struct verdict_input *in)
{
	json_t *a = json_array();
	int err = !a;

	for (int i = 0; a && i < in->naudit; i++) {
		json_t *o = json_object();
		int e = !o;
		e |= put(o, "when", jstr(in->audit[i].when));
		e |= put(o, "ok", json_boolean(!in->audit[i].problems[0]));
		e |= put(o, "problems", jstr(in->audit[i].problems));
		e |= put(o, "ip_holders", names_arr(in->audit[i].ip_holders));
		e |= put(o, "fs_mounted", names_arr(in->audit[i].fs_holders));
		err |= json_array_append_new(a, done(o, e)) ? 1 : 0;
	}
	return done(a, err);
}

static json_t *steps_arr(const struct run_report *r)
{
	json_t *a = json_array();
	int err = !a;

	for (int i = 0; a && i < r->nsteps; i++) {
		const struct report_step *st = &r->steps[i];
		json_t *o = json_object();
		int e = !o;
		e |= put(o, "name", jstr(st->name));
		e |= put(o, "ran", json_boolean(st->ran));
		e |= put(o, "ok", json_boolean(st->ok));
		e |= put(o, "seconds", jreal(st->seconds));
		e |= put(o, "message", jstr(st->message));
		err |= json_array_append_new(a, done(o, e)) ? 1 : 0;
	}
	return done(a, err);
}

/* "a\nb\nc" -> ["a", "b", "c"] */
static json_t *frames_arr(const char *stack)
{
	json_t *a = json_array();
	int err = !a;

	for (const char *p = stack ? stack : ""; a && *p;) {
		size_t n = strcspn(p, "\n");
		_cleanup_strbuf_ struct strbuf fn = STRBUF_INIT;
		strbuf_add(&fn, p, n);
		err |= json_array_append_new(a, jstr(fn.buf)) ? 1 : 0;
		p += n + (p[n] == '\n');
	}
	return done(a, err);
}

static json_t *blocked_arr(const struct sysrq_dump *d)
{
	json_t *a = json_array();
	int err = !a;

	for (size_t i = 0; a && i < d->ngroups; i++) {
		const struct sysrq_group *g = &d->groups[i];
		json_t *o = json_object();
		int e = !o;
		e |= put(o, "state", jstr(g->state));
		e |= put(o, "count", json_integer(g->count));
		e |= put(o, "tasks", jstr(g->tasks));
		e |= put(o, "stack", frames_arr(g->stack));
		err |= json_array_append_new(a, done(o, e)) ? 1 : 0;
	}
	return done(a, err);
}

/* A file name in the run directory, null when it was not written. */
static json_t *jfile(const char *name)
{
	return name[0] ? jstr(name) : json_null();
}

/* The sysrq-m capture is a few dozen lines; a console flooded meanwhile must not bloat the report. */
#define MEMINFO_MAX (64 << 10)

static json_t *why_files(const struct forensics *fx)
{
	json_t *o = json_object();
	int err = !o;

	err |= put(o, "sysrq_w", jfile(fx->sysrq_w_file));
	err |= put(o, "sysrq_t", jfile(fx->sysrq_t_file));
	err |= put(o, "sysrq_m", jfile(fx->sysrq_m_file));
	err |= put(o, "vmcore", jfile(fx->vmcore_file));
	return done(o, err);
}

/* Why it failed, from the node itself: null unless evidence was captured. */
static json_t *why_obj(const struct forensics *fx)
{
	_cleanup_strbuf_ struct strbuf mem = STRBUF_INIT;
	bool cpu = fx && isfinite(fx->guest_cpu_busy) && fx->guest_cpu_busy >= 0;
	json_t *o;
	int err;

	if (!fx || !fx->captured)
		return json_null();
	o = json_object();
	err = !o;
	if (fx->meminfo)
		report_console_text(&mem, fx->meminfo, MEMINFO_MAX);
	err |= put(o, "node", jstr(fx->node));
	err |= put(o, "reason", jstr(fx->reason));
	err |= put(o, "hang_class", json_string(hang_class_name(fx->cls)));
	err |= put(o, "t_s", jsec(fx->t_capture));
	err |= put(o, "guest_cpu_busy", cpu ? jreal(fx->guest_cpu_busy) : json_null());
	err |= put(o, "window_s", cpu ? jreal(fx->window_seconds) : json_null());
	err |= put(o, "bytes_in_window", juint(fx->bytes_in_window));
	err |= put(o, "blocked", blocked_arr(&fx->blocked));
	err |= put(o, "meminfo", fx->meminfo ? json_string(mem.buf) : json_null());
	err |= put(o, "files", why_files(fx));
	err |= put(o, "vmcore_note", fx->vmcore_note[0] ? jstr(fx->vmcore_note) : json_null());
	err |= put(o, "capture_s", jreal(fx->capture_seconds));
	return done(o, err);
}

/* Fixed names: other tools find the run's artifacts without parsing anything else. */
static json_t *files_obj(void)
{
	json_t *o = json_object();
	int err = !o;

	for (size_t i = 0; o && i < REPORT_NFILES; i++)
		if (report_files[i].key)
			err |= put(o, report_files[i].key, json_string(report_files[i].name));
	return done(o, err);
}

static json_t *run_meta(const struct run_report *r)
{
	json_t *o = json_object();
	char started[32];
	int err = !o;

	report_iso8601(r->wall_start_ms, true, started, sizeof(started));
	err |= put(o, "schema", json_integer(REPORT_SCHEMA_VERSION));
	err |= put(o, "run_id", jstr(r->run_id));
	err |= put(o, "cluster", jstr(r->cluster));
	err |= put(o, "scenario", jstr(r->scenario_path));
	err |= put(o, "kernel_release", jstr(r->kernel_release));
	err |= put(o, "accel", json_string(r->kvm ? "kvm" : "tcg"));
	err |= put(o, "started", json_string(started));
	err |= put(o, "duration_s", jsec(r->duration_ms));
	err |= put(o, "harness_cpu_s", jreal(r->harness_cpu_s));
	return done(o, err);
}

/* The "cluster-up" event without the timeline's own keys. */
static json_t *cluster_up_obj(const json_t *ev)
{
	json_t *o = json_deep_copy(ev);

	if (o) {
		json_object_del(o, "ev");
		json_object_del(o, "t");
	}
	return o;
}

static json_t *report_obj(const struct run_report *r)
{
	json_t *o = run_meta(r);
	int err = !o;

	if (!o)
		return NULL;
	err |= put(o, "verdict", verdict_obj(r->v));
	err |= put(o, "why", why_obj(r->fx));
	err |= put(o, "takeover", takeover_obj(r->in, r->v));
	err |= put(o, "pressure", pressure_obj(r->in, r->v));
	err |= put(o, "criteria", criteria_obj(r->in));
	err |= put(o, "nodes", nodes_arr(r));
	err |= put(o, "kernel_events", kernel_arr(r->in));
	err |= put(o, "verify", verify_arr(r->in));
	err |= put(o, "audits", audits_arr(r->in));
	err |= put(o, "steps", steps_arr(r));
	err |= put(o, "cluster_up", r->cluster_up ? cluster_up_obj(r->cluster_up) : json_null());
	err |= put(o, "files", files_obj());
	return done(o, err);
}

int report_json(const struct run_report *r, const char *path)
{
	_cleanup_strbuf_ struct strbuf sb = STRBUF_INIT;
	json_t *o;
	char *text;

	if (!r->v || !r->in)
		return -EINVAL;
	o = report_obj(r);
	if (!o)
		return -ENOMEM;
	/* Ten significant digits: milliseconds survive, float noise does not. */
	text = json_dumps(o, JSON_INDENT(2) | JSON_REAL_PRECISION(10));
	json_decref(o);
	if (!text)
		return -ENOMEM;
	/* A text file ends with a newline; `cat report.json` should not glue the prompt to it. */
	strbuf_addstr(&sb, text);
	strbuf_addch(&sb, '\n');
	free(text);
	return write_file_atomic(path, sb.buf, sb.len, 0644);
}
