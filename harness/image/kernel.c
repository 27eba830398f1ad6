// SPDX-License-Identifier: GPL-2.0-only
#include "image/kernel.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/fs.h"
#include "util/log.h"
#include "util/spawn.h"
#include "util/xalloc.h"

/*
 * x86 boot protocol: the setup header carries "HdrS" at 0x202 and, at
 * 0x20e, a pointer (relative to 0x200) to the version string
 * "6.1.0-rc1 (user@host) #1 SMP ...". Its first word is `uname -r`.
 */
int kernel_release_of(const char *bzimage, char *rel, size_t len)
{
	unsigned char hdr[0x210];
	char ver[256];
	int fd = open(bzimage, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = pread(fd, hdr, sizeof(hdr), 0);
	if (n != (ssize_t)sizeof(hdr) || memcmp(hdr + 0x202, "HdrS", 4)) {
		close(fd);
		return -ENOEXEC;
	}
	unsigned off = 0x200u + (unsigned)(hdr[0x20e] | hdr[0x20f] << 8);
	n = pread(fd, ver, sizeof(ver) - 1, off);
	close(fd);
	if (n <= 0)
		return -ENOEXEC;
	ver[n] = '\0';
	size_t w = strcspn(ver, " \t\n");
	if (!w || w >= len)
		return -ENOEXEC;
	memcpy(rel, ver, w);
	rel[w] = '\0';
	return 0;
}

static bool is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* The directory whose child is <release>/, or NULL. */
static char *modules_parent(const char *dir, const char *release)
{
	char *c1 = xasprintf("%s/lib/modules/%s", dir, release), *c2 = xasprintf("%s/%s", dir, release);
	char *parent = NULL;

	if (is_dir(c1))
		parent = xasprintf("%s/lib/modules", dir);
	else if (is_dir(c2))
		parent = xstrdup(dir);
	free(c1);
	free(c2);
	return parent;
}

int kernel_modules_disk(const char *dir, const char *release, const char *img)
{
	char *parent = modules_parent(dir, release), *skel = NULL;
	struct strbuf out = STRBUF_INIT;
	int r;

	if (!parent) {
		/* dir is the release directory itself: stage it under a parent of its own. */
		char *dep = xasprintf("%s/modules.dep", dir);
		bool own = access(dep, R_OK) == 0;
		free(dep);
		if (!own) {
			log_error("%s: no modules for kernel %s here (expected lib/modules/%s, %s/ or modules.dep)",
				  dir, release, release, release);
			return -ENOENT;
		}
		skel = xasprintf("%s.skel", img);
		char *dst = xasprintf("%s/%s", skel, release);
		const char *cp[] = { "cp", "-a", dir, dst, NULL };
		r = mkdir_p(skel, 0755);
		if (!r)
			r = spawn_simple(cp, 300000, &out);
		free(dst);
		if (r < 0) {
			log_error("cannot stage modules from %s: %s", dir, out.buf);
			strbuf_release(&out);
			rm_rf(skel);
			free(skel);
			return r;
		}
		parent = xstrdup(skel);
	}
	const char *mkfs[] = { "mkfs.ext4", "-q", "-F", "-L", "tkmodules", "-d", parent, img, "2G", NULL };
	r = spawn_simple(mkfs, 600000, &out);
	if (r < 0) {
		strbuf_rtrim(&out);
		log_error("mkfs.ext4 (modules disk from %s): %s", parent, out.buf);
	}
	if (skel) {
		rm_rf(skel);
		free(skel);
	}
	strbuf_release(&out);
	free(parent);
	return r;
}

int kernel_tree_artifacts(const char *tree, char **bzimage, char **modules_root, const char *stage_dir)
{
	char *bz = xasprintf("%s/arch/x86/boot/bzImage", tree);
	char *order = xasprintf("%s/modules.order", tree);
	struct stat st;
	int r = 0;

	*bzimage = NULL;
	*modules_root = NULL;
	if (access(bz, R_OK) < 0) {
		char *abs = realpath(tree, NULL); /* "." says little in a bisect log */
		log_error("%s: not built (no arch/x86/boot/bzImage); build it first, e.g. make -j$(nproc) bzImage modules",
			  abs ? abs : tree);
		free(abs);
		free(bz);
		free(order);
		return -ENOENT;
	}
	if (stat(order, &st) == 0 && st.st_size > 0) {
		char *mp = xasprintf("INSTALL_MOD_PATH=%s", stage_dir);
		const char *argv[] = { "make", "-s", "-C", tree, "modules_install", mp, NULL };
		struct strbuf out = STRBUF_INIT;
		r = mkdir_p(stage_dir, 0755);
		if (!r)
			r = spawn_simple(argv, 900000, &out);
		if (r < 0) {
			strbuf_rtrim(&out);
			log_error("%s: make modules_install failed: %s", tree, out.buf);
		} else {
			*modules_root = xstrdup(stage_dir);
		}
		strbuf_release(&out);
		free(mp);
	}
	free(order);
	if (r < 0) {
		free(bz);
		return r;
	}
	*bzimage = bz;
	return 0;
}

/* One line of git's output for the tree, or JSON null when it is not a git checkout. */
static json_t *git_line(const char *tree, const char *const *args)
{
	const char *argv[8] = { "git", "-C", tree };
	struct strbuf out = STRBUF_INIT;
	json_t *v = json_null();
	size_t n = 3;

	for (; *args && n < 7; args++)
		argv[n++] = *args;
	argv[n] = NULL;
	if (spawn_simple(argv, 10000, &out) == 0) {
		strbuf_rtrim(&out);
		if (out.len && !strchr(out.buf, '\n')) {
			json_decref(v);
			v = json_string(out.buf);
		}
	}
	strbuf_release(&out);
	return v ? v : json_null();
}

json_t *kernel_identity(const char *bzimage, const char *bzimage_hash, bool from_image, const char *tree)
{
	json_t *o = json_object(), *build = NULL;

	json_object_set_new(o, "origin", json_string(tree ? "tree" : from_image ? "image" : "bzimage"));
	json_object_set_new(o, "bzimage", bzimage ? json_string(bzimage) : json_null());
	/* The binary's own name: the same bzImage gets the same build ID wherever it came from. */
	json_object_set_new(o, "bzimage_sha256_16",
			    bzimage_hash && *bzimage_hash ? json_string(bzimage_hash) : json_null());
	/* A kernel `takeover kernel build` made sits in its cache directory beside its manifest. */
	if (bzimage && !from_image && !tree) {
		char *dir = xstrdup(bzimage), *slash = strrchr(dir, '/');
		if (slash) {
			*slash = '\0';
			char *m = xasprintf("%s/manifest.json", dir);
			build = json_load_file(m, 0, NULL);
			free(m);
		}
		free(dir);
	}
	json_object_set_new(o, "build", json_is_object(build) ? build : json_null());
	if (build && !json_is_object(build))
		json_decref(build);
	json_object_set_new(o, "tree", tree ? json_string(tree) : json_null());
	json_object_set_new(o, "git_commit",
			    tree ? git_line(tree, (const char *const[]){ "rev-parse", "--verify", "HEAD", NULL })
				 : json_null());
	json_object_set_new(o, "git_describe",
			    tree ? git_line(tree, (const char *const[]){ "describe", "--always", "--dirty", NULL })
				 : json_null());
	return o;
}
