/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef TAKEOVER_VERDICT_H
#define TAKEOVER_VERDICT_H
/*
 * The verdict: a pure function of what the run recorded (the timeline) and
 * the scenario's criteria. It never talks to libvirt or a guest, so it is
 * unit-tested on recorded and synthetic timelines (tests/unit/test_verdict.c).
 *
 * Precedence when several apply: ERROR > FAIL-SPLIT-BRAIN > FAIL-KERNEL > FAIL-DATA-LOSS >
 * FAIL-TAKEOVER-TIMEOUT > FAIL-STALL > FAIL-LIVELOCK > ERROR-PRESSURE-LOST >
 * PASS. The pressure rule only takes a PASS away: a hang under pressure that
 * did not hold is still a hang (its reason says how long the pressure held).
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "scenario/scenario.h"

enum verdict_class {
	VERDICT_PASS,
	VERDICT_FAIL_TAKEOVER_TIMEOUT,
	VERDICT_FAIL_STALL,
	VERDICT_FAIL_LIVELOCK,
	VERDICT_FAIL_DATA_LOSS,
	VERDICT_FAIL_KERNEL,
	/*
	 * An audit found the floating IP on two nodes, or the shared file
	 * system mounted on two: both sides of a partition serve NFS. What the
	 * kernels report after that, or lose, follows from it.
	 */
	VERDICT_FAIL_SPLIT_BRAIN,
	VERDICT_ERROR,
	/*
	 * It would have been a PASS, but the scenario's memory pressure did not
	 * hold for [pressure] min_held of the judged window (the OOM killer
	 * removed the hog, say): the kernel was not tested under the conditions
	 * the scenario states. Exit 125, like ERROR.
	 */
	VERDICT_ERROR_PRESSURE_LOST,
};

/*
 * "Resumed" (the monitor's early stop, the verdict's phases and the tests all
 * use this): a node resumed writing when it reports new acks more than this
 * long after the fault, while Pacemaker has the group started away from the
 * victim. Acks that were in flight when the fault hit, or reported a little
 * late (the agent reports once a second), fall inside it.
 */
#define VERDICT_RESUME_GRACE_MS 3000

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

/* One memory sample of a node (kB, as /proc/meminfo has them). */
struct vmem {
	uint64_t t;
	uint64_t avail_kb, total_kb;
};

/*
 * OOM kills from a node's vmstat oom_kill counter, sample by sample: the
 * first sample (and the first after a reboot, when the counter starts
 * again) only sets the base. Used by the monitor (an "oom-kill" event as it
 * happens) and by the loader (the count, also from recordings older than
 * that event), so both count the same kills.
 */
struct oom_counter {
	bool have;
	uint64_t last;
};
/* Kills since the previous sample. */
uint64_t oom_counter_add(struct oom_counter *c, uint64_t value);

/* A node's memory over the run, and what the pressure on it went through. */
struct vmemseries {
	char node[8];
	struct vmem *s;
	size_t n, alloc;
	bool pressured;       /* a hog was started there ("pressure-start") */
	uint64_t t_start;     /* timeline ms of that first start */
	struct oom_counter oom;
	int oom_kills;        /* OOM kills after t_start, from the samples' oom_kill counter */
	uint64_t t_first_oom; /* timeline ms of the first of them; 0: none */
	char oom_victim[64];  /* the first OOM kill the console named ("takeover-hog") */
	int restarts;         /* "pressure-restart" events */
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
	char failure[256];    /* Pacemaker's first failed action, "" when none */
};

