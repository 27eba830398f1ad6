// SPDX-License-Identifier: GPL-2.0-only
/*
 * takeover compare --kernel A --kernel B [--runs N] [SCENARIO]: the same
 * scenario on two kernels, interleaved (A B A B ...) so that drift of the
 * host affects both alike; a table of verdicts and takeover/throughput
 * statistics, compare.json and a plot. Exit 1 when B fails a round that A
 * passed: the question a patch review asks.
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
#include "util/spawn.h"
#include "util/units.h"
#include "util/xalloc.h"

#define MAX_RUNS 50

struct outcome {
	int exit_code;
	char verdict[32];
	double resume_s, rate_Bps, max_gap_s; /* NAN when not reached */
	char dir[512];
};

struct side {
	const char *kernel;
	struct outcome runs[MAX_RUNS];
	int n;
};

static double jnum(const json_t *o, const char *k)
{
	const json_t *v = json_object_get(o, k);

	return json_is_number(v) ? json_number_value(v) : NAN;
}

static void read_outcome(const char *dir, int exit_code, struct outcome *out)
{
	char *path = xasprintf("%s/report.json", dir ? dir : "/nonexistent");
	json_t *rep = json_load_file(path, 0, NULL);
	const json_t *tk = json_object_get(rep, "takeover");

	out->exit_code = exit_code;
	snprintf(out->verdict, sizeof(out->verdict), "%s",
		 json_string_value(json_object_get(json_object_get(rep, "verdict"), "class")) ?: "ERROR");
	out->resume_s = jnum(tk, "resume_s");
	out->rate_Bps = jnum(tk, "window_rate_Bps");
	out->max_gap_s = jnum(tk, "max_gap_s");
	snprintf(out->dir, sizeof(out->dir), "%s", dir ? dir : "");
	json_decref(rep);
	free(path);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* median, min, max of the finite values; count returned. */
static int stats(const struct side *s, size_t off, double *med, double *lo, double *hi)
{
	double v[MAX_RUNS];
	int n = 0;

	for (int i = 0; i < s->n; i++) {
		double x = *(const double *)((const char *)&s->runs[i] + off);
		if (isfinite(x))
			v[n++] = x;
	}
	if (!n)
		return 0;
	qsort(v, (size_t)n, sizeof(v[0]), cmp_double);
	*med = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
	*lo = v[0];
	*hi = v[n - 1];
	return n;
}

static void print_stat(const struct side *s, size_t off, const char *unit, double scale)
{
	double med, lo, hi;

	if (stats(s, off, &med, &lo, &hi))
		printf(" %8.1f %8.1f %8.1f %s", med / scale, lo / scale, hi / scale, unit);
	else
		printf(" %8s %8s %8s %s", "-", "-", "-", unit);
}

/* "PASS x3, FAIL-STALL x1": each verdict once, in order of first appearance. */
static void verdict_counts(const struct side *s, struct strbuf *out)
{
	for (int i = 0; i < s->n; i++) {
		int seen = 0, count = 0;
		for (int j = 0; j < s->n; j++) {
			if (strcmp(s->runs[j].verdict, s->runs[i].verdict))
				continue;
			seen += j < i;
			count++;
		}
		if (!seen)
			strbuf_addf(out, "%s%s x%d", out->len ? ", " : "", s->runs[i].verdict, count);
	}
}

static void print_table(const struct side sides[2])
{
	printf("\n%-4s %-6s %-34s %-29s %-29s\n", "", "passed", "verdicts", "resume after fault (med min max)",
	       "rate (med min max)");
	for (int k = 0; k < 2; k++) {
		const struct side *s = &sides[k];
		struct strbuf v = STRBUF_INIT;
		int pass = 0;
		for (int i = 0; i < s->n; i++)
			pass += !strcmp(s->runs[i].verdict, "PASS");
		verdict_counts(s, &v);
		printf("%-4s %d/%-4d %-34s", k ? "B" : "A", pass, s->n, v.buf);
		print_stat(s, offsetof(struct outcome, resume_s), "s  ", 1);
		print_stat(s, offsetof(struct outcome, rate_Bps), "MiB/s", 1048576);
		printf("\n");
		strbuf_release(&v);
	}
	for (int k = 0; k < 2; k++) {
		printf("%s = %s\n   rounds:", k ? "B" : "A", sides[k].kernel);
		for (int i = 0; i < sides[k].n; i++)
			printf(" %s", sides[k].runs[i].verdict);
		printf("\n");
	}
}

static json_t *side_json(const struct side *s)
{
	json_t *o = json_object(), *runs = json_array();

	json_object_set_new(o, "kernel", json_string(s->kernel));
	for (int i = 0; i < s->n; i++) {
		const struct outcome *r = &s->runs[i];
		json_t *j = json_object();
		json_object_set_new(j, "verdict", json_string(r->verdict));
		json_object_set_new(j, "exit_code", json_integer(r->exit_code));
		json_object_set_new(j, "resume_s", isfinite(r->resume_s) ? json_real(r->resume_s) : json_null());
		json_object_set_new(j, "rate_Bps", isfinite(r->rate_Bps) ? json_real(r->rate_Bps) : json_null());
		json_object_set_new(j, "max_gap_s", isfinite(r->max_gap_s) ? json_real(r->max_gap_s) : json_null());
		json_object_set_new(j, "results", json_string(r->dir));
		json_array_append_new(runs, j);
	}
	json_object_set_new(o, "runs", runs);
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
		for (int i = 0; i < sides[k].n; i++)
			fprintf(f, "%d %g %s\n", i + 1,
				isfinite(sides[k].runs[i].resume_s) ? sides[k].runs[i].resume_s : 0.0,
				sides[k].runs[i].verdict);
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
	int nk = 0, runs = 3, ch, regress = 0, judged = 0;
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
	for (int i = 0; i < runs; i++) {
		for (int k = 0; k < 2; k++) {
			char *rdir = NULL;
			o.kernel = strcmp(sides[k].kernel, "debian") ? sides[k].kernel : NULL;
			log_info("compare: round %d/%d, kernel %s", i + 1, runs, k ? "B" : "A");
			int rc = run_scenario(&sc, &o, &rdir);
			read_outcome(rdir, rc, &sides[k].runs[sides[k].n++]);
			log_info("compare: round %d, %s: %s", i + 1, k ? "B" : "A", sides[k].runs[sides[k].n - 1].verdict);
			free(rdir);
			if (rc == TK_EXIT_USAGE)
				goto done;
		}
		const struct outcome *a = &sides[0].runs[i], *b = &sides[1].runs[i];
		if (a->exit_code != TK_EXIT_SKIP && b->exit_code != TK_EXIT_SKIP) {
			judged++;
			regress += a->exit_code == TK_EXIT_PASS && b->exit_code == TK_EXIT_FAIL;
		}
	}
done:
	print_table(sides);
	json_t *j = json_object();
	json_object_set_new(j, "scenario", json_string(sc.path));
	json_object_set_new(j, "A", side_json(&sides[0]));
	json_object_set_new(j, "B", side_json(&sides[1]));
	json_object_set_new(j, "rounds_judged", json_integer(judged));
	json_object_set_new(j, "b_fails_where_a_passes", json_integer(regress));
	char *path = xasprintf("%s/compare.json", dir), *text = json_dumps(j, JSON_INDENT(2));
	write_file_atomic(path, text, strlen(text), 0644);
	plot(dir, sides);
	printf("results: %s (compare.json, compare.svg, one directory per run)\n", dir);
	free(text);
	free(path);
	json_decref(j);
	free(dir);
	scenario_release(&sc);
	if (!judged)
		return TK_EXIT_SKIP;
	return regress ? TK_EXIT_FAIL : TK_EXIT_PASS;
}

const struct command command_compare = {
	"compare", cmd_compare, "compare --kernel A --kernel B [--runs N] [--results DIR] [SCENARIO]",
	  "Run a scenario on two kernels, interleaved, and compare",
	  "A and B are bzImages (or 'debian' for the image's kernel). Runs A, B, A, B, ...\n"
	  "N rounds (default 3), then prints verdict counts and takeover/throughput\n"
	  "statistics (median, min, max), and writes compare.json and compare.svg.\n\n"
	  "Exit status: 1 when B failed a round A passed, 0 otherwise, 125 when no round\n"
	  "could be judged, 2 bad usage."
};
