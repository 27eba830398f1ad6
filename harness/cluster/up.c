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
#include "util/sha256.h"
#include "util/spawn.h"
#include "util/units.h"
#include "util/xalloc.h"
#include "cluster/vm.h"
#include "cluster/lifecycle.h"
#include "cluster/snapshot.h"

/* Deadlines under TCG (measured: boot ~30-60 s with three guests, group start ~40 s). */
#define BOOT_DEADLINE_MS (240 * 1000)
#define MEMBERSHIP_DEADLINE_MS (240 * 1000)
#define RESOURCES_DEADLINE_MS (300 * 1000)
#define MOUNT_TIMEOUT_MS (90 * 1000)

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

static int start_domain(struct cluster *c, const struct scenario *sc, struct node *nd)
{
	struct vm_spec s;
	_cleanup_free_ char *cmdline = cluster_node_spec(c, sc, nd, &s); /* s points into it */
	_cleanup_strbuf_ struct strbuf xml = STRBUF_INIT;
	int r = vm_domain_xml(&s, &xml);

	(void)cmdline;
	if (r)
		return r;
	_cleanup_free_ char *path = xasprintf("%s/%s.xml", c->dir, nd->name);
	write_file_atomic(path, xml.buf, xml.len, 0644); /* for the curious; not read back */
	/*
	 * Persistent, not transient: fence_virtd cannot confirm that a
	 * destroyed transient domain is off (it no longer exists), so
	 * fencing the dead server would fail forever and nothing would
	 * take over. `down` undefines them.
	 */
	_cleanup_domain_ virDomainPtr dom = virDomainDefineXML(c->conn, xml.buf);
	if (!dom || virDomainCreate(dom) < 0) {
		log_error("%s: cannot start domain %s: %s", nd->name, nd->domain, virGetLastErrorMessage());
		return -EIO;
	}
	return 0;
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

/* ctx: the node the group must run on, or NULL for any. */
static int check_resources(struct cluster *c, void *ctx, struct strbuf *why)
{
	const char *want = ctx;
	struct crm_status st;

	if (cluster_crm_status(c, 1, &st) < 0) {
		strbuf_addstr(why, "crm_mon gave no answer");
		return 0;
	}
	strbuf_addf(why, "group: %d/4 started%s%s; fencing: %s", st.group_members_started,
		    st.group_node[0] ? " on " : "", st.group_node,
		    !c->fencing ? "off" : st.fence_started ? "started" : "not started");
	if (st.failures)
		strbuf_addf(why, "; failed action: %s", st.first_failure);
	if (want && *want && st.group_started && strcmp(st.group_node, want)) {
		strbuf_addf(why, "; expected on %s", want);
		return 0;
	}
	snprintf(c->group_node, sizeof(c->group_node), "%s", st.group_node);
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

/* Logs a finished stage of `up` and records how long it took (report.json's cluster_up). */
static int step(struct cluster *c, int r, bool quiet, const char *what, uint64_t t0)
{
	struct up_record *u = &c->up;
	uint64_t now = now_ms(), prev = t0;

	if (r)
		return r;
	for (int i = 0; i < u->nstages; i++)
		prev += u->stages[i].ms;
	if (u->nstages < UP_MAX_STAGES) {
		snprintf(u->stages[u->nstages].name, sizeof(u->stages[0].name), "%s", what);
		u->stages[u->nstages++].ms = now - prev;
	}
	if (!quiet)
		log_info("%-28s done (%llus)", what, (unsigned long long)((now - t0) / 1000));
	return 0;
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

/* The host side every cluster starts with: its namespace and its own libvirtd. */
static int start_host_side(struct cluster *c, bool quiet, uint64_t t0)
{
	int r = step(c, net_create(c->netns, c->bridge_ip), quiet, "network namespace", t0);

	if (!r)
		r = step(c, daemons_start_libvirtd(c->netns, c->dir), quiet, "libvirtd", t0);
	if (!r)
		r = cluster_connect_libvirt(c);
	return r;
}

static int boot_cold(struct cluster *c, const struct scenario *sc, const struct image *img, bool quiet,
		     uint64_t t0)
{
	int r = start_host_side(c, quiet, t0);

	if (!r)
		r = cluster_make_overlays(c, img->base);
	if (!r)
		r = cluster_make_shared_disk(c, sc);
	if (!r)
		r = step(c, cluster_make_config_disk(c), quiet, "disks and configuration", t0);
	if (!r && c->fencing)
		r = step(c, daemons_start_fence_virtd(c->netns, c->dir, c->uri), quiet, "fence_virtd", t0);
	for (int i = 0; i < c->n && !r; i++)
		r = start_domain(c, sc, &c->nodes[i]);
	if (!r)
		r = step(c, cluster_connect_agents(c, now_ms() + BOOT_DEADLINE_MS), quiet,
			 "nodes booted (agents up)", t0);
	if (!r)
		r = check_kernels(c);
	if (!r)
		r = step(c, wait_until(c, now_ms() + MEMBERSHIP_DEADLINE_MS, "cluster membership", quiet,
				       check_membership, NULL),
			 quiet, "all nodes online", t0);
	if (!r)
		r = configure_pacemaker(c);
	if (!r)
		r = step(c, wait_until(c, now_ms() + RESOURCES_DEADLINE_MS, "NFS group and fencing", quiet,
				       check_resources, NULL),
			 quiet, "NFS group started", t0);
	if (!r)
		r = step(c, mount_all(c, sc), quiet, "NFS mounted on every node", t0);
	if (!r)
		r = step(c, check_mounts(c), quiet, "mounts usable (write+read)", t0);
	return r;
}

/* ---- warm: restored from a snapshot, then checked as a cold cluster is ---- */

/* A restored node's first answer comes within seconds; a wedged restore never. */
#define RESTORE_AGENT_DEADLINE_MS (60 * 1000)
#define RESTORE_CHECK_DEADLINE_MS (90 * 1000)

/* The guests' clocks stood still while saved: step each to the host's. */
static int step_clocks(struct cluster *c)
{
	char at[32];
	uint64_t t = wall_ms();

	snprintf(at, sizeof(at), "@%llu.%03llu", (unsigned long long)(t / 1000), (unsigned long long)(t % 1000));
	const char *argv[] = { "date", "-u", "-s", at, NULL };
	return exec_everywhere(c, argv, 20000, "setting the clock");
}

/*
 * -ESTALE when the snapshot did not give a ready cluster (it is then
 * discarded and the cluster booted cold), other -errno as a cold boot's.
 */
static int boot_warm(struct cluster *c, const struct scenario *sc, const struct snapshot *snap, bool quiet,
		     uint64_t t0, struct strbuf *why)
{
	int r = start_host_side(c, quiet, t0);

	if (r)
		return r;
	r = step(c, snapshot_restore_disks(c, snap), quiet, "disks from the snapshot", t0);
	if (!r && c->fencing)
		r = step(c, daemons_start_fence_virtd(c->netns, c->dir, c->uri), quiet, "fence_virtd", t0);
	if (r)
		return r;
	/* Then the same checks as a cold cluster's end; what failed is the snapshot's fault. */
	const char *what = "domain restored by libvirt";
	r = step(c, snapshot_restore_domains(c, sc, snap), quiet, "domains restored", t0);
	if (!r) {
		what = "agent answering";
		r = step(c, cluster_connect_agents(c, now_ms() + RESTORE_AGENT_DEADLINE_MS), quiet,
			 "agents answer", t0);
	}
	if (!r) {
		what = "kernel under test";
		r = check_kernels(c);
	}
	if (!r) {
		what = "clock stepped";
		r = step(c, step_clocks(c), quiet, "clocks stepped", t0);
	}
	if (!r) {
		what = "complete membership";
		r = step(c, wait_until(c, now_ms() + RESTORE_CHECK_DEADLINE_MS, "cluster membership", quiet,
				       check_membership, NULL),
			 quiet, "all nodes online", t0);
	}
	if (!r) {
		what = "NFS group on the node it was saved on";
		r = step(c, wait_until(c, now_ms() + RESTORE_CHECK_DEADLINE_MS, "NFS group and fencing", quiet,
				       check_resources, (void *)snap->group_node),
			 quiet, "NFS group started", t0);
	}
	if (!r) {
		what = "usable mounts";
		r = step(c, check_mounts(c), quiet, "mounts usable (write+read)", t0);
	}
	if (!r || r == -EINTR || cancel_requested())
		return r; /* an interrupted restore is not the snapshot's fault: it is kept */
	strbuf_addf(why, "after the restore: no %s", what);
	return -ESTALE;
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
		/* The modules' contents, not the disk made of them (mkfs stamps it). */
		struct sha256 h;
		sha256_init(&h);
		if (!r)
			r = sha256_tree(&h, modules, "modules", NULL);
		if (!r)
			sha256_key16(&h, c->modules_hash);
	}
	log_info("kernel under test: %s (%s)%s", c->kernel, c->expect_release,
		 c->modules_disk ? ", with its modules" : "");
	free(beside);
out:
	/* Once: the snapshot key and the report's kernel identity both name the kernel by it. */
	if (!r && c->kernel && (r = sha256_file_key16(c->kernel, c->kernel_hash)) < 0)
		log_error("%s: cannot read it: %s", c->kernel, strerror(-r));
	if (stage)
		rm_rf(stage);
	free(stage);
	free(tree_bz);
	free(tree_mods);
	return r;
}

/* What one attempt at `up` wants done with snapshots. */
enum up_try {
	UP_TRY_WARM,  /* restore the shape's snapshot if there is one, else boot cold and save */
	UP_TRY_COLD,  /* boot cold, save nothing: --cold, or a snapshot that just failed */
};

/* An attempt's outcome besides 0 and -errno: what to try next. */
#define UP_AGAIN_WARM 1 /* saved a snapshot: restore it, as every later `up` will */
#define UP_AGAIN_COLD 2 /* the snapshot was unusable and is gone: boot cold (and save anew, once) */
#define UP_AGAIN_NOSAVE 3 /* saving failed half-way: boot cold, save nothing */

/* A snapshot that failed: removed, the reason kept for report.json, then a cold boot. */
static int discard(struct cluster *c, const struct snapshot *snap, const char *why)
{
	snapshot_discard(snap, why);
	snprintf(c->up.fallback, sizeof(c->up.fallback), "%s", why);
	return UP_AGAIN_COLD;
}

/* Everything of one attempt in a claimed state directory; see cluster_up. */
static int up_once(const struct scenario *sc, const struct up_opts *o, const struct image *img,
		   const char *name, enum up_try try, struct cluster *c)
{
	struct strbuf shape = STRBUF_INIT, why = STRBUF_INIT;
	struct snapshot snap = { 0 };
	uint64_t t0 = now_ms();
	char key[17] = "";
	int r;

	cluster_init(c, name, sc->cluster.nodes, sc->cluster.subnet);
	c->fencing = sc->cluster.fencing;
	c->ephemeral = o->ephemeral;
	c->owner = getpid();
	snprintf(c->image_key, sizeof(c->image_key), "%s", img->key);
	r = choose_kernel(c, sc, img, o);
	if (!r)
		r = pick_accel(c, sc, img, o->cache_dir);
	if (!r)
		r = cluster_save_state(c);
	if (!r)
		r = cluster_render_config(c, sc);
	if (!r)
		r = snapshot_key(c, sc, c->modules_hash, key, &shape);
	if (r < 0)
		goto out;
	snprintf(c->up.snapshot, sizeof(c->up.snapshot), "%s", key);
	if (try == UP_TRY_WARM) {
		r = snapshot_find(o->cache_dir, key, &snap, &why);
		if (r == -EBADMSG) {
			r = discard(c, &snap, why.buf);
			goto out;
		}
	}
	if (!o->quiet)
		log_info("cluster %s: %d nodes, %s, %s, state in %s", c->name, c->n, c->kvm ? "KVM" : "TCG",
			 snap.dir && !r ? "warm (from a snapshot)" : "cold", c->dir);
	if (snap.dir && !r) {
		c->up.warm = true;
		cluster_save_state(c); /* from now on its disks are backed by the snapshot: gc keeps it */
		r = boot_warm(c, sc, &snap, o->quiet, t0, &why);
		if (r == -ESTALE)
			r = discard(c, &snap, why.buf);
		goto out;
	}
	r = boot_cold(c, sc, img, o->quiet, t0);
	if (r || try != UP_TRY_WARM)
		goto out;
	/* The first ready cluster of its shape: save it, then restore it as every later `up` will. */
	r = snapshot_save(c, sc, o->cache_dir, key, shape.buf, c->group_node, &snap);
	if (r == 0) {
		if (!o->quiet)
			log_info("%-28s done (%llus): %s", "snapshot saved", (unsigned long long)((now_ms() - t0) / 1000),
				 snap.dir);
		step(c, 0, true, "snapshot saved", t0);
		r = UP_AGAIN_WARM;
	} else if (r < 0) {
		/* Half saved: the domains may be gone. Boot again, without saving. */
		snprintf(c->up.fallback, sizeof(c->up.fallback), "saving the snapshot failed");
		r = UP_AGAIN_NOSAVE;
	} else {
		r = 0; /* not saved; the cold cluster runs on */
	}
out:
	if (!r)
		r = cluster_save_state(c);
	snapshot_release(&snap);
	strbuf_release(&shape);
	strbuf_release(&why);
	return r;
}

/* Appends the stages of src to dst, each name after prefix ("cold: "). */
static void append_stages(struct up_record *dst, const char *prefix, const struct up_record *src)
{
	for (int i = 0; i < src->nstages && dst->nstages < UP_MAX_STAGES; i++) {
		snprintf(dst->stages[dst->nstages].name, sizeof(dst->stages[0].name), "%s%s", prefix,
			 src->stages[i].name);
		dst->stages[dst->nstages++].ms = src->stages[i].ms;
	}
}

int cluster_up(const struct scenario *sc, const struct up_opts *o, struct cluster *c)
{
	struct image_opts io = { .cache_dir = o->cache_dir, .quiet = o->quiet };
	enum up_try try = o->cold ? UP_TRY_COLD : UP_TRY_WARM;
	char fallback[sizeof(c->up.fallback)] = "";
	bool saved = false;
	uint64_t t0 = now_ms();
	/* What came before the last attempt: the image, and every attempt that did not end it. */
	struct up_record before = { 0 };
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
	snprintf(before.stages[0].name, sizeof(before.stages[0].name), "guest image");
	before.stages[before.nstages++].ms = now_ms() - t0;
	r = cluster_claim_name(o->name, name, sizeof(name));
	if (r < 0) {
		log_error("cannot create cluster %s in %s: %s", o->name ? o->name : "", cluster_state_root(),
			  r == -EEXIST ? "it exists already" : strerror(-r));
		image_release(&img);
		return r;
	}
	/*
	 * Each attempt starts from an empty state directory under the same
	 * name: warm; or cold, saved, then restored as every later `up` will
	 * be. A snapshot that fails is discarded and replaced once; when the
	 * replacement fails too, the cluster boots cold without one.
	 */
	for (int attempt = 0; attempt < 4; attempt++) {
		char again[CLUSTER_NAME_MAX + 1];
		r = up_once(sc, o, &img, name, try, c);
		if (r <= 0)
			break;
		if (r == UP_AGAIN_WARM)
			saved = true;
		else
			snprintf(fallback, sizeof(fallback), "%s", c->up.fallback);
		append_stages(&before, c->up.warm ? "warm: " : "cold: ", &c->up);
		try = r == UP_AGAIN_WARM || (r == UP_AGAIN_COLD && !saved) ? UP_TRY_WARM : UP_TRY_COLD;
		cluster_release(c);
		cluster_down(name);
		snprintf(again, sizeof(again), "%s", name);
		r = cluster_claim_name(again, name, sizeof(name));
		if (r < 0) {
			log_error("cannot create cluster %s again: %s", again, strerror(-r));
			break;
		}
	}
	if (r > 0)
		r = -EIO; /* cannot happen: the fourth attempt is cold and saves nothing */
	c->up.saved = saved;
	snprintf(c->up.fallback, sizeof(c->up.fallback), "%s", fallback);
	append_stages(&before, "", &c->up);
	c->up.nstages = before.nstages;
	memcpy(c->up.stages, before.stages, sizeof(before.stages));
	c->up.total_ms = now_ms() - t0;
	image_release(&img);
	if (r < 0) {
		char keep[CLUSTER_NAME_MAX + 1];
		snprintf(keep, sizeof(keep), "%s", c->name[0] ? c->name : name);
		if (cancel_requested())
			log_info("interrupted: removing cluster %s", keep);
		cluster_release(c);
		cluster_down(keep);
	}
	return r;
}
