/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef TAKEOVER_VERDICT_H
#define TAKEOVER_VERDICT_H
/*
 * The verdict: a pure function of what the run recorded (the timeline) and
 * the scenario's criteria. It never talks to libvirt or a guest, so it is
 * unit-tested on recorded and synthetic timelines (tests/unit/test_verdict.c).
 *
 * Precedence when several apply: ERROR > FAIL-KERNEL > FAIL-DATA-LOSS >
 * FAIL-TAKEOVER-TIMEOUT > FAIL-STALL > FAIL-LIVELOCK > PASS.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "scenario.h"

enum verdict_class {
	VERDICT_PASS,
	VERDICT_FAIL_TAKEOVER_TIMEOUT,
	VERDICT_FAIL_STALL,
	VERDICT_FAIL_LIVELOCK,
	VERDICT_FAIL_DATA_LOSS,
	VERDICT_FAIL_KERNEL,
	VERDICT_ERROR,
};

#define VERDICT_MAX_KERNEL 32

struct vsample {
	uint64_t t;           /* host ms since the run started */
	uint64_t acked_bytes; /* bytes made durable so far */
};

struct vseries {
	char node[8];
	struct vsample *s;
	size_t n, alloc;
};

/* Pacemaker's view, polled from a surviving node. */
struct vcrm {
	uint64_t t;
	bool group_started;
	char group_node[8];
	bool victim_online;
	/* start of each group member on the takeover node, as first seen */
	bool fs, nfsd, export_, ip;
	bool fenced; /* the fence history shows the victim fenced */
	bool fence_failed; /* ... or an attempt to fence it that failed */
	bool takeover_fenced; /* the fence history shows the takeover node fenced */
};

struct verdict_input {
	/* criteria, from [verdict] */
	uint64_t steady_time, takeover_timeout, observe, max_stall, min_rate;
	/* what happened */
	bool fault_fired;
	uint64_t t_fault;
	char victim[8];
	char takeover[8];  /* the node expected to run the group after the fault */
	uint64_t t_end;    /* end of the observation */
	struct vseries nodes[SCENARIO_MAX_NODES];
	int nnodes;
	struct vcrm *crm;
	size_t ncrm, crm_alloc;
	struct {
		uint64_t t;
		char node[8];
		char cls[24];
		char title[160];
	} kernel[VERDICT_MAX_KERNEL];
	int nkernel;
	struct {
		char node[8];
		bool ran;
		uint64_t acked, missing, corrupt;
		char detail[160];
	} verify[SCENARIO_MAX_NODES];
	int nverify;
	char infra_error[256]; /* non-empty: the harness itself failed */
};

/* Takeover phases, ms after the fault; -1 when not seen. */
struct phases {
	int64_t seen_offline, fenced, fs_mounted, nfsd_started, export_up, ip_up;
	int64_t group_started, first_remote_write, first_loopback_write;
};

struct verdict {
	enum verdict_class cls;
	char reason[512];
	char node[8];          /* the node the verdict is about */
	uint64_t t_resume;     /* host ms of the takeover node's first ack after the fault (0: none) */
	uint64_t max_gap;      /* longest progress gap on the takeover node in the observe window */
	uint64_t window_bytes; /* acknowledged in the observe window */
	double window_rate;    /* bytes per second */
	struct phases ph;
};

void verdict_input_init(struct verdict_input *in, const struct scenario *sc);
void verdict_input_release(struct verdict_input *in);
struct vseries *verdict_series(struct verdict_input *in, const char *node);
void verdict_add_sample(struct verdict_input *in, const char *node, uint64_t t, uint64_t acked_bytes);
struct vcrm *verdict_add_crm(struct verdict_input *in);

void verdict_judge(const struct verdict_input *in, struct verdict *v);

const char *verdict_name(enum verdict_class c);
int verdict_exit_code(enum verdict_class c);

#endif
