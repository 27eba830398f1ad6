// SPDX-License-Identifier: GPL-2.0-only
/*
 * Guest image cache. The recipe (images/) and the guest programs are hashed;
 * the hash names a directory under CACHE/images. Building runs
 * images/build-image.sh into CACHE/images/.tmp-KEY-PID and renames the
 * directory into place only after the script succeeded and the manifest was
 * written, so a directory named by a key is always a complete image.
 */
#include "image/image.h"

#include <dirent.h>
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "util/paths.h"
#include "util/fs.h"
#include "util/log.h"
#include "util/sha256.h"
#include "util/spawn.h"
#include "util/xalloc.h"

/* Bump when the build procedure changes in a way the recipe files do not show. */
#define IMAGE_RECIPE_VERSION 1
/* A cold build measured ~3 min here; the deadline only catches a wedged build. */
#define IMAGE_BUILD_TIMEOUT_MS (45 * 60 * 1000)
/* Root file system ~600 MB, image with margin ~1 GB, plus the unpacked tree. */
#define IMAGE_BUILD_SPACE (4ULL << 30)

const char *image_cache_dir(const char *override)
{
	const char *env = getenv("TAKEOVER_CACHE_DIR");

	if (override && *override)
		return override;
	return env && *env ? env : "/var/cache/takeover";
}

static char *recipe_dir(void)
{
	return xasprintf("%s/images", takeover_datadir());
}

static char *guest_bin_dir(void)
{
	return xasprintf("%s/guest-bin", takeover_builddir());
}

/* The recipe's inputs; docs, the smoke-test script and kernel patches are not among them. */
static const char *const recipe_inputs[] = { "build-image.sh", "packages.list", "overlay", NULL };

int image_compute_key(char key[17])
{
	char *recipe = recipe_dir(), *bins = guest_bin_dir();
	char ver[32];
	struct sha256 h;
	int r = 0;

	sha256_init(&h);
	snprintf(ver, sizeof(ver), "recipe-v%d", IMAGE_RECIPE_VERSION);
	sha256_update(&h, ver, strlen(ver) + 1);
	for (int i = 0; recipe_inputs[i] && !r; i++) {
		char *p = xasprintf("%s/%s", recipe, recipe_inputs[i]);
		struct stat st;
		if (stat(p, &st) < 0)
			r = -errno;
		else if (S_ISDIR(st.st_mode))
			r = sha256_tree(&h, p, recipe_inputs[i], NULL);
		else
			r = sha256_entry(&h, p, recipe_inputs[i]);
		free(p);
	}
	if (!r)
		r = sha256_tree(&h, bins, "guest-bin", NULL);
	free(recipe);
	free(bins);
	if (r < 0)
		return r;
	sha256_key16(&h, key);
	return 0;
}

void image_release(struct image *img)
{
	free(img->key);
	free(img->dir);
	free(img->base);
	free(img->kernel);
	free(img->initrd);
	free(img->kernel_release);
	memset(img, 0, sizeof(*img));
}

int image_lookup(const char *cache_dir, const char *key, struct image *img)
{
	char *dir = xasprintf("%s/images/%s", image_cache_dir(cache_dir), key);
	char *manifest = xasprintf("%s/manifest.json", dir);
	char *relfile = xasprintf("%s/kernel-release", dir);
	char rel[256] = "";

	memset(img, 0, sizeof(*img));
	if (access(manifest, R_OK) < 0) {
		int r = -errno;
		free(dir);
		free(manifest);
		free(relfile);
		return r;
	}
	read_line_file(relfile, rel, sizeof(rel));
	img->key = xstrdup(key);
	img->base = xasprintf("%s/base.raw", dir);
	img->kernel = xasprintf("%s/vmlinuz", dir);
	img->initrd = xasprintf("%s/initrd.img", dir);
	img->kernel_release = xstrdup(rel);
	img->dir = dir;
	free(manifest);
	free(relfile);
	return 0;
}

struct build_progress {
	uint64_t start;
	char phase[128];
	char last[512]; /* the last line the script printed: the error, when it fails */
	bool quiet;
};

static void show_progress(struct build_progress *bp)
{
	if (!bp->quiet)
		progress_update("image: %s (%llus)", bp->phase,
				(unsigned long long)((now_ms() - bp->start) / 1000));
}

static void on_build_line(void *ctx, const char *line)
{
	struct build_progress *bp = ctx;

	if (!*line)
		return;
	snprintf(bp->last, sizeof(bp->last), "%s", line);
	/* The recipe prints "build-image: PHASE ..." per phase and "build-image: FAILED: why". */
	if (!strncmp(line, "build-image: ", 13) && strncmp(line + 13, "FAILED", 6))
		snprintf(bp->phase, sizeof(bp->phase), "%s", line + 13);
	show_progress(bp);
}

static void on_build_tick(void *ctx)
{
	show_progress(ctx);
}

static json_t *packages_json(const char *path)
{
	json_t *o = json_object();
	char line[512];
	FILE *f = fopen(path, "re");

	if (!f)
		return o;
	while (fgets(line, sizeof(line), f)) {
		char *eq = strchr(line, '=');
		line[strcspn(line, "\n")] = '\0';
		if (!eq)
			continue;
		*eq = '\0';
		json_object_set_new(o, line, json_string(eq + 1));
	}
	fclose(f);
	return o;
}

