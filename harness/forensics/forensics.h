/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef TAKEOVER_FORENSICS_H
#define TAKEOVER_FORENSICS_H
/*
 * Evidence captured on trouble, before the cluster is torn down: sysrq-w,
 * sysrq-t and sysrq-m from the affected node's console, its blocked tasks
 * grouped by stack, a DEADLOCK/LIVELOCK classification from the domain's
 * CPU time and the progress stream, and optionally a memory-only ELF vmcore.
 */
#include <stdbool.h>
#include <stdint.h>

#include "forensics/sysrq.h"

enum hang_class {
	HANG_NONE,     /* no capture happened */
	HANG_DEADLOCK, /* no progress and the guest's vCPU mostly idle */
	HANG_LIVELOCK, /* no or tiny progress while the guest's vCPU is busy */
	HANG_REBOOTED, /* the node rebooted after the fault, before the capture: its stacks are of the new boot */
	HANG_UNKNOWN,  /* captured, but the CPU figures were not available */
};

struct forensics {
	bool captured;
	char node[8];
	char reason[128];          /* why the capture happened ("stall on n1 for 21s") */
	uint64_t t_capture;        /* timeline ms when the capture started */
	double capture_seconds;    /* how long the capture took */
	enum hang_class cls;
	double guest_cpu_busy;     /* fraction of one vCPU used over the window, -1 unknown */
	double window_seconds;     /* the window the CPU figure covers */
	uint64_t bytes_in_window;  /* progress of the node in that window */
	struct sysrq_dump blocked; /* from sysrq-w, grouped (D state only) */
	char *meminfo;             /* sysrq-m text, as printed */
	char sysrq_w_file[64];     /* files in the run directory */
	char sysrq_t_file[64];
	char sysrq_m_file[64];
	char vmcore_file[64];      /* "" when no vmcore was taken */
	char vmcore_note[256];     /* how to open it with crash(8) */
};

const char *hang_class_name(enum hang_class c);
enum hang_class hang_class_from_name(const char *name); /* HANG_UNKNOWN for a name it does not know */
/* The blocked tasks of sysrq-w text w (plus those blocked in sysrq-t text t), grouped by stack. */
void forensics_stacks(struct forensics *f, const char *w, const char *t);
void forensics_release(struct forensics *f);

#endif
