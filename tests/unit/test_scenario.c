// SPDX-License-Identifier: GPL-2.0-only
/*
 * The scenario parser: every shipped scenario is valid, defaults are the
 * documented ones, scenario_write() round-trips, every bad fixture fails with
 * exactly the messages its "# expect: LINE: TEXT" header lists, and hostile
 * input (garbage, NUL bytes, huge lines and files, unreadable paths) yields
 * errors rather than crashes.
 */
#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "run/faults/faults.h"
#include "scenario/scenario.h"
#include "util/units.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

#ifndef SCENARIOS_DIR
#error "SCENARIOS_DIR must be defined by the build"
#endif
#ifndef FIXTURES_DIR
#error "FIXTURES_DIR must be defined by the build"
#endif

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define MAX_EXPECT 64

/* Filled in main() before forking, so each loop test can index them. */
static char **shipped, **fixtures;
static size_t n_shipped, n_fixtures;

/* ---- helpers ---- */

static int is_ini(const struct dirent *d)
{
	size_t n = strlen(d->d_name);

	return d->d_name[0] != '.' && n > 4 && !strcmp(d->d_name + n - 4, ".ini");
}

/* Sorted full paths of the .ini files in dir; an unreadable directory is an empty list. */
static char **list_ini(const char *dir, size_t *count)
{
	struct dirent **ents;
	char **paths;
	int n = scandir(dir, &ents, is_ini, alphasort);

	*count = 0;
	if (n < 0)
		return NULL;
	paths = xcalloc((size_t)n + 1, sizeof(*paths));
	for (int i = 0; i < n; i++) {
		paths[i] = xasprintf("%s/%s", dir, ents[i]->d_name);
		free(ents[i]);
	}
	free(ents);
	*count = (size_t)n;
	return paths;
}

static void free_list(char **paths)
{
	for (size_t i = 0; paths && paths[i]; i++)
		free(paths[i]);
	free(paths);
}

