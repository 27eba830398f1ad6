// SPDX-License-Identifier: GPL-2.0-only
/*
 * What a cluster's domains boot from: the per-node overlays, the shared disk,
 * and the configuration disk rendered from cluster-config/ (corosync,
 * Pacemaker, fence_virt, the agents' environment).
 */
#include "cluster/cluster.h"

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
#include "util/paths.h"
#include "cluster/template.h"
#include "util/cancel.h"
#include "util/fs.h"
#include "util/log.h"
#include "util/spawn.h"
#include "util/units.h"
#include "util/xalloc.h"
#include "cluster/vm.h"
#include "cluster/lifecycle.h"

int cluster_run_tool(const char *const *argv, const char *what)
{
	struct strbuf out = STRBUF_INIT;
	int r = spawn_simple(argv, 120000, &out);

	if (r < 0) {
		strbuf_rtrim(&out);
		log_error("%s failed: %s", what, out.len ? out.buf : strerror(-r));
	}
	strbuf_release(&out);
	return r;
}

int cluster_make_overlay(const char *base, const char *base_format, const char *overlay)
{
	const char *argv[] = { "qemu-img", "create", "-q", "-f", "qcow2", "-F", base_format, "-b", base,
			       overlay, NULL };

	return cluster_run_tool(argv, "qemu-img create");
}

int cluster_make_overlays(struct cluster *c, const char *base)
{
	for (int i = 0; i < c->n; i++) {
		int r = cluster_make_overlay(base, "raw", c->nodes[i].overlay);
		if (r < 0)
			return r;
	}
	return 0;
}

uint64_t cluster_shared_disk_size(const struct cluster *c, const struct scenario *sc)
{
	uint64_t size = (uint64_t)c->n * sc->workload.file_size + (512ULL << 20);

	return size < (1ULL << 30) ? 1ULL << 30 : size;
}

int cluster_make_shared_disk(struct cluster *c, const struct scenario *sc)
{
	char *skel = xasprintf("%s/shared-skel", c->dir), *exp = xasprintf("%s/export", skel);
	char sz[32];
	int r;

	snprintf(sz, sizeof(sz), "%lluM", (unsigned long long)(cluster_shared_disk_size(c, sc) >> 20));
	const char *argv[] = { "mkfs.ext4", "-q", "-F", "-L", "tkshared", "-m", "0", "-E",
			       "lazy_itable_init=0,lazy_journal_init=0,nodiscard", "-d", skel,
			       c->shared_disk, sz, NULL };
	r = mkdir_p(exp, 0777);
	if (!r)
		r = chmod(exp, 0777) < 0 ? -errno : 0;
	if (!r)
		r = cluster_run_tool(argv, "mkfs.ext4 (shared disk)");
	rm_rf(skel);
	free(skel);
	free(exp);
	return r;
}

int cluster_make_config_disk(struct cluster *c)
{
	char *cfg = xasprintf("%s/config", c->dir);
	const char *argv[] = { "mkfs.ext4", "-q", "-F", "-L", CONFIG_DISK_SERIAL, "-d", cfg, c->config_disk,
			       "16M", NULL };
	int r = cluster_run_tool(argv, "mkfs.ext4 (config disk)");

	free(cfg);
	return r;
}

/* ---- the domains ---- */

/* TCG's translation cache per guest (QEMU's default costs ~1.5 GB RSS each). */
#define TB_CACHE_MIB 128

static char *kernel_cmdline(const struct scenario *sc, const struct node *nd)
{
	/* sysrq=1 and unknown_nmi_panic=1 make the crash and panic faults possible. */
	return xasprintf("root=/dev/vda rw console=ttyS0,115200 loglevel=7 net.ifnames=0 panic=0 "
			 "sysctl.kernel.sysrq=1 sysctl.kernel.unknown_nmi_panic=1 "
			 "sysctl.kernel.hung_task_timeout_secs=%llu takeover.node=%s%s%s",
			 (unsigned long long)(sc->kernel.hung_task_timeout / 1000), nd->name,
			 *sc->kernel.cmdline ? " " : "", sc->kernel.cmdline);
}

