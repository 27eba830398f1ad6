// SPDX-License-Identifier: GPL-2.0-only
/* takeover down: remove clusters, also after the harness crashed. */
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

static int cmd_down(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "all", no_argument, NULL, 'a' },
		{ "stale", no_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const struct command *self = &command_down;
	char names[64][CLUSTER_NAME_MAX + 1];
	bool all = false;
	int ch, n = 0, bad = 0;

	while ((ch = getopt_long(argc, argv, "ash", longopts, NULL)) != -1) {
		switch (ch) {
		case 'a':
			all = true;
			break;
		case 's':
			log_info("%d stale cluster(s) removed", cluster_reap_stale());
			return TK_EXIT_PASS;
		case 'h':
			command_print_help(self);
			return TK_EXIT_PASS;
		default:
			return command_usage_error(self, "bad option");
		}
	}
	if (all == (optind < argc))
		return command_usage_error(self, "give CLUSTER names or --all");
	if (all) {
		n = cluster_list(names, 64);
	} else {
		for (int i = optind; i < argc && n < 64; i++)
			snprintf(names[n++], sizeof(names[0]), "%s", argv[i]);
	}
	for (int i = 0; i < n; i++) {
		char ns[80], *dir = xasprintf("%s/%s", cluster_state_root(), names[i]);
		bool exists = access(dir, F_OK) == 0;
		snprintf(ns, sizeof(ns), "takeover-%.16s", names[i]);
		exists |= net_inode(ns) != 0;
		free(dir);
		if (!exists) {
			log_info("no cluster %s: nothing to remove", names[i]);
			continue;
		}
		int r = cluster_down(names[i]);
		if (r == -EINVAL) {
			log_error("'%s' is not a cluster name", names[i]);
			return TK_EXIT_USAGE;
		}
		if (r < 0)
			bad = 1;
		else
			log_info("cluster %s removed", names[i]);
	}
	if (all && !n)
		log_info("no clusters");
	return bad ? TK_EXIT_SKIP : TK_EXIT_PASS;
}

const struct command command_down = {
	"down", cmd_down, "down CLUSTER... | --all | --stale",
	  "Remove clusters: domains, daemons, namespace, disks, sockets",
	  "Works on a cluster in any state, also after the harness crashed: it removes\n"
	  "only what it can prove belongs to the cluster (its namespace, the processes\n"
	  "inside it, domains named takeover-CLUSTER-*, its state directory).\n"
	  "--stale removes only the clusters of `takeover run`s whose process is gone;\n"
	  "every command that starts a cluster (run, up) does that first.\n\n"
	  "Exit status: 0 removed (or nothing to remove), 125 something could not be removed."
};
