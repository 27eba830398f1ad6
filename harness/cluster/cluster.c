// SPDX-License-Identifier: GPL-2.0-only
/*
 * Cluster lifecycle. The order of `up` is the order of dependencies:
 * state directory -> namespace -> libvirtd -> disks and rendered
 * configuration -> domains -> fence_virtd -> agents -> Pacemaker membership ->
 * resources -> NFS mounts checked by a write and a read-back. Every step has
 * a deadline and names the node and the console log when it fails.
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

#define STATE_FILE "state"
/* Deadlines under TCG (measured: boot ~30-60 s with three guests, group start ~40 s). */
#define BOOT_DEADLINE_MS (240 * 1000)
#define MEMBERSHIP_DEADLINE_MS (240 * 1000)
#define RESOURCES_DEADLINE_MS (300 * 1000)
#define MOUNT_TIMEOUT_MS (90 * 1000)
#define TB_CACHE_MIB 128

const char *cluster_state_root(void)
{
	const char *env = getenv("TAKEOVER_STATE_DIR");

	return env && *env ? env : "/var/lib/takeover/clusters";
}

static void node_paths(struct cluster *c, struct node *nd, int id)
{
	nd->id = id;
	snprintf(nd->name, sizeof(nd->name), "n%u", (unsigned)id % 100u);
	snprintf(nd->domain, sizeof(nd->domain), "takeover-%s-%s", c->name, nd->name);
	nd->ip = c->subnet + 10 + (uint32_t)id;
	nd->overlay = xasprintf("%s/%s.qcow2", c->dir, nd->name);
	nd->console = xasprintf("%s/console-%s.log", c->dir, nd->name);
	nd->agent_sock = xasprintf("%s/%s.agent", c->dir, nd->name);
	nd->qga_sock = xasprintf("%s/%s.qga", c->dir, nd->name);
	channel_init(&nd->ch, nd->agent_sock, nd->name);
}

/* Fills names and paths from name, node count and subnet. */
static void cluster_init(struct cluster *c, const char *name, int nodes, uint32_t subnet)
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

static int save_state(const struct cluster *c)
{
	struct strbuf sb = STRBUF_INIT;
	char *path = xasprintf("%s/" STATE_FILE, c->dir);
	char sub[20];
	int r;

	ip_to_str(c->subnet, sub, sizeof(sub));
	strbuf_addf(&sb,
		    "# takeover cluster state; `takeover down %s` removes everything listed here\n"
		    "name=%s\nnodes=%d\nsubnet=%s\nkvm=%d\nfencing=%d\nephemeral=%d\nowner=%d\n"
		    "image=%s\nkernel_release=%s\nnetns=%s\nuri=%s\n",
		    c->name, c->name, c->n, sub, c->kvm, c->fencing, c->ephemeral, (int)c->owner,
		    c->image_key, c->kernel_release, c->netns, c->uri);
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

static bool valid_name(const char *name)
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
	uint32_t a, b, cc, d;
	int r;

	if (!valid_name(name))
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
	    sscanf(state_get(&sb, "subnet", v, sizeof(v)), "%u.%u.%u.%u", &a, &b, &cc, &d) != 4) {
		strbuf_release(&sb);
		return -EBADMSG;
	}
	cluster_init(c, name, (int)nodes, a << 24 | b << 16 | cc << 8 | d);
	c->kvm = !strcmp(state_get(&sb, "kvm", v, sizeof(v)), "1");
	c->fencing = !strcmp(state_get(&sb, "fencing", v, sizeof(v)), "1");
	c->ephemeral = !strcmp(state_get(&sb, "ephemeral", v, sizeof(v)), "1");
	uint64_t owner;
	c->owner = parse_uint(state_get(&sb, "owner", v, sizeof(v)), &owner, &why) == 0 && owner <= INT32_MAX
			   ? (pid_t)owner : 0;
	snprintf(c->image_key, sizeof(c->image_key), "%s", state_get(&sb, "image", v, sizeof(v)));
	snprintf(c->kernel_release, sizeof(c->kernel_release), "%s",
		 state_get(&sb, "kernel_release", v, sizeof(v)));
	strbuf_release(&sb);
	return 0;
}

