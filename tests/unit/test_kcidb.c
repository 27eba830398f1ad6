// SPDX-License-Identifier: GPL-2.0-only
/*
 * report.kcidb.json against what the KCIDB I/O schema v5.0 (kcidb-io's
 * kcidb_io/schema/v05_00.py) requires: for each object type the properties
 * it may have (additionalProperties is false throughout), their JSON types,
 * the patterns of IDs, origins, test paths, hashes and resource names, the
 * status enum, the date-time format, the 16384-byte log excerpts, the
 * required properties, and no null anywhere. The tables below restate those
 * rules; the checker is shown to reject a document breaking each kind of
 * rule, so it cannot pass everything.
 *
 * The runs are recorded ones (tests/fixtures/timelines/), written by the
 * real writer, with the kernel named as a real run names it: through
 * kernel_identity() on a bzImage beside a recorded `takeover kernel build`
 * manifest, and on a real git tree.
 */
#include <check.h>
#include <errno.h>
#include <jansson.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "image/kernel.h"
#include "report/report.h"
#include "run/timeline.h"
#include "scenario/scenario.h"
#include "util/fs.h"
#include "util/sha256.h"
#include "util/spawn.h"
#include "util/strbuf.h"
#include "util/xalloc.h"
#include "verdict/verdict.h"

/* ---- the schema's rules ---- */

enum jtype { J_STR, J_NUM, J_INT, J_BOOL, J_OBJ, J_ARR };

struct shape;

struct prop {
	const char *name;
	enum jtype type;
	const char *pattern;         /* POSIX ERE the string must match, or NULL */
	const struct shape *object;  /* J_OBJ: its shape (NULL: free-form, as misc) */
	const struct shape *items;   /* J_ARR of objects: their shape */
	const char *const *choices;  /* J_STR: an enum */
	size_t max_len;              /* J_STR: at most this many bytes (0: any) */
};

struct shape {
	const char *name;
	const struct prop *props;
	const char *const *required;
};

#define ORIGIN "^[a-z0-9_]+$"
#define ORIGIN_ID "^[a-z0-9_]+:"
#define DATE_TIME "^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\\.[0-9]+)?(Z|[+-][0-9]{2}:[0-9]{2})$"
#define TEST_PATH "^([a-zA-Z0-9_-]+(\\.[a-zA-Z0-9_-]+)*)?$"
/* "format": "uri": a scheme, then anything without spaces */
#define URI "^[a-zA-Z][a-zA-Z0-9+.-]*:[^ ]*$"

static const char *const statuses[] = { "FAIL", "ERROR", "MISS", "PASS", "DONE", "SKIP", NULL };
static const char *const prefixes[] = { "metric", "binary", NULL };

static const struct prop resource_props[] = {
	{ "name", J_STR, "^[^/]+$" },
	{ "url", J_STR, URI },
	{ NULL },
};
static const struct shape resource = { "resource", resource_props, (const char *const[]){ "name", "url", NULL } };

static const struct prop checkout_props[] = {
	{ "_timestamp", J_STR, DATE_TIME },
	{ "id", J_STR, ORIGIN_ID },
	{ "origin", J_STR, ORIGIN },
	{ "tree_name", J_STR },
	{ "git_repository_url", J_STR, "^https://" },
	{ "git_commit_hash", J_STR, "^[0-9a-f]{40}$" },
	{ "git_commit_name", J_STR },
	{ "git_commit_tags", J_ARR },
	{ "git_commit_message", J_STR },
	{ "git_repository_branch", J_STR },
	{ "git_repository_branch_tip", J_BOOL },
	{ "patchset_files", J_ARR, NULL, NULL, &resource },
	{ "patchset_hash", J_STR, "^([0-9a-f]{64})?$" },
	{ "message_id", J_STR, "@" },
	{ "comment", J_STR },
	{ "start_time", J_STR, DATE_TIME },
	{ "log_url", J_STR, URI },
	{ "log_excerpt", J_STR, NULL, NULL, NULL, NULL, 16384 },
	{ "valid", J_BOOL },
	{ "misc", J_OBJ },
	{ NULL },
};
static const struct shape checkout = { "checkout", checkout_props, (const char *const[]){ "id", "origin", NULL } };

