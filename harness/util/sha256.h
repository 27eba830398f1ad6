/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef TAKEOVER_SHA256_H
#define TAKEOVER_SHA256_H
/* SHA-256 (FIPS 180-4), for content-addressed caches of images and kernels. */
#include <stddef.h>
#include <stdint.h>

struct sha256 {
	uint32_t h[8];
	uint64_t len;
	uint8_t buf[64];
	size_t fill;
};

void sha256_init(struct sha256 *s);
void sha256_update(struct sha256 *s, const void *data, size_t len);
void sha256_final(struct sha256 *s, uint8_t out[32]);
/* Hex digest of the state so far (the state is consumed). */
void sha256_hex(struct sha256 *s, char out[65]);
/* The first 16 hex digits of the digest: the cache keys of images and kernels. */
void sha256_key16(struct sha256 *s, char key[17]);
/* Hashes a file's contents into s; returns 0 or -errno. */
int sha256_file(struct sha256 *s, const char *path);
/* sha256_key16() of a file's contents alone. 0 or -errno. */
int sha256_file_key16(const char *path, char key[17]);

/* Hashes one file: label, mode and contents (a symlink: its target). 0 or -errno. */
int sha256_entry(struct sha256 *s, const char *path, const char *label);
/*
 * Hashes every file under root in sorted order, each as label/relative-path;
 * files whose relative path is in skip (NULL-terminated, may be NULL) are left
 * out. A missing root hashes as empty. 0 or -errno.
 */
int sha256_tree(struct sha256 *s, const char *root, const char *label, const char *const *skip);

#endif
