// SPDX-License-Identifier: GPL-2.0-only
/* takeover check, and takeover help scenario: the scenario language's front door. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli/command.h"
#include "util/exitcode.h"
#include "scenario/scenario.h"
#include "util/log.h"

static int check_one(const char *path, bool dump, bool quiet)
{
	struct strbuf errs = STRBUF_INIT;
	struct scenario sc;
	int n = scenario_load(path, &sc, &errs);

	if (n) {
		fputs(errs.buf, stderr);
		fprintf(stderr, "%s: %d problem%s\n", path, n > SCENARIO_MAX_ERRORS ? SCENARIO_MAX_ERRORS : n,
			n == 1 ? "" : "s");
		strbuf_release(&errs);
		return -1;
	}
	if (dump) {
		struct strbuf out = STRBUF_INIT;
		scenario_write(&sc, &out);
		fputs(out.buf, stdout);
		strbuf_release(&out);
	} else if (!quiet) {
		printf("%s: ok\n", path);
	}
	scenario_release(&sc);
	strbuf_release(&errs);
	return 0;
}

static int cmd_check(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "dump", no_argument, NULL, 'd' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const struct command *self = &command_check;
	bool dump = false, quiet = progress_is_quiet();
	int c, bad = 0;

	while ((c = getopt_long(argc, argv, "dqh", longopts, NULL)) != -1) {
		switch (c) {
		case 'd':
			dump = true;
			break;
		case 'q':
			quiet = true;
			break;
		case 'h':
			command_print_help(self);
			return TK_EXIT_PASS;
		default:
			return command_usage_error(self, "bad option");
		}
	}
	if (optind == argc)
		return check_one(scenario_default_path(), dump, quiet) ? TK_EXIT_USAGE : TK_EXIT_PASS;
	for (int i = optind; i < argc; i++)
		bad |= check_one(argv[i], dump, quiet) < 0;
	return bad ? TK_EXIT_USAGE : TK_EXIT_PASS;
}

int cmd_help_scenario(int argc, char **argv)
{
	struct strbuf out = STRBUF_INIT;
	bool md = argc > 1 && !strcmp(argv[1], "--markdown");

	if (argc > 2 || (argc == 2 && !md))
		return command_usage_error(&command_help, "unexpected argument '%s'", argv[argc - 1]);
	scenario_reference(&out, md);
	fputs(out.buf, stdout);
	strbuf_release(&out);
	return TK_EXIT_PASS;
}

const struct command command_check = {
	"check", cmd_check, "check [--dump] [--quiet] [SCENARIO...]",
	  "Validate scenario files (default: the built-in scenario)",
	  "Parses each SCENARIO and reports every problem as FILE:LINE: [section] key: reason.\n"
	  "With no SCENARIO, checks the built-in default (scenarios/loopback-failover.ini).\n\n"
	  "  --dump    print the effective scenario, every key with its value\n"
	  "  --quiet   print nothing on success\n\n"
	  "Exit status: 0 when every file is valid, 2 otherwise."
};
