// SPDX-License-Identifier: GPL-2.0-only
/*
 * Scenario files: one declarative option table (fio's options.c) drives
 * parsing, defaults, range checks, `takeover help scenario` and
 * docs/scenario-reference.md. Adding a key means adding one row here and a
 * field in struct scenario; nothing else needs to learn about it.
 *
 * The parser never stops at the first problem: it reports every one (up to
 * SCENARIO_MAX_ERRORS) as "FILE:LINE: [section] key: reason", so a user
 * fixes a file in one round trip.
 */
#include "scenario/scenario.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <stdarg.h>
#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/paths.h"
#include "util/lev.h"
#include "util/units.h"
#include "util/xalloc.h"

enum opt_type {
	OPT_INT,
	OPT_SIZE,
	OPT_DURATION,
	OPT_RATE,
	OPT_ENUM,
	OPT_BOOL,
	OPT_STRING,
	OPT_KERNEL, /* "debian" or a readable file */
	OPT_PATH,   /* a readable file or directory; empty = unset */
	OPT_SUBNET,
	OPT_NODESET,
	OPT_MEMTARGET,
	OPT_TARGET,
	OPT_PERCENT, /* "90%", stored as unsigned */
};

/* Option flags. */
#define OPTF_SECONDS    (1u << 0) /* durations in whole seconds only */
#define OPTF_OPTLIST    (1u << 1) /* comma-separated mount/export option list */
#define OPTF_CMDLINE    (1u << 2) /* kernel command line words */
#define OPTF_NS_NONE    (1u << 3) /* nodeset accepts "none" */
#define OPTF_NS_ALL     (1u << 4) /* nodeset accepts "all" */
#define OPTF_NS_TAKEOVR (1u << 5) /* nodeset accepts "takeover" */
#define OPTF_MULT_4K    (1u << 6) /* sizes must be a multiple of 4 KiB */
#define OPTF_MULT_1M    (1u << 7) /* sizes must be a multiple of 1 MiB */

struct opt {
	const char *section;
	const char *name;
	enum opt_type type;
	size_t off;
	int64_t min, max; /* INT, SIZE, DURATION, RATE; min == max == 0: unbounded */
	const char *def;  /* default, written as in a scenario file */
	const char *const *choices;
	unsigned flags;
	const char *help;
};

#define OFF(f) offsetof(struct scenario, f)
#define K 1024LL
#define M (1024LL * 1024)
#define G (1024LL * 1024 * 1024)
#define SEC 1000LL
#define MIN (60 * SEC)
#define HOUR (60 * MIN)

static const char *const accel_choices[] = { "auto", "kvm", "tcg", NULL };
static const char *const quorum_choices[] = { "auto", "stop", "freeze", "ignore", NULL };
static const char *const nfsver_choices[] = { "3", "4.0", "4.1", "4.2", NULL };
static const char *const mode_choices[] = { "buffered", "direct", "sync", NULL };
static const char *const start_choices[] = { "before", "after", NULL };
#define FAULT_X_NAME(e, n, s) n,
static const char *const fault_choices[] = { FAULT_LIST(FAULT_X_NAME) NULL };
#undef FAULT_X_NAME

