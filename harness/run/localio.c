// SPDX-License-Identifier: GPL-2.0-only
/*
 * Whether each node's NFS client reads and writes through LOCALIO (6.12:
 * an NFS client whose server is nfsd in its own kernel bypasses RPC). 6.12
 * decides that when a client is created and says so nowhere (its
 * nfs_local_open_fh tracepoint fires only on a failed open), so the run
 * puts kprobes on nfs_local_doio (every LOCALIO read or write) and
 * nfs_local_commit before the writers start, tracing off (the probes only
 * count: kprobe_profile), and reads the counts right before the fault and
 * at the end: LOCALIO I/O before and after the fault. After a takeover the
 * takeover node's old mount stays on RPC (its client was created while the
 * server was elsewhere), so "after" is 0 there unless a fresh client was
 * made. A kernel without LOCALIO has no nfs_local_doio: "supported": false.
 */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "proto.h"
#include "run/run.h"
#include "util/log.h"
#include "util/strbuf.h"
#include "util/units.h"
#include "util/xalloc.h"

#define LOCALIO_TIMEOUT_MS (20 * 1000)
#define NO_LOCALIO 3 /* the scripts' exit status on a kernel without LOCALIO */

static const char arm_script[] =
	"t=/sys/kernel/tracing\n"
	"mountpoint -q $t || mount -t tracefs nodev $t || exit 2\n"
	"grep -qw nfs_local_doio /proc/kallsyms || exit 3\n"
	"echo 0 > $t/tracing_on\n"
	"for f in doio commit; do\n"
	"  grep -q localio_$f $t/kprobe_events ||\n"
	"    echo \"p:takeover/localio_$f nfs_local_$f\" >> $t/kprobe_events || exit 2\n"
	"done\n"
	"echo 1 > $t/events/takeover/enable || exit 2\n";

/* kprobe_profile: "  localio_doio   HITS   MISSES". */
static const char count_script[] =
	"t=/sys/kernel/tracing\n"
	"[ -e $t/events/takeover/localio_doio ] || exit 3\n"
	"awk '$1 ~ /localio_doio$/ { d = $2 } $1 ~ /localio_commit$/ { c = $2 }\n"
	"     END { printf \"localio doio=%d commit=%d\\n\", d, c }' $t/kprobe_profile\n";

static void run_script(struct run *r, const char *script, bool with_victim, struct monitor_job *jobs, int *n)
{
	const char *const argv[] = { "sh", "-c", script, NULL };

	*n = monitor_jobs_answering(r, jobs, with_victim);
	monitor_exec_each(r, jobs, *n, argv, LOCALIO_TIMEOUT_MS);
}

static void release(struct monitor_job *jobs, int n)
{
	for (int i = 0; i < n; i++)
		strbuf_release(&jobs[i].out);
}

void localio_arm(struct run *r)
{
	struct monitor_job jobs[SCENARIO_MAX_NODES];
	int n;

	run_script(r, arm_script, true, jobs, &n);
	for (int i = 0; i < n; i++)
		if (jobs[i].ret < 0 || (jobs[i].rc && jobs[i].rc != NO_LOCALIO))
			log_warn("%s: LOCALIO tracing not armed (%s)", r->c.nodes[jobs[i].node - 1].name,
				 jobs[i].out.len ? jobs[i].out.buf : "no answer");
	release(jobs, n);
}

/* "localio doio=N commit=N", the count script's line, in the agent protocol's key=value words. */
static bool parse_counts(const char *out, uint64_t *io, uint64_t *commits)
{
	char *line = xstrdup(out), *w[PROTO_MAX_WORDS];
	int n;

	line[strcspn(line, "\n")] = '\0';
	n = proto_split(line, w, PROTO_MAX_WORDS);
	const char *d = proto_get(w, n, "doio"), *c = proto_get(w, n, "commit"), *why;
	bool ok = n > 0 && !strcmp(w[0], "localio") && d && c && parse_uint(d, io, &why) == 0 &&
		  parse_uint(c, commits, &why) == 0;

	free(line);
	return ok;
}

/* The counts on every node answering, as event ev: {"supported", "io", "commits"}. */
static void count(struct run *r, const char *ev, bool with_victim)
{
	struct monitor_job jobs[SCENARIO_MAX_NODES];
	int n;

	run_script(r, count_script, with_victim, jobs, &n);
	for (int k = 0; k < n; k++) {
		const char *name = r->c.nodes[jobs[k].node - 1].name;
		json_t *f = json_object();
		uint64_t io, commits;
		if (jobs[k].ret == 0 && jobs[k].rc == NO_LOCALIO) {
			json_object_set_new(f, "supported", json_false());
		} else if (jobs[k].ret == 0 && jobs[k].rc == 0 && parse_counts(jobs[k].out.buf, &io, &commits)) {
			json_object_set_new(f, "supported", json_true());
			json_object_set_new(f, "io", json_integer((json_int_t)io));
			json_object_set_new(f, "commits", json_integer((json_int_t)commits));
		} else {
			log_warn("%s: LOCALIO counts not read (%s)", name, jobs[k].out.len ? jobs[k].out.buf : "no answer");
			json_decref(f);
			continue;
		}
		timeline_event(&r->tl, ev, name, f);
	}
	release(jobs, n);
}

void localio_mark_fault(struct run *r)
{
	count(r, "localio-fault", true);
}

void localio_collect(struct run *r)
{
	count(r, "localio", false);
}
