// SPDX-License-Identifier: GPL-2.0-only
/*
 * takeover compare --kernel A --kernel B [--runs N] [SCENARIO]: the same
 * scenario on two kernels, interleaved (A B A B ...) so that drift of the
 * host affects both alike; a table of verdicts and takeover/throughput
 * statistics, compare.json and a plot. Each kernel's failure rate with its
 * 95 % Wilson interval, and Fisher's exact test between them: exit 1 only
 * when B fails more often than A with p < 0.05, the question a patch review
 * asks ("does B fail more?") with the answer chance alone rarely gives.
 */
#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/command.h"
#include "util/exitcode.h"
#include "util/paths.h"
#include "run/run.h"
#include "util/fs.h"
#include "util/log.h"
#include "report/series.h"
#include "util/cancel.h"
#include "util/stats.h"
#include "util/spawn.h"
#include "util/units.h"
#include "util/xalloc.h"

#define MAX_RUNS 50

struct side {
	const char *kernel;
	struct series runs; /* one run directory per round, in order */
};

/* One row of the table: counts, the failure rate with its interval, medians. */
static void print_side(FILE *f, const char *label, const struct side *sd)
{
	struct series_stats st;
	char counts[256];

	series_stats(&sd->runs, &st);
	series_verdict_counts(&sd->runs, counts, sizeof(counts));
	fprintf(f, "%-2s %3u/%-3u ", label, st.failed, st.passed + st.failed);
	if (st.passed + st.failed)
		fprintf(f, "%5.1f%% [%5.1f-%5.1f%%]", 100 * st.fail_rate, 100 * st.fail_lo, 100 * st.fail_hi);
	else
		fprintf(f, "%21s", "-");
	if (st.n_resume)
		fprintf(f, " %7.1f %7.1f %7.1f s", st.resume_med, st.resume_min, st.resume_max);
	else
		fprintf(f, " %7s %7s %7s s", "-", "-", "-");
	if (st.n_rate)
		fprintf(f, " %6.1f MiB/s", st.rate_med / 1048576);
	else
		fprintf(f, " %6s MiB/s", "-");
	fprintf(f, "  %s\n", counts);
}

static void print_table(FILE *f, const struct side sides[2], double p)
{
	fprintf(f, "\n%-2s %-7s %-21s %-25s %-12s %s\n", "", "failed", "rate [95% Wilson]", "resume (med min max)",
		"rate (med)", "verdicts");
	print_side(f, "A", &sides[0]);
	print_side(f, "B", &sides[1]);
	fprintf(f, "Fisher's exact test, two-sided: p = %.4g\n", p);
	for (int k = 0; k < 2; k++) {
		fprintf(f, "%s = %s\n   rounds:", k ? "B" : "A", sides[k].kernel);
		for (size_t i = 0; i < sides[k].runs.n; i++)
			fprintf(f, " %s", sides[k].runs.runs[i].verdict);
		fprintf(f, "\n");
	}
}

/* dir/index.html: the table, then every round in the order it ran (A-1, B-1, A-2, ...) linking to its page. */
static void html_page(const char *dir, const struct side sides[2], double p)
{
	struct series all = { 0 };
	char *text = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&text, &len);

	if (!mem)
		return;
	print_table(mem, sides, p);
	fclose(mem);
	for (size_t i = 0; i < sides[0].runs.n || i < sides[1].runs.n; i++)
		for (int k = 0; k < 2; k++)
			if (i < sides[k].runs.n)
				series_add_dir(&all, sides[k].runs.runs[i].dir);
	if (report_html_series(&all, dir, "takeover compare: A against B", text) < 0)
		log_warn("%s/index.html could not be written", dir);
	series_release(&all);
	free(text);
}

static json_t *side_json(const struct side *s)
{
	json_t *o = series_json(&s->runs);

	json_object_set_new(o, "kernel", json_string(s->kernel));
	return o;
}

/* compare.dat + compare.gp -> compare.svg: resume time of every round, A and B. */
static void plot(const char *dir, const struct side sides[2])
{
	char *dat = xasprintf("%s/compare.dat", dir), *gp = xasprintf("%s/compare.gp", dir);
	FILE *f = fopen(dat, "we");

	if (!f)
		goto out;
	for (int k = 0; k < 2; k++) {
		fprintf(f, "# %s\n", k ? "B" : "A");
		for (size_t i = 0; i < sides[k].runs.n; i++) {
			const struct series_run *r = &sides[k].runs.runs[i];
			fprintf(f, "%zu %g %s\n", i + 1, isfinite(r->resume_s) ? r->resume_s : 0.0, r->verdict);
		}
		fprintf(f, "\n\n");
	}
	fclose(f);
	f = fopen(gp, "we");
	if (!f)
		goto out;
	fprintf(f,
		"set terminal svg size 800,450\nset output '%s/compare.svg'\n"
		"set title 'takeover compare: loop-back writes resumed after the fault (0 = never)'\n"
		"set xlabel 'round'\nset ylabel 'seconds'\nset grid\nset style data linespoints\n"
		"plot '%s' index 0 using 1:2 title 'A' lw 2, '' index 1 using 1:2 title 'B' lw 2\n",
		dir, dat);
	fclose(f);
	const char *argv[] = { "gnuplot", gp, NULL };
	if (spawn_simple(argv, 60000, NULL) < 0)
		log_warn("gnuplot failed or is missing: no compare.svg");
out:
	free(dat);
	free(gp);
}

