// SPDX-License-Identifier: GPL-2.0-only
/* takeover up: start a cluster for a scenario and leave it running. */
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cluster/cluster.h"
#include "cli/command.h"
#include "util/exitcode.h"
#include "forensics/capture.h"
#include "cluster/net.h"
#include "util/log.h"
#include "util/spawn.h"
#include "util/units.h"
#include "util/xalloc.h"

static int cmd_up(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "name", required_argument, NULL, 'n' },
		{ "kernel", required_argument, NULL, 'K' },
		{ "initrd", required_argument, NULL, 'I' },
		{ "modules", required_argument, NULL, 'M' },
		{ "kernel-tree", required_argument, NULL, 'T' },
		{ "cache-dir", required_argument, NULL, 'C' },
		{ "cold", no_argument, NULL, 'c' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const struct command *self = &command_up;
	struct up_opts o = { .quiet = progress_is_quiet() };
	struct scenario sc;
	struct cluster c;
	int ch, r;

	while ((ch = getopt_long(argc, argv, "n:C:qh", longopts, NULL)) != -1) {
		switch (ch) {
		case 'n':
			o.name = optarg;
			break;
		case 'K':
			o.kernel = optarg;
			break;
		case 'I':
			o.initrd = optarg;
			break;
		case 'M':
			o.modules = optarg;
			break;
		case 'T':
			o.kernel_tree = optarg;
			break;
		case 'C':
			o.cache_dir = optarg;
			break;
		case 'c':
			o.cold = true;
			break;
		case 'q':
			o.quiet = true;
			progress_set_quiet(true);
			break;
		case 'h':
			command_print_help(self);
			return TK_EXIT_PASS;
		default:
			return command_usage_error(self, "bad option");
		}
	}
	if (argc - optind > 1)
		return command_usage_error(self, "at most one SCENARIO");
	r = load_scenario_arg(optind < argc ? argv[optind] : NULL, &sc);
	if (r)
		return r;
	r = cluster_up(&sc, &o, &c);
	scenario_release(&sc);
	if (r < 0)
		return r == -EINVAL ? TK_EXIT_USAGE : TK_EXIT_SKIP;
	printf("%s\n", c.name);
	if (!o.quiet)
		fprintf(stderr,
			"cluster %s is up.\n"
			"  consoles:  virsh -c '%s' console %s\n"
			"  status:    takeover status %s\n"
			"  remove:    takeover down %s\n",
			c.name, c.uri, c.nodes[0].domain, c.name, c.name);
	cluster_release(&c);
	return TK_EXIT_PASS;
}

const struct command command_up = {
	"up", cmd_up, "up [--name NAME] [--kernel BZIMAGE [--initrd F] [--modules DIR] | --kernel-tree DIR] [--cache-dir DIR] [--cold] [--quiet] [SCENARIO]",
	  "Start a cluster for SCENARIO and leave it running",
	  "Builds the image if needed, then creates the cluster's network namespace,\n"
	  "its own libvirtd and fence_virtd, the disks and the domains, configures\n"
	  "Pacemaker (Filesystem -> nfsserver -> exportfs -> IPaddr2) with fencing, and\n"
	  "mounts the export on every node. Readiness is checked from inside the guests.\n\n"
	  "Warm start: the first ready cluster of a shape (image, kernel and modules,\n"
	  "nodes, memory, vCPUs, accel, subnet, fencing, token, NFS keys, rendered\n"
	  "configuration) is saved to CACHE/snapshots/<key>/ (every node paused at once,\n"
	  "libvirt's save of each, the disks), and every later `up` or `run` of that\n"
	  "shape restores it instead of booting: fresh overlays on the saved disks, then\n"
	  "the same checks (agents, membership, the NFS group on the node it was on,\n"
	  "mounts) and the clocks stepped to the host's. A snapshot that fails them is\n"
	  "removed and the cluster boots cold, saying why. `takeover image gc` prunes\n"
	  "snapshots with the images.\n"
	  "  --cold           boot cold: no snapshot is restored or saved\n\n"
	  "Prints the cluster name (c1, c2, ... unless --name) on stdout.\n\n"
	  "Exit status: 0 up, 2 bad usage or scenario, 125 could not start (everything\n"
	  "it created is removed again)."
};
