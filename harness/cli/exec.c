// SPDX-License-Identifier: GPL-2.0-only
/* takeover exec: run a command on a node through its agent. */
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

static int cmd_exec(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "timeout", required_argument, NULL, 't' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const struct command *self = &command_exec;
	uint64_t timeout = 60000;
	struct cluster c;
	struct strbuf out = STRBUF_INIT;
	const char *why;
	int ch, rc, r;

	while ((ch = getopt_long(argc, argv, "+t:h", longopts, NULL)) != -1) {
		switch (ch) {
		case 't':
			if (parse_duration_ms(optarg, &timeout, &why) < 0)
				return command_usage_error(self, "--timeout '%s': %s", optarg, why);
			break;
		case 'h':
			command_print_help(self);
			return TK_EXIT_PASS;
		default:
			return command_usage_error(self, "bad option");
		}
	}
	if (argc - optind < 3)
		return command_usage_error(self, "need CLUSTER NODE COMMAND...");
	if (cluster_load(argv[optind], &c) < 0) {
		log_error("no cluster '%s' in %s", argv[optind], cluster_state_root());
		return TK_EXIT_USAGE;
	}
	struct node *nd = cluster_node_by_name(&c, argv[optind + 1]);
	if (!nd) {
		log_error("cluster %s has no node '%s'", c.name, argv[optind + 1]);
		cluster_release(&c);
		return TK_EXIT_USAGE;
	}
	r = channel_wait_hello(&nd->ch, now_ms() + 10000);
	if (!r)
		r = cluster_exec(&c, nd->id, (const char *const *)argv + optind + 2, timeout, &out, &rc);
	if (r < 0) {
		log_error("%s: the agent did not answer: %s (is another takeover process using it?)",
			  nd->name, strerror(-r));
		rc = TK_EXIT_SKIP;
	} else {
		fwrite(out.buf, 1, out.len, stdout);
	}
	strbuf_release(&out);
	cluster_release(&c);
	return rc;
}

const struct command command_exec = {
	"exec", cmd_exec, "exec [--timeout DURATION] CLUSTER NODE COMMAND [ARG...]",
	  "Run a command on a node through its agent",
	  "Prints the command's output (stdout and stderr merged) and exits with its exit\n"
	  "status; 124 when it ran into --timeout (default 60s), 125 when the agent did\n"
	  "not answer. No shell is involved: use 'sh -c ...' for one."
};
