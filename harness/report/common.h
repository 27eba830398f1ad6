/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef TAKEOVER_REPORT_COMMON_H
#define TAKEOVER_REPORT_COMMON_H
/*
 * Helpers shared by the report writers (json, junit, plot, summary), so the
 * four files name phases, roles and the deciding step the same way. Not part
 * of the report interface.
 */
#include <stddef.h>
#include <stdint.h>

#include "report/report.h"
#include "util/strbuf.h"

struct report_phase {
	const char *key;   /* report.json key under takeover.phases_s */
	const char *label; /* for people: summary line and plot marker */
	size_t off;        /* offsetof(struct phases, ...) */
};

#define REPORT_NPHASES 9
extern const struct report_phase report_phases[REPORT_NPHASES];

/* The files every run directory has, by fixed names (report.json's "files" key for each but itself). */
struct report_file {
	const char *key;  /* report.json's files.<key>; NULL for report.json itself */
	const char *name;
};

#define REPORT_NFILES 7
extern const struct report_file report_files[REPORT_NFILES];
/* The name of the file with that key (NULL: report.json). */
const char *report_file_name(const char *key);

/* A phase's label for this run: a failback's judged writes go to another server ("client writes"). */
const char *report_phase_label(const struct verdict_input *in, size_t i);
/* Milliseconds after the fault, -1 when the phase was not seen. */
int64_t report_phase_ms(const struct phases *p, const struct report_phase *ph);

/* The role ("victim", "takeover", "client") of a node, "" when unknown. */
const char *report_role(const struct run_report *r, const char *node);
/* Last acked_bytes of a node's series, 0 without samples. */
uint64_t report_last_acked(const struct run_report *r, const char *node);
/* "2026-12-03T10:03:13Z"; with zone false the trailing Z is left out (JUnit's schema wants that). */
void report_iso8601(uint64_t epoch_ms, bool zone, char *buf, size_t len);
/* The scenario file's base name without ".ini": "loopback-failover". */
void report_scenario_name(const struct run_report *r, char *buf, size_t len);
/*
 * Console titles and messages can carry any byte a guest printed: keep valid
 * UTF-8, tab and newline, replace everything else with '?', so JSON and XML
 * writers never reject or emit a malformed document.
 */
void report_clean_text(struct strbuf *out, const char *s);
/* Text for HTML (cleaned, then <, >, & and " escaped). */
void report_html_escape(struct strbuf *out, const char *s);
/* An index.html's opening up to <body>: the title and the one style sheet every page shares. */
void report_html_head(struct strbuf *out, const char *title);
/* 3.8 MiB, 512.0 KiB, 100 B: a reader compares magnitudes, not exact bytes. */
void report_human_bytes(double b, char *buf, size_t len);
/*
 * Console text as people read it: each line without CR, colour codes and the
 * "[  12.345678] " stamp, then cleaned as by report_clean_text. At most max
 * bytes of the input are used (a line cut there is dropped).
 */
void report_console_text(struct strbuf *out, const char *raw, size_t max);
/* "DEADLOCK on n2 (guest CPU 3% busy over 21.0s, 0 B written)" */
void report_why_line(struct strbuf *out, const struct forensics *fx);
/*
 * The blocked-task groups, largest first: a "COUNT x STATE: TASKS" line, then
 * the frames, innermost first, each line starting with indent (frames with
 * two more spaces). max_groups / max_frames 0: all of them.
 */
void report_blocked_text(struct strbuf *out, const struct forensics *fx, size_t max_groups,
			 int max_frames, const char *indent);
/*
 * A failed check's text: message and, for the failure the verdict is about
 * (deciding) when evidence was captured, "why:" and the blocked stacks (at
 * most max_groups groups, 0: all). junit.xml's failure and KCIDB's
 * log_excerpt.
 */
void report_failure_text(struct strbuf *out, const struct run_report *r, const char *message, bool deciding,
			 size_t max_groups);
/*
 * The failed step the verdict is about: the one whose message is the
 * verdict's reason, else the first failed step; NULL when no step failed.
 */
const struct report_step *report_deciding_step(const struct run_report *r);

#endif
