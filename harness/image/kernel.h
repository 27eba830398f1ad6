/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef TAKEOVER_KERNEL_H
#define TAKEOVER_KERNEL_H
/*
 * The kernel under test: the image's Debian kernel, a bzImage brought by the
 * user (with its modules), a built source tree, or one built by
 * `takeover kernel build` (kernel_build.c) and cached by the hash of
 * (source, patches, config).
 */
#include <stdbool.h>
#include <stddef.h>

/* The release string a bzImage will report as `uname -r` (from its setup header). */
int kernel_release_of(const char *bzimage, char *rel, size_t len);

/*
 * Packs the modules of release found under dir (an INSTALL_MOD_PATH root, a
 * lib/modules directory, or the release's own directory) into an ext4 image
 * whose root holds <release>/; guests mount it on /lib/modules.
 */
int kernel_modules_disk(const char *dir, const char *release, const char *img);

/* For --kernel-tree: the tree's bzImage path (must exist) and its modules staged under stage_dir. */
int kernel_tree_artifacts(const char *tree, char **bzimage, char **modules_root, const char *stage_dir);

/*
 * What a run's report names the kernel under test by (the timeline's
 * run-start "kernel"): {"origin": "image" | "bzimage" | "tree", "bzimage":
 * path, "build": the manifest.json of a kernel `takeover kernel build` made
 * (its cache key, source, patches, config fragments) or null, "tree": the
 * --kernel-tree or null, "git_commit" / "git_describe": that tree's HEAD
 * when it is a git checkout, else null, "bzimage_sha256_16": bzimage_hash,
 * the first 16 hex digits of the bzImage's sha256 (the cluster's
 * kernel_hash), or null}. from_image: the image's own kernel.
 */
struct json_t;
struct json_t *kernel_identity(const char *bzimage, const char *bzimage_hash, bool from_image, const char *tree);

/* `takeover kernel build`: see kernel_build.c. */
struct kernel_build_opts {
	const char *source;      /* "debian-6.1", "debian-6.12" or a source tree */
	const char *patches;     /* directory with a `series` file, or NULL */
	const char *fragments[8];/* extra config fragments */
	int nfragments;
	bool debug;              /* add images/kernel/debug.config (lockdep, DWARF) */
	int jobs;
	const char *cache_dir;
	bool quiet;
};
/* Builds (or finds in the cache) the kernel; *out_dir gets its cache directory. */
int kernel_build(const struct kernel_build_opts *o, char **out_dir);

/* VERSION and PATCHLEVEL from the top Makefile of the source tree src (6 and 12 for 6.12.118). */
int kernel_source_version(const char *src, unsigned *version, unsigned *patchlevel);

/*
 * The config fragments a build of a version.patchlevel source merges, in
 * merge order: takeover.config, the fragments for that version (the table in
 * kernel_build.c), debug.config with o->debug, then o->fragments. Returns
 * how many; *paths gets them as paths (free each, then the array).
 */
int kernel_config_fragments(const struct kernel_build_opts *o, unsigned version, unsigned patchlevel,
			    char ***paths);

/*
 * The configuration step of a build alone, exactly as kernel_build() runs it:
 * defconfig + kvm_guest.config, the fragments of kernel_config_fragments()
 * merged, olddefconfig, and images/kernel/check-config.sh, which must find
 * every request in the result (each one that did not stick is logged). The
 * .config goes to objdir (make O=objdir, so src is left untouched) or, with
 * objdir NULL, into src. The commands' output is appended to log. Uses
 * o->debug, o->fragments and o->quiet.
 */
int kernel_configure(const struct kernel_build_opts *o, const char *src, const char *objdir, const char *log);

#endif
