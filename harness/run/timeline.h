/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef TAKEOVER_TIMELINE_H
#define TAKEOVER_TIMELINE_H
/*
 * The run's timeline: every event and sample as one JSON object per line
 * in results/<run-id>/timeline.jsonl, flushed as it happens so that a crash
 * of the harness loses nothing already seen. Every line has "t" (host
 * milliseconds since the run started, CLOCK_MONOTONIC) and "ev".
 *
 * The verdict is computed from this file read back (timeline_load), never
 * from the harness's memory: what the report says is what the file shows,
 * and `takeover report DIR` can judge an old run again.
 */
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>

#include "verdict/verdict.h"

struct timeline {
	FILE *f;
	uint64_t t0; /* now_ms() at t = 0 */
};

int timeline_open(struct timeline *tl, const char *path, uint64_t t0);
void timeline_close(struct timeline *tl);
uint64_t timeline_now(const struct timeline *tl);
/* Writes {"t":..,"ev":ev,"node":node,...fields}; steals the reference to fields (may be NULL). */
void timeline_event(struct timeline *tl, const char *ev, const char *node, json_t *fields);

/*
 * Builds the verdict's input from a timeline file: progress of writers,
 * Pacemaker polls, kernel reports, verification results, the fault and the
 * end of the run. 0, or -errno (the file cannot be read). Malformed lines
 * are skipped and counted in *bad_lines.
 */
int timeline_load(const char *path, const struct scenario *sc, struct verdict_input *in,
		  int *bad_lines);

#endif
