// SPDX-License-Identifier: GPL-2.0-only
/* takeover run: a failover scenario, judged. */
#include <getopt.h>
#include <stdio.h>

#include "cli/command.h"
#include "run/run.h"
#include "scenario/scenario.h"
#include "util/exitcode.h"
#include "util/log.h"
#include "util/units.h"

static int cmd_run(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "results", required_argument, NULL, 'R' },
		{ "cache-dir", required_argument, NULL, 'C' },
		{ "name", required_argument, NULL, 'n' },
		{ "keep", no_argument, NULL, 'k' },
		{ "keep-on-fail", no_argument, NULL, 'K' },
		{ "vmcore", no_argument, NULL, 'V' },
		{ "kernel", required_argument, NULL, 'k' + 256 },
		{ "initrd", required_argument, NULL, 'i' + 256 },
		{ "modules", required_argument, NULL, 'm' + 256 },
		{ "kernel-tree", required_argument, NULL, 't' + 256 },
		{ "iterations", required_argument, NULL, 'N' },
		{ "until-fail", no_argument, NULL, 'U' },
		{ "cold", no_argument, NULL, 'c' + 256 },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const struct command *self = &command_run;
	struct run_opts o = { .quiet = progress_is_quiet() };
	struct scenario sc;
	int ch, ret, iterations = 0;
	bool until_fail = false;
	const char *why;
	uint64_t v;

	while ((ch = getopt_long(argc, argv, "R:C:n:kKVqh", longopts, NULL)) != -1) {
		switch (ch) {
		case 'R': o.results_root = optarg; break;
		case 'C': o.cache_dir = optarg; break;
		case 'n': o.name = optarg; break;
		case 'k': o.keep = true; break;
		case 'K': o.keep_on_fail = true; break;
		case 'V': o.vmcore = true; break;
		case 'k' + 256: o.kernel = optarg; break;
		case 'i' + 256: o.initrd = optarg; break;
		case 'm' + 256: o.modules = optarg; break;
		case 't' + 256: o.kernel_tree = optarg; break;
		case 'N':
			if (parse_uint(optarg, &v, &why) < 0 || v < 1 || v > 1000)
				return command_usage_error(self, "--iterations '%s': expected 1..1000", optarg);
			iterations = (int)v;
			break;
		case 'U': until_fail = true; break;
		case 'c' + 256: o.cold = true; break;
		case 'q': o.quiet = true; progress_set_quiet(true); break;
		case 'h': command_print_help(self); return TK_EXIT_PASS;
		default: return command_usage_error(self, "bad option");
		}
	}
	if (argc - optind > 1)
		return command_usage_error(self, "at most one SCENARIO");
	ret = load_scenario_arg(optind < argc ? argv[optind] : NULL, &sc);
	if (ret)
		return ret;
	if (!iterations)
		iterations = sc.verdict.iterations;
	if (o.keep && (iterations > 1 || until_fail)) {
		scenario_release(&sc);
		return command_usage_error(self, "--keep keeps one cluster: not with --until-fail or %d iterations",
					   iterations);
	}
	if (sc.fault.repeat > 1) {
		fprintf(stderr, "%s: [fault] repeat = %d: only one fault per run is implemented so far\n",
			sc.path, sc.fault.repeat);
		scenario_release(&sc);
		return TK_EXIT_USAGE;
	}
	ret = iterations > 1 || until_fail ? run_iterations(&sc, &o, iterations, until_fail)
					   : run_scenario(&sc, &o, NULL);
	scenario_release(&sc);
	return ret;
}

const struct command command_run = {
	"run", cmd_run, "run [--keep | --keep-on-fail] [--iterations N [--until-fail]] [--cold] [--vmcore] [--kernel BZIMAGE [--initrd F] [--modules DIR] | --kernel-tree DIR] [--results DIR] [--name NAME] [--quiet] [SCENARIO]",
	  "Run a failover scenario and judge the kernel",
	  "Brings a cluster up for SCENARIO (default: the built-in loopback-failover),\n"
	  "starts the writers, checks steady progress, applies memory pressure, injects\n"
	  "the fault, watches Pacemaker move the NFS group and the takeover node's\n"
	  "loop-back writes, verifies every acknowledged record, and judges.\n\n"
	  "  --keep           leave the cluster running afterwards\n"
	  "  --keep-on-fail   leave it running only when the verdict is not PASS\n"
	  "  --iterations N   judge N failovers, each on a cluster of its own (restored\n"
	  "                   from the same snapshot of a ready cluster), into\n"
	  "                   iter-1/ ... iter-N/ of one results directory; the summary\n"
	  "                   (also summary.json) gives verdict counts, the failure rate\n"
	  "                   with its 95 % Wilson interval, and resume time and rate\n"
	  "                   (median, min, max). Default: [verdict] iterations (1)\n"
	  "  --until-fail     stop at the first failing iteration (with --keep-on-fail\n"
	  "                   its cluster stays up; --keep-on-fail alone also stops there)\n"
	  "  --cold           boot the cluster cold; without it, the first ready cluster\n"
	  "                   of a shape is saved (CACHE/snapshots/) and later runs of\n"
	  "                   that shape restore it in seconds (see `takeover help up`)\n"
	  "  --vmcore         on a stall or takeover timeout, also dump the takeover\n"
	  "                   node's memory (ELF, for crash(8)) into the results\n"
	  "  --results DIR    write results/<run-id>/ under DIR (default: <source>/results)\n"
	  "  --kernel BZIMAGE the kernel under test (overrides [kernel] image); --initrd and\n"
	  "                   --modules (a modules_install root or lib/modules dir) with it\n"
	  "  --kernel-tree DIR a built kernel tree: its bzImage and, when it has modules,\n"
	  "                   their modules_install output. Not built: exit 125 (bisect skips)\n\n"
	  "Exit status: 0 PASS, 1 FAIL-* (the kernel failed), 2 bad usage or scenario,\n"
	  "125 ERROR (could not test; git bisect run skips). Over iterations: 1 when any\n"
	  "failed, else 125 when any could not be judged, else 0."
};
