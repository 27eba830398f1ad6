/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef TAKEOVER_PROGRESS_H
#define TAKEOVER_PROGRESS_H
/*
 * Progress counters shared between a workload (writer, hog) and the agent:
 * a small tmpfs file mapped by both. The workload updates it under a
 * sequence counter; the agent reads a consistent snapshot every second. A
 * workload stuck in the kernel simply stops updating it, and the agent keeps
 * reporting the last values, which is exactly what the verdict needs.
 */
#include <stdint.h>
#include <stddef.h>

#define PROGRESS_ENV "TAKEOVER_PROGRESS"
#define PROGRESS_MAGIC 0x746b7072u /* "tkpr" */

enum progress_kind { PROGRESS_WRITER, PROGRESS_HOG, PROGRESS_OTHER };
enum progress_phase {
	PHASE_START, PHASE_WRITE, PHASE_FSYNC, PHASE_SLEEP, PHASE_DONE, PHASE_ERROR,
};

struct progress_shm {
	uint32_t magic;
	uint32_t kind;
	uint32_t phase;
	uint32_t pad;
	uint64_t seq;           /* odd while an update is in flight */
	uint64_t records;       /* records written (write() returned) */
	uint64_t bytes;
	uint64_t acked_records; /* records made durable by a successful fsync */
	uint64_t acked_bytes;
	uint64_t fsyncs;
	uint64_t last_ack_ms;   /* CLOCK_MONOTONIC of the last acknowledged fsync */
	uint64_t errors;
	int64_t value;          /* kind-specific: the hog's locked bytes */
};

void progress_path(const char *name, char *buf, size_t len);
/* Agent side. */
struct progress_shm *progress_create(const char *name);
void progress_destroy(struct progress_shm *p, const char *name);
void progress_snapshot(const struct progress_shm *p, struct progress_shm *out);
/* Workload side: maps $TAKEOVER_PROGRESS, or private memory when unset (run by hand). */
struct progress_shm *progress_attach(enum progress_kind kind);
void progress_begin(struct progress_shm *p);
void progress_end(struct progress_shm *p);

const char *progress_kind_name(uint32_t kind);
const char *progress_phase_name(uint32_t phase);

#endif