struct verdict_input {
	/* criteria, from [verdict] */
	uint64_t steady_time, takeover_timeout, observe, max_stall, min_rate;
	/* ... and from [pressure] */
	struct memtarget available;
	uint64_t tolerance, ramp;
	unsigned min_held; /* percent; 0: not checked */
	/* what happened */
	bool fault_fired;
	uint64_t t_fault;
	char victim[8];    /* the node the fault acts on: the group leaves it */
	char takeover[8];  /* the node expected to run the group after the fault */
	/*
	 * The node whose writes (and pressure) are judged: the takeover node,
	 * which goes from NFS client to server, or, when the victim survives
	 * the fault (failback), the victim, which goes from server to client.
	 */
	char judged[8];
	bool victim_survives; /* the fault left the victim up */
	bool group_stays;     /* ... and the group on it (disk-stall): judged from the fault on */
	bool group_restarts;  /* ... restarted in place (nfsd-kill): judged from the resume, as a takeover */
	uint64_t t_end;    /* end of the observation */
	struct vseries nodes[SCENARIO_MAX_NODES];
	int nnodes;
	struct vmemseries mem[SCENARIO_MAX_NODES];
	int nmem;
	struct vcrm *crm;
	size_t ncrm, crm_alloc;
	struct {
		uint64_t t;
		char node[8];
		char cls[24];
		char title[160];
	} kernel[VERDICT_MAX_KERNEL];
	int nkernel;
	/* The NFS daemons' error lines from the survivors' journals ("daemon-error", read at the end of the run). */
	struct {
		uint64_t t;         /* when the journal says it was logged, timeline ms */
		char node[8];
		char text[240];     /* "rpc.nfsd: error starting threads: errno 12 (Cannot allocate memory)" */
	} daemon_err[VERDICT_MAX_KERNEL];
	int ndaemon_err;
	struct {
		char node[8];
		bool ran;
		uint64_t acked, missing, corrupt;
		char detail[160];
	} verify[SCENARIO_MAX_NODES];
	int nverify;
	/* The cluster audits ("audit" events: after the observe window, at the end). */
	struct vaudit {
		char when[16];
		char problems[256]; /* "" when the audit found nothing wrong */
		int nip, nfs;               /* nodes holding the floating IP, mounting the shared fs */
		char ip_holders[64], fs_holders[64]; /* their names, ", "-separated */
	} audit[4];
	int naudit;
	char infra_error[256]; /* non-empty: the harness itself failed */
	bool teardown_failed;  /* the cluster could not be removed after the run ("teardown" event) */
};

/* Takeover phases, ms after the fault; -1 when not seen. */
struct phases {
	int64_t seen_offline, fenced, fs_mounted, nfsd_started, export_up, ip_up;
	int64_t group_started, first_remote_write, first_loopback_write;
};

/* How well one pressured node's pressure held in the judged window. */
struct pressure_node {
	char node[8];
	double held;           /* share of the window within reach of the target, 0..1 */
	uint64_t lost_ms;      /* out of reach, or without a sample */
	uint64_t unsampled_ms; /* ... of which without a sample (node rebooted, agent silent) */
	uint64_t first_lost;   /* timeline ms the first such stretch began; 0: never */
	uint64_t longest_lost; /* the longest such stretch, ms */
	uint64_t max_avail_kb; /* highest MemAvailable sampled in the window */
	uint64_t reach_kb;     /* MemAvailable within reach: at most this (target + tolerance) */
	int oom_kills, restarts;
	uint64_t first_oom;    /* timeline ms of the first OOM kill; 0: none */
	char oom_victim[64];
};

struct pressure_result {
	bool judged;           /* a pressured node and a judged window existed */
	uint64_t from, to;     /* the judged window, timeline ms */
	struct pressure_node nodes[SCENARIO_MAX_NODES];
	int n;
	int worst;             /* index of the lowest share; -1 when not judged */
	bool ok;               /* the worst share reached min_held (or min_held is 0) */
};

struct verdict {
	enum verdict_class cls;
	char reason[512];
	char node[8];          /* the node the verdict is about */
	uint64_t t_resume;     /* host ms of the takeover node's first ack after the fault (0: none) */
	uint64_t max_gap;      /* longest progress gap on the takeover node in the observe window */
	uint64_t t_gap;        /* host ms where that gap began */
	uint64_t window_bytes; /* acknowledged in the observe window */
	double window_rate;    /* bytes per second */
	struct phases ph;
	struct pressure_result pr;
};

void verdict_input_init(struct verdict_input *in, const struct scenario *sc);
void verdict_input_release(struct verdict_input *in);
struct vseries *verdict_series(struct verdict_input *in, const char *node);
void verdict_add_sample(struct verdict_input *in, const char *node, uint64_t t, uint64_t acked_bytes);
struct vcrm *verdict_add_crm(struct verdict_input *in);
struct vmemseries *verdict_mem_series(struct verdict_input *in, const char *node);
struct vmemseries *verdict_add_mem(struct verdict_input *in, const char *node, uint64_t t, uint64_t avail_kb,
				   uint64_t total_kb);

void verdict_judge(const struct verdict_input *in, struct verdict *v);
/* A failback: the victim survives, the group leaves it, and its writes go to the new server. */
bool verdict_server_to_client(const struct verdict_input *in);
/* The judged node: in->judged, or the takeover node where it is not set (inputs built before failback). */
const char *verdict_judged_node(const struct verdict_input *in);

const char *verdict_name(enum verdict_class c);
int verdict_exit_code(enum verdict_class c);
/* The exit code of the class named name (as report.json spells it); -1 for no such class. */
int verdict_code_of_name(const char *name);
/* ERROR or ERROR-PRESSURE-LOST: the run could not judge the kernel (exit 125). */
bool verdict_is_error(enum verdict_class c);

#endif
