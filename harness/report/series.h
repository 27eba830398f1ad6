/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef TAKEOVER_SERIES_H
#define TAKEOVER_SERIES_H
/*
 * A verdict over many runs of one scenario: `takeover run --iterations`,
 * `takeover report DIR...` and each side of `takeover compare`. Computed
 * from the run directories alone (each one's report.json), so iterations run
 * at different times, by separate commands or on other hosts summarise the
 * same way: verdict counts, the failure rate with its 95 % Wilson interval,
 * and the resume time and loop-back rate as median/min/max.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include <jansson.h>

struct series_run {
	char dir[512];
	char verdict[40];  /* the class's name; "ERROR" when the run left no report */
	int exit_code;     /* what the run's verdict exits with (0, 1, 125) */
	double resume_s;   /* loop-back writes resumed after the fault; NAN when not reached */
	double rate_Bps;   /* loop-back rate over the observe window; NAN when not reached */
	double duration_s; /* the run's wall time; NAN when unknown */
};

struct series {
	struct series_run *runs;
	size_t n, alloc;
};

struct series_stats {
	unsigned runs, passed, failed, errors; /* errors: could not be judged (exit 125) */
	/* failed / (passed + failed) with its 95 % Wilson interval; NAN when nothing was judged */
	double fail_rate, fail_lo, fail_hi;
	size_t n_resume, n_rate;               /* how many runs the medians are of */
	double resume_med, resume_min, resume_max;
	double rate_med, rate_min, rate_max;
};

/*
 * Adds dir: a run directory (its report.json; a directory without one is a
 * run that could not be judged: ERROR), or a directory of iterations
 * (iter-1/, iter-2/ ... in numeric order). Returns how many runs it added,
 * or -ENOENT when dir does not exist.
 */
int series_add_dir(struct series *s, const char *dir);
void series_stats(const struct series *s, struct series_stats *st);
/* 1 when any run failed, else 125 when any could not be judged, else 0 (also for no runs: 125). */
int series_exit_code(const struct series *s);
/* "PASS x3, FAIL-STALL x1": each verdict once, in order of first appearance. */
void series_verdict_counts(const struct series *s, char *buf, size_t len);
/* The summary a person reads: counts, rate and interval, medians, one line per run. */
void series_print(const struct series *s, const char *title, FILE *f);
json_t *series_json(const struct series *s);
/*
 * dir/summary.json: series_json(s) plus extra's keys (may be NULL; taken
 * over). Keys an earlier summary.json has and neither gives (what the run
 * knew: the iterations asked for, an early stop) are kept, so `report
 * --write` rebuilds the run's file. Beside it, report.kcidb.json (every
 * run's KCIDB data in one submission) and index.html (a row per run,
 * linking to its page). 0 or -errno (logged).
 */
int series_write_summary(const struct series *s, const char *dir, json_t *extra);
/*
 * dir/index.html: the page of the series (report/html.c): the summary
 * (series_print()'s, or the caller's when summary is not NULL), then a row
 * per run linking to its page.
 */
int report_html_series(const struct series *s, const char *dir, const char *title, const char *summary);
void series_release(struct series *s);

#endif