char *cluster_node_spec(const struct cluster *c, const struct scenario *sc, const struct node *nd,
			struct vm_spec *s)
{
	char *cmdline = kernel_cmdline(sc, nd);

	*s = (struct vm_spec){
		.name = nd->domain, .uuid = nd->uuid, .kvm = c->kvm, .memory_mib = sc->cluster.memory >> 20,
		.vcpus = sc->cluster.vcpus,
		.kernel = c->kernel, .initrd = c->initrd, .modules_disk = c->modules_disk,
		.cmdline = cmdline, .root_disk = nd->overlay, .config_disk = c->config_disk,
		.shared_disk = c->shared_disk, .bridge = NET_BRIDGE,
		.console_log = nd->console, .agent_socket = nd->agent_sock, .qga_socket = nd->qga_sock,
		.tb_cache_mib = TB_CACHE_MIB,
	};
	net_node_mac(nd->id, s->mac);
	return cmdline;
}

/* ---- configuration rendered from cluster-config/ ---- */

static char *tmpl_path(const char *name)
{
	return xasprintf("%s/cluster-config/%s", takeover_datadir(), name);
}

static int render_to(const char *tmpl, const char *dst, unsigned mode, const struct tmpl_vars *v,
		     struct strbuf *err)
{
	char *src = tmpl_path(tmpl);
	int r = tmpl_render_file(src, dst, mode, v, err);

	free(src);
	return r;
}

static int render_string(const char *tmpl, const struct tmpl_vars *v, struct strbuf *out,
			 struct strbuf *err)
{
	char *src = tmpl_path(tmpl);
	struct strbuf in = STRBUF_INIT;
	int r = strbuf_read_file(&in, src, 1 << 20);

	if (r < 0)
		strbuf_addf(err, "%s: cannot read: %s\n", src, strerror(-r));
	else
		r = tmpl_render(src, in.buf, v, out, err);
	strbuf_release(&in);
	free(src);
	return r;
}

static void base_vars(const struct cluster *c, const struct scenario *sc, struct tmpl_vars *v)
{
	char ip[20];

	tmpl_set(v, "CLUSTER", GUEST_CLUSTER_NAME);
	ip_to_str(c->float_ip, ip, sizeof(ip));
	tmpl_set(v, "FLOAT_IP", ip);
	ip_to_str(c->subnet, ip, sizeof(ip));
	tmpl_set(v, "SUBNET", ip);
	tmpl_setf(v, "TOKEN_MS", "%u", scenario_token_ms(sc, c->kvm));
	tmpl_setf(v, "CONSENSUS_MS", "%u", scenario_consensus_ms(sc, c->kvm));
	tmpl_set(v, "QUORUM_EXTRA", c->n == 2 ? "\ttwo_node: 1\n" : "");
	tmpl_setf(v, "NFS_THREADS", "%d", sc->nfs.threads);
	tmpl_setf(v, "NFS_GRACE_S", "%llu", (unsigned long long)(sc->nfs.grace_time / 1000));
	tmpl_setf(v, "NFS_LEASE_S", "%llu", (unsigned long long)(sc->nfs.lease_time / 1000));
	tmpl_set(v, "EXPORT_OPTIONS", sc->nfs.export_options);
	tmpl_set(v, "SHARED_SERIAL", SHARED_DISK_SERIAL);
	tmpl_set(v, "STONITH_ENABLED", c->fencing ? "true" : "false");
	tmpl_set(v, "NO_QUORUM_POLICY", quorum_policy_name(sc->cluster.no_quorum_policy, c->n));
}