static const struct prop build_props[] = {
	{ "_timestamp", J_STR, DATE_TIME },
	{ "checkout_id", J_STR, ORIGIN_ID },
	{ "id", J_STR, ORIGIN_ID },
	{ "origin", J_STR, ORIGIN },
	{ "comment", J_STR },
	{ "start_time", J_STR, DATE_TIME },
	{ "duration", J_NUM },
	{ "architecture", J_STR, "^[a-z0-9_]*$" },
	{ "command", J_STR },
	{ "compiler", J_STR },
	{ "input_files", J_ARR, NULL, NULL, &resource },
	{ "output_files", J_ARR, NULL, NULL, &resource },
	{ "config_name", J_STR },
	{ "config_url", J_STR, URI },
	{ "log_url", J_STR, URI },
	{ "log_excerpt", J_STR, NULL, NULL, NULL, NULL, 16384 },
	{ "status", J_STR, NULL, NULL, NULL, statuses },
	{ "misc", J_OBJ },
	{ NULL },
};
static const struct shape build = { "build", build_props, (const char *const[]){ "checkout_id", "id", "origin", NULL } };

static const struct prop environment_props[] = {
	{ "compatible", J_ARR },
	{ "comment", J_STR },
	{ "misc", J_OBJ },
	{ NULL },
};
static const struct shape environment = { "environment", environment_props, (const char *const[]){ NULL } };

static const struct prop number_props[] = {
	{ "value", J_NUM },
	{ "unit", J_STR },
	{ "prefix", J_STR, NULL, NULL, NULL, prefixes },
	{ NULL },
};
static const struct shape number = { "number", number_props, (const char *const[]){ "value", NULL } };

static const struct prop test_props[] = {
	{ "_timestamp", J_STR, DATE_TIME },
	{ "build_id", J_STR, ORIGIN_ID },
	{ "id", J_STR, ORIGIN_ID },
	{ "origin", J_STR, ORIGIN },
	{ "environment", J_OBJ, NULL, &environment },
	{ "path", J_STR, TEST_PATH },
	{ "comment", J_STR },
	{ "log_url", J_STR, URI },
	{ "log_excerpt", J_STR, NULL, NULL, NULL, NULL, 16384 },
	{ "status", J_STR, NULL, NULL, NULL, statuses },
	{ "number", J_OBJ, NULL, &number },
	{ "start_time", J_STR, DATE_TIME },
	{ "duration", J_NUM },
	{ "output_files", J_ARR, NULL, NULL, &resource },
	{ "misc", J_OBJ },
	{ NULL },
};
static const struct shape test = { "test", test_props, (const char *const[]){ "build_id", "id", "origin", NULL } };

static const struct prop version_props[] = {
	{ "major", J_INT, "^5$" },
	{ "minor", J_INT, "^0$" }, /* the writer claims v5.0; minor may not exceed the schema's */
	{ NULL },
};
static const struct shape version = { "version", version_props, (const char *const[]){ "major", NULL } };

static const struct prop root_props[] = {
	{ "version", J_OBJ, NULL, &version },
	{ "checkouts", J_ARR, NULL, NULL, &checkout },
	{ "builds", J_ARR, NULL, NULL, &build },
	{ "tests", J_ARR, NULL, NULL, &test },
	{ "issues", J_ARR },
	{ "incidents", J_ARR },
	{ NULL },
};
static const struct shape root = { "kcidb", root_props, (const char *const[]){ "version", NULL } };

/* ---- the checker ---- */

static bool matches(const char *pattern, const char *s)
{
	regex_t re;
	bool ok;

	ck_assert_msg(regcomp(&re, pattern, REG_EXTENDED | REG_NOSUB) == 0, "bad pattern %s", pattern);
	ok = regexec(&re, s, 0, NULL, 0) == 0;
	regfree(&re);
	return ok;
}

static bool no_nulls(const json_t *v)
{
	const char *k;
	const json_t *e;
	size_t i;

	if (json_is_null(v))
		return false;
	if (json_is_object(v)) {
		json_object_foreach((json_t *)v, k, e)
			if (!no_nulls(e))
				return false;
	} else if (json_is_array(v)) {
		json_array_foreach(v, i, e)
			if (!no_nulls(e))
				return false;
	} else if (json_is_string(v)) {
		/* No NUL inside a string either ("^[^\0]*$"). */
		return strlen(json_string_value(v)) == json_string_length(v);
	}
	return true;
}