/* First free c<N>; mkdir is the lock, so concurrent `up`s never share a name. */
static int claim_name(const char *want, char *name, size_t len)
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

/* ---- disks ---- */

static int run_tool(const char *const *argv, const char *what)
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

static int make_overlays(struct cluster *c, const char *base)
{
	for (int i = 0; i < c->n; i++) {
		const char *argv[] = { "qemu-img", "create", "-q", "-f", "qcow2", "-F", "raw", "-b", base,
				       c->nodes[i].overlay, NULL };
		int r = run_tool(argv, "qemu-img create");
		if (r < 0)
			return r;
	}
	return 0;
}

/* The HA storage: ext4 with the export directory, built without a loop mount. */
static int make_shared_disk(struct cluster *c, const struct scenario *sc)
{
	char *skel = xasprintf("%s/shared-skel", c->dir), *exp = xasprintf("%s/export", skel);
	uint64_t size = (uint64_t)c->n * sc->workload.file_size + (512ULL << 20);
	char sz[32];
	int r;

	if (size < (1ULL << 30))
		size = 1ULL << 30;
	snprintf(sz, sizeof(sz), "%lluM", (unsigned long long)(size >> 20));
	const char *argv[] = { "mkfs.ext4", "-q", "-F", "-L", "tkshared", "-m", "0", "-E",
			       "lazy_itable_init=0,lazy_journal_init=0,nodiscard", "-d", skel,
			       c->shared_disk, sz, NULL };
	r = mkdir_p(exp, 0777);
	if (!r)
		r = chmod(exp, 0777) < 0 ? -errno : 0;
	if (!r)
		r = run_tool(argv, "mkfs.ext4 (shared disk)");
	rm_rf(skel);
	free(skel);
	free(exp);
	return r;
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

	tmpl_set(v, "CLUSTER", c->name);
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
	/* Two nodes cannot have quorum without the other: let the survivor run (after fencing). */
	tmpl_set(v, "NO_QUORUM_POLICY", c->n == 2 ? "ignore" : "stop");
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
		strbuf_addf(&map, "%s%s:%s", i ? ";" : "", nd->name, nd->domain);
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

	strbuf_addf(&sb, "CLUSTER=%s\nNODES=\"", c->name);
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

static int render_config(struct cluster *c, const struct scenario *sc)
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
	if (!r) {
		const char *argv[] = { "mkfs.ext4", "-q", "-F", "-L", CONFIG_DISK_SERIAL, "-d", cfg,
				       c->config_disk, "16M", NULL };
		r = run_tool(argv, "mkfs.ext4 (config disk)");
	}
	tmpl_release(&v);
	strbuf_release(&err);
	strbuf_release(&fencing);
	free(cfg);
	return r;
}

/* ---- domains ---- */

int cluster_connect_libvirt(struct cluster *c)
{
	if (c->conn)
		return 0;
	c->conn = virConnectOpen(c->uri);
	if (!c->conn) {
		log_error("cannot connect to this cluster's libvirtd (%s): %s", c->uri,
			  virGetLastErrorMessage());
		return -ECONNREFUSED;
	}
	return 0;
}

static char *kernel_cmdline(const struct cluster *c, const struct scenario *sc, const struct node *nd)
{
	/* sysrq=1 and unknown_nmi_panic=1 make the crash and panic faults possible. */
	return xasprintf("root=/dev/vda rw console=ttyS0,115200 loglevel=7 net.ifnames=0 panic=0 "
			 "sysctl.kernel.sysrq=1 sysctl.kernel.unknown_nmi_panic=1 "
			 "sysctl.kernel.hung_task_timeout_secs=%llu takeover.node=%s takeover.cluster=%s%s%s",
			 (unsigned long long)(sc->kernel.hung_task_timeout / 1000), nd->name, c->name,
			 *sc->kernel.cmdline ? " " : "", sc->kernel.cmdline);
}

