// SPDX-License-Identifier: GPL-2.0-only
#include "units.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/*
 * Leading digits of s[0..len) only: strtoull would accept "-1", " 1" and
 * "0x10". Bounded by len, not by the NUL, so a suffix ("%", "/s") stays in
 * place: a fixed-size copy would call a zero-padded "0...064K/s" too large.
 */
static int parse_digits(const char *s, size_t len, uint64_t *out, size_t *used,
			const char **why)
{
	uint64_t v = 0;
	size_t i;

	if (!len || !isdigit((unsigned char)s[0])) {
		*why = len ? "not a number" : "empty value";
		return -EINVAL;
	}
	for (i = 0; i < len && isdigit((unsigned char)s[i]); i++) {
		unsigned d = (unsigned)(s[i] - '0');
		if (v > (UINT64_MAX - d) / 10) {
			*why = "number too large";
			return -ERANGE;
		}
		v = v * 10 + d;
	}
	*out = v;
	*used = i;
	return 0;
}

int parse_uint(const char *s, uint64_t *out, const char **why)
{
	size_t len = strlen(s), used;
	uint64_t v;
	int r = parse_digits(s, len, &v, &used, why);

	if (r < 0)
		return r;
	if (used != len) {
		*why = "trailing characters after the number";
		return -EINVAL;
	}
	*out = v;
	return 0;
}

int parse_int(const char *s, int64_t *out, const char **why)
{
	bool neg = s[0] == '-', sign = neg || s[0] == '+';
	uint64_t v;
	int r = parse_uint(s + sign, &v, why);

	if (r < 0) {
		if (sign && !s[1])
			*why = "not a number";
		return r;
	}
	if (v > (uint64_t)INT64_MAX + neg) {
		*why = "number too large";
		return -ERANGE;
	}
	*out = neg ? (int64_t)(0 - v) : (int64_t)v;
	return 0;
}

int parse_double(const char *s, double *out, const char **why)
{
	size_t i = s[0] == '-' || s[0] == '+', digits = 0;
	char *end;

	/* strtod alone would take " 1", "0x1p3", "inf" and "nan". */
	for (; isdigit((unsigned char)s[i]); i++)
		digits++;
	if (s[i] == '.')
		for (i++; isdigit((unsigned char)s[i]); i++)
			digits++;
	if (digits && (s[i] == 'e' || s[i] == 'E')) {
		size_t j = i + 1 + (s[i + 1] == '-' || s[i + 1] == '+');
		if (isdigit((unsigned char)s[j]))
			for (i = j; isdigit((unsigned char)s[i]); i++)
				;
	}
	if (!digits || s[i]) {
		*why = !s[0] ? "empty value" : digits ? "trailing characters after the number" : "not a number";
		return -EINVAL;
	}
	errno = 0;
	double v = (strtod)(s, &end); /* (strtod): the checked use that banned.h leaves through */
	if (errno == ERANGE) {
		*why = "number out of range";
		return -ERANGE;
	}
	*out = v;
	return 0;
}

static int mul_check(uint64_t v, uint64_t m, uint64_t *out, const char **why)
{
	if (m && v > UINT64_MAX / m) {
		*why = "number too large";
		return -ERANGE;
	}
	*out = v * m;
	return 0;
}

static const struct unit { const char *name; uint64_t mult; } size_units[] = {
	{ "", 1 }, { "B", 1 },
	{ "K", 1ULL << 10 }, { "KB", 1ULL << 10 }, { "KiB", 1ULL << 10 },
	{ "M", 1ULL << 20 }, { "MB", 1ULL << 20 }, { "MiB", 1ULL << 20 },
	{ "G", 1ULL << 30 }, { "GB", 1ULL << 30 }, { "GiB", 1ULL << 30 },
	{ "T", 1ULL << 40 }, { "TB", 1ULL << 40 }, { "TiB", 1ULL << 40 },
};

static const struct unit time_units[] = {
	{ "ms", 1 }, { "s", 1000 }, { "min", 60000 },
};