/* Why o does not fit shape, appended to why (empty when it fits). */
static void check_shape(const json_t *o, const struct shape *sh, const char *where, struct strbuf *why);

static void check_value(const json_t *v, const struct prop *p, const char *where, struct strbuf *why)
{
	static const char *const tname[] = { "string", "number", "integer", "boolean", "object", "array" };
	bool ok = p->type == J_STR ? json_is_string(v) : p->type == J_NUM ? json_is_number(v)
		: p->type == J_INT ? json_is_integer(v) : p->type == J_BOOL ? json_is_boolean(v)
		: p->type == J_OBJ ? json_is_object(v) : json_is_array(v);
	size_t i;
	const json_t *e;

	if (!ok) {
		strbuf_addf(why, "%s.%s: not a %s\n", where, p->name, tname[p->type]);
		return;
	}
	if (p->type == J_STR) {
		const char *s = json_string_value(v);
		if (p->pattern && !matches(p->pattern, s))
			strbuf_addf(why, "%s.%s: \"%.80s\" does not match %s\n", where, p->name, s, p->pattern);
		if (p->max_len && strlen(s) > p->max_len)
			strbuf_addf(why, "%s.%s: %zu bytes, more than %zu\n", where, p->name, strlen(s), p->max_len);
		if (p->choices) {
			bool in = false;
			for (const char *const *c = p->choices; *c; c++)
				in |= !strcmp(*c, s);
			if (!in)
				strbuf_addf(why, "%s.%s: \"%s\" is not one of the allowed values\n", where, p->name, s);
		}
	} else if (p->type == J_INT && p->pattern) {
		char num[32];
		snprintf(num, sizeof(num), "%lld", (long long)json_integer_value(v));
		if (!matches(p->pattern, num))
			strbuf_addf(why, "%s.%s: %s is out of range\n", where, p->name, num);
	} else if (p->type == J_OBJ && p->object) {
		_cleanup_free_ char *w = xasprintf("%s.%s", where, p->name);
		check_shape(v, p->object, w, why);
	} else if (p->type == J_ARR && p->items) {
		json_array_foreach(v, i, e) {
			_cleanup_free_ char *w = xasprintf("%s.%s[%zu]", where, p->name, i);
			check_shape(e, p->items, w, why);
		}
	}
}

static void check_shape(const json_t *o, const struct shape *sh, const char *where, struct strbuf *why)
{
	const char *k;
	const json_t *v;

	if (!json_is_object(o)) {
		strbuf_addf(why, "%s: a %s must be an object\n", where, sh->name);
		return;
	}
	json_object_foreach((json_t *)o, k, v) {
		const struct prop *p = sh->props;
		while (p->name && strcmp(p->name, k))
			p++;
		if (!p->name)
			strbuf_addf(why, "%s: property \"%s\" is not in the %s schema\n", where, k, sh->name);
		else
			check_value(v, p, where, why);
	}
	for (const char *const *r = sh->required; *r; r++)
		if (!json_object_get(o, *r))
			strbuf_addf(why, "%s: the required \"%s\" is missing\n", where, *r);
}