static int start_domain(struct cluster *c, const struct scenario *sc, struct node *nd)
{
	char *cmdline = kernel_cmdline(c, sc, nd);
	struct vm_spec s = {
		.name = nd->domain, .kvm = c->kvm, .memory_mib = sc->cluster.memory >> 20,
		.vcpus = sc->cluster.vcpus,
		.kernel = c->kernel, .initrd = c->initrd, .modules_disk = c->modules_disk,
		.cmdline = cmdline, .root_disk = nd->overlay, .config_disk = c->config_disk,
		.shared_disk = c->shared_disk, .bridge = NET_BRIDGE,
		.mac = { 0x52, 0x54, 0x00, 0x7b, 0x00, (uint8_t)nd->id },
		.console_log = nd->console, .agent_socket = nd->agent_sock, .qga_socket = nd->qga_sock,
		.tb_cache_mib = TB_CACHE_MIB,
	};
	struct strbuf xml = STRBUF_INIT;
	virDomainPtr dom;
	int r = vm_domain_xml(&s, &xml);

	if (!r) {
		char *path = xasprintf("%s/%s.xml", c->dir, nd->name);
		write_file_atomic(path, xml.buf, xml.len, 0644); /* for the curious; not read back */
		free(path);
		/*
		 * Persistent, not transient: fence_virtd cannot confirm that a
		 * destroyed transient domain is off (it no longer exists), so
		 * fencing the dead server would fail forever and nothing would
		 * take over. `down` undefines them.
		 */
		dom = virDomainDefineXML(c->conn, xml.buf);
		if (!dom || virDomainCreate(dom) < 0) {
			log_error("%s: cannot start domain %s: %s", nd->name, nd->domain,
				  virGetLastErrorMessage());
			r = -EIO;
		}
		if (dom)
			virDomainFree(dom);
	}
	strbuf_release(&xml);
	free(cmdline);
	return r;
}

/* ---- readiness, judged from inside the guests ---- */

int cluster_exec(struct cluster *c, int node, const char *const *argv, uint64_t timeout_ms,
		 struct strbuf *out, int *rc)
{
	struct node *nd = &c->nodes[node - 1];
	int r = channel_connect(&nd->ch);

	if (r < 0)
		return r;
	return channel_exec(&nd->ch, argv, timeout_ms, out, rc);
}

/* The last lines of a node's console, for errors about a node that did not come up. */
static void print_console_tail(const struct node *nd, int lines)
{
	struct strbuf sb = STRBUF_INIT;
	const char *p;
	int n = 0;

	if (strbuf_read_file(&sb, nd->console, 64 << 20) < 0 || !sb.len) {
		fprintf(stderr, "  (%s: no console output)\n", nd->console);
		strbuf_release(&sb);
		return;
	}
	for (p = sb.buf + sb.len - 1; p > sb.buf && n <= lines; p--)
		if (*p == '\n')
			n++;
	fprintf(stderr, "--- last console lines of %s (%s) ---\n%s\n---\n", nd->name, nd->console,
		p == sb.buf ? p : p + 2);
	strbuf_release(&sb);
}

int cluster_connect_agents(struct cluster *c, uint64_t deadline)
{
	for (int i = 0; i < c->n; i++) {
		struct node *nd = &c->nodes[i];
		int r = channel_wait_hello(&nd->ch, deadline);
		if (r < 0) {
			if (r != -EINTR)
				log_error("%s: the guest agent did not report within the deadline (%s); "
					  "console: %s",
					  nd->name, strerror(-r), nd->console);
			if (r == -ETIMEDOUT)
				print_console_tail(nd, 25);
			return r;
		}
	}
	return 0;
}

int cluster_crm_status(struct cluster *c, int node, struct crm_status *st)
{
	const char *argv[] = { "crm_mon", "-1", "--output-as=xml", "--fence-history=2", NULL };
	struct strbuf out = STRBUF_INIT;
	int rc, r = cluster_exec(c, node, argv, 60000, &out, &rc);

	if (!r)
		r = crm_parse_status(out.buf, out.len, st);
	strbuf_release(&out);
	return r;
}

