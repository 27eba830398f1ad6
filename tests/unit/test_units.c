// SPDX-License-Identifier: GPL-2.0-only
/*
 * Number, size, duration and rate parsing at their limits, the formatters
 * that invert them, and the "did you mean" matcher. The scenario parser quotes
 * the *why strings verbatim, so they are asserted exactly: a reworded reason
 * must also update the bad-scenario fixtures.
 */
#include <check.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/lev.h"
#include "util/units.h"

#define SENTINEL 0x5a5a5a5a5a5a5a5aULL
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

typedef int (*parse_fn)(const char *s, uint64_t *out, const char **why);

struct ok_case {
	const char *in;
	uint64_t want;
};

struct bad_case {
	const char *in;
	int err; /* -EINVAL or -ERANGE */
	const char *why;
};

static const char *const NOT_A_NUMBER = "not a number";
static const char *const EMPTY = "empty value";
static const char *const TOO_LARGE = "number too large";
static const char *const TRAILING = "trailing characters after the number";
static const char *const SIZE_UNIT = "unknown size unit (use K, M, G or T)";
static const char *const TIME_UNIT = "unknown duration unit (use ms, s or min)";
static const char *const NEEDS_UNIT = "a duration needs a unit (ms, s or min)";

static void check_ok(parse_fn fn, const struct ok_case *c, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		uint64_t out = SENTINEL;
		const char *why = NULL;
		int r = fn(c[i].in, &out, &why);

		ck_assert_msg(r == 0, "'%s': returned %d (%s)", c[i].in, r, why ? why : "-");
		ck_assert_msg(out == c[i].want, "'%s': got %llu, want %llu", c[i].in,
			      (unsigned long long)out, (unsigned long long)c[i].want);
	}
}

/* Also checks that *out is left alone on failure (units.h promises it). */
static void check_bad(parse_fn fn, const struct bad_case *c, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		uint64_t out = SENTINEL;
		const char *why = NULL;
		int r = fn(c[i].in, &out, &why);

		ck_assert_msg(r == c[i].err, "'%s': returned %d, want %d", c[i].in, r, c[i].err);
		ck_assert_msg(why && !strcmp(why, c[i].why), "'%s': why '%s', want '%s'", c[i].in,
			      why ? why : "(null)", c[i].why);
		ck_assert_msg(out == SENTINEL, "'%s': *out changed on failure", c[i].in);
	}
}

/* ---- parse_uint ---- */

START_TEST(uint_limits)
{
	static const struct ok_case ok[] = {
		{ "0", 0 },
		{ "1", 1 },
		{ "007", 7 },
		{ "4294967296", 4294967296ULL },
		{ "18446744073709551614", UINT64_MAX - 1 },
		{ "18446744073709551615", UINT64_MAX },
		/* Leading zeros do not count towards overflow. */
		{ "000000000000000000000000000018446744073709551615", UINT64_MAX },
	};
	static const struct bad_case bad[] = {
		{ "18446744073709551616", -ERANGE, TOO_LARGE },	 /* UINT64_MAX + 1 */
		{ "18446744073709551620", -ERANGE, TOO_LARGE },	 /* last digit overflows */
		{ "99999999999999999999", -ERANGE, TOO_LARGE },
		{ "184467440737095516150", -ERANGE, TOO_LARGE }, /* one digit too many */
		{ "", -EINVAL, EMPTY },
		{ "-1", -EINVAL, NOT_A_NUMBER },
		{ "+1", -EINVAL, NOT_A_NUMBER },
		{ " 1", -EINVAL, NOT_A_NUMBER },
		{ "\t1", -EINVAL, NOT_A_NUMBER },
		{ "x", -EINVAL, NOT_A_NUMBER },
		{ "1 ", -EINVAL, TRAILING },
		{ "0x10", -EINVAL, TRAILING },
		{ "1e3", -EINVAL, TRAILING },
		{ "1.0", -EINVAL, TRAILING },
		{ "1K", -EINVAL, TRAILING },
		{ "1_000", -EINVAL, TRAILING },
	};

	check_ok(parse_uint, ok, ARRAY_SIZE(ok));
	check_bad(parse_uint, bad, ARRAY_SIZE(bad));
}
END_TEST