/* Digits followed by exactly one of the units, all within s[0..len). */
static int apply_unit(const char *s, size_t len, const struct unit *u, size_t n, bool fold,
		      uint64_t *out, const char **why, const char *badunit)
{
	size_t used, ulen;
	uint64_t v;
	int r = parse_digits(s, len, &v, &used, why);

	if (r < 0)
		return r;
	ulen = len - used;
	for (size_t i = 0; i < n; i++) {
		if (strlen(u[i].name) != ulen)
			continue;
		if (fold ? !strncasecmp(s + used, u[i].name, ulen) : !strncmp(s + used, u[i].name, ulen))
			return mul_check(v, u[i].mult, out, why);
	}
	*why = badunit;
	return -EINVAL;
}

static int parse_size_len(const char *s, size_t len, uint64_t *out, const char **why)
{
	return apply_unit(s, len, size_units, sizeof(size_units) / sizeof(size_units[0]), true, out,
			  why, "unknown size unit (use K, M, G or T)");
}

int parse_size(const char *s, uint64_t *out, const char **why)
{
	return parse_size_len(s, strlen(s), out, why);
}

int parse_duration_ms(const char *s, uint64_t *out, const char **why)
{
	size_t len = strlen(s), used;
	uint64_t v;

	if (parse_digits(s, len, &v, &used, why) == 0 && used == len) {
		*why = "a duration needs a unit (ms, s or min)";
		return -EINVAL;
	}
	return apply_unit(s, len, time_units, sizeof(time_units) / sizeof(time_units[0]), false, out,
			  why, "unknown duration unit (use ms, s or min)");
}

static int parse_percent(const char *s, size_t len, unsigned *pct, const char **why)
{
	size_t used;
	uint64_t v;
	int r = parse_digits(s, len, &v, &used, why);

	if (r < 0)
		return r;
	if (used != len) {
		*why = "malformed percentage";
		return -EINVAL;
	}
	if (v > 100) {
		*why = "a percentage must be between 0% and 100%";
		return -ERANGE;
	}
	*pct = (unsigned)v;
	return 0;
}

int parse_pct(const char *s, unsigned *pct, const char **why)
{
	size_t len = strlen(s);

	if (!len || s[len - 1] != '%') {
		*why = "a percentage needs its '%' sign (90%)";
		return -EINVAL;
	}
	return parse_percent(s, len - 1, pct, why);
}

int parse_size_or_percent(const char *s, uint64_t *bytes, unsigned *pct, bool *is_pct,
			  const char **why)
{
	size_t len = strlen(s);
	uint64_t b;
	int r;

	if (len && s[len - 1] == '%') {
		r = parse_percent(s, len - 1, pct, why);
		if (r == 0)
			*is_pct = true;
		return r;
	}
	r = parse_size(s, &b, why);
	if (r < 0)
		return r;
	*bytes = b;
	*is_pct = false;
	return 0;
}

int parse_rate(const char *s, uint64_t *out, const char **why)
{
	size_t len = strlen(s);

	if (len >= 2 && !strcmp(s + len - 2, "/s"))
		len -= 2;
	return parse_size_len(s, len, out, why);
}

void format_size(uint64_t bytes, char *buf, size_t len)
{
	static const char suffix[] = "KMGT";
	int i = -1;

	while (i < 3 && bytes && bytes % 1024 == 0) {
		bytes /= 1024;
		i++;
	}
	if (i < 0)
		snprintf(buf, len, "%llu", (unsigned long long)bytes);
	else
		snprintf(buf, len, "%llu%c", (unsigned long long)bytes, suffix[i]);
}

void format_duration_ms(uint64_t ms, char *buf, size_t len)
{
	if (ms && ms % 60000 == 0)
		snprintf(buf, len, "%llumin", (unsigned long long)(ms / 60000));
	else if (ms % 1000 == 0)
		snprintf(buf, len, "%llus", (unsigned long long)(ms / 1000));
	else
		snprintf(buf, len, "%llums", (unsigned long long)ms);
}

int parse_month_abbrev(const char *s)
{
	static const char *const months[] = { "Jan", "Feb", "Mar", "Apr", "May", "Jun",
					      "Jul", "Aug", "Sep", "Oct", "Nov", "Dec" };

	for (int i = 0; i < 12; i++)
		if (!strncmp(s, months[i], 3))
			return i;
	return -1;
}
