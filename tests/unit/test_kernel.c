// SPDX-License-Identifier: GPL-2.0-only
/*
 * The kernel build's choice of config fragments: VERSION and PATCHLEVEL read
 * from a source's Makefile (and refused when they are not numbers), and the
 * version fragments each version gets (tests/kernel/config.sh renders and
 * checks them on the real Debian sources).
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "image/kernel.h"
#include "util/fs.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

static char root[] = "/tmp/takeover-test-kernel.XXXXXX";

static void setup(void)
{
	ck_assert_ptr_nonnull(mkdtemp(root));
}

static void teardown(void)
{
	rm_rf(root);
}

static void write_makefile(const char *text)
{
	_cleanup_free_ char *p = xasprintf("%s/Makefile", root);

	ck_assert_int_eq(write_file_atomic(p, text, strlen(text), 0644), 0);
}

START_TEST(version_of_debian_6_12)
{
	unsigned v = 0, p = 0;

	write_makefile("# SPDX-License-Identifier: GPL-2.0\nVERSION = 6\nPATCHLEVEL = 12\nSUBLEVEL = 118\n"
		       "EXTRAVERSION =\nNAME = Baby Opossum Posse\n\nPATCHLEVEL = 99\n");
	ck_assert_int_eq(kernel_source_version(root, &v, &p), 0);
	ck_assert_uint_eq(v, 6);
	ck_assert_uint_eq(p, 12);
}
END_TEST

START_TEST(version_spacing_and_rc)
{
	unsigned v = 0, p = 0;

	write_makefile("VERSION=7\nPATCHLEVEL\t=\t0 # comment\nSUBLEVEL = 0\nEXTRAVERSION = -rc1\n");
	ck_assert_int_eq(kernel_source_version(root, &v, &p), 0);
	ck_assert_uint_eq(v, 7);
	ck_assert_uint_eq(p, 0);
}
END_TEST

START_TEST(version_refused)
{
	static const char *const bad[] = {
		"VERSION = 6\n",                        /* no PATCHLEVEL */
		"VERSION = six\nPATCHLEVEL = 1\n",      /* not a number */
		"VERSION = 6\nPATCHLEVEL = -1\n",
		"VERSION = 6\nPATCHLEVEL = 1000\n",     /* beyond the table's encoding */
		"VERSIONS = 6\nPATCHLEVEL = 1\n",       /* another variable */
		"",
	};
	unsigned v = 42, p = 42;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		write_makefile(bad[i]);
		ck_assert_int_lt(kernel_source_version(root, &v, &p), 0);
		ck_assert_uint_eq(v, 42);
	}
	rm_rf(root);
	ck_assert_int_lt(kernel_source_version(root, &v, &p), 0);
	ck_assert_int_eq(mkdir_p(root, 0700), 0);
}
END_TEST

/* The fragments' names, space-separated, for o at version.patchlevel. */
static char *fragments(const struct kernel_build_opts *o, unsigned version, unsigned patchlevel)
{
	struct strbuf sb = STRBUF_INIT;
	char **paths;
	int n = kernel_config_fragments(o, version, patchlevel, &paths);

	for (int i = 0; i < n; i++) {
		const char *base = strrchr(paths[i], '/');
		strbuf_addf(&sb, "%s%s", i ? " " : "", i < n - o->nfragments && base ? base + 1 : paths[i]);
		free(paths[i]);
	}
	free(paths);
	return strbuf_detach(&sb, NULL);
}

START_TEST(fragments_by_version)
{
	static const struct {
		unsigned v, p;
		const char *want;
	} cases[] = {
		{ 5, 15, "takeover.config takeover-before-6.9.config" },
		{ 6, 1, "takeover.config takeover-before-6.9.config" },
		{ 6, 8, "takeover.config takeover-before-6.9.config" },
		{ 6, 9, "takeover.config takeover-since-6.9.config" },
		{ 6, 11, "takeover.config takeover-since-6.9.config" },
		{ 6, 12, "takeover.config takeover-since-6.9.config takeover-since-6.12.config" },
		{ 7, 0, "takeover.config takeover-since-6.9.config takeover-since-6.12.config" },
	};
	struct kernel_build_opts o = { .source = "debian-6.1" };

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		_cleanup_free_ char *got = fragments(&o, cases[i].v, cases[i].p);
		ck_assert_msg(!strcmp(got, cases[i].want), "%u.%u: got '%s', want '%s'", cases[i].v, cases[i].p,
			      got, cases[i].want);
	}
}
END_TEST

START_TEST(fragments_debug_and_extra_last)
{
	struct kernel_build_opts o = { .source = "debian-6.12", .debug = true,
				       .fragments = { "/x/mine.config", "/y/more.config" }, .nfragments = 2 };
	_cleanup_free_ char *got = fragments(&o, 6, 12);

	ck_assert_str_eq(got, "takeover.config takeover-since-6.9.config takeover-since-6.12.config debug.config "
			      "/x/mine.config /y/more.config");
}
END_TEST

/* Every fragment the table can choose is shipped. */
START_TEST(fragments_exist)
{
	static const unsigned versions[][2] = { { 6, 1 }, { 6, 12 } };
	struct kernel_build_opts o = { .source = "debian-6.1", .debug = true };

	for (size_t i = 0; i < sizeof(versions) / sizeof(versions[0]); i++) {
		char **paths;
		int n = kernel_config_fragments(&o, versions[i][0], versions[i][1], &paths);
		for (int k = 0; k < n; k++) {
			ck_assert_msg(access(paths[k], R_OK) == 0, "%s: not readable", paths[k]);
			free(paths[k]);
		}
		free(paths);
	}
}
END_TEST

static Suite *kernel_suite(void)
{
	Suite *s = suite_create("kernel");
	TCase *version = tcase_create("version");
	TCase *frags = tcase_create("fragments");

	tcase_add_checked_fixture(version, setup, teardown);
	tcase_add_test(version, version_of_debian_6_12);
	tcase_add_test(version, version_spacing_and_rc);
	tcase_add_test(version, version_refused);
	tcase_add_test(frags, fragments_by_version);
	tcase_add_test(frags, fragments_debug_and_extra_last);
	tcase_add_test(frags, fragments_exist);
	tcase_set_timeout(version, 30);
	tcase_set_timeout(frags, 30);
	suite_add_tcase(s, version);
	suite_add_tcase(s, frags);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(kernel_suite());
	int failed;

	srunner_set_fork_status(sr, CK_FORK);
	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
