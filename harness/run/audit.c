// SPDX-License-Identifier: GPL-2.0-only
/*
 * The cluster audited, as Pacemaker's CTS does after each test: once the
 * observe window is over (before the workloads stop) and at the end (after
 * verification). Every live node answers, holds the floating IP or not,
 * mounts the shared file system or not; Pacemaker's last poll says where the
 * group runs, who is in the membership and who was fenced. Expected: the IP
 * on exactly one node, the shared file system on exactly one, the group
 * running, every node the fault did not take down in the membership, and no
 * fencing beyond the one the fault causes. What differs is an "audit" event's
 * problems; the verdict turns a PASS into an ERROR over them (a FAIL keeps
 * its class: the kernel's failure usually explains the state). The victim
 * answers too when the fault only cut it off (partition): the IP or the
 * shared file system on two nodes is split brain, FAIL-SPLIT-BRAIN.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cluster/net.h"
#include "run/run.h"
#include "util/strbuf.h"

#define AUDIT_TIMEOUT_MS (20 * 1000)

static const char *const audit_argv[] = { "sh", "-c", "ip -o -4 addr show; echo --; findmnt -rn -o TARGET,FSTYPE",
					  NULL };

bool audit_holds_ip(const char *out, const char *ip)
{
	char needle[40];

	snprintf(needle, sizeof(needle), " inet %s/", ip);
	return strstr(out, needle) != NULL;
}

/* The output's findmnt part has "/srv/nfs ext4". */
bool audit_mounts_shared_fs(const char *out)
{
	const char *sep = strstr(out, "\n--\n");
	const char *m = !strncmp(out, "--\n", 3) ? out + 3 : sep ? sep + 4 : NULL;

	static const char want[] = NFS_SHARED_FS_DIR " ext4";

	for (const char *l = m; l && *l;) {
		const char *nl = strchr(l, '\n');
		size_t len = nl ? (size_t)(nl - l) : strlen(l);
		if (len == sizeof(want) - 1 && !memcmp(l, want, len))
			return true;
		l = nl ? nl + 1 : NULL;
	}
	return false;
}

/* One more finding, "; "-separated. */
static void add_problem(struct strbuf *problems, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void add_problem(struct strbuf *problems, const char *fmt, ...)
{
	va_list ap;

	if (problems->len)
		strbuf_addstr(problems, "; ");
	va_start(ap, fmt);
	strbuf_vaddf(problems, fmt, ap);
	va_end(ap);
}

static void holders(struct strbuf *problems, const char *what, json_t *list)
{
	size_t n = json_array_size(list), i;
	json_t *v;

	if (n == 1)
		return;
	add_problem(problems, "%s on %zu nodes", what, n);
	json_array_foreach(list, i, v)
		strbuf_addf(problems, "%s%s", i ? ", " : " (", json_string_value(v));
	if (n)
		strbuf_addch(problems, ')');
}

void run_audit(struct run *r, const char *when)
{
	struct monitor_job jobs[SCENARIO_MAX_NODES];
	/* A victim cut off (partition) still answers through its agent: what it holds counts. */
	int n = monitor_jobs_answering(r, jobs, true);
	char ip[20];
	json_t *f = json_object(), *ipa = json_array(), *fsa = json_array();
	struct strbuf problems = STRBUF_INIT;
	const struct crm_status *st = &r->crm_last;

	ip_to_str(r->c.float_ip, ip, sizeof(ip));
	monitor_exec_each(r, jobs, n, audit_argv, AUDIT_TIMEOUT_MS);
	for (int i = 0; i < r->c.n; i++) {
		const char *name = r->c.nodes[i].name;
		struct monitor_job *j = NULL;
		for (int k = 0; k < n; k++)
			if (jobs[k].node == i + 1)
				j = &jobs[k];
		bool dead = i + 1 == r->dead, answered = j && j->ret >= 0 && !j->rc;
		if (!answered) {
			if (!dead)
				add_problem(&problems, "%s did not answer", name);
			continue;
		}
		if (audit_holds_ip(j->out.buf, ip))
			json_array_append_new(ipa, json_string(name));
		if (audit_mounts_shared_fs(j->out.buf))
			json_array_append_new(fsa, json_string(name));
		if (dead)
			continue;
		if (r->crm_have && !crm_node_online(st, name))
			add_problem(&problems, "%s is not in the membership", name);
		if (r->crm_have && crm_node_fenced(st, name) && !crm_node_fenced(&r->fenced_at_fault, name))
			add_problem(&problems, "%s was fenced, which the fault did not ask for", name);
	}
	for (int k = 0; k < n; k++)
		strbuf_release(&jobs[k].out);
	holders(&problems, "the floating IP", ipa);
	holders(&problems, "the shared file system", fsa);
	if (!r->crm_have || !st->group_started)
		add_problem(&problems, "the NFS group is not running");
	json_object_set_new(f, "when", json_string(when));
	json_object_set_new(f, "ip_holders", ipa);
	json_object_set_new(f, "fs_mounted", fsa);
	json_object_set_new(f, "group_node", json_string(r->crm_have && st->group_started ? st->group_node : ""));
	json_object_set_new(f, "problems", json_string(problems.buf));
	timeline_event(&r->tl, "audit", NULL, f);
	strbuf_release(&problems);
}