/* ---- parse_int, parse_double ---- */

START_TEST(int_limits)
{
	static const struct { const char *in; int64_t want; } ok[] = {
		{ "0", 0 }, { "-0", 0 }, { "+7", 7 }, { "-12", -12 },
		{ "9223372036854775807", INT64_MAX }, { "-9223372036854775808", INT64_MIN },
	};
	static const struct { const char *in; int err; const char *why; } bad[] = {
		{ "9223372036854775808", -ERANGE, TOO_LARGE }, { "-9223372036854775809", -ERANGE, TOO_LARGE },
		{ "", -EINVAL, EMPTY }, { "-", -EINVAL, NOT_A_NUMBER }, { "+", -EINVAL, NOT_A_NUMBER },
		{ "--1", -EINVAL, NOT_A_NUMBER }, { "- 1", -EINVAL, NOT_A_NUMBER }, { " 1", -EINVAL, NOT_A_NUMBER },
		{ "1.5", -EINVAL, TRAILING }, { "12ms", -EINVAL, TRAILING },
	};

	for (size_t i = 0; i < ARRAY_SIZE(ok); i++) {
		int64_t out = 42;
		const char *why = NULL;
		ck_assert_msg(parse_int(ok[i].in, &out, &why) == 0 && out == ok[i].want, "'%s'", ok[i].in);
	}
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		int64_t out = 42;
		const char *why = NULL;
		ck_assert_int_eq(parse_int(bad[i].in, &out, &why), bad[i].err);
		ck_assert_msg(why && !strcmp(why, bad[i].why), "'%s': why '%s'", bad[i].in, why ? why : "(null)");
		ck_assert_msg(out == 42, "'%s': *out changed on failure", bad[i].in);
	}
}
END_TEST

START_TEST(double_forms)
{
	static const struct { const char *in; double want; } ok[] = {
		{ "0", 0 }, { "12.5", 12.5 }, { "-0.25", -0.25 }, { "+3", 3 }, { ".5", 0.5 }, { "5.", 5 },
		{ "1.5e3", 1500 }, { "2E-2", 0.02 }, { "1234.567890", 1234.56789 },
	};
	static const struct { const char *in; int err; const char *why; } bad[] = {
		{ "", -EINVAL, EMPTY }, { ".", -EINVAL, NOT_A_NUMBER }, { "-", -EINVAL, NOT_A_NUMBER },
		{ "inf", -EINVAL, NOT_A_NUMBER }, { "nan", -EINVAL, NOT_A_NUMBER }, { " 1", -EINVAL, NOT_A_NUMBER },
		{ "0x1p3", -EINVAL, TRAILING }, { "1e", -EINVAL, TRAILING }, { "1.2.3", -EINVAL, TRAILING },
		{ "1 ", -EINVAL, TRAILING }, { "1e999", -ERANGE, "number out of range" },
	};

	for (size_t i = 0; i < ARRAY_SIZE(ok); i++) {
		double out = 42;
		const char *why = NULL;
		ck_assert_msg(parse_double(ok[i].in, &out, &why) == 0, "'%s': %s", ok[i].in, why);
		ck_assert_double_eq_tol(out, ok[i].want, 1e-12);
	}
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		double out = 42;
		const char *why = NULL;
		ck_assert_int_eq(parse_double(bad[i].in, &out, &why), bad[i].err);
		ck_assert_msg(why && !strcmp(why, bad[i].why), "'%s': why '%s'", bad[i].in, why ? why : "(null)");
		ck_assert_msg(out == 42, "'%s': *out changed on failure", bad[i].in);
	}
}
END_TEST

/* ---- parse_size ---- */