/* Per-node pieces: corosync nodelist, /etc/hosts lines, fence host map. */
static int node_vars(const struct cluster *c, struct tmpl_vars *v, struct strbuf *err)
{
	struct strbuf nodelist = STRBUF_INIT, hosts = STRBUF_INIT, map = STRBUF_INIT;
	int r = 0;

	for (int i = 0; i < c->n && !r; i++) {
		const struct node *nd = &c->nodes[i];
		char ip[20];
		ip_to_str(nd->ip, ip, sizeof(ip));
		tmpl_set(v, "NODE_IP", ip);
		tmpl_set(v, "NODE_NAME", nd->name);
		tmpl_setf(v, "NODE_ID", "%d", nd->id);
		r = render_string("corosync-node.in", v, &nodelist, err);
		strbuf_addf(&hosts, "%s\t%s\n", ip, nd->name);
		strbuf_addf(&map, "%s%s:%s", i ? ";" : "", nd->name, nd->uuid);
	}
	tmpl_set(v, "NODELIST", nodelist.buf);
	tmpl_set(v, "HOST_LINES", hosts.buf);
	tmpl_set(v, "HOST_MAP", map.buf);
	strbuf_release(&nodelist);
	strbuf_release(&hosts);
	strbuf_release(&map);
	return r;
}

static int write_cluster_env(const struct cluster *c, const char *cfg)
{
	struct strbuf sb = STRBUF_INIT;
	char *path = xasprintf("%s/cluster.env", cfg);
	char ip[20];
	int r;

	strbuf_addf(&sb, "CLUSTER=%s\nNODES=\"", GUEST_CLUSTER_NAME);
	for (int i = 0; i < c->n; i++)
		strbuf_addf(&sb, "%s%s", i ? " " : "", c->nodes[i].name);
	strbuf_addstr(&sb, "\"\nPREFIX=24\n");
	for (int i = 0; i < c->n; i++) {
		ip_to_str(c->nodes[i].ip, ip, sizeof(ip));
		strbuf_addf(&sb, "IP_%s=%s\n", c->nodes[i].name, ip);
	}
	ip_to_str(c->float_ip, ip, sizeof(ip));
	strbuf_addf(&sb, "FLOAT_IP=%s\n", ip);
	r = write_file_atomic(path, sb.buf, sb.len, 0644);
	strbuf_release(&sb);
	free(path);
	return r;
}

static int write_fence_key(const char *cfg)
{
	char *dir = xasprintf("%s/etc/cluster", cfg), *path = xasprintf("%s/fence_xvm.key", dir);
	unsigned char key[512];
	int r = mkdir_p(dir, 0700);

	if (!r)
		r = random_bytes(key, sizeof(key));
	if (!r)
		r = write_file_atomic(path, key, sizeof(key), 0600);
	free(dir);
	free(path);
	return r;
}

int cluster_render_config(struct cluster *c, const struct scenario *sc)
{
	char *cfg = xasprintf("%s/config", c->dir);
	struct tmpl_vars v = { 0 };
	struct strbuf err = STRBUF_INIT, fencing = STRBUF_INIT;
	static const char *const dirs[] = { "etc/corosync", "etc/nfs.conf.d", "etc/takeover" };
	int r = 0;

	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]) && !r; i++) {
		char *d = xasprintf("%s/%s", cfg, dirs[i]);
		r = mkdir_p(d, 0755);
		free(d);
	}
	base_vars(c, sc, &v);
	if (!r)
		r = node_vars(c, &v, &err);
	if (!r && c->fencing)
		r = render_string("fencing.crm.in", &v, &fencing, &err);
	tmpl_set(&v, "FENCING", fencing.buf);
	struct { const char *tmpl, *dst; } files[] = {
		{ "corosync.conf.in", "etc/corosync/corosync.conf" },
		{ "hosts.in", "etc/hosts" },
		{ "nfs.conf.in", "etc/nfs.conf.d/takeover.conf" },
		{ "cluster.crm.in", "etc/takeover/cluster.crm" },
	};
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]) && !r; i++) {
		char *dst = xasprintf("%s/%s", cfg, files[i].dst);
		r = render_to(files[i].tmpl, dst, 0644, &v, &err);
		free(dst);
	}
	if (!r)
		r = write_cluster_env(c, cfg);
	if (!r)
		r = write_fence_key(cfg);
	if (err.len)
		log_error("cluster configuration: %s", err.buf);
	tmpl_release(&v);
	strbuf_release(&err);
	strbuf_release(&fencing);
	free(cfg);
	return r;
}
