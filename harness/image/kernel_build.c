// SPDX-License-Identifier: GPL-2.0-only
/*
 * `takeover kernel build`: a guest kernel from Debian's linux-source package
 * or any git tree, with a patch series applied in order and config fragments
 * merged onto defconfig + kvm_guest.config, cached under CACHE/kernels/<key>
 * where key hashes (source, patches, fragments, variant). Like the image
 * cache, the build happens in a temporary directory renamed into place.
 */
#include "image/kernel.h"

#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "image/image.h"
#include "util/cleanup.h"
#include "util/paths.h"
#include "util/fs.h"
#include "util/log.h"
#include "util/sha256.h"
#include "util/spawn.h"
#include "util/units.h"
#include "util/xalloc.h"

#define KBUILD_RECIPE_VERSION 1
#define KBUILD_TIMEOUT_MS (4ULL * 3600 * 1000)
#define KBUILD_SPACE (6ULL << 30)

/* What a kernel build needs on the host, as Debian packages. */
static const struct {
	const char *path;
	const char *package;
} build_deps[] = {
	{ "/usr/bin/make", "make" },         { "/usr/bin/gcc", "gcc" },
	{ "/usr/bin/bc", "bc" },             { "/usr/bin/bison", "bison" },
	{ "/usr/bin/flex", "flex" },         { "/usr/include/libelf.h", "libelf-dev" },
	{ "/usr/include/openssl/opensslv.h", "libssl-dev" }, { "/usr/bin/patch", "patch" },
	{ "/usr/bin/pahole", "dwarves" },    { "/usr/bin/cpio", "cpio" },
	{ "/usr/bin/xz", "xz-utils" },       { "/usr/bin/rsync", "rsync" },
	/* modules_install skips depmod, with only a warning, when there is none */
	{ "/sbin/depmod", "kmod" },
};

/*
 * What differs between kernel versions: one fragment per range of versions,
 * merged right after takeover.config and checked like it. The choice is made
 * here, once, from VERSION and PATCHLEVEL in the source's own Makefile (after
 * the patches: a series may bump them), and not by a check that tolerates
 * options a tree does not define: Kconfig drops an unknown symbol without a
 * word, so a tolerant check could not tell "this version has no such option"
 * from "renamed again: the vmcore path is gone". With ranges, every line of
 * every chosen fragment must stick, and the first build of a version that
 * renames something again fails the check naming the option. Ranges are
 * inclusive, KV(major, minor); the table and the fragments are in the cache
 * key (compute_key).
 */
#define KV(v, p) ((v) * 1000u + (p))
#define KV_MAX UINT_MAX

static const struct {
	unsigned from, to;
	const char *name;
} version_fragments[] = {
	/* 6.9 split CRASH_CORE: VMCOREINFO is VMCORE_INFO, crashkernel= CRASH_RESERVE */
	{ 0, KV(6, 8), "takeover-before-6.9.config" },
	{ KV(6, 9), KV_MAX, "takeover-since-6.9.config" },
	/* NFS LOCALIO (client and server in one kernel bypass RPC) is new in 6.12 */
	{ KV(6, 12), KV_MAX, "takeover-since-6.12.config" },
};

struct kb {
	const struct kernel_build_opts *o;
	char *work, *src, *out, *log;
	const char *obj;           /* where .config and the objects go: src, or make O= */
	unsigned version, patchlevel;
	char **frags;              /* the fragments merged (kernel_config_fragments) */
	int nfrags;
	int unstuck;               /* options the config check reported */
	uint64_t start;
	char phase[96];
};

