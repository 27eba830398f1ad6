// SPDX-License-Identifier: GPL-2.0-only
/*
 * takeover: loop-back NFS failover test harness. This file only dispatches;
 * each subcommand lives in its own file of harness/cli/ and is listed once in
 * commands[] below.
 */
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <libvirt/virterror.h>

#include "cli/command.h"
#include "util/exitcode.h"
#include "util/lev.h"
#include "util/cancel.h"
#include "util/log.h"
#include "version.h"

static const struct command *const commands[] = {
	&command_check,
	&command_image,
	&command_run,
	&command_up,
	&command_status,
	&command_down,
	&command_exec,
	&command_sysrq,
	&command_kernel,
	&command_compare,
	&command_report,
	&command_triage,
	&command_help,
};

#define N_COMMANDS (sizeof(commands) / sizeof(commands[0]))

static const struct command *command_find(const char *name)
{
	for (size_t i = 0; i < N_COMMANDS; i++)
		if (!strcmp(commands[i]->name, name))
			return commands[i];
	return NULL;
}

static void print_main_help(FILE *f)
{
	fprintf(f,
		"usage: takeover [--verbose | --quiet] SUBCOMMAND [ARGS]\n"
		"       takeover --version | --help\n\n"
		"Boots a QEMU/libvirt HA cluster on the kernel under test, kills the NFS server\n"
		"under memory pressure and write load, and checks that the node taking over\n"
		"keeps making progress on its loop-back NFS mount.\n\n"
		"Subcommands:\n");
	for (size_t i = 0; i < N_COMMANDS; i++)
		fprintf(f, "  %-10s %s\n", commands[i]->name, commands[i]->summary);
	fprintf(f,
		"\nExit status: 0 pass, 1 the kernel failed the scenario, 2 bad usage or\n"
		"scenario, 125 could not test (git bisect run skips it).\n"
		"'takeover help SUBCOMMAND' shows one subcommand; 'takeover help scenario'\n"
		"the scenario file reference.\n");
}

static int cmd_help(int argc, char **argv)
{
	const struct command *cmd;

	if (argc < 2) {
		print_main_help(stdout);
		return TK_EXIT_PASS;
	}
	if (!strcmp(argv[1], "scenario"))
		return cmd_help_scenario(argc - 1, argv + 1);
	cmd = command_find(argv[1]);
	if (!cmd) {
		fprintf(stderr, "takeover: no help for '%s': not a subcommand\n", argv[1]);
		return TK_EXIT_USAGE;
	}
	command_print_help(cmd);
	return TK_EXIT_PASS;
}

const struct command command_help = {
	"help", cmd_help, "help [SUBCOMMAND | scenario [--markdown]]",
	  "Show help for a subcommand, or the scenario file reference",
	  "help scenario prints the reference of every scenario key, generated from the\n"
	  "option table; --markdown prints it as docs/scenario-reference.md."
};

static int unknown_command(const char *name)
{
	const char *names[N_COMMANDS + 1];
	const char *near;

	for (size_t i = 0; i < N_COMMANDS; i++)
		names[i] = commands[i]->name;
	names[N_COMMANDS] = NULL;
	near = closest_match(name, names);
	fprintf(stderr, "takeover: '%s' is not a takeover subcommand.", name);
	if (near)
		fprintf(stderr, " Did you mean '%s'?", near);
	fputs(" See 'takeover --help'.\n", stderr);
	return TK_EXIT_USAGE;
}

static void quiet_libvirt(void *ctx, virErrorPtr err)
{
	(void)ctx;
	(void)err;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "quiet", no_argument, NULL, 'q' },
		{ NULL, 0, NULL, 0 },
	};
	const struct command *cmd;
	int c;

	/* '+': stop at the subcommand; its options are its own. */
	while ((c = getopt_long(argc, argv, "+hVvq", longopts, NULL)) != -1) {
		switch (c) {
		case 'h':
			print_main_help(stdout);
			return TK_EXIT_PASS;
		case 'V':
			printf("takeover %s\n", TAKEOVER_VERSION);
			return TK_EXIT_PASS;
		case 'v':
			log_set_level(LOG_DEBUG);
			break;
		case 'q':
			progress_set_quiet(true);
			break;
		default:
			print_main_help(stderr);
			return TK_EXIT_USAGE;
		}
	}
	if (optind >= argc) {
		print_main_help(stderr);
		return TK_EXIT_USAGE;
	}
	cmd = command_find(argv[optind]);
	if (!cmd)
		return unknown_command(argv[optind]);
	argc -= optind;
	argv += optind;
	optind = 0; /* full getopt re-initialisation for the subcommand */
	cancel_install();
	/* libvirt prints every error to stderr by default; we report the ones that matter. */
	virSetErrorFunc(NULL, quiet_libvirt);
	return cmd->run(argc, argv);
}
