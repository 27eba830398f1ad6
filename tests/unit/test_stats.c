// SPDX-License-Identifier: GPL-2.0-only
/*
 * The statistics of a verdict over many runs, and the series summary built
 * from run directories. The expected values were computed independently of
 * this code, with Python's math.comb and the textbook formulas (Wilson's
 * score interval at z = 1.959964; Fisher's two-sided rule: sum of the tables
 * no more likely than the one seen, with R's relative tolerance 1e-7).
 * The series runs are report.json files that `takeover report --write`
 * made from the recorded timelines in tests/fixtures/timelines/.
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <sys/stat.h>
#include <unistd.h>

#include "report/series.h"
#include "util/fs.h"
#include "util/stats.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

#define EPS 1e-6

START_TEST(wilson_known_values)
{
	static const struct { unsigned k, n; double lo, hi; } c[] = {
		{ 0, 20, 0.0, 0.16112515805281938 },
		{ 9, 10, 0.5958499732047615, 0.9821237869049271 },
		{ 1, 20, 0.008881448800795402, 0.23613119344674205 },
		{ 5, 5, 0.5655175352168251, 1.0 },
	};
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		double lo, hi;
		wilson95(c[i].k, c[i].n, &lo, &hi);
		ck_assert_msg(fabs(lo - c[i].lo) < EPS && fabs(hi - c[i].hi) < EPS, "%u/%u: got %.6f..%.6f",
			      c[i].k, c[i].n, lo, hi);
	}
}
END_TEST

START_TEST(wilson_degenerate)
{
	double lo, hi;

	wilson95(0, 0, &lo, &hi);
	ck_assert(lo == 0 && hi == 1);
	wilson95(3, 2, &lo, &hi); /* nonsense in, the widest interval out */
	ck_assert(lo == 0 && hi == 1);
}
END_TEST

START_TEST(fisher_known_values)
{
	static const struct { unsigned a, b, c, d; double p; } c[] = {
		{ 3, 1, 1, 3, 0.4857142857142857 },
		{ 1, 9, 11, 3, 0.002759456185220083 },
		{ 0, 20, 5, 15, 0.04712404712404712 },
		{ 0, 10, 0, 10, 1.0 },
		{ 0, 0, 0, 0, 1.0 },
	};
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		double p = fisher_exact_2x2(c[i].a, c[i].b, c[i].c, c[i].d);
		ck_assert_msg(fabs(p - c[i].p) < EPS, "{{%u,%u},{%u,%u}}: got %.9f", c[i].a, c[i].b, c[i].c, c[i].d,
			      p);
	}
	/* Symmetric in the rows. */
	ck_assert(fabs(fisher_exact_2x2(11, 3, 1, 9) - fisher_exact_2x2(1, 9, 11, 3)) < 1e-12);
}
END_TEST

START_TEST(median_skips_nan)
{
	double v[] = { 5, NAN, 1, 3, INFINITY, 2 }, med, lo, hi;

	ck_assert_uint_eq(stats_med_min_max(v, 6, &med, &lo, &hi), 4);
	ck_assert(med == 2.5 && lo == 1 && hi == 5);
	double w[] = { NAN };
	ck_assert_uint_eq(stats_med_min_max(w, 1, &med, &lo, &hi), 0);
}
END_TEST

/* tmp/iter-K/report.json for each fixture name (NULL: the directory without a report). */
static char *make_iterations(const char *const *names, size_t n)
{
	char tmpl[] = "/tmp/test-stats.XXXXXX";
	char *top = xstrdup(mkdtemp(tmpl));

	for (size_t i = 0; i < n; i++) {
		char *d = xasprintf("%s/iter-%zu", top, i + 1);
		ck_assert_int_eq(mkdir(d, 0755), 0);
		if (names[i]) {
			struct strbuf sb = STRBUF_INIT;
			char *src = xasprintf("%s/series/%s.json", FIXTURES_DIR, names[i]);
			char *dst = xasprintf("%s/report.json", d);
			ck_assert_int_eq(strbuf_read_file(&sb, src, 1 << 20), 0);
			ck_assert_int_eq(write_file_atomic(dst, sb.buf, sb.len, 0644), 0);
			strbuf_release(&sb);
			free(src);
			free(dst);
		}
		free(d);
	}
	return top;
}

