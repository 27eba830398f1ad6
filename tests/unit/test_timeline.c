// SPDX-License-Identifier: GPL-2.0-only
/*
 * The timeline (harness/run/timeline.c) written and read back, and the verdict
 * judged on what it reads (harness/verdict/verdict.c):
 *  - timeline_event: one JSON object a line, flushed as it is written;
 *  - the recorded PASS run tests/fixtures/timelines/pass-default.jsonl;
 *  - synthetic timelines, written as JSON lines to a temporary file and
 *    loaded with timeline_load(), bent at the edges of the verdict's rules:
 *    malformed lines, "error" events, failed fencing, a run cut short, late
 *    progress reports (server_back_after, VERDICT_RESUME_GRACE_MS) and kernel reports.
 *
 * Synthetic runs: n1 runs the NFS group and is the victim, n2 takes over, n3
 * is a remote client; times are shaped like the failovers measured on TCG.
 */
#include <check.h>
#include <errno.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "report/report.h"
#include "run/run.h"
#include "scenario/scenario.h"
#include "run/timeline.h"
#include "util/spawn.h"
#include "util/strbuf.h"
#include "util/xalloc.h"
#include "verdict/verdict.h"

#define T_FAULT 30000u
#define STEP 1000u      /* the agent's progress period */
#define POLL 2000u      /* the harness's crm_mon period */
#define RATE (1u << 20) /* bytes per second of a healthy writer */
/* Acks within this long after the fault are not a resumption. */
#define GRACE ((uint64_t)VERDICT_RESUME_GRACE_MS)

static struct scenario sc;
static struct verdict_input in;
static struct verdict v;
static char *path;
static int bad;

static char *temp_path(void)
{
	const char *tmp = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	char *p = xasprintf("%s/takeover-timeline-XXXXXX", tmp);
	int fd = mkstemp(p);

	ck_assert_msg(fd >= 0, "mkstemp: %s", strerror(errno));
	close(fd);
	return p;
}

static void setup(void)
{
	struct strbuf errs = STRBUF_INIT;

	ck_assert_int_eq(scenario_parse("empty", NULL, 0, NULL, &sc, &errs), 0);
	strbuf_release(&errs);
	memset(&in, 0, sizeof(in));
	memset(&v, 0, sizeof(v));
	path = temp_path();
	bad = -1;
}

static void teardown(void)
{
	verdict_input_release(&in);
	scenario_release(&sc);
	if (path)
		unlink(path);
	free(path);
	path = NULL;
}

static uint64_t deadline(void)
{
	return T_FAULT + sc.verdict.takeover_timeout;
}

/* ---- timeline_event ---- */

/* The next complete line of f as a JSON object (the test fails when there is none). */
static json_t *next_object(FILE *f)
{
	char *line = NULL;
	size_t cap = 0;
	ssize_t n = getline(&line, &cap, f);
	json_error_t err;
	json_t *o;

	ck_assert_msg(n > 0, "no line to read: the event was not flushed");
	ck_assert_msg(line[n - 1] == '\n', "line not terminated: '%s'", line);
	ck_assert_msg(!memchr(line, '\n', (size_t)n - 1), "one event spans lines: '%s'", line);
	ck_assert_msg(!strncmp(line, "{\"t\":", 5), "\"t\" is not the first key: %s", line);
	o = json_loads(line, 0, &err);
	ck_assert_msg(json_is_object(o), "not a JSON object: %s (%s)", line, err.text);
	free(line);
	return o;
}

START_TEST(event_written_and_flushed)
{
	struct timeline tl;
	FILE *r;
	json_t *o, *f = json_object();

	/* t = 0 was 5 s ago */
	ck_assert_int_eq(timeline_open(&tl, path, now_ms() - 5000), 0);
	r = fopen(path, "r");
	ck_assert_ptr_nonnull(r);

	json_object_set_new(f, "kind", json_string("destroy"));
	json_object_set_new(f, "takeover", json_string("n1"));
	timeline_event(&tl, "fault", "n2", f);
	/* read back while the writer still has the file open */
	o = next_object(r);
	ck_assert_int_ge(json_integer_value(json_object_get(o, "t")), 5000);
	ck_assert_int_lt(json_integer_value(json_object_get(o, "t")), 5000 + 60000);
	ck_assert_str_eq(json_string_value(json_object_get(o, "ev")), "fault");
	ck_assert_str_eq(json_string_value(json_object_get(o, "node")), "n2");
	ck_assert_str_eq(json_string_value(json_object_get(o, "kind")), "destroy");
	ck_assert_str_eq(json_string_value(json_object_get(o, "takeover")), "n1");
	ck_assert_int_eq((int)json_object_size(o), 5);
	json_decref(o);

	/* no node, no fields: just "t" and "ev" */
	timeline_event(&tl, "end", NULL, NULL);
	o = next_object(r);
	ck_assert_str_eq(json_string_value(json_object_get(o, "ev")), "end");
	ck_assert_ptr_null(json_object_get(o, "node"));
	ck_assert_int_eq((int)json_object_size(o), 2);
	json_decref(o);

	/* a newline inside a field stays inside the one line (kernel report text) */
	f = json_object();
	json_object_set_new(f, "text", json_string("INFO: task x:1 blocked\nCall Trace:\n"));
	timeline_event(&tl, "kernel", "n3", f);
	o = next_object(r);
	ck_assert_str_eq(json_string_value(json_object_get(o, "text")),
			 "INFO: task x:1 blocked\nCall Trace:\n");
	json_decref(o);

	timeline_close(&tl);
	ck_assert_ptr_null(tl.f);
	ck_assert_int_eq(fgetc(r), EOF);
	fclose(r);
}
END_TEST

/*
 * "t" is the host's clock and "ev" the event: a guest's own "t=MS" in an agent
 * message (hello carries one) must not replace them, or timeline_load would
 * take the guest's uptime as the end of the run.
 */
START_TEST(event_fields_cannot_override_t_ev)
{
	struct timeline tl;
	FILE *r;
	json_t *o, *f = json_object();

	ck_assert_int_eq(timeline_open(&tl, path, now_ms()), 0);
	r = fopen(path, "r");
	ck_assert_ptr_nonnull(r);
	json_object_set_new(f, "t", json_integer(987654321));
	json_object_set_new(f, "ev", json_string("bogus"));
	json_object_set_new(f, "proto", json_string("1"));
	timeline_event(&tl, "hello", "n1", f);
	o = next_object(r);
	ck_assert_int_lt(json_integer_value(json_object_get(o, "t")), 60000);
	ck_assert_str_eq(json_string_value(json_object_get(o, "ev")), "hello");
	ck_assert_str_eq(json_string_value(json_object_get(o, "proto")), "1");
	json_decref(o);
	timeline_close(&tl);
	fclose(r);
}
END_TEST

/* The file is opened for appending: a second open (report again, resumed run) keeps what was there. */
START_TEST(event_appends)
{
	struct timeline tl;
	FILE *r;
	json_t *o;

	ck_assert_int_eq(timeline_open(&tl, path, now_ms()), 0);
	timeline_event(&tl, "run-start", NULL, NULL);
	timeline_close(&tl);
	ck_assert_int_eq(timeline_open(&tl, path, now_ms()), 0);
	timeline_event(&tl, "end", NULL, NULL);
	timeline_close(&tl);
	r = fopen(path, "r");
	o = next_object(r);
	ck_assert_str_eq(json_string_value(json_object_get(o, "ev")), "run-start");
	json_decref(o);
	o = next_object(r);
	ck_assert_str_eq(json_string_value(json_object_get(o, "ev")), "end");
	json_decref(o);
	fclose(r);
}
END_TEST

START_TEST(open_fails_cleanly)
{
	struct timeline tl;

	ck_assert_int_eq(timeline_open(&tl, "/nonexistent-dir/timeline.jsonl", 0), -ENOENT);
	ck_assert_ptr_null(tl.f);
	/* writing to a timeline that failed to open is harmless */
	timeline_event(&tl, "end", NULL, NULL);
	timeline_close(&tl);
}
END_TEST

START_TEST(load_missing_file)
{
	ck_assert_int_eq(timeline_load("/nonexistent-dir/timeline.jsonl", &sc, &in, &bad), -ENOENT);
	ck_assert_int_eq(bad, 0);
	/* the criteria are set even so */
	ck_assert_uint_eq(in.takeover_timeout, sc.verdict.takeover_timeout);
	ck_assert(!in.fault_fired);
}
END_TEST

/* ---- the recorded PASS run ---- */

