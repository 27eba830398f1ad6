// SPDX-License-Identifier: GPL-2.0-only
/*
 * Warm start: see snapshot.h. up.c decides when to save and when to
 * restore, and checks a restored cluster as it checks a cold one.
 */
#include "cluster/snapshot.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cluster/lifecycle.h"
#include "cluster/vm.h"
#include "image/image.h"
#include "util/fs.h"
#include "util/log.h"
#include "util/sha256.h"
#include "util/xalloc.h"

/* Bump when what a snapshot holds, or how it is restored, changes. */
#define SNAPSHOT_FORMAT 1
#define MANIFEST "manifest.json"
/* Beyond the saved memory (at most each node's RAM): overlays and the shared disk's data. */
#define SAVE_SPACE_MARGIN (2ULL << 30)

char *snapshot_root(const char *cache_dir)
{
	return xasprintf("%s/snapshots", image_cache_dir(cache_dir));
}

/* ---- the key ---- */

static void shape_line(struct sha256 *h, struct strbuf *shape, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void shape_line(struct sha256 *h, struct strbuf *shape, const char *key, const char *fmt, ...)
{
	size_t at = shape->len;
	va_list ap;

	strbuf_addf(shape, "%s=", key);
	va_start(ap, fmt);
	strbuf_vaddf(shape, fmt, ap);
	va_end(ap);
	strbuf_addch(shape, '\n');
	sha256_update(h, shape->buf + at, shape->len - at);
}

int snapshot_key(const struct cluster *c, const struct scenario *sc, const char *modules_hash,
		 char key[17], struct strbuf *shape)
{
	/* A fresh random key every render: the snapshot carries its own. */
	static const char *const skip[] = { "etc/cluster/fence_xvm.key", NULL };
	char *cfg = xasprintf("%s/config", c->dir);
	char kd[17], id[17] = "none", cd[17];
	struct sha256 h, ch;
	struct strbuf xml = STRBUF_INIT;
	struct vm_spec s;
	char *cmdline;
	int r = 0;

	sha256_init(&h);
	/* cluster_up() hashed the kernel when it chose it; a cluster made otherwise (tests) has not. */
	if (c->kernel_hash[0])
		snprintf(kd, sizeof(kd), "%s", c->kernel_hash);
	else
		r = sha256_file_key16(c->kernel, kd);
	if (!r && c->initrd)
		r = sha256_file_key16(c->initrd, id);
	sha256_init(&ch);
	if (!r)
		r = sha256_tree(&ch, cfg, "config", skip);
	free(cfg);
	if (r < 0)
		return r;
	sha256_key16(&ch, cd);
	shape_line(&h, shape, "format", "%d", SNAPSHOT_FORMAT);
	shape_line(&h, shape, "image", "%s", c->image_key);
	shape_line(&h, shape, "kernel", "%s (%s)", kd, c->expect_release);
	shape_line(&h, shape, "initrd", "%s", id);
	shape_line(&h, shape, "modules", "%s", modules_hash && *modules_hash ? modules_hash : "none");
	shape_line(&h, shape, "nodes", "%d", c->n);
	shape_line(&h, shape, "config", "%s", cd);
	shape_line(&h, shape, "nfs", "vers=%s,%s", nfs_version_name(sc->nfs.version), sc->nfs.mount_options);
	shape_line(&h, shape, "shared_disk", "%llu", (unsigned long long)cluster_shared_disk_size(c, sc));
	/*
	 * The first node's domain with every host path and the cluster's name
	 * taken out: memory, vCPUs, accel, the command line and the device
	 * list, exactly as libvirt gets them.
	 */
	cmdline = cluster_node_spec(c, sc, &c->nodes[0], &s);
	s.name = "takeover-snapshot-n1";
	s.kernel = "kernel";
	s.initrd = c->initrd ? "initrd" : NULL;
	s.root_disk = "root";
	s.config_disk = "config";
	s.shared_disk = "shared";
	s.modules_disk = c->modules_disk ? "modules" : NULL;
	s.console_log = "console";
	s.agent_socket = "agent";
	s.qga_socket = "qga";
	r = vm_domain_xml(&s, &xml);
	free(cmdline);
	if (!r) {
		sha256_update(&h, xml.buf, xml.len);
		strbuf_addf(shape, "accel=%s\nmemory_mib=%llu\nvcpus=%d\n", c->kvm ? "kvm" : "tcg",
			    (unsigned long long)s.memory_mib, s.vcpus);
		sha256_key16(&h, key);
	}
	strbuf_release(&xml);
	return r;
}

/* ---- the manifest ---- */

static const char *const per_node[] = { "save", "qcow2", NULL };
static const char *const shared_files[] = { "shared.raw", "config.img", "fence_xvm.key", NULL };

static int add_size(json_t *files, const char *dir, const char *name)
{
	char *p = xasprintf("%s/%s", dir, name);
	struct stat st;
	int r = stat(p, &st) < 0 ? -errno : 0;

	if (!r)
		json_object_set_new(files, name, json_integer((json_int_t)st.st_size));
	else
		log_error("snapshot: %s: %s", p, strerror(-r));
	free(p);
	return r;
}

static int write_manifest(const char *dir, const struct cluster *c, const char *key, const char *shape,
			  const char *group_node, bool modules)
{
	json_t *m = json_object(), *files = json_object();
	char when[32], name[32];
	time_t t = time(NULL);
	char *text, *path;
	int r = 0;

	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", gmtime(&t));
	for (int i = 0; i < c->n && !r; i++)
		for (int k = 0; per_node[k] && !r; k++) {
			snprintf(name, sizeof(name), "%s.%s", c->nodes[i].name, per_node[k]);
			r = add_size(files, dir, name);
		}
	for (int k = 0; shared_files[k] && !r; k++)
		r = add_size(files, dir, shared_files[k]);
	if (!r && modules)
		r = add_size(files, dir, "modules.img");
	json_object_set_new(m, "key", json_string(key));
	json_object_set_new(m, "format", json_integer(SNAPSHOT_FORMAT));
	json_object_set_new(m, "image", json_string(c->image_key));
	json_object_set_new(m, "created", json_string(when));
	json_object_set_new(m, "shape", json_string(shape));
	json_object_set_new(m, "nodes", json_integer(c->n));
	json_object_set_new(m, "group_node", json_string(group_node));
	json_object_set_new(m, "modules", json_boolean(modules));
	json_object_set_new(m, "files", files);
	text = json_dumps(m, JSON_INDENT(2) | JSON_SORT_KEYS);
	json_decref(m);
	path = xasprintf("%s/" MANIFEST, dir);
	if (!r)
		r = write_file_atomic(path, text, strlen(text), 0644);
	free(path);
	free(text);
	return r;
}

static json_t *load_manifest(const char *dir)
{
	char *path = xasprintf("%s/" MANIFEST, dir);
	json_t *m = json_load_file(path, 0, NULL);

	free(path);
	return m;
}

int snapshot_image_key(const char *dir, char key[17])
{
	json_t *m = load_manifest(dir);
	const char *k = m ? json_string_value(json_object_get(m, "image")) : NULL;
	int r = k ? 0 : -EBADMSG;

	if (k)
		snprintf(key, 17, "%s", k);
	json_decref(m);
	return r;
}

int snapshot_find(const char *cache_dir, const char *key, struct snapshot *s, struct strbuf *why)
{
	char *root = snapshot_root(cache_dir);
	json_t *m, *files;
	const char *name;
	json_t *size;
	int r = 0;

	memset(s, 0, sizeof(*s));
	snprintf(s->key, sizeof(s->key), "%s", key);
	s->dir = xasprintf("%s/%s", root, key);
	free(root);
	if (access(s->dir, F_OK) < 0)
		return -ENOENT;
	m = load_manifest(s->dir);
	files = m ? json_object_get(m, "files") : NULL;
	if (!json_is_object(files) || json_integer_value(json_object_get(m, "format")) != SNAPSHOT_FORMAT) {
		strbuf_addf(why, "%s/" MANIFEST " is missing or not of format %d", s->dir, SNAPSHOT_FORMAT);
		json_decref(m);
		return -EBADMSG;
	}
	json_object_foreach(files, name, size) {
		char *p = xasprintf("%s/%s", s->dir, name);
		struct stat st;
		if (stat(p, &st) < 0) {
			strbuf_addf(why, "%s: %s", p, strerror(errno));
			r = -EBADMSG;
		} else if (st.st_size != (off_t)json_integer_value(size)) {
			strbuf_addf(why, "%s has %lld bytes, the manifest says %lld", p, (long long)st.st_size,
				    (long long)json_integer_value(size));
			r = -EBADMSG;
		}
		free(p);
		if (r)
			break;
	}
	snprintf(s->group_node, sizeof(s->group_node), "%s",
		 json_string_value(json_object_get(m, "group_node")) ?: "");
	s->modules = json_is_true(json_object_get(m, "modules"));
	json_decref(m);
	return r;
}

void snapshot_release(struct snapshot *s)
{
	free(s->dir);
	memset(s, 0, sizeof(*s));
}

void snapshot_discard(const struct snapshot *s, const char *why)
{
	/* Renamed first: a concurrent lookup sees it whole or not at all. */
	char *bad = xasprintf("%s.bad-%d", s->dir, (int)getpid());

	log_warn("snapshot %s is unusable (%s): removing it, booting cold", s->key, why);
	if (rename(s->dir, bad) == 0)
		rm_rf(bad);
	free(bad);
}

/* ---- save ---- */

static int copy_file(const char *from, const char *to)
{
	const char *argv[] = { "cp", "--sparse=always", "--reflink=auto", from, to, NULL };

	return cluster_run_tool(argv, "cp");
}

/* rename(), or a copy when the cache is on another file system. */
static int move_file(const char *from, const char *to)
{
	int r;

	if (rename(from, to) == 0)
		return 0;
	if (errno != EXDEV) {
		r = -errno;
		log_error("cannot move %s to %s: %s", from, to, strerror(-r));
		return r;
	}
	r = copy_file(from, to);
	if (!r)
		unlink(from);
	return r;
}

static int move_into(const char *dir, const char *from, const char *name)
{
	char *to = xasprintf("%s/%s", dir, name);
	int r = move_file(from, to);

	free(to);
	return r;
}

static virDomainPtr node_domain(struct cluster *c, const struct node *nd)
{
	virDomainPtr d = virDomainLookupByName(c->conn, nd->domain);

	if (!d)
		log_error("%s: no domain %s: %s", nd->name, nd->domain, virGetLastErrorMessage());
	return d;
}

static void resume_all(struct cluster *c)
{
	for (int i = 0; i < c->n; i++) {
		_cleanup_domain_ virDomainPtr d = virDomainLookupByName(c->conn, c->nodes[i].domain);
		if (d && virDomainIsActive(d) == 1)
			virDomainResume(d);
	}
}

/* Every node paused within a few milliseconds of the others: one instant of the cluster. */
static int pause_all(struct cluster *c)
{
	for (int i = 0; i < c->n; i++) {
		_cleanup_domain_ virDomainPtr d = node_domain(c, &c->nodes[i]);
		int r = d && virDomainSuspend(d) == 0 ? 0 : -EIO;
		if (d && r)
			log_error("%s: cannot pause: %s", c->nodes[i].name, virGetLastErrorMessage());
		if (r) {
			resume_all(c);
			return r;
		}
	}
	return 0;
}

static int enough_space(const char *root, const struct cluster *c, const struct scenario *sc)
{
	uint64_t need = (uint64_t)c->n * sc->cluster.memory + SAVE_SPACE_MARGIN, have = 0;

	if (free_bytes(root, &have) < 0 || have < need) {
		log_warn("not saving a snapshot: %s has %llu MiB free, a save of this cluster needs %llu MiB",
			 root, (unsigned long long)(have >> 20), (unsigned long long)(need >> 20));
		return 0;
	}
	return 1;
}

int snapshot_save(struct cluster *c, const struct scenario *sc, const char *cache_dir,
		  const char *key, const char *shape, const char *group_node, struct snapshot *s)
{
	char *root = snapshot_root(cache_dir);
	char *tmp = xasprintf("%s/.tmp-%s-%d", root, key, (int)getpid());
	char *final = xasprintf("%s/%s", root, key);
	char name[32];
	int r = mkdir_p(tmp, 0755);

	memset(s, 0, sizeof(*s));
	if (r < 0 || !enough_space(root, c, sc) || pause_all(c) < 0) {
		if (r < 0)
			log_warn("not saving a snapshot: cannot create %s: %s", tmp, strerror(-r));
		rm_rf(tmp);
		free(root);
		free(tmp);
		free(final);
		return 1;
	}
	for (int i = 0; i < c->n && !r; i++) {
		struct node *nd = &c->nodes[i];
		_cleanup_domain_ virDomainPtr d = node_domain(c, nd);
		_cleanup_free_ char *path = xasprintf("%s/%s.save", tmp, nd->name);
		/* Restored paused, whatever state it had: up.c resumes all nodes together. */
		if (!d || virDomainSaveFlags(d, path, NULL, VIR_DOMAIN_SAVE_PAUSED) < 0) {
			log_error("%s: cannot save the domain to %s: %s", nd->name, path, virGetLastErrorMessage());
			r = -EIO;
		}
	}
	/* The domains are stopped: their disks become the snapshot's. */
	for (int i = 0; i < c->n && !r; i++) {
		struct node *nd = &c->nodes[i];
		snprintf(name, sizeof(name), "%s.qcow2", nd->name);
		r = move_into(tmp, nd->overlay, name);
		snprintf(name, sizeof(name), "console-%s.log", nd->name);
		if (!r)
			r = move_into(tmp, nd->console, name);
	}
	if (!r)
		r = move_into(tmp, c->shared_disk, "shared.raw");
	if (!r)
		r = move_into(tmp, c->config_disk, "config.img");
	if (!r && c->modules_disk)
		r = move_into(tmp, c->modules_disk, "modules.img");
	if (!r) {
		char *key_file = xasprintf("%s/config/etc/cluster/fence_xvm.key", c->dir);
		char *to = xasprintf("%s/fence_xvm.key", tmp);
		r = copy_file(key_file, to);
		free(key_file);
		free(to);
	}
	if (!r)
		r = write_manifest(tmp, c, key, shape, group_node, c->modules_disk != NULL);
	if (!r && rename(tmp, final) < 0) {
		if (errno == EEXIST || errno == ENOTEMPTY) {
			log_info("snapshot %s: another run saved the same shape first; using that one", key);
		} else {
			r = -errno;
			log_error("cannot move the snapshot into %s: %s", final, strerror(-r));
		}
	}
	rm_rf(tmp); /* after a successful rename this is a no-op */
	if (!r) {
		snprintf(s->key, sizeof(s->key), "%s", key);
		s->dir = xstrdup(final);
		snprintf(s->group_node, sizeof(s->group_node), "%s", group_node);
		s->modules = c->modules_disk != NULL;
	}
	free(root);
	free(tmp);
	free(final);
	return r;
}

/* ---- restore ---- */

int snapshot_restore_disks(struct cluster *c, const struct snapshot *s)
{
	int r = 0;

	for (int i = 0; i < c->n && !r; i++) {
		struct node *nd = &c->nodes[i];
		char *base = xasprintf("%s/%s.qcow2", s->dir, nd->name);
		char *log = xasprintf("%s/console-%s.log", s->dir, nd->name);
		r = cluster_make_overlay(base, "qcow2", nd->overlay);
		/* The boot the snapshot was made from, so the console reads from the start. */
		if (!r && access(log, R_OK) == 0)
			r = copy_file(log, nd->console);
		free(base);
		free(log);
	}
	if (!r) {
		char *from = xasprintf("%s/shared.raw", s->dir);
		r = copy_file(from, c->shared_disk);
		free(from);
	}
	if (!r) {
		char *from = xasprintf("%s/fence_xvm.key", s->dir);
		char *to = xasprintf("%s/config/etc/cluster/fence_xvm.key", c->dir);
		r = copy_file(from, to);
		free(from);
		free(to);
	}
	return r;
}

int snapshot_restore_domains(struct cluster *c, const struct scenario *sc, const struct snapshot *s)
{
	_cleanup_free_ char *config = xasprintf("%s/config.img", s->dir);
	_cleanup_free_ char *modules = s->modules ? xasprintf("%s/modules.img", s->dir) : NULL;

	for (int i = 0; i < c->n; i++) {
		struct node *nd = &c->nodes[i];
		_cleanup_free_ char *save = xasprintf("%s/%s.save", s->dir, nd->name);
		_cleanup_strbuf_ struct strbuf xml = STRBUF_INIT;
		struct vm_spec spec;
		_cleanup_free_ char *cmdline = cluster_node_spec(c, sc, nd, &spec); /* spec points into it */

		(void)cmdline;
		/* The disks the guest has mounted, in place (read-only). */
		spec.config_disk = config;
		spec.modules_disk = modules;
		int r = vm_domain_xml(&spec, &xml);
		if (r)
			return r;
		/* Persistent, as a cold domain is (fence_virtd needs it; down.c undefines it). */
		_cleanup_domain_ virDomainPtr d = virDomainDefineXML(c->conn, xml.buf);
		if (!d || virDomainRestoreFlags(c->conn, save, xml.buf, VIR_DOMAIN_SAVE_PAUSED) < 0) {
			log_error("%s: cannot restore %s from %s: %s", nd->name, nd->domain, save,
				  virGetLastErrorMessage());
			return -EIO;
		}
	}
	resume_all(c);
	return 0;
}
