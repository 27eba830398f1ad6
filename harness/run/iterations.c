// SPDX-License-Identifier: GPL-2.0-only
/*
 * `takeover run --iterations N`: the scenario N times, each iteration judged
 * on its own timeline in iter-K/ (what a run directory holds), and the verdict
 * over all of them computed from those directories alone (report/series.c),
 * the same summary `takeover report DIR` prints later.
 *
 * Each iteration brings up a cluster of its own and tears it down, so no
 * iteration sees another's files, processes, dirty pages or fencing history.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "report/series.h"
#include "run/run.h"
#include "util/cancel.h"
#include "util/exitcode.h"
#include "util/fs.h"
#include "util/log.h"
#include "util/paths.h"
#include "util/xalloc.h"

int run_iterations(const struct scenario *sc, const struct run_opts *o, int n, bool until_fail)
{
	char stamp[32];
	time_t t = time(NULL);
	char *def = NULL, *top;
	const char *root = o->results_root;
	struct series s = { 0 };
	int k, rc = TK_EXIT_SKIP, ret;
	bool stopped = false;

	strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", localtime(&t));
	if (!root)
		root = def = xasprintf("%s/results", takeover_datadir());
	top = xasprintf("%s/%s-iterations", root, stamp);
	free(def);
	ret = mkdir_p(top, 0755);
	if (ret < 0) {
		log_error("cannot create the results directory %s: %s", top, strerror(-ret));
		free(top);
		return TK_EXIT_SKIP;
	}
	/* A cluster kept for a look is the end of the series: the next one would be a second cluster. */
	until_fail = until_fail || o->keep_on_fail;
	for (k = 1; k <= n; k++) {
		struct run_opts io = *o;
		char *dir = xasprintf("%s/iter-%d", top, k);
		/* Made first, so an iteration whose cluster never came up is counted, as not judged. */
		ret = mkdir_p(dir, 0755);
		if (ret < 0) {
			log_error("cannot create the results directory %s: %s", dir, strerror(-ret));
			free(dir);
			break;
		}
		io.dir = dir;
		log_info("iteration %d of %d: %s", k, n, dir);
		rc = run_scenario(sc, &io, NULL);
		free(dir);
		if (rc == TK_EXIT_USAGE || cancel_requested())
			break;
		if (until_fail && rc == TK_EXIT_FAIL) {
			stopped = k < n;
			break;
		}
	}
	if (rc == TK_EXIT_USAGE) {
		free(top);
		return rc;
	}
	series_add_dir(&s, top);
	printf("\n");
	series_print(&s, "iterations", stdout);
	json_t *extra = json_object();
	json_object_set_new(extra, "scenario", json_string(sc->path));
	json_object_set_new(extra, "iterations_requested", json_integer(n));
	json_object_set_new(extra, "stopped_at_first_failure", json_boolean(stopped));
	series_write_summary(&s, top, extra);
	printf("results: %s (summary.json; one directory per iteration)\n", top);
	rc = series_exit_code(&s);
	series_release(&s);
	free(top);
	return rc;
}
