// SPDX-License-Identifier: GPL-2.0-only
/*
 * report.kcidb.json: the run as Kernel CI (KCIDB) I/O data, schema v5.0, so
 * a run can be submitted beside other CI systems' results with kcidb's own
 * tools (kcidb-validate, kcidb-submit). One checkout and one build name the
 * kernel under test; every step of the run (the same checks junit.xml has)
 * is a test with path takeover.<scenario>.<check>, and the run's one verdict
 * is the test takeover.<scenario>. Files are named by file:// URLs of the
 * run directory: a submitter that uploads them rewrites that prefix.
 *
 * The schema's rules the writer keeps (tests/unit/test_kcidb.c checks
 * them): every ID is "takeover:" and a string; no property is null; paths
 * are dot-separated [a-zA-Z0-9_-] parts; statuses are FAIL, ERROR, PASS or
 * SKIP; log excerpts are at most 16384 bytes; resource names carry no '/'.
 */
#include <errno.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "report/common.h"
#include "report/report.h"
#include "util/fs.h"
#include "util/log.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

#define KCIDB_ORIGIN "takeover"
#define KCIDB_MAJOR 5
#define KCIDB_MINOR 0
#define KCIDB_EXCERPT_MAX 16384

/* Cleaned text (valid UTF-8) of at most max bytes, cut at a character boundary. */
static json_t *text_max(const char *s, size_t max)
{
	_cleanup_strbuf_ struct strbuf sb = STRBUF_INIT;

	report_clean_text(&sb, s ? s : "");
	if (sb.len > max) {
		size_t n = max;
		while (n > 0 && ((unsigned char)sb.buf[n] & 0xc0) == 0x80)
			n--;
		sb.len = n;
		sb.buf[n] = '\0';
	}
	return json_string(sb.buf);
}

static json_t *text(const char *s)
{
	return text_max(s, (size_t)-1);
}

/* KCIDB has no nulls, not even in misc: a value that is not known is left out. */
static void drop_nulls(json_t *o)
{
	const char *k;
	json_t *v;
	void *tmp;
	size_t i;

	if (json_is_object(o)) {
		json_object_foreach_safe(o, tmp, k, v) {
			if (json_is_null(v))
				json_object_del(o, k);
			else
				drop_nulls(v);
		}
	} else if (json_is_array(o)) {
		for (i = 0; i < json_array_size(o);) {
			v = json_array_get(o, i);
			if (json_is_null(v)) {
				json_array_remove(o, i);
				continue;
			}
			drop_nulls(v);
			i++;
		}
	}
}

/* An ID part: what the schema's test path allows ([a-zA-Z0-9_-]), anything else as '_'. */
static void id_part(struct strbuf *sb, const char *s)
{
	for (; *s; s++) {
		char c = *s;
		bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
			  c == '-';
		strbuf_addch(sb, ok ? c : '_');
	}
}

static const char *kstr(const json_t *o, const char *k)
{
	return json_string_value(json_object_get(o, k));
}

/*
 * The build's ID: the cache key of a kernel `takeover kernel build` made,
 * else the bzImage's hash, else its release (the image's own kernel).
 */
static void build_id(const struct run_report *r, struct strbuf *sb)
{
	const json_t *k = r->kernel, *b = json_object_get(k, "build");
	const char *key = kstr(b, "key"), *sha = kstr(k, "bzimage_sha256_16");

	strbuf_addstr(sb, KCIDB_ORIGIN ":");
	if (key) {
		strbuf_addstr(sb, "kernel-");
		id_part(sb, key);
	} else if (sha) {
		strbuf_addstr(sb, "bzimage-");
		id_part(sb, sha);
	} else {
		strbuf_addstr(sb, "release-");
		id_part(sb, r->kernel_release[0] ? r->kernel_release : "unknown");
	}
}

/* The source the build is of: the tree's commit when it is a git checkout, else the build's own. */
static void checkout_id(const struct run_report *r, struct strbuf *sb)
{
	const char *commit = kstr(r->kernel, "git_commit");

	if (commit) {
		strbuf_addstr(sb, KCIDB_ORIGIN ":git-");
		id_part(sb, commit);
		return;
	}
	build_id(r, sb);
	strbuf_addstr(sb, "-source");
}

static bool is_sha1(const char *s)
{
	size_t n = 0;

	for (; s && *s; s++, n++)
		if (!((*s >= '0' && *s <= '9') || (*s >= 'a' && *s <= 'f')))
			return false;
	return n == 40;
}