/* Every rule above, plus what makes the data complete: unique IDs, each link to an object present. */
static char *schema_errors(const json_t *doc)
{
	struct strbuf why = STRBUF_INIT;
	json_t *ids = json_object();
	const json_t *e;
	size_t i;

	if (!no_nulls(doc))
		strbuf_addstr(&why, "a null (or a NUL in a string) somewhere\n");
	check_shape(doc, &root, "", &why);
	static const char *const lists[] = { "checkouts", "builds", "tests" };
	for (size_t l = 0; l < 3; l++)
		json_array_foreach(json_object_get(doc, lists[l]), i, e) {
			const char *id = json_string_value(json_object_get(e, "id"));
			_cleanup_free_ char *key = xasprintf("%s/%s", lists[l], id ? id : "");
			if (json_object_get(ids, key))
				strbuf_addf(&why, "%s: ID %s twice\n", lists[l], id);
			json_object_set_new(ids, key, json_true());
		}
	json_array_foreach(json_object_get(doc, "builds"), i, e) {
		_cleanup_free_ char *key =
			xasprintf("checkouts/%s", json_string_value(json_object_get(e, "checkout_id")) ?: "");
		if (!json_object_get(ids, key))
			strbuf_addf(&why, "builds[%zu]: its checkout is not in the file\n", i);
	}
	json_array_foreach(json_object_get(doc, "tests"), i, e) {
		_cleanup_free_ char *key = xasprintf("builds/%s", json_string_value(json_object_get(e, "build_id")) ?: "");
		if (!json_object_get(ids, key))
			strbuf_addf(&why, "tests[%zu]: its build is not in the file\n", i);
	}
	json_decref(ids);
	if (!why.len) {
		strbuf_release(&why);
		return NULL;
	}
	return strbuf_detach(&why, NULL);
}

static void assert_valid(const json_t *doc)
{
	_cleanup_free_ char *why = schema_errors(doc);

	ck_assert_msg(!why, "not KCIDB v5:\n%s", why);
}

/* ---- recorded runs through the writer ---- */

static char tmp[256];

static void setup(void)
{
	/* A space and a '%' in the directory: the file:// URLs must escape them. */
	snprintf(tmp, sizeof(tmp), "%s/takeover kcidb %%XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	ck_assert_ptr_nonnull(mkdtemp(tmp));
}

static void teardown(void)
{
	rm_rf(tmp);
}

/* A directory as a run leaves it: the recorded timeline, with run-start's "kernel" when given. */
static char *run_dir(const char *fixture, const char *name, json_t *kernel)
{
	_cleanup_free_ char *src = xasprintf("%s/timelines/%s.jsonl", FIXTURES_DIR, fixture);
	char *dir = xasprintf("%s/%s", tmp, name);
	_cleanup_free_ char *dst = xasprintf("%s/timeline.jsonl", dir);
	_cleanup_free_ char *console = xasprintf("%s/console-n1.log", dir);
	struct strbuf in = STRBUF_INIT, out = STRBUF_INIT;

	ck_assert_int_eq(mkdir_p(dir, 0755), 0);
	ck_assert_int_ge(strbuf_read_file(&in, src, 64 << 20), 0);
	for (char *line = in.buf, *nl; *line; line = nl + 1) {
		nl = strchr(line, '\n');
		ck_assert_ptr_nonnull(nl);
		*nl = '\0';
		json_t *o = json_loads(line, 0, NULL);
		if (kernel && o && !strcmp(json_string_value(json_object_get(o, "ev")) ?: "", "run-start")) {
			json_object_set(o, "kernel", kernel);
			char *s = json_dumps(o, JSON_COMPACT);
			strbuf_addf(&out, "%s\n", s);
			free(s);
		} else {
			strbuf_addf(&out, "%s\n", line);
		}
		json_decref(o);
	}
	ck_assert_int_eq(write_file_atomic(dst, out.buf, out.len, 0644), 0);
	ck_assert_int_eq(write_file_atomic(console, "[    0.000000] Linux version\n", 29, 0644), 0);
	strbuf_release(&in);
	strbuf_release(&out);
	return dir;
}

/* What `takeover report --write DIR` writes, loaded back. */
static json_t *write_kcidb(const char *fixture, const char *dir)
{
	_cleanup_free_ char *ini = xasprintf("%s/timelines/%s.ini", FIXTURES_DIR, fixture);
	_cleanup_free_ char *tl = xasprintf("%s/timeline.jsonl", dir);
	_cleanup_free_ char *out = xasprintf("%s/report.kcidb.json", dir);
	struct strbuf errs = STRBUF_INIT;
	struct scenario sc;
	struct verdict_input in;
	struct verdict v;
	struct run_report rep = { 0 };
	json_error_t jerr;
	int bad;

	ck_assert_msg(scenario_load(ini, &sc, &errs) == 0, "%s", errs.buf);
	strbuf_release(&errs);
	ck_assert_int_eq(timeline_load(tl, &sc, &in, &bad), 0);
	verdict_judge(&in, &v);
	rep.sc = &sc;
	rep.v = &v;
	rep.in = &in;
	ck_assert_int_eq(report_load(tl, sc.cluster.nodes, &rep), 0);
	report_add_verdict_steps(&rep);
	ck_assert_int_eq(report_kcidb(&rep, out), 0);
	report_release(&rep);
	verdict_input_release(&in);
	scenario_release(&sc);
	json_t *doc = json_load_file(out, 0, &jerr);
	ck_assert_msg(doc, "%s: %s", out, jerr.text);
	return doc;
}

static const json_t *test_at(const json_t *doc, const char *path)
{
	const json_t *e;
	size_t i;

	json_array_foreach(json_object_get(doc, "tests"), i, e)
		if (!strcmp(json_string_value(json_object_get(e, "path")), path))
			return e;
	ck_abort_msg("no test %s", path);
	return NULL;
}

static const char *str_at(const json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));

	ck_assert_msg(s, "no string \"%s\"", key);
	return s;
}

