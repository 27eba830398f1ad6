// SPDX-License-Identifier: GPL-2.0-only
/*
 * The run's one event loop: agent channels (progress, samples, command
 * results), console logs (kernel reports), domain states and timers, all
 * stamped with the host clock and appended to the timeline as they arrive.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "proto.h"
#include "run/run.h"
#include "util/cancel.h"
#include "util/cleanup.h"
#include "util/log.h"
#include "util/spawn.h"
#include "util/units.h"

#define TICK_MS 250
#define CRM_POLL_MS 3000
#define CRM_ABANDON_MS 45000

static int node_index(struct run *r, struct channel *ch)
{
	for (int i = 0; i < r->c.n; i++)
		if (&r->c.nodes[i].ch == ch)
			return i;
	return -1;
}

/* "key=value" words -> JSON numbers where they look like numbers, strings otherwise. */
static json_t *fields_json(char **w, int n, int from)
{
	json_t *o = json_object();

	for (int i = from; i < n; i++) {
		char *eq = strchr(w[i], '=');
		if (!eq)
			continue;
		*eq = '\0';
		char *v = eq + 1;
		const char *why;
		int64_t iv;
		double dv;
		proto_decode(v);
		if (parse_int(v, &iv, &why) == 0)
			json_object_set_new(o, w[i], json_integer((json_int_t)iv));
		else if (parse_double(v, &dv, &why) == 0)
			json_object_set_new(o, w[i], json_real(dv));
		else
			json_object_set_new(o, w[i], json_string(v));
		*eq = '=';
	}
	return o;
}

static void on_progress(struct run *r, int idx, char **w, int n)
{
	struct run_node *rn = &r->nodes[idx];
	json_t *f = fields_json(w, n, 1);
	const char *kind = json_string_value(json_object_get(f, "kind"));
	uint64_t acked = (uint64_t)json_integer_value(json_object_get(f, "acked_bytes"));
	uint64_t now = timeline_now(&r->tl);

	json_object_del(f, "t"); /* the guest's clock; the timeline's t is the host's */
	if (kind && !strcmp(kind, "writer")) {
		if (acked > rn->acked_bytes) {
			rn->last_ack_t = now;
			if (!rn->first_progress_t)
				rn->first_progress_t = now;
		}
		rn->acked_bytes = acked;
		rn->acked_records = (uint64_t)json_integer_value(json_object_get(f, "acked"));
		rn->records = (uint64_t)json_integer_value(json_object_get(f, "records"));
		rn->errors = (uint64_t)json_integer_value(json_object_get(f, "errors"));
		/*
		 * Resumed: the judged node's new acks while Pacemaker says the group
		 * runs on the takeover node (a group restarted in place: again, after
		 * a poll saw it down; before, it only shows started because nobody
		 * noticed yet).
		 */
		if (r->fault_fired && !r->t_resume && idx + 1 == r->judged && rn->last_ack_t == now &&
		    now > r->t_fault + VERDICT_RESUME_GRACE_MS && (!r->group_restarts || r->group_down_seen) &&
		    r->crm_have && r->crm_last.group_started &&
		    !strcmp(r->crm_last.group_node, r->c.nodes[r->takeover - 1].name))
			r->t_resume = now;
	}
	timeline_event(&r->tl, "progress", r->c.nodes[idx].name, f);
}

/*
 * The node's vmstat oom_kill went up since its last sample: that many OOM
 * kills, as a timeline event (the console's "Out of memory: Killed process"
 * report says whom; this count does not depend on the console keeping up).
 */
static void on_oom_counter(struct run *r, int idx, uint64_t value)
{
	uint64_t kills = oom_counter_add(&r->nodes[idx].oom, value);
	json_t *f;

	if (!kills)
		return;
	f = json_object();
	json_object_set_new(f, "count", json_integer((json_int_t)kills));
	json_object_set_new(f, "total", json_integer((json_int_t)value));
	timeline_event(&r->tl, "oom-kill", r->c.nodes[idx].name, f);
	log_info("%s: the kernel OOM-killed %llu task%s", r->c.nodes[idx].name, (unsigned long long)kills,
		 kills == 1 ? "" : "s");
}

/* Time for the killed hog's memory to come back before the next one starts taking it. */
#define HOG_RESTART_DELAY_MS 1000