START_TEST(recorded_pass)
{
	struct scenario rsc;
	struct strbuf errs = STRBUF_INIT;
	const struct vseries *n1 = NULL;

	ck_assert_msg(scenario_load(FIXTURES_DIR "/timelines/pass-default.ini", &rsc, &errs) == 0,
		      "%s", errs.buf);
	strbuf_release(&errs);
	ck_assert_int_eq(timeline_load(FIXTURES_DIR "/timelines/pass-default.jsonl", &rsc, &in, &bad), 0);
	ck_assert_int_eq(bad, 0);
	ck_assert(in.fault_fired);
	ck_assert_str_eq(in.victim, "n2");
	ck_assert_str_eq(in.takeover, "n1");
	ck_assert_uint_eq(in.t_fault, 47641);
	ck_assert_uint_eq(in.t_end, 310948);
	ck_assert_int_eq(in.nnodes, 3);
	ck_assert_uint_eq(in.ncrm, 45);
	ck_assert_int_eq(in.nverify, 3);
	ck_assert_int_eq(in.nkernel, 0); /* seven reports, all informational */
	ck_assert_str_eq(in.infra_error, "");
	for (int i = 0; i < in.nnodes; i++)
		if (!strcmp(in.nodes[i].node, "n1"))
			n1 = &in.nodes[i];
	ck_assert_ptr_nonnull(n1);

	verdict_judge(&in, &v);
	ck_assert_msg(v.cls == VERDICT_PASS, "%s: %s", verdict_name(v.cls), v.reason);
	ck_assert_str_eq(v.node, "n1");
	/* resumed 97.6 s after the fault; the ack at +1.4 s was in flight when n2 died */
	ck_assert_uint_ge(v.t_resume - in.t_fault, 97000);
	ck_assert_uint_le(v.t_resume - in.t_fault, 98000);
	ck_assert_int_eq(v.ph.first_loopback_write, (int64_t)(v.t_resume - in.t_fault));
	ck_assert_uint_le(v.max_gap, rsc.verdict.max_stall);
	ck_assert_double_ge(v.window_rate, (double)rsc.verdict.min_rate);

	ck_assert_int_ge(v.ph.fenced, 0);
	ck_assert_int_ge(v.ph.fs_mounted, 0);
	ck_assert_int_ge(v.ph.nfsd_started, 0);
	ck_assert_int_ge(v.ph.ip_up, 0);
	ck_assert_int_le(v.ph.fenced, v.ph.fs_mounted);
	ck_assert_int_le(v.ph.fs_mounted, v.ph.nfsd_started);
	ck_assert_int_le(v.ph.nfsd_started, v.ph.ip_up);
	ck_assert_int_le(v.ph.ip_up, v.ph.group_started);
	ck_assert_int_le(v.ph.seen_offline, v.ph.fenced);
	ck_assert_int_le(v.ph.group_started, (int64_t)rsc.verdict.takeover_timeout);
	scenario_release(&rsc);
}
END_TEST

/* ---- the pressure, on recorded runs ---- */

static void load_recorded(const char *name, struct scenario *rsc)
{
	struct strbuf errs = STRBUF_INIT;
	_cleanup_free_ char *ini = xasprintf("%s/timelines/%s.ini", FIXTURES_DIR, name);
	_cleanup_free_ char *tl = xasprintf("%s/timelines/%s.jsonl", FIXTURES_DIR, name);

	ck_assert_msg(scenario_load(ini, rsc, &errs) == 0, "%s", errs.buf);
	strbuf_release(&errs);
	ck_assert_int_eq(timeline_load(tl, rsc, &in, &bad), 0);
	ck_assert_int_eq(bad, 0);
	verdict_judge(&in, &v);
}

/* A real failback on stock 6.1: the node the group left is judged, and its writes resumed through n1. */
START_TEST(recorded_failback)
{
	struct scenario rsc;

	load_recorded("failback-6.1", &rsc);
	ck_assert_msg(v.cls == VERDICT_PASS, "%s: %s", verdict_name(v.cls), v.reason);
	ck_assert(in.victim_survives);
	ck_assert_str_eq(in.victim, "n2");
	ck_assert_str_eq(in.takeover, "n1");
	ck_assert_str_eq(in.judged, "n2");
	ck_assert_str_eq(v.node, "n2");
	ck_assert_ptr_nonnull(strstr(v.reason, "n2 handed the NFS group to n1 and kept writing as its client"));
	ck_assert_int_eq(v.ph.fenced, -1);
	ck_assert_int_gt(v.ph.first_loopback_write, v.ph.group_started); /* n2's writes, after the group moved */
	ck_assert(v.pr.judged && !strcmp(v.pr.nodes[v.pr.worst].node, "n2")); /* its pressure counts */
	scenario_release(&rsc);
}
END_TEST

/* The tuned-to-fail failback, run for real: takeover_timeout 40s against a move that takes ~70s. */
START_TEST(recorded_failback_too_slow)
{
	struct scenario rsc;

	load_recorded("failback-slow-6.1", &rsc);
	ck_assert_msg(v.cls == VERDICT_FAIL_TAKEOVER_TIMEOUT, "%s: %s", verdict_name(v.cls), v.reason);
	ck_assert_msg(strstr(v.reason, "the NFS group was not running on n1 within 40s of the fault"), "%s", v.reason);
	ck_assert(in.victim_survives && !in.group_stays);
	scenario_release(&rsc);
}
END_TEST

/* A real disk stall of 10 s on stock 6.1: the server's loop-back writes stop for it and go on. */
START_TEST(recorded_disk_stall)
{
	struct scenario rsc;

	load_recorded("disk-stall-6.1", &rsc);
	ck_assert_msg(v.cls == VERDICT_PASS, "%s: %s", verdict_name(v.cls), v.reason);
	ck_assert(in.victim_survives && in.group_stays);
	ck_assert_str_eq(in.victim, in.takeover);
	ck_assert_uint_eq(v.t_resume, in.t_fault);
	ck_assert_uint_ge(v.max_gap, rsc.fault.duration - 1000); /* the stall is the longest gap */
	ck_assert_uint_le(v.max_gap, rsc.fault.duration + 2000);
	scenario_release(&rsc);
}
END_TEST

/* The tuned-to-fail disk stall, run for real: 40 s against max_stall 20 s. */
START_TEST(recorded_disk_stall_long)
{
	struct scenario rsc;

	load_recorded("disk-stall-long-6.1", &rsc);
	ck_assert_msg(v.cls == VERDICT_FAIL_STALL, "%s: %s", verdict_name(v.cls), v.reason);
	ck_assert_msg(strstr(v.reason, "loop-back writes on n2 stalled for 40.9s after the fault"), "%s", v.reason);
	scenario_release(&rsc);
}
END_TEST

/* A real partition on stock 6.1: the majority fenced the cut-off server and took over; one holder at each audit. */
START_TEST(recorded_partition)
{
	struct scenario rsc;

	load_recorded("partition-6.1", &rsc);
	ck_assert_msg(v.cls == VERDICT_PASS, "%s: %s", verdict_name(v.cls), v.reason);
	ck_assert(!in.victim_survives);
	ck_assert_int_ge(v.ph.fenced, 0); /* the cut-off server was fenced, not left to serve */
	ck_assert_int_eq(in.naudit, 2);
	for (int i = 0; i < in.naudit; i++) {
		ck_assert_int_eq(in.audit[i].nip, 1);
		ck_assert_int_eq(in.audit[i].nfs, 1);
		ck_assert_str_eq(in.audit[i].ip_holders, in.takeover);
	}
	scenario_release(&rsc);
}
END_TEST

/*
 * Its negative control, run for real: no fencing and no-quorum-policy=freeze.
 * The cut-off n1 kept the group, n2 started it too; the verifier also found
 * records n1 had acknowledged missing (two kernels wrote one ext4), which the
 * split brain explains and outranks.
 */
START_TEST(recorded_partition_split_brain)
{
	struct scenario rsc;

	load_recorded("partition-no-fencing-6.1", &rsc);
	ck_assert_msg(v.cls == VERDICT_FAIL_SPLIT_BRAIN, "%s: %s", verdict_name(v.cls), v.reason);
	ck_assert_str_eq(v.reason, "split brain at the after-observe audit: the floating IP on 2 nodes (n1, n2), the "
				   "shared file system mounted on 2 (n1, n2)");
	ck_assert_str_eq(v.node, "n1");
	ck_assert_int_eq(v.ph.fenced, -1);
	ck_assert_int_eq(in.audit[0].nip, 2);
	ck_assert_str_eq(in.audit[0].fs_holders, "n1, n2");
	ck_assert(in.nverify > 0 && in.verify[0].missing > 0); /* the loss that followed */
	scenario_release(&rsc);
}
END_TEST