static size_t count_lines(const char *s)
{
	size_t n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

/* True when text contains line as a whole line. */
static bool has_line(const char *text, const char *line)
{
	size_t len = strlen(line);

	for (const char *p = text; (p = strstr(p, line)); p++)
		if ((p == text || p[-1] == '\n') && p[len] == '\n')
			return true;
	return false;
}

static int parse_str(const char *text, struct scenario *sc, struct strbuf *errs)
{
	return scenario_parse("t.ini", text, strlen(text), "/nonexistent", sc, errs);
}

/* Writes data to a fresh temporary file; returns its malloc'd path. */
static char *temp_file(const void *data, size_t len)
{
	char *path = xasprintf("%s/takeover-test-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	int fd = mkstemp(path);

	ck_assert_msg(fd >= 0, "mkstemp: %s", strerror(errno));
	ck_assert_msg(write(fd, data, len) == (ssize_t)len, "write: %s", strerror(errno));
	close(fd);
	return path;
}

/* Name of the first field that differs, NULL when a and b describe the same run. */
static const char *scenario_diff(const struct scenario *a, const struct scenario *b)
{
#define SAME(f) do { if (a->f != b->f) return #f; } while (0)
#define SAME_STR(f) do { if (strcmp(a->f ? a->f : "", b->f ? b->f : "")) return #f; } while (0)
	SAME(cluster.nodes);
	SAME(cluster.memory);
	SAME(cluster.vcpus);
	SAME(cluster.accel);
	SAME(cluster.subnet);
	SAME(cluster.fencing);
	SAME(cluster.token);
	SAME_STR(kernel.image);
	SAME_STR(kernel.initrd);
	SAME_STR(kernel.modules);
	SAME_STR(kernel.cmdline);
	SAME(kernel.hung_task_timeout);
	SAME(nfs.version);
	SAME(nfs.threads);
	SAME(nfs.grace_time);
	SAME(nfs.lease_time);
	SAME_STR(nfs.export_options);
	SAME_STR(nfs.mount_options);
	SAME(workload.writers.kind);
	SAME(workload.writers.mask);
	SAME(workload.file_size);
	SAME(workload.record_size);
	SAME(workload.fsync_every);
	SAME(workload.mode);
	SAME(pressure.nodes.kind);
	SAME(pressure.nodes.mask);
	SAME(pressure.available.is_percent);
	SAME(pressure.available.percent);
	SAME(pressure.available.bytes);
	SAME(pressure.start);
	SAME(pressure.ramp);
	SAME(fault.kind);
	SAME(fault.target);
	SAME(fault.after);
	SAME(fault.repeat);
	SAME(verdict.steady_time);
	SAME(verdict.takeover_timeout);
	SAME(verdict.observe);
	SAME(verdict.max_stall);
	SAME(verdict.min_rate);
	return NULL;
#undef SAME
#undef SAME_STR
}

/* write(sc) re-parses to the same scenario, and writing that gives the same text. */
static void assert_roundtrip(const struct scenario *sc)
{
	struct strbuf text = STRBUF_INIT, again = STRBUF_INIT, errs = STRBUF_INIT;
	struct scenario back;
	const char *diff;

	scenario_write(sc, &text);
	ck_assert_msg(scenario_parse(sc->path, text.buf, text.len, "/nonexistent", &back, &errs) == 0,
		      "%s: written form does not parse:\n%s\n--- written:\n%s", sc->path, errs.buf,
		      text.buf);
	diff = scenario_diff(sc, &back);
	ck_assert_msg(!diff, "%s: %s differs after a round trip", sc->path, diff);
	scenario_write(&back, &again);
	ck_assert_str_eq(text.buf, again.buf);
	scenario_release(&back);
	strbuf_release(&text);
	strbuf_release(&again);
	strbuf_release(&errs);
}

/*
 * Every error line is "NAME:LINE: ..." and there is one line per problem, the
 * last replaced by "too many problems" when the cap was hit.
 */
static void assert_error_shape(const char *name, int n, const struct strbuf *errs)
{
	size_t want = n > SCENARIO_MAX_ERRORS ? SCENARIO_MAX_ERRORS + 1 : (size_t)n;
	size_t nlen = strlen(name);

	ck_assert_msg(count_lines(errs->buf) == want, "%d problems but %zu lines:\n%s", n,
		      count_lines(errs->buf), errs->buf);
	ck_assert(errs->len == 0 || errs->buf[errs->len - 1] == '\n');
	for (const char *p = errs->buf; *p; p = strchr(p, '\n') + 1) {
		ck_assert_msg(!strncmp(p, name, nlen) && p[nlen] == ':', "bad error line: %.80s", p);
		ck_assert_msg(strspn(p + nlen + 1, "0123456789") > 0, "no line number: %.80s", p);
	}
}

/* Rows of the option table, counted in the reference generated from it. */
static size_t option_count(void)
{
	struct strbuf md = STRBUF_INIT;
	size_t n = 0;

	scenario_reference(&md, true);
	for (const char *p = md.buf; (p = strstr(p, "\n| `")); p++)
		n++;
	strbuf_release(&md);
	return n;
}

static void assert_released(const struct scenario *sc)
{
	ck_assert_ptr_null(sc->path);
	ck_assert_ptr_null(sc->lines);
	ck_assert_ptr_null(sc->kernel.image);
	ck_assert_ptr_null(sc->nfs.export_options);
}

/* ---- shipped scenarios, defaults, round trips ---- */

START_TEST(shipped_parse)
{
	struct strbuf errs = STRBUF_INIT;
	struct scenario sc;
	int n = scenario_load(shipped[_i], &sc, &errs);

	ck_assert_msg(n == 0, "%s: %d problems:\n%s", shipped[_i], n, errs.buf);
	ck_assert_uint_eq(errs.len, 0);
	ck_assert_str_eq(sc.path, shipped[_i]);
	assert_roundtrip(&sc);
	scenario_release(&sc);
	strbuf_release(&errs);
}
END_TEST

START_TEST(shipped_present)
{
	struct scenario sc;
	struct strbuf errs = STRBUF_INIT;
	char *def = xasprintf("%s/loopback-failover.ini", SCENARIOS_DIR);
	bool found = false;

	for (size_t i = 0; i < n_shipped; i++)
		found |= !strcmp(shipped[i], def);
	ck_assert_msg(found, "%s is not among the shipped scenarios", def);
	/* The built-in default spells out the option table's defaults, nothing else. */
	struct scenario dflt;
	ck_assert_int_eq(scenario_load(def, &sc, &errs), 0);
	ck_assert_int_eq(parse_str("", &dflt, &errs), 0);
	ck_assert_msg(!scenario_diff(&sc, &dflt), "%s differs from the table default in %s", def,
		      scenario_diff(&sc, &dflt));
	scenario_release(&sc);
	scenario_release(&dflt);
	strbuf_release(&errs);
	free(def);
}
END_TEST

/* The values docs/scenario-reference.md promises for keys left out. */
START_TEST(defaults_documented)
{
	struct strbuf errs = STRBUF_INIT;
	struct scenario sc;

	ck_assert_int_eq(parse_str("", &sc, &errs), 0);
	ck_assert_str_eq(sc.path, "t.ini");
	ck_assert_int_eq(sc.cluster.nodes, 3);
	ck_assert(sc.cluster.memory == 768ULL << 20);
	ck_assert_int_eq(sc.cluster.vcpus, 1);
	ck_assert_int_eq(sc.cluster.accel, ACCEL_AUTO);
	ck_assert_uint_eq(sc.cluster.subnet, 0x0a630000); /* 10.99.0.0 */
	ck_assert(sc.cluster.fencing);
	ck_assert_uint_eq(sc.cluster.token, 0);
	ck_assert_uint_eq(scenario_token_ms(&sc, true), 3000);
	ck_assert_uint_eq(scenario_token_ms(&sc, false), 6000);
	ck_assert_str_eq(sc.kernel.image, "debian");
	ck_assert_str_eq(sc.kernel.initrd, "");
	ck_assert_str_eq(sc.kernel.modules, "");
	ck_assert_str_eq(sc.kernel.cmdline, "");
	ck_assert_uint_eq(sc.kernel.hung_task_timeout, 30000);
	ck_assert_int_eq(sc.nfs.version, NFS_V42);
	ck_assert_int_eq(sc.nfs.threads, 8);
	ck_assert_uint_eq(sc.nfs.grace_time, 10000);
	ck_assert_uint_eq(sc.nfs.lease_time, 10000);
	ck_assert_str_eq(sc.nfs.export_options, "rw,sync,no_root_squash");
	ck_assert_str_eq(sc.nfs.mount_options, "hard");
	ck_assert_int_eq(sc.workload.writers.kind, NODESET_ALL);
	ck_assert(sc.workload.file_size == 256ULL << 20);
	ck_assert_uint_eq(sc.workload.record_size, 65536);
	ck_assert_int_eq(sc.workload.fsync_every, 16);
	ck_assert_int_eq(sc.workload.mode, WRITE_BUFFERED);
	ck_assert_int_eq(sc.pressure.nodes.kind, NODESET_TAKEOVER);
	ck_assert(!sc.pressure.available.is_percent);
	ck_assert(sc.pressure.available.bytes == 48ULL << 20);
	ck_assert_int_eq(sc.pressure.start, PRESSURE_BEFORE);
	ck_assert_uint_eq(sc.pressure.ramp, 10000);
	ck_assert_int_eq(sc.fault.kind, FAULT_DESTROY);
	ck_assert_int_eq(sc.fault.target, TARGET_NFS_SERVER);
	ck_assert_uint_eq(sc.fault.after, 30000);
	ck_assert_int_eq(sc.fault.repeat, 1);
	ck_assert_uint_eq(sc.verdict.steady_time, 20000);
	ck_assert_uint_eq(sc.verdict.takeover_timeout, 120000);
	ck_assert_uint_eq(sc.verdict.observe, 60000);
	ck_assert_uint_eq(sc.verdict.max_stall, 20000);
	ck_assert_uint_eq(sc.verdict.min_rate, 65536);
	/* Nothing came from the file. */
	ck_assert_uint_ge(option_count(), 30);
	for (size_t i = 0; i < option_count(); i++)
		ck_assert_uint_eq(sc.lines[i], 0);
	scenario_release(&sc);
	strbuf_release(&errs);
}
END_TEST

/* Every key away from its default, including paths, percentages and node lists. */
static const char nondefault[] =
	"[cluster]\nnodes = 5\nmemory = 1G\nvcpus = 2\naccel = tcg\nsubnet = 192.168.7.0/24\n"
	"fencing = off\ntoken = 8500ms\n"
	"[kernel]\nimage = loopback-failover.ini\ninitrd = " SCENARIOS_DIR "/loopback-failover.ini\n"
	"modules = .\ncmdline = quiet loglevel=7 slub_debug=FZ\nhung_task_timeout = 0s\n"
	"[nfs]\nversion = 3\nthreads = 64\ngrace_time = 1min\nlease_time = 15s\n"
	"export_options = rw,async,fsid=1\nmount_options = hard,timeo=600,proto=tcp\n"
	"[workload]\nwriters = n5, n1,n3\nfile_size = 1G\nrecord_size = 1M\nfsync_every = 1\n"
	"mode = direct\n"
	"[pressure]\nnodes = none\navailable = 10%\nstart = after\nramp = 1500ms\n"
	"[fault]\nkind = freeze\ntarget = n5\nafter = 90s\nrepeat = 10\n"
	"[verdict]\nsteady_time = 1min\ntakeover_timeout = 5min\nobserve = 2min\nmax_stall = 5s\n"
	"min_rate = 1M/s\n";

START_TEST(roundtrip_nondefault)
{
	struct strbuf errs = STRBUF_INIT;
	struct scenario sc, dflt;
	int n = scenario_parse("nd.ini", nondefault, strlen(nondefault), SCENARIOS_DIR, &sc, &errs);

	ck_assert_msg(n == 0, "%s", errs.buf);
	ck_assert_int_eq(parse_str("", &dflt, &errs), 0);
	/* Relative paths are resolved against the file's directory. */
	ck_assert_str_eq(sc.kernel.image, sc.kernel.initrd);
	ck_assert_str_eq(sc.kernel.image + strlen(sc.kernel.image) - 22, "/loopback-failover.ini");
	ck_assert(sc.kernel.modules[0] == '/');
	ck_assert_uint_eq(sc.workload.writers.mask, 0x15);
	ck_assert(sc.pressure.available.is_percent && sc.pressure.available.percent == 10);
	ck_assert_uint_eq(sc.verdict.min_rate, 1 << 20);
	/* A token set in the file wins over the accelerator's default. */
	ck_assert_uint_eq(scenario_token_ms(&sc, true), 8500);
	ck_assert_uint_eq(scenario_token_ms(&sc, false), 8500);
	ck_assert_uint_eq(sc.lines[0], 2);
	ck_assert_ptr_null(scenario_diff(&sc, &sc));
	ck_assert_ptr_nonnull(scenario_diff(&sc, &dflt));
	assert_roundtrip(&sc);
	scenario_release(&sc);
	scenario_release(&dflt);
	strbuf_release(&errs);
}
END_TEST

START_TEST(roundtrip_defaults)
{
	struct strbuf errs = STRBUF_INIT, text = STRBUF_INIT;
	struct scenario sc;

	ck_assert_int_eq(parse_str("", &sc, &errs), 0);
	assert_roundtrip(&sc);
	/* Empty strings are written as "key =", which must read back as empty. */
	scenario_write(&sc, &text);
	ck_assert(has_line(text.buf, "initrd ="));
	ck_assert(has_line(text.buf, "[verdict]"));
	ck_assert(has_line(text.buf, "min_rate = 64K"));
	scenario_release(&sc);
	strbuf_release(&text);
	strbuf_release(&errs);
}
END_TEST

/* Each key scenario_write() emits is documented in the generated reference. */
START_TEST(reference_lists_every_key)
{
	struct strbuf errs = STRBUF_INIT, text = STRBUF_INIT, md = STRBUF_INIT, plain = STRBUF_INIT;
	struct scenario sc;
	size_t keys = 0;

	ck_assert_int_eq(parse_str("", &sc, &errs), 0);
	scenario_write(&sc, &text);
	scenario_reference(&md, true);
	scenario_reference(&plain, false);
	for (char *line = strtok(text.buf, "\n"); line; line = strtok(NULL, "\n")) {
		char *eq = strstr(line, " =");
		if (line[0] == '#')
			continue;
		if (line[0] == '[') {
			char *want = xasprintf("## %s", line);
			ck_assert_msg(has_line(md.buf, want), "no '%s' in the reference", want);
			free(want);
			continue;
		}
		ck_assert_ptr_nonnull(eq);
		*eq = '\0';
		char *want = xasprintf("| `%s` |", line);
		ck_assert_msg(strstr(md.buf, want), "key %s missing from the Markdown reference", line);
		free(want);
		want = xasprintf("  %s ", line);
		ck_assert_msg(strstr(plain.buf, want), "key %s missing from the plain reference", line);
		free(want);
		keys++;
	}
	ck_assert_uint_eq(keys, option_count());
	ck_assert(!strncmp(md.buf, "# Scenario reference\n", 21));
	scenario_release(&sc);
	strbuf_release(&errs);
	strbuf_release(&text);
	strbuf_release(&md);
	strbuf_release(&plain);
}
END_TEST

/* ---- bad fixtures ---- */

/* "# expect: 12: TEXT" -> "PATH:12: TEXT"; only the leading comment block counts. */
static size_t read_expectations(const char *path, const char *text, char **exp)
{
	size_t n = 0;

	for (const char *p = text; *p == '#'; p = strchr(p, '\n') + 1) {
		const char *nl = strchr(p, '\n');
		unsigned long line;
		char *end;

		ck_assert_msg(nl, "%s: header comment without a newline", path);
		if (strncmp(p, "# expect: ", 10))
			continue;
		char num[16];
		uint64_t v;
		const char *why;
		end = (char *)p + 10 + strspn(p + 10, "0123456789");
		snprintf(num, sizeof(num), "%.*s", (int)(end - (p + 10)), p + 10);
		ck_assert_msg(parse_uint(num, &v, &why) == 0 && !strncmp(end, ": ", 2),
			      "%s: malformed expect line '%.*s'", path, (int)(nl - p), p);
		line = (unsigned long)v;
		ck_assert_msg(n < MAX_EXPECT, "%s: too many expect lines", path);
		exp[n++] = xasprintf("%s:%lu: %.*s", path, line, (int)(nl - end - 2), end + 2);
	}
	return n;
}

START_TEST(bad_fixture)
{
	const char *path = fixtures[_i];
	struct strbuf text = STRBUF_INIT, errs = STRBUF_INIT;
	char *exp[MAX_EXPECT];
	struct scenario sc;
	size_t nexp;
	int n;

	ck_assert_int_eq(strbuf_read_file(&text, path, SCENARIO_MAX_FILE), 0);
	nexp = read_expectations(path, text.buf, exp);
	ck_assert_msg(nexp > 0, "%s: no '# expect: LINE: TEXT' header", path);
	n = scenario_load(path, &sc, &errs);
	for (size_t i = 0; i < nexp; i++)
		ck_assert_msg(has_line(errs.buf, exp[i]), "expected\n  %s\ngot\n%s", exp[i], errs.buf);
	ck_assert_msg(count_lines(errs.buf) == nexp, "%s: %zu expected problems, got\n%s", path, nexp,
		      errs.buf);
	ck_assert_int_eq(n, (int)nexp);
	assert_released(&sc);
	for (size_t i = 0; i < nexp; i++)
		free(exp[i]);
	strbuf_release(&text);
	strbuf_release(&errs);
}
END_TEST

START_TEST(enough_fixtures)
{
	ck_assert_msg(n_fixtures >= 24, "only %zu bad fixtures in %s/bad", n_fixtures, FIXTURES_DIR);
}
END_TEST

/* ---- generated input: empty, garbage, NULs, huge, unreadable ---- */

START_TEST(empty_input)
{
	static const char *const valid[] = {
		"",
		"\n\n\n",
		"# only a comment",
		"; another comment style\n   \t\n",
		"[cluster]\n[kernel]\n[nfs]\n[workload]\n[pressure]\n[fault]\n[verdict]\n",
		"[cluster]\nnodes = 4", /* no newline at the end */
		"[cluster]\nnodes = 4 # four\nvcpus=2 ; two\n",
		"  [ cluster ]  \n\tnodes\t=\t4\t\n",
	};
	struct strbuf errs = STRBUF_INIT;
	struct scenario sc;

	for (size_t i = 0; i < ARRAY_SIZE(valid); i++) {
		ck_assert_msg(parse_str(valid[i], &sc, &errs) == 0, "'%s':\n%s", valid[i], errs.buf);
		scenario_release(&sc);
	}
	/* A NULL buffer of length 0 is an empty file too. */
	ck_assert_int_eq(scenario_parse("null", NULL, 0, NULL, &sc, &errs), 0);
	ck_assert_int_eq(sc.cluster.nodes, 3);
	scenario_release(&sc);
	ck_assert_uint_eq(errs.len, 0);
	strbuf_release(&errs);
}
END_TEST

START_TEST(empty_file)
{
	struct strbuf errs = STRBUF_INIT;
	struct scenario sc, dflt;
	char *path = temp_file("", 0);

	ck_assert_int_eq(scenario_load(path, &sc, &errs), 0);
	ck_assert_int_eq(parse_str("", &dflt, &errs), 0);
	ck_assert_ptr_null(scenario_diff(&sc, &dflt));
	ck_assert_str_eq(sc.path, path);
	scenario_release(&sc);
	scenario_release(&dflt);
	unlink(path);
	free(path);
	strbuf_release(&errs);
}
END_TEST

/* xorshift64: reproducible garbage without depending on libc's rand(). */
static uint64_t next_rand(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static void garbage(char *buf, size_t len, uint64_t seed, const char *alphabet)
{
	size_t na = alphabet ? strlen(alphabet) : 256;

	for (size_t i = 0; i < len; i++) {
		uint64_t r = next_rand(&seed);
		buf[i] = alphabet ? alphabet[r % na] : (char)(r & 0xff);
	}
}

START_TEST(binary_garbage)
{
	static const char *const alphabets[] = {
		NULL, /* every byte value */
		"[]=#;\n\r\t %/.,abcdefghijklmnopqrstuvwxyz0123456789KMGTs",
		"[]= \nclusternodesmemorykernelimagefault0123456789",
	};
	size_t len = 64 * 1024;
	char *buf = xmalloc(len);
	struct strbuf errs = STRBUF_INIT;
	struct scenario sc;

	for (uint64_t seed = 1; seed <= 8; seed++) {
		garbage(buf, len, seed * 0x9e3779b97f4a7c15ULL, alphabets[_i]);
		int n = scenario_parse("garbage", buf, len, "/nonexistent", &sc, &errs);
		ck_assert_msg(n > 0, "garbage with seed %llu parsed cleanly", (unsigned long long)seed);
		assert_error_shape("garbage", n, &errs);
		assert_released(&sc);
		strbuf_reset(&errs);
	}
	free(buf);
	strbuf_release(&errs);
}
END_TEST

START_TEST(nul_bytes)
{
	static const char text[] = "[cluster]\nnodes = 3\0junk\n#\0\nvcpus = 2\n\0";
	struct strbuf errs = STRBUF_INIT;
	struct scenario sc;
	char zeros[100] = { 0 };
	int n;

	n = scenario_parse("t.ini", text, sizeof(text) - 1, NULL, &sc, &errs);
	ck_assert_msg(n == 3, "%s", errs.buf);
	ck_assert(has_line(errs.buf, "t.ini:2: NUL byte in line"));
	ck_assert(has_line(errs.buf, "t.ini:3: NUL byte in line"));
	ck_assert(has_line(errs.buf, "t.ini:5: NUL byte in line"));
	assert_released(&sc);
	strbuf_reset(&errs);
	ck_assert_int_eq(scenario_parse("z", zeros, sizeof(zeros), NULL, &sc, &errs), 1);
	ck_assert_str_eq(errs.buf, "z:1: NUL byte in line\n");
	strbuf_release(&errs);
}
END_TEST

/* LF -> CRLF copy of a file's text. */
static void to_crlf(const char *lf, struct strbuf *out)
{
	for (const char *p = lf; *p; p++) {
		if (*p == '\n')
			strbuf_addch(out, '\r');
		strbuf_addch(out, *p);
	}
}

START_TEST(crlf_line_endings)
{
	struct strbuf lf = STRBUF_INIT, crlf = STRBUF_INIT, errs = STRBUF_INIT;
	struct scenario a, b;
	char *def = xasprintf("%s/loopback-failover.ini", SCENARIOS_DIR);

	ck_assert_int_eq(strbuf_read_file(&lf, def, SCENARIO_MAX_FILE), 0);
	to_crlf(lf.buf, &crlf);
	ck_assert_int_eq(scenario_parse("lf", lf.buf, lf.len, NULL, &a, &errs), 0);
	ck_assert_msg(scenario_parse("crlf", crlf.buf, crlf.len, NULL, &b, &errs) == 0, "%s", errs.buf);
	ck_assert_ptr_null(scenario_diff(&a, &b));
	scenario_release(&a);
	scenario_release(&b);
	/* Errors in a CRLF file: right line numbers, no stray CR in the message. */
	strbuf_reset(&crlf);
	to_crlf("# x\n[cluster]\nvcpus = 99\naccel = kvn\n", &crlf);
	ck_assert_int_eq(scenario_parse("c", crlf.buf, crlf.len, NULL, &a, &errs), 2);
	ck_assert_str_eq(errs.buf, "c:3: [cluster] vcpus: out of range (1..16)\n"
				   "c:4: [cluster] accel: 'kvn' is not one of auto, kvm, tcg "
				   "(did you mean 'kvm'?)\n");
	free(def);
	strbuf_release(&lf);
	strbuf_release(&crlf);
	strbuf_release(&errs);
}
END_TEST

/* A buffer of n-1 bytes of c and a newline, for line-length limits. */
static char *line_of(size_t n, char c)
{
	char *s = xmalloc(n + 1);

	memset(s, c, n);
	s[0] = '#';
	s[n - 1] = '\n';
	s[n] = '\0';
	return s;
}

START_TEST(line_length_limit)
{
	struct strbuf errs = STRBUF_INIT, text = STRBUF_INIT;
	struct scenario sc;
	char *ok = line_of(SCENARIO_MAX_LINE + 1, 'x');
	char *over = line_of(SCENARIO_MAX_LINE + 2, 'x');

	ck_assert_msg(parse_str(ok, &sc, &errs) == 0, "%s", errs.buf);
	scenario_release(&sc);
	/* The CR of a CRLF ending does not count towards the limit. */
	strbuf_add(&text, ok, SCENARIO_MAX_LINE);
	strbuf_addstr(&text, "\r\n");
	ck_assert_msg(parse_str(text.buf, &sc, &errs) == 0, "%s", errs.buf);
	scenario_release(&sc);
	ck_assert_int_eq(parse_str(over, &sc, &errs), 1);
	ck_assert_str_eq(errs.buf, "t.ini:1: line too long (4097 bytes, at most 4096)\n");
	free(ok);
	free(over);
	strbuf_release(&text);
	strbuf_release(&errs);
}
END_TEST

/* A 1 MB line in a file is one error, and the lines after it are still checked. */
START_TEST(megabyte_line)
{
	struct strbuf text = STRBUF_INIT, errs = STRBUF_INIT, want = STRBUF_INIT;
	struct scenario sc;
	char *path;

	strbuf_grow(&text, 1000000 + 64);
	for (size_t i = 0; i < 1000000; i++)
		strbuf_addch(&text, "k=v "[i % 4]);
	strbuf_addstr(&text, "\n[cluster]\nnodes = 99\n");
	path = temp_file(text.buf, text.len);
	ck_assert_int_eq(scenario_load(path, &sc, &errs), 2);
	strbuf_addf(&want, "%s:1: line too long (1000000 bytes, at most 4096)\n"
			   "%s:3: [cluster] nodes: out of range (2..8)\n", path, path);
	ck_assert_str_eq(errs.buf, want.buf);
	unlink(path);
	free(path);
	strbuf_release(&text);
	strbuf_release(&errs);
	strbuf_release(&want);
}
END_TEST

START_TEST(file_size_limit)
{
	struct strbuf errs = STRBUF_INIT, want = STRBUF_INIT;
	struct scenario sc;
	char *buf = xmalloc(SCENARIO_MAX_FILE + 1);
	char *path;

	/* Exactly the limit, as valid comment lines: accepted. */
	for (size_t i = 0; i < SCENARIO_MAX_FILE; i++)
		buf[i] = i % 64 == 63 ? '\n' : '#';
	path = temp_file(buf, SCENARIO_MAX_FILE);
	ck_assert_msg(scenario_load(path, &sc, &errs) == 0, "%s", errs.buf);
	scenario_release(&sc);
	unlink(path);
	free(path);
	/* One byte more: refused before parsing. */
	buf[SCENARIO_MAX_FILE] = '\n';
	path = temp_file(buf, SCENARIO_MAX_FILE + 1);
	ck_assert_int_eq(scenario_load(path, &sc, &errs), 1);
	strbuf_addf(&want, "%s:0: file too large (at most 1048576 bytes)\n", path);
	ck_assert_str_eq(errs.buf, want.buf);
	assert_released(&sc);
	unlink(path);
	free(path);
	free(buf);
	strbuf_release(&errs);
	strbuf_release(&want);
}
END_TEST

START_TEST(unreadable_paths)
{
	struct strbuf errs = STRBUF_INIT, want = STRBUF_INIT;
	struct scenario sc;

	ck_assert_int_eq(scenario_load("/nonexistent/x.ini", &sc, &errs), 1);
	ck_assert_str_eq(errs.buf, "/nonexistent/x.ini:0: cannot read: No such file or directory\n");
	assert_released(&sc);
	strbuf_reset(&errs);
	ck_assert_int_eq(scenario_load(SCENARIOS_DIR, &sc, &errs), 1);
	strbuf_addf(&want, "%s:0: cannot read: Is a directory\n", SCENARIOS_DIR);
	ck_assert_str_eq(errs.buf, want.buf);
	strbuf_reset(&errs);
	ck_assert_int_eq(scenario_load("", &sc, &errs), 1);
	ck_assert_str_eq(errs.buf, ":0: cannot read: No such file or directory\n");
	strbuf_release(&errs);
	strbuf_release(&want);
}
END_TEST

START_TEST(unreadable_permissions)
{
	struct strbuf errs = STRBUF_INIT, want = STRBUF_INIT;
	struct scenario sc;
	char *path = temp_file("[cluster]\n", 10);

	ck_assert_int_eq(chmod(path, 0), 0);
	if (access(path, R_OK) == 0) {
		/* root (or CAP_DAC_OVERRIDE) reads it anyway; nothing to test. */
		ck_assert_int_eq(scenario_load(path, &sc, &errs), 0);
		scenario_release(&sc);
	} else {
		ck_assert_int_eq(scenario_load(path, &sc, &errs), 1);
		strbuf_addf(&want, "%s:0: cannot read: Permission denied\n", path);
		ck_assert_str_eq(errs.buf, want.buf);
	}
	unlink(path);
	free(path);
	strbuf_release(&errs);
	strbuf_release(&want);
}
END_TEST

static void bad_lines(struct strbuf *text, int n)
{
	for (int i = 0; i < n; i++)
		strbuf_addf(text, "bad line %d\n", i + 1);
}

START_TEST(too_many_problems)
{
	struct strbuf text = STRBUF_INIT, errs = STRBUF_INIT, want = STRBUF_INIT;
	struct scenario sc;
	int n;

	/* Exactly the cap: every problem is listed, no "too many". */
	bad_lines(&text, SCENARIO_MAX_ERRORS);
	n = parse_str(text.buf, &sc, &errs);
	ck_assert_int_eq(n, SCENARIO_MAX_ERRORS);
	assert_error_shape("t.ini", n, &errs);
	ck_assert(has_line(errs.buf, "t.ini:50: expected 'key = value', '[section]' or a comment"));
	ck_assert_ptr_null(strstr(errs.buf, "too many"));
	/* Over the cap: the first SCENARIO_MAX_ERRORS and one line saying where it stopped. */
	strbuf_reset(&text);
	strbuf_reset(&errs);
	bad_lines(&text, 1000);
	n = parse_str(text.buf, &sc, &errs);
	ck_assert_int_gt(n, SCENARIO_MAX_ERRORS);
	assert_error_shape("t.ini", n, &errs);
	ck_assert(has_line(errs.buf, "t.ini:50: expected 'key = value', '[section]' or a comment"));
	strbuf_addf(&want, "t.ini:%d: too many problems, stopping here\n", SCENARIO_MAX_ERRORS + 1);
	ck_assert_str_eq(errs.buf + errs.len - want.len, want.buf);
	assert_released(&sc);
	strbuf_release(&text);
	strbuf_release(&errs);
	strbuf_release(&want);
}
END_TEST

/* Value syntax the fixtures do not pin down. */
START_TEST(value_edges)
{
	static const struct { const char *text; const char *err; } c[] = {
		{ "[cluster]\nnodes = 4#four\n", "t.ini:2: [cluster] nodes: '4#four': trailing characters after the number" },
		{ "[cluster]\nnodes =\n", "t.ini:2: [cluster] nodes: '': empty value" },
		{ "[cluster]\n= 4\n", "t.ini:2: '': not a valid key name" },
		{ "[cluster]\nNodes = 4\n", "t.ini:2: 'Nodes': not a valid key name" },
		{ "[]\n", "t.ini:1: []: unknown section" },
		{ "[cluster]]\n", "t.ini:1: text after the section header" },
		{ "[nfs]\nversion = 4\n", "t.ini:2: [nfs] version: '4' is not one of 3, 4.0, 4.1, 4.2" },
		{ "[workload]\nwriters = none\n", "t.ini:2: [workload] writers: 'none' is not a node name (n1..n8), all or takeover" },
		{ "[workload]\nwriters = n1,n1\n", "t.ini:2: [workload] writers: node 'n1' listed twice" },
		{ "[workload]\nwriters = ,\n", "t.ini:2: [workload] writers: empty node list" },
		{ "[pressure]\nnodes = n09\n", "t.ini:2: [pressure] nodes: 'n09' is not a node name (n1..n8), none, all or takeover" },
		{ "[fault]\ntarget = n0\n", "t.ini:2: [fault] target: 'n0' is neither nfs-server nor a node name (n1..n8)" },
		{ "[cluster]\nsubnet = 10.99.0/24\n", "t.ini:2: [cluster] subnet: '10.99.0/24': not an IPv4 address" },
		{ "[cluster]\nsubnet = 172.32.0.0/24\n", "t.ini:2: [cluster] subnet: '172.32.0.0/24': must be a private range (10/8, 172.16/12, 192.168/16)" },
		{ "[workload]\nrecord_size = 6K\n", "t.ini:2: [workload] record_size: '6K': must be a multiple of 4K" },
		{ "[nfs]\nmount_options = hard,,intr\n", "t.ini:2: [nfs] mount_options: 'hard,,intr': not a comma-separated option list" },
		{ "[kernel]\ncmdline = a\\b\n", "t.ini:2: [kernel] cmdline: quotes, backslashes and control characters are not allowed" },
	};
	struct strbuf errs = STRBUF_INIT, want = STRBUF_INIT;
	struct scenario sc;

	for (size_t i = 0; i < ARRAY_SIZE(c); i++) {
		strbuf_reset(&errs);
		strbuf_reset(&want);
		strbuf_addf(&want, "%s\n", c[i].err);
		ck_assert_msg(parse_str(c[i].text, &sc, &errs) == 1, "'%s': %s", c[i].text, errs.buf);
		ck_assert_str_eq(errs.buf, want.buf);
	}
	strbuf_release(&errs);
	strbuf_release(&want);
}
END_TEST

START_TEST(cmdline_length)
{
	struct strbuf text = STRBUF_INIT, errs = STRBUF_INIT;
	struct scenario sc;

	strbuf_addstr(&text, "[kernel]\ncmdline = ");
	for (int i = 0; i < 1024; i++)
		strbuf_addch(&text, 'a');
	ck_assert_msg(parse_str(text.buf, &sc, &errs) == 0, "%s", errs.buf);
	ck_assert_uint_eq(strlen(sc.kernel.cmdline), 1024);
	scenario_release(&sc);
	strbuf_addch(&text, 'a');
	ck_assert_int_eq(parse_str(text.buf, &sc, &errs), 1);
	ck_assert_str_eq(errs.buf, "t.ini:2: [kernel] cmdline: longer than 1024 characters\n");
	strbuf_release(&text);
	strbuf_release(&errs);
}
END_TEST

/* Every [fault] kind a scenario may name has its plug-in, and each name parses to its kind. */
START_TEST(every_fault_kind_has_plugin)
{
	for (int k = 0; k < FAULT_N; k++) {
		const struct fault *f = fault_for(k);
		struct scenario sc;
		struct strbuf src = STRBUF_INIT, errs = STRBUF_INIT;

		ck_assert_msg(f && f->inject, "fault kind %d (%s) has no plug-in", k, fault_kind_name(k));
		strbuf_addf(&src, "[fault]\nkind = %s\n", fault_kind_name(k));
		ck_assert_msg(scenario_parse("kinds.ini", src.buf, src.len, "/nonexistent", &sc, &errs) == 0, "%s", errs.buf);
		ck_assert_int_eq(sc.fault.kind, k);
		scenario_release(&sc);
		strbuf_release(&src);
		strbuf_release(&errs);
	}
	ck_assert_ptr_null(fault_for(FAULT_N));
}
END_TEST

static Suite *scenario_suite(void)
{
	Suite *s = suite_create("scenario");
	TCase *ship = tcase_create("shipped");
	TCase *bad = tcase_create("fixtures");
	TCase *hostile = tcase_create("hostile");

	tcase_add_loop_test(ship, shipped_parse, 0, (int)n_shipped);
	tcase_add_test(ship, shipped_present);
	tcase_add_test(ship, every_fault_kind_has_plugin);
	tcase_add_test(ship, defaults_documented);
	tcase_add_test(ship, roundtrip_defaults);
	tcase_add_test(ship, roundtrip_nondefault);
	tcase_add_test(ship, reference_lists_every_key);
	tcase_add_test(bad, enough_fixtures);
	tcase_add_loop_test(bad, bad_fixture, 0, (int)n_fixtures);
	tcase_add_test(bad, value_edges);
	tcase_add_test(bad, cmdline_length);
	tcase_add_test(hostile, empty_input);
	tcase_add_test(hostile, empty_file);
	tcase_add_loop_test(hostile, binary_garbage, 0, 3);
	tcase_add_test(hostile, nul_bytes);
	tcase_add_test(hostile, crlf_line_endings);
	tcase_add_test(hostile, line_length_limit);
	tcase_add_test(hostile, megabyte_line);
	tcase_add_test(hostile, file_size_limit);
	tcase_add_test(hostile, unreadable_paths);
	tcase_add_test(hostile, unreadable_permissions);
	tcase_add_test(hostile, too_many_problems);
	/* Check's default is 4 s; a sanitized build on a loaded CI runner can need more. */
	tcase_set_timeout(ship, 30);
	tcase_set_timeout(bad, 30);
	tcase_set_timeout(hostile, 60);
	suite_add_tcase(s, ship);
	suite_add_tcase(s, bad);
	suite_add_tcase(s, hostile);
	return s;
}

int main(void)
{
	char *dir = xasprintf("%s/bad", FIXTURES_DIR);
	SRunner *sr;
	int failed;

	shipped = list_ini(SCENARIOS_DIR, &n_shipped);
	fixtures = list_ini(dir, &n_fixtures);
	sr = srunner_create(scenario_suite());
	srunner_set_fork_status(sr, CK_FORK);
	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	free_list(shipped);
	free_list(fixtures);
	free(dir);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