/* The default scenario's PASS on 6.1: every check a test, all PASS, the verdict's resume time its number. */
START_TEST(recorded_pass)
{
	_cleanup_free_ char *dir = run_dir("pass-default", "pass", NULL);
	json_t *doc = write_kcidb("pass-default", dir);

	assert_valid(doc);
	const json_t *verdict = test_at(doc, "takeover.loopback-failover");
	ck_assert_str_eq(str_at(verdict, "status"), "PASS");
	ck_assert(json_is_number(json_object_get(json_object_get(verdict, "number"), "value")));
	ck_assert_str_eq(str_at(test_at(doc, "takeover.loopback-failover.no-stall"), "status"), "PASS");
	/* The image's Debian kernel, named by its release in an older timeline without "kernel". */
	ck_assert_str_eq(str_at(json_array_get(json_object_get(doc, "builds"), 0), "id"),
			 "takeover:release-6_1_0-57-cloud-amd64");
	/* The console beside it, by an escaped file:// URL. */
	const json_t *files = json_object_get(verdict, "output_files"), *f;
	size_t i;
	bool console = false;
	json_array_foreach(files, i, f)
		if (!strcmp(str_at(f, "name"), "console-n1.log")) {
			console = true;
			ck_assert_ptr_nonnull(strstr(str_at(f, "url"), "/takeover%20kcidb%20%25"));
			ck_assert_ptr_nonnull(strstr(str_at(f, "url"), "/pass/console-n1.log"));
		}
	ck_assert(console);
	json_decref(doc);
}
END_TEST

/* The negative control: the verdict and its check FAIL, with the stacks in the excerpt. */
START_TEST(recorded_stall)
{
	_cleanup_free_ char *dir = run_dir("stall-negative", "stall", NULL);
	json_t *doc = write_kcidb("stall-negative", dir);

	assert_valid(doc);
	ck_assert_str_eq(str_at(test_at(doc, "takeover.negative-control"), "status"), "FAIL");
	const json_t *st = test_at(doc, "takeover.negative-control.no-stall");
	ck_assert_str_eq(str_at(st, "status"), "FAIL");
	ck_assert_ptr_nonnull(strstr(str_at(st, "log_excerpt"), "stalled for 44.0s"));
	/* Recorded before steps carried their start: each check starts with the run. */
	ck_assert_str_eq(str_at(test_at(doc, "takeover.negative-control.cluster-up"), "start_time"),
			 str_at(test_at(doc, "takeover.negative-control"), "start_time"));
	json_decref(doc);
}
END_TEST

/* The run could not judge the kernel (pressure lost): ERROR, not FAIL. */
START_TEST(recorded_error)
{
	_cleanup_free_ char *dir = run_dir("pressure-lost-fixed", "error", NULL);
	json_t *doc = write_kcidb("pressure-lost-fixed", dir);

	assert_valid(doc);
	ck_assert_str_eq(str_at(test_at(doc, "takeover.loopback-deadlock"), "status"), "ERROR");
	ck_assert_str_eq(str_at(test_at(doc, "takeover.loopback-deadlock.pressure-held"), "status"), "ERROR");
	json_decref(doc);
}
END_TEST

