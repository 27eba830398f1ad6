/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef TAKEOVER_REPORT_H
#define TAKEOVER_REPORT_H
/*
 * A finished run, as the report writers see it: the verdict, the inputs it
 * was judged on (the verdict_input holds every progress series, Pacemaker
 * poll, kernel event and verification result), and run metadata. The
 * writers only read; each produces one file in the run directory.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "forensics/forensics.h"
#include "scenario/scenario.h"
#include "verdict/verdict.h"

#define REPORT_SCHEMA_VERSION 1
#define REPORT_MAX_STEPS 24

struct report_node {
	char name[8];
	char role[16];        /* "victim", "takeover" or "client" */
	bool writer;          /* ran a writer */
	bool pressure;        /* ran the memory hog */
	char kernel[128];     /* uname -r as reported by its agent */
	char console[64];     /* console log file name, relative to the run directory */
	char corosync_log[64]; /* its corosync journal, relative; "" when not collected */
	char nfs_log[64];      /* its NFS server's and Pacemaker's journal, relative; "" when not collected */
	/* What LOCALIO's tracepoints counted there (run/localio.c); the run's "localio" event, or NULL. */
	struct json_t *localio;
};

/* One check of the run, for junit.xml (one <testcase> each) and the report. */
struct report_step {
	char name[48];        /* e.g. "cluster-up", "takeover", "no-stall" */
	bool ran;             /* false: skipped because an earlier step failed */
	bool ok;
	double seconds;       /* how long the step took */
	char message[512];    /* why it failed, or a one-line summary */
	uint64_t started_ms;  /* when it began, epoch ms; 0 when unknown (timelines before it was recorded) */
};

struct run_report {
	char run_id[64];
	char dir[512];            /* the run directory as report_load found it (absolute when it could resolve it) */
	char cluster[32];
	char scenario_path[512];
	const struct scenario *sc;
	char kernel_release[128];
	bool kvm;
	uint64_t wall_start_ms;   /* epoch ms when the run began, before its cluster came up (the timeline starts after) */
	uint64_t duration_ms;
	double harness_cpu_s;     /* getrusage of the harness over the run */
	const struct verdict *v;
	const struct verdict_input *in;
	const struct forensics *fx; /* evidence captured on trouble; NULL when none */
	struct report_node nodes[SCENARIO_MAX_NODES];
	int nnodes;
	struct report_step steps[REPORT_MAX_STEPS];
	int nsteps;
	/* The timeline's "cluster-up" event as it was written (warm or cold, stage times); may be NULL. */
	struct json_t *cluster_up;
	/* The run-start event's "kernel" (image/kernel.h's kernel_identity()); NULL in older timelines. */
	struct json_t *kernel;
	struct forensics loaded_fx; /* report_load's: fx points here when the run captured evidence */
};

/*
 * Fills rep's metadata, nodes (nnodes of them: n1..) and the run's steps from
 * the timeline the run wrote (report/load.c), and the evidence its
 * "forensics" event names from the files beside it (rep->fx; NULL when none).
 * rep->sc, v and in are the caller's. -1 when the timeline cannot be read.
 * report_release() frees what it loaded.
 */
int report_load(const char *timeline, int nnodes, struct run_report *rep);
void report_release(struct run_report *rep);
/* Appends the checks the verdict rep->v made as steps (kernel-clean ... pressure-held). */
void report_add_verdict_steps(struct run_report *rep);

/* Each returns 0 or -errno; path is the file to write (created atomically). */
int report_json(const struct run_report *r, const char *path);
int report_junit(const struct run_report *r, const char *path);
/* index.html: the run for a person (report/html.c), self-contained. */
int report_html(const struct run_report *r, const char *path);
/* report.kcidb.json: the run as KCIDB v5 data (docs/report-schema.md): a checkout, a build, a test per step. */
int report_kcidb(const struct run_report *r, const char *path);
/*
 * Many runs' report.kcidb.json in one (what a series submits): their tests
 * one after another, each checkout and build once. A run without the file
 * is left out. 0 or -errno.
 */
int report_kcidb_merge(const char *const *run_dirs, size_t n, const char *path);
/*
 * progress.dat (seconds, MiB acknowledged per node), progress.gp and, when
 * gnuplot is installed, progress.svg: every node's write progress over
 * time, the fault and each takeover phase marked. dir is the run directory.
 */
int report_plot(const struct run_report *r, const char *dir);
/*
 * Every file of the run's report into dir (report.json, junit.xml,
 * report.kcidb.json, the plot): what `takeover run` writes at its end and
 * `takeover report --write` writes again. A writer that fails is logged and
 * the others still run; 0 or the first -errno.
 */
int report_write_all(const struct run_report *r, const char *dir);
/* The short human summary printed at the end of `takeover run`. */
void report_summary(const struct run_report *r, FILE *f);

#endif