static void schedule_hog_restart(struct run *r, int idx)
{
	if (r->pressure_on && idx + 1 != r->dead)
		r->nodes[idx].hog_restart_t = timeline_now(&r->tl) + HOG_RESTART_DELAY_MS;
}

static void on_workload_exit(struct run *r, int idx, char **w, int n)
{
	const char *name = proto_get(w, n, "w");

	timeline_event(&r->tl, "workload-exit", r->c.nodes[idx].name, fields_json(w, n, 1));
	if (name && !strcmp(name, "writer"))
		r->nodes[idx].writer_running = false;
	if (!name || strcmp(name, "hog") || !r->nodes[idx].hog_running)
		return;
	r->nodes[idx].hog_running = false;
	schedule_hog_restart(r, idx);
}

static void restart_hogs(struct run *r)
{
	uint64_t now = timeline_now(&r->tl);

	for (int i = 0; i < r->c.n; i++) {
		struct run_node *rn = &r->nodes[i];
		if (!rn->hog_restart_t || now < rn->hog_restart_t || !r->pressure_on)
			continue;
		if (run_start_hog(r, i) < 0) /* the channel is down: try again shortly */
			rn->hog_restart_t = now + HOG_RESTART_DELAY_MS;
	}
}

static void on_crm_done(struct run *r, char **w, int n)
{
	char *out = (char *)proto_get(w, n, "out");
	struct crm_status st;
	json_t *f, *online, *members, *fenced;

	r->crm_id = 0;
	if (!out || proto_decode(out) < 0 || crm_parse_status(out, strlen(out), &st) < 0)
		return;
	r->crm_last = st;
	r->crm_have = true;
	if (r->fault_fired && !st.group_started)
		r->group_down_seen = true;
	if (r->fault_fired && !r->t_nfsd_takeover && r->takeover &&
	    !strcmp(st.member_node[CRM_NFSD], r->c.nodes[r->takeover - 1].name))
		r->t_nfsd_takeover = timeline_now(&r->tl);
	f = json_object();
	online = json_array();
	members = json_array();
	fenced = json_array();
	for (int i = 0; i < st.nodes_online; i++)
		json_array_append_new(online, json_string(st.online[i]));
	for (int i = 0; i < CRM_N_MEMBERS; i++)
		json_array_append_new(members, json_string(st.member_node[i]));
	for (int i = 0; i < st.nfenced; i++)
		json_array_append_new(fenced, json_string(st.fenced[i]));
	json_t *ffail = json_array();
	for (int i = 0; i < st.nfence_failed; i++)
		json_array_append_new(ffail, json_string(st.fence_failed[i]));
	json_object_set_new(f, "fence_failed", ffail);
	json_object_set_new(f, "from", json_string(r->c.nodes[r->crm_node - 1].name));
	json_object_set_new(f, "online", online);
	json_object_set_new(f, "group_started", json_boolean(st.group_started));
	json_object_set_new(f, "group_node", json_string(st.group_node));
	json_object_set_new(f, "members", members);
	json_object_set_new(f, "fenced", fenced);
	json_object_set_new(f, "fence_started", json_boolean(st.fence_started));
	json_object_set_new(f, "failures", json_integer(st.failures));
	if (st.failures)
		json_object_set_new(f, "first_failure", json_string(st.first_failure));
	timeline_event(&r->tl, "crm", NULL, f);
}