static json_t *checkout_obj(const struct run_report *r)
{
	_cleanup_strbuf_ struct strbuf id = STRBUF_INIT, comment = STRBUF_INIT;
	const json_t *k = r->kernel, *b = json_object_get(k, "build");
	const char *origin = kstr(k, "origin"), *commit = kstr(k, "git_commit");
	json_t *o = json_object(), *misc = json_object();

	checkout_id(r, &id);
	if (b)
		strbuf_addf(&comment, "%s%s%s", kstr(b, "source") ?: "?", kstr(b, "patches") ? " with the series in " : "",
			    kstr(b, "patches") ?: "");
	else if (origin && !strcmp(origin, "tree"))
		strbuf_addf(&comment, "the kernel tree %s", kstr(k, "tree") ?: "?");
	else if (origin && !strcmp(origin, "image"))
		strbuf_addf(&comment, "the guest image's Debian kernel %s", r->kernel_release);
	else
		strbuf_addf(&comment, "a bzImage brought to the run (%s)", r->kernel_release);
	json_object_set_new(o, "id", json_string(id.buf));
	json_object_set_new(o, "origin", json_string(KCIDB_ORIGIN));
	json_object_set_new(o, "comment", text(comment.buf));
	if (is_sha1(commit))
		json_object_set_new(o, "git_commit_hash", json_string(commit));
	if (kstr(k, "git_describe"))
		json_object_set_new(o, "git_commit_name", text(kstr(k, "git_describe")));
	json_object_set_new(o, "valid", json_true());
	if (b && kstr(b, "source"))
		json_object_set_new(misc, "source", text(kstr(b, "source")));
	if (b && kstr(b, "patches"))
		json_object_set_new(misc, "patches", text(kstr(b, "patches")));
	if (kstr(k, "tree"))
		json_object_set_new(misc, "tree", text(kstr(k, "tree")));
	json_object_set_new(o, "misc", misc);
	return o;
}

static json_t *build_obj(const struct run_report *r)
{
	_cleanup_strbuf_ struct strbuf id = STRBUF_INIT, ck = STRBUF_INIT;
	const json_t *k = r->kernel, *b = json_object_get(k, "build");
	json_t *o = json_object(), *misc = json_object();

	build_id(r, &id);
	checkout_id(r, &ck);
	json_object_set_new(o, "id", json_string(id.buf));
	json_object_set_new(o, "origin", json_string(KCIDB_ORIGIN));
	json_object_set_new(o, "checkout_id", json_string(ck.buf));
	json_object_set_new(o, "architecture", json_string("x86_64"));
	json_object_set_new(o, "comment", text(r->kernel_release));
	/* It booted every node and the run went on: as a build, it passed. */
	json_object_set_new(o, "status", json_string("PASS"));
	if (b && json_is_number(json_object_get(b, "build_seconds")))
		json_object_set_new(o, "duration", json_real(json_number_value(json_object_get(b, "build_seconds"))));
	if (b && kstr(b, "key"))
		json_object_set_new(o, "config_name", json_string(json_is_true(json_object_get(b, "debug"))
									 ? "takeover guest (debug)"
									 : "takeover guest"));
	json_object_set_new(misc, "kernel_release", text(r->kernel_release));
	if (k)
		json_object_set_new(misc, "kernel", json_deep_copy(k));
	drop_nulls(misc);
	json_object_set_new(o, "misc", misc);
	return o;
}

/* file:// URL of a file in the run directory: path characters outside RFC 3986's unreserved set escaped. */
static void file_url(struct strbuf *sb, const char *dir, const char *name)
{
	static const char hex[] = "0123456789ABCDEF";
	_cleanup_free_ char *path = xasprintf("%s/%s", dir, name);

	strbuf_addstr(sb, "file://");
	for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
		bool ok = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
			  strchr("/-._~", *p);
		if (ok) {
			strbuf_addch(sb, (char)*p);
		} else {
			strbuf_addch(sb, '%');
			strbuf_addch(sb, hex[*p >> 4]);
			strbuf_addch(sb, hex[*p & 15]);
		}
	}
}

/* A file of the run directory, when it is there (or, with anyway, will be: written after this one). */
static void add_file(json_t *list, const struct run_report *r, const char *name, bool anyway)
{
	_cleanup_strbuf_ struct strbuf url = STRBUF_INIT;
	_cleanup_free_ char *path = NULL;
	json_t *res;

	if (!name || !name[0] || strchr(name, '/') || !r->dir[0])
		return;
	path = xasprintf("%s/%s", r->dir, name);
	if (!anyway && access(path, R_OK) < 0)
		return;
	file_url(&url, r->dir, name);
	res = json_object();
	json_object_set_new(res, "name", text(name));
	json_object_set_new(res, "url", json_string(url.buf));
	json_array_append_new(list, res);
}