/* A kernel `takeover kernel build` made: its cache key names the build, its source the checkout. */
START_TEST(built_kernel)
{
	_cleanup_free_ char *kdir = xasprintf("%s/kernel", tmp);
	_cleanup_free_ char *bz = xasprintf("%s/bzImage", kdir);
	_cleanup_free_ char *man = xasprintf("%s/manifest.json", kdir);
	_cleanup_free_ char *rec = xasprintf("%s/kcidb/manifest-debian-6.12.json", FIXTURES_DIR);
	struct strbuf m = STRBUF_INIT;

	ck_assert_int_eq(mkdir_p(kdir, 0755), 0);
	ck_assert_int_eq(write_file_atomic(bz, "not a real bzImage", 18, 0644), 0);
	ck_assert_int_ge(strbuf_read_file(&m, rec, 1 << 20), 0);
	ck_assert_int_eq(write_file_atomic(man, m.buf, m.len, 0644), 0);
	strbuf_release(&m);
	char hash[17];
	ck_assert_int_eq(sha256_file_key16(bz, hash), 0);
	json_t *k = kernel_identity(bz, hash, false, NULL);
	ck_assert_str_eq(str_at(k, "origin"), "bzimage");
	ck_assert_str_eq(str_at(json_object_get(k, "build"), "key"), "395fa0c04a926174");
	ck_assert_int_eq(strlen(str_at(k, "bzimage_sha256_16")), 16);

	_cleanup_free_ char *dir = run_dir("takeover-fenced-6.12", "built", k);
	json_t *doc = write_kcidb("takeover-fenced-6.12", dir);
	assert_valid(doc);
	const json_t *b = json_array_get(json_object_get(doc, "builds"), 0);
	ck_assert_str_eq(str_at(b, "id"), "takeover:kernel-395fa0c04a926174");
	ck_assert_int_eq((int)json_number_value(json_object_get(b, "duration")), 483);
	ck_assert_ptr_nonnull(strstr(str_at(json_array_get(json_object_get(doc, "checkouts"), 0), "comment"),
				     "debian-6.12"));
	ck_assert_str_eq(str_at(test_at(doc, "takeover.loopback-failover.takeover"), "status"), "FAIL");
	json_decref(doc);
	json_decref(k);
}
END_TEST

/* A git tree (--kernel-tree): the checkout is its HEAD commit, as git itself names it. */
START_TEST(git_tree)
{
	_cleanup_free_ char *tree = xasprintf("%s/linux", tmp);
	_cleanup_free_ char *bz = xasprintf("%s/bzImage", tree);
	_cleanup_free_ char *cmd = xasprintf("cd '%s' && git init -q && git -c user.name=t -c user.email=t@localhost "
					     "commit -q --allow-empty -m base && git rev-parse HEAD",
					     tree);
	struct strbuf head = STRBUF_INIT;

	ck_assert_int_eq(mkdir_p(tree, 0755), 0);
	ck_assert_int_eq(write_file_atomic(bz, "bz", 2, 0644), 0);
	ck_assert_int_eq(spawn_simple((const char *const[]){ "sh", "-c", cmd, NULL }, 30000, &head), 0);
	strbuf_rtrim(&head);
	json_t *k = kernel_identity(bz, NULL, false, tree);
	ck_assert_str_eq(str_at(k, "git_commit"), head.buf);

	_cleanup_free_ char *dir = run_dir("pass-default", "tree", k);
	json_t *doc = write_kcidb("pass-default", dir);
	assert_valid(doc);
	const json_t *c = json_array_get(json_object_get(doc, "checkouts"), 0);
	ck_assert_str_eq(str_at(c, "git_commit_hash"), head.buf);
	ck_assert_ptr_nonnull(strstr(str_at(c, "id"), head.buf));
	json_decref(doc);
	json_decref(k);
	strbuf_release(&head);
}
END_TEST

