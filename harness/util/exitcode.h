/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef TAKEOVER_EXITCODE_H
#define TAKEOVER_EXITCODE_H
/*
 * Stable result codes (docs/exit-codes.md). They are chosen for
 * `git bisect run`: 0 good, 1 bad, 125 skip this commit; 2 is never seen by a
 * bisect because a bad scenario fails before any kernel is touched.
 */
enum {
	TK_EXIT_PASS = 0,    /* the kernel passed the scenario */
	TK_EXIT_FAIL = 1,    /* the kernel failed: hang, livelock, data loss, crash, slow takeover */
	TK_EXIT_USAGE = 2,   /* bad command line or bad scenario file */
	TK_EXIT_SKIP = 125,  /* could not test: infrastructure error */
};

#endif