START_TEST(size_every_unit)
{
	static const struct ok_case ok[] = {
		{ "0", 0 },	      { "0K", 0 },	      { "0T", 0 },
		{ "1", 1 },	      { "1B", 1 },	      { "1b", 1 },
		{ "1K", 1ULL << 10 }, { "1KB", 1ULL << 10 }, { "1KiB", 1ULL << 10 },
		{ "1k", 1ULL << 10 }, { "1kib", 1ULL << 10 },
		{ "1M", 1ULL << 20 }, { "1MB", 1ULL << 20 }, { "1MiB", 1ULL << 20 },
		{ "1m", 1ULL << 20 },
		{ "1G", 1ULL << 30 }, { "1GB", 1ULL << 30 }, { "1GiB", 1ULL << 30 },
		{ "1T", 1ULL << 40 }, { "1TB", 1ULL << 40 }, { "1TiB", 1ULL << 40 },
		{ "768M", 768ULL << 20 },
		{ "64K", 65536 },
	};

	check_ok(parse_size, ok, ARRAY_SIZE(ok));
}
END_TEST

START_TEST(size_limits)
{
	static const struct ok_case ok[] = {
		{ "18446744073709551615", UINT64_MAX },
		{ "18446744073709551615B", UINT64_MAX },
		{ "18014398509481983K", UINT64_MAX - 1023 },
		{ "17592186044415M", UINT64_MAX - ((1ULL << 20) - 1) },
		{ "17179869183G", UINT64_MAX - ((1ULL << 30) - 1) },
		{ "16777215T", UINT64_MAX - ((1ULL << 40) - 1) },
	};
	static const struct bad_case bad[] = {
		/* The digits fit, the unit multiplication does not. */
		{ "18014398509481984K", -ERANGE, TOO_LARGE },
		{ "17592186044416M", -ERANGE, TOO_LARGE },
		{ "17179869184G", -ERANGE, TOO_LARGE },
		{ "16777216T", -ERANGE, TOO_LARGE },
		{ "18446744073709551615K", -ERANGE, TOO_LARGE },
		/* The digits alone overflow. */
		{ "18446744073709551616", -ERANGE, TOO_LARGE },
		{ "184467440737095516150K", -ERANGE, TOO_LARGE },
	};

	check_ok(parse_size, ok, ARRAY_SIZE(ok));
	check_bad(parse_size, bad, ARRAY_SIZE(bad));
}
END_TEST

START_TEST(size_malformed)
{
	static const struct bad_case bad[] = {
		{ "", -EINVAL, EMPTY },
		{ "K", -EINVAL, NOT_A_NUMBER },
		{ "-1K", -EINVAL, NOT_A_NUMBER },
		{ "+1K", -EINVAL, NOT_A_NUMBER },
		{ " 1K", -EINVAL, NOT_A_NUMBER },
		{ "1P", -EINVAL, SIZE_UNIT },
		{ "1X", -EINVAL, SIZE_UNIT },
		{ "1 K", -EINVAL, SIZE_UNIT },
		{ "1K ", -EINVAL, SIZE_UNIT },
		{ "1KK", -EINVAL, SIZE_UNIT },
		{ "1Kb/s", -EINVAL, SIZE_UNIT },
		{ "1.5M", -EINVAL, SIZE_UNIT },
		{ "0x10", -EINVAL, SIZE_UNIT },
		{ "1e6", -EINVAL, SIZE_UNIT },
		{ "1%", -EINVAL, SIZE_UNIT },
	};

	check_bad(parse_size, bad, ARRAY_SIZE(bad));
}
END_TEST

/* ---- parse_duration_ms ---- */

