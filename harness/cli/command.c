// SPDX-License-Identifier: GPL-2.0-only
/* What every subcommand shares: its help, its usage errors, loading SCENARIO. */
#include <stdarg.h>
#include <stdio.h>

#include "cli/command.h"
#include "scenario/scenario.h"
#include "util/exitcode.h"
#include "util/strbuf.h"

void command_print_help(const struct command *cmd)
{
	printf("usage: takeover %s\n\n%s.\n\n%s\n", cmd->usage, cmd->summary, cmd->help);
}

int command_usage_error(const struct command *cmd, const char *fmt, ...)
{
	va_list ap;

	fputs("takeover: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nusage: takeover %s\n(see 'takeover help %s')\n", cmd->usage, cmd->name);
	return TK_EXIT_USAGE;
}

/* Loads SCENARIO (or the default) and reports its problems; TK_EXIT_PASS when usable. */
int load_scenario_arg(const char *path, struct scenario *sc)
{
	struct strbuf errs = STRBUF_INIT;
	int n = scenario_load(path ? path : scenario_default_path(), sc, &errs);

	if (n)
		fputs(errs.buf, stderr);
	strbuf_release(&errs);
	return n ? TK_EXIT_USAGE : TK_EXIT_PASS;
}