static void remove_tree(const char *top)
{
	ck_assert_int_eq(rm_rf(top), 0);
}

START_TEST(series_from_iteration_dirs)
{
	/* Eleven iterations, so iter-10 and iter-11 must sort after iter-9. */
	static const char *const names[] = {
		"pass-default", "pass-default", "stall-negative", "pass-default", NULL, "pass-default",
		"pressure-lost-fixed", "pass-default", "pass-default", "pass-default", "stall-negative",
	};
	char *top = make_iterations(names, 11);
	struct series s = { 0 };
	struct series_stats st;
	char counts[256];

	ck_assert_int_eq(series_add_dir(&s, top), 11);
	ck_assert_uint_eq(s.n, 11);
	ck_assert_str_eq(s.runs[9].verdict, "PASS");
	ck_assert_str_eq(s.runs[10].verdict, "FAIL-STALL");
	ck_assert_str_eq(s.runs[4].verdict, "ERROR"); /* no report.json: not judged */
	series_stats(&s, &st);
	ck_assert_uint_eq(st.passed, 7);
	ck_assert_uint_eq(st.failed, 2);
	ck_assert_uint_eq(st.errors, 2);
	double lo, hi;
	wilson95(2, 9, &lo, &hi);
	ck_assert(fabs(st.fail_rate - 2.0 / 9) < EPS && st.fail_lo == lo && st.fail_hi == hi);
	/* Resume times: seven PASS at 97.59, two FAIL-STALL at 42.799, one at 57.61. */
	ck_assert_uint_eq(st.n_resume, 10);
	ck_assert(fabs(st.resume_med - 97.59) < EPS && fabs(st.resume_min - 42.799) < EPS);
	series_verdict_counts(&s, counts, sizeof(counts));
	ck_assert_str_eq(counts, "PASS x7, FAIL-STALL x2, ERROR x1, ERROR-PRESSURE-LOST x1");
	ck_assert_int_eq(series_exit_code(&s), 1);

	json_t *j = series_json(&s);
	ck_assert_int_eq(json_integer_value(json_object_get(j, "failed")), 2);
	ck_assert_int_eq(json_integer_value(json_object_get(json_object_get(j, "verdicts"), "PASS")), 7);
	ck_assert_int_eq(json_integer_value(json_object_get(j, "exit_code")), 1);
	json_decref(j);
	series_release(&s);
	remove_tree(top);
	free(top);
}
END_TEST

START_TEST(series_exit_codes)
{
	static const char *const pass[] = { "pass-default", "pass-default" };
	static const char *const unjudged[] = { "pass-default", "pressure-lost-fixed" };
	struct series s = { 0 };

	char *a = make_iterations(pass, 2), *b = make_iterations(unjudged, 2);
	ck_assert_int_eq(series_add_dir(&s, a), 2);
	ck_assert_int_eq(series_exit_code(&s), 0);
	series_release(&s);
	ck_assert_int_eq(series_add_dir(&s, b), 2);
	ck_assert_int_eq(series_exit_code(&s), 125); /* none failed, one not judged */
	/* One run directory (not iterations) adds itself; a missing one is -ENOENT. */
	char *one = xasprintf("%s/iter-1", a);
	ck_assert_int_eq(series_add_dir(&s, one), 1);
	ck_assert_int_eq(series_add_dir(&s, "/nonexistent/takeover"), -ENOENT);
	ck_assert_uint_eq(s.n, 3);
	series_release(&s);
	ck_assert_int_eq(series_exit_code(&s), 125); /* nothing at all: not judged */
	remove_tree(a);
	remove_tree(b);
	free(a);
	free(b);
	free(one);
}
END_TEST

static Suite *stats_suite(void)
{
	Suite *s = suite_create("stats");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, wilson_known_values);
	tcase_add_test(tc, wilson_degenerate);
	tcase_add_test(tc, fisher_known_values);
	tcase_add_test(tc, median_skips_nan);
	tcase_add_test(tc, series_from_iteration_dirs);
	tcase_add_test(tc, series_exit_codes);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(stats_suite());
	int failed;

	srunner_set_fork_status(sr, CK_FORK);
	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