/* The run's files a person opens: reports, timeline, plot, consoles and journals, the evidence. */
static json_t *output_files(const struct run_report *r)
{
	json_t *list = json_array();

	/*
	 * Not itself: a KCIDB object names the files beside it. index.html is
	 * written after it (report_write_all()): named whether or not an
	 * earlier one is there, so a rewrite gives the same file.
	 */
	for (size_t i = 0; i < REPORT_NFILES; i++)
		if (report_files[i].name != report_file_name("kcidb"))
			add_file(list, r, report_files[i].name, report_files[i].name == report_file_name("html"));
	for (int i = 0; i < r->nnodes; i++) {
		add_file(list, r, r->nodes[i].console, false);
		add_file(list, r, r->nodes[i].corosync_log, false);
		add_file(list, r, r->nodes[i].nfs_log, false);
	}
	if (r->fx) {
		add_file(list, r, r->fx->sysrq_w_file, false);
		add_file(list, r, r->fx->sysrq_t_file, false);
		add_file(list, r, r->fx->sysrq_m_file, false);
		add_file(list, r, r->fx->vmcore_file, false);
	}
	return list;
}

static const char *step_status(const struct run_report *r, const struct report_step *st)
{
	if (!st->ran)
		return "SKIP";
	if (st->ok)
		return "PASS";
	/* A check that broke the run (could not judge the kernel) is the harness's ERROR, not the kernel's FAIL. */
	return verdict_is_error(r->v->cls) ? "ERROR" : "FAIL";
}

static json_t *environment(const struct run_report *r)
{
	_cleanup_strbuf_ struct strbuf c = STRBUF_INIT;
	json_t *o = json_object(), *misc = json_object();

	strbuf_addf(&c, "%d QEMU guests (%s) in cluster %s", r->nnodes, r->kvm ? "KVM" : "TCG", r->cluster);
	json_object_set_new(o, "comment", text(c.buf));
	json_object_set_new(misc, "accel", json_string(r->kvm ? "kvm" : "tcg"));
	json_object_set_new(misc, "nodes", json_integer(r->nnodes));
	json_object_set_new(misc, "cluster", text(r->cluster));
	json_object_set_new(o, "misc", misc);
	return o;
}

struct test_ctx {
	const struct run_report *r;
	char scenario[256];
	struct strbuf build;
	json_t *files;
};

/* The fields every test of the run has: IDs, path, environment, misc naming the run. */
static json_t *test_base(struct test_ctx *c, const char *check, const char *status, uint64_t start_ms,
			 double seconds)
{
	_cleanup_strbuf_ struct strbuf id = STRBUF_INIT, path = STRBUF_INIT;
	char stamp[32];
	json_t *o = json_object(), *misc = json_object();

	strbuf_addstr(&id, KCIDB_ORIGIN ":");
	id_part(&id, c->r->run_id);
	strbuf_addstr(&path, "takeover.");
	id_part(&path, c->scenario);
	if (check) {
		strbuf_addch(&id, '.');
		id_part(&id, check);
		strbuf_addch(&path, '.');
		id_part(&path, check);
	}
	report_iso8601(start_ms, true, stamp, sizeof(stamp));
	json_object_set_new(o, "id", json_string(id.buf));
	json_object_set_new(o, "origin", json_string(KCIDB_ORIGIN));
	json_object_set_new(o, "build_id", json_string(c->build.buf));
	json_object_set_new(o, "path", json_string(path.buf));
	json_object_set_new(o, "status", json_string(status));
	json_object_set_new(o, "start_time", json_string(stamp));
	json_object_set_new(o, "duration", json_real(seconds > 0 ? seconds : 0.0));
	json_object_set_new(o, "environment", environment(c->r));
	json_object_set_new(misc, "run_id", text(c->r->run_id));
	json_object_set_new(misc, "scenario", text(c->r->scenario_path));
	json_object_set_new(misc, "verdict", json_string(verdict_name(c->r->v->cls)));
	json_object_set_new(o, "misc", misc);
	return o;
}

static json_t *step_test(struct test_ctx *c, const struct report_step *st)
{
	const struct run_report *r = c->r;
	bool deciding = st == report_deciding_step(r);
	/* A timeline from before steps carried their start: the run's. */
	json_t *o = test_base(c, st->name, step_status(r, st), st->started_ms ? st->started_ms : r->wall_start_ms,
			      st->ran ? st->seconds : 0.0);

	if (st->message[0])
		json_object_set_new(o, "comment", text_max(st->message, 1024));
	if (st->ran && !st->ok) {
		_cleanup_strbuf_ struct strbuf sb = STRBUF_INIT;
		report_failure_text(&sb, r, st->message, deciding, 0);
		json_object_set_new(o, "log_excerpt", text_max(sb.buf, KCIDB_EXCERPT_MAX));
	}
	if (deciding && json_array_size(c->files))
		json_object_set_new(o, "output_files", json_deep_copy(c->files));
	return o;
}

