/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef TAKEOVER_UNITS_H
#define TAKEOVER_UNITS_H
/*
 * Number parsing with the checks atoi() skips: the whole string must be
 * consumed, overflow is an error, and each failure has a human reason that the
 * scenario parser quotes verbatim. All functions return 0 or -EINVAL/-ERANGE
 * and set *why on failure; *out is untouched on failure.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Plain non-negative decimal integer, no unit. */
int parse_uint(const char *s, uint64_t *out, const char **why);
/* The month a log line's "Jan".."Dec" names, 0..11; -1 when s does not start with one. */
int parse_month_abbrev(const char *s);
/* Decimal integer with an optional sign: "-12", "+3", "40". */
int parse_int(const char *s, int64_t *out, const char **why);
/* Decimal number: "12", "-0.25", "1.5e3" (no hex, inf or nan; no spaces). */
int parse_double(const char *s, double *out, const char **why);
/* Size in bytes: "512", "64K", "768M", "2G", "1T" (powers of 1024; "KiB" etc. accepted). */
int parse_size(const char *s, uint64_t *out, const char **why);
/* Duration in milliseconds: "500ms", "30s", "2min" (a unit is required). */
int parse_duration_ms(const char *s, uint64_t *out, const char **why);
/* Either a size ("48M") or a percentage ("10%", stored in *pct with *is_pct set). */
int parse_size_or_percent(const char *s, uint64_t *bytes, unsigned *pct, bool *is_pct,
			  const char **why);
/* A percentage with its sign: "90%" -> 90 (0..100). */
int parse_pct(const char *s, unsigned *pct, const char **why);
/* Rate in bytes per second: a size with an optional "/s" suffix. */
int parse_rate(const char *s, uint64_t *out, const char **why);

/* Canonical short forms, the inverse of the parsers: "768M", "30s", "2min". */
void format_size(uint64_t bytes, char *buf, size_t len);
void format_duration_ms(uint64_t ms, char *buf, size_t len);

#endif
