// SPDX-License-Identifier: GPL-2.0-only
/*
 * takeover: loop-back NFS failover test harness. This file only dispatches;
 * each subcommand lives in cmd_*.c and is listed once in commands[] below.
 */
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <libvirt/virterror.h>

#include "command.h"
#include "exitcode.h"
#include "util/lev.h"
#include "util/cancel.h"
#include "util/log.h"
#include "version.h"

static const struct command commands[] = {
	{ "check", cmd_check, "check [--dump] [--quiet] [SCENARIO...]",
	  "Validate scenario files (default: the built-in scenario)",
	  "Parses each SCENARIO and reports every problem as FILE:LINE: [section] key: reason.\n"
	  "With no SCENARIO, checks the built-in default (scenarios/loopback-failover.ini).\n\n"
	  "  --dump    print the effective scenario, every key with its value\n"
	  "  --quiet   print nothing on success\n\n"
	  "Exit status: 0 when every file is valid, 2 otherwise." },
	{ "image", cmd_image, "image build|info|gc [--cache-dir DIR] [--force] [--quiet] [--json] [--keep N]",
	  "Build, describe or prune the cached guest node image",
	  "build  build the node image unless the cache has one for the current recipe;\n"
	  "       prints its directory. --force rebuilds. Needs root.\n"
	  "info   print the manifest of the current recipe's image (--json: as JSON)\n"
	  "gc     remove all but the newest N images (--keep N, default 2; the current\n"
	  "       recipe's image is always kept) and interrupted builds\n\n"
	  "The cache is /var/cache/takeover unless --cache-dir or TAKEOVER_CACHE_DIR says\n"
	  "otherwise. Images are keyed by a hash of images/build-image.sh, packages.list,\n"
	  "overlay/ and the guest programs: an unchanged recipe is a cache hit.\n\n"
	  "Exit status: 0 done, 2 bad usage, 125 the image could not be built." },
	{ "run", cmd_run, "run [--keep | --keep-on-fail] [--vmcore] [--kernel BZIMAGE [--initrd F] [--modules DIR] | --kernel-tree DIR] [--results DIR] [--name NAME] [--quiet] [SCENARIO]",
	  "Run a failover scenario and judge the kernel",
	  "Brings a cluster up for SCENARIO (default: the built-in loopback-failover),\n"
	  "starts the writers, checks steady progress, applies memory pressure, injects\n"
	  "the fault, watches Pacemaker move the NFS group and the takeover node's\n"
	  "loop-back writes, verifies every acknowledged record, and judges.\n\n"
	  "  --keep           leave the cluster running afterwards\n"
	  "  --keep-on-fail   leave it running only when the verdict is not PASS\n"
	  "  --vmcore         on a stall or takeover timeout, also dump the takeover\n"
	  "                   node's memory (ELF, for crash(8)) into the results\n"
	  "  --results DIR    write results/<run-id>/ under DIR (default: <source>/results)\n"
	  "  --kernel BZIMAGE the kernel under test (overrides [kernel] image); --initrd and\n"
	  "                   --modules (a modules_install root or lib/modules dir) with it\n"
	  "  --kernel-tree DIR a built kernel tree: its bzImage and, when it has modules,\n"
	  "                   their modules_install output. Not built: exit 125 (bisect skips)\n\n"
	  "Exit status: 0 PASS, 1 FAIL-* (the kernel failed), 2 bad usage or scenario,\n"
	  "125 ERROR (could not test; git bisect run skips)." },
	{ "up", cmd_up, "up [--name NAME] [--kernel BZIMAGE [--initrd F] [--modules DIR] | --kernel-tree DIR] [--cache-dir DIR] [--quiet] [SCENARIO]",
	  "Start a cluster for SCENARIO and leave it running",
	  "Builds the image if needed, then creates the cluster's network namespace,\n"
	  "its own libvirtd and fence_virtd, the disks and the domains, configures\n"
	  "Pacemaker (Filesystem -> nfsserver -> exportfs -> IPaddr2) with fencing, and\n"
	  "mounts the export on every node. Readiness is checked from inside the guests.\n"
	  "Prints the cluster name (c1, c2, ... unless --name) on stdout.\n\n"
	  "Exit status: 0 up, 2 bad usage or scenario, 125 could not start (everything\n"
	  "it created is removed again)." },
	{ "status", cmd_status, "status [--json] [CLUSTER...]",
	  "Show nodes, membership, the NFS group, mounts and fencing",
	  "With no CLUSTER, every cluster on this host." },
	{ "down", cmd_down, "down CLUSTER... | --all | --stale",
	  "Remove clusters: domains, daemons, namespace, disks, sockets",
	  "Works on a cluster in any state, also after the harness crashed: it removes\n"
	  "only what it can prove belongs to the cluster (its namespace, the processes\n"
	  "inside it, domains named takeover-CLUSTER-*, its state directory).\n"
	  "--stale removes only the clusters of `takeover run`s whose process is gone;\n"
	  "every run does that first.\n\n"
	  "Exit status: 0 removed (or nothing to remove), 125 something could not be removed." },
	{ "exec", cmd_exec, "exec [--timeout DURATION] CLUSTER NODE COMMAND [ARG...]",
	  "Run a command on a node through its agent",
	  "Prints the command's output (stdout and stderr merged) and exits with its exit\n"
	  "status; 124 when it ran into --timeout (default 60s), 125 when the agent did\n"
	  "not answer. No shell is involved: use 'sh -c ...' for one." },
	{ "sysrq", cmd_sysrq, "sysrq CLUSTER NODE KEYS",
	  "Send sysrq keys to a node and print what its kernel printed",
	  "Each key (a-z, 0-9) goes through the node's virtual keyboard (Alt+SysRq+key),\n"
	  "so it works however stuck the guest's user space is; the console output that\n"
	  "follows is printed until the console stays quiet for 2 s. Useful keys: w\n"
	  "(blocked tasks), t (all tasks), m (memory), l (backtrace of all CPUs), c (crash).\n"
	  "Example: takeover sysrq c1 n1 wm" },
	{ "kernel", cmd_kernel,
	  "kernel build [--source debian-6.1|debian-6.12|DIR] [--patches DIR] [--config FRAGMENT]... [--debug] [--jobs N]",
	  "Build (or find in the cache) a guest kernel to test",
	  "Debian's linux-source package (installed when missing, with the build\n"
	  "dependencies) or a git tree DIR (HEAD plus local changes, copied: the tree is\n"
	  "not touched); --patches DIR applies DIR/series in order and stops with the\n"
	  "patch's name when one does not apply; images/kernel/takeover.config (virtio,\n"
	  "NFS client and server, ext4, watchdogs, sysrq built in: no initrd needed) and\n"
	  "any --config fragments are merged onto defconfig + kvm_guest.config; --debug\n"
	  "adds images/kernel/debug.config (lockdep, DWARF for crash). Cached under\n"
	  "CACHE/kernels/<hash of source, patches, config>. Prints the bzImage path:\n"
	  "  takeover run --kernel \"$(takeover kernel build --patches images/kernel/patches/known-bad)\"\n\n"
	  "Exit status: 0 built or cached, 2 bad usage, 125 the build failed." },
	{ "compare", cmd_compare, "compare --kernel A --kernel B [--runs N] [--results DIR] [SCENARIO]",
	  "Run a scenario on two kernels, interleaved, and compare",
	  "A and B are bzImages (or 'debian' for the image's kernel). Runs A, B, A, B, ...\n"
	  "N rounds (default 3), then prints verdict counts and takeover/throughput\n"
	  "statistics (median, min, max), and writes compare.json and compare.svg.\n\n"
	  "Exit status: 1 when B failed a round A passed, 0 otherwise, 125 when no round\n"
	  "could be judged, 2 bad usage." },
	{ "report", cmd_report, "report [--scenario FILE] [--write] RESULTS_DIR",
	  "Judge a finished run again from its timeline",
	  "Reads RESULTS_DIR/timeline.jsonl and judges it with RESULTS_DIR/scenario.ini,\n"
	  "or with --scenario FILE (other criteria for the same recording). Prints the\n"
	  "summary and exits with the verdict's code; --write regenerates report.json,\n"
	  "junit.xml and the plot (without the steps and evidence of the original run)." },
	{ "help", cmd_help, "help [SUBCOMMAND | scenario [--markdown]]",
	  "Show help for a subcommand, or the scenario file reference",
	  "help scenario prints the reference of every scenario key, generated from the\n"
	  "option table; --markdown prints it as docs/scenario-reference.md." },
};

#define N_COMMANDS (sizeof(commands) / sizeof(commands[0]))

const struct command *command_find(const char *name)
{
	for (size_t i = 0; i < N_COMMANDS; i++)
		if (!strcmp(commands[i].name, name))
			return &commands[i];
	return NULL;
}

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
		fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].summary);
	fprintf(f,
		"\nExit status: 0 pass, 1 the kernel failed the scenario, 2 bad usage or\n"
		"scenario, 125 could not test (git bisect run skips it).\n"
		"'takeover help SUBCOMMAND' shows one subcommand; 'takeover help scenario'\n"
		"the scenario file reference.\n");
}

int cmd_help(int argc, char **argv)
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

static int unknown_command(const char *name)
{
	const char *names[N_COMMANDS + 1];
	const char *near;

	for (size_t i = 0; i < N_COMMANDS; i++)
		names[i] = commands[i].name;
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