/* The run's one verdict: takeover.<scenario>, with the resume time as its number when there was one. */
static json_t *verdict_test(struct test_ctx *c)
{
	const struct run_report *r = c->r;
	const struct verdict *v = r->v;
	const char *status = v->cls == VERDICT_PASS ? "PASS" : verdict_is_error(v->cls) ? "ERROR" : "FAIL";
	json_t *o = test_base(c, NULL, status, r->wall_start_ms, (double)r->duration_ms / 1000.0);
	_cleanup_strbuf_ struct strbuf sb = STRBUF_INIT;

	strbuf_addf(&sb, "%s: ", verdict_name(v->cls));
	report_failure_text(&sb, r, v->reason, v->cls != VERDICT_PASS, 0);
	json_object_set_new(o, "comment", text_max(sb.buf, 1024));
	json_object_set_new(o, "log_excerpt", text_max(sb.buf, KCIDB_EXCERPT_MAX));
	if (json_array_size(c->files))
		json_object_set_new(o, "output_files", json_deep_copy(c->files));
	if (v->t_resume && r->in && r->in->t_fault && v->t_resume > r->in->t_fault) {
		json_t *num = json_object();
		json_object_set_new(num, "value", json_real((double)(v->t_resume - r->in->t_fault) / 1000.0));
		json_object_set_new(num, "unit", json_string("s"));
		json_object_set_new(o, "number", num);
	}
	return o;
}

static json_t *kcidb_doc(const struct run_report *r)
{
	struct test_ctx c = { .r = r, .build = STRBUF_INIT };
	json_t *doc = json_object(), *ver = json_object(), *tests = json_array();

	report_scenario_name(r, c.scenario, sizeof(c.scenario));
	build_id(r, &c.build);
	c.files = output_files(r);
	json_object_set_new(ver, "major", json_integer(KCIDB_MAJOR));
	json_object_set_new(ver, "minor", json_integer(KCIDB_MINOR));
	json_object_set_new(doc, "version", ver);
	json_object_set_new(doc, "checkouts", json_pack("[o]", checkout_obj(r)));
	json_object_set_new(doc, "builds", json_pack("[o]", build_obj(r)));
	json_array_append_new(tests, verdict_test(&c));
	for (int i = 0; i < r->nsteps; i++)
		json_array_append_new(tests, step_test(&c, &r->steps[i]));
	json_object_set_new(doc, "tests", tests);
	json_decref(c.files);
	strbuf_release(&c.build);
	return doc;
}

static int write_doc(json_t *doc, const char *path)
{
	char *text = doc ? json_dumps(doc, JSON_INDENT(2)) : NULL;
	int ret = text ? write_file_atomic(path, text, strlen(text), 0644) : -ENOMEM;

	free(text);
	return ret;
}

int report_kcidb(const struct run_report *r, const char *path)
{
	json_t *doc;
	int ret;

	if (!r->v)
		return -EINVAL;
	doc = kcidb_doc(r);
	ret = write_doc(doc, path);
	json_decref(doc);
	return ret;
}

/* Appends the objects of from[key] to to[key] whose "id" seen does not hold yet. */
static void merge_list(json_t *to, const json_t *from, const char *key, json_t *seen)
{
	const json_t *src = json_object_get(from, key), *e;
	json_t *dst = json_object_get(to, key);
	size_t i;

	json_array_foreach(src, i, e) {
		const char *id = kstr(e, "id");
		if (!id || (seen && json_object_get(seen, id)))
			continue;
		if (seen)
			json_object_set_new(seen, id, json_true());
		json_array_append(dst, (json_t *)e);
	}
}

int report_kcidb_merge(const char *const *run_dirs, size_t n, const char *path)
{
	json_t *doc = json_pack("{s:{s:i,s:i},s:[],s:[],s:[]}", "version", "major", KCIDB_MAJOR, "minor", KCIDB_MINOR,
				"checkouts", "builds", "tests");
	/* Each run names its own checkout and build: the same kernel's are listed once. */
	json_t *seen_ck = json_object(), *seen_b = json_object();
	int ret;

	for (size_t i = 0; doc && i < n; i++) {
		_cleanup_free_ char *p = xasprintf("%s/report.kcidb.json", run_dirs[i]);
		json_t *one = json_load_file(p, 0, NULL);
		if (!json_is_object(one)) {
			json_decref(one);
			continue;
		}
		merge_list(doc, one, "checkouts", seen_ck);
		merge_list(doc, one, "builds", seen_b);
		merge_list(doc, one, "tests", NULL);
		json_decref(one);
	}
	ret = write_doc(doc, path);
	json_decref(seen_ck);
	json_decref(seen_b);
	json_decref(doc);
	return ret;
}