START_TEST(duration_units_and_limits)
{
	static const struct ok_case ok[] = {
		{ "0ms", 0 },
		{ "0s", 0 },
		{ "0min", 0 },
		{ "1ms", 1 },
		{ "1s", 1000 },
		{ "1min", 60000 },
		{ "1500ms", 1500 },
		{ "90s", 90000 },
		{ "18446744073709551615ms", UINT64_MAX },
		{ "18446744073709551s", 18446744073709551000ULL },
		{ "307445734561825min", 307445734561825ULL * 60000 },
	};
	static const struct bad_case bad[] = {
		{ "18446744073709551616ms", -ERANGE, TOO_LARGE },
		{ "18446744073709552s", -ERANGE, TOO_LARGE },
		{ "307445734561826min", -ERANGE, TOO_LARGE },
		{ "99999999999999999999", -ERANGE, TOO_LARGE },
		{ "", -EINVAL, EMPTY },
		{ "s", -EINVAL, NOT_A_NUMBER },
		{ "-1s", -EINVAL, NOT_A_NUMBER },
		{ " 1s", -EINVAL, NOT_A_NUMBER },
		{ "0", -EINVAL, NEEDS_UNIT },
		{ "30", -EINVAL, NEEDS_UNIT },
		{ "30h", -EINVAL, TIME_UNIT },
		{ "30S", -EINVAL, TIME_UNIT }, /* units are case-sensitive: 1M is not 1m */
		{ "30sec", -EINVAL, TIME_UNIT },
		{ "30 s", -EINVAL, TIME_UNIT },
		{ "1.5s", -EINVAL, TIME_UNIT },
		{ "1m", -EINVAL, TIME_UNIT },
		{ "1mins", -EINVAL, TIME_UNIT },
	};

	check_ok(parse_duration_ms, ok, ARRAY_SIZE(ok));
	check_bad(parse_duration_ms, bad, ARRAY_SIZE(bad));
}
END_TEST

/* ---- parse_rate ---- */

START_TEST(rate_limits)
{
	static const struct ok_case ok[] = {
		{ "0", 0 },
		{ "0/s", 0 },
		{ "64K", 65536 },
		{ "64K/s", 65536 },
		{ "1M/s", 1ULL << 20 },
		{ "18446744073709551615/s", UINT64_MAX },
		{ "16777215T/s", UINT64_MAX - ((1ULL << 40) - 1) },
		/* Padding is not magnitude: leading zeros must not trip a length limit. */
		{ "000000000000000000000000000000000000000000000000000000000000000000064K/s", 65536 },
	};
	static const struct bad_case bad[] = {
		{ "16777216T/s", -ERANGE, TOO_LARGE },
		{ "18446744073709551616/s", -ERANGE, TOO_LARGE },
		{ "", -EINVAL, EMPTY },
		{ "/s", -EINVAL, EMPTY },
		{ "-1/s", -EINVAL, NOT_A_NUMBER },
		{ "64K/m", -EINVAL, SIZE_UNIT },
		{ "64K/s/s", -EINVAL, SIZE_UNIT },
		{ "64K /s", -EINVAL, SIZE_UNIT },
		{ "64Kps", -EINVAL, SIZE_UNIT },
	};

	check_ok(parse_rate, ok, ARRAY_SIZE(ok));
	check_bad(parse_rate, bad, ARRAY_SIZE(bad));
}
END_TEST

/* ---- parse_size_or_percent ---- */

struct target {
	uint64_t bytes;
	unsigned pct;
	bool is_pct;
};

static int target_parse(const char *s, struct target *t, const char **why)
{
	return parse_size_or_percent(s, &t->bytes, &t->pct, &t->is_pct, why);
}

START_TEST(percent_ok)
{
	static const struct { const char *in; unsigned pct; } pct[] = {
		{ "0%", 0 }, { "1%", 1 }, { "50%", 50 }, { "100%", 100 }, { "0100%", 100 },
		{ "000000000000000000000000000000000000000050%", 50 },
	};
	static const struct ok_case size[] = {
		{ "0", 0 }, { "48M", 48ULL << 20 }, { "18446744073709551615", UINT64_MAX },
	};

	for (size_t i = 0; i < ARRAY_SIZE(pct); i++) {
		struct target t = { SENTINEL, 7, false };
		const char *why = NULL;

		ck_assert_msg(target_parse(pct[i].in, &t, &why) == 0, "'%s': %s", pct[i].in, why);
		ck_assert(t.is_pct);
		ck_assert_uint_eq(t.pct, pct[i].pct);
		ck_assert(t.bytes == SENTINEL); /* the other member is not touched */
	}
	for (size_t i = 0; i < ARRAY_SIZE(size); i++) {
		struct target t = { SENTINEL, 7, true };
		const char *why = NULL;

		ck_assert_msg(target_parse(size[i].in, &t, &why) == 0, "'%s': %s", size[i].in, why);
		ck_assert(!t.is_pct);
		ck_assert(t.bytes == size[i].want);
		ck_assert_uint_eq(t.pct, 7);
	}
}
END_TEST

