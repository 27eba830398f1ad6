// SPDX-License-Identifier: GPL-2.0-only
/*
 * takeover report RESULTS_DIR [--scenario FILE] [--write]: judge a finished
 * run again from its timeline.jsonl. With another scenario file the same
 * recording is judged by other criteria (say, a stricter max_stall) without
 * booting anything; --write regenerates report.json, junit.xml and the plot.
 */
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/command.h"
#include "util/exitcode.h"
#include "report/report.h"
#include "run/timeline.h"
#include "util/log.h"
#include "util/xalloc.h"

/* Node roles and workloads, from the run's own events. */
static void roles_from_timeline(const char *path, struct run_report *rep)
{
	FILE *f = fopen(path, "re");
	char *line = NULL;
	size_t cap = 0;

	while (f && getline(&line, &cap, f) > 0) {
		json_t *o = json_loads(line, 0, NULL);
		const char *ev = json_string_value(json_object_get(o, "ev"));
		const char *node = json_string_value(json_object_get(o, "node"));
		if (ev && !strcmp(ev, "run-start")) {
			snprintf(rep->run_id, sizeof(rep->run_id), "%s",
				 json_string_value(json_object_get(o, "run_id")) ?: "");
			snprintf(rep->cluster, sizeof(rep->cluster), "%s",
				 json_string_value(json_object_get(o, "cluster")) ?: "");
			snprintf(rep->kernel_release, sizeof(rep->kernel_release), "%s",
				 json_string_value(json_object_get(o, "kernel_release")) ?: "");
		}
		for (int i = 0; node && ev && i < rep->nnodes; i++) {
			struct report_node *rn = &rep->nodes[i];
			if (strcmp(rn->name, node))
				continue;
			if (!strcmp(ev, "writer-start"))
				rn->writer = true;
			else if (!strcmp(ev, "pressure-start"))
				rn->pressure = true;
		}
		if (ev && !strcmp(ev, "roles")) {
			const char *v = json_string_value(json_object_get(o, "victim"));
			const char *t = json_string_value(json_object_get(o, "takeover"));
			for (int i = 0; i < rep->nnodes; i++) {
				struct report_node *rn = &rep->nodes[i];
				snprintf(rn->role, sizeof(rn->role), "%s",
					 v && !strcmp(rn->name, v) ? "victim" : t && !strcmp(rn->name, t) ? "takeover" : "client");
			}
		}
		json_decref(o);
	}
	free(line);
	if (f)
		fclose(f);
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
	if (argc - optind != 1)
		return command_usage_error(self, "need one RESULTS_DIR");
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
	snprintf(rep.scenario_path, sizeof(rep.scenario_path), "%s", sp);
	rep.nnodes = sc.cluster.nodes;
	for (int i = 0; i < rep.nnodes; i++) {
		snprintf(rep.nodes[i].name, sizeof(rep.nodes[i].name), "n%d", (i + 1) % 100);
		snprintf(rep.nodes[i].role, sizeof(rep.nodes[i].role), "client");
		snprintf(rep.nodes[i].console, sizeof(rep.nodes[i].console), "console-n%d.log", (i + 1) % 100);
	}
	roles_from_timeline(tl, &rep);
	report_summary(&rep, stdout);
	if (write) {
		char *p = xasprintf("%s/report.json", dir);
		report_json(&rep, p);
		free(p);
		p = xasprintf("%s/junit.xml", dir);
		report_junit(&rep, p);
		free(p);
		report_plot(&rep, dir);
	}
	rc = verdict_exit_code(v.cls);
	verdict_input_release(&in);
	scenario_release(&sc);
	free(sp);
	free(tl);
	return rc;
}

const struct command command_report = {
	"report", cmd_report, "report [--scenario FILE] [--write] RESULTS_DIR",
	  "Judge a finished run again from its timeline",
	  "Reads RESULTS_DIR/timeline.jsonl and judges it with RESULTS_DIR/scenario.ini,\n"
	  "or with --scenario FILE (other criteria for the same recording). Prints the\n"
	  "summary and exits with the verdict's code; --write regenerates report.json,\n"
	  "junit.xml and the plot (without the steps and evidence of the original run)."
};
