/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef TAKEOVER_RUN_H
#define TAKEOVER_RUN_H
/*
 * `takeover run`: image -> cluster up -> writers -> steady state -> pressure
 * -> fault -> takeover watched -> progress judged -> integrity verified ->
 * verdict -> report -> down. One poll() loop (monitor.c) feeds the timeline;
 * the verdict reads the timeline back.
 */
#include <stdbool.h>
#include <stdint.h>

#include "cluster/cluster.h"
#include "forensics/console/console.h"
#include "forensics/capture.h"
#include "forensics/forensics.h"
#include "report/report.h"
#include "scenario/scenario.h"
#include "run/timeline.h"
#include "verdict/verdict.h"

struct run_opts {
	const char *results_root; /* NULL: <datadir>/results */
	const char *dir;          /* the run directory itself (an iteration's); NULL: results_root/<run-id> */
	const char *cache_dir;
	const char *name;         /* cluster name; NULL: generated */
	const char *kernel, *initrd, *modules, *kernel_tree; /* kernel under test overrides */
	bool keep;                /* leave the cluster running */
	bool keep_on_fail;        /* leave it running when the verdict is not PASS */
	bool vmcore;              /* take a memory-only ELF dump of the node on trouble */
	bool cold;                /* boot the cluster cold: no snapshot read or saved */
	bool quiet;
};

struct run;

struct run_node {
	struct run *run;          /* the run it belongs to (the console sink's context) */
	bool writer, hog;
	bool writer_running, hog_running;
	uint64_t acked_bytes, acked_records, records, errors;
	uint64_t last_ack_t;      /* timeline ms of the last acked_bytes increase */
	uint64_t first_progress_t;
	int dom_state;
	int console_fd;
	struct console_tail tail;
	uint64_t console_t;       /* timeline ms of the last console output */
	struct cpu_ring cpu;      /* the domain's vCPU time, sampled every second */
	double psi_some, psi_full; /* memory pressure avg10 in %, from the last sample */
	int hog_starts;            /* how often its hog was started (restarts: hog_starts - 1) */
	uint64_t hog_restart_t;    /* timeline ms at which to start the hog again; 0: none due */
	struct oom_counter oom;    /* its vmstat oom_kill, as last sampled */
	uint64_t booted_t;         /* timeline ms of the agent's hello from a new boot; 0: none */
};

struct run {
	const struct scenario *sc;
	struct run_opts o;
	struct cluster c;
	bool cluster_up;
	char run_id[64];
	char *dir;
	struct timeline tl;
	struct run_node nodes[SCENARIO_MAX_NODES];
	int victim, takeover; /* node ids, 0 until chosen: the fault's node, the group's next node */
	int judged;           /* whose writes are judged: takeover, or a failback's victim */
	int dead;             /* the victim when the fault takes it down; 0 when it survives */
	bool group_moves;     /* the victim runs the NFS group */
	bool group_restarts;  /* the fault makes the cluster restart the group in place (nfsd-kill) */
	bool group_down_seen; /* a poll after the fault showed the group not running */
	bool pressure_after_done;
	bool pressure_on;     /* hogs started and not yet stopped: an exited hog is restarted */
	/* the asynchronous crm_mon poll */
	int crm_node;
	unsigned crm_id;
	uint64_t crm_sent, crm_next;
	struct crm_status crm_last;
	bool crm_have;
	struct crm_status fenced_at_fault; /* crm_last when the fault fired: fencing already in the history */
	/* fault state */
	bool fault_fired;
	uint64_t t_fault, t_resume, t_after_resume_done;
	uint64_t t_nfsd_takeover; /* nfsd first seen started on the takeover node after the fault */
	bool after_resume_done;
	bool lifted;              /* the fault's lift() ran ([fault] duration after it) */
	uint64_t next_progress_line, next_domain_poll;
	char error[256];          /* first infrastructure error */
	struct forensics fx;      /* evidence captured on trouble */
};