static int write_manifest(const char *dir, const char *key, uint64_t build_ms)
{
	char *pk = xasprintf("%s/packages.txt", dir), *rf = xasprintf("%s/kernel-release", dir);
	char *path = xasprintf("%s/manifest.json", dir);
	char rel[256] = "", when[64];
	time_t t = time(NULL);
	json_t *m = json_object();
	char *text;
	int r;

	read_line_file(rf, rel, sizeof(rel));
	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", gmtime(&t));
	json_object_set_new(m, "key", json_string(key));
	json_object_set_new(m, "recipe_version", json_integer(IMAGE_RECIPE_VERSION));
	json_object_set_new(m, "built", json_string(when));
	json_object_set_new(m, "build_seconds", json_real((double)build_ms / 1000.0));
	json_object_set_new(m, "kernel_release", json_string(rel));
	json_object_set_new(m, "packages", packages_json(pk));
	text = json_dumps(m, JSON_INDENT(2) | JSON_SORT_KEYS);
	r = write_file_atomic(path, text, strlen(text), 0644);
	free(text);
	json_decref(m);
	free(pk);
	free(rf);
	free(path);
	return r;
}

static int check_build_preconditions(const char *images)
{
	uint64_t avail;
	int r;

	if (geteuid() != 0) {
		log_error("image build needs root (mmdebstrap and mkfs.ext4 run as root); run takeover as root");
		return -EPERM;
	}
	r = mkdir_p(images, 0755);
	if (r < 0) {
		log_error("cannot create %s: %s", images, strerror(-r));
		return r;
	}
	if (free_bytes(images, &avail) == 0 && avail < IMAGE_BUILD_SPACE) {
		log_error("no space: %s has %llu MiB free, an image build needs %llu MiB", images,
			  (unsigned long long)(avail >> 20), (unsigned long long)(IMAGE_BUILD_SPACE >> 20));
		return -ENOSPC;
	}
	return 0;
}

/* Runs the recipe into tmp; on failure keeps the log as CACHE/images/failed-KEY.log. */
static int run_recipe(const char *images, const char *tmp, const char *key, bool quiet)
{
	char *script = xasprintf("%s/images/build-image.sh", takeover_datadir());
	char *bins = guest_bin_dir();
	const char *argv[] = { "bash", script, tmp, bins, NULL };
	struct build_progress bp = { .start = now_ms(), .phase = "starting", .quiet = quiet };
	struct spawn_opts o = {
		.argv = argv, .out = SPAWN_CAPTURE, .err = SPAWN_CAPTURE,
		.timeout_ms = IMAGE_BUILD_TIMEOUT_MS, .capture_max = 64 * 1024,
		.on_line = on_build_line, .on_tick = on_build_tick, .ctx = &bp,
	};
	struct spawn_result res;
	int r = spawn_run(&o, &res);

	progress_done();
	if (r < 0) {
		log_error("cannot run %s: %s", script, strerror(-r));
	} else if (res.cancelled) {
		r = -EINTR;
		log_error("image build interrupted; nothing was kept");
	} else if (res.timed_out || res.exit_code) {
		char *log = xasprintf("%s/failed-%s.log", images, key);
		char *tlog = xasprintf("%s/build.log", tmp);
		rename(tlog, log);
		log_error("image build failed%s: %s (full log: %s)", res.timed_out ? " (deadline)" : "",
			  bp.last[0] ? bp.last : "no output", log);
		r = res.timed_out ? -ETIMEDOUT : -EIO;
		free(log);
		free(tlog);
	}
	if (r == 0 && !quiet)
		log_info("image: built in %llus", (unsigned long long)((now_ms() - bp.start) / 1000));
	spawn_result_release(&res);
	free(script);
	free(bins);
	return r;
}

static int build(const struct image_opts *o, const char *key)
{
	char *images = xasprintf("%s/images", image_cache_dir(o->cache_dir));
	char *tmp = xasprintf("%s/.tmp-%s-%d", images, key, (int)getpid());
	char *final = xasprintf("%s/%s", images, key);
	uint64_t start = now_ms();
	int r = check_build_preconditions(images);

	if (!r)
		r = mkdir_p(tmp, 0755);
	if (!r)
		r = run_recipe(images, tmp, key, o->quiet);
	if (!r)
		r = write_manifest(tmp, key, now_ms() - start);
	if (!r && o->force)
		rm_rf(final);
	if (!r && rename(tmp, final) < 0 && errno != ENOTEMPTY && errno != EEXIST) {
		r = -errno;
		log_error("cannot move the image into %s: %s", final, strerror(-r));
	}
	rm_rf(tmp); /* after a successful rename this is a no-op */
	free(images);
	free(tmp);
	free(final);
	return r;
}

int image_ensure(const struct image_opts *o, struct image *img)
{
	char key[17];
	int r = image_compute_key(key);

	if (r < 0) {
		log_error("cannot read the image recipe under %s/images: %s", takeover_datadir(),
			  strerror(-r));
		return r;
	}
	if (!o->force && image_lookup(o->cache_dir, key, img) == 0) {
		log_debug("image %s: cache hit", key);
		return 0;
	}
	if (!o->quiet)
		log_info("image %s: not in %s, building", key, image_cache_dir(o->cache_dir));
	r = build(o, key);
	if (r < 0)
		return r;
	return image_lookup(o->cache_dir, key, img);
}
