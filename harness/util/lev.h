/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef TAKEOVER_LEV_H
#define TAKEOVER_LEV_H
#include <stddef.h>
/*
 * "Did you mean" support: returns the candidate closest to word (edit
 * distance, case-insensitive) when it is close enough to be a likely typo,
 * else NULL. candidates is NULL-terminated.
 */
const char *closest_match(const char *word, const char *const *candidates);
size_t edit_distance(const char *a, const char *b);
#endif