/* Runs sc; returns the exit code; *result_dir (when not NULL) gets results/<run-id> or NULL. */
int run_scenario(const struct scenario *sc, const struct run_opts *o, char **result_dir);

/*
 * iterations.c: sc run n times, each on a cluster of its own, into
 * results/<stamp>-iterations/iter-K/, then the summary over all of them
 * (report/series.h) printed and written to summary.json beside them.
 * until_fail stops at the first failing iteration (with o->keep_on_fail its
 * cluster stays up). Returns the series' exit code: 1 when any iteration
 * failed, else 125 when any could not be judged, else 0.
 */
int run_iterations(const struct scenario *sc, const struct run_opts *o, int n, bool until_fail);

/* audit.c: the cluster's state checked (IP, shared fs, group, membership, fencing); an "audit" event. */
void run_audit(struct run *r, const char *when);
/* One node's answer to the audit's command: it holds the floating IP ip; it mounts the shared file system. */
bool audit_holds_ip(const char *out, const char *ip);
bool audit_mounts_shared_fs(const char *out);

/* monitor.c: the event loop and its handlers. */
void monitor_init(struct run *r);
void monitor_release(struct run *r);
/*
 * Runs the loop until done(r) is true or the deadline (timeline ms) passes:
 * 0, -ETIMEDOUT, -EINTR (cancelled), or -errno when it cannot wait (logged).
 */
/* A monitor_until() predicate: true ends the wait; arg is the caller's. */
typedef bool (*monitor_done_fn)(struct run *r, void *arg);
int monitor_until(struct run *r, uint64_t deadline, monitor_done_fn done, void *arg);
void monitor_start_crm_poll(struct run *r, int node);
/*
 * cluster_exec() from inside the loop: while the guest runs argv, consoles,
 * agents and timers are still served, so a kernel report printed meanwhile
 * (say, an oops during verification) is classified as it happens.
 */
int monitor_exec(struct run *r, int node, const char *const *argv, uint64_t timeout_ms, struct strbuf *out,
		 int *rc);
/* One guest command on several nodes at once (one per node), waited for together. */
struct monitor_job {
	int node;	   /* 1-based; set by the caller */
	int ret;	   /* 0, or -errno: the command did not run or did not finish */
	int rc;		   /* its exit status when ret is 0 */
	struct strbuf out; /* initialised by the caller; its output */
};
void monitor_exec_each(struct run *r, struct monitor_job *jobs, int n, const char *const *argv,
		       uint64_t timeout_ms);
/* A job for every node whose agent is connected (the victim too only with with_victim); returns how many. */
int monitor_jobs_answering(struct run *r, struct monitor_job *jobs, bool with_victim);

/*
 * The NFS daemons' error lines in a journal printed with `journalctl -o
 * short-precise` (run/journal.c): fn gets each one's epoch ms (the year
 * from near_ms, a time near the journal's), its source ("rpc.nfsd",
 * "nfsserver(nfsd)") and message. Returns how many.
 */
typedef void (*journal_error_fn)(void *ctx, uint64_t epoch_ms, const char *source, const char *text);
int journal_daemon_errors(const char *journal, uint64_t near_ms, journal_error_fn fn, void *ctx);

/* LOCALIO's tracepoints on every node (run/localio.c): armed before the writers, marked at the fault, counted at the end. */
void localio_arm(struct run *r);
void localio_mark_fault(struct run *r);
void localio_collect(struct run *r);

/* Starts the memory hog on node index i (a restart once it ran before). 0 or -errno. */
int run_start_hog(struct run *r, int i);

/* takeover-verify's last output line: its missing= and corrupt= counts. 0 or -EINVAL. */
int parse_verify_line(const char *out, uint64_t *missing, uint64_t *corrupt);

/* evidence.c: sysrq-w/m/t (and a vmcore with --vmcore) from node, once per run. */
int evidence_capture(struct run *r, int node, const char *reason);

#endif
