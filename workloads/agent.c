// SPDX-License-Identifier: GPL-2.0-only
/*
 * takeover-agent: the harness's hands and eyes inside a guest.
 *
 * It runs commands for the host, starts and stops workloads, and reports
 * memory samples and workload progress every second over a virtio-serial
 * port. It must keep talking while everything else on the node is stuck in
 * the kernel, so it is memory-locked, immune to the OOM killer, never blocks
 * on a workload (progress comes from counters in shared memory, not from
 * pipes or files on NFS) and never touches the NFS mount itself.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "progress.h"
#include "proto.h"
#include "wl_common.h"
#include "util/units.h"
#include "util/xalloc.h"

#define PORT_PATH "/dev/virtio-ports/" AGENT_PORT_NAME
#define MAX_JOBS 32
#define EXEC_OUT_MAX (64 * 1024)
#define OUTBUF_MAX (4 * 1024 * 1024)

struct job {
	bool used;
	bool is_exec;      /* exec: reply "done"; otherwise a named workload */
	char id[64];       /* exec id, or workload name */
	pid_t pid;
	int outfd;         /* exec: merged stdout+stderr */
	struct strbuf out;
	uint64_t deadline; /* exec only; 0 = none */
	bool timed_out;
	struct progress_shm *shm; /* workloads: counters the workload updates */
};

static struct job jobs[MAX_JOBS];
static int port = -1;
static bool host_hup;
static struct strbuf outbuf = STRBUF_INIT;
static struct strbuf inbuf = STRBUF_INIT;
static char node[64] = "unknown";

static uint64_t mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* Queue one message; when the host is away and the queue is full, drop it. */
static void send_line(struct strbuf *line)
{
	if (outbuf.len + line->len + 1 > OUTBUF_MAX)
		return;
	strbuf_add(&outbuf, line->buf, line->len);
	strbuf_addch(&outbuf, '\n');
}

static void flush_out(void)
{
	while (outbuf.len && port >= 0) {
		ssize_t n = write(port, outbuf.buf, outbuf.len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return; /* EAGAIN: host not reading, or not connected */
		}
		memmove(outbuf.buf, outbuf.buf + n, outbuf.len - (size_t)n);
		outbuf.len -= (size_t)n;
		outbuf.buf[outbuf.len] = '\0';
	}
}

static void read_file_word(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "re");

	buf[0] = '\0';
	if (!f)
		return;
	if (fgets(buf, (int)len, f))
		buf[strcspn(buf, " \n")] = '\0';
	fclose(f);
}

static void find_node_name(void)
{
	char cmdline[4096];
	FILE *f = fopen("/proc/cmdline", "re");

	if (!f)
		return;
	if (fgets(cmdline, sizeof(cmdline), f)) {
		char *p = strstr(cmdline, "takeover.node=");
		if (p) {
			p += strlen("takeover.node=");
			snprintf(node, sizeof(node), "%.*s", (int)strcspn(p, " \n"), p);
		}
	}
	fclose(f);
}

/* When this agent started (CLOCK_MONOTONIC ms): a restart changes it, a ping does not. */
static uint64_t started_ms;

static void send_hello(void)
{
	struct strbuf l = STRBUF_INIT;
	char rel[128], boot[64];

	read_file_word("/proc/sys/kernel/osrelease", rel, sizeof(rel));
	read_file_word("/proc/sys/kernel/random/boot_id", boot, sizeof(boot));
	strbuf_addf(&l, "hello proto=%d node=", PROTO_VERSION);
	proto_encode(&l, node, strlen(node));
	strbuf_addstr(&l, " kernel=");
	proto_encode(&l, rel, strlen(rel));
	strbuf_addf(&l, " boot=%s t=%llu started=%llu", boot, (unsigned long long)mono_ms(),
		    (unsigned long long)started_ms);
	send_line(&l);
	strbuf_release(&l);
}

/* ---- samples ---- */

struct field_map {
	const char *src;  /* name in /proc */
	const char *key;  /* name on the wire */
};

static const struct field_map meminfo_fields[] = {
	{ "MemTotal", "memtotal" }, { "MemFree", "memfree" }, { "MemAvailable", "memavail" },
	{ "Dirty", "dirty" },       { "Writeback", "writeback" }, { "WritebackTmp", "writeback_tmp" },
	{ "NFS_Unstable", "nfs_unstable" }, { "Mlocked", "mlocked" },
};