/* A real nfsd-kill on stock 6.1: the monitor saw nfsd gone, the cluster restarted it in place. */
START_TEST(recorded_nfsd_kill)
{
	struct scenario rsc;

	load_recorded("nfsd-kill-6.1", &rsc);
	ck_assert_msg(v.cls == VERDICT_PASS, "%s: %s", verdict_name(v.cls), v.reason);
	ck_assert(in.victim_survives && in.group_stays && in.group_restarts);
	ck_assert_str_eq(in.judged, "n2");
	ck_assert_ptr_nonnull(strstr(v.reason, "n2's NFS group was restarted in place"));
	/* judged from the resume (+80.0 s), after the restart, not from the kill */
	ck_assert_int_gt(v.ph.first_loopback_write, v.ph.nfsd_started);
	ck_assert_uint_gt(v.t_resume, in.t_fault + 60000);
	ck_assert_int_gt(v.ph.seen_offline, 0); /* the monitor's failure */
	ck_assert_int_eq(v.ph.fenced, -1);
	ck_assert_int_eq(v.ph.fs_mounted, -1); /* the file system never stopped */
	scenario_release(&rsc);
}
END_TEST

/* The tuned-to-fail nfsd-kill, run for real: takeover_timeout 40s against a restart that takes ~78 s. */
START_TEST(recorded_nfsd_kill_too_slow)
{
	struct scenario rsc;

	load_recorded("nfsd-kill-slow-6.1", &rsc);
	ck_assert_msg(v.cls == VERDICT_FAIL_TAKEOVER_TIMEOUT, "%s: %s", verdict_name(v.cls), v.reason);
	/* the monitor's failure is how the cluster noticed, not given as the cause */
	ck_assert_msg(strstr(v.reason, "the NFS group was not restarted on n2 within 40s of the fault (Pacemaker saw it "
				       "stop)"), "%s", v.reason);
	scenario_release(&rsc);
}
END_TEST

/* Stock 6.1 on the same scenario: it PASSes, so the known-bad kernel's FAIL is the patch's. */
START_TEST(recorded_failback_deadlock_stock)
{
	struct scenario rsc;

	load_recorded("failback-deadlock-6.1", &rsc);
	ck_assert_msg(v.cls == VERDICT_PASS, "%s: %s", verdict_name(v.cls), v.reason);
	ck_assert_int_eq(v.ph.fenced, -1);
	scenario_release(&rsc);
}
END_TEST

/*
 * The known-bad 6.1 kernel (images/kernel/patches/known-bad) on
 * scenarios/failback-deadlock.ini, run for real: the server's loop-back
 * writes stopped before the failback; at the failback rpc.nfsd hung in
 * kthread_stop (svc_set_num_threads) waiting for its nfsd thread, the stop
 * timed out and the cluster fenced n2, the node it was moving away from.
 */
START_TEST(recorded_failback_known_bad)
{
	struct scenario rsc;

	load_recorded("failback-deadlock-known-bad-6.1", &rsc);
	ck_assert_msg(v.cls == VERDICT_FAIL_TAKEOVER_TIMEOUT, "%s: %s", verdict_name(v.cls), v.reason);
	ck_assert_msg(strstr(v.reason, "client writes on n2 did not resume within 4min of the failback: the cluster "
				       "fenced n2"), "%s", v.reason);
	ck_assert(in.victim_survives && !in.group_stays);
	ck_assert_int_gt(v.ph.fenced, 120000); /* after the stop's 120 s timeout */
	scenario_release(&rsc);
}
END_TEST

/* The default scenario's hog (48M) held through the takeover: still a PASS, and it says so. */
START_TEST(recorded_pressure_held)
{
	struct scenario rsc;

	load_recorded("pass-default", &rsc);
	ck_assert_msg(v.cls == VERDICT_PASS, "%s: %s", verdict_name(v.cls), v.reason);
	ck_assert(v.pr.judged && v.pr.ok);
	ck_assert_int_eq(v.pr.n, 1);
	ck_assert_str_eq(v.pr.nodes[0].node, "n1");
	ck_assert_double_ge(v.pr.nodes[0].held, 0.9);
	ck_assert_int_eq(v.pr.nodes[0].oom_kills, 0);
	ck_assert_ptr_nonnull(strstr(v.reason, "memory pressure on n1 held"));
	scenario_release(&rsc);
}
END_TEST

/*
 * loopback-deadlock.ini on the fixed series, recorded with the harness of
 * 193c403 (before the hog was restarted): the kernel OOM-killed the hog
 * 15 s after the fault and the takeover node had ~480M available from then
 * on. That run said PASS; it did not test the loop-back mount under pressure.
 */
START_TEST(recorded_pressure_lost)
{
	struct scenario rsc;
	const struct pressure_node *p;

	load_recorded("pressure-lost-fixed", &rsc);
	ck_assert_msg(v.cls == VERDICT_ERROR_PRESSURE_LOST, "%s: %s", verdict_name(v.cls), v.reason);
	ck_assert_int_eq(verdict_exit_code(v.cls), 125);
	ck_assert(v.pr.judged && !v.pr.ok);
	p = &v.pr.nodes[0];
	ck_assert_str_eq(p->node, "n1");
	ck_assert_double_lt(p->held, 0.1);
	ck_assert_int_eq(p->oom_kills, 1);
	ck_assert_str_eq(p->oom_victim, "takeover-hog");
	ck_assert_uint_ge(p->first_oom - in.t_fault, 15000);
	ck_assert_uint_le(p->first_oom - in.t_fault, 17000);
	ck_assert_int_eq(p->restarts, 0);
	ck_assert_uint_ge(p->max_avail_kb, 450u << 10);
	ck_assert_ptr_nonnull(strstr(v.reason, "held for only 7%"));
	ck_assert_ptr_nonnull(strstr(v.reason, "1 OOM kill (first takeover-hog at +15.6s)"));
	ck_assert_ptr_nonnull(strstr(v.reason, "otherwise: n1 took over and kept writing"));
	/* The rule, not the recording, decides: with the check off, this run is the PASS it said. */
	in.min_held = 0;
	verdict_judge(&in, &v);
	ck_assert_msg(v.cls == VERDICT_PASS, "%s: %s", verdict_name(v.cls), v.reason);
	scenario_release(&rsc);
}
END_TEST

/*
 * The same scenario and kernel, recorded with the restarting hog: the
 * pressure held (the hog kept MemAvailable under 32M) and the takeover node's
 * Pacemaker daemons sat in reclaim_throttle behind NFS writeback to the dead
 * server, so the group was not up within 4 min. At +241 s the kernel
 * OOM-killed the hog; it came back 2 s later. A hang under pressure stays a
 * FAIL, and says the share.
 */
START_TEST(recorded_pressure_back)
{
	struct scenario rsc;
	const struct pressure_node *p;

	load_recorded("pressure-back-fixed", &rsc);
	ck_assert_msg(v.cls == VERDICT_FAIL_TAKEOVER_TIMEOUT, "%s: %s", verdict_name(v.cls), v.reason);
	ck_assert(v.pr.judged && v.pr.ok);
	p = &v.pr.nodes[0];
	ck_assert_str_eq(p->node, "n1");
	ck_assert_double_ge(p->held, 0.95);
	ck_assert_int_eq(p->oom_kills, 1);
	ck_assert_str_eq(p->oom_victim, "takeover-hog");
	ck_assert_uint_ge(p->first_oom - in.t_fault, 240000);
	ck_assert_int_eq(p->restarts, 1);
	ck_assert_ptr_nonnull(strstr(v.reason, "memory pressure on n1 held 99%"));
	/* Not even with the check off does a hang turn into anything else. */
	in.min_held = 0;
	verdict_judge(&in, &v);
	ck_assert_msg(v.cls == VERDICT_FAIL_TAKEOVER_TIMEOUT, "%s: %s", verdict_name(v.cls), v.reason);
	scenario_release(&rsc);
}
END_TEST

/*
 * Recorded on stock 6.12 (the default scenario, iteration 1 of 3): nfsd's
 * start failed on the takeover node 29 s after the fault, its stop failed
 * too, and the cluster fenced the node at +50 s. The reason names the
 * failed action; without it the fence reads as a node that stopped answering.
 */
START_TEST(recorded_takeover_fenced_after_failed_action)
{
	struct scenario rsc;

	load_recorded("takeover-fenced-6.12", &rsc);
	ck_assert_msg(v.cls == VERDICT_FAIL_TAKEOVER_TIMEOUT, "%s: %s", verdict_name(v.cls), v.reason);
	ck_assert_str_eq(v.node, "n1");
	ck_assert_msg(strstr(v.reason, "an action failed there 29s after the fault "
				       "(nfsd_start_0 start on n1: complete) and the cluster fenced n1 "
				       "itself 50s after the fault"), "%s", v.reason);
	for (size_t i = 0; i < in.ncrm; i++)
		in.crm[i].failure[0] = '\0';
	verdict_judge(&in, &v);
	ck_assert_msg(strstr(v.reason, "fenced n1 itself 50s after the fault (it stopped responding"),
		      "%s", v.reason);
	scenario_release(&rsc);
}
END_TEST

