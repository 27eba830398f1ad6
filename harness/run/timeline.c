// SPDX-License-Identifier: GPL-2.0-only
#include "run/timeline.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cluster/crm.h"
#include "util/cleanup.h"
#include "util/xalloc.h"
#include "util/spawn.h"
#include "util/strbuf.h"

int timeline_open(struct timeline *tl, const char *path, uint64_t t0)
{
	tl->f = fopen(path, "ae");
	tl->t0 = t0;
	return tl->f ? 0 : -errno;
}

void timeline_close(struct timeline *tl)
{
	if (tl->f)
		fclose(tl->f);
	tl->f = NULL;
}

uint64_t timeline_now(const struct timeline *tl)
{
	return now_ms() - tl->t0;
}

void timeline_event(struct timeline *tl, const char *ev, const char *node, json_t *fields)
{
	json_t *o = json_object();
	char *text;

	json_object_set_new(o, "t", json_integer((json_int_t)timeline_now(tl)));
	json_object_set_new(o, "ev", json_string(ev));
	if (node)
		json_object_set_new(o, "node", json_string(node));
	if (fields) {
		/* "t" is the host's clock: a guest's own "t=MS" (hello) must not replace it. */
		json_object_update_missing(o, fields);
		json_decref(fields);
	}
	text = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);
	if (text && tl->f) {
		fputs(text, tl->f);
		fputc('\n', tl->f);
		fflush(tl->f);
	}
	free(text);
	json_decref(o);
}

/* ---- reading it back ---- */

static const char *jstr(const json_t *o, const char *k)
{
	const char *s = json_string_value(json_object_get(o, k));

	return s ? s : "";
}

static uint64_t jint(const json_t *o, const char *k)
{
	json_int_t v = json_integer_value(json_object_get(o, k));

	return v > 0 ? (uint64_t)v : 0;
}

static void copy(char *dst, size_t len, const char *src)
{
	snprintf(dst, len, "%s", src);
}

static bool in_array(const json_t *a, const char *s)
{
	size_t i;
	json_t *v;

	json_array_foreach(a, i, v)
		if (json_string_value(v) && !strcmp(json_string_value(v), s))
			return true;
	return false;
}

static void load_crm(const json_t *o, uint64_t t, struct verdict_input *in)
{
	struct vcrm *c = verdict_add_crm(in);
	const json_t *m = json_object_get(o, "members");
	const char *tk = in->takeover;

	c->t = t;
	c->group_started = json_is_true(json_object_get(o, "group_started"));
	copy(c->group_node, sizeof(c->group_node), jstr(o, "group_node"));
	c->victim_online = !in->victim[0] || in_array(json_object_get(o, "online"), in->victim);
	c->fenced = in->victim[0] && in_array(json_object_get(o, "fenced"), in->victim);
	c->fence_failed = in->victim[0] && in_array(json_object_get(o, "fence_failed"), in->victim);
	c->takeover_fenced = tk[0] && in_array(json_object_get(o, "fenced"), tk);
	copy(c->failure, sizeof(c->failure), jstr(o, "first_failure"));
	c->fs = !strcmp(json_string_value(json_array_get(m, CRM_FS)) ?: "", tk);
	c->nfsd = !strcmp(json_string_value(json_array_get(m, CRM_NFSD)) ?: "", tk);
	c->export_ = !strcmp(json_string_value(json_array_get(m, CRM_EXPORT)) ?: "", tk);
	c->ip = !strcmp(json_string_value(json_array_get(m, CRM_VIP)) ?: "", tk);
}

/* The console's account of an OOM kill: whom it killed ("OOM kill: takeover-hog"). */
static void load_oom_title(const json_t *o, struct verdict_input *in)
{
	struct vmemseries *m = verdict_mem_series(in, jstr(o, "node"));
	const char *title = jstr(o, "title");

	if (m && !m->oom_victim[0] && !strncmp(title, "OOM kill: ", 10))
		copy(m->oom_victim, sizeof(m->oom_victim), title + 10);
}

static void load_kernel(const json_t *o, uint64_t t, struct verdict_input *in)
{
	if (!strcmp(jstr(o, "class"), "oom-kill"))
		load_oom_title(o, in);
	if (strcmp(jstr(o, "severity"), "fatal") || in->nkernel == VERDICT_MAX_KERNEL)
		return;
	in->kernel[in->nkernel].t = t;
	copy(in->kernel[in->nkernel].node, sizeof(in->kernel[0].node), jstr(o, "node"));
	copy(in->kernel[in->nkernel].cls, sizeof(in->kernel[0].cls), jstr(o, "class"));
	copy(in->kernel[in->nkernel].title, sizeof(in->kernel[0].title), jstr(o, "title"));
	in->nkernel++;
}

static void load_verify(const json_t *o, struct verdict_input *in)
{
	if (in->nverify == SCENARIO_MAX_NODES)
		return;
	int i = in->nverify++;
	copy(in->verify[i].node, sizeof(in->verify[i].node), jstr(o, "node"));
	in->verify[i].ran = json_is_true(json_object_get(o, "ran"));
	in->verify[i].acked = jint(o, "acked");
	in->verify[i].missing = jint(o, "missing");
	in->verify[i].corrupt = jint(o, "corrupt");
	copy(in->verify[i].detail, sizeof(in->verify[i].detail), jstr(o, "detail"));
}

/* pressure-start and pressure-restart (OOM kills are counted from the samples: load_sample). */
static void load_pressure(const json_t *o, const char *ev, uint64_t t, struct verdict_input *in)
{
	struct vmemseries *m = verdict_mem_series(in, jstr(o, "node"));

	if (!m)
		return;
	if (!strcmp(ev, "pressure-start") && !m->pressured) {
		m->pressured = true;
		m->t_start = t;
	} else if (!strcmp(ev, "pressure-restart")) {
		m->restarts++;
	}
}