static const struct field_map vmstat_fields[] = {
	{ "pgscan_direct", "pgscan_direct" },   { "pgsteal_direct", "pgsteal_direct" },
	{ "pgscan_kswapd", "pgscan_kswapd" },   { "allocstall_normal", "allocstall_normal" },
	{ "allocstall_movable", "allocstall_movable" }, { "oom_kill", "oom_kill" },
	{ "nr_vmscan_write", "nr_vmscan_write" }, { "nr_writeback", "nr_writeback" },
	{ "nr_dirty", "nr_dirty" },               { "pgmajfault", "pgmajfault" },
};

static void add_proc_fields(struct strbuf *l, const char *path, const struct field_map *map,
			    size_t n, bool colon)
{
	char line[256];
	FILE *f = fopen(path, "re");

	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		size_t kl = strcspn(line, colon ? ":" : " ");
		for (size_t i = 0; i < n; i++) {
			if (strlen(map[i].src) != kl || strncmp(line, map[i].src, kl))
				continue;
			uint64_t v;
			if (wl_next_uint(line + kl + 1, &v))
				strbuf_addf(l, " %s=%llu", map[i].key, (unsigned long long)v);
		}
	}
	fclose(f);
}

/* Memory pressure stall: "some avg10=1.23 ..." -> psi_some=1.23 */
static void add_psi(struct strbuf *l)
{
	char line[256];
	FILE *f = fopen("/proc/pressure/memory", "re");

	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		size_t kl = strcspn(line, " ");
		double avg10;
		if (kl == 4 && (!strncmp(line, "some", 4) || !strncmp(line, "full", 4)) &&
		    !strncmp(line + kl, " avg10=", 7) && wl_next_double(line + kl + 7, &avg10))
			strbuf_addf(l, " psi_%.4s=%.2f", line, avg10);
	}
	fclose(f);
}

/* "cpu  user nice system idle iowait irq softirq ...", the first line of /proc/stat */
static void add_cpu(struct strbuf *l)
{
	uint64_t t[7];
	char line[512];
	const char *p;
	FILE *f = fopen("/proc/stat", "re");

	if (!f)
		return;
	p = fgets(line, sizeof(line), f) && !strncmp(line, "cpu ", 4) ? line + 4 : NULL;
	for (int i = 0; i < 7 && p; i++)
		p = wl_next_uint(p, &t[i]);
	if (p)
		strbuf_addf(l, " cpu_busy=%llu cpu_idle=%llu cpu_iowait=%llu",
			    (unsigned long long)(t[0] + t[1] + t[2] + t[5] + t[6]), (unsigned long long)t[3],
			    (unsigned long long)t[4]);
	fclose(f);
}

static void send_sample(void)
{
	struct strbuf l = STRBUF_INIT;

	strbuf_addf(&l, "sample t=%llu", (unsigned long long)mono_ms());
	add_proc_fields(&l, "/proc/meminfo", meminfo_fields,
			sizeof(meminfo_fields) / sizeof(meminfo_fields[0]), true);
	add_proc_fields(&l, "/proc/vmstat", vmstat_fields,
			sizeof(vmstat_fields) / sizeof(vmstat_fields[0]), false);
	add_psi(&l);
	add_cpu(&l);
	send_line(&l);
	strbuf_release(&l);
}

static void send_progress(const struct job *j)
{
	struct progress_shm s;
	struct strbuf l = STRBUF_INIT;

	progress_snapshot(j->shm, &s);
	strbuf_addf(&l, "progress t=%llu w=", (unsigned long long)mono_ms());
	proto_encode(&l, j->id, strlen(j->id));
	strbuf_addf(&l,
		    " kind=%s records=%llu bytes=%llu acked=%llu acked_bytes=%llu fsyncs=%llu "
		    "last_ack=%llu errors=%llu phase=%s value=%lld",
		    progress_kind_name(s.kind), (unsigned long long)s.records,
		    (unsigned long long)s.bytes, (unsigned long long)s.acked_records,
		    (unsigned long long)s.acked_bytes, (unsigned long long)s.fsyncs,
		    (unsigned long long)s.last_ack_ms, (unsigned long long)s.errors,
		    progress_phase_name(s.phase), (long long)s.value);
	send_line(&l);
	strbuf_release(&l);
}