/*
 * Stock 6.12 after the nfsdcld fix, default scenario, iteration 4 of 7: nfsd's
 * start failed on the takeover node ("Unable to end grace period: -110" on
 * its console: no nfsdcld answered), the cluster moved the group to n3
 * without fencing anyone. The reason says where the group went.
 */
START_TEST(recorded_nfsd_start_failed_group_elsewhere)
{
	struct scenario rsc;

	load_recorded("nfsd-start-failed-6.12", &rsc);
	ck_assert_msg(v.cls == VERDICT_FAIL_TAKEOVER_TIMEOUT, "%s: %s", verdict_name(v.cls), v.reason);
	ck_assert_str_eq(v.node, "n1");
	ck_assert_msg(strstr(v.reason, "an action failed there 27s after the fault (nfsd_start_0 start on n1: "
				       "complete, error (Failed to start NFS server)) and the group started on n3 "
				       "instead"), "%s", v.reason);
	scenario_release(&rsc);
}
END_TEST

/* ---- the NFS daemons' own words, from a recorded journal ---- */

struct errs {
	uint64_t ms[32];
	char text[32][240];
	int n;
};

static void collect_error(void *ctx, uint64_t epoch_ms, const char *source, const char *text)
{
	struct errs *e = ctx;

	if (e->n < 32) {
		e->ms[e->n] = epoch_ms;
		snprintf(e->text[e->n++], sizeof(e->text[0]), "%s: %s", source, text);
	}
}

/*
 * Stock 6.12, default scenario, `compare` round B-1 (2026-12-07): the nfsserver
 * agent's start failed on the takeover node because rpc.nfsd could not start
 * its threads (ENOMEM under the hog's 48M: 6.12's svc_init_buffer() takes its
 * pages in one alloc_pages_bulk call and fails on a short one), the group went
 * to n3. Its nfs-n1.log as the run kept it; run.c turns the error lines into
 * "daemon-error" events with the timeline's time. Replayed here on the
 * recorded timeline (recorded before those events existed): t0 on the wall
 * clock is the run's start plus its duration less the end event's time.
 */
START_TEST(recorded_daemon_errors)
{
	struct strbuf j = STRBUF_INIT;
	struct errs e = { .n = 0 };
	struct scenario rsc;
	/* 2026-12-07T12:57:27.722Z, the run-start's started_ms; t0 = it + 183081 - 171402 */
	const uint64_t started = 1796648247722ull, t0 = started + 183081 - 171402;

	ck_assert_int_ge(strbuf_read_file(&j, FIXTURES_DIR "/journal/nfs-n1-enomem-6.12.log", 1 << 20), 0);
	ck_assert_int_eq(journal_daemon_errors(j.buf, started, collect_error, &e), e.n);
	ck_assert_int_ge(e.n, 4);
	/* the first: rpc.nfsd at Dec 07 12:58:40.856297, before the agent's ERROR line */
	ck_assert_str_eq(e.text[0], "rpc.nfsd: error starting threads: errno 12 (Cannot allocate memory)");
	ck_assert_uint_eq(e.ms[0], 1796648320856ull);
	bool agent = false;
	for (int i = 0; i < e.n; i++) {
		agent |= !strcmp(e.text[i], "nfsserver(nfsd): ERROR: Failed to start NFS server");
		ck_assert_msg(strncmp(e.text[i], "systemd", 7), "systemd's line taken: %s", e.text[i]);
	}
	ck_assert(agent);

	/* The recorded timeline with those events added: the reason quotes rpc.nfsd. */
	_cleanup_strbuf_ struct strbuf tl = STRBUF_INIT;
	ck_assert_int_ge(strbuf_read_file(&tl, FIXTURES_DIR "/timelines/nfsd-enomem-6.12.jsonl", 16 << 20), 0);
	for (int i = 0; i < e.n; i++) {
		const char *colon = strstr(e.text[i], ": ");
		strbuf_addf(&tl, "{\"t\":171402,\"ev\":\"daemon-error\",\"node\":\"n1\",\"at\":%llu,\"source\":\"%.*s\","
				 "\"text\":\"%s\"}\n",
			    (unsigned long long)(e.ms[i] - t0), (int)(colon - e.text[i]), e.text[i], colon + 2);
	}
	FILE *f = fopen(path, "we");
	ck_assert_ptr_nonnull(f);
	fwrite(tl.buf, 1, tl.len, f);
	fclose(f);
	struct strbuf errs = STRBUF_INIT;
	ck_assert_msg(scenario_load(FIXTURES_DIR "/timelines/nfsd-enomem-6.12.ini", &rsc, &errs) == 0, "%s", errs.buf);
	strbuf_release(&errs);
	ck_assert_int_eq(timeline_load(path, &rsc, &in, &bad), 0);
	verdict_judge(&in, &v);
	ck_assert_msg(v.cls == VERDICT_FAIL_TAKEOVER_TIMEOUT, "%s: %s", verdict_name(v.cls), v.reason);
	ck_assert_msg(strstr(v.reason, "(nfsd_start_0 start on n1: complete, error (Failed to start NFS server); "
				       "rpc.nfsd: error starting threads: errno 12 (Cannot allocate memory)) and the "
				       "group started on n3 instead"),
		      "%s", v.reason);
	/* Without them, as recorded: the agent's words only. */
	verdict_input_release(&in);
	ck_assert_int_eq(timeline_load(FIXTURES_DIR "/timelines/nfsd-enomem-6.12.jsonl", &rsc, &in, &bad), 0);
	verdict_judge(&in, &v);
	ck_assert_ptr_null(strstr(v.reason, "rpc.nfsd"));
	scenario_release(&rsc);
	strbuf_release(&j);
}
END_TEST

/*
 * LOCALIO on stock 6.12 (default scenario, PASS): the first server n2's own
 * writer went through LOCALIO until the fault (2088 reads/writes, 263
 * commits by the kprobes' counts); after the takeover n1's old mount stayed on
 * RPC (0 after the fault), and the remote client n3 never used it. The
 * victim's count after the fault is unknown (it was destroyed): null.
 */
START_TEST(recorded_localio)
{
	struct scenario rsc;
	struct run_report rep = { 0 };

	load_recorded("localio-6.12", &rsc);
	ck_assert_msg(v.cls == VERDICT_PASS, "%s: %s", verdict_name(v.cls), v.reason);
	ck_assert_int_eq(report_load(FIXTURES_DIR "/timelines/localio-6.12.jsonl", rsc.cluster.nodes, &rep), 0);
	const json_t *n1 = rep.nodes[0].localio, *n2 = rep.nodes[1].localio, *n3 = rep.nodes[2].localio;
	ck_assert(n1 && n2 && n3);
	ck_assert(json_is_true(json_object_get(n1, "supported")));
	ck_assert_int_eq(json_integer_value(json_object_get(n2, "io_before_fault")), 2088);
	ck_assert_int_eq(json_integer_value(json_object_get(n2, "commits_before_fault")), 263);
	ck_assert(json_is_null(json_object_get(n2, "io_after_fault")));
	ck_assert(json_is_integer(json_object_get(n1, "io_after_fault")));
	ck_assert_int_eq(json_integer_value(json_object_get(n1, "io_after_fault")), 0);
	ck_assert_int_eq(json_integer_value(json_object_get(n3, "io_before_fault")), 0);
	report_release(&rep);
	scenario_release(&rsc);
}
END_TEST

/*
 * scenarios/negative-control.ini as CI ran it (dfaa1f3's harness): loop-back
 * NFS blocked on the takeover node 10 s after its writes resumed, so the
 * writer stalls until the end of the observe window. The only FAIL class
 * recorded from a real run; the others are synthetic below.
 */
START_TEST(recorded_stall)
{
	struct scenario rsc;

	load_recorded("stall-negative", &rsc);
	ck_assert_msg(v.cls == VERDICT_FAIL_STALL, "%s: %s", verdict_name(v.cls), v.reason);
	ck_assert_int_eq(verdict_exit_code(v.cls), 1);
	ck_assert_str_eq(v.node, "n1");
	ck_assert_ptr_nonnull(strstr(v.reason, "stalled for 44.0s after resuming (max_stall 20s)"));
	ck_assert_uint_ge(v.t_resume - in.t_fault, 42000);
	ck_assert_uint_le(v.t_resume - in.t_fault, 43500);
	ck_assert(!v.pr.judged); /* this scenario has no memory pressure */
	/* a looser max_stall judges the same recording a PASS */
	in.max_stall = 60000;
	verdict_judge(&in, &v);
	ck_assert_msg(v.cls == VERDICT_PASS, "%s: %s", verdict_name(v.cls), v.reason);
	scenario_release(&rsc);
}
END_TEST

