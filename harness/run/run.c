// SPDX-License-Identifier: GPL-2.0-only
/*
 * The failover scenario, step by step. Each step either succeeds, or records
 * an infrastructure error (ERROR, exit 125) and skips the rest; the kernel is
 * judged only by the verdict, from the timeline, at the end.
 */
#include "run/run.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "util/exitcode.h"
#include "image/kernel.h"
#include "run/faults/faults.h"
#include "util/paths.h"
#include "proto.h"
#include "util/cancel.h"
#include "util/fs.h"
#include "util/log.h"
#include "util/spawn.h"
#include "util/units.h"
#include "util/xalloc.h"

#define FIRST_PROGRESS_DEADLINE_MS (120 * 1000)
#define STOP_DEADLINE_MS (20 * 1000)
#define VERIFY_TIMEOUT_MS (300 * 1000)
#define VERIFY_HUNG_TIMEOUT_MS (90 * 1000)
/* After the observe window, how long past takeover_timeout we still wait for a resume. */
#define WAIT_MARGIN_MS 2000

struct step_clock {
	struct run_report *rep;
	uint64_t start;
};

static struct report_step *step_begin(struct run_report *rep, const char *name, struct step_clock *sc)
{
	struct report_step *s = &rep->steps[rep->nsteps < REPORT_MAX_STEPS ? rep->nsteps++ : rep->nsteps - 1];

	memset(s, 0, sizeof(*s));
	snprintf(s->name, sizeof(s->name), "%s", name);
	sc->rep = rep;
	sc->start = now_ms();
	s->started_ms = wall_ms();
	return s;
}