static const struct opt options[] = {
	{ "cluster", "nodes", OPT_INT, OFF(cluster.nodes), 2, SCENARIO_MAX_NODES, "3", NULL, 0,
	  "Number of cluster nodes (n1..nN). One runs the NFS group, the others mount it." },
	{ "cluster", "memory", OPT_SIZE, OFF(cluster.memory), 256 * M, 64 * G, "768M", NULL,
	  OPTF_MULT_1M, "Memory of each node." },
	{ "cluster", "vcpus", OPT_INT, OFF(cluster.vcpus), 1, 16, "1", NULL, 0,
	  "Virtual CPUs of each node." },
	{ "cluster", "accel", OPT_ENUM, OFF(cluster.accel), 0, 0, "auto", accel_choices, 0,
	  "Accelerator. auto probes KVM with a real boot and falls back to TCG." },
	{ "cluster", "subnet", OPT_SUBNET, OFF(cluster.subnet), 0, 0, "10.99.0.0/24", NULL, 0,
	  "Private IPv4 /24 used only inside the cluster's own network namespace." },
	{ "cluster", "fencing", OPT_BOOL, OFF(cluster.fencing), 0, 0, "on", NULL, 0,
	  "Real STONITH (fence_xvm in the guests, fence_virtd on the host)." },
	{ "cluster", "no_quorum_policy", OPT_ENUM, OFF(cluster.no_quorum_policy), 0, 0, "auto", quorum_choices, 0,
	  "What a node cut off from the majority does with the resources it runs (Pacemaker's no-quorum-policy). "
	  "auto: stop, or ignore on two nodes. freeze (or ignore) with fencing = off lets a partitioned server "
	  "keep the NFS group while the others start it: the split brain kind = partition's negative control "
	  "needs." },
	{ "cluster", "token", OPT_DURATION, OFF(cluster.token), 0, MIN, "0s", NULL, 0,
	  "Corosync token timeout (consensus is 1.2 times it): how long a dead node goes unseen. "
	  "0s: 3s under KVM, 6s under TCG. Raise it if healthy nodes get fenced on a slow host." },

	{ "kernel", "image", OPT_KERNEL, OFF(kernel.image), 0, 0, "debian", NULL, 0,
	  "Kernel under test: debian (the guest image's own kernel) or a path to a bzImage." },
	{ "kernel", "initrd", OPT_PATH, OFF(kernel.initrd), 0, 0, "", NULL, 0,
	  "Initramfs for image (optional; a kernel with virtio built in needs none)." },
	{ "kernel", "modules", OPT_PATH, OFF(kernel.modules), 0, 0, "", NULL, 0,
	  "Modules directory for image, as staged by modules_install (optional)." },
	{ "kernel", "cmdline", OPT_STRING, OFF(kernel.cmdline), 0, 0, "", NULL, OPTF_CMDLINE,
	  "Extra kernel command-line arguments, appended to takeover's own." },
	{ "kernel", "hung_task_timeout", OPT_DURATION, OFF(kernel.hung_task_timeout), 0, HOUR,
	  "30s", NULL, OPTF_SECONDS, "Hung-task detector timeout in the guests (0s disables it)." },

	{ "nfs", "version", OPT_ENUM, OFF(nfs.version), 0, 0, "4.2", nfsver_choices, 0,
	  "NFS protocol version every node mounts with." },
	{ "nfs", "threads", OPT_INT, OFF(nfs.threads), 1, 64, "8", NULL, 0,
	  "Number of nfsd threads on the server." },
	{ "nfs", "grace_time", OPT_DURATION, OFF(nfs.grace_time), 10 * SEC, HOUR, "10s", NULL,
	  OPTF_SECONDS, "NFSv4 grace period after nfsd starts (kernel default 90s)." },
	{ "nfs", "lease_time", OPT_DURATION, OFF(nfs.lease_time), 10 * SEC, HOUR, "10s", NULL,
	  OPTF_SECONDS, "NFSv4 lease time." },
	{ "nfs", "export_options", OPT_STRING, OFF(nfs.export_options), 0, 0,
	  "rw,sync,no_root_squash", NULL, OPTF_OPTLIST, "Options of the export (exports(5))." },
	{ "nfs", "mount_options", OPT_STRING, OFF(nfs.mount_options), 0, 0, "hard", NULL,
	  OPTF_OPTLIST, "Extra mount options (nfs(5)); vers= is set from version." },

	{ "workload", "writers", OPT_NODESET, OFF(workload.writers), 0, 0, "all", NULL,
	  OPTF_NS_ALL | OPTF_NS_TAKEOVR,
	  "Nodes that run a writer: all, takeover (the node judged: the one that will take over, or for "
	  "kind = failback the one the group leaves), or a list (n1,n3)." },
	{ "workload", "file_size", OPT_SIZE, OFF(workload.file_size), 4 * K, 64 * G, "256M", NULL,
	  OPTF_MULT_4K, "Size of each writer's file; the writer wraps around at the end." },
	{ "workload", "record_size", OPT_SIZE, OFF(workload.record_size), 4 * K, 16 * M, "64K", NULL,
	  OPTF_MULT_4K, "Size of one sequence-numbered, checksummed record." },
	{ "workload", "fsync_every", OPT_INT, OFF(workload.fsync_every), 1, 1000000, "16", NULL, 0,
	  "Records between two fsync() calls; each acknowledged fsync is reported." },
	{ "workload", "mode", OPT_ENUM, OFF(workload.mode), 0, 0, "buffered", mode_choices, 0,
	  "I/O mode: buffered page cache, O_DIRECT, or O_SYNC." },

	{ "pressure", "nodes", OPT_NODESET, OFF(pressure.nodes), 0, 0, "takeover", NULL,
	  OPTF_NS_NONE | OPTF_NS_ALL | OPTF_NS_TAKEOVR,
	  "Nodes that run the memory hog: none, takeover (the node judged, as for [workload] writers), "
	  "all, or a list." },
	{ "pressure", "available", OPT_MEMTARGET, OFF(pressure.available), 0, 0, "48M", NULL, 0,
	  "MemAvailable the hog holds the node at: a size, or a percentage of MemTotal." },
	{ "pressure", "start", OPT_ENUM, OFF(pressure.start), 0, 0, "before", start_choices, 0,
	  "Start the pressure before the fault, or after it (once the group has moved)." },
	{ "pressure", "ramp", OPT_DURATION, OFF(pressure.ramp), 0, 10 * MIN, "10s", NULL, 0,
	  "Time the hog takes to reach its target (again after the OOM killer removed it: it is "
	  "restarted at once)." },
	{ "pressure", "tolerance", OPT_SIZE, OFF(pressure.tolerance), 0, 64 * G, "16M", NULL, 0,
	  "Within reach of the target: a sample counts as under pressure while MemAvailable is at "
	  "most available + tolerance." },
	{ "pressure", "min_held", OPT_PERCENT, OFF(pressure.min_held), 0, 100, "90%", NULL, 0,
	  "Least share of the judged window (fault to the end of the observe window) in which every "
	  "pressured node was within reach of the target; below it the run did not test the kernel "
	  "under pressure: ERROR-PRESSURE-LOST instead of PASS (exit 125). 0% turns the check off." },

	{ "fault", "kind", OPT_ENUM, OFF(fault.kind), 0, 0, "destroy", fault_choices, 0,
	  "destroy: power off the domain; crash: sysrq-c from the host keyboard; panic: an NMI "
	  "the guest panics on; freeze: pause the domain; block-loopback: destroy, then drop the "
	  "takeover node's loop-back NFS traffic once its writes resumed (the negative control: "
	  "must end FAIL-STALL); failback: no node fails, the NFS group is moved away from its "
	  "node on purpose (a location constraint, as `crm resource move` makes), and that node, "
	  "writing through its loop-back mount, becomes a client of the takeover node: its own "
	  "writes are judged, and [pressure] nodes = takeover squeezes it; disk-stall: no node "
	  "fails and the group stays, the NFS server's shared disk stops completing I/O for "
	  "[fault] duration (QEMU block throttling through libvirt), and the server's own "
	  "loop-back writes are judged from the fault on: a stall longer than max_stall is "
	  "FAIL-STALL; partition: the node is cut off from the others and keeps running (nftables "
	  "on the host side of its network port, inside the cluster's namespace); the majority "
	  "fences it and takes over, judged as after destroy, and an audit that finds the floating "
	  "IP or the shared file system on two nodes ends FAIL-SPLIT-BRAIN (fencing = off with "
	  "[cluster] no_quorum_policy = freeze must); nfsd-kill: no node fails, nfsd's threads on "
	  "the NFS server are killed (stopped through /proc/fs/nfsd/threads where the kernel "
	  "ignores SIGKILL), Pacemaker's monitor of nfsd (every 30s) notices and restarts the "
	  "group in place, and the server's loop-back writes must resume within takeover_timeout "
	  "of the kill." },
	{ "fault", "target", OPT_TARGET, OFF(fault.target), 0, 0, "nfs-server", NULL, 0,
	  "nfs-server (the node running the NFS group when the fault fires) or a node name." },
	{ "fault", "after", OPT_DURATION, OFF(fault.after), 0, HOUR, "30s", NULL, 0,
	  "Time in steady state before the fault; at least [verdict] steady_time." },
	{ "fault", "repeat", OPT_INT, OFF(fault.repeat), 1, 10, "1", NULL, 0,
	  "Number of faults, each after the previous takeover settled." },
	{ "fault", "block_after", OPT_DURATION, OFF(fault.block_after), 0, HOUR, "10s", NULL, 0,
	  "block-loopback only: time after the loop-back writes resumed before they are blocked." },
	{ "fault", "duration", OPT_DURATION, OFF(fault.duration), SEC, HOUR, "15s", NULL, 0,
	  "disk-stall only: how long the NFS server's shared disk stalls before its I/O is let go." },

	{ "verdict", "steady_time", OPT_DURATION, OFF(verdict.steady_time), SEC, HOUR, "20s", NULL, 0,
	  "Window of steady progress required before the fault." },
	{ "verdict", "takeover_timeout", OPT_DURATION, OFF(verdict.takeover_timeout), SEC, HOUR,
	  "120s", NULL, 0,
	  "Time from the fault until the group runs and loop-back writes resume (else FAIL-TAKEOVER-TIMEOUT)." },
	{ "verdict", "observe", OPT_DURATION, OFF(verdict.observe), SEC, HOUR, "60s", NULL, 0,
	  "Window after writes resume in which progress is judged." },
	{ "verdict", "max_stall", OPT_DURATION, OFF(verdict.max_stall), 3 * SEC, HOUR, "20s", NULL, 0,
	  "Longest allowed progress gap on the takeover node after resume (else FAIL-STALL); "
	  "progress is sampled once a second, so a few seconds at least." },
	{ "verdict", "min_rate", OPT_RATE, OFF(verdict.min_rate), 0, 0, "64K", NULL, 0,
	  "Least write rate, bytes/s, over the observe window (else FAIL-LIVELOCK)." },
	{ "verdict", "iterations", OPT_INT, OFF(verdict.iterations), 1, 1000, "1", NULL, 0,
	  "Failovers judged per `takeover run`, each on a cluster of its own; the verdict is then "
	  "over all of them (failure rate with its 95 % interval). --iterations overrides it." },
};