START_TEST(percent_bad)
{
	static const struct bad_case bad[] = {
		{ "101%", -ERANGE, "a percentage must be between 0% and 100%" },
		{ "18446744073709551615%", -ERANGE, "a percentage must be between 0% and 100%" },
		{ "18446744073709551616%", -ERANGE, TOO_LARGE },
		{ "%", -EINVAL, EMPTY },
		{ "-1%", -EINVAL, NOT_A_NUMBER },
		{ " 5%", -EINVAL, NOT_A_NUMBER },
		{ "5 %", -EINVAL, "malformed percentage" },
		{ "5.5%", -EINVAL, "malformed percentage" },
		{ "5%%", -EINVAL, "malformed percentage" },
		{ "5K%", -EINVAL, "malformed percentage" },
		{ "5%K", -EINVAL, SIZE_UNIT },
		{ "", -EINVAL, EMPTY },
		{ "16777216T", -ERANGE, TOO_LARGE },
	};

	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		struct target t = { SENTINEL, 7, true };
		const char *why = NULL;
		int r = target_parse(bad[i].in, &t, &why);

		ck_assert_msg(r == bad[i].err, "'%s': returned %d, want %d", bad[i].in, r, bad[i].err);
		ck_assert_msg(why && !strcmp(why, bad[i].why), "'%s': why '%s', want '%s'", bad[i].in,
			      why ? why : "(null)", bad[i].why);
		ck_assert_msg(t.bytes == SENTINEL && t.pct == 7 && t.is_pct,
			      "'%s': output changed on failure", bad[i].in);
	}
}
END_TEST

/* ---- formatting, and format -> parse round trips ---- */

START_TEST(format_size_forms)
{
	static const struct { uint64_t v; const char *want; } c[] = {
		{ 0, "0" },
		{ 1, "1" },
		{ 1023, "1023" },
		{ 1024, "1K" },
		{ 1536, "1536" },
		{ 65536, "64K" },
		{ 48ULL << 20, "48M" },
		{ 768ULL << 20, "768M" },
		{ 1ULL << 30, "1G" },
		{ (1ULL << 30) + (1ULL << 20), "1025M" },
		{ 1ULL << 40, "1T" },
		{ 1ULL << 50, "1024T" }, /* T is the largest unit */
		{ 1ULL << 63, "8388608T" },
		{ UINT64_MAX, "18446744073709551615" },
		{ UINT64_MAX - 1023, "18014398509481983K" },
	};
	char buf[64];

	for (size_t i = 0; i < ARRAY_SIZE(c); i++) {
		format_size(c[i].v, buf, sizeof(buf));
		ck_assert_str_eq(buf, c[i].want);
	}
}
END_TEST

START_TEST(format_duration_forms)
{
	static const struct { uint64_t v; const char *want; } c[] = {
		{ 0, "0s" },
		{ 1, "1ms" },
		{ 999, "999ms" },
		{ 1000, "1s" },
		{ 1500, "1500ms" },
		{ 59000, "59s" },
		{ 60000, "1min" },
		{ 90000, "90s" },
		{ 3600000, "60min" },
		{ UINT64_MAX, "18446744073709551615ms" },
		{ 18446744073709551000ULL, "18446744073709551s" },
	};
	char buf[64];

	for (size_t i = 0; i < ARRAY_SIZE(c); i++) {
		format_duration_ms(c[i].v, buf, sizeof(buf));
		ck_assert_str_eq(buf, c[i].want);
	}
}
END_TEST