/* ---- jobs ---- */

static struct job *job_alloc(void)
{
	for (int i = 0; i < MAX_JOBS; i++)
		if (!jobs[i].used) {
			memset(&jobs[i], 0, sizeof(jobs[i]));
			jobs[i].used = true;
			jobs[i].outfd = -1;
			strbuf_init(&jobs[i].out, 0);
			return &jobs[i];
		}
	return NULL;
}

static void send_error(const char *id, const char *msg)
{
	struct strbuf l = STRBUF_INIT;

	strbuf_addstr(&l, "error ");
	proto_encode(&l, id, strlen(id));
	strbuf_addstr(&l, " msg=");
	proto_encode(&l, msg, strlen(msg));
	send_line(&l);
	strbuf_release(&l);
}

/* In the child: undo what makes the agent special, then exec. */
static void child_exec(char **argv, int outfd, const char *logpath)
{
	int fd = open("/dev/null", O_RDONLY);
	sigset_t none;

	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	setpgid(0, 0);
	setpriority(PRIO_PROCESS, 0, 0);
	FILE *oom = fopen("/proc/self/oom_score_adj", "we");
	if (oom) {
		fputs("0", oom);
		fclose(oom);
	}
	dup2(fd, 0);
	if (logpath)
		outfd = open(logpath, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (outfd >= 0) {
		dup2(outfd, 1);
		dup2(outfd, 2);
	}
	execvp(argv[0], argv);
	dprintf(2, "takeover-agent: cannot run %s: %s\n", argv[0], strerror(errno));
	_exit(127);
}

static void start_exec(char **w, int n)
{
	int pfd[2];
	struct job *j;

	if (n < 4 || proto_decode(w[1]) < 0) {
		send_error(n > 1 ? w[1] : "-", "usage: exec ID TIMEOUT_MS ARG...");
		return;
	}
	for (int i = 3; i < n; i++)
		if (proto_decode(w[i]) < 0) {
			send_error(w[1], "malformed argument encoding");
			return;
		}
	uint64_t timeout;
	const char *why;
	if (parse_uint(w[2], &timeout, &why) < 0) {
		send_error(w[1], "TIMEOUT_MS: not a number of milliseconds");
		return;
	}
	j = job_alloc();
	if (!j) {
		send_error(w[1], "no job slot");
		return;
	}
	if (pipe2(pfd, O_CLOEXEC) < 0) {
		char msg[128];

		snprintf(msg, sizeof(msg), "pipe: %s", strerror(errno));
		j->used = false;
		send_error(w[1], msg);
		return;
	}
	snprintf(j->id, sizeof(j->id), "%s", w[1]);
	j->is_exec = true;
	j->deadline = timeout ? mono_ms() + timeout : 0;
	w[n] = NULL;
	j->pid = fork();
	if (j->pid == 0) {
		close(pfd[0]);
		child_exec(w + 3, pfd[1], NULL);
	}
	close(pfd[1]);
	j->outfd = pfd[0];
	fcntl(j->outfd, F_SETFL, O_NONBLOCK);
	if (j->pid < 0) {
		close(j->outfd);
		j->used = false;
		send_error(w[1], "fork failed");
	}
}

/* spawn NAME ARG...: a long-running workload that reports through /dev/shm/takeover-NAME. */
static void start_workload(char **w, int n)
{
	struct job *j;
	char log[128];

	if (n < 3) {
		send_error(n > 1 ? w[1] : "-", "usage: spawn NAME ARG...");
		return;
	}
	for (int i = 1; i < n; i++)
		if (proto_decode(w[i]) < 0 || !*w[i]) {
			send_error(w[1], "malformed argument encoding");
			return;
		}
	for (int i = 0; i < MAX_JOBS; i++)
		if (jobs[i].used && !jobs[i].is_exec && !strcmp(jobs[i].id, w[1])) {
			send_error(w[1], "a workload of that name is running");
			return;
		}
	j = job_alloc();
	if (!j) {
		send_error(w[1], "no job slot");
		return;
	}
	snprintf(j->id, sizeof(j->id), "%s", w[1]);
	j->shm = progress_create(j->id);
	if (!j->shm) {
		j->used = false;
		send_error(w[1], "cannot create the progress segment");
		return;
	}
	snprintf(log, sizeof(log), "/run/takeover-%s.log", j->id);
	w[n] = NULL;
	j->pid = fork();
	if (j->pid == 0) {
		char path[128];
		progress_path(j->id, path, sizeof(path));
		setenv(PROGRESS_ENV, path, 1);
		child_exec(w + 2, -1, log);
	}
	if (j->pid < 0) {
		progress_destroy(j->shm, j->id);
		j->used = false;
		send_error(w[1], "fork failed");
	}
}

static void stop_workload(char **w, int n)
{
	if (n < 2 || proto_decode(w[1]) < 0)
		return;
	for (int i = 0; i < MAX_JOBS; i++)
		if (jobs[i].used && !jobs[i].is_exec && !strcmp(jobs[i].id, w[1]) && jobs[i].pid > 0)
			kill(-jobs[i].pid, n > 2 && !strcmp(w[2], "kill") ? SIGKILL : SIGTERM);
}

static void drain_job_output(struct job *j)
{
	char buf[4096];
	ssize_t r;

	while (j->outfd >= 0 && (r = read(j->outfd, buf, sizeof(buf))) != 0) {
		if (r < 0) {
			if (errno == EINTR)
				continue;
			break; /* EAGAIN: a grandchild still holds the pipe; keep what we have */
		}
		if (j->out.len < EXEC_OUT_MAX)
			strbuf_add(&j->out, buf, (size_t)r);
	}
	close(j->outfd);
	j->outfd = -1;
}

static void finish_job(struct job *j, int status)
{
	struct strbuf l = STRBUF_INIT;
	int rc = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);

	if (j->is_exec) {
		drain_job_output(j);
		strbuf_addstr(&l, "done ");
		proto_encode(&l, j->id, strlen(j->id));
		strbuf_addf(&l, " rc=%d timeout=%d out=", rc, j->timed_out);
		proto_encode(&l, j->out.buf, j->out.len);
	} else {
		send_progress(j); /* the final counters */
		strbuf_addstr(&l, "exit w=");
		proto_encode(&l, j->id, strlen(j->id));
		strbuf_addf(&l, " rc=%d", rc);
		progress_destroy(j->shm, j->id);
	}
	send_line(&l);
	strbuf_release(&l);
	strbuf_release(&j->out);
	j->used = false;
}