/* A series in one submission: every run's tests, the kernel they share once. */
START_TEST(merged_series)
{
	/* Two runs of the known-bad 6.1.192 */
	_cleanup_free_ char *a = run_dir("pressure-lost-fixed", "iter-1", NULL);
	_cleanup_free_ char *b = run_dir("pressure-back-fixed", "iter-2", NULL);
	_cleanup_free_ char *none = xasprintf("%s/iter-3", tmp);
	_cleanup_free_ char *out = xasprintf("%s/report.kcidb.json", tmp);
	json_t *da = write_kcidb("pressure-lost-fixed", a), *db = write_kcidb("pressure-back-fixed", b);
	const char *dirs[] = { a, b, none };

	ck_assert_int_eq(mkdir_p(none, 0755), 0); /* an iteration whose cluster never came up: no file */
	ck_assert_int_eq(report_kcidb_merge(dirs, 3, out), 0);
	json_t *doc = json_load_file(out, 0, NULL);
	ck_assert_ptr_nonnull(doc);
	assert_valid(doc);
	ck_assert_uint_eq(json_array_size(json_object_get(doc, "tests")),
			  json_array_size(json_object_get(da, "tests")) + json_array_size(json_object_get(db, "tests")));
	ck_assert_uint_eq(json_array_size(json_object_get(doc, "builds")), 1);
	json_decref(doc);
	json_decref(da);
	json_decref(db);
}
END_TEST

/* The checker itself: a document breaking each kind of rule is refused, for the right reason. */
START_TEST(checker_refuses)
{
	_cleanup_free_ char *dir = run_dir("stall-negative", "bad", NULL);
	json_t *good = write_kcidb("stall-negative", dir);
	static const struct {
		const char *json_path; /* test 0's property to set */
		const char *value;     /* as JSON */
		const char *why;
	} cases[] = {
		{ "path", "\"takeover.negative control\"", "does not match" },
		{ "status", "\"BROKEN\"", "not one of the allowed values" },
		{ "start_time", "\"2026-12-07 10:00\"", "does not match" },
		{ "duration", "\"12\"", "not a number" },
		{ "comment", "null", "a null" },
		{ "waived", "true", "is not in the test schema" },
		{ "build_id", "\"takeover:elsewhere\"", "its build is not in the file" },
		{ "output_files", "[{\"name\": \"a/b\", \"url\": \"file:///x\"}]", "does not match" },
		{ "number", "{\"unit\": \"s\"}", "the required \"value\" is missing" },
	};
	size_t i;

	assert_valid(good);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		json_t *doc = json_deep_copy(good);
		json_object_set_new(json_array_get(json_object_get(doc, "tests"), 0), cases[i].json_path,
				    json_loads(cases[i].value, JSON_DECODE_ANY, NULL));
		_cleanup_free_ char *why = schema_errors(doc);
		ck_assert_msg(why && strstr(why, cases[i].why), "%s = %s: %s", cases[i].json_path, cases[i].value,
			      why ? why : "accepted");
		json_decref(doc);
	}
	/* An excerpt one byte too long, a second test with the same ID, version 4. */
	json_t *doc = json_deep_copy(good);
	char *big = xcalloc(16386, 1);
	memset(big, 'x', 16385);
	json_object_set_new(json_array_get(json_object_get(doc, "tests"), 0), "log_excerpt", json_string(big));
	json_array_append(json_object_get(doc, "tests"), json_array_get(json_object_get(doc, "tests"), 1));
	json_object_set_new(json_object_get(doc, "version"), "major", json_integer(4));
	_cleanup_free_ char *why = schema_errors(doc);
	ck_assert_ptr_nonnull(why);
	ck_assert_ptr_nonnull(strstr(why, "16385 bytes"));
	ck_assert_ptr_nonnull(strstr(why, "twice"));
	ck_assert_ptr_nonnull(strstr(why, "major: 4 is out of range"));
	free(big);
	json_decref(doc);
	json_decref(good);
}
END_TEST

static Suite *kcidb_suite(void)
{
	Suite *s = suite_create("kcidb");
	TCase *t = tcase_create("writer");

	tcase_add_checked_fixture(t, setup, teardown);
	tcase_add_test(t, recorded_pass);
	tcase_add_test(t, recorded_stall);
	tcase_add_test(t, recorded_error);
	tcase_add_test(t, built_kernel);
	tcase_add_test(t, git_tree);
	tcase_add_test(t, merged_series);
	tcase_add_test(t, checker_refuses);
	suite_add_tcase(s, t);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(kcidb_suite());
	int failed;

	srunner_set_fork_status(sr, CK_FORK);
	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