static void on_agent_msg(void *ctx, struct channel *ch, char **w, int n)
{
	struct run *r = ctx;
	int idx = node_index(r, ch);
	const char *why;
	uint64_t id;

	if (idx < 0)
		return;
	if (!strcmp(w[0], "progress")) {
		on_progress(r, idx, w, n);
	} else if (!strcmp(w[0], "sample")) {
		json_t *f = fields_json(w, n, 1);
		json_object_del(f, "t");
		r->nodes[idx].psi_some = json_number_value(json_object_get(f, "psi_some"));
		r->nodes[idx].psi_full = json_number_value(json_object_get(f, "psi_full"));
		/* read before timeline_event() takes f */
		json_t *oom = json_object_get(f, "oom_kill");
		bool have_oom = json_is_integer(oom);
		uint64_t oom_total = have_oom ? (uint64_t)json_integer_value(oom) : 0;
		timeline_event(&r->tl, "sample", ch->node, f);
		if (have_oom)
			on_oom_counter(r, idx, oom_total);
	} else if (!strcmp(w[0], "exit")) {
		on_workload_exit(r, idx, w, n);
	} else if (!strcmp(w[0], "done") && n > 1 && r->crm_id && idx + 1 == r->crm_node &&
		   parse_uint(w[1], &id, &why) == 0 && id == r->crm_id) {
		on_crm_done(r, w, n);
	} else if (!strcmp(w[0], "hello")) {
		timeline_event(&r->tl, "hello", ch->node, fields_json(w, n, 1));
		if (ch->rebooted)
			r->nodes[idx].booted_t = timeline_now(&r->tl);
		/* A new boot: its workloads are gone; the pressure comes back, as after an OOM kill. */
		if (ch->rebooted && r->nodes[idx].hog_running) {
			r->nodes[idx].hog_running = false;
			schedule_hog_restart(r, idx);
		}
		/* Same boot, new agent: the workloads it ran died with the old one. */
		if (ch->agent_restarted) {
			log_error("%s: the guest agent restarted (the node did not reboot): its workloads are lost",
				  ch->node);
			timeline_event(&r->tl, "agent-restart", ch->node, NULL);
		}
	} else if (!strcmp(w[0], "error")) {
		timeline_event(&r->tl, "agent-error", ch->node, fields_json(w, n, 1));
	}
}

static void on_console_report(void *ctx, const struct console_report *rep)
{
	struct run_node *rn = ctx;
	struct run *r = rn->run;
	const char *node = r->c.nodes[rn - r->nodes].name;
	json_t *f = json_object();

	json_object_set_new(f, "class", json_string(rep->c->cls));
	json_object_set_new(f, "severity", json_string(rep->c->sev == SEV_FATAL ? "fatal" : "info"));
	json_object_set_new(f, "title", json_string(rep->title));
	json_object_set_new(f, "kernel_time", json_real(rep->kernel_time));
	json_object_set_new(f, "text", json_string(rep->text.buf));
	timeline_event(&r->tl, "kernel", node, f);
	if (rep->c->sev == SEV_FATAL || !r->o.quiet)
		log_info("%s: %s", node, rep->title);
}