/* ---- synthetic timelines ---- */

enum fence_outcome { FENCE_OK, FENCE_FAILED, FENCE_FAILED_THEN_OK, FENCE_FAILED_OTHER };

/* How the run after the fault goes; times are ms after the fault (-1: never). */
struct plan {
	int64_t seen_offline; /* polls stop listing n1 as online and the group as running on it */
	int64_t fenced;       /* the fence history shows n1 fenced (or its fencing failed) */
	enum fence_outcome fence;
	int64_t fence_retry_ok; /* FENCE_FAILED_THEN_OK: the retry succeeds at */
	int64_t fs_at;          /* the Filesystem member starts on n2 */
	int64_t group_at;       /* every member started on n2 */
	int64_t resume_at;      /* n2's loop-back writes resume */
	int64_t end;            /* the last line of the timeline */
	int64_t late_ack;       /* n2 reports one more acked record at (a write from before the fault) */
	bool polls;             /* false: no crm polls after the fault at all */
};

static struct plan healthy(void)
{
	return (struct plan){
		.seen_offline = 24000, .fenced = 28000, .fence = FENCE_OK, .fs_at = 42000,
		.group_at = 62000, .resume_at = 66000, .late_ack = -1, .polls = true,
		.end = 66000 + (int64_t)sc.verdict.observe + 5000,
	};
}

