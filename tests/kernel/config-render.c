// SPDX-License-Identifier: GPL-2.0-only
/*
 * config-render [--debug] SRC OBJDIR: the configuration step of
 * `takeover kernel build` alone (kernel_configure(), the same code), on an
 * unpacked source tree that it leaves untouched (make O=OBJDIR). Prints the
 * fragments the source's version chose; exit 0 when every requested option
 * stuck, 1 when one did not (each is logged), 2 on bad usage.
 * The commands' output is in OBJDIR/config.log. Used by tests/kernel/config.sh.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "image/kernel.h"
#include "util/log.h"
#include "util/xalloc.h"

int main(int argc, char **argv)
{
	struct kernel_build_opts o = { .source = "tree", .quiet = true };
	unsigned version, patchlevel;
	char **frags;
	int a = 1, n, r;

	progress_set_quiet(true);
	if (a < argc && !strcmp(argv[a], "--debug")) {
		o.debug = true;
		a++;
	}
	if (argc - a != 2) {
		fprintf(stderr, "usage: %s [--debug] SRC OBJDIR\n", argv[0]);
		return 2;
	}
	_cleanup_free_ char *log = xasprintf("%s/config.log", argv[a + 1]);
	if (kernel_source_version(argv[a], &version, &patchlevel) < 0)
		return 1;
	n = kernel_config_fragments(&o, version, patchlevel, &frags);
	printf("%u.%u%s:", version, patchlevel, o.debug ? " debug" : "");
	for (int i = 0; i < n; i++) {
		const char *base = strrchr(frags[i], '/');
		printf(" %s", base ? base + 1 : frags[i]);
		free(frags[i]);
	}
	printf("\n");
	fflush(stdout);
	free(frags);
	r = kernel_configure(&o, argv[a], argv[a + 1], log);
	return r < 0 ? 1 : 0;
}