static void load_sample(const json_t *o, uint64_t t, struct verdict_input *in)
{
	struct vmemseries *m;
	uint64_t kills;

	if (!json_is_integer(json_object_get(o, "memavail")))
		return;
	m = verdict_add_mem(in, jstr(o, "node"), t, jint(o, "memavail"), jint(o, "memtotal"));
	if (!m || !json_is_integer(json_object_get(o, "oom_kill")))
		return;
	kills = oom_counter_add(&m->oom, jint(o, "oom_kill"));
	if (!kills || !m->pressured)
		return;
	m->oom_kills += (int)kills;
	if (!m->t_first_oom)
		m->t_first_oom = t;
}

/* An audit's list of node names: how many, and "n1, n2". */
static void load_holders(const json_t *list, int *n, char *names, size_t len)
{
	struct strbuf sb = STRBUF_INIT;
	size_t i;
	json_t *v;

	*n = (int)json_array_size(list);
	json_array_foreach(list, i, v)
		strbuf_addf(&sb, "%s%s", i ? ", " : "", json_string_value(v) ? json_string_value(v) : "?");
	copy(names, len, sb.buf);
	strbuf_release(&sb);
}

static void load_event(const json_t *o, struct verdict_input *in)
{
	const char *ev = jstr(o, "ev");
	uint64_t t = jint(o, "t");

	if (t > in->t_end)
		in->t_end = t;
	if (!strcmp(ev, "progress") && !strcmp(jstr(o, "kind"), "writer")) {
		verdict_add_sample(in, jstr(o, "node"), t, jint(o, "acked_bytes"));
	} else if (!strcmp(ev, "sample")) {
		load_sample(o, t, in);
	} else if (!strcmp(ev, "pressure-start") || !strcmp(ev, "pressure-restart")) {
		load_pressure(o, ev, t, in);
	} else if (!strcmp(ev, "fault")) {
		/* Repeated faults: the verdict is about the last one. */
		in->fault_fired = true;
		in->t_fault = t;
		copy(in->victim, sizeof(in->victim), jstr(o, "node"));
		copy(in->takeover, sizeof(in->takeover), jstr(o, "takeover"));
		/* Recordings before failback judged the takeover node. */
		copy(in->judged, sizeof(in->judged), *jstr(o, "judged") ? jstr(o, "judged") : in->takeover);
		in->victim_survives = json_is_true(json_object_get(o, "victim_survives"));
		in->group_stays = json_is_true(json_object_get(o, "group_stays"));
		in->group_restarts = json_is_true(json_object_get(o, "group_restarts"));
	} else if (!strcmp(ev, "crm")) {
		load_crm(o, t, in);
	} else if (!strcmp(ev, "kernel")) {
		load_kernel(o, t, in);
	} else if (!strcmp(ev, "verify")) {
		load_verify(o, in);
	} else if (!strcmp(ev, "daemon-error") && in->ndaemon_err < VERDICT_MAX_KERNEL) {
		int i = in->ndaemon_err++;
		in->daemon_err[i].t = jint(o, "at");
		copy(in->daemon_err[i].node, sizeof(in->daemon_err[i].node), jstr(o, "node"));
		snprintf(in->daemon_err[i].text, sizeof(in->daemon_err[i].text), "%s: %s", jstr(o, "source"),
			 jstr(o, "text"));
	} else if (!strcmp(ev, "error") && !in->infra_error[0]) {
		copy(in->infra_error, sizeof(in->infra_error), jstr(o, "msg"));
	} else if (!strcmp(ev, "audit") && in->naudit < (int)(sizeof(in->audit) / sizeof(in->audit[0]))) {
		copy(in->audit[in->naudit].when, sizeof(in->audit[0].when), jstr(o, "when"));
		copy(in->audit[in->naudit].problems, sizeof(in->audit[0].problems), jstr(o, "problems"));
		load_holders(json_object_get(o, "ip_holders"), &in->audit[in->naudit].nip,
			     in->audit[in->naudit].ip_holders, sizeof(in->audit[0].ip_holders));
		load_holders(json_object_get(o, "fs_mounted"), &in->audit[in->naudit].nfs,
			     in->audit[in->naudit].fs_holders, sizeof(in->audit[0].fs_holders));
		in->naudit++;
	} else if (!strcmp(ev, "teardown")) {
		in->teardown_failed = json_is_false(json_object_get(o, "ok"));
	} else if (!strcmp(ev, "agent-restart") && !in->infra_error[0]) {
		/* The harness lost the node's workloads; the kernel is not to blame. */
		snprintf(in->infra_error, sizeof(in->infra_error),
			 "the guest agent on %s restarted %.1fs into the run without a reboot, and its workloads with it",
			 jstr(o, "node"), (double)t / 1000.0);
	}
}

int timeline_load(const char *path, const struct scenario *sc, struct verdict_input *in,
		  int *bad_lines)
{
	_cleanup_fclose_ FILE *f = fopen(path, "re");
	_cleanup_free_ char *line = NULL;
	size_t cap = 0;

	*bad_lines = 0;
	verdict_input_init(in, sc);
	if (!f)
		return -errno;
	while (getline(&line, &cap, f) > 0) {
		json_error_t err;
		json_t *o = json_loads(line, 0, &err);
		if (!json_is_object(o)) {
			(*bad_lines)++;
			json_decref(o);
			continue;
		}
		load_event(o, in);
		json_decref(o);
	}
	return 0;
}
