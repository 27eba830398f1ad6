// SPDX-License-Identifier: GPL-2.0-only
#include "report/series.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "report/report.h"
#include "util/units.h"
#include "util/fs.h"
#include "util/log.h"
#include "util/stats.h"
#include "util/xalloc.h"
#include "verdict/verdict.h"

static double jnum(const json_t *o, const char *k)
{
	const json_t *v = json_object_get(o, k);

	return json_is_number(v) ? json_number_value(v) : NAN;
}

static void add_run(struct series *s, const char *dir)
{
	char *path = xasprintf("%s/report.json", dir);
	json_t *rep = json_load_file(path, 0, NULL);
	const json_t *tk = json_object_get(rep, "takeover");
	const char *cls = json_string_value(json_object_get(json_object_get(rep, "verdict"), "class"));
	int code = verdict_code_of_name(cls);
	struct series_run *r;

	if (s->n == s->alloc) {
		s->alloc = s->alloc ? 2 * s->alloc : 16;
		s->runs = xrealloc(s->runs, s->alloc * sizeof(*s->runs));
	}
	r = &s->runs[s->n++];
	snprintf(r->dir, sizeof(r->dir), "%s", dir);
	/* No report, or one this build cannot read: the run was not judged. */
	snprintf(r->verdict, sizeof(r->verdict), "%s", code < 0 ? "ERROR" : cls);
	r->exit_code = code < 0 ? verdict_exit_code(VERDICT_ERROR) : code;
	r->resume_s = jnum(tk, "resume_s");
	r->rate_Bps = jnum(tk, "window_rate_Bps");
	r->duration_s = jnum(rep, "duration_s");
	json_decref(rep);
	free(path);
}

/* iter-K, K >= 1: K; else 0. */
static unsigned iter_number(const char *name)
{
	uint64_t k;
	const char *why;

	if (strncmp(name, "iter-", 5) || name[5] < '1' || name[5] > '9' || parse_uint(name + 5, &k, &why) < 0)
		return 0;
	return k > 1000000 ? 0 : (unsigned)k;
}

static int cmp_iter(const void *a, const void *b)
{
	unsigned x = iter_number(*(char *const *)a), y = iter_number(*(char *const *)b);

	return x < y ? -1 : x > y;
}

int series_add_dir(struct series *s, const char *dir)
{
	struct stat st;
	DIR *d;
	struct dirent *e;
	char **names = NULL;
	size_t n = 0, alloc = 0;

	if (stat(dir, &st) < 0 || !S_ISDIR(st.st_mode))
		return -ENOENT;
	d = opendir(dir);
	if (!d)
		return -errno;
	while ((e = readdir(d))) {
		if (!iter_number(e->d_name))
			continue;
		if (n == alloc) {
			alloc = alloc ? 2 * alloc : 16;
			names = xrealloc(names, alloc * sizeof(*names));
		}
		names[n++] = xstrdup(e->d_name);
	}
	closedir(d);
	if (!n) {
		add_run(s, dir);
		return 1;
	}
	qsort(names, n, sizeof(*names), cmp_iter);
	for (size_t i = 0; i < n; i++) {
		char *p = xasprintf("%s/%s", dir, names[i]);
		add_run(s, p);
		free(p);
		free(names[i]);
	}
	free(names);
	return (int)n;
}

void series_stats(const struct series *s, struct series_stats *st)
{
	double *v = xcalloc(s->n ? s->n : 1, sizeof(*v));

	memset(st, 0, sizeof(*st));
	st->runs = (unsigned)s->n;
	for (size_t i = 0; i < s->n; i++) {
		int c = s->runs[i].exit_code;
		st->passed += c == 0;
		st->failed += c == 1;
		st->errors += c != 0 && c != 1;
	}
	unsigned judged = st->passed + st->failed;
	st->fail_rate = judged ? (double)st->failed / judged : NAN;
	if (judged)
		wilson95(st->failed, judged, &st->fail_lo, &st->fail_hi);
	else
		st->fail_lo = st->fail_hi = NAN;
	for (size_t i = 0; i < s->n; i++)
		v[i] = s->runs[i].resume_s;
	st->n_resume = stats_med_min_max(v, s->n, &st->resume_med, &st->resume_min, &st->resume_max);
	for (size_t i = 0; i < s->n; i++)
		v[i] = s->runs[i].rate_Bps;
	st->n_rate = stats_med_min_max(v, s->n, &st->rate_med, &st->rate_min, &st->rate_max);
	free(v);
}

int series_exit_code(const struct series *s)
{
	struct series_stats st;

	series_stats(s, &st);
	return st.failed ? 1 : st.errors || !st.passed ? 125 : 0;
}

void series_verdict_counts(const struct series *s, char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < s->n && off < len; i++) {
		size_t seen = 0, count = 0;
		for (size_t j = 0; j < s->n; j++) {
			if (strcmp(s->runs[j].verdict, s->runs[i].verdict))
				continue;
			seen += j < i;
			count++;
		}
		if (!seen) {
			int w = snprintf(buf + off, len - off, "%s%s x%zu", off ? ", " : "", s->runs[i].verdict, count);
			off += w > 0 ? (size_t)w : 0;
		}
	}
}

