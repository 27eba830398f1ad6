// SPDX-License-Identifier: GPL-2.0-only
/* takeover status: nodes, membership, the NFS group, mounts and fencing. */
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
	/* The snapshot its disks are backed by (warm start); null when it booted cold. */
	json_object_set_new(o, "snapshot", c->up.warm ? json_string(c->up.snapshot) : json_null());
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
	if (c->up.warm)
		printf("  restored from snapshot %s\n", c->up.snapshot);
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
		printf("  NFS group: NOT running (%d/%d members started)\n", st->group_members_started, CRM_N_MEMBERS);
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

static int cmd_status(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const struct command *self = &command_status;
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

const struct command command_status = {
	"status", cmd_status, "status [--json] [CLUSTER...]",
	  "Show nodes, membership, the NFS group, mounts and fencing",
	  "With no CLUSTER, every cluster on this host."
};
