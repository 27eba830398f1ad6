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
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "image/image.h"
#include "util/paths.h"
#include "util/fs.h"
#include "util/log.h"
#include "util/sha256.h"
#include "util/spawn.h"
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

struct kb {
	const struct kernel_build_opts *o;
	char *work, *src, *out, *log;
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

static char *fragment_path(const char *name)
{
	return name[0] == '/' || access(name, R_OK) == 0
		       ? xstrdup(name)
		       : xasprintf("%s/images/kernel/%s", takeover_datadir(), name);
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
	for (int i = 0; i < o->nfragments + 2 && !r; i++) {
		const char *name = i == 0 ? "takeover.config" : i == 1 ? (o->debug ? "debug.config" : NULL)
								       : o->fragments[i - 2];
		if (!name)
			continue;
		char *p = fragment_path(name);
		r = sha256_file(&h, p);
		if (r < 0)
			log_error("config fragment %s: %s", p, strerror(-r));
		free(p);
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

static int configure(struct kb *b)
{
	char *check = xasprintf("%s/images/kernel/check-config.sh", takeover_datadir());
	char *dotconfig = xasprintf("%s/.config", b->src);
	const char *defc[] = { "make", "-C", b->src, "defconfig", NULL };
	const char *kvm[] = { "make", "-C", b->src, "kvm_guest.config", NULL };
	const char *old[] = { "make", "-C", b->src, "olddefconfig", NULL };
	char *frags[10];
	int nf = 0, r;

	frags[nf++] = fragment_path("takeover.config");
	if (b->o->debug)
		frags[nf++] = fragment_path("debug.config");
	for (int i = 0; i < b->o->nfragments; i++)
		frags[nf++] = fragment_path(b->o->fragments[i]);
	phase(b, "configuring (defconfig + kvm_guest.config + %d fragment%s)", nf, nf == 1 ? "" : "s");
	r = run_logged(b, defc, "make defconfig");
	if (!r)
		r = run_logged(b, kvm, "make kvm_guest.config");
	for (int i = 0; i < nf && !r; i++) {
		char *merge = xasprintf("%s/scripts/kconfig/merge_config.sh", b->src);
		const char *argv[] = { "sh", merge, "-m", "-O", b->src, dotconfig, frags[i], NULL };
		r = run_logged(b, argv, "merging a config fragment");
		free(merge);
	}
	if (!r)
		r = run_logged(b, old, "make olddefconfig");
	/* Options that did not stick (a dependency missing) are an error, not a surprise later. */
	if (!r && access(check, R_OK) == 0) {
		const char *argv[14] = { "bash", check };
		int n = 2;
		for (int i = 0; i < nf && n < 12; i++)
			argv[n++] = frags[i];
		argv[n++] = dotconfig;
		argv[n] = NULL;
		r = run_logged(b, argv, "config check (options that did not stick are listed in the log)");
	}
	for (int i = 0; i < nf; i++)
		free(frags[i]);
	free(check);
	free(dotconfig);
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
	phase(b, "compiling (make %s bzImage%s; 15-40 min on 2 cores)", jobs, modules ? " modules" : "");
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
	return r;
}