void series_print(const struct series *s, const char *title, FILE *f)
{
	struct series_stats st;
	char counts[512];

	series_stats(s, &st);
	series_verdict_counts(s, counts, sizeof(counts));
	fprintf(f, "%s: %u run%s: %s\n", title, st.runs, st.runs == 1 ? "" : "s", counts);
	if (st.passed + st.failed)
		fprintf(f, "failure rate: %u of %u judged = %.1f %% (95 %% interval %.1f-%.1f %%)%s\n", st.failed,
			st.passed + st.failed, 100 * st.fail_rate, 100 * st.fail_lo, 100 * st.fail_hi,
			st.errors ? "; runs that could not be judged are not counted" : "");
	else
		fprintf(f, "failure rate: no run could be judged\n");
	if (st.n_resume)
		fprintf(f, "resume after fault: median %.1f s, min %.1f, max %.1f (%zu runs)\n", st.resume_med,
			st.resume_min, st.resume_max, st.n_resume);
	if (st.n_rate)
		fprintf(f, "loop-back rate: median %.0f KiB/s, min %.0f, max %.0f (%zu runs)\n", st.rate_med / 1024,
			st.rate_min / 1024, st.rate_max / 1024, st.n_rate);
	for (size_t i = 0; i < s->n; i++) {
		const struct series_run *r = &s->runs[i];
		fprintf(f, "  %3zu %-24s", i + 1, r->verdict);
		if (isfinite(r->resume_s))
			fprintf(f, " resume %6.1f s", r->resume_s);
		else
			fprintf(f, " %15s", "");
		fprintf(f, "  %s\n", r->dir);
	}
}

static json_t *num_or_null(double x)
{
	return isfinite(x) ? json_real(x) : json_null();
}

static json_t *stat_json(size_t n, double med, double min, double max)
{
	json_t *o = json_object();

	json_object_set_new(o, "n", json_integer((json_int_t)n));
	json_object_set_new(o, "median", num_or_null(n ? med : NAN));
	json_object_set_new(o, "min", num_or_null(n ? min : NAN));
	json_object_set_new(o, "max", num_or_null(n ? max : NAN));
	return o;
}

json_t *series_json(const struct series *s)
{
	struct series_stats st;
	json_t *o = json_object(), *runs = json_array(), *counts = json_object();

	series_stats(s, &st);
	for (size_t i = 0; i < s->n; i++) {
		const struct series_run *r = &s->runs[i];
		json_t *j = json_object();
		json_object_set_new(j, "dir", json_string(r->dir));
		json_object_set_new(j, "verdict", json_string(r->verdict));
		json_object_set_new(j, "exit_code", json_integer(r->exit_code));
		json_object_set_new(j, "resume_s", num_or_null(r->resume_s));
		json_object_set_new(j, "rate_Bps", num_or_null(r->rate_Bps));
		json_object_set_new(j, "duration_s", num_or_null(r->duration_s));
		json_array_append_new(runs, j);
		json_t *c = json_object_get(counts, r->verdict);
		json_object_set_new(counts, r->verdict, json_integer(c ? json_integer_value(c) + 1 : 1));
	}
	json_object_set_new(o, "runs", json_integer(st.runs));
	json_object_set_new(o, "passed", json_integer(st.passed));
	json_object_set_new(o, "failed", json_integer(st.failed));
	json_object_set_new(o, "not_judged", json_integer(st.errors));
	json_object_set_new(o, "verdicts", counts);
	json_t *fr = json_object();
	json_object_set_new(fr, "rate", num_or_null(st.fail_rate));
	json_object_set_new(fr, "lo95", num_or_null(st.fail_lo));
	json_object_set_new(fr, "hi95", num_or_null(st.fail_hi));
	json_object_set_new(fr, "method", json_string("wilson"));
	json_object_set_new(o, "failure_rate", fr);
	json_object_set_new(o, "resume_s", stat_json(st.n_resume, st.resume_med, st.resume_min, st.resume_max));
	json_object_set_new(o, "rate_Bps", stat_json(st.n_rate, st.rate_med, st.rate_min, st.rate_max));
	json_object_set_new(o, "exit_code", json_integer(series_exit_code(s)));
	json_object_set_new(o, "iterations", runs);
	return o;
}

int series_write_summary(const struct series *s, const char *dir, json_t *extra)
{
	char *path = xasprintf("%s/summary.json", dir);
	json_t *j = json_load_file(path, 0, NULL);
	int ret;

	if (!json_is_object(j)) {
		json_decref(j);
		j = json_object();
	}
	json_t *sj = series_json(s);
	json_object_update(j, sj);
	json_decref(sj);
	if (extra)
		json_object_update(j, extra);
	json_decref(extra);
	char *text = json_dumps(j, JSON_INDENT(2) | JSON_SORT_KEYS);
	ret = text ? write_file_atomic(path, text, strlen(text), 0644) : -ENOMEM;
	if (ret < 0)
		log_error("%s: %s", path, strerror(-ret));
	free(text);
	free(path);
	/* The whole series as one KCIDB submission. */
	const char **dirs = xcalloc(s->n ? s->n : 1, sizeof(*dirs));
	for (size_t i = 0; i < s->n; i++)
		dirs[i] = s->runs[i].dir;
	path = xasprintf("%s/report.kcidb.json", dir);
	int kr = report_kcidb_merge(dirs, s->n, path);
	if (kr < 0) {
		log_error("%s: %s", path, strerror(-kr));
		ret = ret ?: kr;
	}
	free(dirs);
	free(path);
	int hr = report_html_series(s, dir, dir, NULL);
	if (hr < 0) {
		log_error("%s/index.html: %s", dir, strerror(-hr));
		ret = ret ?: hr;
	}
	json_decref(j);
	return ret;
}

void series_release(struct series *s)
{
	free(s->runs);
	memset(s, 0, sizeof(*s));
}