#define N_OPTS (sizeof(options) / sizeof(options[0]))

static const char *const sections[] = {
	"cluster", "kernel", "nfs", "workload", "pressure", "fault", "verdict", NULL,
};

/* ---- names shared with reports ---- */

const char *nfs_version_name(int v) { return nfsver_choices[v]; }
const char *fault_kind_name(int k) { return fault_choices[k]; }
const char *write_mode_name(int m) { return mode_choices[m]; }
const char *accel_name(int a) { return accel_choices[a]; }
const char *quorum_policy_name(int p, int nodes)
{
	/* Two nodes cannot have quorum without the other: let the survivor run (after fencing). */
	if (p == QUORUM_AUTO)
		return nodes == 2 ? "ignore" : "stop";
	return quorum_choices[p];
}

unsigned scenario_token_ms(const struct scenario *sc, bool kvm)
{
	/*
	 * Under TCG: no token gap above 2.1 s was logged (token_warning at 20 %)
	 * through a whole default run, memory pressure included, so 6 s (6.65 s
	 * with the 3-node coefficient) leaves three times that; the earlier 10 s
	 * spent ~8 s more of every takeover waiting for the dead node.
	 */
	if (sc->cluster.token)
		return (unsigned)sc->cluster.token;
	return kvm ? 3000 : 6000;
}

unsigned scenario_consensus_ms(const struct scenario *sc, bool kvm)
{
	return (scenario_token_ms(sc, kvm) * 6 + 4) / 5; /* rounded up: never below 1.2 x */
}

void node_name(int n, char *buf, size_t len)
{
	snprintf(buf, len, "n%d", n);
}

bool nodeset_has(const struct nodeset *ns, int node)
{
	return ns->kind == NODESET_ALL ||
	       (ns->kind == NODESET_LIST && node >= 1 && node <= 32 && (ns->mask & (1u << (node - 1))));
}

const char *scenario_default_path(void)
{
	static char *path;

	if (!path)
		path = xasprintf("%s/scenarios/loopback-failover.ini", takeover_datadir());
	return path;
}

/* ---- the parser ---- */

struct parse_ctx {
	const char *file;
	const char *basedir;
	struct scenario *sc;
	struct strbuf *errs;
	int nerr;
};

