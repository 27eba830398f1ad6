// SPDX-License-Identifier: GPL-2.0-only
/*
 * The report's metadata from the run's timeline: what `takeover run` wrote
 * there as it went (run-start, roles, node, step, corosync-log, end), so that
 * `takeover report DIR` builds the same report.json, junit.xml and plot as
 * the run did. The run itself calls this too: there is one way to get from a
 * timeline to a report.
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <errno.h>
#include <string.h>

#include "report/common.h"
#include "report/report.h"
#include "util/log.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

static const char *jstr(const json_t *o, const char *k)
{
	return json_string_value(json_object_get(o, k)) ?: "";
}

static struct report_node *node_named(struct run_report *rep, const char *name)
{
	for (int i = 0; name && i < rep->nnodes; i++)
		if (!strcmp(rep->nodes[i].name, name))
			return &rep->nodes[i];
	return NULL;
}

static void load_run_start(struct run_report *rep, const json_t *o)
{
	snprintf(rep->run_id, sizeof(rep->run_id), "%s", jstr(o, "run_id"));
	snprintf(rep->cluster, sizeof(rep->cluster), "%s", jstr(o, "cluster"));
	snprintf(rep->kernel_release, sizeof(rep->kernel_release), "%s", jstr(o, "kernel_release"));
	snprintf(rep->scenario_path, sizeof(rep->scenario_path), "%s", jstr(o, "scenario"));
	rep->kvm = !strcmp(jstr(o, "accel"), "kvm");
	rep->wall_start_ms = (uint64_t)json_integer_value(json_object_get(o, "started_ms"));
	json_t *k = json_object_get(o, "kernel");
	if (json_is_object(k) && !rep->kernel)
		rep->kernel = json_incref(k);
}

static void load_roles(struct run_report *rep, const json_t *o)
{
	const char *v = jstr(o, "victim"), *t = jstr(o, "takeover");

	for (int i = 0; i < rep->nnodes; i++) {
		struct report_node *rn = &rep->nodes[i];
		snprintf(rn->role, sizeof(rn->role), "%s",
			 !strcmp(rn->name, v) ? "victim" : !strcmp(rn->name, t) ? "takeover" : "client");
	}
}

static void load_step(struct run_report *rep, const json_t *o)
{
	struct report_step *s;

	if (rep->nsteps >= REPORT_MAX_STEPS)
		return;
	s = &rep->steps[rep->nsteps++];
	memset(s, 0, sizeof(*s));
	snprintf(s->name, sizeof(s->name), "%s", jstr(o, "name"));
	s->ran = json_is_true(json_object_get(o, "ran"));
	s->ok = json_is_true(json_object_get(o, "ok"));
	s->seconds = json_number_value(json_object_get(o, "seconds"));
	snprintf(s->message, sizeof(s->message), "%s", jstr(o, "message"));
	s->started_ms = (uint64_t)json_integer_value(json_object_get(o, "started_ms"));
}

/* A file of the run directory, or NULL. */
static char *run_file(const char *dir, const char *name)
{
	struct strbuf sb = STRBUF_INIT;
	char *path;
	int r;

	if (!name[0])
		return NULL;
	path = xasprintf("%s/%s", dir, name);
	r = strbuf_read_file(&sb, path, 64 << 20);
	free(path);
	if (r < 0) {
		strbuf_release(&sb);
		return NULL;
	}
	return strbuf_detach(&sb, NULL);
}

/* The evidence the run captured: its summary event and the sysrq files it names. */
static void load_forensics(struct run_report *rep, const json_t *o, const char *dir)
{
	struct forensics *fx = &rep->loaded_fx;
	char *w, *t;

	if (fx->captured)
		return;
	fx->captured = true;
	snprintf(fx->node, sizeof(fx->node), "%s", jstr(o, "node"));
	snprintf(fx->reason, sizeof(fx->reason), "%s", jstr(o, "reason"));
	fx->t_capture = (uint64_t)json_integer_value(json_object_get(o, "t_capture"));
	fx->capture_seconds = json_number_value(json_object_get(o, "capture_s"));
	fx->cls = hang_class_from_name(jstr(o, "hang_class"));
	fx->guest_cpu_busy = json_number_value(json_object_get(o, "guest_cpu_busy"));
	fx->window_seconds = json_number_value(json_object_get(o, "window_s"));
	fx->bytes_in_window = (uint64_t)json_integer_value(json_object_get(o, "bytes_in_window"));
	snprintf(fx->sysrq_w_file, sizeof(fx->sysrq_w_file), "%s", jstr(o, "sysrq_w"));
	snprintf(fx->sysrq_t_file, sizeof(fx->sysrq_t_file), "%s", jstr(o, "sysrq_t"));
	snprintf(fx->sysrq_m_file, sizeof(fx->sysrq_m_file), "%s", jstr(o, "sysrq_m"));
	snprintf(fx->vmcore_file, sizeof(fx->vmcore_file), "%s", jstr(o, "vmcore"));
	snprintf(fx->vmcore_note, sizeof(fx->vmcore_note), "%s", jstr(o, "vmcore_note"));
	w = run_file(dir, fx->sysrq_w_file);
	t = run_file(dir, fx->sysrq_t_file);
	forensics_stacks(fx, w, t);
	free(w);
	free(t);
	fx->meminfo = run_file(dir, fx->sysrq_m_file) ?: xstrdup("");
	rep->fx = fx;
}