START_TEST(format_truncates_safely)
{
	char buf[5];

	memset(buf, 'x', sizeof(buf));
	format_size(UINT64_MAX, buf, sizeof(buf));
	ck_assert_str_eq(buf, "1844");
	format_duration_ms(UINT64_MAX, buf, sizeof(buf));
	ck_assert_str_eq(buf, "1844");
	format_size(1, buf, 1);
	ck_assert_str_eq(buf, "");
}
END_TEST

/* Values where the canonical form changes unit or is at a limit. */
static const uint64_t interesting[] = {
	0,
	1,
	999,
	1000,
	1023,
	1024,
	1025,
	59999,
	60000,
	60001,
	65536,
	(1ULL << 20) - 1,
	1ULL << 20,
	1ULL << 30,
	1ULL << 40,
	(1ULL << 40) * 1023,
	1ULL << 62,
	1ULL << 63,
	UINT64_MAX - (1ULL << 40) + 1,
	UINT64_MAX - 1,
	UINT64_MAX,
	307445734561825ULL * 60000,
};

START_TEST(roundtrip_size_and_rate)
{
	uint64_t v = interesting[_i], out;
	const char *why;
	char buf[64], rate[80];

	format_size(v, buf, sizeof(buf));
	ck_assert_msg(parse_size(buf, &out, &why) == 0, "'%s': %s", buf, why);
	ck_assert_msg(out == v, "'%s' parsed to %llu, want %llu", buf, (unsigned long long)out,
		      (unsigned long long)v);
	ck_assert_msg(parse_rate(buf, &out, &why) == 0 && out == v, "rate '%s'", buf);
	snprintf(rate, sizeof(rate), "%s/s", buf);
	ck_assert_msg(parse_rate(rate, &out, &why) == 0 && out == v, "rate '%s'", rate);
}
END_TEST

START_TEST(roundtrip_duration)
{
	uint64_t v = interesting[_i], out;
	const char *why;
	char buf[64];

	format_duration_ms(v, buf, sizeof(buf));
	ck_assert_msg(parse_duration_ms(buf, &out, &why) == 0, "'%s': %s", buf, why);
	ck_assert_msg(out == v, "'%s' parsed to %llu, want %llu", buf, (unsigned long long)out,
		      (unsigned long long)v);
}
END_TEST

/* ---- edit distance and "did you mean" ---- */

START_TEST(edit_distance_basics)
{
	char a[66], b[66];

	ck_assert_uint_eq(edit_distance("", ""), 0);
	ck_assert_uint_eq(edit_distance("abc", ""), 3);
	ck_assert_uint_eq(edit_distance("", "abc"), 3);
	ck_assert_uint_eq(edit_distance("kitten", "sitting"), 3);
	ck_assert_uint_eq(edit_distance("nodes", "nodse"), 1); /* a swap is one edit */
	ck_assert_uint_eq(edit_distance("ab", "ba"), 1);
	ck_assert_uint_eq(edit_distance("abc", "ca"), 3);
	ck_assert_uint_eq(edit_distance("memroy", "memory"), 1);
	ck_assert_uint_eq(edit_distance("Cluster", "cluster"), 0); /* case-insensitive */
	ck_assert_uint_eq(edit_distance("flaw", "lawn"), 2);
	/* At the length limit it still computes; beyond it, "infinitely far". */
	memset(a, 'a', 64);
	a[64] = '\0';
	memset(b, 'a', 64);
	b[63] = 'b';
	b[64] = '\0';
	ck_assert_uint_eq(edit_distance(a, b), 1);
	a[64] = 'a';
	a[65] = '\0';
	ck_assert_uint_eq(edit_distance(a, b), (size_t)-1);
	ck_assert_uint_eq(edit_distance(b, a), (size_t)-1);
}
END_TEST