static void reap(void)
{
	int status;
	pid_t pid;

	while ((pid = waitpid(-1, &status, WNOHANG)) > 0)
		for (int i = 0; i < MAX_JOBS; i++)
			if (jobs[i].used && jobs[i].pid == pid)
				finish_job(&jobs[i], status);
}

static void check_deadlines(void)
{
	uint64_t now = mono_ms();

	for (int i = 0; i < MAX_JOBS; i++) {
		struct job *j = &jobs[i];
		if (j->used && j->is_exec && j->deadline && now > j->deadline && !j->timed_out) {
			j->timed_out = true;
			kill(-j->pid, SIGKILL);
		}
	}
}

/* ---- the host's commands ---- */

static void handle_line(char *line)
{
	char *w[PROTO_MAX_WORDS + 1];
	int n = proto_split(line, w, PROTO_MAX_WORDS);

	if (n == 0)
		return;
	if (!strcmp(w[0], "ping"))
		send_hello();
	else if (!strcmp(w[0], "exec"))
		start_exec(w, n);
	else if (!strcmp(w[0], "spawn"))
		start_workload(w, n);
	else if (!strcmp(w[0], "stop"))
		stop_workload(w, n);
	else
		send_error("-", "unknown command");
}

static void read_port(void)
{
	char buf[8192];
	ssize_t n = read(port, buf, sizeof(buf));

	if (n <= 0)
		return;
	strbuf_add(&inbuf, buf, (size_t)n);
	char *start = inbuf.buf, *nl;
	while ((nl = memchr(start, '\n', inbuf.len - (size_t)(start - inbuf.buf)))) {
		*nl = '\0';
		handle_line(start);
		start = nl + 1;
	}
	size_t rest = inbuf.len - (size_t)(start - inbuf.buf);
	if (rest > PROTO_MAX_LINE)
		rest = 0; /* a runaway line: drop it rather than grow forever */
	memmove(inbuf.buf, start, rest);
	inbuf.len = rest;
	inbuf.buf[rest] = '\0';
}