/*
 * LOCALIO's counts (run/localio.c): at the fault ("localio-fault") and at
 * the end ("localio"), made into report.json's nodes[].localio.
 */
static void load_localio(struct report_node *rn, const json_t *o, bool end)
{
	const json_t *sup = json_object_get(o, "supported");
	static const char *const keys[] = { "io", "commits" };

	if (!rn->localio)
		rn->localio = json_object();
	json_object_set(rn->localio, "supported", json_is_boolean(sup) ? (json_t *)sup : json_null());
	for (size_t i = 0; json_is_true(sup) && i < 2; i++) {
		const json_t *v = json_object_get(o, keys[i]);
		_cleanup_free_ char *before = xasprintf("%s_before_fault", keys[i]);
		_cleanup_free_ char *after = xasprintf("%s_after_fault", keys[i]);
		/* Every key there, null until counted (report.json never leaves one out). */
		if (!json_object_get(rn->localio, before))
			json_object_set_new(rn->localio, before, json_null());
		if (!json_object_get(rn->localio, after))
			json_object_set_new(rn->localio, after, json_null());
		if (!json_is_integer(v))
			continue;
		if (!end) {
			json_object_set_new(rn->localio, before, json_integer(json_integer_value(v)));
			continue;
		}
		/* Counted at the end: what the fault's count does not hold came after it. */
		const json_t *b = json_object_get(rn->localio, before);
		json_int_t total = json_integer_value(v);
		json_object_set_new(rn->localio, after,
				    json_is_integer(b) && total >= json_integer_value(b)
					    ? json_integer(total - json_integer_value(b))
					    : json_null());
	}
}

static void load_event(struct run_report *rep, const json_t *o, const char *dir)
{
	const char *ev = jstr(o, "ev");
	struct report_node *rn = node_named(rep, json_string_value(json_object_get(o, "node")));

	if (!strcmp(ev, "run-start"))
		load_run_start(rep, o);
	else if (!strcmp(ev, "roles"))
		load_roles(rep, o);
	else if (!strcmp(ev, "step"))
		load_step(rep, o);
	else if (!strcmp(ev, "forensics"))
		load_forensics(rep, o, dir);
	else if (!strcmp(ev, "cluster-up") && !rep->cluster_up)
		rep->cluster_up = json_incref((json_t *)o);
	else if (!strcmp(ev, "end")) {
		rep->duration_ms = (uint64_t)json_integer_value(json_object_get(o, "duration_ms"));
		rep->harness_cpu_s = json_number_value(json_object_get(o, "harness_cpu_s"));
	} else if (rn && !strcmp(ev, "writer-start"))
		rn->writer = true;
	else if (rn && !strcmp(ev, "pressure-start"))
		rn->pressure = true;
	else if (rn && !strcmp(ev, "node"))
		snprintf(rn->kernel, sizeof(rn->kernel), "%s", jstr(o, "kernel"));
	else if (rn && !strcmp(ev, "corosync-log"))
		snprintf(rn->corosync_log, sizeof(rn->corosync_log), "%s", jstr(o, "file"));
	else if (rn && !strcmp(ev, "nfs-log"))
		snprintf(rn->nfs_log, sizeof(rn->nfs_log), "%s", jstr(o, "file"));
	else if (rn && (!strcmp(ev, "localio-fault") || !strcmp(ev, "localio")))
		load_localio(rn, o, !strcmp(ev, "localio"));
}

int report_load(const char *timeline, int nnodes, struct run_report *rep)
{
	FILE *f = fopen(timeline, "re");
	char *line = NULL, *dir = xstrdup(timeline), *slash = strrchr(dir, '/');
	size_t cap = 0;

	if (slash)
		*slash = '\0';
	else
		snprintf(dir, 2, ".");
	if (!f) {
		free(dir);
		return -1;
	}
	char *abs = realpath(dir, NULL);
	snprintf(rep->dir, sizeof(rep->dir), "%s", abs ? abs : dir);
	free(abs);
	rep->nnodes = nnodes < SCENARIO_MAX_NODES ? nnodes : SCENARIO_MAX_NODES;
	rep->nsteps = 0;
	for (int i = 0; i < rep->nnodes; i++) {
		struct report_node *rn = &rep->nodes[i];
		memset(rn, 0, sizeof(*rn));
		snprintf(rn->name, sizeof(rn->name), "n%d", (i + 1) % 100);
		snprintf(rn->role, sizeof(rn->role), "client");
		snprintf(rn->console, sizeof(rn->console), "console-n%d.log", (i + 1) % 100);
	}
	while (getline(&line, &cap, f) > 0) {
		json_t *o = json_loads(line, 0, NULL);
		if (o)
			load_event(rep, o, dir);
		json_decref(o);
	}
	free(line);
	free(dir);
	fclose(f);
	return 0;
}

