// SPDX-License-Identifier: GPL-2.0-only
/* takeover kernel build: the kernel under test, built and cached. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/command.h"
#include "util/exitcode.h"
#include "image/kernel.h"
#include "util/log.h"
#include "util/units.h"
#include "util/xalloc.h"

/* PATH made absolute when it exists (a missing one is reported later, as given). */
static char *absolute_path(const char *path)
{
	char *p = realpath(path, NULL);
	return p ? p : xstrdup(path);
}

static int cmd_kernel(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "source", required_argument, NULL, 's' },
		{ "patches", required_argument, NULL, 'p' },
		{ "config", required_argument, NULL, 'c' },
		{ "debug", no_argument, NULL, 'd' },
		{ "jobs", required_argument, NULL, 'j' },
		{ "cache-dir", required_argument, NULL, 'C' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const struct command *self = &command_kernel;
	struct kernel_build_opts o = { .source = "debian-6.1", .quiet = progress_is_quiet() };
	const char *why;
	uint64_t v;
	char *dir;
	int ch, r;

	if (argc < 2 || strcmp(argv[1], "build")) {
		if (argc >= 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
			command_print_help(self);
			return TK_EXIT_PASS;
		}
		return command_usage_error(self, "the only action is 'build'");
	}
	argc--;
	argv++;
	while ((ch = getopt_long(argc, argv, "s:p:c:dj:C:qh", longopts, NULL)) != -1) {
		switch (ch) {
		case 's': o.source = optarg; break;
		case 'p': o.patches = optarg; break;
		case 'c':
			if (o.nfragments == (int)(sizeof(o.fragments) / sizeof(o.fragments[0])))
				return command_usage_error(self, "too many --config fragments");
			o.fragments[o.nfragments++] = optarg;
			break;
		case 'd': o.debug = true; break;
		case 'j':
			if (parse_uint(optarg, &v, &why) < 0 || v < 1 || v > 256)
				return command_usage_error(self, "--jobs '%s': expected 1..256", optarg);
			o.jobs = (int)v;
			break;
		case 'C': o.cache_dir = optarg; break;
		case 'q': o.quiet = true; progress_set_quiet(true); break;
		case 'h': command_print_help(self); return TK_EXIT_PASS;
		default: return command_usage_error(self, "bad option");
		}
	}
	if (optind < argc)
		return command_usage_error(self, "unexpected argument '%s'", argv[optind]);
	if (o.patches) {
		char *series = xasprintf("%s/series", o.patches);
		int ok = access(series, R_OK) == 0;
		if (!ok)
			log_error("--patches %s: %s: %s", o.patches, series, strerror(errno));
		free(series);
		if (!ok)
			return TK_EXIT_USAGE;
	}
	if (strncmp(o.source, "debian-", 7) && o.patches)
		log_info("patches on a source tree are applied to a copy; the tree itself is not touched");
	/* The build runs commands in other directories: relative paths given
	 * on the command line must not change meaning there. */
	char *abs[3 + sizeof(o.fragments) / sizeof(o.fragments[0])] = { 0 };
	int nabs = 0;
	if (strncmp(o.source, "debian-", 7))
		o.source = abs[nabs++] = absolute_path(o.source);
	if (o.patches)
		o.patches = abs[nabs++] = absolute_path(o.patches);
	for (int i = 0; i < o.nfragments; i++)
		o.fragments[i] = abs[nabs++] = absolute_path(o.fragments[i]);
	r = kernel_build(&o, &dir);
	for (int i = 0; i < nabs; i++)
		free(abs[i]);
	if (r < 0)
		return TK_EXIT_SKIP;
	printf("%s/bzImage\n", dir);
	free(dir);
	return TK_EXIT_PASS;
}

const struct command command_kernel = {
	"kernel", cmd_kernel,
	  "kernel build [--source debian-6.1|debian-6.12|DIR] [--patches DIR] [--config FRAGMENT]... [--debug] [--jobs N]",
	  "Build (or find in the cache) a guest kernel to test",
	  "Debian's linux-source package (installed when missing, with the build\n"
	  "dependencies) or a git tree DIR (HEAD plus local changes, copied: the tree is\n"
	  "not touched); --patches DIR applies DIR/series in order and stops with the\n"
	  "patch's name when one does not apply; images/kernel/takeover.config (virtio,\n"
	  "NFS client and server, ext4, watchdogs, sysrq built in: no initrd needed) and\n"
	  "any --config fragments are merged onto defconfig + kvm_guest.config; --debug\n"
	  "adds images/kernel/debug.config (lockdep, DWARF for crash). Cached under\n"
	  "CACHE/kernels/<hash of source, patches, config>. Prints the bzImage path:\n"
	  "  takeover run --kernel \"$(takeover kernel build --patches images/kernel/patches/known-bad)\"\n\n"
	  "Exit status: 0 built or cached, 2 bad usage, 125 the build failed."
};