/* Polls check(c, node, ctx) every 2 s until it returns 1, an error, or deadline. */
static int wait_until(struct cluster *c, uint64_t deadline, const char *what, bool quiet,
		      int (*check)(struct cluster *c, void *ctx, struct strbuf *why), void *ctx)
{
	struct strbuf why = STRBUF_INIT;
	uint64_t start = now_ms();
	int r;

	for (;;) {
		strbuf_reset(&why);
		r = check(c, ctx, &why);
		if (r != 0)
			break;
		if (cancel_requested()) {
			r = -EINTR;
			break;
		}
		if (now_ms() > deadline) {
			log_error("%s: not done after %llus: %s", what,
				  (unsigned long long)((now_ms() - start) / 1000), why.buf);
			r = -ETIMEDOUT;
			break;
		}
		if (!quiet)
			progress_update("%s (%llus) %s", what, (unsigned long long)((now_ms() - start) / 1000),
					why.buf);
		sleep(2);
	}
	progress_done();
	strbuf_release(&why);
	return r < 0 ? r : 0;
}

static int check_membership(struct cluster *c, void *ctx, struct strbuf *why)
{
	struct crm_status st;

	(void)ctx;
	if (cluster_crm_status(c, 1, &st) < 0) {
		strbuf_addstr(why, "crm_mon gave no answer on n1 yet");
		return 0;
	}
	strbuf_addf(why, "%d of %d nodes online", st.nodes_online, c->n);
	return st.nodes_online == c->n;
}

static int check_resources(struct cluster *c, void *ctx, struct strbuf *why)
{
	struct crm_status st;

	(void)ctx;
	if (cluster_crm_status(c, 1, &st) < 0) {
		strbuf_addstr(why, "crm_mon gave no answer");
		return 0;
	}
	strbuf_addf(why, "group: %d/4 started%s%s; fencing: %s", st.group_members_started,
		    st.group_node[0] ? " on " : "", st.group_node,
		    !c->fencing ? "off" : st.fence_started ? "started" : "not started");
	if (st.failures)
		strbuf_addf(why, "; failed action: %s", st.first_failure);
	return st.group_started && (!c->fencing || st.fence_started);
}

static int configure_pacemaker(struct cluster *c)
{
	const char *argv[] = { "crm", "configure", "load", "update", "/etc/takeover/cluster.crm", NULL };
	struct strbuf out = STRBUF_INIT;
	int rc, r = cluster_exec(c, 1, argv, 120000, &out, &rc);

	if (!r && rc) {
		strbuf_rtrim(&out);
		log_error("n1: crm configure load failed (exit %d): %s", rc, out.buf);
		r = -EIO;
	}
	strbuf_release(&out);
	return r;
}

static int node_run(struct cluster *c, struct node *nd, const char *const *argv, uint64_t timeout,
		    const char *what)
{
	struct strbuf out = STRBUF_INIT;
	int rc, r = cluster_exec(c, nd->id, argv, timeout, &out, &rc);

	if (!r && rc) {
		strbuf_rtrim(&out);
		log_error("%s: %s failed (exit %d): %s (console: %s)", nd->name, what, rc, out.buf,
			  nd->console);
		r = -EIO;
	} else if (r < 0) {
		log_error("%s: %s: %s (console: %s)", nd->name, what, strerror(-r), nd->console);
	}
	strbuf_release(&out);
	return r;
}

/*
 * Runs the same command on every node at once (one exec in flight per
 * channel) and waits for all: mounting one node after the other cost ~8 s a
 * node under TCG. 0 when every node ran it with exit 0.
 */