START_TEST(closest_match_suggests)
{
	static const char *const sections[] = { "cluster", "kernel", "nfs", "workload", "pressure",
						"fault", "verdict", NULL };
	static const char *const keys[] = { "nodes", "memory", "vcpus", "accel", "subnet",
					    "fencing", NULL };
	static const char *const accel[] = { "auto", "kvm", "tcg", NULL };
	static const char *const commands[] = { "check", "help", NULL };

	ck_assert_str_eq(closest_match("clustr", sections), "cluster");
	ck_assert_str_eq(closest_match("CLUSTER", sections), "cluster");
	ck_assert_str_eq(closest_match("kernal", sections), "kernel");
	ck_assert_str_eq(closest_match("verdcit", sections), "verdict");
	ck_assert_str_eq(closest_match("node", keys), "nodes");
	ck_assert_str_eq(closest_match("memroy", keys), "memory");
	ck_assert_str_eq(closest_match("vcpu", keys), "vcpus");
	ck_assert_str_eq(closest_match("kvn", accel), "kvm");
	ck_assert_str_eq(closest_match("chekc", commands), "check");
	ck_assert_str_eq(closest_match("hlep", commands), "help");
	ck_assert_str_eq(closest_match("chek", commands), "check");
	ck_assert_str_eq(closest_match("nodse", keys), "nodes");
	ck_assert_str_eq(closest_match("fecning", keys), "fencing");
}
END_TEST

START_TEST(closest_match_declines)
{
	static const char *const sections[] = { "cluster", "kernel", "nfs", "workload", "pressure",
						"fault", "verdict", NULL };
	static const char *const nfsver[] = { "3", "4.0", "4.1", "4.2", NULL };
	static const char *const accel[] = { "auto", "kvm", "tcg", NULL };
	static const char *const none[] = { NULL };
	char longword[100];

	ck_assert_ptr_null(closest_match("storage", sections));
	ck_assert_ptr_null(closest_match("xyz", sections));
	ck_assert_ptr_null(closest_match("anything", none));
	/* A one-character edit of a one-character word is a different word, not a typo. */
	ck_assert_ptr_null(closest_match("4", nfsver));
	ck_assert_ptr_null(closest_match("", nfsver));
	ck_assert_ptr_null(closest_match("", accel));
	ck_assert_ptr_null(closest_match("x", accel));
	memset(longword, 'c', sizeof(longword) - 1);
	longword[sizeof(longword) - 1] = '\0';
	ck_assert_ptr_null(closest_match(longword, sections));
}
END_TEST

static Suite *units_suite(void)
{
	Suite *s = suite_create("units");
	TCase *parse = tcase_create("parse");
	TCase *format = tcase_create("format");
	TCase *lev = tcase_create("lev");

	tcase_add_test(parse, uint_limits);
	tcase_add_test(parse, int_limits);
	tcase_add_test(parse, double_forms);
	tcase_add_test(parse, size_every_unit);
	tcase_add_test(parse, size_limits);
	tcase_add_test(parse, size_malformed);
	tcase_add_test(parse, duration_units_and_limits);
	tcase_add_test(parse, rate_limits);
	tcase_add_test(parse, percent_ok);
	tcase_add_test(parse, percent_bad);
	tcase_add_test(format, format_size_forms);
	tcase_add_test(format, format_duration_forms);
	tcase_add_test(format, format_truncates_safely);
	tcase_add_loop_test(format, roundtrip_size_and_rate, 0, ARRAY_SIZE(interesting));
	tcase_add_loop_test(format, roundtrip_duration, 0, ARRAY_SIZE(interesting));
	tcase_add_test(lev, edit_distance_basics);
	tcase_add_test(lev, closest_match_suggests);
	tcase_add_test(lev, closest_match_declines);
	/* Check's default is 4 s; a sanitized build on a loaded CI runner can need more. */
	tcase_set_timeout(parse, 30);
	tcase_set_timeout(format, 30);
	tcase_set_timeout(lev, 30);
	suite_add_tcase(s, parse);
	suite_add_tcase(s, format);
	suite_add_tcase(s, lev);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(units_suite());
	int failed;

	srunner_set_fork_status(sr, CK_FORK);
	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
