/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef TAKEOVER_SCENARIO_H
#define TAKEOVER_SCENARIO_H
/*
 * A scenario file, parsed and validated. Every field is typed, ranged and
 * defaulted by the option table in scenario.c; nothing downstream re-checks
 * it. Times are milliseconds, sizes bytes.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "util/strbuf.h"

#define SCENARIO_MAX_NODES 8

enum accel { ACCEL_AUTO, ACCEL_KVM, ACCEL_TCG };
enum quorum_policy { QUORUM_AUTO, QUORUM_STOP, QUORUM_FREEZE, QUORUM_IGNORE };
enum nfs_version { NFS_V3, NFS_V40, NFS_V41, NFS_V42 };
enum write_mode { WRITE_BUFFERED, WRITE_DIRECT, WRITE_SYNC };
enum pressure_start { PRESSURE_BEFORE, PRESSURE_AFTER };
#include "run/faults/list.h" /* enum fault_kind */

/* A set of nodes named in a scenario: a keyword resolved at run time, or a list. */
enum nodeset_kind { NODESET_NONE, NODESET_ALL, NODESET_TAKEOVER, NODESET_LIST };
struct nodeset {
	enum nodeset_kind kind;
	uint32_t mask; /* NODESET_LIST: bit i = node n<i+1> */
};

/* MemAvailable to hold: absolute bytes, or a percentage of MemTotal. */
struct memtarget {
	bool is_percent;
	unsigned percent;
	uint64_t bytes;
};

/* fault.target: 0 = whichever node runs the NFS group when the fault fires. */
#define TARGET_NFS_SERVER 0

struct scenario {
	char *path; /* file it came from, "<default>" when none */

	struct {
		int nodes;
		uint64_t memory;
		int vcpus;
		int accel;
		uint32_t subnet; /* host byte order, a /24 network address */
		bool fencing;
		int no_quorum_policy; /* enum quorum_policy */
		uint64_t token; /* corosync token, ms; 0: chosen by accelerator */
	} cluster;
	struct {
		char *image; /* "debian" or an absolute path */
		char *initrd;
		char *modules;
		char *cmdline;
		uint64_t hung_task_timeout;
	} kernel;
	struct {
		int version;
		int threads;
		uint64_t grace_time;
		uint64_t lease_time;
		char *export_options;
		char *mount_options;
	} nfs;
	struct {
		struct nodeset writers;
		uint64_t file_size;
		uint64_t record_size;
		int fsync_every;
		int mode;
	} workload;
	struct {
		struct nodeset nodes;
		struct memtarget available;
		int start;
		uint64_t ramp;
		uint64_t tolerance; /* bytes above the target still "within reach" */
		unsigned min_held;  /* percent of the judged window; 0: not checked */
	} pressure;
	struct {
		int kind;
		int target; /* TARGET_NFS_SERVER or node number 1..nodes */
		uint64_t after;
		int repeat;
		uint64_t block_after;
		uint64_t duration; /* disk-stall: how long the server's shared disk is stalled */
	} fault;
	struct {
		uint64_t steady_time;
		uint64_t takeover_timeout;
		uint64_t observe;
		uint64_t max_stall;
		uint64_t min_rate;
		int iterations;
	} verdict;

	/* Line each option was set on (0: default); indexed like the option table. */
	unsigned *lines;
};

/* Longest accepted line, in bytes; longer lines are an error, not a truncation. */
#define SCENARIO_MAX_LINE 4096
/* Largest accepted file; a scenario is a page of text, not a data set. */
#define SCENARIO_MAX_FILE (1024 * 1024)
/* After this many problems the parser stops listing them. */
#define SCENARIO_MAX_ERRORS 50

/*
 * Parse a scenario. Returns the number of problems found (0: *sc is valid and
 * must be released with scenario_release()); each problem is appended to errs
 * as one "FILE:LINE: [section] key: reason" line. On failure *sc is released.
 */
int scenario_load(const char *path, struct scenario *sc, struct strbuf *errs);
int scenario_parse(const char *name, const char *buf, size_t len, const char *basedir,
		   struct scenario *sc, struct strbuf *errs);
void scenario_release(struct scenario *sc);

/* The effective scenario in the file format, every key present: re-parses to the same thing. */
void scenario_write(const struct scenario *sc, struct strbuf *out);
/* The reference generated from the option table: plain text or Markdown. */
void scenario_reference(struct strbuf *out, bool markdown);

/* The path of the built-in default scenario (scenarios/loopback-failover.ini). */
const char *scenario_default_path(void);

/* Printable names of enum values, shared with reports. */
const char *nfs_version_name(int v);
const char *fault_kind_name(int k); /* "destroy" for FAULT_DESTROY: its line in run/faults/list.h */
const char *write_mode_name(int m);
const char *accel_name(int a);
/* Pacemaker's no-quorum-policy for a cluster of n nodes: auto is stop, or ignore for two. */
const char *quorum_policy_name(int p, int nodes);
/* The corosync token (ms) a cluster of this scenario runs with: [cluster] token,
 * or when that is 0, 3000 under KVM and 6000 under TCG. */
unsigned scenario_token_ms(const struct scenario *sc, bool kvm);
/* Its consensus timeout: 1.2 x token, the minimum corosync.conf(5) states. */
unsigned scenario_consensus_ms(const struct scenario *sc, bool kvm);
/* "n3" for 3 */
void node_name(int n, char *buf, size_t len);
bool nodeset_has(const struct nodeset *ns, int node);

#endif