static int exec_everywhere(struct cluster *c, const char *const *argv, uint64_t timeout_ms,
			   const char *what)
{
	uint64_t deadline = now_ms() + timeout_ms + 30000;
	int r = 0, pending = 0;

	for (int i = 0; i < c->n; i++) {
		struct channel *ch = &c->nodes[i].ch;
		strbuf_reset(&ch->wait_out);
		ch->wait_done = false;
		ch->wait_id = channel_connect(ch) == 0 ? channel_exec_start(ch, argv, timeout_ms) : 0;
		if (!ch->wait_id) {
			log_error("%s: %s: the agent is not reachable (console: %s)", c->nodes[i].name, what,
				  c->nodes[i].console);
			r = -EPIPE;
		}
		pending += ch->wait_id != 0;
	}
	while (pending && !r) {
		if (cancel_requested() || now_ms() > deadline) {
			r = cancel_requested() ? -EINTR : -ETIMEDOUT;
			break;
		}
		pending = 0;
		for (int i = 0; i < c->n; i++) {
			struct channel *ch = &c->nodes[i].ch;
			if (ch->wait_id && !ch->wait_done && channel_poll(ch, 100) < 0)
				r = -EPIPE;
			pending += ch->wait_id && !ch->wait_done;
		}
	}
	for (int i = 0; i < c->n; i++) {
		struct channel *ch = &c->nodes[i].ch;
		if (!r && ch->wait_done && (ch->wait_rc || ch->wait_timeout)) {
			strbuf_rtrim(&ch->wait_out);
			log_error("%s: %s failed (exit %d%s): %s (console: %s)", c->nodes[i].name, what,
				  ch->wait_rc, ch->wait_timeout ? ", timed out" : "", ch->wait_out.buf,
				  c->nodes[i].console);
			r = -EIO;
		}
		ch->wait_id = 0;
	}
	if (r == -ETIMEDOUT)
		log_error("%s: not every node answered within %llus", what,
			  (unsigned long long)(timeout_ms / 1000));
	return r;
}

static int mount_all(struct cluster *c, const struct scenario *sc)
{
	char src[64], ip[20];
	char *opts = xasprintf("vers=%s,%s", nfs_version_name(sc->nfs.version), sc->nfs.mount_options);
	int r;

	ip_to_str(c->float_ip, ip, sizeof(ip));
	snprintf(src, sizeof(src), "%s:" NFS_EXPORT_DIR, ip);
	const char *mk[] = { "mkdir", "-p", NFS_MOUNT_DIR, NULL };
	const char *mnt[] = { "mount", "-t", "nfs", "-o", opts, src, NFS_MOUNT_DIR, NULL };
	r = exec_everywhere(c, mk, 10000, "mkdir " NFS_MOUNT_DIR);
	if (!r)
		r = exec_everywhere(c, mnt, MOUNT_TIMEOUT_MS, "NFS mount");
	free(opts);
	return r;
}

/* Every node writes a file through its mount; the next node reads it back. */
static int check_mounts(struct cluster *c)
{
	for (int i = 0; i < c->n; i++) {
		struct node *w = &c->nodes[i], *rd = &c->nodes[(i + 1) % c->n];
		char *path = xasprintf(NFS_MOUNT_DIR "/.takeover-probe-%s", w->name);
		char *content = xasprintf("written by %s through NFS", w->name);
		const char *wr[] = { "sh", "-c", "printf %s \"$1\" > \"$2\" && sync \"$2\"", "sh", content,
				     path, NULL };
		const char *cat[] = { "cat", path, NULL };
		struct strbuf out = STRBUF_INIT;
		int rc, r = node_run(c, w, wr, 60000, "write through the NFS mount");
		if (!r)
			r = cluster_exec(c, rd->id, cat, 60000, &out, &rc);
		if (!r && (rc || strcmp(out.buf, content))) {
			log_error("%s: reading %s written by %s gave '%s' (exit %d)", rd->name, path, w->name,
				  out.buf, rc);
			r = -EIO;
		}
		strbuf_release(&out);
		free(path);
		free(content);
		if (r < 0)
			return r;
	}
	return 0;
}

/* ---- up ---- */

static int pick_accel(struct cluster *c, const struct scenario *sc, const struct image *img,
		      const char *cache_dir)
{
	const char *kernel = c->kernel;

	(void)img;
	switch (sc->cluster.accel) {
	case ACCEL_TCG:
		c->kvm = false;
		return 0;
	case ACCEL_KVM:
		c->kvm = vm_kvm_usable(kernel, image_cache_dir(cache_dir));
		if (!c->kvm) {
			log_error("[cluster] accel = kvm, but KVM cannot run a guest on this host");
			return -ENODEV;
		}
		return 0;
	default:
		c->kvm = vm_kvm_usable(kernel, image_cache_dir(cache_dir));
		return 0;
	}
}

static int step(int r, bool quiet, const char *what, uint64_t t0)
{
	if (!r && !quiet)
		log_info("%-28s done (%llus)", what, (unsigned long long)((now_ms() - t0) / 1000));
	return r;
}