static void make_unkillable(void)
{
	FILE *f = fopen("/proc/self/oom_score_adj", "we");

	if (f) {
		fputs("-1000", f);
		fclose(f);
	}
	setpriority(PRIO_PROCESS, 0, -15);
	if (mlockall(MCL_CURRENT | MCL_FUTURE) < 0)
		perror("takeover-agent: mlockall");
}

/* The udev symlink, or the vportNpM whose sysfs name matches when udev is not there yet. */
static int try_open_port(void)
{
	char path[256], name[128];
	/* TAKEOVER_AGENT_PORT: another device to serve (tests/unit/test_agent.c runs the agent on a pty). */
	const char *override = getenv("TAKEOVER_AGENT_PORT");
	int fd = open(override && *override ? override : PORT_PATH, O_RDWR | O_NONBLOCK | O_CLOEXEC);

	if (fd >= 0)
		return fd;
	for (int dev = 0; dev < 4; dev++) {
		for (int p = 0; p < 32; p++) {
			snprintf(path, sizeof(path), "/sys/class/virtio-ports/vport%dp%d/name", dev, p);
			read_file_word(path, name, sizeof(name));
			if (strcmp(name, AGENT_PORT_NAME))
				continue;
			snprintf(path, sizeof(path), "/dev/vport%dp%d", dev, p);
			return open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC);
		}
	}
	return -1;
}

static int open_port(void)
{
	for (;;) {
		int fd = try_open_port();
		if (fd >= 0)
			return fd;
		usleep(200 * 1000);
	}
}

static int setup_fds(int *sfd, int *tfd)
{
	struct itimerspec its = { .it_interval = { 1, 0 }, .it_value = { 1, 0 } };
	sigset_t mask;

	sigemptyset(&mask);
	sigaddset(&mask, SIGCHLD);
	sigaddset(&mask, SIGPIPE);
	sigprocmask(SIG_BLOCK, &mask, NULL);
	*sfd = signalfd(-1, &mask, SFD_NONBLOCK | SFD_CLOEXEC);
	*tfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	if (*sfd < 0 || *tfd < 0 || timerfd_settime(*tfd, 0, &its, NULL) < 0)
		return -1;
	return 0;
}

static void on_tick(void)
{
	host_hup = false; /* look at the port again: the host may be back */
	send_sample();
	for (int i = 0; i < MAX_JOBS; i++)
		if (jobs[i].used && !jobs[i].is_exec)
			send_progress(&jobs[i]);
	check_deadlines();
}

int main(void)
{
	int sfd, tfd;

	started_ms = mono_ms();
	make_unkillable();
	find_node_name();
	if (setup_fds(&sfd, &tfd) < 0 || (port = open_port()) < 0)
		return 1;
	send_hello();
	for (;;) {
		struct pollfd p[3 + MAX_JOBS];
		int np = 3;
		p[0] = (struct pollfd){ .fd = sfd, .events = POLLIN };
		p[1] = (struct pollfd){ .fd = tfd, .events = POLLIN };
		/* A port without a host reports POLLHUP constantly: skip it until the next tick. */
		p[2] = (struct pollfd){ .fd = host_hup ? -1 : port,
					.events = POLLIN | (outbuf.len ? POLLOUT : 0) };
		for (int i = 0; i < MAX_JOBS; i++)
			if (jobs[i].used && jobs[i].outfd >= 0)
				p[np++] = (struct pollfd){ .fd = jobs[i].outfd, .events = POLLIN };
		if (poll(p, (nfds_t)np, -1) < 0 && errno != EINTR)
			return 1;
		if (p[0].revents) {
			struct signalfd_siginfo si;
			while (read(sfd, &si, sizeof(si)) == sizeof(si))
				;
			reap();
		}
		if (p[1].revents) {
			uint64_t ticks;
			if (read(tfd, &ticks, sizeof(ticks)) > 0)
				on_tick();
		}
		if (p[2].revents & POLLHUP)
			host_hup = true;
		else if (p[2].revents & POLLIN)
			read_port();
		for (int i = 0; i < MAX_JOBS; i++)
			if (jobs[i].used && jobs[i].outfd >= 0) {
				char buf[4096];
				ssize_t r;
				while ((r = read(jobs[i].outfd, buf, sizeof(buf))) > 0)
					if (jobs[i].out.len < EXEC_OUT_MAX)
						strbuf_add(&jobs[i].out, buf, (size_t)r);
			}
		flush_out();
	}
}
