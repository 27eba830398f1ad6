/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef TAKEOVER_FS_H
#define TAKEOVER_FS_H
#include <stddef.h>
#include <stdint.h>
/* Small file-system helpers; all return 0 or -errno. */
int mkdir_p(const char *path, unsigned mode);
/* Removes a tree without following symlinks or crossing mount points. */
int rm_rf(const char *path);
/* Writes data to path atomically (temporary file + rename). */
int write_file_atomic(const char *path, const void *data, size_t len, unsigned mode);
/* First line of a file, without the newline, into buf. */
int read_line_file(const char *path, char *buf, size_t len);
/* Free bytes in the file system holding path. */
int free_bytes(const char *path, uint64_t *out);
/* Fills buf with n random bytes from getrandom(). */
int random_bytes(void *buf, size_t n);
#endif
