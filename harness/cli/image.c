// SPDX-License-Identifier: GPL-2.0-only
/* takeover image build|info|gc: the guest image cache from the command line. */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cluster/cluster.h"
#include "cluster/snapshot.h"
#include "cli/command.h"
#include "util/exitcode.h"
#include "image/image.h"
#include "util/fs.h"
#include "util/log.h"
#include "util/units.h"
#include "util/xalloc.h"

struct image_args {
	struct image_opts o;
	bool json;
	long keep, keep_snapshots;
};

static int parse_args(int argc, char **argv, struct image_args *a)
{
	static const struct option longopts[] = {
		{ "cache-dir", required_argument, NULL, 'C' },
		{ "force", no_argument, NULL, 'f' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "json", no_argument, NULL, 'j' },
		{ "keep", required_argument, NULL, 'k' },
		{ "keep-snapshots", required_argument, NULL, 'S' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const struct command *self = &command_image;
	const char *why;
	uint64_t v;
	int c;

	a->o.quiet = progress_is_quiet();
	a->keep = 2;
	a->keep_snapshots = 4;
	while ((c = getopt_long(argc, argv, "C:fqjk:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'C':
			a->o.cache_dir = optarg;
			break;
		case 'f':
			a->o.force = true;
			break;
		case 'q':
			a->o.quiet = true;
			progress_set_quiet(true);
			break;
		case 'j':
			a->json = true;
			break;
		case 'k':
			if (parse_uint(optarg, &v, &why) < 0 || v < 1 || v > 1000)
				return command_usage_error(self, "--keep '%s': expected 1..1000", optarg);
			a->keep = (long)v;
			break;
		case 'S':
			if (parse_uint(optarg, &v, &why) < 0 || v > 1000)
				return command_usage_error(self, "--keep-snapshots '%s': expected 0..1000", optarg);
			a->keep_snapshots = (long)v;
			break;
		case 'h':
			command_print_help(self);
			return -1;
		default:
			return command_usage_error(self, "bad option");
		}
	}
	return 0;
}

static int do_build(struct image_args *a)
{
	struct image img;
	int r = image_ensure(&a->o, &img);

	if (r < 0)
		return TK_EXIT_SKIP; /* not root, no space, archive unreachable: could not test */
	printf("%s\n", img.dir);
	image_release(&img);
	return TK_EXIT_PASS;
}

static void print_human(const json_t *m, const struct image *img)
{
	static const char *const highlight[] = {
		"linux-image-cloud-amd64", "corosync", "pacemaker", "crmsh", "nfs-kernel-server",
		"resource-agents", "fence-virt", "systemd", NULL,
	};
	const json_t *pk = json_object_get(m, "packages");
	struct stat st;
	char size[32] = "?";

	if (stat(img->base, &st) == 0)
		format_size((uint64_t)st.st_size & ~((1ULL << 20) - 1), size, sizeof(size));
	printf("image:          %s\n", img->key);
	printf("directory:      %s\n", img->dir);
	printf("built:          %s (%.0f s)\n", json_string_value(json_object_get(m, "built")),
	       json_number_value(json_object_get(m, "build_seconds")));
	printf("kernel release: %s\n", img->kernel_release);
	printf("base disk:      %s (%s)\n", img->base, size);
	printf("packages:       %zu\n", json_object_size(pk));
	for (int i = 0; highlight[i]; i++) {
		const char *v = json_string_value(json_object_get(pk, highlight[i]));
		if (v)
			printf("  %-24s %s\n", highlight[i], v);
	}
}

static int do_info(struct image_args *a)
{
	struct image img;
	char key[17];
	json_error_t err;
	json_t *m;
	char *path;
	int r = image_compute_key(key);

	if (r < 0) {
		log_error("cannot hash the image recipe: %s", strerror(-r));
		return TK_EXIT_SKIP;
	}
	if (image_lookup(a->o.cache_dir, key, &img) < 0) {
		printf("image %s: not built (cache %s); 'takeover image build' builds it\n", key,
		       image_cache_dir(a->o.cache_dir));
		return TK_EXIT_SKIP;
	}
	path = xasprintf("%s/manifest.json", img.dir);
	m = json_load_file(path, 0, &err);
	if (!m) {
		log_error("%s:%d: %s", path, err.line, err.text);
		free(path);
		image_release(&img);
		return TK_EXIT_SKIP;
	}
	if (a->json) {
		json_dumpf(m, stdout, JSON_INDENT(2) | JSON_SORT_KEYS);
		putchar('\n');
	} else {
		print_human(m, &img);
	}
	json_decref(m);
	free(path);
	image_release(&img);
	return TK_EXIT_PASS;
}

struct entry {
	char *name;
	time_t mtime;
};

static int by_mtime_desc(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;

	return x->mtime < y->mtime ? 1 : x->mtime > y->mtime ? -1 : strcmp(x->name, y->name);
}

/* ".tmp-KEY-PID" left by a build, or "KEY.bad-PID" by a discard, whose process is gone. */
static bool stale_tmp(const char *name)
{
	const char *dash = strrchr(name, '-'), *why;
	uint64_t pid;

	if ((strncmp(name, ".tmp-", 5) && !strstr(name, ".bad-")) || !dash || parse_uint(dash + 1, &pid, &why) < 0)
		return false;
	return pid > 0 && pid <= INT32_MAX && kill((pid_t)pid, 0) < 0 && errno == ESRCH;
}

/* The image and snapshot keys the clusters that exist use (their overlays point at them). */
struct in_use {
	int n;
	char image[64][17], snapshot[64][17];
};

static void load_in_use(struct in_use *u)
{
	char names[64][CLUSTER_NAME_MAX + 1];
	int n = cluster_list(names, 64);

	u->n = 0;
	for (int i = 0; i < n; i++) {
		struct cluster c;
		if (cluster_load(names[i], &c) == 0) {
			snprintf(u->image[u->n], sizeof(u->image[0]), "%s", c.image_key);
			snprintf(u->snapshot[u->n++], sizeof(u->snapshot[0]), "%s", c.up.snapshot);
			cluster_release(&c);
		}
	}
}

static bool in_use(const struct in_use *u, const char *key, bool snapshot)
{
	for (int i = 0; i < u->n; i++)
		if (!strcmp(snapshot ? u->snapshot[i] : u->image[i], key))
			return true;
	return false;
}

/* The entries of dir, newest first; interrupted builds and discards are removed on the way. */
static struct entry *list_cache(const char *dir, size_t *n)
{
	struct entry *list = NULL;
	struct dirent *e;
	DIR *d = opendir(dir);

	*n = 0;
	while (d && (e = readdir(d))) {
		char *full = xasprintf("%s/%s", dir, e->d_name);
		struct stat st;
		if (stale_tmp(e->d_name)) {
			printf("removing interrupted %s\n", full);
			rm_rf(full);
		} else if (e->d_name[0] != '.' && stat(full, &st) == 0 && S_ISDIR(st.st_mode)) {
			list = xrealloc(list, (*n + 1) * sizeof(*list));
			list[(*n)++] = (struct entry){ xstrdup(e->d_name), st.st_mtime };
		}
		free(full);
	}
	if (d)
		closedir(d);
	qsort(list, *n, sizeof(*list), by_mtime_desc);
	return list;
}

static void remove_entry(const char *dir, const char *name, const char *what)
{
	char *full = xasprintf("%s/%s", dir, name);

	printf("removing %s %s\n", what, name);
	rm_rf(full);
	free(full);
}

/*
 * Images: all but the newest --keep (the current recipe's always stays).
 * Snapshots: those of removed images, and all but the newest
 * --keep-snapshots of the rest. Whatever a cluster uses stays.
 */
static int do_gc(struct image_args *a)
{
	char *images = xasprintf("%s/images", image_cache_dir(a->o.cache_dir));
	char *snaps = snapshot_root(a->o.cache_dir);
	size_t n, ns;
	struct entry *list = list_cache(images, &n), *slist;
	char key[17] = "";
	long kept = 0;
	struct in_use used_by;

	load_in_use(&used_by);
	image_compute_key(key);
	for (size_t i = 0; i < n; i++) {
		bool current = !strcmp(list[i].name, key), used = in_use(&used_by, list[i].name, false);
		if (used) {
			printf("keeping image %s (a cluster uses it)\n", list[i].name);
		} else if (current || kept < a->keep) {
			kept++;
			printf("keeping image %s%s\n", list[i].name, current ? " (current recipe)" : "");
		} else {
			remove_entry(images, list[i].name, "image");
			free(list[i].name);
			list[i].name = NULL;
		}
	}
	slist = list_cache(snaps, &ns);
	kept = 0;
	for (size_t i = 0; i < ns; i++) {
		char *dir = xasprintf("%s/%s", snaps, slist[i].name);
		char img[17] = "";
		bool has_image = false;
		snapshot_image_key(dir, img);
		for (size_t k = 0; k < n && !has_image; k++)
			has_image = list[k].name && !strcmp(list[k].name, img);
		if (in_use(&used_by, slist[i].name, true))
			printf("keeping snapshot %s (a cluster uses it)\n", slist[i].name);
		else if (!has_image)
			remove_entry(snaps, slist[i].name, "snapshot (its image is gone)");
		else if (kept < a->keep_snapshots)
			kept++, printf("keeping snapshot %s (image %s)\n", slist[i].name, img);
		else
			remove_entry(snaps, slist[i].name, "snapshot");
		free(dir);
		free(slist[i].name);
	}
	for (size_t i = 0; i < n; i++)
		free(list[i].name);
	free(list);
	free(slist);
	free(images);
	free(snaps);
	return TK_EXIT_PASS;
}

static int cmd_image(int argc, char **argv)
{
	const struct command *self = &command_image;
	struct image_args a = { 0 };
	const char *verb;
	int r;

	if (argc < 2)
		return command_usage_error(self, "missing action (build, info or gc)");
	verb = argv[1];
	r = parse_args(argc - 1, argv + 1, &a);
	if (r)
		return r < 0 ? TK_EXIT_PASS : r;
	if (optind + 1 < argc)
		return command_usage_error(self, "unexpected argument '%s'", argv[optind + 1]);
	if (!strcmp(verb, "build"))
		return do_build(&a);
	if (!strcmp(verb, "info"))
		return do_info(&a);
	if (!strcmp(verb, "gc"))
		return do_gc(&a);
	if (!strcmp(verb, "--help") || !strcmp(verb, "-h")) {
		command_print_help(self);
		return TK_EXIT_PASS;
	}
	return command_usage_error(self, "unknown action '%s' (build, info or gc)", verb);
}

const struct command command_image = {
	"image", cmd_image, "image build|info|gc [--cache-dir DIR] [--force] [--quiet] [--json] [--keep N] [--keep-snapshots N]",
	  "Build, describe or prune the cached guest node image",
	  "build  build the node image unless the cache has one for the current recipe;\n"
	  "       prints its directory. --force rebuilds. Needs root.\n"
	  "info   print the manifest of the current recipe's image (--json: as JSON)\n"
	  "gc     remove all but the newest N images (--keep N, default 2; the current\n"
	  "       recipe's image is always kept) and interrupted builds; then the\n"
	  "       snapshots of ready clusters (warm start, see `takeover help up`) of\n"
	  "       removed images, and all but the newest N others (--keep-snapshots N,\n"
	  "       default 4). What a running cluster uses is kept.\n\n"
	  "The cache is /var/cache/takeover unless --cache-dir or TAKEOVER_CACHE_DIR says\n"
	  "otherwise. Images are keyed by a hash of images/build-image.sh, packages.list,\n"
	  "overlay/ and the guest programs: an unchanged recipe is a cache hit.\n\n"
	  "Exit status: 0 done, 2 bad usage, 125 the image could not be built."
};
