// SPDX-License-Identifier: GPL-2.0-only
/*
 * A cluster's state directory: its name (claimed atomically), the state file
 * that `status`, `exec` and `down` load, and the list of clusters there are.
 */
#include "cluster/cluster.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cluster/daemons.h"
#include "image/kernel.h"
#include "cluster/net.h"
#include "util/cleanup.h"
#include "util/paths.h"
#include "cluster/template.h"
#include "util/cancel.h"
#include "util/fs.h"
#include "util/log.h"
#include "util/sha256.h"
#include "util/spawn.h"
#include "util/units.h"
#include "util/xalloc.h"
#include "cluster/vm.h"
#include "cluster/lifecycle.h"

const char *cluster_state_root(void)
{
	const char *env = getenv("TAKEOVER_STATE_DIR");

	return env && *env ? env : "/var/lib/takeover/clusters";
}

static void node_uuid(const struct cluster *c, const struct node *nd, char out[37])
{
	struct sha256 h;
	uint8_t d[32];
	char seed[64];

	snprintf(seed, sizeof(seed), "takeover-node %08x %s", c->subnet, nd->name);
	sha256_init(&h);
	sha256_update(&h, seed, strlen(seed));
	sha256_final(&h, d);
	d[6] = (uint8_t)((d[6] & 0x0f) | 0x50); /* a name-based UUID (RFC 4122 version 5 layout) */
	d[8] = (uint8_t)((d[8] & 0x3f) | 0x80);
	snprintf(out, 37, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", d[0], d[1],
		 d[2], d[3], d[4], d[5], d[6], d[7], d[8], d[9], d[10], d[11], d[12], d[13], d[14], d[15]);
}

static void node_paths(struct cluster *c, struct node *nd, int id)
{
	nd->id = id;
	snprintf(nd->name, sizeof(nd->name), "n%u", (unsigned)id % 100u);
	/*
	 * Not named after the cluster: libvirt restores a saved domain only
	 * under the name it was saved with, and a snapshot restores into any
	 * cluster. Each cluster has its own libvirtd, so the names never meet.
	 */
	snprintf(nd->domain, sizeof(nd->domain), "takeover-%s", nd->name);
	nd->ip = c->subnet + 10 + (uint32_t)id;
	node_uuid(c, nd, nd->uuid);
	nd->overlay = xasprintf("%s/%s.qcow2", c->dir, nd->name);
	nd->console = xasprintf("%s/console-%s.log", c->dir, nd->name);
	nd->agent_sock = xasprintf("%s/%s.agent", c->dir, nd->name);
	nd->qga_sock = xasprintf("%s/%s.qga", c->dir, nd->name);
	channel_init(&nd->ch, nd->agent_sock, nd->name);
}

void cluster_init(struct cluster *c, const char *name, int nodes, uint32_t subnet)
{
	memset(c, 0, sizeof(*c));
	snprintf(c->name, sizeof(c->name), "%s", name);
	c->dir = xasprintf("%s/%s", cluster_state_root(), name);
	snprintf(c->netns, sizeof(c->netns), "takeover-%s", name);
	c->uri = daemons_libvirt_uri(c->dir);
	c->n = nodes;
	c->subnet = subnet;
	c->bridge_ip = subnet + 1;
	c->float_ip = subnet + 100;
	c->shared_disk = xasprintf("%s/shared.raw", c->dir);
	c->config_disk = xasprintf("%s/config.img", c->dir);
	for (int i = 0; i < nodes; i++)
		node_paths(c, &c->nodes[i], i + 1);
}

void cluster_release(struct cluster *c)
{
	for (int i = 0; i < c->n; i++) {
		struct node *nd = &c->nodes[i];
		channel_release(&nd->ch);
		free(nd->overlay);
		free(nd->console);
		free(nd->agent_sock);
		free(nd->qga_sock);
	}
	if (c->conn)
		virConnectClose(c->conn);
	free(c->dir);
	free(c->uri);
	free(c->shared_disk);
	free(c->config_disk);
	free(c->kernel);
	free(c->initrd);
	free(c->modules_disk);
	memset(c, 0, sizeof(*c));
}

struct node *cluster_node_by_name(struct cluster *c, const char *name)
{
	for (int i = 0; i < c->n; i++)
		if (!strcmp(c->nodes[i].name, name))
			return &c->nodes[i];
	return NULL;
}

/* ---- state file: key=value lines, rewritten atomically as the cluster grows ---- */

int cluster_save_state(const struct cluster *c)
{
	struct strbuf sb = STRBUF_INIT;
	char *path = xasprintf("%s/" STATE_FILE, c->dir);
	char sub[20];
	int r;

	ip_to_str(c->subnet, sub, sizeof(sub));
	strbuf_addf(&sb,
		    "# takeover cluster state; `takeover down %s` removes everything listed here\n"
		    "name=%s\nnodes=%d\nsubnet=%s\nkvm=%d\nfencing=%d\nephemeral=%d\nowner=%d\n"
		    "image=%s\nkernel_release=%s\nnetns=%s\nuri=%s\nsnapshot=%s\n",
		    c->name, c->name, c->n, sub, c->kvm, c->fencing, c->ephemeral, (int)c->owner,
		    c->image_key, c->kernel_release, c->netns, c->uri, c->up.warm ? c->up.snapshot : "");
	r = write_file_atomic(path, sb.buf, sb.len, 0644);
	strbuf_release(&sb);
	free(path);
	return r;
}