static void phase(struct kb *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void phase(struct kb *b, const char *fmt, ...)
{
	va_list ap;
	FILE *f;

	va_start(ap, fmt);
	vsnprintf(b->phase, sizeof(b->phase), fmt, ap);
	va_end(ap);
	if (!b->o->quiet)
		log_info("kernel: %s (%llus)", b->phase, (unsigned long long)((now_ms() - b->start) / 1000));
	f = fopen(b->log, "ae");
	if (f) {
		fprintf(f, "\n== %s\n", b->phase);
		fclose(f);
	}
}

static void tick(void *ctx)
{
	struct kb *b = ctx;

	if (!b->o->quiet)
		progress_update("kernel: %s (%llus)", b->phase, (unsigned long long)((now_ms() - b->start) / 1000));
}

/* Runs argv with its output appended to the build log; logs the last line on failure. */
static int run_logged(struct kb *b, const char *const *argv, const char *what)
{
	struct spawn_opts so = { .argv = argv, .out = SPAWN_FILE, .err = SPAWN_FILE, .log_path = b->log,
				 .timeout_ms = KBUILD_TIMEOUT_MS, .on_tick = tick, .ctx = b };
	struct spawn_result res;
	int r = spawn_run(&so, &res);

	progress_done();
	if (r < 0)
		log_error("kernel: cannot run %s: %s", argv[0], strerror(-r));
	else if (res.cancelled)
		r = -EINTR;
	else if (res.timed_out || res.exit_code) {
		char last[512] = "";
		struct strbuf sb = STRBUF_INIT;
		if (strbuf_read_file(&sb, b->log, 64 << 20) == 0) {
			strbuf_rtrim(&sb);
			const char *nl = strrchr(sb.buf, '\n');
			snprintf(last, sizeof(last), "%s", nl ? nl + 1 : sb.buf);
		}
		strbuf_release(&sb);
		log_error("kernel: %s failed%s: %s (log: %s)", what, res.timed_out ? " (deadline)" : "",
			  last, b->log);
		r = -EIO;
	}
	spawn_result_release(&res);
	return r;
}

static int install_deps(const char *source)
{
	struct strbuf missing = STRBUF_INIT;
	char pkg[64];
	int r = 0;

	for (size_t i = 0; i < sizeof(build_deps) / sizeof(build_deps[0]); i++)
		if (access(build_deps[i].path, F_OK) < 0)
			strbuf_addf(&missing, " %s", build_deps[i].package);
	if (!strncmp(source, "debian-", 7)) {
		char *tar = xasprintf("/usr/src/linux-source-%s.tar.xz", source + 7);
		snprintf(pkg, sizeof(pkg), "linux-source-%s", source + 7);
		if (access(tar, R_OK) < 0)
			strbuf_addf(&missing, " %s", pkg);
		free(tar);
	}
	if (missing.len) {
		log_info("kernel: installing build dependencies:%s", missing.buf);
		struct strbuf cmd = STRBUF_INIT, out = STRBUF_INIT;
		const char *upd[] = { "apt-get", "update", "-q", NULL };
		spawn_simple(upd, 600000, NULL);
		/* apt-get takes the packages as separate words */
		const char *argv[32] = { "apt-get", "install", "-y", "-q", "--no-install-recommends" };
		int n = 5;
		char *copy = xstrdup(missing.buf), *save = NULL;
		for (char *w = strtok_r(copy, " ", &save); w && n < 31; w = strtok_r(NULL, " ", &save))
			argv[n++] = w;
		argv[n] = NULL;
		r = spawn_simple(argv, 1800000, &out);
		if (r < 0) {
			strbuf_rtrim(&out);
			log_error("kernel: cannot install%s: %s", missing.buf, out.buf);
		}
		free(copy);
		strbuf_release(&cmd);
		strbuf_release(&out);
	}
	strbuf_release(&missing);
	return r;
}

/* "series" file order, comments and blank lines skipped. */
static int read_series(const char *dir, char ***names, int *n)
{
	char *path = xasprintf("%s/series", dir);
	struct strbuf sb = STRBUF_INIT;
	int r = strbuf_read_file(&sb, path, 1 << 20);

	*names = NULL;
	*n = 0;
	if (r < 0) {
		log_error("%s: cannot read: %s", path, strerror(-r));
		free(path);
		strbuf_release(&sb);
		return r;
	}
	for (char *save = NULL, *l = strtok_r(sb.buf, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		while (*l == ' ' || *l == '\t')
			l++;
		if (!*l || *l == '#')
			continue;
		l[strcspn(l, " \t#")] = '\0';
		*names = xrealloc(*names, (size_t)(*n + 1) * sizeof(**names));
		(*names)[(*n)++] = xstrdup(l);
	}
	free(path);
	strbuf_release(&sb);
	return 0;
}

static void free_names(char **names, int n)
{
	for (int i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

/* One of the fragments shipped in images/kernel/ (never a file of that name in the working directory). */
static char *builtin_fragment(const char *name)
{
	return xasprintf("%s/images/kernel/%s", takeover_datadir(), name);
}

int kernel_source_version(const char *src, unsigned *version, unsigned *patchlevel)
{
	static const char *const keys[] = { "VERSION", "PATCHLEVEL" };
	_cleanup_free_ char *path = xasprintf("%s/Makefile", src);
	_cleanup_strbuf_ struct strbuf sb = STRBUF_INIT;
	uint64_t val[2];
	bool found[2] = { false, false };
	int r = strbuf_read_file(&sb, path, 4 << 20), lineno = 0;
	char *l, *next;

	if (r < 0) {
		log_error("%s: cannot read: %s (not a kernel source tree?)", path, strerror(-r));
		return r;
	}
	/* "VERSION = 6": the first assignment of each counts (they open the file). */
	for (l = sb.buf; *l && !(found[0] && found[1]); l = next) {
		next = l + strcspn(l, "\n");
		if (*next)
			*next++ = '\0';
		lineno++;
		for (int k = 0; k < 2; k++) {
			size_t n = strlen(keys[k]);
			const char *why = "above 999";
			char *v = l + n;
			if (found[k] || strncmp(l, keys[k], n) || (*v != ' ' && *v != '\t' && *v != '='))
				continue;
			v += strspn(v, " \t");
			if (*v++ != '=')
				continue;
			v += strspn(v, " \t");
			v[strcspn(v, " \t\r#")] = '\0';
			if (parse_uint(v, &val[k], &why) < 0 || val[k] > 999) {
				log_error("%s:%d: %s: '%s' is not a version number (%s)", path, lineno, keys[k], v, why);
				return -EINVAL;
			}
			found[k] = true;
		}
	}
	for (int k = 0; k < 2; k++)
		if (!found[k]) {
			log_error("%s: no '%s =' line (not a kernel source tree?)", path, keys[k]);
			return -EINVAL;
		}
	*version = (unsigned)val[0];
	*patchlevel = (unsigned)val[1];
	return 0;
}

int kernel_config_fragments(const struct kernel_build_opts *o, unsigned version, unsigned patchlevel,
			    char ***paths)
{
	size_t max = 2 + sizeof(version_fragments) / sizeof(version_fragments[0]) + (size_t)o->nfragments;
	char **p = xcalloc(max, sizeof(*p));
	unsigned kv = KV(version, patchlevel);
	int n = 0;

	p[n++] = builtin_fragment("takeover.config");
	for (size_t i = 0; i < sizeof(version_fragments) / sizeof(version_fragments[0]); i++)
		if (kv >= version_fragments[i].from && kv <= version_fragments[i].to)
			p[n++] = builtin_fragment(version_fragments[i].name);
	if (o->debug)
		p[n++] = builtin_fragment("debug.config");
	for (int i = 0; i < o->nfragments; i++)
		p[n++] = xstrdup(o->fragments[i]);
	*paths = p;
	return n;
}

/* The key: everything that decides what comes out. */
static int compute_key(const struct kernel_build_opts *o, char key[17])
{
	struct sha256 h;
	char buf[512];
	int r = 0;

	sha256_init(&h);
	snprintf(buf, sizeof(buf), "kbuild-v%d debug=%d source=%s", KBUILD_RECIPE_VERSION, o->debug, o->source);
	sha256_update(&h, buf, strlen(buf) + 1);
	if (!strncmp(o->source, "debian-", 7)) {
		char *tar = xasprintf("/usr/src/linux-source-%s.tar.xz", o->source + 7);
		struct stat st;
		if (stat(tar, &st) == 0) {
			snprintf(buf, sizeof(buf), "%lld %lld", (long long)st.st_size, (long long)st.st_mtime);
			sha256_update(&h, buf, strlen(buf) + 1);
		}
		free(tar);
	} else {
		const char *head[] = { "git", "-C", o->source, "rev-parse", "HEAD", NULL };
		const char *diff[] = { "git", "-C", o->source, "diff", "HEAD", NULL };
		struct strbuf out = STRBUF_INIT;
		r = spawn_simple(head, 60000, &out);
		if (!r)
			r = spawn_simple(diff, 300000, &out);
		if (r < 0)
			log_error("%s: not a git tree (a source directory must be a git checkout)", o->source);
		sha256_update(&h, out.buf, out.len);
		strbuf_release(&out);
	}
	if (!r && o->patches) {
		char **names;
		int n;
		r = read_series(o->patches, &names, &n);
		for (int i = 0; i < n && !r; i++) {
			char *p = xasprintf("%s/%s", o->patches, names[i]);
			sha256_update(&h, names[i], strlen(names[i]) + 1);
			r = sha256_file(&h, p);
			if (r < 0)
				log_error("%s: %s", p, strerror(-r));
			free(p);
		}
		if (!r)
			free_names(names, n);
	}
	/*
	 * The version is known only once the source is unpacked, so every
	 * version's fragment is hashed, with its range: editing the table or any
	 * of them invalidates every build, which is simpler than right-sizing it.
	 */
	for (size_t i = 0; i < sizeof(version_fragments) / sizeof(version_fragments[0]) && !r; i++) {
		_cleanup_free_ char *p = builtin_fragment(version_fragments[i].name);
		snprintf(buf, sizeof(buf), "%u-%u %s", version_fragments[i].from, version_fragments[i].to,
			 version_fragments[i].name);
		sha256_update(&h, buf, strlen(buf) + 1);
		r = sha256_file(&h, p);
		if (r < 0)
			log_error("config fragment %s: %s", p, strerror(-r));
	}
	for (int i = 0; i < o->nfragments + 2 && !r; i++) {
		const char *name = i == 0 ? "takeover.config" : i == 1 ? (o->debug ? "debug.config" : NULL)
								       : o->fragments[i - 2];
		if (!name)
			continue;
		_cleanup_free_ char *p = i < 2 ? builtin_fragment(name) : xstrdup(name);
		r = sha256_file(&h, p);
		if (r < 0)
			log_error("config fragment %s: %s", p, strerror(-r));
	}
	if (r < 0)
		return r;
	sha256_key16(&h, key);
	return 0;
}

static int unpack(struct kb *b)
{
	const struct kernel_build_opts *o = b->o;

	if (!strncmp(o->source, "debian-", 7)) {
		char *tar = xasprintf("/usr/src/linux-source-%s.tar.xz", o->source + 7);
		const char *argv[] = { "tar", "-xf", tar, "-C", b->src, "--strip-components=1", NULL };
		phase(b, "unpacking linux-source-%s", o->source + 7);
		int r = run_logged(b, argv, "unpacking the source");
		free(tar);
		return r;
	}
	/* A clean copy of HEAD plus the tree's uncommitted changes: the user's tree is never touched. */
	phase(b, "copying %s (git HEAD + local changes)", o->source);
	char *script = xasprintf("set -e; git -C \"$1\" archive HEAD | tar -x -C \"$2\"; "
				 "git -C \"$1\" diff HEAD > \"$2/.local.diff\"; "
				 "[ ! -s \"$2/.local.diff\" ] || patch -p1 -d \"$2\" < \"$2/.local.diff\"");
	const char *argv[] = { "sh", "-c", script, "sh", o->source, b->src, NULL };
	int r = run_logged(b, argv, "copying the tree");
	free(script);
	return r;
}

static int apply_patches(struct kb *b)
{
	char **names;
	int n, r;

	if (!b->o->patches)
		return 0;
	r = read_series(b->o->patches, &names, &n);
	for (int i = 0; i < n && !r; i++) {
		char *p = xasprintf("%s/%s", b->o->patches, names[i]);
		const char *argv[] = { "patch", "-p1", "--batch", "--forward", "-d", b->src, "-i", p, NULL };
		phase(b, "patch %d/%d: %s", i + 1, n, names[i]);
		r = run_logged(b, argv, names[i]);
		if (r == -EIO)
			log_error("kernel: patch %s does not apply to %s (see %s)", names[i], b->o->source, b->log);
		free(p);
	}
	free_names(names, n);
	return r;
}

/* make -C SRC [O=OBJ] TARGET */
static int make_target(struct kb *b, const char *target, const char *what)
{
	_cleanup_free_ char *objarg = strcmp(b->obj, b->src) ? xasprintf("O=%s", b->obj) : NULL;
	const char *argv[] = { "make", "-C", b->src, objarg ? objarg : target, objarg ? target : NULL, NULL };

	return run_logged(b, argv, what);
}

#define CHECK_LINES_SHOWN 20

/* Each option that did not stick: kept in the build log, the first ones logged. */
static void check_line(void *ctx, const char *line)
{
	struct kb *b = ctx;
	_cleanup_fclose_ FILE *f = fopen(b->log, "ae");

	if (++b->unstuck <= CHECK_LINES_SHOWN)
		log_error("kernel config: %s", line);
	if (f)
		fprintf(f, "%s\n", line);
}

/* check-config.sh FRAGMENT... DOTCONFIG: options that did not stick (a dependency missing) are an error. */
static int check_config(struct kb *b, const char *dotconfig)
{
	_cleanup_free_ char *check = xasprintf("%s/images/kernel/check-config.sh", takeover_datadir());
	_cleanup_free_ const char **argv = xcalloc((size_t)b->nfrags + 4, sizeof(*argv));
	struct spawn_opts so = { .out = SPAWN_CAPTURE, .err = SPAWN_FILE, .log_path = b->log,
				 .timeout_ms = 600000, .on_line = check_line, .ctx = b };
	struct spawn_result res;
	int n = 0, r;

	argv[n++] = "bash";
	argv[n++] = check;
	for (int i = 0; i < b->nfrags; i++)
		argv[n++] = b->frags[i];
	argv[n++] = dotconfig;
	so.argv = argv;
	phase(b, "checking that every requested option stuck");
	r = spawn_run(&so, &res);
	if (r < 0)
		log_error("kernel: cannot run %s: %s", check, strerror(-r));
	else if (res.cancelled)
		r = -EINTR;
	else if (res.exit_code == 1 && !res.timed_out) {
		log_error("%s: %d requested option%s did not stick (%s above; log: %s)", dotconfig, b->unstuck,
			  b->unstuck == 1 ? "" : "s", b->unstuck > CHECK_LINES_SHOWN ? "the first listed" : "listed",
			  b->log);
		r = -EIO;
	} else if (res.timed_out || res.exit_code) {
		log_error("%s: config check failed%s, exit %d (log: %s)", dotconfig,
			  res.timed_out ? " (deadline)" : "", res.exit_code, b->log);
		r = -EIO;
	}
	spawn_result_release(&res);
	return r;
}

static int configure(struct kb *b)
{
	_cleanup_free_ char *dotconfig = xasprintf("%s/.config", b->obj);
	_cleanup_free_ char *merge = xasprintf("%s/scripts/kconfig/merge_config.sh", b->src);
	int r;

	r = kernel_source_version(b->src, &b->version, &b->patchlevel);
	if (r < 0)
		return r;
	b->nfrags = kernel_config_fragments(b->o, b->version, b->patchlevel, &b->frags);
	phase(b, "configuring %u.%u (defconfig + kvm_guest.config + %d fragment%s)", b->version, b->patchlevel,
	      b->nfrags, b->nfrags == 1 ? "" : "s");
	r = make_target(b, "defconfig", "make defconfig");
	if (!r)
		r = make_target(b, "kvm_guest.config", "make kvm_guest.config");
	for (int i = 0; i < b->nfrags && !r; i++) {
		const char *argv[] = { "sh", merge, "-m", "-O", b->obj, dotconfig, b->frags[i], NULL };
		const char *base = strrchr(b->frags[i], '/');
		phase(b, "merging %s", base ? base + 1 : b->frags[i]);
		r = run_logged(b, argv, "merging a config fragment");
	}
	if (!r)
		r = make_target(b, "olddefconfig", "make olddefconfig");
	if (!r)
		r = check_config(b, dotconfig);
	return r;
}

static void free_frags(struct kb *b)
{
	free_names(b->frags, b->nfrags);
	b->frags = NULL;
	b->nfrags = 0;
}

int kernel_configure(const struct kernel_build_opts *o, const char *src, const char *objdir, const char *log)
{
	_cleanup_free_ char *abs_src = NULL, *abs_obj = NULL;
	int r = objdir ? mkdir_p(objdir, 0755) : 0;

	if (r < 0) {
		log_error("%s: cannot create: %s", objdir, strerror(-r));
		return r;
	}
	/* make -C SRC takes a relative O= from SRC, merge_config.sh from here: both absolute. */
	abs_src = realpath(src, NULL);
	abs_obj = realpath(objdir ? objdir : src, NULL);
	if (!abs_src || !abs_obj) {
		r = -errno;
		log_error("%s: %s", abs_src ? objdir : src, strerror(-r));
		return r;
	}
	struct kb b = { .o = o, .src = abs_src, .obj = abs_obj, .log = (char *)log, .start = now_ms() };
	r = configure(&b);
	free_frags(&b);
	return r;
}

static int compile(struct kb *b)
{
	char jobs[16], *modorder;
	struct stat st;
	int r;

	snprintf(jobs, sizeof(jobs), "-j%d", b->o->jobs > 0 ? b->o->jobs : (int)sysconf(_SC_NPROCESSORS_ONLN));
	/* `make modules` fails outright when the configuration has no modules. */
	char *dotconfig = xasprintf("%s/.config", b->src);
	struct strbuf cfg = STRBUF_INIT;
	bool modules = strbuf_read_file(&cfg, dotconfig, 16 << 20) == 0 && strstr(cfg.buf, "\nCONFIG_MODULES=y");
	strbuf_release(&cfg);
	free(dotconfig);
	const char *bz[] = { "make", "-C", b->src, jobs, "bzImage", modules ? "modules" : NULL, NULL };
	phase(b, "compiling (make %s bzImage%s; 10-30 min on 2 cores)", jobs, modules ? " modules" : "");
	r = run_logged(b, bz, "make bzImage modules");
	if (r)
		return r;
	modorder = xasprintf("%s/modules.order", b->src);
	if (stat(modorder, &st) == 0 && st.st_size > 0) {
		char *mp = xasprintf("INSTALL_MOD_PATH=%s/modules", b->out);
		const char *mi[] = { "make", "-C", b->src, "modules_install", mp, NULL };
		phase(b, "modules_install");
		r = run_logged(b, mi, "make modules_install");
		free(mp);
	}
	free(modorder);
	return r;
}

static int collect(struct kb *b, const char *key)
{
	static const char *const files[][2] = {
		{ "arch/x86/boot/bzImage", "bzImage" }, { ".config", "config" },
		{ "System.map", "System.map" },         { "vmlinux", "vmlinux" },
	};
	const char *rel[] = { "make", "-s", "-C", b->src, "kernelrelease", NULL };
	struct strbuf release = STRBUF_INIT;
	json_t *m = json_object();
	char when[32], *text;
	time_t t = time(NULL);
	int r = 0;

	phase(b, "collecting");
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]) && !r; i++) {
		char *from = xasprintf("%s/%s", b->src, files[i][0]), *to = xasprintf("%s/%s", b->out, files[i][1]);
		if (rename(from, to) < 0)
			r = -errno;
		free(from);
		free(to);
	}
	if (!r)
		r = spawn_simple(rel, 60000, &release);
	strbuf_rtrim(&release);
	if (!r) {
		/* A module tree without modules.dep cannot be used by the guests. */
		char *mods = xasprintf("%s/modules/lib/modules/%s", b->out, release.buf);
		char *dep = xasprintf("%s/modules.dep", mods);
		if (access(mods, F_OK) == 0 && access(dep, R_OK) < 0) {
			log_error("%s: make modules_install wrote no modules.dep (depmod missing? see %s)", mods,
				  b->log);
			r = -ENOENT;
		}
		free(mods);
		free(dep);
	}
	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", gmtime(&t));
	json_object_set_new(m, "key", json_string(key));
	json_object_set_new(m, "source", json_string(b->o->source));
	json_object_set_new(m, "patches", b->o->patches ? json_string(b->o->patches) : json_null());
	json_object_set_new(m, "debug", json_boolean(b->o->debug));
	json_object_set_new(m, "kernel_release", json_string(release.buf));
	/* Which fragments the source's version chose: the evidence of what was asked for. */
	json_t *frags = json_array();
	for (int i = 0; i < b->nfrags; i++) {
		const char *base = strrchr(b->frags[i], '/');
		bool builtin = i < b->nfrags - b->o->nfragments;
		json_array_append_new(frags, json_string(builtin && base ? base + 1 : b->frags[i]));
	}
	json_object_set_new(m, "config_fragments", frags);
	json_object_set_new(m, "built", json_string(when));
	json_object_set_new(m, "build_seconds", json_integer((json_int_t)((now_ms() - b->start) / 1000)));
	text = json_dumps(m, JSON_INDENT(2));
	if (!r) {
		char *p = xasprintf("%s/manifest.json", b->out), *k = xasprintf("%s/kernel-release", b->out);
		strbuf_addch(&release, '\n');
		r = write_file_atomic(p, text, strlen(text), 0644);
		if (!r)
			r = write_file_atomic(k, release.buf, release.len, 0644);
		free(p);
		free(k);
	}
	free(text);
	json_decref(m);
	strbuf_release(&release);
	return r;
}

int kernel_build(const struct kernel_build_opts *o, char **out_dir)
{
	char *root = xasprintf("%s/kernels", image_cache_dir(o->cache_dir));
	char key[17], *final = NULL;
	struct kb b = { .o = o, .start = now_ms() };
	uint64_t avail;
	int r;

	*out_dir = NULL;
	if (geteuid() != 0) {
		log_error("kernel build needs root (it installs build dependencies)");
		free(root);
		return -EPERM;
	}
	r = install_deps(o->source);
	if (!r)
		r = compute_key(o, key);
	if (r < 0) {
		free(root);
		return r;
	}
	final = xasprintf("%s/%s", root, key);
	if (access(final, F_OK) == 0) {
		log_info("kernel %s: cache hit", key);
		*out_dir = final;
		free(root);
		return 0;
	}
	r = mkdir_p(root, 0755);
	if (!r && free_bytes(root, &avail) == 0 && avail < KBUILD_SPACE) {
		log_error("no space: %s has %llu MiB free, a kernel build needs %llu MiB", root,
			  (unsigned long long)(avail >> 20), (unsigned long long)(KBUILD_SPACE >> 20));
		r = -ENOSPC;
	}
	b.work = xasprintf("%s/.build-%s-%d", root, key, (int)getpid());
	b.src = xasprintf("%s/src", b.work);
	b.out = xasprintf("%s/out", b.work);
	b.log = xasprintf("%s/build.log", b.out);
	b.obj = b.src;
	if (!r)
		r = mkdir_p(b.src, 0755);
	if (!r)
		r = mkdir_p(b.out, 0755);
	if (!r)
		r = unpack(&b);
	if (!r)
		r = apply_patches(&b);
	if (!r)
		r = configure(&b);
	if (!r)
		r = compile(&b);
	if (!r)
		r = collect(&b, key);
	if (!r && rename(b.out, final) < 0)
		r = -errno;
	if (r < 0 && r != -EINTR) {
		char *keep = xasprintf("%s/failed-%s.log", root, key);
		rename(b.log, keep);
		log_error("kernel build failed; log kept as %s", keep);
		free(keep);
	}
	rm_rf(b.work);
	if (!r) {
		log_info("kernel %s built in %llus: %s/bzImage", key,
			 (unsigned long long)((now_ms() - b.start) / 1000), final);
		*out_dir = final;
		final = NULL;
	}
	free(final);
	free(root);
	free(b.work);
	free(b.src);
	free(b.out);
	free(b.log);
	free_frags(&b);
	return r;
}