static void step_end(struct report_step *s, const struct step_clock *sc, bool ok, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void step_end(struct report_step *s, const struct step_clock *sc, bool ok, const char *fmt, ...)
{
	va_list ap;

	s->ran = true;
	s->ok = ok;
	s->seconds = (double)(now_ms() - sc->start) / 1000.0;
	va_start(ap, fmt);
	vsnprintf(s->message, sizeof(s->message), fmt, ap);
	va_end(ap);
}

/* The first infrastructure error wins; it makes the verdict ERROR. */
static int infra_error(struct run *r, int err, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static int infra_error(struct run *r, int err, const char *fmt, ...)
{
	va_list ap;
	char msg[256];

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (!r->error[0]) {
		snprintf(r->error, sizeof(r->error), "%s", msg);
		if (r->tl.f) {
			json_t *f = json_object();
			json_object_set_new(f, "msg", json_string(msg));
			timeline_event(&r->tl, "error", NULL, f);
		}
		log_error("%s", msg);
	}
	return err < 0 ? err : -EIO;
}

/* ---- workloads ---- */

/* monitor_until()'s result for a wait that may end at its deadline: 0, or the infrastructure error. */
static int loop_error(struct run *r, int ret)
{
	if (ret >= 0 || ret == -ETIMEDOUT)
		return 0;
	return ret == -EINTR ? infra_error(r, ret, "interrupted")
			     : infra_error(r, ret, "the monitor loop failed: %s", strerror(-ret));
}

static int spawn_workload(struct run *r, int node, const char *name, const char *const *argv)
{
	struct strbuf l = STRBUF_INIT;
	int ret;

	strbuf_addstr(&l, "spawn ");
	proto_encode(&l, name, strlen(name));
	for (int i = 0; argv[i]; i++) {
		strbuf_addch(&l, ' ');
		proto_encode(&l, argv[i], strlen(argv[i]));
	}
	ret = channel_send(&r->c.nodes[node - 1].ch, l.buf);
	strbuf_release(&l);
	return ret;
}

static int start_writers(struct run *r)
{
	const struct scenario *sc = r->sc;
	char fsz[32], rsz[32], every[32];

	format_size(sc->workload.file_size, fsz, sizeof(fsz));
	format_size(sc->workload.record_size, rsz, sizeof(rsz));
	snprintf(every, sizeof(every), "%d", sc->workload.fsync_every);
	for (int i = 0; i < r->c.n; i++) {
		struct node *nd = &r->c.nodes[i];
		if (!r->nodes[i].writer)
			continue;
		char *file = xasprintf(NFS_MOUNT_DIR "/writer-%s.dat", nd->name);
		const char *argv[] = { "takeover-writer", "--name", nd->name, "--file", file,
				       "--file-size", fsz, "--record-size", rsz, "--fsync-every", every,
				       "--mode", write_mode_name(sc->workload.mode), NULL };
		int ret = spawn_workload(r, nd->id, "writer", argv);
		free(file);
		if (ret < 0)
			return infra_error(r, ret, "%s: cannot start the writer: %s", nd->name, strerror(-ret));
		r->nodes[i].writer_running = true;
		timeline_event(&r->tl, "writer-start", nd->name, NULL);
	}
	return 0;
}

/*
 * The memory hog on node index i. Also the restart after the OOM killer
 * removed it (monitor.c): the scenario's pressure must hold through the
 * takeover and the observe window, not only until the kernel first objects.
 */
int run_start_hog(struct run *r, int i)
{
	char avail[32], ramp[32];
	const struct memtarget *t = &r->sc->pressure.available;
	struct run_node *rn = &r->nodes[i];
	int ret;

	if (t->is_percent)
		snprintf(avail, sizeof(avail), "%u%%", t->percent);
	else
		format_size(t->bytes, avail, sizeof(avail));
	snprintf(ramp, sizeof(ramp), "%llu", (unsigned long long)r->sc->pressure.ramp);
	const char *argv[] = { "takeover-hog", "--available", avail, "--ramp", ramp, NULL };
	ret = spawn_workload(r, i + 1, "hog", argv);
	if (ret < 0)
		return ret;
	rn->hog_running = true;
	rn->hog_restart_t = 0;
	if (rn->hog_starts++) {
		json_t *f = json_object();
		json_object_set_new(f, "restart", json_integer(rn->hog_starts - 1));
		timeline_event(&r->tl, "pressure-restart", r->c.nodes[i].name, f);
		log_info("%s: memory hog restarted (%d so far)", r->c.nodes[i].name, rn->hog_starts - 1);
	} else {
		timeline_event(&r->tl, "pressure-start", r->c.nodes[i].name, NULL);
	}
	return 0;
}

static int start_hogs(struct run *r)
{
	for (int i = 0; i < r->c.n; i++) {
		if (!r->nodes[i].hog || r->nodes[i].hog_running || i + 1 == r->dead)
			continue;
		int ret = run_start_hog(r, i);
		if (ret < 0)
			return infra_error(r, ret, "%s: cannot start the memory hog", r->c.nodes[i].name);
	}
	r->pressure_on = true;
	return 0;
}

static bool workloads_stopped(struct run *r, void *arg)
{
	(void)arg;
	for (int i = 0; i < r->c.n; i++)
		if (i + 1 != r->dead && r->c.nodes[i].ch.fd >= 0 &&
		    (r->nodes[i].hog_running || r->nodes[i].writer_running))
			return false;
	return true;
}

static void stop_workloads(struct run *r)
{
	r->pressure_on = false; /* a hog that exits from now on is not restarted */
	for (int pass = 0; pass < 2; pass++) {
		for (int i = 0; i < r->c.n; i++) {
			struct channel *ch = &r->c.nodes[i].ch;
			if (i + 1 == r->dead || ch->fd < 0)
				continue;
			/* The hog first: writers blocked in reclaim need the memory back to finish. */
			if (r->nodes[i].hog_running)
				channel_send(ch, pass ? "stop hog kill" : "stop hog");
			if (r->nodes[i].writer_running)
				channel_send(ch, pass ? "stop writer kill" : "stop writer");
		}
		if (!pass)
			monitor_until(r, timeline_now(&r->tl) + STOP_DEADLINE_MS / 2, workloads_stopped, NULL);
	}
	timeline_event(&r->tl, "workloads-stopped", NULL, NULL);
}

/* ---- the steps ---- */

static bool all_writers_progressed(struct run *r, void *arg)
{
	(void)arg;
	for (int i = 0; i < r->c.n; i++)
		if (r->nodes[i].writer && !r->nodes[i].first_progress_t)
			return false;
	return true;
}

static int steady_state(struct run *r, uint64_t *t_steady)
{
	uint64_t base[SCENARIO_MAX_NODES];
	int ret = monitor_until(r, timeline_now(&r->tl) + FIRST_PROGRESS_DEADLINE_MS,
				all_writers_progressed, NULL);

	if (ret < 0)
		return infra_error(r, ret, "not every writer made progress within %ds of starting%s",
				   FIRST_PROGRESS_DEADLINE_MS / 1000,
				   ret == -EINTR ? " (interrupted)" : "");
	*t_steady = timeline_now(&r->tl);
	timeline_event(&r->tl, "steady-start", NULL, NULL);
	for (int i = 0; i < r->c.n; i++)
		base[i] = r->nodes[i].acked_bytes;
	ret = monitor_until(r, *t_steady + r->sc->verdict.steady_time, NULL, NULL);
	if ((ret = loop_error(r, ret)) < 0)
		return ret;
	for (int i = 0; i < r->c.n; i++)
		if (r->nodes[i].writer && r->nodes[i].acked_bytes == base[i])
			return infra_error(r, -EIO, "%s made no progress during the steady-state window "
					   "(before any fault): the cluster is not healthy",
					   r->c.nodes[i].name);
	return 0;
}

/*
 * Victim: the group's node (or the named target). Takeover: the first other
 * node. Judged: the takeover node, or the victim when the fault leaves it up
 * (failback: it goes from server to client).
 */
static int choose_roles(struct run *r)
{
	struct crm_status st;
	int ret = cluster_crm_status(&r->c, 1, &st);
	const char *gn;

	if (ret < 0 || !st.group_started)
		return infra_error(r, ret, "cannot tell where the NFS group runs before the fault");
	gn = st.group_node;
	struct node *g = cluster_node_by_name(&r->c, gn);
	if (!g)
		return infra_error(r, -EIO, "the NFS group runs on an unknown node '%s'", gn);
	const struct fault *flt = fault_for(r->sc->fault.kind);
	r->victim = r->sc->fault.target == TARGET_NFS_SERVER ? g->id : r->sc->fault.target;
	r->group_moves = r->victim == g->id && !flt->group_stays;
	r->group_restarts = flt->group_restarts;
	if (!r->group_moves) {
		r->takeover = g->id; /* the group does not move: its node must just keep going */
	} else {
		for (int i = 0; i < r->c.n && !r->takeover; i++)
			if (i + 1 != r->victim)
				r->takeover = i + 1;
	}
	bool survives = flt->server_to_client || flt->group_stays;
	r->judged = survives ? r->victim : r->takeover;
	r->dead = survives ? 0 : r->victim;
	json_t *f = json_object();
	json_object_set_new(f, "victim", json_string(r->c.nodes[r->victim - 1].name));
	json_object_set_new(f, "takeover", json_string(r->c.nodes[r->takeover - 1].name));
	json_object_set_new(f, "judged", json_string(r->c.nodes[r->judged - 1].name));
	json_object_set_new(f, "group_node", json_string(gn));
	timeline_event(&r->tl, "roles", NULL, f);
	return 0;
}

/* Make Pacemaker's choice of takeover node the one we squeezed: a location preference
 * lower than the resource stickiness (100), so the group stays put until the fault. */
static int prefer_takeover_node(struct run *r)
{
	const char *argv[CRM_LOCATION_ARGC];
	struct strbuf out = STRBUF_INIT;
	int rc, ret;

	if (!r->group_moves)
		return 0;
	crm_location_argv(argv, "takeover_pref", r->c.nodes[r->takeover - 1].name, "50");
	ret = monitor_exec(r, r->takeover, argv, 60000, &out, &rc);
	if (!ret && rc) {
		strbuf_rtrim(&out);
		ret = infra_error(r, -EIO, "crm location constraint failed: %s", out.buf);
	} else if (ret < 0) {
		ret = infra_error(r, ret, "crm location constraint: %s", strerror(-ret));
	}
	strbuf_release(&out);
	crm_location_argv_free(argv);
	return ret;
}

static void assign_workloads(struct run *r)
{
	const struct scenario *sc = r->sc;

	for (int i = 0; i < r->c.n; i++) {
		int id = i + 1;
		r->nodes[i].writer = sc->workload.writers.kind == NODESET_TAKEOVER
					     ? id == r->judged
					     : nodeset_has(&sc->workload.writers, id);
		r->nodes[i].hog = sc->pressure.nodes.kind == NODESET_TAKEOVER
					  ? id == r->judged
					  : nodeset_has(&sc->pressure.nodes, id);
	}
}

/* Resumed, then no acknowledged write for longer than max_stall: time for evidence. */
static bool stalled(struct run *r)
{
	const struct run_node *tk = &r->nodes[r->judged - 1];

	return r->t_resume && !r->fx.captured &&
	       timeline_now(&r->tl) - tk->last_ack_t > r->sc->verdict.max_stall;
}

/* Never resumed within takeover_timeout: the same, before anything is torn down. */
static bool timed_out(struct run *r)
{
	return !r->t_resume && !r->fx.captured &&
	       timeline_now(&r->tl) >= r->t_fault + r->sc->verdict.takeover_timeout;
}

/*
 * nfsd runs on the takeover node (its own mount is a loop-back one now), its
 * loop-back writer has not resumed nor acknowledged anything for
 * MEMORY_STUCK_QUIET (or max_stall, if shorter) since nfsd started there,
 * and the node's tasks wait for memory (PSI
 * "full" avg10 >= MEMORY_STUCK_FULL % or "some" >= MEMORY_STUCK_SOME %): it
 * is stuck in reclaim. Take the evidence now: a node in that state soon
 * fails a resource operation or stops answering corosync, and the cluster
 * fences (reboots) it before takeover_timeout, taking the stacks with it.
 * The known-bad kernel's stuck nodes showed full 25-70 %, some 99-100 %.
 * Stock kernels can reach that too and then recover (full 29-55 %, some
 * 70-95 % on loopback-deadlock.ini): the capture is only evidence, taken
 * once; the verdict still waits for takeover_timeout.
 */
#define MEMORY_STUCK_FULL 25.0
#define MEMORY_STUCK_SOME 90.0
#define MEMORY_STUCK_QUIET 30000 /* ms; fixed, so a lenient max_stall does not delay it */

static bool memory_stuck(struct run *r)
{
	const struct run_node *tk = &r->nodes[r->judged - 1];
	uint64_t now = timeline_now(&r->tl);
	uint64_t since = tk->last_ack_t > r->t_nfsd_takeover ? tk->last_ack_t : r->t_nfsd_takeover;
	uint64_t quiet = r->sc->verdict.max_stall < MEMORY_STUCK_QUIET ? r->sc->verdict.max_stall
									: MEMORY_STUCK_QUIET;

	return r->t_nfsd_takeover && !r->t_resume && !r->fx.captured &&
	       (tk->psi_full >= MEMORY_STUCK_FULL || tk->psi_some >= MEMORY_STUCK_SOME) &&
	       now - since > quiet;
}

/* Something for inject_and_observe() to do now, or the observation is over. */
static bool observe_done(struct run *r, void *arg)
{
	(void)arg;
	uint64_t now = timeline_now(&r->tl);
	const struct fault *f = fault_for(r->sc->fault.kind);

	if (r->t_resume && f->after_resume && !r->after_resume_done &&
	    now >= r->t_resume + r->sc->fault.block_after)
		return true;
	if (f->lift && !r->lifted && now >= r->t_fault + r->sc->fault.duration)
		return true;
	if (r->t_resume && r->sc->pressure.start == PRESSURE_AFTER && !r->pressure_after_done)
		return true;
	if (stalled(r) || timed_out(r) || memory_stuck(r))
		return true;
	if (r->t_resume)
		return now >= r->t_resume + r->sc->verdict.observe + WAIT_MARGIN_MS;
	return now >= r->t_fault + r->sc->verdict.takeover_timeout + WAIT_MARGIN_MS;
}

static int inject_and_observe(struct run *r, struct fault_ctx *fc)
{
	const struct fault *f = fault_for(r->sc->fault.kind);
	const char *kind = fault_kind_name(r->sc->fault.kind);
	json_t *fj = json_object();
	int ret;

	localio_mark_fault(r);
	if (r->crm_have)
		r->fenced_at_fault = r->crm_last;
	r->t_fault = timeline_now(&r->tl);
	r->fault_fired = true;
	json_object_set_new(fj, "kind", json_string(kind));
	json_object_set_new(fj, "takeover", json_string(fc->takeover->name));
	json_object_set_new(fj, "judged", json_string(r->c.nodes[r->judged - 1].name));
	json_object_set_new(fj, "victim_survives", json_boolean(!r->dead));
	json_object_set_new(fj, "group_stays", json_boolean(f->group_stays));
	json_object_set_new(fj, "group_restarts", json_boolean(f->group_restarts));
	timeline_event(&r->tl, "fault", fc->victim->name, fj);
	log_info("fault: %s %s (takeover node %s)", kind, fc->victim->name, fc->takeover->name);
	ret = f->inject(fc);
	if (ret < 0)
		return infra_error(r, ret, "the fault could not be injected");
	if (r->dead && !f->cut_off)
		channel_close(&fc->victim->ch);
	for (;;) {
		ret = monitor_until(r, UINT64_MAX, observe_done, NULL);
		if ((ret = loop_error(r, ret)) < 0)
			return ret;
		if (r->t_resume && r->sc->pressure.start == PRESSURE_AFTER && !r->pressure_after_done) {
			r->pressure_after_done = true;
			if ((ret = start_hogs(r)) < 0)
				return ret;
			continue;
		}
		bool stall = stalled(r), stuck = memory_stuck(r);
		if (stall || stuck || timed_out(r)) {
			const struct run_node *tk = &r->nodes[r->judged - 1];
			uint64_t now = timeline_now(&r->tl);
			char why[128];
			if (stuck)
				snprintf(why, sizeof(why), "stuck in memory reclaim (PSI some %.0f%%, full %.0f%%) %llus after nfsd started there",
					 tk->psi_some, tk->psi_full, (unsigned long long)((now - r->t_nfsd_takeover) / 1000));
			else
				snprintf(why, sizeof(why), "%s for %llus", stall ? "no loop-back progress" : "no takeover",
					 (unsigned long long)((now - (stall ? tk->last_ack_t : r->t_fault)) / 1000));
			evidence_capture(r, r->judged, why);
			continue;
		}
		if (f->lift && !r->lifted && timeline_now(&r->tl) >= r->t_fault + r->sc->fault.duration) {
			r->lifted = true;
			timeline_event(&r->tl, "fault-lifted", fc->victim->name, NULL);
			log_info("fault: %s lifted on %s", kind, fc->victim->name);
			if (f->lift(fc) < 0)
				return infra_error(r, -EIO, "the fault could not be lifted");
			continue;
		}
		if (r->t_resume && f->after_resume && !r->after_resume_done &&
		    timeline_now(&r->tl) >= r->t_resume + r->sc->fault.block_after) {
			r->after_resume_done = true;
			timeline_event(&r->tl, "fault-stage2", fc->takeover->name, NULL);
			log_info("fault: %s second stage on %s", kind, fc->takeover->name);
			if (f->after_resume(fc) < 0)
				return infra_error(r, -EIO, "the fault's second stage failed");
			continue;
		}
		return 0;
	}
}

/*
 * takeover-verify's result, its last line: "verify name=.. slots=.. acked=..
 * checked=.. missing=N corrupt=N [first_bad=..]". 0, or -EINVAL when the
 * output has no such line (the verifier did not finish).
 */
int parse_verify_line(const char *out, uint64_t *missing, uint64_t *corrupt)
{
	const char *last = strrchr(out, '\n');
	char *line = xstrdup(last ? last + 1 : out), *w[PROTO_MAX_WORDS];
	int n = proto_split(line, w, PROTO_MAX_WORDS), r = -EINVAL;
	const char *m = proto_get(w, n, "missing"), *c = proto_get(w, n, "corrupt"), *why;

	if (n > 0 && !strcmp(w[0], "verify") && m && c && parse_uint(m, missing, &why) == 0 &&
	    parse_uint(c, corrupt, &why) == 0)
		r = 0;
	free(line);
	return r;
}

static int verify_one(struct run *r, int via, int node, uint64_t timeout_ms)
{
	struct run_node *rn = &r->nodes[node - 1];
	const char *name = r->c.nodes[node - 1].name;
	char fsz[32], rsz[32], acked[32];
	char *file = xasprintf(NFS_EXPORT_DIR "/writer-%s.dat", name);
	const char *argv[] = { "takeover-verify", "--name", name, "--file", file, "--file-size", fsz,
			       "--record-size", rsz, "--acked", acked, NULL };
	struct strbuf out = STRBUF_INIT;
	json_t *f = json_object();
	int rc, ret;

	format_size(r->sc->workload.file_size, fsz, sizeof(fsz));
	format_size(r->sc->workload.record_size, rsz, sizeof(rsz));
	snprintf(acked, sizeof(acked), "%llu", (unsigned long long)rn->acked_records);
	ret = monitor_exec(r, via, argv, timeout_ms, &out, &rc);
	strbuf_rtrim(&out);
	uint64_t missing = 0, corrupt = 0;
	bool ran = !ret && (rc == 0 || rc == 1) && parse_verify_line(out.buf, &missing, &corrupt) == 0;
	json_object_set_new(f, "ran", json_boolean(ran));
	json_object_set_new(f, "via", json_string(r->c.nodes[via - 1].name));
	json_object_set_new(f, "acked", json_integer((json_int_t)rn->acked_records));
	json_object_set_new(f, "missing", json_integer((json_int_t)missing));
	json_object_set_new(f, "corrupt", json_integer((json_int_t)corrupt));
	json_object_set_new(f, "detail", json_string(ran ? out.buf : ret < 0 ? strerror(-ret) : out.buf));
	timeline_event(&r->tl, "verify", name, f);
	strbuf_release(&out);
	free(file);
	return ran ? (rc ? 1 : 0) : -1;
}

/*
 * The node serving the NFS group now: the verifier reads the surviving
 * server's copy of every file there, from the shared disk itself (O_DIRECT),
 * not through a client over NFS (three 256 MiB files through NFS under TCG
 * took ~60 s). 0 when no node with a live agent runs the group.
 */
static int verifier_node(struct run *r)
{
	const struct node *nd = cluster_node_by_name(&r->c, r->crm_last.group_node);

	return nd && nd->ch.fd >= 0 ? nd->id : 0;
}

static int verify_all(struct run *r, struct report_step *s, struct step_clock *clk)
{
	int via = 0, bad = 0, skipped = 0;

	/* With the group stopped, or still on the dead victim, there is no copy to read. */
	if (r->crm_have && r->crm_last.group_started &&
	    (!r->dead || strcmp(r->crm_last.group_node, r->c.nodes[r->dead - 1].name)))
		via = verifier_node(r);
	if (!via) {
		for (int i = 0; i < r->c.n; i++) {
			if (!r->nodes[i].writer)
				continue;
			json_t *f = json_object();
			json_object_set_new(f, "ran", json_false());
			json_object_set_new(f, "acked", json_integer((json_int_t)r->nodes[i].acked_records));
			json_object_set_new(f, "detail", json_string("no NFS server was running after the fault"));
			timeline_event(&r->tl, "verify", r->c.nodes[i].name, f);
		}
		step_end(s, clk, false, "not run: no NFS server was running after the fault");
		return 0;
	}

	/* When the takeover node never resumed, its server may be hung: give
	 * the reads less time, and stop at the first file that cannot be read. */
	uint64_t limit = r->t_resume ? VERIFY_TIMEOUT_MS : VERIFY_HUNG_TIMEOUT_MS;
	for (int i = 0; i < r->c.n && !skipped; i++) {
		if (!r->nodes[i].writer)
			continue;
		int v = verify_one(r, via, i + 1, limit);
		bad += v == 1;
		skipped += v < 0;
	}
	step_end(s, clk, !bad && !skipped, bad ? "acknowledged records missing or corrupt"
					   : skipped ? "verification could not run on every file"
						     : "every acknowledged record intact");
	return 0;
}

/* ---- the whole run ---- */

/* The verdict on the timeline at path, as `takeover report` gives it. */
static void judge(const char *path, const struct scenario *sc, struct verdict_input *in, struct verdict *v)
{
	int bad, ret = timeline_load(path, sc, in, &bad);

	if (ret < 0)
		snprintf(in->infra_error, sizeof(in->infra_error), "cannot read the timeline: %s", strerror(-ret));
	verdict_judge(in, v);
}

/* A step as a timeline event: the report is built from the timeline. */
static void record_step(struct run *r, const struct report_step *s)
{
	json_t *f = json_object();

	json_object_set_new(f, "name", json_string(s->name));
	json_object_set_new(f, "ran", json_boolean(s->ran));
	json_object_set_new(f, "ok", json_boolean(s->ok));
	json_object_set_new(f, "seconds", json_real(s->seconds));
	json_object_set_new(f, "message", json_string(s->message));
	json_object_set_new(f, "started_ms", json_integer((json_int_t)s->started_ms));
	timeline_event(&r->tl, "step", NULL, f);
}

static int make_run_dir(struct run *r)
{
	char stamp[32];
	time_t t = time(NULL);
	const char *root = r->o.results_root;
	char *def = NULL;

	strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", localtime(&t));
	if (!root)
		root = def = xasprintf("%s/results", takeover_datadir());
	snprintf(r->run_id, sizeof(r->run_id), "%s-%s", stamp, r->c.name);
	r->dir = r->o.dir ? xstrdup(r->o.dir) : xasprintf("%s/%s", root, r->run_id);
	free(def);
	return mkdir_p(r->dir, 0755);
}

static void save_scenario(struct run *r)
{
	struct strbuf sb = STRBUF_INIT;
	char *path = xasprintf("%s/scenario.ini", r->dir);

	scenario_write(r->sc, &sb);
	write_file_atomic(path, sb.buf, sb.len, 0644);
	strbuf_release(&sb);
	free(path);
}

static void copy_consoles(struct run *r)
{
	for (int i = 0; i < r->c.n; i++) {
		struct strbuf sb = STRBUF_INIT;
		char *dst = xasprintf("%s/console-%s.log", r->dir, r->c.nodes[i].name);
		if (strbuf_read_file(&sb, r->c.nodes[i].console, 256 << 20) == 0)
			write_file_atomic(dst, sb.buf, sb.len, 0644);
		strbuf_release(&sb);
		free(dst);
	}
}

/*
 * Each surviving node's journals, read at the end. corosync's: when it
 * noticed the dead node, and any late token ("Token has not been received
 * in N ms") before that; a node the cluster fenced while merely slow shows
 * up here and nowhere else (corosync logs to the journal, not to the
 * console). The NFS server's and Pacemaker's (the resource agents' output:
 * why a start or stop failed, nfsdcld's and mountd's complaints). The
 * victim's journal died with it.
 */
#define JOURNAL_TIMEOUT_MS (20 * 1000)

static const struct journal {
	const char *what;   /* for messages */
	const char *prefix; /* file prefix-<node>.log */
	const char *event;  /* the timeline event naming the file */
	bool daemon_errors; /* its NFS daemons' error lines become "daemon-error" events */
	const char *const argv[12];
} journals[] = {
	{ "corosync", "corosync", "corosync-log", false,
	  { "journalctl", "--boot", "--unit=corosync", "--output=short-precise", "--no-pager", NULL } },
	{ "NFS and Pacemaker", "nfs", "nfs-log", true,
	  /* The newest 300 lines: the agent sends at most 64 KiB, and the takeover is at the end. */
	  { "journalctl", "--boot", "--unit=nfs-server", "--unit=nfsdcld", "--unit=nfs-mountd", "--unit=rpc-statd",
	    "--unit=pacemaker", "--lines=300", "--output=short-precise", "--no-pager", NULL } },
};

#define MAX_DAEMON_ERRORS 20

struct daemon_errors {
	struct run *r;
	const char *node;
	uint64_t wall_now, t_now; /* the same moment on both clocks */
	int n;
};

/* One error line as a timeline event, at the timeline time its journal stamp says. */
static void daemon_error(void *ctx, uint64_t epoch_ms, const char *source, const char *text)
{
	struct daemon_errors *d = ctx;
	uint64_t ago = d->wall_now > epoch_ms ? d->wall_now - epoch_ms : 0;
	json_t *f;

	if (d->n++ >= MAX_DAEMON_ERRORS)
		return;
	f = json_object();
	json_object_set_new(f, "at", json_integer((json_int_t)(d->t_now > ago ? d->t_now - ago : 0)));
	json_object_set_new(f, "source", json_string(source));
	json_object_set_new(f, "text", json_string(text));
	timeline_event(&d->r->tl, "daemon-error", d->node, f);
}

static void save_journals(struct run *r)
{
	for (size_t j = 0; j < sizeof(journals) / sizeof(journals[0]); j++) {
		const struct journal *jl = &journals[j];
		struct monitor_job jobs[SCENARIO_MAX_NODES];
		int n = monitor_jobs_answering(r, jobs, false);

		/* All nodes at once: one journal read's wait instead of one per node. */
		monitor_exec_each(r, jobs, n, jl->argv, JOURNAL_TIMEOUT_MS);
		for (int k = 0; k < n; k++) {
			const char *name = r->c.nodes[jobs[k].node - 1].name;
			struct strbuf *out = &jobs[k].out;
			if (jobs[k].ret < 0 || jobs[k].rc) {
				log_warn("%s: could not read its %s journal (%s)", name, jl->what,
					 out->len ? out->buf : "no answer");
				strbuf_release(out);
				continue;
			}
			char *file = xasprintf("%s-%s.log", jl->prefix, name);
			char *dst = xasprintf("%s/%s", r->dir, file);
			if (write_file_atomic(dst, out->buf, out->len, 0644) == 0) {
				json_t *f = json_object();
				json_object_set_new(f, "file", json_string(file));
				timeline_event(&r->tl, jl->event, name, f);
			}
			if (jl->daemon_errors) {
				struct daemon_errors d = { r, name, wall_ms(), timeline_now(&r->tl), 0 };
				journal_daemon_errors(out->buf, d.wall_now, daemon_error, &d);
			}
			free(dst);
			free(file);
			strbuf_release(out);
		}
	}
}

static double cpu_seconds(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
	       (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
}

static int scenario_steps(struct run *r, struct run_report *rep)
{
	struct step_clock clk;
	struct report_step *s;
	uint64_t t_steady = 0;
	struct fault_ctx fc = { .c = &r->c, .sc = r->sc };
	const struct fault *f = fault_for(r->sc->fault.kind);
	int ret;

	s = step_begin(rep, "roles", &clk);
	if ((ret = choose_roles(r)) < 0 || (ret = prefer_takeover_node(r)) < 0)
		return ret;
	assign_workloads(r);
	fc.victim = &r->c.nodes[r->victim - 1];
	fc.takeover = &r->c.nodes[r->takeover - 1];
	if (f->unsupported && f->unsupported(&fc))
		return infra_error(r, -ENOTSUP, "fault %s: %s", fault_kind_name(r->sc->fault.kind), f->unsupported(&fc));
	step_end(s, &clk, true, "victim %s, takeover node %s", fc.victim->name, fc.takeover->name);

	localio_arm(r);
	s = step_begin(rep, "steady-state", &clk);
	if ((ret = start_writers(r)) < 0 || (ret = steady_state(r, &t_steady)) < 0) {
		step_end(s, &clk, false, "%s", r->error);
		return ret;
	}
	step_end(s, &clk, true, "every writer progressed for %llus",
		 (unsigned long long)(r->sc->verdict.steady_time / 1000));
	if (r->sc->pressure.start == PRESSURE_BEFORE && (ret = start_hogs(r)) < 0)
		return ret;
	ret = monitor_until(r, t_steady + r->sc->fault.after, NULL, NULL);
	if ((ret = loop_error(r, ret)) < 0)
		return ret;

	s = step_begin(rep, "fault", &clk);
	if ((ret = inject_and_observe(r, &fc)) < 0) {
		step_end(s, &clk, false, "%s", r->error);
		return ret;
	}
	step_end(s, &clk, true, "%s of %s", fault_kind_name(r->sc->fault.kind), fc.victim->name);
	/* The audit sees the fault still acting (a partition's two sides before they meet again). */
	run_audit(r, "after-observe");
	/* Undo before the stop: a writer blocked by the fault cannot be stopped until it is lifted. */
	if (f->undo)
		f->undo(&fc);
	stop_workloads(r);
	s = step_begin(rep, "data-integrity", &clk);
	ret = verify_all(r, s, &clk);
	run_audit(r, "end");
	return ret;
}

/* How the cluster came up, for report.json's cluster_up. */
static json_t *cluster_up_fields(const struct up_record *u)
{
	json_t *o = json_object(), *st = json_array();

	json_object_set_new(o, "mode", json_string(u->warm ? "warm" : "cold"));
	json_object_set_new(o, "snapshot", json_string(u->snapshot));
	json_object_set_new(o, "saved", json_boolean(u->saved));
	json_object_set_new(o, "fallback", u->fallback[0] ? json_string(u->fallback) : json_null());
	json_object_set_new(o, "seconds", json_real((double)u->total_ms / 1000.0));
	for (int i = 0; i < u->nstages; i++) {
		json_t *e = json_object();
		json_object_set_new(e, "name", json_string(u->stages[i].name));
		json_object_set_new(e, "seconds", json_real((double)u->stages[i].ms / 1000.0));
		json_array_append_new(st, e);
	}
	json_object_set_new(o, "stages", st);
	return o;
}

int run_scenario(const struct scenario *sc, const struct run_opts *o, char **result_dir)
{
	if (result_dir)
		*result_dir = NULL;
	struct run r = { .sc = sc, .o = *o };
	struct up_opts uo = { .name = o->name, .cache_dir = o->cache_dir, .ephemeral = true, .quiet = o->quiet,
			      .cold = o->cold,
			      .kernel = o->kernel, .initrd = o->initrd, .modules = o->modules,
			      .kernel_tree = o->kernel_tree };
	struct run_report rep = { 0 };
	struct verdict_input in;
	struct verdict v;
	struct step_clock clk;
	struct report_step *s;
	uint64_t wall0 = wall_ms();
	int ret;

	rep.sc = sc;
	s = step_begin(&rep, "cluster-up", &clk);
	ret = cluster_up(sc, &uo, &r.c);
	if (ret < 0) {
		log_error("could not test: the cluster did not come up");
		return ret == -EINVAL ? TK_EXIT_USAGE : TK_EXIT_SKIP;
	}
	r.cluster_up = true;
	char *tlpath = NULL;
	if (make_run_dir(&r) == 0)
		tlpath = xasprintf("%s/timeline.jsonl", r.dir);
	if (!tlpath || timeline_open(&r.tl, tlpath, now_ms()) < 0) {
		log_error("cannot create the results directory %s", r.dir);
		char name[CLUSTER_NAME_MAX + 1];
		snprintf(name, sizeof(name), "%s", r.c.name);
		cluster_release(&r.c);
		cluster_down(name);
		free(tlpath);
		free(r.dir);
		return TK_EXIT_SKIP;
	}
	step_end(s, &clk, true, "cluster %s: %d nodes, kernel %s, %s in %llus", r.c.name, r.c.n, r.c.kernel_release,
		 r.c.up.warm ? "warm" : "cold", (unsigned long long)(r.c.up.total_ms / 1000));
	log_info("run %s: results in %s", r.run_id, r.dir);
	save_scenario(&r);
	json_t *start = json_object();
	json_object_set_new(start, "run_id", json_string(r.run_id));
	json_object_set_new(start, "cluster", json_string(r.c.name));
	json_object_set_new(start, "kernel_release", json_string(r.c.kernel_release));
	json_object_set_new(start, "accel", json_string(r.c.kvm ? "kvm" : "tcg"));
	json_object_set_new(start, "started_ms", json_integer((json_int_t)wall0));
	json_object_set_new(start, "scenario", json_string(sc->path));
	const char *asked = o->kernel ? o->kernel : sc->kernel.image;
	json_object_set_new(start, "kernel",
			    kernel_identity(r.c.kernel, r.c.kernel_hash, !o->kernel_tree && !strcmp(asked, "debian"),
					    o->kernel_tree));
	timeline_event(&r.tl, "run-start", NULL, start);
	timeline_event(&r.tl, "cluster-up", NULL, cluster_up_fields(&r.c.up));
	monitor_init(&r);

	scenario_steps(&r, &rep);
	for (int i = 0; i < r.c.n; i++) {
		json_t *f = json_object();
		const char *k = r.c.nodes[i].ch.kernel;
		json_object_set_new(f, "kernel", json_string(k[0] ? k : r.c.kernel_release));
		timeline_event(&r.tl, "node", r.c.nodes[i].name, f);
	}
	save_journals(&r);
	localio_collect(&r);
	monitor_release(&r);
	copy_consoles(&r);
	for (int i = 0; i < rep.nsteps; i++)
		record_step(&r, &rep.steps[i]);

	/*
	 * With --keep-on-fail, whether to keep the cluster depends on the
	 * verdict so far; the teardown is then recorded, and the final verdict and the report are
	 * judged from the whole timeline, as `takeover report` would.
	 */
	bool keep = o->keep;
	if (!keep && o->keep_on_fail) {
		judge(tlpath, sc, &in, &v);
		verdict_input_release(&in);
		keep = v.cls != VERDICT_PASS;
	}
	char name[CLUSTER_NAME_MAX + 1], uri[512], tkname[8];
	snprintf(name, sizeof(name), "%s", r.c.name);
	snprintf(uri, sizeof(uri), "%s", r.c.uri);
	snprintf(tkname, sizeof(tkname), "%s", r.takeover ? r.c.nodes[r.takeover - 1].name : "n1");
	cluster_release(&r.c);
	json_t *td = json_object();
	json_object_set_new(td, "kept", json_boolean(keep));
	json_object_set_new(td, "ok", json_boolean(keep || cluster_down(name) == 0));
	timeline_event(&r.tl, "teardown", NULL, td);
	json_t *end = json_object();
	json_object_set_new(end, "duration_ms", json_integer((json_int_t)(wall_ms() - wall0)));
	json_object_set_new(end, "harness_cpu_s", json_real(cpu_seconds()));
	timeline_event(&r.tl, "end", NULL, end);
	timeline_close(&r.tl);

	/* The verdict and the report read the timeline back: nothing else. */
	judge(tlpath, sc, &in, &v);
	report_load(tlpath, sc->cluster.nodes, &rep);
	rep.v = &v;
	rep.in = &in;
	report_add_verdict_steps(&rep);

	report_write_all(&rep, r.dir);
	report_summary(&rep, stdout);
	printf("results: %s\n", r.dir);
	if (keep)
		fprintf(stderr,
			"cluster %s kept running (%s):\n"
			"  console:  virsh -c '%s' console takeover-%s\n"
			"  status:   takeover status %s\n"
			"  remove:   takeover down %s\n",
			name, verdict_name(v.cls), uri, tkname, name, name);
	verdict_input_release(&in);
	report_release(&rep);
	forensics_release(&r.fx);
	free(tlpath);
	if (result_dir)
		*result_dir = r.dir;
	else
		free(r.dir);
	return verdict_exit_code(v.cls);
}