/* Every node must run the kernel under test: a silent fallback would judge the wrong kernel. */
static int check_kernels(struct cluster *c)
{
	for (int i = 0; i < c->n; i++) {
		struct node *nd = &c->nodes[i];
		if (c->expect_release[0] && strcmp(nd->ch.kernel, c->expect_release)) {
			log_error("%s runs kernel %s, not the kernel under test (%s)", nd->name, nd->ch.kernel,
				  c->expect_release);
			return -EIO;
		}
	}
	snprintf(c->kernel_release, sizeof(c->kernel_release), "%s", c->nodes[0].ch.kernel);
	return 0;
}

static int bring_up(struct cluster *c, const struct scenario *sc, const struct image *img,
		    const struct up_opts *o)
{
	uint64_t t0 = now_ms();
	int r;

	r = step(net_create(c->netns, c->bridge_ip), o->quiet, "network namespace", t0);
	if (!r)
		r = step(daemons_start_libvirtd(c->netns, c->dir), o->quiet, "libvirtd", t0);
	if (!r)
		r = cluster_connect_libvirt(c);
	if (!r)
		r = make_overlays(c, img->base);
	if (!r)
		r = make_shared_disk(c, sc);
	if (!r)
		r = step(render_config(c, sc), o->quiet, "disks and configuration", t0);
	if (!r && c->fencing)
		r = step(daemons_start_fence_virtd(c->netns, c->dir, c->uri), o->quiet, "fence_virtd", t0);
	for (int i = 0; i < c->n && !r; i++)
		r = start_domain(c, sc, &c->nodes[i]);
	if (!r)
		r = step(cluster_connect_agents(c, now_ms() + BOOT_DEADLINE_MS), o->quiet,
			 "nodes booted (agents up)", t0);
	if (!r)
		r = check_kernels(c);
	if (!r)
		r = step(wait_until(c, now_ms() + MEMBERSHIP_DEADLINE_MS, "cluster membership", o->quiet,
				    check_membership, NULL),
			 o->quiet, "all nodes online", t0);
	if (!r)
		r = configure_pacemaker(c);
	if (!r)
		r = step(wait_until(c, now_ms() + RESOURCES_DEADLINE_MS, "NFS group and fencing",
				    o->quiet, check_resources, NULL),
			 o->quiet, "NFS group started", t0);
	if (!r)
		r = step(mount_all(c, sc), o->quiet, "NFS mounted on every node", t0);
	if (!r)
		r = step(check_mounts(c), o->quiet, "mounts usable (write+read)", t0);
	return r;
}

/* The kernel the nodes boot: the image's, or the one under test with its modules. */
static int choose_kernel(struct cluster *c, const struct scenario *sc, const struct image *img,
			 const struct up_opts *o)
{
	const char *kernel = o->kernel ? o->kernel : sc->kernel.image;
	const char *initrd = o->initrd ? o->initrd : sc->kernel.initrd;
	const char *modules = o->modules ? o->modules : sc->kernel.modules;
	char *tree_bz = NULL, *tree_mods = NULL, *stage = NULL;
	int r = 0;

	if (o->kernel_tree) {
		stage = xasprintf("%s/modules-stage", c->dir);
		r = kernel_tree_artifacts(o->kernel_tree, &tree_bz, &tree_mods, stage);
		if (r < 0)
			goto out;
		kernel = tree_bz;
		modules = tree_mods;
		initrd = NULL;
	}
	if (!strcmp(kernel, "debian")) {
		c->kernel = xstrdup(img->kernel);
		c->initrd = xstrdup(img->initrd);
		snprintf(c->expect_release, sizeof(c->expect_release), "%s", img->kernel_release);
		goto out;
	}
	c->kernel = realpath(kernel, NULL);
	c->initrd = initrd && *initrd ? realpath(initrd, NULL) : NULL;
	if (!c->kernel || kernel_release_of(c->kernel, c->expect_release, sizeof(c->expect_release)) < 0) {
		log_error("%s: not a readable x86 bzImage", kernel);
		r = -ENOEXEC;
		goto out;
	}
	/* `takeover kernel build` puts modules_install output next to the bzImage. */
	char *beside = NULL;
	if (!(modules && *modules)) {
		char *dir = xstrdup(c->kernel), *slash = strrchr(dir, '/');
		if (slash)
			*slash = '\0';
		beside = xasprintf("%s/modules/lib/modules/%s", dir, c->expect_release);
		free(dir);
		if (access(beside, R_OK) == 0)
			modules = beside;
	}
	if (modules && *modules) {
		c->modules_disk = xasprintf("%s/modules.img", c->dir);
		r = kernel_modules_disk(modules, c->expect_release, c->modules_disk);
	}
	log_info("kernel under test: %s (%s)%s", c->kernel, c->expect_release,
		 c->modules_disk ? ", with its modules" : "");
	free(beside);
out:
	if (stage)
		rm_rf(stage);
	free(stage);
	free(tree_bz);
	free(tree_mods);
	return r;
}

