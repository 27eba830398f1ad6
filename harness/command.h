/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef TAKEOVER_COMMAND_H
#define TAKEOVER_COMMAND_H
/*
 * Subcommands, dispatched from the one table in main.c (git's commands[]).
 * Each returns an exit code from exitcode.h; none calls exit().
 */
struct command {
	const char *name;
	int (*run)(int argc, char **argv); /* argv[0] is the subcommand name */
	const char *usage;                 /* "check [--dump] [SCENARIO...]" */
	const char *summary;               /* one line for `takeover --help` */
	const char *help;                  /* the rest of `takeover help NAME` */
};

const struct command *command_find(const char *name);
/* Prints "usage: takeover <usage>" and a hint to stderr; returns TK_EXIT_USAGE. */
int command_usage_error(const struct command *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void command_print_help(const struct command *cmd);

int cmd_check(int argc, char **argv);
int cmd_help(int argc, char **argv);
int cmd_image(int argc, char **argv);
int cmd_up(int argc, char **argv);
int cmd_status(int argc, char **argv);
int cmd_down(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_exec(int argc, char **argv);
int cmd_sysrq(int argc, char **argv);
int cmd_kernel(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_report(int argc, char **argv);

struct scenario;
/* Loads SCENARIO (NULL: the built-in default), printing its problems; an exit code. */
int load_scenario_arg(const char *path, struct scenario *sc);
int cmd_help_scenario(int argc, char **argv);

#endif
