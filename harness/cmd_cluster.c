// SPDX-License-Identifier: GPL-2.0-only
/* takeover up | status | down: a cluster by hand, for poking at with virsh and crm. */
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cluster.h"
#include "command.h"
#include "exitcode.h"
#include "forensics/capture.h"
#include "net.h"
#include "util/log.h"
#include "util/spawn.h"
#include "util/units.h"
#include "util/xalloc.h"

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

int cmd_up(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "name", required_argument, NULL, 'n' },
		{ "kernel", required_argument, NULL, 'K' },
		{ "initrd", required_argument, NULL, 'I' },
		{ "modules", required_argument, NULL, 'M' },
		{ "kernel-tree", required_argument, NULL, 'T' },
		{ "cache-dir", required_argument, NULL, 'C' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const struct command *self = command_find("up");
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
			"  consoles:  virsh -c '%s' console takeover-%s-n1\n"
			"  status:    takeover status %s\n"
			"  remove:    takeover down %s\n",
			c.name, c.uri, c.name, c.name, c.name);
	cluster_release(&c);
	return TK_EXIT_PASS;
}

/* ---- status ---- */

static const char *domain_state(struct cluster *c, const struct node *nd)
{
	static const char *const names[] = {
		[VIR_DOMAIN_NOSTATE] = "nostate", [VIR_DOMAIN_RUNNING] = "running",
		[VIR_DOMAIN_BLOCKED] = "blocked", [VIR_DOMAIN_PAUSED] = "paused",
		[VIR_DOMAIN_SHUTDOWN] = "shutdown", [VIR_DOMAIN_SHUTOFF] = "shutoff",
		[VIR_DOMAIN_CRASHED] = "crashed", [VIR_DOMAIN_PMSUSPENDED] = "suspended",
	};
	virDomainPtr d;
	int state = -1, reason;

	if (!c->conn)
		return "unknown";
	d = virDomainLookupByName(c->conn, nd->domain);
	if (!d)
		return "absent";
	if (virDomainGetState(d, &state, &reason, 0) < 0)
		state = -1;
	virDomainFree(d);
	return state >= 0 && state <= VIR_DOMAIN_PMSUSPENDED ? names[state] : "unknown";
}

static void node_mount(struct cluster *c, struct node *nd, char *buf, size_t len)
{
	const char *argv[] = { "findmnt", "-n", "-o", "SOURCE,FSTYPE,OPTIONS", NFS_MOUNT_DIR, NULL };
	struct strbuf out = STRBUF_INIT;
	int rc;

	snprintf(buf, len, "unknown (agent unreachable)");
	if (nd->ch.hello && cluster_exec(c, nd->id, argv, 10000, &out, &rc) == 0) {
		strbuf_rtrim(&out);
		snprintf(buf, len, "%s", rc ? "not mounted" : out.buf);
	}
	strbuf_release(&out);
}

static json_t *status_json(struct cluster *c, const struct crm_status *st, bool have_crm,
			   char mounts[][256])
{
	json_t *o = json_object(), *nodes = json_array();
	char ip[20];

	json_object_set_new(o, "cluster", json_string(c->name));
	json_object_set_new(o, "accel", json_string(c->kvm ? "kvm" : "tcg"));
	json_object_set_new(o, "libvirt_uri", json_string(c->uri));
	json_object_set_new(o, "kernel_release", json_string(c->kernel_release));
	ip_to_str(c->float_ip, ip, sizeof(ip));
	json_object_set_new(o, "floating_ip", json_string(ip));
	for (int i = 0; i < c->n; i++) {
		struct node *nd = &c->nodes[i];
		json_t *n = json_object();
		json_object_set_new(n, "name", json_string(nd->name));
		json_object_set_new(n, "domain", json_string(nd->domain));
		json_object_set_new(n, "state", json_string(domain_state(c, nd)));
		json_object_set_new(n, "agent", json_boolean(nd->ch.hello));
		json_object_set_new(n, "online", have_crm ? json_boolean(crm_node_online(st, nd->name)) : json_null());
		json_object_set_new(n, "mount", json_string(mounts[i]));
		json_object_set_new(n, "console_log", json_string(nd->console));
		json_array_append_new(nodes, n);
	}
	json_object_set_new(o, "nodes", nodes);
	json_object_set_new(o, "nfs_group_node",
			    have_crm && st->group_started ? json_string(st->group_node) : json_null());
	json_object_set_new(o, "fencing", json_boolean(c->fencing));
	json_object_set_new(o, "fence_device_started", json_boolean(have_crm && st->fence_started));
	return o;
}

