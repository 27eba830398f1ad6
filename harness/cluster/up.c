// SPDX-License-Identifier: GPL-2.0-only
/*
 * `up`. The order is the order of dependencies: state directory ->
 * namespace -> libvirtd -> disks and rendered configuration -> domains ->
 * fence_virtd -> agents -> Pacemaker membership -> resources -> NFS mounts
 * checked by a write and a read-back. Every step has a deadline and names the
 * node and the console log when it fails.
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

/* Deadlines under TCG (measured: boot ~30-60 s with three guests, group start ~40 s). */
#define BOOT_DEADLINE_MS (240 * 1000)
#define MEMBERSHIP_DEADLINE_MS (240 * 1000)
#define RESOURCES_DEADLINE_MS (300 * 1000)
#define MOUNT_TIMEOUT_MS (90 * 1000)
#define TB_CACHE_MIB 128

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
		r = cluster_make_overlays(c, img->base);
	if (!r)
		r = cluster_make_shared_disk(c, sc);
	if (!r)
		r = step(cluster_render_config(c, sc), o->quiet, "disks and configuration", t0);
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
	if (o->name && !cluster_valid_name(o->name)) {
		log_error("cluster name '%s': use 1-%d of a-z, 0-9 and '-'", o->name, CLUSTER_NAME_MAX);
		return -EINVAL;
	}
	/* Every command that starts a cluster first removes what provably is stale. */
	cluster_reap_stale();
	r = image_ensure(&io, &img);
	if (r < 0)
		return r;
	r = cluster_claim_name(o->name, name, sizeof(name));
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
		r = cluster_save_state(c);
	if (!r) {
		if (!o->quiet)
			log_info("cluster %s: %d nodes, %s, state in %s", c->name, c->n, c->kvm ? "KVM" : "TCG",
				 c->dir);
		r = bring_up(c, sc, &img, o);
	}
	if (!r)
		r = cluster_save_state(c);
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
