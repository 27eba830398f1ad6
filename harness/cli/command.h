/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef TAKEOVER_COMMAND_H
#define TAKEOVER_COMMAND_H
/*
 * A subcommand is one file of harness/cli/ that defines its struct command
 * (options, usage and help next to the code that parses them) and is listed
 * once in commands[] of main.c (git's builtin/ and commands[]). Each returns
 * an exit code from util/exitcode.h; none calls exit().
 */
struct command {
	const char *name;
	int (*run)(int argc, char **argv); /* argv[0] is the subcommand name */
	const char *usage;                 /* "check [--dump] [SCENARIO...]" */
	const char *summary;               /* one line for `takeover --help` */
	const char *help;                  /* the rest of `takeover help NAME` */
};

extern const struct command command_check, command_image, command_run, command_up,
	command_status, command_down, command_exec, command_sysrq, command_kernel,
	command_compare, command_report, command_triage, command_help;

/* Prints "usage: takeover <usage>" and a hint to stderr; returns TK_EXIT_USAGE. */
int command_usage_error(const struct command *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void command_print_help(const struct command *cmd);

struct scenario;
/* Loads SCENARIO (NULL: the built-in default), printing its problems; an exit code. */
int load_scenario_arg(const char *path, struct scenario *sc);
/* `takeover help scenario [--markdown]` (check.c: it shares the option table's printers). */
int cmd_help_scenario(int argc, char **argv);

#endif