void report_release(struct run_report *rep)
{
	forensics_release(&rep->loaded_fx);
	rep->fx = NULL;
	json_decref(rep->cluster_up);
	rep->cluster_up = NULL;
	json_decref(rep->kernel);
	rep->kernel = NULL;
	for (int i = 0; i < rep->nnodes; i++) {
		json_decref(rep->nodes[i].localio);
		rep->nodes[i].localio = NULL;
	}
}

/* When the run's last recorded step ended (epoch ms; 0 when not recorded): the verdict's checks start there. */
static uint64_t steps_end_ms(const struct run_report *rep)
{
	uint64_t end = 0;

	for (int i = 0; i < rep->nsteps; i++) {
		const struct report_step *s = &rep->steps[i];
		uint64_t e = s->started_ms ? s->started_ms + (uint64_t)(s->seconds * 1000.0) : 0;
		end = e > end ? e : end;
	}
	return end;
}

/* Whether the scenario's memory pressure held: a check of its own, judged on every run that had pressure. */
static void add_pressure_step(struct run_report *rep, const struct verdict *v)
{
	const struct pressure_result *pr = &v->pr;
	struct report_step *s;

	if (rep->nsteps >= REPORT_MAX_STEPS)
		return;
	s = &rep->steps[rep->nsteps];
	memset(s, 0, sizeof(*s));
	s->started_ms = steps_end_ms(rep);
	rep->nsteps++;
	snprintf(s->name, sizeof(s->name), "pressure-held");
	if (!pr->judged)
		return;
	s->ran = true;
	s->ok = pr->ok;
	if (v->cls == VERDICT_ERROR_PRESSURE_LOST)
		snprintf(s->message, sizeof(s->message), "%s", v->reason);
	else
		snprintf(s->message, sizeof(s->message),
			 "memory pressure on %s held %.0f%% of the judged window (min_held %u%%)",
			 pr->nodes[pr->worst].node, pr->nodes[pr->worst].held * 100.0, rep->sc->pressure.min_held);
}

void report_add_verdict_steps(struct run_report *rep)
{
	static const struct {
		const char *name;
		enum verdict_class fails_on;
		const char *ok;
	} checks[] = {
		{ "no-split-brain", VERDICT_FAIL_SPLIT_BRAIN,
		  "the floating IP and the shared file system on one node at every audit" },
		{ "kernel-clean", VERDICT_FAIL_KERNEL, "no oops, BUG, panic or lockdep report on a surviving node" },
		{ "takeover", VERDICT_FAIL_TAKEOVER_TIMEOUT, "group moved and loop-back writes resumed in time" },
		{ "no-stall", VERDICT_FAIL_STALL, "no progress gap longer than max_stall" },
		{ "no-livelock", VERDICT_FAIL_LIVELOCK, "progress at or above min_rate" },
	};
	const struct verdict *v = rep->v;
	/* Once a check failed (or data was lost, or the run broke), later ones were not judged. */
	bool decided = v->cls == VERDICT_ERROR;
	/* Judged on what the run recorded until its last step ended. */
	uint64_t t_ms = steps_end_ms(rep);

	for (size_t i = 0; i < sizeof(checks) / sizeof(checks[0]) && rep->nsteps < REPORT_MAX_STEPS; i++) {
		struct report_step *s = &rep->steps[rep->nsteps++];
		memset(s, 0, sizeof(*s));
		snprintf(s->name, sizeof(s->name), "%s", checks[i].name);
		s->started_ms = t_ms;
		if (decided)
			continue;
		s->ran = true;
		s->ok = v->cls != checks[i].fails_on;
		snprintf(s->message, sizeof(s->message), "%s", s->ok ? checks[i].ok : v->reason);
		decided = !s->ok || (v->cls == VERDICT_FAIL_DATA_LOSS && i == 1);
	}
	add_pressure_step(rep, v);
}

int report_write_all(const struct run_report *r, const char *dir)
{
	static const struct {
		const char *key; /* report_files[]'s; the plot names its own files */
		int (*write)(const struct run_report *r, const char *path);
	} files[] = {
		{ NULL, report_json },
		{ "junit", report_junit },
		{ "kcidb", report_kcidb },
		{ "html", report_html }, /* last: it links the others */
	};
	/* The plot first: index.html links what is there. */
	int first = report_plot(r, dir);

	if (first < 0)
		log_error("%s: the progress plot: %s", dir, strerror(-first));
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		char *p = xasprintf("%s/%s", dir, report_file_name(files[i].key));
		int ret = files[i].write(r, p);
		if (ret < 0) {
			log_error("%s: %s", p, strerror(-ret));
			first = first ?: ret;
		}
		free(p);
	}
	return first;
}