int cluster_up(const struct scenario *sc, const struct up_opts *o, struct cluster *c)
{
	struct image_opts io = { .cache_dir = o->cache_dir, .quiet = o->quiet };
	struct image img;
	char name[CLUSTER_NAME_MAX + 1];
	int r;

	if (geteuid() != 0) {
		log_error("a cluster needs root (network namespaces, libvirtd, QEMU)");
		return -EPERM;
	}
	if (o->name && !valid_name(o->name)) {
		log_error("cluster name '%s': use 1-%d of a-z, 0-9 and '-'", o->name, CLUSTER_NAME_MAX);
		return -EINVAL;
	}
	/* Every command that starts a cluster first removes what provably is stale. */
	cluster_reap_stale();
	r = image_ensure(&io, &img);
	if (r < 0)
		return r;
	r = claim_name(o->name, name, sizeof(name));
	if (r < 0) {
		log_error("cannot create cluster %s in %s: %s", o->name ? o->name : "", cluster_state_root(),
			  r == -EEXIST ? "it exists already" : strerror(-r));
		image_release(&img);
		return r;
	}
	cluster_init(c, name, sc->cluster.nodes, sc->cluster.subnet);
	c->fencing = sc->cluster.fencing;
	c->ephemeral = o->ephemeral;
	c->owner = getpid();
	snprintf(c->image_key, sizeof(c->image_key), "%s", img.key);
	r = choose_kernel(c, sc, &img, o);
	if (!r)
		r = pick_accel(c, sc, &img, o->cache_dir);
	if (!r)
		r = save_state(c);
	if (!r) {
		if (!o->quiet)
			log_info("cluster %s: %d nodes, %s, state in %s", c->name, c->n, c->kvm ? "KVM" : "TCG",
				 c->dir);
		r = bring_up(c, sc, &img, o);
	}
	if (!r)
		r = save_state(c);
	image_release(&img);
	if (r < 0) {
		char keep[CLUSTER_NAME_MAX + 1];
		snprintf(keep, sizeof(keep), "%s", c->name);
		if (cancel_requested())
			log_info("interrupted: removing cluster %s", keep);
		cluster_release(c);
		cluster_down(keep);
	}
	return r;
}

/* ---- down ---- */

/* Destroys every domain named takeover-<name>-* that this cluster's libvirtd knows. */
static void destroy_domains(const char *name, const char *uri)
{
	virConnectPtr conn = virConnectOpen(uri);
	virDomainPtr *doms = NULL;
	char *prefix = xasprintf("takeover-%s-", name);
	int n;

	if (!conn) {
		free(prefix);
		return;
	}
	n = virConnectListAllDomains(conn, &doms, 0);
	for (int i = 0; i < n; i++) {
		const char *dn = virDomainGetName(doms[i]);
		if (dn && !strncmp(dn, prefix, strlen(prefix))) {
			log_debug("destroying domain %s", dn);
			if (virDomainIsActive(doms[i]) == 1)
				virDomainDestroy(doms[i]);
			virDomainUndefine(doms[i]);
		}
		virDomainFree(doms[i]);
	}
	free(doms);
	free(prefix);
	virConnectClose(conn);
}