static void status_text(struct cluster *c, const struct crm_status *st, bool have_crm,
			char mounts[][256])
{
	char ip[20];

	ip_to_str(c->float_ip, ip, sizeof(ip));
	printf("cluster %s: %d nodes, %s, kernel %s\n", c->name, c->n, c->kvm ? "KVM" : "TCG",
	       c->kernel_release[0] ? c->kernel_release : "?");
	printf("  virsh -c '%s'\n", c->uri);
	printf("  %-4s %-22s %-9s %-8s %s\n", "node", "domain", "state", "member", "NFS mount");
	for (int i = 0; i < c->n; i++) {
		struct node *nd = &c->nodes[i];
		printf("  %-4s %-22s %-9s %-8s %s\n", nd->name, nd->domain, domain_state(c, nd),
		       !have_crm ? "?" : crm_node_online(st, nd->name) ? "online" : "OFFLINE", mounts[i]);
	}
	if (!have_crm)
		printf("  NFS group: unknown (no node answered crm_mon)\n");
	else if (st->group_started)
		printf("  NFS group: started on %s (floating IP %s)\n", st->group_node, ip);
	else
		printf("  NFS group: NOT running (%d/4 members started)\n", st->group_members_started);
	if (!c->fencing)
		printf("  fencing:   off\n");
	else
		printf("  fencing:   fence_xvm %s%s%s\n", have_crm && st->fence_started ? "started on " : "not started",
		       have_crm && st->fence_started ? st->fence_node : "", "");
	if (have_crm && st->failures)
		printf("  failed actions: %d, first: %s\n", st->failures, st->first_failure);
}

static int status_one(const char *name, bool json)
{
	struct cluster c;
	struct crm_status st;
	bool have_crm = false;
	char mounts[SCENARIO_MAX_NODES][256];
	int r = cluster_load(name, &c);

	if (r < 0) {
		log_error("no cluster '%s' in %s", name, cluster_state_root());
		return TK_EXIT_USAGE;
	}
	cluster_connect_libvirt(&c);
	/* Each node on its own: a dead one must not hide the others. */
	for (int i = 0; i < c.n; i++)
		channel_wait_hello(&c.nodes[i].ch, now_ms() + 3000);
	for (int i = 0; i < c.n && !have_crm; i++)
		if (c.nodes[i].ch.hello && cluster_crm_status(&c, i + 1, &st) == 0)
			have_crm = true;
	for (int i = 0; i < c.n; i++)
		node_mount(&c, &c.nodes[i], mounts[i], sizeof(mounts[i]));
	if (json) {
		json_t *o = status_json(&c, &st, have_crm, mounts);
		json_dumpf(o, stdout, JSON_INDENT(2));
		putchar('\n');
		json_decref(o);
	} else {
		status_text(&c, &st, have_crm, mounts);
	}
	cluster_release(&c);
	return TK_EXIT_PASS;
}

int cmd_status(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const struct command *self = command_find("status");
	char names[64][CLUSTER_NAME_MAX + 1];
	bool json = false;
	int ch, n, rc = TK_EXIT_PASS;

	while ((ch = getopt_long(argc, argv, "jh", longopts, NULL)) != -1) {
		switch (ch) {
		case 'j':
			json = true;
			break;
		case 'h':
			command_print_help(self);
			return TK_EXIT_PASS;
		default:
			return command_usage_error(self, "bad option");
		}
	}
	if (optind < argc) {
		for (int i = optind; i < argc; i++)
			rc |= status_one(argv[i], json);
		return rc;
	}
	n = cluster_list(names, 64);
	if (!n && !json)
		printf("no clusters\n");
	for (int i = 0; i < n; i++)
		rc |= status_one(names[i], json);
	return rc;
}

int cmd_down(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "all", no_argument, NULL, 'a' },
		{ "stale", no_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const struct command *self = command_find("down");
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

/* takeover exec CLUSTER NODE -- CMD...: run a command in a guest through its agent. */
int cmd_exec(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "timeout", required_argument, NULL, 't' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const struct command *self = command_find("exec");
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

/* takeover sysrq CLUSTER NODE KEYS: sysrq through the virtual keyboard, output from the console. */
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

int cmd_sysrq(int argc, char **argv)
{
	const struct command *self = command_find("sysrq");
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