static void perr(struct parse_ctx *c, unsigned line, const struct opt *o, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void perr(struct parse_ctx *c, unsigned line, const struct opt *o, const char *fmt, ...)
{
	va_list ap;

	/* List SCENARIO_MAX_ERRORS problems in full; the next one only says where it stopped. */
	c->nerr++;
	if (c->nerr > SCENARIO_MAX_ERRORS + 1)
		return;
	if (c->nerr == SCENARIO_MAX_ERRORS + 1) {
		strbuf_addf(c->errs, "%s:%u: too many problems, stopping here\n", c->file, line);
		return;
	}
	strbuf_addf(c->errs, "%s:%u: ", c->file, line);
	if (o)
		strbuf_addf(c->errs, "[%s] %s: ", o->section, o->name);
	va_start(ap, fmt);
	strbuf_vaddf(c->errs, fmt, ap);
	va_end(ap);
	strbuf_addch(c->errs, '\n');
}

static void *field(struct scenario *sc, const struct opt *o)
{
	return (char *)sc + o->off;
}

static const void *cfield(const struct scenario *sc, const struct opt *o)
{
	return (const char *)sc + o->off;
}

static void fmt_bound(const struct opt *o, int64_t v, char *buf, size_t len)
{
	switch (o->type) {
	case OPT_SIZE:
	case OPT_RATE:
		format_size((uint64_t)v, buf, len);
		break;
	case OPT_DURATION:
		format_duration_ms((uint64_t)v, buf, len);
		break;
	case OPT_PERCENT:
		snprintf(buf, len, "%lld%%", (long long)v);
		break;
	default:
		snprintf(buf, len, "%lld", (long long)v);
	}
}

static int check_range(struct parse_ctx *c, unsigned line, const struct opt *o, uint64_t v)
{
	char lo[32], hi[32];

	if (o->min == 0 && o->max == 0)
		return 0;
	if (v >= (uint64_t)o->min && v <= (uint64_t)o->max)
		return 0;
	fmt_bound(o, o->min, lo, sizeof(lo));
	fmt_bound(o, o->max, hi, sizeof(hi));
	perr(c, line, o, "out of range (%s..%s)", lo, hi);
	return -ERANGE;
}

static int parse_number(struct parse_ctx *c, unsigned line, const struct opt *o, const char *v,
			uint64_t *out)
{
	const char *why = NULL;
	int r;

	switch (o->type) {
	case OPT_INT:
		r = parse_uint(v, out, &why);
		break;
	case OPT_SIZE:
		r = parse_size(v, out, &why);
		break;
	case OPT_DURATION:
		r = parse_duration_ms(v, out, &why);
		break;
	default:
		r = parse_rate(v, out, &why);
		break;
	}
	if (r < 0) {
		perr(c, line, o, "'%s': %s", v, why);
		return r;
	}
	if (check_range(c, line, o, *out) < 0)
		return -ERANGE;
	if ((o->flags & OPTF_SECONDS) && *out % 1000) {
		perr(c, line, o, "'%s': must be whole seconds", v);
		return -EINVAL;
	}
	if ((o->flags & OPTF_MULT_4K) && *out % 4096) {
		perr(c, line, o, "'%s': must be a multiple of 4K", v);
		return -EINVAL;
	}
	if ((o->flags & OPTF_MULT_1M) && *out % (1024 * 1024)) {
		perr(c, line, o, "'%s': must be a multiple of 1M", v);
		return -EINVAL;
	}
	return 0;
}

static void store_number(struct scenario *sc, const struct opt *o, uint64_t v)
{
	if (o->type == OPT_INT)
		*(int *)field(sc, o) = (int)v;
	else
		*(uint64_t *)field(sc, o) = v;
}

static int parse_choice(struct parse_ctx *c, unsigned line, const struct opt *o, const char *v,
			const char *const *choices, int *out)
{
	struct strbuf list = STRBUF_INIT;
	const char *near;

	for (int i = 0; choices[i]; i++) {
		if (!strcmp(v, choices[i])) {
			*out = i;
			return 0;
		}
	}
	for (int i = 0; choices[i]; i++)
		strbuf_addf(&list, "%s%s", i ? ", " : "", choices[i]);
	near = closest_match(v, choices);
	if (near)
		perr(c, line, o, "'%s' is not one of %s (did you mean '%s'?)", v, list.buf, near);
	else
		perr(c, line, o, "'%s' is not one of %s", v, list.buf);
	strbuf_release(&list);
	return -EINVAL;
}

static int parse_bool(struct parse_ctx *c, unsigned line, const struct opt *o, const char *v,
		      bool *out)
{
	static const char *const yes[] = { "on", "yes", "true", "1", NULL };
	static const char *const no[] = { "off", "no", "false", "0", NULL };

	for (int i = 0; yes[i]; i++) {
		if (!strcmp(v, yes[i])) {
			*out = true;
			return 0;
		}
		if (!strcmp(v, no[i])) {
			*out = false;
			return 0;
		}
	}
	perr(c, line, o, "'%s' is not on or off", v);
	return -EINVAL;
}

static bool valid_optlist(const char *v)
{
	/* Characters of exports(5)/nfs(5) option lists; nothing that could end a line or a field. */
	for (const char *p = v; *p; p++)
		if (!isalnum((unsigned char)*p) && !strchr(",=_-.:/@", *p))
			return false;
	return *v && v[0] != ',' && v[strlen(v) - 1] != ',' && !strstr(v, ",,");
}

static bool valid_cmdline(const char *v)
{
	for (const char *p = v; *p; p++)
		if (!isprint((unsigned char)*p) || *p == '"' || *p == '\'' || *p == '\\')
			return false;
	return true;
}

static int parse_string(struct parse_ctx *c, unsigned line, const struct opt *o, const char *v,
			char **out)
{
	if ((o->flags & OPTF_OPTLIST) && !valid_optlist(v)) {
		perr(c, line, o, "'%s': not a comma-separated option list", v);
		return -EINVAL;
	}
	if ((o->flags & OPTF_CMDLINE) && !valid_cmdline(v)) {
		perr(c, line, o, "quotes, backslashes and control characters are not allowed");
		return -EINVAL;
	}
	/* "key=#x" is a value, but scenario_write()'s "key = #x" would read as a comment. */
	if ((o->flags & OPTF_CMDLINE) && (*v == '#' || *v == ';')) {
		perr(c, line, o, "'%s': must not start with '#' or ';'", v);
		return -EINVAL;
	}
	if ((o->flags & OPTF_CMDLINE) && strlen(v) > 1024) {
		perr(c, line, o, "longer than 1024 characters");
		return -EINVAL;
	}
	free(*out);
	*out = xstrdup(v);
	return 0;
}

static int parse_path(struct parse_ctx *c, unsigned line, const struct opt *o, const char *v,
		      char **out)
{
	char *joined, *real;

	if (!*v || (o->type == OPT_KERNEL && !strcmp(v, "debian"))) {
		free(*out);
		*out = xstrdup(v);
		return 0;
	}
	joined = v[0] == '/' || !c->basedir ? xstrdup(v) : xasprintf("%s/%s", c->basedir, v);
	real = realpath(joined, NULL);
	if (!real || access(real, R_OK) < 0) {
		perr(c, line, o, "'%s': %s", joined, strerror(errno));
		free(joined);
		free(real);
		return -ENOENT;
	}
	free(joined);
	free(*out);
	*out = real;
	return 0;
}

static int parse_subnet(struct parse_ctx *c, unsigned line, const struct opt *o, const char *v,
			uint32_t *out)
{
	char addr[INET_ADDRSTRLEN];
	const char *slash = strchr(v, '/');
	struct in_addr in;
	uint32_t a;

	if (!slash || slash - v >= (ptrdiff_t)sizeof(addr) || strcmp(slash, "/24")) {
		perr(c, line, o, "'%s': must be an IPv4 network with prefix /24", v);
		return -EINVAL;
	}
	memcpy(addr, v, (size_t)(slash - v));
	addr[slash - v] = '\0';
	if (inet_pton(AF_INET, addr, &in) != 1) {
		perr(c, line, o, "'%s': not an IPv4 address", v);
		return -EINVAL;
	}
	a = ntohl(in.s_addr);
	if (a & 0xff) {
		perr(c, line, o, "'%s': host bits set (did you mean '%u.%u.%u.0/24'?)", v, a >> 24,
		     (a >> 16) & 0xff, (a >> 8) & 0xff);
		return -EINVAL;
	}
	/* Private ranges only: the addresses must never collide with a real network. */
	if ((a >> 24) != 10 && (a >> 20) != 0xac1 && (a >> 16) != 0xc0a8) {
		perr(c, line, o, "'%s': must be a private range (10/8, 172.16/12, 192.168/16)", v);
		return -EINVAL;
	}
	*out = a;
	return 0;
}

/* "n3" -> 3; 0 when word is not a node name. */
static int parse_node_name(const char *w)
{
	uint64_t n;
	const char *why;

	if (w[0] != 'n' || parse_uint(w + 1, &n, &why) < 0 || w[1] == '0' || n < 1 ||
	    n > SCENARIO_MAX_NODES)
		return 0;
	return (int)n;
}

static int parse_nodeset(struct parse_ctx *c, unsigned line, const struct opt *o, const char *v,
			 struct nodeset *out)
{
	static const struct { const char *word; unsigned flag; enum nodeset_kind kind; } kw[] = {
		{ "none", OPTF_NS_NONE, NODESET_NONE },
		{ "all", OPTF_NS_ALL, NODESET_ALL },
		{ "takeover", OPTF_NS_TAKEOVR, NODESET_TAKEOVER },
	};
	struct nodeset ns = { NODESET_LIST, 0 };
	char *copy, *save = NULL;
	int bad = 0;

	for (size_t i = 0; i < sizeof(kw) / sizeof(kw[0]); i++) {
		if (!strcmp(v, kw[i].word) && (o->flags & kw[i].flag)) {
			out->kind = kw[i].kind;
			out->mask = 0;
			return 0;
		}
	}
	copy = xstrdup(v);
	for (char *w = strtok_r(copy, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
		while (*w == ' ' || *w == '\t')
			w++;
		char *e = w + strlen(w);
		while (e > w && (e[-1] == ' ' || e[-1] == '\t'))
			*--e = '\0';
		int n = parse_node_name(w);
		if (!n) {
			perr(c, line, o, "'%s' is not a node name (n1..n%d)%s", w, SCENARIO_MAX_NODES,
			     o->flags & OPTF_NS_NONE ? ", none, all or takeover" : ", all or takeover");
			bad = 1;
			break;
		}
		if (ns.mask & (1u << (n - 1))) {
			perr(c, line, o, "node '%s' listed twice", w);
			bad = 1;
			break;
		}
		ns.mask |= 1u << (n - 1);
	}
	free(copy);
	if (bad)
		return -EINVAL;
	if (!ns.mask) {
		perr(c, line, o, "empty node list");
		return -EINVAL;
	}
	*out = ns;
	return 0;
}

static int parse_memtarget(struct parse_ctx *c, unsigned line, const struct opt *o, const char *v,
			   struct memtarget *out)
{
	struct memtarget t = { 0 };
	const char *why;

	if (parse_size_or_percent(v, &t.bytes, &t.percent, &t.is_percent, &why) < 0) {
		perr(c, line, o, "'%s': %s", v, why);
		return -EINVAL;
	}
	*out = t;
	return 0;
}

static int parse_target(struct parse_ctx *c, unsigned line, const struct opt *o, const char *v,
			int *out)
{
	int n;

	if (!strcmp(v, "nfs-server")) {
		*out = TARGET_NFS_SERVER;
		return 0;
	}
	n = parse_node_name(v);
	if (!n) {
		perr(c, line, o, "'%s' is neither nfs-server nor a node name (n1..n%d)", v,
		     SCENARIO_MAX_NODES);
		return -EINVAL;
	}
	*out = n;
	return 0;
}

static int parse_percent_opt(struct parse_ctx *c, unsigned line, const struct opt *o,
			     const char *v, unsigned *out)
{
	const char *why;
	unsigned pct;

	if (parse_pct(v, &pct, &why) < 0) {
		perr(c, line, o, "'%s': %s", v, why);
		return -EINVAL;
	}
	if (pct < (unsigned)o->min || pct > (unsigned)o->max) {
		perr(c, line, o, "out of range (%lld%%..%lld%%)", (long long)o->min, (long long)o->max);
		return -ERANGE;
	}
	*out = pct;
	return 0;
}

static int set_option(struct parse_ctx *c, unsigned line, const struct opt *o, const char *v)
{
	struct scenario *sc = c->sc;
	uint64_t n;

	switch (o->type) {
	case OPT_INT:
	case OPT_SIZE:
	case OPT_DURATION:
	case OPT_RATE:
		if (parse_number(c, line, o, v, &n) < 0)
			return -EINVAL;
		store_number(sc, o, n);
		return 0;
	case OPT_ENUM:
		return parse_choice(c, line, o, v, o->choices, field(sc, o));
	case OPT_BOOL:
		return parse_bool(c, line, o, v, field(sc, o));
	case OPT_STRING:
		return parse_string(c, line, o, v, field(sc, o));
	case OPT_KERNEL:
	case OPT_PATH:
		return parse_path(c, line, o, v, field(sc, o));
	case OPT_SUBNET:
		return parse_subnet(c, line, o, v, field(sc, o));
	case OPT_NODESET:
		return parse_nodeset(c, line, o, v, field(sc, o));
	case OPT_MEMTARGET:
		return parse_memtarget(c, line, o, v, field(sc, o));
	case OPT_TARGET:
		return parse_target(c, line, o, v, field(sc, o));
	case OPT_PERCENT:
		return parse_percent_opt(c, line, o, v, field(sc, o));
	}
	return -EINVAL;
}

static const struct opt *find_option(const char *section, const char *key)
{
	for (size_t i = 0; i < N_OPTS; i++)
		if (!strcmp(options[i].section, section) && !strcmp(options[i].name, key))
			return &options[i];
	return NULL;
}

static bool is_section(const char *s)
{
	for (int i = 0; sections[i]; i++)
		if (!strcmp(sections[i], s))
			return true;
	return false;
}

static void unknown_key(struct parse_ctx *c, unsigned line, const char *section, const char *key)
{
	const char *names[N_OPTS + 1];
	size_t n = 0;
	const char *near;

	for (size_t i = 0; i < N_OPTS; i++)
		if (!strcmp(options[i].section, section))
			names[n++] = options[i].name;
	names[n] = NULL;
	near = closest_match(key, names);
	if (near) {
		perr(c, line, NULL, "[%s] %s: unknown key (did you mean '%s'?)", section, key, near);
		return;
	}
	for (size_t i = 0; i < N_OPTS; i++) {
		if (!strcmp(options[i].name, key)) {
			perr(c, line, NULL, "[%s] %s: unknown key (did you mean [%s] %s?)", section, key,
			     options[i].section, key);
			return;
		}
	}
	perr(c, line, NULL, "[%s] %s: unknown key", section, key);
}

static char *trim(char *s)
{
	char *e;

	while (*s == ' ' || *s == '\t')
		s++;
	e = s + strlen(s);
	while (e > s && (e[-1] == ' ' || e[-1] == '\t'))
		*--e = '\0';
	return s;
}

/* A '#' or ';' that starts the line or follows whitespace begins a comment. */
static void strip_comment(char *s)
{
	for (char *p = s; *p; p++) {
		if ((*p == '#' || *p == ';') && (p == s || p[-1] == ' ' || p[-1] == '\t')) {
			*p = '\0';
			return;
		}
	}
}

static bool valid_name(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!islower((unsigned char)*s) && !isdigit((unsigned char)*s) && *s != '_' && *s != '-')
			return false;
	return true;
}

struct parse_state {
	char section[64];
	bool seen_header; /* any section header, good or bad, so far */
	bool section_ok;  /* the current section is a known one */
	unsigned section_line[sizeof(sections) / sizeof(sections[0])];
};

static void parse_section(struct parse_ctx *c, struct parse_state *st, unsigned line, char *s)
{
	char *end = strchr(s, ']');
	char *name;

	st->section_ok = false;
	st->seen_header = true;
	st->section[0] = '\0';
	if (!end) {
		perr(c, line, NULL, "section header without ']'");
		return;
	}
	*end = '\0';
	if (*trim(end + 1)) {
		perr(c, line, NULL, "text after the section header");
		return;
	}
	name = trim(s + 1);
	if (!is_section(name)) {
		const char *near = closest_match(name, sections);
		if (near)
			perr(c, line, NULL, "[%.60s]: unknown section (did you mean [%s]?)", name, near);
		else
			perr(c, line, NULL, "[%.60s]: unknown section", name);
		return;
	}
	for (int i = 0; sections[i]; i++) {
		if (strcmp(sections[i], name))
			continue;
		if (st->section_line[i]) {
			perr(c, line, NULL, "[%s]: duplicate section (first at line %u)", name,
			     st->section_line[i]);
			return;
		}
		st->section_line[i] = line;
	}
	snprintf(st->section, sizeof(st->section), "%s", name);
	st->section_ok = true;
}

static void parse_keyval(struct parse_ctx *c, struct parse_state *st, unsigned line, char *s)
{
	char *eq = strchr(s, '=');
	char *key, *val;
	const struct opt *o;

	if (!eq) {
		perr(c, line, NULL, "expected 'key = value', '[section]' or a comment");
		return;
	}
	*eq = '\0';
	key = trim(s);
	val = trim(eq + 1);
	if (!valid_name(key)) {
		perr(c, line, NULL, "'%.60s': not a valid key name", key);
		return;
	}
	if (!st->seen_header) {
		perr(c, line, NULL, "%s: key outside any section", key);
		return;
	}
	if (!st->section_ok)
		return; /* the bad section header was reported already */
	o = find_option(st->section, key);
	if (!o) {
		unknown_key(c, line, st->section, key);
		return;
	}
	unsigned *seen = &c->sc->lines[o - options];
	if (*seen) {
		perr(c, line, o, "duplicate key (first set at line %u)", *seen);
		return;
	}
	*seen = line;
	set_option(c, line, o, val);
}

static void parse_line(struct parse_ctx *c, struct parse_state *st, unsigned line, char *s,
		       size_t len)
{
	if (len && s[len - 1] == '\r')
		s[--len] = '\0';
	if (memchr(s, '\0', len)) {
		perr(c, line, NULL, "NUL byte in line");
		return;
	}
	if (len > SCENARIO_MAX_LINE) {
		perr(c, line, NULL, "line too long (%zu bytes, at most %d)", len, SCENARIO_MAX_LINE);
		return;
	}
	strip_comment(s);
	s = trim(s);
	if (!*s)
		return;
	if (*s == '[')
		parse_section(c, st, line, s);
	else
		parse_keyval(c, st, line, s);
}

static const struct opt *opt_by_name(const char *section, const char *name)
{
	const struct opt *o = find_option(section, name);

	if (!o)
		abort(); /* a typo in this file, caught by the unit tests */
	return o;
}

static unsigned opt_line(const struct parse_ctx *c, const struct opt *o)
{
	return c->sc->lines[o - options];
}

/* Report a cross-key problem at the line of the first of the keys that was set explicitly. */
static const struct opt *blame(const struct parse_ctx *c, const struct opt *a, const struct opt *b)
{
	return opt_line(c, a) ? a : b;
}

static void check_nodeset(struct parse_ctx *c, const char *section, const char *name,
			  const struct nodeset *ns)
{
	const struct opt *o = opt_by_name(section, name);
	int nodes = c->sc->cluster.nodes;

	if (ns->kind != NODESET_LIST || !(ns->mask >> nodes))
		return;
	for (int i = nodes + 1; i <= SCENARIO_MAX_NODES; i++) {
		if (ns->mask & (1u << (i - 1))) {
			const struct opt *at = blame(c, o, opt_by_name("cluster", "nodes"));
			perr(c, opt_line(c, at), at, "node 'n%d' does not exist (the cluster has %d nodes)", i,
			     nodes);
			return;
		}
	}
}

/* Checks that need more than one key (fio's fixup_options). */
static void cross_check(struct parse_ctx *c)
{
	struct scenario *sc = c->sc;
	const struct opt *o;

	check_nodeset(c, "workload", "writers", &sc->workload.writers);
	check_nodeset(c, "pressure", "nodes", &sc->pressure.nodes);
	if (sc->fault.target > sc->cluster.nodes) {
		o = blame(c, opt_by_name("fault", "target"), opt_by_name("cluster", "nodes"));
		perr(c, opt_line(c, o), o, "node 'n%d' does not exist (the cluster has %d nodes)",
		     sc->fault.target, sc->cluster.nodes);
	}
	if ((sc->fault.kind == FAULT_FAILBACK || sc->fault.kind == FAULT_DISK_STALL) &&
	    sc->fault.target != TARGET_NFS_SERVER) {
		o = blame(c, opt_by_name("fault", "target"), opt_by_name("fault", "kind"));
		perr(c, opt_line(c, o), o, "%s acts on the node serving NFS: target must be nfs-server",
		     fault_kind_name(sc->fault.kind));
	}
	if (sc->workload.record_size > sc->workload.file_size) {
		o = blame(c, opt_by_name("workload", "record_size"), opt_by_name("workload", "file_size"));
		perr(c, opt_line(c, o), o, "record_size is larger than file_size");
	}
	if (!sc->pressure.available.is_percent && sc->pressure.available.bytes >= sc->cluster.memory) {
		o = blame(c, opt_by_name("pressure", "available"), opt_by_name("cluster", "memory"));
		perr(c, opt_line(c, o), o, "available must be less than [cluster] memory");
	}
	if (sc->fault.after < sc->verdict.steady_time) {
		o = blame(c, opt_by_name("fault", "after"), opt_by_name("verdict", "steady_time"));
		perr(c, opt_line(c, o), o, "[fault] after must be at least [verdict] steady_time");
	}
	if (sc->kernel.image && !strcmp(sc->kernel.image, "debian") &&
	    ((sc->kernel.initrd && *sc->kernel.initrd) || (sc->kernel.modules && *sc->kernel.modules))) {
		o = opt_by_name("kernel", *sc->kernel.initrd ? "initrd" : "modules");
		perr(c, opt_line(c, o), o, "only meaningful with [kernel] image = PATH");
	}
}

static void apply_defaults(struct parse_ctx *c)
{
	for (size_t i = 0; i < N_OPTS; i++)
		if (set_option(c, 0, &options[i], options[i].def) < 0)
			abort(); /* a bad default is a bug; test_scenario checks them */
}

void scenario_release(struct scenario *sc)
{
	for (size_t i = 0; i < N_OPTS; i++) {
		switch (options[i].type) {
		case OPT_STRING:
		case OPT_KERNEL:
		case OPT_PATH:
			free(*(char **)field(sc, &options[i]));
			break;
		default:
			break;
		}
	}
	free(sc->lines);
	free(sc->path);
	memset(sc, 0, sizeof(*sc));
}

int scenario_parse(const char *name, const char *buf, size_t len, const char *basedir,
		   struct scenario *sc, struct strbuf *errs)
{
	struct parse_ctx c = { .file = name, .basedir = basedir, .sc = sc, .errs = errs };
	struct parse_state st = { .section_ok = false };
	unsigned line = 0;
	size_t pos = 0;
	char *copy;

	memset(sc, 0, sizeof(*sc));
	sc->lines = xcalloc(N_OPTS, sizeof(*sc->lines));
	sc->path = xstrdup(name);
	apply_defaults(&c);

	/* One private copy; lines are split in place. */
	copy = xmalloc(len + 1);
	if (len) /* buf may be NULL for an empty input; memcpy(x, NULL, 0) is undefined */
		memcpy(copy, buf, len);
	copy[len] = '\0';
	while (pos < len && c.nerr <= SCENARIO_MAX_ERRORS) {
		char *nl = memchr(copy + pos, '\n', len - pos);
		size_t l = nl ? (size_t)(nl - (copy + pos)) : len - pos;
		copy[pos + l] = '\0';
		parse_line(&c, &st, ++line, copy + pos, l);
		pos += l + 1;
	}
	free(copy);
	if (!c.nerr)
		cross_check(&c);
	if (c.nerr)
		scenario_release(sc);
	return c.nerr;
}

int scenario_load(const char *path, struct scenario *sc, struct strbuf *errs)
{
	struct strbuf sb = STRBUF_INIT;
	char *dir, *slash;
	int r;

	r = strbuf_read_file(&sb, path, SCENARIO_MAX_FILE);
	if (r < 0) {
		if (r == -EFBIG)
			strbuf_addf(errs, "%s:0: file too large (at most %d bytes)\n", path,
				    SCENARIO_MAX_FILE);
		else
			strbuf_addf(errs, "%s:0: cannot read: %s\n", path, strerror(-r));
		strbuf_release(&sb);
		memset(sc, 0, sizeof(*sc));
		return 1;
	}
	dir = xstrdup(path);
	slash = strrchr(dir, '/');
	if (slash)
		*slash = '\0';
	r = scenario_parse(path, sb.buf, sb.len, slash ? dir : ".", sc, errs);
	free(dir);
	strbuf_release(&sb);
	return r;
}

/* ---- writing a scenario back, and the reference ---- */

static void format_nodeset(const struct nodeset *ns, struct strbuf *out)
{
	static const char *const kw[] = {
		[NODESET_NONE] = "none", [NODESET_ALL] = "all", [NODESET_TAKEOVER] = "takeover",
	};
	bool first = true;

	if (ns->kind != NODESET_LIST) {
		strbuf_addstr(out, kw[ns->kind]);
		return;
	}
	for (int i = 0; i < SCENARIO_MAX_NODES; i++) {
		if (ns->mask & (1u << i)) {
			strbuf_addf(out, "%sn%d", first ? "" : ",", i + 1);
			first = false;
		}
	}
}

static void format_value(const struct scenario *sc, const struct opt *o, struct strbuf *out)
{
	const void *f = cfield(sc, o);
	char buf[64];

	switch (o->type) {
	case OPT_INT:
		strbuf_addf(out, "%d", *(const int *)f);
		break;
	case OPT_SIZE:
	case OPT_RATE:
		format_size(*(const uint64_t *)f, buf, sizeof(buf));
		strbuf_addstr(out, buf);
		break;
	case OPT_DURATION:
		format_duration_ms(*(const uint64_t *)f, buf, sizeof(buf));
		strbuf_addstr(out, buf);
		break;
	case OPT_ENUM:
		strbuf_addstr(out, o->choices[*(const int *)f]);
		break;
	case OPT_BOOL:
		strbuf_addstr(out, *(const bool *)f ? "on" : "off");
		break;
	case OPT_STRING:
	case OPT_KERNEL:
	case OPT_PATH:
		strbuf_addstr(out, *(char *const *)f ? *(char *const *)f : "");
		break;
	case OPT_SUBNET: {
		uint32_t a = *(const uint32_t *)f;
		strbuf_addf(out, "%u.%u.%u.%u/24", a >> 24, (a >> 16) & 0xff, (a >> 8) & 0xff, a & 0xff);
		break;
	}
	case OPT_NODESET:
		format_nodeset(f, out);
		break;
	case OPT_MEMTARGET: {
		const struct memtarget *t = f;
		if (t->is_percent) {
			strbuf_addf(out, "%u%%", t->percent);
		} else {
			format_size(t->bytes, buf, sizeof(buf));
			strbuf_addstr(out, buf);
		}
		break;
	}
	case OPT_TARGET: {
		int t = *(const int *)f;
		if (t == TARGET_NFS_SERVER)
			strbuf_addstr(out, "nfs-server");
		else
			strbuf_addf(out, "n%d", t);
		break;
	}
	case OPT_PERCENT:
		strbuf_addf(out, "%u%%", *(const unsigned *)f);
		break;
	}
}

void scenario_write(const struct scenario *sc, struct strbuf *out)
{
	const char *cur = NULL;

	strbuf_addf(out, "# effective scenario (from %s), every key shown\n", sc->path);
	for (size_t i = 0; i < N_OPTS; i++) {
		const struct opt *o = &options[i];
		if (!cur || strcmp(cur, o->section)) {
			strbuf_addf(out, "%s[%s]\n", cur ? "\n" : "", o->section);
			cur = o->section;
		}
		size_t mark;
		strbuf_addf(out, "%s = ", o->name);
		mark = out->len;
		format_value(sc, o, out);
		if (out->len == mark)
			out->buf[--out->len] = '\0'; /* "key =" rather than a trailing blank */
		strbuf_addch(out, '\n');
	}
}

static const char *type_name(const struct opt *o)
{
	static const char *const names[] = {
		[OPT_INT] = "integer",     [OPT_SIZE] = "size",         [OPT_DURATION] = "duration",
		[OPT_RATE] = "rate",       [OPT_ENUM] = "choice",       [OPT_BOOL] = "on|off",
		[OPT_STRING] = "string",   [OPT_KERNEL] = "debian|path", [OPT_PATH] = "path",
		[OPT_SUBNET] = "IPv4 /24", [OPT_NODESET] = "nodes",     [OPT_MEMTARGET] = "size|percent",
		[OPT_TARGET] = "node",     [OPT_PERCENT] = "percent",
	};
	return names[o->type];
}

static void allowed_values(const struct opt *o, struct strbuf *out)
{
	char lo[32], hi[32];

	if (o->choices) {
		for (int i = 0; o->choices[i]; i++)
			strbuf_addf(out, "%s%s", i ? ", " : "", o->choices[i]);
	} else if (o->min || o->max) {
		fmt_bound(o, o->min, lo, sizeof(lo));
		fmt_bound(o, o->max, hi, sizeof(hi));
		strbuf_addf(out, "%s..%s", lo, hi);
	} else if (o->type == OPT_NODESET) {
		strbuf_addf(out, "%s%s%sn1..n%d list", o->flags & OPTF_NS_NONE ? "none, " : "",
			    o->flags & OPTF_NS_ALL ? "all, " : "",
			    o->flags & OPTF_NS_TAKEOVR ? "takeover, " : "", SCENARIO_MAX_NODES);
	} else if (o->type == OPT_TARGET) {
		strbuf_addf(out, "nfs-server, n1..n%d", SCENARIO_MAX_NODES);
	} else if (o->type == OPT_MEMTARGET) {
		strbuf_addstr(out, "size or 0%..100%");
	} else if (o->type == OPT_SUBNET) {
		strbuf_addstr(out, "private ranges");
	}
	if (o->flags & OPTF_SECONDS)
		strbuf_addstr(out, ", whole seconds");
	if (o->flags & OPTF_MULT_4K)
		strbuf_addstr(out, ", multiple of 4K");
	if (o->flags & OPTF_MULT_1M)
		strbuf_addstr(out, ", multiple of 1M");
}

static void reference_intro(struct strbuf *out, bool md)
{
	strbuf_addf(out,
		    "%s"
		    "A scenario is an INI file: [section] headers, 'key = value' lines, and comments\n"
		    "starting with '#' or ';' (at the start of a line or after whitespace). Every key\n"
		    "is optional; a missing key takes the default below. Unknown sections or keys,\n"
		    "duplicates, out-of-range or malformed values and lines longer than %d bytes are\n"
		    "errors, each reported as FILE:LINE: [section] key: reason.\n\n"
		    "Sizes are bytes with an optional K, M, G or T suffix (powers of 1024).\n"
		    "Durations need a unit: ms, s or min. Rates are sizes per second (64K or 64K/s).\n"
		    "Nodes are named n1..nN; 'takeover' is the node that will take over the NFS\n"
		    "group, resolved at run time.\n\n",
		    md ? "# Scenario reference\n\n"
			 "<!-- Generated by `takeover help scenario --markdown` from the option table in\n"
			 "     harness/scenario/scenario.c. Do not edit; CI fails when this copy is stale. -->\n\n"
		       : "",
		    SCENARIO_MAX_LINE);
}

void scenario_reference(struct strbuf *out, bool md)
{
	const char *cur = NULL;

	reference_intro(out, md);
	for (size_t i = 0; i < N_OPTS; i++) {
		const struct opt *o = &options[i];
		struct strbuf allowed = STRBUF_INIT;

		allowed_values(o, &allowed);
		if (!cur || strcmp(cur, o->section)) {
			if (md)
				strbuf_addf(out, "%s## [%s]\n\n| key | type | default | allowed | meaning |\n"
						 "|---|---|---|---|---|\n",
					    cur ? "\n" : "", o->section);
			else
				strbuf_addf(out, "%s[%s]\n", cur ? "\n" : "", o->section);
			cur = o->section;
		}
		if (md)
			strbuf_addf(out, "| `%s` | %s | `%s` | %s | %s |\n", o->name, type_name(o), o->def,
				    allowed.len ? allowed.buf : "", o->help);
		else
			strbuf_addf(out, "  %-18s %s, default '%s'%s%s%s\n  %18s %s\n", o->name,
				    type_name(o), o->def, allowed.len ? " (" : "", allowed.buf,
				    allowed.len ? ")" : "", "", o->help);
		strbuf_release(&allowed);
	}
}