static int cmd_compare(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "kernel", required_argument, NULL, 'k' },
		{ "runs", required_argument, NULL, 'n' },
		{ "results", required_argument, NULL, 'R' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const struct command *self = &command_compare;
	struct side sides[2] = { 0 };
	struct run_opts o = { .quiet = true };
	int nk = 0, runs = 3, ch;
	const char *why, *results = NULL;
	struct scenario sc;
	uint64_t v;

	while ((ch = getopt_long(argc, argv, "k:n:R:h", longopts, NULL)) != -1) {
		switch (ch) {
		case 'k':
			if (nk == 2)
				return command_usage_error(self, "exactly two --kernel");
			sides[nk++].kernel = optarg;
			break;
		case 'n':
			if (parse_uint(optarg, &v, &why) < 0 || v < 1 || v > MAX_RUNS)
				return command_usage_error(self, "--runs '%s': expected 1..%d", optarg, MAX_RUNS);
			runs = (int)v;
			break;
		case 'R': results = optarg; break;
		case 'h': command_print_help(self); return TK_EXIT_PASS;
		default: return command_usage_error(self, "bad option");
		}
	}
	if (nk != 2)
		return command_usage_error(self, "need --kernel A and --kernel B (a bzImage, or 'debian')");
	if (argc - optind > 1)
		return command_usage_error(self, "at most one SCENARIO");
	if (load_scenario_arg(optind < argc ? argv[optind] : NULL, &sc))
		return TK_EXIT_USAGE;

	char stamp[32], *dir;
	time_t t = time(NULL);
	strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", localtime(&t));
	dir = results ? xasprintf("%s/compare-%s", results, stamp)
		      : xasprintf("%s/results/compare-%s", takeover_datadir(), stamp);
	mkdir_p(dir, 0755);
	o.results_root = dir;
	for (int i = 0; i < runs && !cancel_requested(); i++) {
		for (int k = 0; k < 2; k++) {
			char *rdir = xasprintf("%s/%s-%d", dir, k ? "B" : "A", i + 1);
			o.dir = rdir;
			o.kernel = strcmp(sides[k].kernel, "debian") ? sides[k].kernel : NULL;
			log_info("compare: round %d/%d, kernel %s", i + 1, runs, k ? "B" : "A");
			mkdir_p(rdir, 0755); /* a round whose cluster never came up counts, as not judged */
			int rc = run_scenario(&sc, &o, NULL);
			series_add_dir(&sides[k].runs, rdir);
			log_info("compare: round %d, %s: %s", i + 1, k ? "B" : "A",
				 sides[k].runs.runs[sides[k].runs.n - 1].verdict);
			free(rdir);
			if (rc == TK_EXIT_USAGE)
				goto done;
		}
	}
done:;
	struct series_stats sa, sb;
	series_stats(&sides[0].runs, &sa);
	series_stats(&sides[1].runs, &sb);
	double p = fisher_exact_2x2(sa.failed, sa.passed, sb.failed, sb.passed);
	/* B regresses when it fails more often than A, and chance explains that poorly. */
	bool judged = sa.passed + sa.failed && sb.passed + sb.failed;
	bool regress = judged && sb.fail_rate > sa.fail_rate && p < 0.05;
	print_table(stdout, sides, p);
	json_t *j = json_object();
	json_object_set_new(j, "scenario", json_string(sc.path));
	json_object_set_new(j, "A", side_json(&sides[0]));
	json_object_set_new(j, "B", side_json(&sides[1]));
	json_object_set_new(j, "fisher_p", json_real(p));
	json_object_set_new(j, "b_fails_more_often", json_boolean(regress));
	char *path = xasprintf("%s/compare.json", dir), *text = json_dumps(j, JSON_INDENT(2));
	write_file_atomic(path, text, strlen(text), 0644);
	plot(dir, sides);
	html_page(dir, sides, p);
	printf("results: %s (index.html, compare.json, compare.svg, one directory per run)\n", dir);
	free(text);
	free(path);
	json_decref(j);
	free(dir);
	scenario_release(&sc);
	series_release(&sides[0].runs);
	series_release(&sides[1].runs);
	if (!judged)
		return TK_EXIT_SKIP;
	return regress ? TK_EXIT_FAIL : TK_EXIT_PASS;
}

const struct command command_compare = {
	"compare", cmd_compare, "compare --kernel A --kernel B [--runs N] [--results DIR] [SCENARIO]",
	  "Run a scenario on two kernels, interleaved, and compare",
	  "A and B are bzImages (or 'debian' for the image's kernel). Runs A, B, A, B, ...\n"
	  "N rounds (default 3), then prints each kernel's failure rate (failed of judged)\n"
	  "with its 95 % Wilson interval, verdict counts, takeover/throughput statistics\n"
	  "(median, min, max) and Fisher's exact test (two-sided p) between A and B, and\n"
	  "writes compare.json and compare.svg. Runs that could not be judged (ERROR)\n"
	  "count on neither side.\n\n"
	  "Exit status: 1 when B fails more often than A with p < 0.05, 0 otherwise\n"
	  "(more failures on B that chance could explain are not a regression: run more\n"
	  "rounds), 125 when either side has no judged round, 2 bad usage."
};
