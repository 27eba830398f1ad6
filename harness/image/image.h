/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef TAKEOVER_IMAGE_H
#define TAKEOVER_IMAGE_H
/*
 * The guest node image: a read-only base disk, the distro kernel and initrd,
 * built by images/build-image.sh and cached under CACHE/images/<key>, where
 * key is a hash of everything that goes in (recipe files, guest programs,
 * recipe version). A directory with a manifest is complete by construction:
 * builds happen in a temporary directory renamed into place at the end.
 */
#include <stdbool.h>

struct image {
	char *key;            /* 16 hex digits */
	char *dir;
	char *base;           /* base.raw */
	char *kernel;         /* vmlinuz */
	char *initrd;         /* initrd.img */
	char *kernel_release;
};

struct image_opts {
	const char *cache_dir; /* NULL: $TAKEOVER_CACHE_DIR or /var/cache/takeover */
	bool force;            /* rebuild even on a cache hit */
	bool quiet;
};

const char *image_cache_dir(const char *override);
/* The key of the current recipe; 0 or -errno (a recipe file unreadable). */
int image_compute_key(char key[17]);
/* Image for the current recipe, built when missing. 0, or -errno after logging why. */
int image_ensure(const struct image_opts *o, struct image *img);
/* Fills img for an existing key's directory; -ENOENT when not built. */
int image_lookup(const char *cache_dir, const char *key, struct image *img);
void image_release(struct image *img);

#endif
