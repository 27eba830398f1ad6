// SPDX-License-Identifier: GPL-2.0-only
/*
 * takeover report RESULTS_DIR [--scenario FILE] [--write]: judge a finished
 * run again from its timeline.jsonl. With another scenario file the same
 * recording is judged by other criteria (say, a stricter max_stall) without
 * booting anything; --write regenerates report.json, junit.xml,
 * report.kcidb.json and the plot.
 *
 * takeover report DIR DIR...: the verdict over many runs (a directory of
 * iterations, or run directories from separate runs or hosts), from their
 * report.json files alone (report/series.c).
 */
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <errno.h>

#include "cli/command.h"
#include "util/exitcode.h"
#include "report/report.h"
#include "report/series.h"
#include "run/timeline.h"
#include "util/fs.h"
#include "util/log.h"
#include "util/xalloc.h"

/* The summary over dirs; with write and one directory, its summary.json again. */
static int report_series(char **dirs, int n, bool write)
{
	struct series s = { 0 };

	for (int i = 0; i < n; i++)
		if (series_add_dir(&s, dirs[i]) < 0) {
			log_error("%s: no such directory", dirs[i]);
			series_release(&s);
			return TK_EXIT_USAGE;
		}
	series_print(&s, n == 1 ? dirs[0] : "runs", stdout);
	int rc = series_exit_code(&s), ret = 0;
	if (write && n == 1)
		ret = series_write_summary(&s, dirs[0], NULL);
	series_release(&s);
	return ret < 0 ? TK_EXIT_SKIP : rc;
}

/* A directory a run wrote (its timeline), as opposed to one of iterations. */
static bool is_run_dir(const char *dir)
{
	char *tl = xasprintf("%s/timeline.jsonl", dir);
	bool yes = access(tl, F_OK) == 0;

	free(tl);
	return yes;
}

static int cmd_report(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "scenario", required_argument, NULL, 's' },
		{ "write", no_argument, NULL, 'w' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const struct command *self = &command_report;
	const char *scen = NULL;
	bool write = false;
	struct run_report rep = { 0 };
	struct verdict_input in;
	struct verdict v;
	struct scenario sc;
	int ch, bad;

	while ((ch = getopt_long(argc, argv, "s:wh", longopts, NULL)) != -1) {
		switch (ch) {
		case 's': scen = optarg; break;
		case 'w': write = true; break;
		case 'h': command_print_help(self); return TK_EXIT_PASS;
		default: return command_usage_error(self, "bad option");
		}
	}
	if (argc - optind < 1)
		return command_usage_error(self, "need a RESULTS_DIR");
	if (argc - optind > 1 || !is_run_dir(argv[optind])) {
		if (scen)
			return command_usage_error(self, "--scenario judges one run again: give one run's RESULTS_DIR");
		if (write && argc - optind > 1)
			return command_usage_error(self, "--write over many directories: give one directory of iterations");
		return report_series(argv + optind, argc - optind, write);
	}
	const char *dir = argv[optind];
	char *sp = scen ? xstrdup(scen) : xasprintf("%s/scenario.ini", dir);
	char *tl = xasprintf("%s/timeline.jsonl", dir);
	int rc = load_scenario_arg(sp, &sc);
	if (rc) {
		free(sp);
		free(tl);
		return rc;
	}
	if (timeline_load(tl, &sc, &in, &bad) < 0) {
		log_error("%s: cannot read the timeline", tl);
		scenario_release(&sc);
		free(sp);
		free(tl);
		return TK_EXIT_USAGE;
	}
	if (bad)
		log_warn("%s: %d malformed line%s skipped", tl, bad, bad == 1 ? "" : "s");
	verdict_judge(&in, &v);
	rep.sc = &sc;
	rep.v = &v;
	rep.in = &in;
	report_load(tl, sc.cluster.nodes, &rep);
	if (scen) /* judged by other criteria than the run's */
		snprintf(rep.scenario_path, sizeof(rep.scenario_path), "%s", scen);
	report_add_verdict_steps(&rep);
	report_summary(&rep, stdout);
	if (write) {
		report_write_all(&rep, dir);
	}
	rc = verdict_exit_code(v.cls);
	verdict_input_release(&in);
	report_release(&rep);
	scenario_release(&sc);
	free(sp);
	free(tl);
	return rc;
}

const struct command command_report = {
	"report", cmd_report, "report [--scenario FILE] [--write] RESULTS_DIR | report [--write] DIR...",
	  "Judge a finished run again from its timeline",
	  "Reads RESULTS_DIR/timeline.jsonl and judges it with RESULTS_DIR/scenario.ini,\n"
	  "or with --scenario FILE (other criteria for the same recording). Prints the\n"
	  "summary and exits with the verdict's code; --write regenerates report.json,\n"
	  "junit.xml, report.kcidb.json and the plot as the run wrote them (the run's\n"
	  "steps, nodes and\n"
	  "teardown are in its timeline; only the captured stacks are not re-read).\n\n"
	  "Given a directory of iterations (`run --iterations`), or several run or\n"
	  "iteration directories (from separate runs, or other hosts), prints the verdict\n"
	  "over all of them from their report.json files: verdict counts, the failure\n"
	  "rate with its 95 % Wilson interval, resume time and rate (median, min, max);\n"
	  "--write rewrites a directory of iterations' summary.json and its\n"
	  "report.kcidb.json (every iteration's KCIDB data in one). Exit status then:\n"
	  "1 when any run failed, else 125 when any could not be judged, else 0."
};