static void line(FILE *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void line(FILE *f, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfprintf(f, fmt, ap);
	va_end(ap);
	fputc('\n', f);
}

static bool after(int64_t at, int64_t dt)
{
	return at >= 0 && dt >= at;
}

static void crm_line(FILE *f, const struct plan *p, uint64_t t)
{
	int64_t dt = (int64_t)t - (int64_t)T_FAULT;
	bool on_victim = dt < 0 || !after(p->seen_offline, dt);
	bool failed = after(p->fenced, dt) && p->fence != FENCE_OK;
	bool fenced = (after(p->fenced, dt) && p->fence == FENCE_OK) ||
		      (p->fence == FENCE_FAILED_THEN_OK && after(p->fence_retry_ok, dt));
	const char *gn = on_victim ? "n1" : after(p->fs_at, dt) ? "n2" : "";
	const char *m0 = on_victim ? "n1" : after(p->fs_at, dt) ? "n2" : "";
	const char *rest = on_victim ? "n1" : after(p->group_at, dt) ? "n2" : "";

	line(f,
	     "{\"t\":%llu,\"ev\":\"crm\",\"from\":\"n2\",\"online\":[%s\"n2\",\"n3\"],"
	     "\"group_started\":%s,\"group_node\":\"%s\",\"members\":[\"%s\",\"%s\",\"%s\",\"%s\"],"
	     "\"fenced\":[%s],\"fence_failed\":[%s],\"fence_started\":true,\"failures\":0}",
	     (unsigned long long)t, on_victim ? "\"n1\"," : "",
	     on_victim || after(p->group_at, dt) ? "true" : "false", gn, m0, rest, rest, rest,
	     fenced ? "\"n1\"" : "",
	     failed ? (p->fence == FENCE_FAILED_OTHER ? "\"n3\"" : "\"n1\"") : "");
}

static void progress_line(FILE *f, const char *node, uint64_t t, uint64_t acked)
{
	line(f,
	     "{\"t\":%llu,\"ev\":\"progress\",\"node\":\"%s\",\"w\":\"writer\",\"kind\":\"writer\","
	     "\"records\":%llu,\"acked\":%llu,\"acked_bytes\":%llu,\"errors\":0}",
	     (unsigned long long)t, node, (unsigned long long)(acked >> 16),
	     (unsigned long long)(acked >> 16), (unsigned long long)acked);
}

/* Writes the run up to the end of the plan; the file stays open for extra lines. */
static FILE *write_plan(const struct plan *p)
{
	FILE *f = fopen(path, "w");
	uint64_t end = T_FAULT + (uint64_t)p->end, a1 = 0, a2 = 0, a3 = 0, hog = 0;

	ck_assert_ptr_nonnull(f);
	line(f, "{\"t\":1,\"ev\":\"run-start\",\"run_id\":\"test\",\"cluster\":\"c1\"}");
	line(f, "{\"t\":900,\"ev\":\"roles\",\"victim\":\"n1\",\"takeover\":\"n2\",\"group_node\":\"n1\"}");
	for (uint64_t t = STEP; t <= end; t += STEP) {
		int64_t dt = (int64_t)t - (int64_t)T_FAULT;
		if (t == T_FAULT)
			line(f, "{\"t\":%u,\"ev\":\"fault\",\"node\":\"n1\",\"kind\":\"destroy\","
				"\"takeover\":\"n2\"}", T_FAULT);
		if (t < T_FAULT)
			progress_line(f, "n1", t, a1 += RATE);
		if (dt < 0 || after(p->resume_at, dt))
			a2 += RATE;
		progress_line(f, "n2", t, a2);
		if (p->late_ack >= 0 && dt == (p->late_ack / (int64_t)STEP) * (int64_t)STEP)
			progress_line(f, "n2", T_FAULT + (uint64_t)p->late_ack, a2 += 65536);
		/* the remote client is back 2 s after the group */
		if (dt < 0 || after(p->group_at >= 0 ? p->group_at + 2000 : -1, dt))
			a3 += RATE;
		progress_line(f, "n3", t, a3);
		/* the memory hog's reports are not writes */
		line(f, "{\"t\":%llu,\"ev\":\"progress\",\"node\":\"n2\",\"w\":\"hog\",\"kind\":\"hog\","
			"\"acked_bytes\":%llu}", (unsigned long long)t, (unsigned long long)(hog += RATE));
		if (t % POLL == 0 && (dt < 0 || p->polls))
			crm_line(f, p, t);
	}
	return f;
}

/* A test may load more than one timeline: each load starts from an empty input. */
static void load_and_judge(FILE *f)
{
	ck_assert_int_eq(fclose(f), 0);
	verdict_input_release(&in);
	ck_assert_int_eq(timeline_load(path, &sc, &in, &bad), 0);
	verdict_judge(&in, &v);
}

static void judge_plan(struct plan p)
{
	load_and_judge(write_plan(&p));
	ck_assert_int_eq(bad, 0);
}

static void assert_class(enum verdict_class c, const char *node)
{
	ck_assert_msg(v.cls == c, "expected %s, got %s: %s", verdict_name(c), verdict_name(v.cls),
		      v.reason);
	if (node)
		ck_assert_str_eq(v.node, node);
	ck_assert_msg(v.reason[0], "a verdict always says why");
}

START_TEST(synthetic_pass)
{
	judge_plan(healthy());
	assert_class(VERDICT_PASS, "n2");
	ck_assert_str_eq(in.victim, "n1");
	ck_assert_str_eq(in.takeover, "n2");
	ck_assert_uint_eq(v.t_resume, T_FAULT + 66000);
	ck_assert_int_eq(v.ph.seen_offline, 24000);
	ck_assert_int_eq(v.ph.fenced, 28000);
	ck_assert_int_eq(v.ph.fs_mounted, 42000);
	ck_assert_int_eq(v.ph.nfsd_started, 62000);
	ck_assert_int_eq(v.ph.ip_up, 62000);
	ck_assert_int_eq(v.ph.group_started, 62000);
	ck_assert_int_eq(v.ph.first_remote_write, 64000);
	ck_assert_int_eq(v.ph.first_loopback_write, 66000);
}
END_TEST

/* Garbage, a JSON value that is not an object, a line cut short by a crash: skipped and counted. */
START_TEST(malformed_lines_skipped)
{
	struct plan p = healthy();
	FILE *f = write_plan(&p);
	line(f, "this is not json");
	line(f, "[1,2,3]");
	line(f, "\"a string\"");
	line(f, "{\"t\":%u,\"ev\":\"progress\",\"node\":", T_FAULT + 70000);
	/* a harness killed mid-write leaves an unterminated last line */
	fputs("{\"t\":999999999,\"ev\":\"progress\",\"node\":\"n2\",\"kind\":\"wri", f);
	load_and_judge(f);
	ck_assert_int_eq(bad, 5);
	assert_class(VERDICT_PASS, "n2");
	/* nothing from the bad lines was taken, not even their time */
	ck_assert_uint_eq(in.t_end, T_FAULT + (uint64_t)p.end);
}
END_TEST

START_TEST(error_event_is_error)
{
	struct plan p = healthy();
	FILE *f = write_plan(&p);
	line(f, "{\"t\":%u,\"ev\":\"error\",\"msg\":\"fence_virtd exited\"}", T_FAULT + 5000);
	line(f, "{\"t\":%u,\"ev\":\"error\",\"msg\":\"a later error\"}", T_FAULT + 6000);
	load_and_judge(f);
	assert_class(VERDICT_ERROR, NULL);
	ck_assert_str_eq(v.reason, "fence_virtd exited"); /* the first error wins */
	ck_assert_int_eq(verdict_exit_code(v.cls), 125);
	/* phases are still computed for the report */
	ck_assert_int_eq(v.ph.group_started, 62000);
}
END_TEST

/* The run records its teardown; a PASS whose cluster could not be removed is ERROR, a FAIL stays a FAIL. */
START_TEST(teardown_failure_is_error)
{
	struct plan p = healthy();
	FILE *f = write_plan(&p);

	line(f, "{\"t\":%u,\"ev\":\"teardown\",\"kept\":false,\"ok\":false}", T_FAULT + 200000);
	load_and_judge(f);
	assert_class(VERDICT_ERROR, NULL);
	ck_assert_str_eq(v.reason, "the cluster could not be removed after the run");

	p = healthy();
	f = write_plan(&p);
	line(f, "{\"t\":%u,\"ev\":\"teardown\",\"kept\":false,\"ok\":true}", T_FAULT + 200000);
	load_and_judge(f);
	assert_class(VERDICT_PASS, "n2");

	p = healthy();
	p.resume_at = -1;
	p.end = (int64_t)sc.verdict.takeover_timeout;
	f = write_plan(&p);
	line(f, "{\"t\":%u,\"ev\":\"teardown\",\"kept\":false,\"ok\":false}", T_FAULT + 250000);
	load_and_judge(f);
	assert_class(VERDICT_FAIL_TAKEOVER_TIMEOUT, "n2");
}
END_TEST

/* ---- fencing failed: Pacemaker rightly keeps the group where it was ---- */

static struct plan fence_fails(void)
{
	struct plan p = healthy();

	p.fence = FENCE_FAILED;
	p.fs_at = p.group_at = p.resume_at = -1;
	p.end = (int64_t)sc.verdict.takeover_timeout + 10000;
	return p;
}

START_TEST(fence_failed_is_error)
{
	judge_plan(fence_fails());
	assert_class(VERDICT_ERROR, "n1");
	ck_assert_ptr_nonnull(strstr(v.reason, "fencing n1 failed"));
	ck_assert_int_eq(v.ph.fenced, -1);
	ck_assert_int_eq(v.ph.group_started, -1);
}
END_TEST

/* Failed first, then a retry worked: the group's failure to move is the kernel's problem. */
START_TEST(fence_failed_then_ok_is_timeout)
{
	struct plan p = fence_fails();

	p.fence = FENCE_FAILED_THEN_OK;
	p.fence_retry_ok = 50000;
	judge_plan(p);
	assert_class(VERDICT_FAIL_TAKEOVER_TIMEOUT, "n2");
	ck_assert_int_eq(v.ph.fenced, 50000);
}
END_TEST

/* A retry that succeeds at takeover_timeout exactly still counts... */
START_TEST(fence_ok_at_deadline_is_timeout)
{
	struct plan p = fence_fails();

	p.fence = FENCE_FAILED_THEN_OK;
	p.fence_retry_ok = (int64_t)sc.verdict.takeover_timeout;
	judge_plan(p);
	assert_class(VERDICT_FAIL_TAKEOVER_TIMEOUT, "n2");
}
END_TEST

/* ...one after it does not: by the deadline, fencing had only failed. */
START_TEST(fence_ok_after_deadline_is_error)
{
	struct plan p = fence_fails();

	p.fence = FENCE_FAILED_THEN_OK;
	p.fence_retry_ok = (int64_t)sc.verdict.takeover_timeout + POLL;
	judge_plan(p);
	assert_class(VERDICT_ERROR, "n1");
}
END_TEST

/* The failure first shows at the deadline exactly: still within the window. */
START_TEST(fence_failed_at_deadline_is_error)
{
	struct plan p = fence_fails();

	p.fenced = (int64_t)sc.verdict.takeover_timeout;
	judge_plan(p);
	assert_class(VERDICT_ERROR, "n1");
}
END_TEST

/* A failure seen only after the deadline is not why the group did not move in time. */
START_TEST(fence_failed_after_deadline_is_timeout)
{
	struct plan p = fence_fails();

	p.fenced = (int64_t)sc.verdict.takeover_timeout + POLL;
	p.end = p.fenced + 10000;
	judge_plan(p);
	assert_class(VERDICT_FAIL_TAKEOVER_TIMEOUT, "n2");
}
END_TEST

/* Another node's failed fencing says nothing about the victim. */
START_TEST(fence_failed_other_node_is_timeout)
{
	struct plan p = fence_fails();

	p.fence = FENCE_FAILED_OTHER;
	judge_plan(p);
	assert_class(VERDICT_FAIL_TAKEOVER_TIMEOUT, "n2");
}
END_TEST

/* A failed attempt that did not keep the group from moving in time: judged as usual. */
START_TEST(fence_failed_group_moved_is_pass)
{
	struct plan p = healthy();

	p.fence = FENCE_FAILED;
	judge_plan(p);
	assert_class(VERDICT_PASS, "n2");
}
END_TEST

/* ---- a run cut short is ERROR, not a timeout ---- */

static struct plan never_moves(int64_t end)
{
	struct plan p = healthy();

	p.fs_at = p.group_at = p.resume_at = -1;
	p.end = end;
	return p;
}

START_TEST(cut_short_before_group_is_error)
{
	judge_plan(never_moves(60000));
	assert_class(VERDICT_ERROR, "n2");
	ck_assert_ptr_nonnull(strstr(v.reason, "before takeover_timeout"));
}
END_TEST

/* The last line one step before the deadline is still short... */
START_TEST(cut_short_just_before_deadline_is_error)
{
	struct plan p = never_moves((int64_t)sc.verdict.takeover_timeout - STEP);
	FILE *f = write_plan(&p);
	line(f, "{\"t\":%llu,\"ev\":\"end\"}", (unsigned long long)deadline() - 1);
	load_and_judge(f);
	ck_assert_uint_eq(in.t_end, deadline() - 1);
	assert_class(VERDICT_ERROR, "n2");
}
END_TEST

/* ...at the deadline the group had its chance: a timeout. */
START_TEST(ends_at_deadline_is_timeout)
{
	judge_plan(never_moves((int64_t)sc.verdict.takeover_timeout));
	ck_assert_uint_eq(in.t_end, deadline());
	assert_class(VERDICT_FAIL_TAKEOVER_TIMEOUT, "n2");
	ck_assert_ptr_nonnull(strstr(v.reason, "group"));
}
END_TEST

/*
 * The group moved but the run ended (the harness died) before loop-back writes
 * resumed and before the deadline: nobody knows whether they would have.
 */
START_TEST(cut_short_after_group_is_error)
{
	struct plan p = healthy();

	p.resume_at = -1;
	p.end = 70000;
	judge_plan(p);
	assert_class(VERDICT_ERROR, "n2");
	ck_assert_int_eq(v.ph.group_started, 62000);
}
END_TEST

START_TEST(no_resume_until_deadline_is_timeout)
{
	struct plan p = healthy();

	p.resume_at = -1;
	p.end = (int64_t)sc.verdict.takeover_timeout;
	judge_plan(p);
	assert_class(VERDICT_FAIL_TAKEOVER_TIMEOUT, "n2");
	ck_assert_ptr_nonnull(strstr(v.reason, "did not resume"));
}
END_TEST

/* Resumed, but the observe window is not complete: ERROR. */
START_TEST(cut_short_in_observe_window_is_error)
{
	struct plan p = healthy();

	p.end = p.resume_at + (int64_t)sc.verdict.observe - STEP;
	judge_plan(p);
	assert_class(VERDICT_ERROR, "n2");
	ck_assert_ptr_nonnull(strstr(v.reason, "observe window"));
}
END_TEST

START_TEST(no_fault_is_error)
{
	FILE *f = fopen(path, "w");

	line(f, "{\"t\":1,\"ev\":\"run-start\"}");
	progress_line(f, "n2", 1000, RATE);
	line(f, "{\"t\":5000,\"ev\":\"end\"}");
	load_and_judge(f);
	assert_class(VERDICT_ERROR, NULL);
	ck_assert_ptr_nonnull(strstr(v.reason, "never injected"));
}
END_TEST

/*
 * The agent on the takeover node restarted without a reboot (systemd stopped
 * its unit after the OOM killer took the hog, before OOMPolicy=continue):
 * its writer died with it, so "writes did not resume" would blame the
 * kernel for the harness. A healthy-looking run is an ERROR too.
 */
START_TEST(agent_restart_is_error)
{
	struct plan p = healthy();
	FILE *f;

	p.resume_at = -1;
	p.end = (int64_t)sc.verdict.takeover_timeout;
	f = write_plan(&p);
	line(f, "{\"t\":%u,\"ev\":\"agent-restart\",\"node\":\"n2\"}", T_FAULT + 20000);
	load_and_judge(f);
	assert_class(VERDICT_ERROR, NULL);
	ck_assert_ptr_nonnull(strstr(v.reason, "agent on n2 restarted"));

	p = healthy();
	f = write_plan(&p);
	line(f, "{\"t\":%u,\"ev\":\"agent-restart\",\"node\":\"n3\"}", T_FAULT + 90000);
	load_and_judge(f);
	assert_class(VERDICT_ERROR, NULL);
	ck_assert_ptr_nonnull(strstr(v.reason, "agent on n3 restarted"));
}
END_TEST

/* ---- late progress reports are not a resumption ---- */

/* The ack in flight at the fault, reported 2 s later while the group still shows on n1. */
START_TEST(late_ack_in_grace_not_resume)
{
	struct plan p = healthy();

	p.late_ack = 2000;
	judge_plan(p);
	assert_class(VERDICT_PASS, "n2");
	ck_assert_uint_eq(v.t_resume, T_FAULT + 66000);
	ck_assert_int_eq(v.ph.first_loopback_write, 66000);
}
END_TEST

/* Past the grace, but Pacemaker still shows the group on the dead n1. */
START_TEST(late_ack_group_on_victim_not_resume)
{
	struct plan p = healthy();

	p.late_ack = 10500;
	judge_plan(p);
	assert_class(VERDICT_PASS, "n2");
	ck_assert_uint_eq(v.t_resume, T_FAULT + 66000);
}
END_TEST

/* The group is on its way (Filesystem started on n2) but not started. */
START_TEST(late_ack_group_not_started_not_resume)
{
	struct plan p = healthy();

	p.late_ack = 50500;
	judge_plan(p);
	assert_class(VERDICT_PASS, "n2");
	ck_assert_uint_eq(v.t_resume, T_FAULT + 66000);
}
END_TEST

/* A report at the very poll that last showed the group down is taken as part of the base. */
START_TEST(ack_at_last_down_poll_not_resume)
{
	struct plan p = healthy();

	p.late_ack = 60000; /* the polls at +60 s say "not started", at +62 s "started" */
	judge_plan(p);
	assert_class(VERDICT_PASS, "n2");
	ck_assert_uint_eq(v.t_resume, T_FAULT + 66000);
}
END_TEST

/* 1 ms after the last poll that showed it down, the group may be up: that is a resumption. */
START_TEST(ack_after_last_down_poll_is_resume)
{
	struct plan p = healthy();

	p.late_ack = 60001;
	judge_plan(p);
	assert_class(VERDICT_PASS, "n2");
	ck_assert_uint_eq(v.t_resume, T_FAULT + 60001);
	ck_assert_int_eq(v.ph.first_loopback_write, 60001);
}
END_TEST

/*
 * No poll after the fault shows the group down (it never had to move, or
 * polls were not answered): only VERDICT_RESUME_GRACE_MS bounds the resume, at the
 * fault + 3 s exactly not yet, 1 ms later yes.
 */
START_TEST(grace_edge)
{
	struct plan p = healthy();

	p.polls = false;
	p.late_ack = GRACE;
	load_and_judge(write_plan(&p));
	/* no poll after the fault: the group was never seen on n2, so this is a timeout */
	assert_class(VERDICT_FAIL_TAKEOVER_TIMEOUT, "n2");
	ck_assert_int_eq(v.ph.first_loopback_write, 66000);
	verdict_input_release(&in);

	p.late_ack = GRACE + 1;
	load_and_judge(write_plan(&p));
	ck_assert_int_eq(v.ph.first_loopback_write, GRACE + 1);
}
END_TEST

/* The same edges, judged all the way: the group stays on n2, which only loses a client. */
START_TEST(grace_edge_group_stays)
{
	FILE *f = fopen(path, "w");
	uint64_t a = 0, end = T_FAULT + GRACE + sc.verdict.observe + 10000;

	ck_assert_ptr_nonnull(f);
	line(f, "{\"t\":%u,\"ev\":\"fault\",\"node\":\"n3\",\"kind\":\"freeze\",\"takeover\":\"n2\"}",
	     T_FAULT);
	for (uint64_t t = STEP; t <= end; t += STEP) {
		if (t < T_FAULT || t > T_FAULT + GRACE)
			a += RATE;
		progress_line(f, "n2", t, a);
		if (t == T_FAULT + GRACE)
			progress_line(f, "n2", t, a += 4096); /* at the end of the grace */
		if (t % POLL == 0)
			line(f, "{\"t\":%llu,\"ev\":\"crm\",\"online\":[\"n1\",\"n2\"],"
				"\"group_started\":true,\"group_node\":\"n2\","
				"\"members\":[\"n2\",\"n2\",\"n2\",\"n2\"],\"fenced\":[],\"fence_failed\":[]}",
			     (unsigned long long)t);
	}
	load_and_judge(f);
	assert_class(VERDICT_PASS, "n2");
	ck_assert_uint_eq(v.t_resume, T_FAULT + 4000);
	ck_assert_int_eq(v.ph.group_started, 0); /* a poll at the fault's own millisecond counts */
}
END_TEST

/* ---- kernel reports ---- */

static void kernel_line(FILE *f, uint64_t t, const char *node, const char *cls, const char *sev,
			const char *title)
{
	line(f,
	     "{\"t\":%llu,\"ev\":\"kernel\",\"node\":\"%s\",\"class\":\"%s\",\"severity\":\"%s\","
	     "\"title\":\"%s\",\"kernel_time\":123.5,\"text\":\"%s\\n\"}",
	     (unsigned long long)t, node, cls, sev, title, title);
}

START_TEST(kernel_fatal_on_survivor)
{
	struct plan p = healthy();
	FILE *f = write_plan(&p);
	kernel_line(f, T_FAULT + 40000, "n3", "oops", "fatal",
		    "BUG: kernel NULL pointer dereference in nfs_commit_inode");
	load_and_judge(f);
	ck_assert_int_eq(in.nkernel, 1);
	assert_class(VERDICT_FAIL_KERNEL, "n3");
	ck_assert_ptr_nonnull(strstr(v.reason, "nfs_commit_inode"));
	ck_assert_ptr_nonnull(strstr(v.reason, "oops"));
}
END_TEST

START_TEST(kernel_fatal_on_takeover_node)
{
	struct plan p = healthy();
	FILE *f = write_plan(&p);
	kernel_line(f, T_FAULT + 70000, "n2", "lockdep", "fatal", "possible deadlock in nfs_start_io_write");
	load_and_judge(f);
	assert_class(VERDICT_FAIL_KERNEL, "n2");
}
END_TEST

/* The victim was killed on purpose: whatever it printed dying is not a verdict. */
START_TEST(kernel_fatal_on_victim_after_fault)
{
	struct plan p = healthy();
	FILE *f = write_plan(&p);
	kernel_line(f, T_FAULT + 1, "n1", "panic", "fatal", "Kernel panic - not syncing: sysrq triggered crash");
	load_and_judge(f);
	ck_assert_int_eq(in.nkernel, 1);
	assert_class(VERDICT_PASS, "n2");
}
END_TEST

/* Before it was killed, the victim was a node like any other: its oops is the kernel's. */
START_TEST(kernel_fatal_on_victim_before_fault)
{
	struct plan p = healthy();
	FILE *f = write_plan(&p);
	kernel_line(f, T_FAULT - 5000, "n1", "oops", "fatal", "kernel BUG at fs/nfsd/nfs4state.c:1234!");
	load_and_judge(f);
	assert_class(VERDICT_FAIL_KERNEL, "n1");
}
END_TEST

/* Informational reports (hung tasks during the takeover) are timeline entries, not verdicts. */
START_TEST(kernel_info_on_survivor)
{
	struct plan p = healthy();
	FILE *f = write_plan(&p);
	kernel_line(f, T_FAULT + 40000, "n2", "hung-task", "info",
		    "INFO: task hung in __filemap_fdatawait_range");
	kernel_line(f, T_FAULT + 41000, "n3", "nfs-server", "info",
		    "nfs: server 10.99.0.100 not responding, still trying");
	load_and_judge(f);
	ck_assert_int_eq(in.nkernel, 0);
	assert_class(VERDICT_PASS, "n2");
}
END_TEST

/* ---- verification results ---- */

START_TEST(verify_loaded)
{
	struct plan p = healthy();
	FILE *f = write_plan(&p);
	line(f, "{\"t\":%u,\"ev\":\"verify\",\"node\":\"n2\",\"ran\":true,\"acked\":500,\"missing\":2,"
		"\"corrupt\":1,\"detail\":\"slot 17: bad-payload-crc\"}", T_FAULT + 140000);
	load_and_judge(f);
	ck_assert_int_eq(in.nverify, 1);
	ck_assert_uint_eq(in.verify[0].missing, 2);
	assert_class(VERDICT_FAIL_DATA_LOSS, "n2");
	ck_assert_ptr_nonnull(strstr(v.reason, "slot 17"));
}
END_TEST

static void sample_line(FILE *f, const char *node, uint64_t t, uint64_t avail_kb, uint64_t oom_kill)
{
	line(f, "{\"t\":%llu,\"ev\":\"sample\",\"node\":\"%s\",\"memtotal\":738560,\"memavail\":%llu,"
		"\"oom_kill\":%llu,\"psi_some\":1.5,\"psi_full\":0.5}",
	     (unsigned long long)t, node, (unsigned long long)avail_kb, (unsigned long long)oom_kill);
}

/*
 * What the loader makes of the pressure's events: OOM kills counted from the
 * vmstat counter (kills before the pressure started are not the pressure's;
 * a reboot restarts the counter, which is a new base, not minus one kill),
 * the console's name for the first, the hog's restarts.
 */
START_TEST(pressure_events_loaded)
{
	struct plan p = healthy();
	FILE *f = write_plan(&p);
	const struct vmemseries *m;
	static const uint64_t oom[] = { 3, 3, 4, 4, 6, 0, 0, 1 };

	sample_line(f, "n2", T_FAULT - 20000, 400u << 10, 2);
	line(f, "{\"t\":%u,\"ev\":\"pressure-start\",\"node\":\"n2\"}", T_FAULT - 10000);
	for (size_t i = 0; i < sizeof(oom) / sizeof(oom[0]); i++)
		sample_line(f, "n2", T_FAULT - 9000 + i * 1000, 47u << 10, oom[i]);
	line(f, "{\"t\":%u,\"ev\":\"kernel\",\"node\":\"n2\",\"class\":\"oom-kill\","
		"\"severity\":\"info\",\"title\":\"OOM kill: takeover-hog\"}", T_FAULT - 7100);
	line(f, "{\"t\":%u,\"ev\":\"kernel\",\"node\":\"n2\",\"class\":\"oom-kill\","
		"\"severity\":\"info\",\"title\":\"OOM kill: systemd-journal\"}", T_FAULT - 5100);
	line(f, "{\"t\":%u,\"ev\":\"pressure-restart\",\"node\":\"n2\",\"restart\":1}", T_FAULT - 6000);
	line(f, "{\"t\":%u,\"ev\":\"pressure-restart\",\"node\":\"n2\",\"restart\":2}", T_FAULT - 4000);
	load_and_judge(f);
	m = verdict_mem_series(&in, "n2");
	ck_assert(m->pressured);
	ck_assert_uint_eq(m->t_start, T_FAULT - 10000);
	ck_assert_uint_eq(m->n, 9);
	ck_assert_uint_eq(m->s[0].avail_kb, 400u << 10);
	ck_assert_uint_eq(m->s[0].total_kb, 738560);
	/*
	 * 2 before the pressure started are not its kills; then 3 (a kill
	 * since the last sample), 4, 6, a reboot (0, a new base), then 1: five.
	 */
	ck_assert_int_eq(m->oom_kills, 5);
	ck_assert_uint_eq(m->t_first_oom, T_FAULT - 9000);
	ck_assert_str_eq(m->oom_victim, "takeover-hog");
	ck_assert_int_eq(m->restarts, 2);
	/* a node without a pressure-start is not pressured, even with samples */
	ck_assert(!verdict_mem_series(&in, "n3")->pressured);
}
END_TEST

static Suite *timeline_suite(void)
{
	Suite *s = suite_create("timeline");
	TCase *write = tcase_create("write");
	TCase *recorded = tcase_create("recorded");
	TCase *synth = tcase_create("synthetic");
	TCase *fence = tcase_create("fencing");
	TCase *shortrun = tcase_create("cut-short");
	TCase *late = tcase_create("late-reports");
	TCase *kernel = tcase_create("kernel");
	TCase *all[] = { write, recorded, synth, fence, shortrun, late, kernel };

	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++) {
		tcase_add_checked_fixture(all[i], setup, teardown);
		tcase_set_timeout(all[i], 30);
		suite_add_tcase(s, all[i]);
	}
	tcase_add_test(write, event_written_and_flushed);
	tcase_add_test(write, event_fields_cannot_override_t_ev);
	tcase_add_test(write, event_appends);
	tcase_add_test(write, open_fails_cleanly);
	tcase_add_test(write, load_missing_file);
	tcase_add_test(recorded, recorded_pass);
	tcase_add_test(recorded, recorded_pressure_held);
	tcase_add_test(recorded, recorded_pressure_lost);
	tcase_add_test(recorded, recorded_pressure_back);
	tcase_add_test(recorded, recorded_stall);
	tcase_add_test(recorded, recorded_takeover_fenced_after_failed_action);
	tcase_add_test(recorded, recorded_nfsd_start_failed_group_elsewhere);
	tcase_add_test(recorded, recorded_localio);
	tcase_add_test(recorded, recorded_daemon_errors);
	tcase_add_test(synth, synthetic_pass);
	tcase_add_test(synth, malformed_lines_skipped);
	tcase_add_test(synth, error_event_is_error);
	tcase_add_test(synth, teardown_failure_is_error);
	tcase_add_test(synth, no_fault_is_error);
	tcase_add_test(synth, agent_restart_is_error);
	tcase_add_test(synth, verify_loaded);
	tcase_add_test(synth, pressure_events_loaded);
	tcase_add_test(fence, fence_failed_is_error);
	tcase_add_test(fence, fence_failed_then_ok_is_timeout);
	tcase_add_test(fence, fence_ok_at_deadline_is_timeout);
	tcase_add_test(fence, fence_ok_after_deadline_is_error);
	tcase_add_test(fence, fence_failed_at_deadline_is_error);
	tcase_add_test(fence, fence_failed_after_deadline_is_timeout);
	tcase_add_test(fence, fence_failed_other_node_is_timeout);
	tcase_add_test(fence, fence_failed_group_moved_is_pass);
	tcase_add_test(shortrun, cut_short_before_group_is_error);
	tcase_add_test(shortrun, cut_short_just_before_deadline_is_error);
	tcase_add_test(shortrun, ends_at_deadline_is_timeout);
	tcase_add_test(shortrun, cut_short_after_group_is_error);
	tcase_add_test(shortrun, no_resume_until_deadline_is_timeout);
	tcase_add_test(shortrun, cut_short_in_observe_window_is_error);
	tcase_add_test(late, late_ack_in_grace_not_resume);
	tcase_add_test(late, late_ack_group_on_victim_not_resume);
	tcase_add_test(late, late_ack_group_not_started_not_resume);
	tcase_add_test(late, ack_at_last_down_poll_not_resume);
	tcase_add_test(late, ack_after_last_down_poll_is_resume);
	tcase_add_test(late, grace_edge);
	tcase_add_test(late, grace_edge_group_stays);
	tcase_add_test(kernel, kernel_fatal_on_survivor);
	tcase_add_test(kernel, kernel_fatal_on_takeover_node);
	tcase_add_test(kernel, recorded_failback);
	tcase_add_test(kernel, recorded_failback_too_slow);
	tcase_add_test(kernel, recorded_disk_stall);
	tcase_add_test(kernel, recorded_disk_stall_long);
	tcase_add_test(kernel, recorded_partition);
	tcase_add_test(kernel, recorded_partition_split_brain);
	tcase_add_test(kernel, recorded_nfsd_kill);
	tcase_add_test(kernel, recorded_nfsd_kill_too_slow);
	tcase_add_test(kernel, recorded_failback_known_bad);
	tcase_add_test(kernel, recorded_failback_deadlock_stock);
	tcase_add_test(kernel, kernel_fatal_on_victim_after_fault);
	tcase_add_test(kernel, kernel_fatal_on_victim_before_fault);
	tcase_add_test(kernel, kernel_info_on_survivor);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(timeline_suite());
	int failed;

	srunner_set_fork_status(sr, CK_FORK);
	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
