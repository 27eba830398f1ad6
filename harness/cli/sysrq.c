// SPDX-License-Identifier: GPL-2.0-only
/* takeover sysrq: sysrq keys through the virtual keyboard, and what the kernel printed. */
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

static off_t file_size(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 ? st.st_size : 0;
}

static void print_new_console(const char *path, off_t from, unsigned max_ms)
{
	uint64_t deadline = now_ms() + max_ms, last_change = now_ms();
	off_t last = file_size(path);
	char buf[65536];
	int fd;

	/* The kernel prints for a while; done when the console stays quiet for 2 s. */
	while (now_ms() < deadline && now_ms() - last_change < 2000) {
		usleep(200 * 1000);
		off_t now = file_size(path);
		if (now != last) {
			last = now;
			last_change = now_ms();
		}
	}
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	lseek(fd, from, SEEK_SET);
	for (ssize_t n; (n = read(fd, buf, sizeof(buf))) > 0;)
		fwrite(buf, 1, (size_t)n, stdout);
	close(fd);
}

static int cmd_sysrq(int argc, char **argv)
{
	const struct command *self = &command_sysrq;
	struct cluster c;
	int rc = TK_EXIT_PASS;

	if (argc == 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		command_print_help(self);
		return TK_EXIT_PASS;
	}
	if (argc != 4)
		return command_usage_error(self, "need CLUSTER NODE KEYS");
	if (cluster_load(argv[1], &c) < 0) {
		log_error("no cluster '%s' in %s", argv[1], cluster_state_root());
		return TK_EXIT_USAGE;
	}
	struct node *nd = cluster_node_by_name(&c, argv[2]);
	for (const char *k = argv[3]; nd && *k; k++)
		if (!((*k >= 'a' && *k <= 'z') || (*k >= '0' && *k <= '9'))) {
			cluster_release(&c);
			return command_usage_error(self, "'%c' is not a sysrq key (a-z, 0-9)", *k);
		}
	if (!nd) {
		log_error("cluster %s has no node '%s'", c.name, argv[2]);
		rc = TK_EXIT_USAGE;
	} else if (cluster_connect_libvirt(&c) < 0) {
		rc = TK_EXIT_SKIP;
	}
	for (const char *k = argv[3]; rc == TK_EXIT_PASS && *k; k++) {
		off_t from = file_size(nd->console);
		if (capture_sysrq(c.conn, nd->domain, *k) < 0) {
			rc = TK_EXIT_SKIP;
			break;
		}
		print_new_console(nd->console, from, 30000);
	}
	cluster_release(&c);
	return rc;
}

const struct command command_sysrq = {
	"sysrq", cmd_sysrq, "sysrq CLUSTER NODE KEYS",
	  "Send sysrq keys to a node and print what its kernel printed",
	  "Each key (a-z, 0-9) goes through the node's virtual keyboard (Alt+SysRq+key),\n"
	  "so it works however stuck the guest's user space is; the console output that\n"
	  "follows is printed until the console stays quiet for 2 s. Useful keys: w\n"
	  "(blocked tasks), t (all tasks), m (memory), l (backtrace of all CPUs), c (crash).\n"
	  "Example: takeover sysrq c1 n1 wm"
};