/* QEMU processes of this cluster that somehow live outside its namespace. */
static int kill_stray_qemu(const char *name)
{
	char *needle = xasprintf("guest=takeover-%s-", name);
	DIR *d = opendir("/proc");
	struct dirent *e;
	int n = 0;

	while (d && (e = readdir(d))) {
		char *end, path[64];
		long pid = strtol(e->d_name, &end, 10);
		struct strbuf cmd = STRBUF_INIT;
		if (*end || pid <= 1)
			continue;
		snprintf(path, sizeof(path), "/proc/%ld/cmdline", pid);
		if (strbuf_read_file(&cmd, path, 1 << 20) == 0) {
			for (size_t i = 0; i < cmd.len; i++)
				if (!cmd.buf[i])
					cmd.buf[i] = ' ';
			if (strstr(cmd.buf, needle) && strstr(cmd.buf, "qemu-system")) {
				daemons_terminate((pid_t)pid, 5000);
				n++;
			}
		}
		strbuf_release(&cmd);
	}
	if (d)
		closedir(d);
	free(needle);
	return n;
}

int cluster_down(const char *name)
{
	char ns[64];
	char *dir, *uri;
	ino_t ino;
	int r;

	if (!valid_name(name))
		return -EINVAL;
	cancel_hold(); /* a second Ctrl-C must not leave half a cluster behind */
	snprintf(ns, sizeof(ns), "takeover-%s", name);
	dir = xasprintf("%s/%s", cluster_state_root(), name);
	uri = daemons_libvirt_uri(dir);
	ino = net_inode(ns);
	if (ino) {
		char *sock = xasprintf("%s/libvirt/run/libvirt-sock", dir);
		if (access(sock, F_OK) == 0)
			destroy_domains(name, uri);
		free(sock);
		/* libvirtd, fence_virtd, and any QEMU libvirt did not manage to stop. */
		daemons_kill_netns(ino, name);
	}
	kill_stray_qemu(name);
	r = net_destroy(ns);
	if (!r)
		r = rm_rf(dir);
	if (r < 0)
		log_error("cluster %s: could not remove everything: %s", name, strerror(-r));
	free(dir);
	free(uri);
	cancel_release();
	return r;
}

int cluster_list(char names[][CLUSTER_NAME_MAX + 1], int max)
{
	DIR *d = opendir(cluster_state_root());
	struct dirent *e;
	int n = 0;

	while (d && (e = readdir(d)) && n < max)
		if (e->d_name[0] != '.' && valid_name(e->d_name))
			snprintf(names[n++], CLUSTER_NAME_MAX + 1, "%.16s", e->d_name);
	if (d)
		closedir(d);
	d = opendir("/run/netns");
	while (d && (e = readdir(d)) && n < max) {
		const char *nm = e->d_name + strlen("takeover-");
		bool seen = false;
		if (strncmp(e->d_name, "takeover-", 9) || !valid_name(nm))
			continue;
		for (int i = 0; i < n; i++)
			seen |= !strcmp(names[i], nm);
		if (!seen)
			snprintf(names[n++], CLUSTER_NAME_MAX + 1, "%.16s", nm);
	}
	if (d)
		closedir(d);
	return n;
}

/* The owner still runs takeover (and is not a reused pid). */
static bool owner_alive(pid_t pid)
{
	char path[64];
	struct strbuf cmd = STRBUF_INIT;
	bool alive;

	if (pid <= 1)
		return false;
	snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)pid);
	alive = strbuf_read_file(&cmd, path, 1 << 16) == 0 && strstr(cmd.buf, "takeover");
	strbuf_release(&cmd);
	return alive;
}

int cluster_reap_stale(void)
{
	char names[64][CLUSTER_NAME_MAX + 1];
	int n = cluster_list(names, 64), reaped = 0;

	for (int i = 0; i < n; i++) {
		struct cluster c;
		if (cluster_load(names[i], &c) < 0)
			continue;
		bool stale = c.ephemeral && !owner_alive(c.owner);
		pid_t owner = c.owner;
		cluster_release(&c);
		if (!stale)
			continue;
		log_warn("removing cluster %s: left by a takeover run (pid %d) that is gone", names[i], (int)owner);
		if (cluster_down(names[i]) == 0)
			reaped++;
	}
	return reaped;
}