static const char *state_get(const struct strbuf *sb, const char *key, char *buf, size_t len)
{
	size_t kl = strlen(key);

	buf[0] = '\0';
	for (const char *p = sb->buf; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
		if (!strncmp(p, key, kl) && p[kl] == '=') {
			size_t vl = strcspn(p + kl + 1, "\n");
			snprintf(buf, len, "%.*s", (int)vl, p + kl + 1);
			break;
		}
	}
	return buf;
}

bool cluster_valid_name(const char *name)
{
	size_t n = strlen(name);

	if (!n || n > CLUSTER_NAME_MAX)
		return false;
	for (const char *p = name; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '-'))
			return false;
	return name[0] != '-';
}

int cluster_load(const char *name, struct cluster *c)
{
	struct strbuf sb = STRBUF_INIT;
	char *path, v[256];
	uint64_t nodes;
	const char *why;
	struct in_addr subnet;
	int r;

	if (!cluster_valid_name(name))
		return -EINVAL;
	path = xasprintf("%s/%s/" STATE_FILE, cluster_state_root(), name);
	r = strbuf_read_file(&sb, path, 1 << 16);
	free(path);
	if (r < 0) {
		strbuf_release(&sb);
		return r;
	}
	if (parse_uint(state_get(&sb, "nodes", v, sizeof(v)), &nodes, &why) < 0 || nodes < 1 ||
	    nodes > SCENARIO_MAX_NODES ||
	    inet_pton(AF_INET, state_get(&sb, "subnet", v, sizeof(v)), &subnet) != 1) {
		strbuf_release(&sb);
		return -EBADMSG;
	}
	cluster_init(c, name, (int)nodes, ntohl(subnet.s_addr));
	c->kvm = !strcmp(state_get(&sb, "kvm", v, sizeof(v)), "1");
	c->fencing = !strcmp(state_get(&sb, "fencing", v, sizeof(v)), "1");
	c->ephemeral = !strcmp(state_get(&sb, "ephemeral", v, sizeof(v)), "1");
	uint64_t owner;
	c->owner = parse_uint(state_get(&sb, "owner", v, sizeof(v)), &owner, &why) == 0 && owner <= INT32_MAX
			   ? (pid_t)owner : 0;
	snprintf(c->image_key, sizeof(c->image_key), "%s", state_get(&sb, "image", v, sizeof(v)));
	snprintf(c->kernel_release, sizeof(c->kernel_release), "%s",
		 state_get(&sb, "kernel_release", v, sizeof(v)));
	/* The snapshot its disks are backed by, if it was restored from one. */
	snprintf(c->up.snapshot, sizeof(c->up.snapshot), "%s", state_get(&sb, "snapshot", v, sizeof(v)));
	c->up.warm = c->up.snapshot[0] != '\0';
	strbuf_release(&sb);
	return 0;
}

int cluster_claim_name(const char *want, char *name, size_t len)
{
	int r = mkdir_p(cluster_state_root(), 0755);

	if (r < 0)
		return r;
	for (int i = 1; i < 1000; i++) {
		char *dir;
		if (want)
			snprintf(name, len, "%s", want);
		else
			snprintf(name, len, "c%d", i);
		char ns[64];
		snprintf(ns, sizeof(ns), "takeover-%s", name);
		dir = xasprintf("%s/%s", cluster_state_root(), name);
		r = net_inode(ns) ? -EEXIST : mkdir(dir, 0755) < 0 ? -errno : 0;
		free(dir);
		if (r != -EEXIST || want)
			return r;
	}
	return -EEXIST;
}

int cluster_list(char names[][CLUSTER_NAME_MAX + 1], int max)
{
	_cleanup_closedir_ DIR *d = opendir(cluster_state_root());
	_cleanup_closedir_ DIR *ns = opendir("/run/netns");
	struct dirent *e;
	int n = 0;

	while (d && (e = readdir(d)) && n < max)
		if (e->d_name[0] != '.' && cluster_valid_name(e->d_name))
			snprintf(names[n++], CLUSTER_NAME_MAX + 1, "%.16s", e->d_name);
	while (ns && (e = readdir(ns)) && n < max) {
		const char *nm = e->d_name + strlen("takeover-");
		bool seen = false;
		if (strncmp(e->d_name, "takeover-", 9) || !cluster_valid_name(nm))
			continue;
		for (int i = 0; i < n; i++)
			seen |= !strcmp(names[i], nm);
		if (!seen)
			snprintf(names[n++], CLUSTER_NAME_MAX + 1, "%.16s", nm);
	}
	return n;
}