void monitor_init(struct run *r)
{
	for (int i = 0; i < r->c.n; i++) {
		struct node *nd = &r->c.nodes[i];
		nd->ch.on_msg = on_agent_msg;
		nd->ch.ctx = r;
		r->nodes[i].run = r;
		console_tail_init(&r->nodes[i].tail, on_console_report, &r->nodes[i]);
		/* Start at the end: boot messages were seen by `up`, not by this run. */
		r->nodes[i].console_fd = open(nd->console, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
		if (r->nodes[i].console_fd >= 0)
			lseek(r->nodes[i].console_fd, 0, SEEK_END);
		r->nodes[i].dom_state = -1;
	}
}

void monitor_release(struct run *r)
{
	for (int i = 0; i < r->c.n; i++) {
		console_tail_flush(&r->nodes[i].tail);
		console_tail_release(&r->nodes[i].tail);
		if (r->nodes[i].console_fd >= 0)
			close(r->nodes[i].console_fd);
		r->nodes[i].console_fd = -1;
	}
}

/* A console quiet this long has finished the report it was printing. */
#define CONSOLE_IDLE_MS 2000

static void read_consoles(struct run *r)
{
	char buf[16384];
	uint64_t now = timeline_now(&r->tl);

	for (int i = 0; i < r->c.n; i++) {
		struct run_node *rn = &r->nodes[i];
		ssize_t n;
		while (rn->console_fd >= 0 && (n = read(rn->console_fd, buf, sizeof(buf))) > 0) {
			console_tail_feed(&rn->tail, buf, (size_t)n);
			rn->console_t = now;
		}
		if (now - rn->console_t >= CONSOLE_IDLE_MS)
			console_tail_idle(&rn->tail);
	}
}

static const char *state_name(int s)
{
	static const char *const names[] = { "nostate", "running", "blocked", "paused",
					     "shutdown", "shutoff", "crashed", "pmsuspended" };
	return s >= 0 && s <= 7 ? names[s] : "unknown";
}

static void poll_domains(struct run *r)
{
	if (!r->c.conn) /* no libvirt connection (a monitor fed recorded data): no domain states */
		return;
	for (int i = 0; i < r->c.n; i++) {
		_cleanup_domain_ virDomainPtr d = virDomainLookupByName(r->c.conn, r->c.nodes[i].domain);
		int state = VIR_DOMAIN_SHUTOFF, reason = 0; /* gone = off: transient domains vanish */
		if (d && virDomainGetState(d, &state, &reason, 0) < 0)
			state = -1;
		uint64_t ns;
		if (state == VIR_DOMAIN_RUNNING &&
		    capture_cpu_ns(r->c.conn, r->c.nodes[i].domain, &ns) == 0)
			cpu_ring_add(&r->nodes[i].cpu, timeline_now(&r->tl), ns);
		if (state != r->nodes[i].dom_state) {
			json_t *f = json_object();
			json_object_set_new(f, "state", json_string(state_name(state)));
			json_object_set_new(f, "reason", json_integer(reason));
			timeline_event(&r->tl, "domain", r->c.nodes[i].name, f);
			r->nodes[i].dom_state = state;
		}
	}
}

void monitor_start_crm_poll(struct run *r, int node)
{
	const char *argv[] = { "crm_mon", "-1", "--output-as=xml", "--fence-history=2", NULL };
	uint64_t now = timeline_now(&r->tl);

	if (r->crm_id && now - r->crm_sent < CRM_ABANDON_MS)
		return;
	r->crm_node = node;
	r->crm_id = channel_exec_start(&r->c.nodes[node - 1].ch, argv, 30000);
	r->crm_sent = now;
}

/*
 * The node to ask Pacemaker: a live node that is neither the victim nor the
 * takeover node (crm_mon costs a TCG guest a second of CPU, which the
 * takeover node needs for the takeover itself), else the takeover node.
 */
static int crm_observer(struct run *r)
{
	for (int i = 0; i < r->c.n; i++)
		if (i + 1 != r->victim && i + 1 != r->takeover && i + 1 != r->judged && r->c.nodes[i].ch.fd >= 0)
			return i + 1;
	if (r->takeover && r->c.nodes[r->takeover - 1].ch.fd >= 0)
		return r->takeover;
	return 0;
}

static void progress_line(struct run *r)
{
	struct strbuf sb = STRBUF_INIT;
	uint64_t now = timeline_now(&r->tl);

	strbuf_addf(&sb, "[%4llus]", (unsigned long long)(now / 1000));
	if (r->fault_fired)
		strbuf_addf(&sb, " fault+%llus", (unsigned long long)((now - r->t_fault) / 1000));
	for (int i = 0; i < r->c.n; i++) {
		struct run_node *rn = &r->nodes[i];
		char sz[32];
		if (!rn->writer)
			continue;
		format_size(rn->acked_bytes & ~((1ULL << 20) - 1), sz, sizeof(sz));
		strbuf_addf(&sb, " %s%s:%s", r->c.nodes[i].name,
			    i + 1 == r->victim ? "(victim)" : i + 1 == r->takeover ? "(takeover)" : "", sz);
	}
	if (r->crm_have)
		strbuf_addf(&sb, " | group %s %d/%d", r->crm_last.group_node[0] ? r->crm_last.group_node : "-",
			    r->crm_last.group_members_started, CRM_N_MEMBERS);
	progress_update("%s", sb.buf);
	strbuf_release(&sb);
}

static void reconnect_channels(struct run *r)
{
	for (int i = 0; i < r->c.n; i++)
		if (i + 1 != r->dead && r->c.nodes[i].ch.fd < 0)
			channel_connect(&r->c.nodes[i].ch);
}

static void on_tick(struct run *r)
{
	uint64_t now = timeline_now(&r->tl);
	int obs;

	read_consoles(r);
	restart_hogs(r);
	if (now >= r->next_domain_poll) {
		poll_domains(r);
		reconnect_channels(r);
		r->next_domain_poll = now + 1000;
	}
	if (now >= r->crm_next && (obs = crm_observer(r))) {
		monitor_start_crm_poll(r, obs);
		r->crm_next = now + CRM_POLL_MS;
	}
	if (!r->o.quiet && now >= r->next_progress_line) {
		progress_line(r);
		r->next_progress_line = now + 1000;
	}
}

static bool exec_done(struct run *r, void *arg)
{
	(void)r;
	return ((struct channel *)arg)->wait_done;
}

int monitor_exec(struct run *r, int node, const char *const *argv, uint64_t timeout_ms, struct strbuf *out,
		 int *rc)
{
	struct channel *ch = &r->c.nodes[node - 1].ch;
	int ret = channel_connect(ch);

	if (ret == 0)
		ret = channel_exec_begin(ch, argv, timeout_ms);
	if (ret < 0)
		return ret;
	ret = monitor_until(r, timeline_now(&r->tl) + channel_exec_patience_ms(timeout_ms), exec_done, ch);
	return channel_exec_end(ch, ret, out, rc);
}

struct jobs_wait {
	struct monitor_job *jobs;
	int n;
};

static bool jobs_done(struct run *r, void *arg)
{
	const struct jobs_wait *w = arg;

	for (int i = 0; i < w->n; i++)
		if (!w->jobs[i].ret && !r->c.nodes[w->jobs[i].node - 1].ch.wait_done)
			return false;
	return true;
}

int monitor_jobs_answering(struct run *r, struct monitor_job *jobs, bool with_victim)
{
	int n = 0;

	for (int i = 0; i < r->c.n; i++)
		if ((with_victim || i + 1 != r->dead) && r->c.nodes[i].ch.fd >= 0) {
			jobs[n] = (struct monitor_job){ .node = i + 1 };
			strbuf_init(&jobs[n++].out, 0);
		}
	return n;
}

void monitor_exec_each(struct run *r, struct monitor_job *jobs, int n, const char *const *argv,
		       uint64_t timeout_ms)
{
	struct jobs_wait w = { jobs, n };

	for (int i = 0; i < n; i++) {
		struct channel *ch = &r->c.nodes[jobs[i].node - 1].ch;
		jobs[i].rc = -1;
		jobs[i].ret = channel_connect(ch);
		if (!jobs[i].ret)
			jobs[i].ret = channel_exec_begin(ch, argv, timeout_ms);
	}
	int ret = monitor_until(r, timeline_now(&r->tl) + channel_exec_patience_ms(timeout_ms), jobs_done, &w);
	for (int i = 0; i < n; i++) {
		struct channel *ch = &r->c.nodes[jobs[i].node - 1].ch;
		if (!jobs[i].ret)
			jobs[i].ret = channel_exec_end(ch, ch->wait_done ? 0 : ret < 0 ? ret : -ETIMEDOUT,
						       &jobs[i].out, &jobs[i].rc);
	}
}

int monitor_until(struct run *r, uint64_t deadline, monitor_done_fn done, void *arg)
{
	struct itimerspec its = { .it_interval = { 0, TICK_MS * 1000000L },
				  .it_value = { 0, TICK_MS * 1000000L } };
	_cleanup_close_ int tfd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	int r_ = 0;

	if (tfd < 0 || timerfd_settime(tfd, 0, &its, NULL) < 0)
		return -errno;
	while (!(done && done(r, arg))) {
		struct pollfd p[SCENARIO_MAX_NODES + 1];
		int np = 0, idx[SCENARIO_MAX_NODES];
		if (cancel_requested()) {
			r_ = -EINTR;
			break;
		}
		if (timeline_now(&r->tl) >= deadline) {
			r_ = -ETIMEDOUT;
			break;
		}
		p[np++] = (struct pollfd){ .fd = tfd, .events = POLLIN };
		for (int i = 0; i < r->c.n; i++) {
			if (r->c.nodes[i].ch.fd < 0)
				continue;
			idx[np - 1] = i;
			p[np++] = (struct pollfd){ .fd = r->c.nodes[i].ch.fd, .events = POLLIN };
		}
		if (poll(p, (nfds_t)np, TICK_MS * 2) < 0 && errno != EINTR) {
			r_ = -errno;
			log_error("monitor: poll: %s", strerror(errno));
			break;
		}
		for (int k = 1; k < np; k++)
			if (p[k].revents)
				channel_read(&r->c.nodes[idx[k - 1]].ch);
		if (p[0].revents) {
			uint64_t ticks;
			if (read(tfd, &ticks, sizeof(ticks)) > 0)
				on_tick(r);
		}
	}
	progress_done();
	return r_;
}
