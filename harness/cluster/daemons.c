// SPDX-License-Identifier: GPL-2.0-only
#include "cluster/daemons.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util/cleanup.h"
#include "util/fs.h"
#include "util/log.h"
#include "util/spawn.h"
#include "util/units.h"
#include "util/xalloc.h"

#define DAEMON_START_TIMEOUT_MS 60000

static const struct bind {
	const char *sub;    /* under DIR/libvirt */
	const char *target; /* where libvirtd looks */
} libvirt_binds[] = {
	{ "run", "/run/libvirt" },       { "lib", "/var/lib/libvirt" },
	{ "cache", "/var/cache/libvirt" }, { "log", "/var/log/libvirt" },
	{ "etc", "/etc/libvirt" },
};

/*
 * Our libvirtd runs QEMU as root with no image relabelling: the images are
 * the harness's own files, and the cluster is confined by its namespace.
 * stdio_handler=file lets QEMU write console logs itself (no virtlogd).
 */
static const char qemu_conf[] =
	"# written by takeover: this cluster's private libvirtd\n"
	"user = \"root\"\n"
	"group = \"root\"\n"
	"dynamic_ownership = 0\n"
	"remember_owner = 0\n"
	"security_driver = \"none\"\n"
	"stdio_handler = \"file\"\n"
	/* No cgroups: every cluster's domains are named takeover-n1..., and cgroup names would clash. */
	"cgroup_controllers = [ ]\n"
	"max_core = 0\n";

static const char libvirtd_conf[] =
	"# written by takeover\n"
	"unix_sock_rw_perms = \"0700\"\n"
	"log_outputs = \"3:file:/var/log/libvirt/libvirtd.log\"\n";

char *daemons_libvirt_uri(const char *dir)
{
	return xasprintf("qemu:///system?socket=%s/libvirt/run/libvirt-sock", dir);
}

static int enter_netns(const char *netns)
{
	char path[128];

	snprintf(path, sizeof(path), "/run/netns/%s", netns);
	_cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	return setns(fd, CLONE_NEWNET) < 0 ? -errno : 0;
}

/* In the child: a private mount namespace with the cluster's libvirt directories. */
static int private_mounts(const char *dir)
{
	if (unshare(CLONE_NEWNS) < 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
		return -errno;
	/* A sysfs of this network namespace: libvirt reads bridges from /sys/class/net. */
	umount2("/sys", MNT_DETACH);
	if (mount("sysfs", "/sys", "sysfs", 0, NULL) < 0)
		return -errno;
	for (size_t i = 0; i < sizeof(libvirt_binds) / sizeof(libvirt_binds[0]); i++) {
		char *src = xasprintf("%s/libvirt/%s", dir, libvirt_binds[i].sub);
		int r = mkdir_p(libvirt_binds[i].target, 0755);
		if (!r && mount(src, libvirt_binds[i].target, NULL, MS_BIND, NULL) < 0)
			r = -errno;
		free(src);
		if (r)
			return r;
	}
	return 0;
}

/*
 * Runs argv inside netns (and, when dir is set, libvirt's private mounts).
 * The daemons fork into the background themselves; their first process
 * exits once they are initialised, which is what this waits for.
 */
static int run_in_ns(const char *netns, const char *dir, const char *const *argv, const char *log)
{
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return -errno;
	if (pid == 0) {
		int fd = open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
		if (fd >= 0) {
			dup2(fd, 1);
			dup2(fd, 2);
		}
		setsid();
		if (enter_netns(netns) < 0 || (dir && private_mounts(dir) < 0)) {
			dprintf(2, "takeover: cannot enter the cluster namespaces: %s\n", strerror(errno));
			_exit(126);
		}
		execv(argv[0], (char *const *)argv);
		dprintf(2, "takeover: cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	uint64_t deadline = now_ms() + DAEMON_START_TIMEOUT_MS;
	for (;;) {
		pid_t w = waitpid(pid, &status, WNOHANG);
		if (w == pid)
			break;
		if (now_ms() > deadline) {
			kill(pid, SIGKILL);
			waitpid(pid, &status, 0);
			return -ETIMEDOUT;
		}
		usleep(50 * 1000);
	}
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -EIO;
}

static int write_conf(const char *dir, const char *name, const char *text)
{
	char *path = xasprintf("%s/%s", dir, name);
	int r = write_file_atomic(path, text, strlen(text), 0644);

	free(path);
	return r;
}

static int wait_for_socket(const char *path, unsigned timeout_ms)
{
	uint64_t deadline = now_ms() + timeout_ms;

	while (access(path, F_OK) < 0) {
		if (now_ms() > deadline)
			return -ETIMEDOUT;
		usleep(100 * 1000);
	}
	return 0;
}

int daemons_start_libvirtd(const char *netns, const char *dir)
{
	char *etc = xasprintf("%s/libvirt/etc", dir), *log = xasprintf("%s/libvirtd.out", dir);
	char *sock = xasprintf("%s/libvirt/run/libvirt-sock", dir);
	const char *argv[] = { "/usr/sbin/libvirtd", "-d", "-p", "/run/libvirt/libvirtd.pid", NULL };
	int r = 0;

	if (access(argv[0], X_OK) < 0) {
		log_error("libvirtd not found (%s): install libvirt-daemon (./bootstrap deps)", argv[0]);
		r = -ENOENT;
		goto out;
	}
	for (size_t i = 0; i < sizeof(libvirt_binds) / sizeof(libvirt_binds[0]) && !r; i++) {
		char *d = xasprintf("%s/libvirt/%s", dir, libvirt_binds[i].sub);
		r = mkdir_p(d, 0700);
		free(d);
	}
	if (!r)
		r = write_conf(etc, "qemu.conf", qemu_conf);
	if (!r)
		r = write_conf(etc, "libvirtd.conf", libvirtd_conf);
	if (!r)
		r = run_in_ns(netns, dir, argv, log);
	if (!r)
		r = wait_for_socket(sock, DAEMON_START_TIMEOUT_MS);
	if (r < 0)
		log_error("cannot start libvirtd for this cluster: %s (see %s and %s/libvirt/log/libvirtd.log)",
			  strerror(-r), log, dir);
out:
	free(etc);
	free(log);
	free(sock);
	return r;
}

int daemons_start_fence_virtd(const char *netns, const char *dir, const char *uri)
{
	char *conf = xasprintf("%s/fence_virt.conf", dir), *pid = xasprintf("%s/fence_virtd.pid", dir);
	char *log = xasprintf("%s/fence_virtd.out", dir);
	struct strbuf text = STRBUF_INIT;
	const char *argv[] = { "/usr/sbin/fence_virtd", "-w", "-f", conf, "-p", pid, NULL };
	int r;

	if (access(argv[0], X_OK) < 0) {
		log_error("fence_virtd not found (%s): install fence-virtd (./bootstrap deps)", argv[0]);
		r = -ENOENT;
		goto out;
	}
	strbuf_addf(&text,
		    "# written by takeover: fencing for this cluster only\n"
		    "fence_virtd {\n\tlistener = \"multicast\";\n\tbackend = \"libvirt\";\n"
		    "\tmodule_path = \"/usr/lib/x86_64-linux-gnu/fence-virt\";\n}\n"
		    "listeners {\n\tmulticast {\n\t\tkey_file = \"%s/config/etc/cluster/fence_xvm.key\";\n"
		    "\t\taddress = \"225.0.0.12\";\n\t\tinterface = \"tkbr0\";\n"
		    "\t\tfamily = \"ipv4\";\n\t\tport = \"1229\";\n\t}\n}\n"
		    "backends {\n\tlibvirt {\n\t\turi = \"%s\";\n\t}\n}\n",
		    dir, uri);
	r = write_file_atomic(conf, text.buf, text.len, 0600);
	if (!r)
		r = run_in_ns(netns, NULL, argv, log);
	if (r < 0)
		log_error("cannot start fence_virtd for this cluster: %s (see %s)", strerror(-r), log);
out:
	strbuf_release(&text);
	free(conf);
	free(pid);
	free(log);
	return r;
}

static ino_t proc_netns(pid_t pid)
{
	char path[64];
	struct stat st;

	snprintf(path, sizeof(path), "/proc/%d/ns/net", (int)pid);
	return stat(path, &st) == 0 ? st.st_ino : 0;
}

pid_t daemons_pid_in_ns(const char *pidfile, ino_t netns_ino)
{
	char buf[32];
	pid_t pid;

	if (!netns_ino || read_line_file(pidfile, buf, sizeof(buf)) < 0 || !(pid = daemons_parse_pid(buf)))
		return 0;
	return proc_netns(pid) == netns_ino ? pid : 0;
}

pid_t daemons_parse_pid(const char *s)
{
	uint64_t v;
	const char *why;

	return parse_uint(s, &v, &why) == 0 && v > 1 && v <= INT32_MAX ? (pid_t)v : 0;
}

void daemons_terminate(pid_t pid, unsigned timeout_ms)
{
	_cleanup_close_ int fd = (int)syscall(SYS_pidfd_open, pid, 0);
	struct pollfd p = { .fd = fd, .events = POLLIN };

	if (fd < 0) {
		kill(pid, SIGKILL);
		return;
	}
	kill(pid, SIGTERM);
	if (poll(&p, 1, (int)timeout_ms) <= 0) {
		kill(pid, SIGKILL);
		poll(&p, 1, 5000);
	}
}

int daemons_kill_netns(ino_t netns_ino, const char *what)
{
	_cleanup_closedir_ DIR *d = opendir("/proc");
	struct dirent *e;
	int n = 0;

	if (!d || !netns_ino)
		return 0;
	while ((e = readdir(d))) {
		pid_t pid = daemons_parse_pid(e->d_name);
		if (!pid || pid == getpid() || proc_netns(pid) != netns_ino)
			continue;
		log_debug("%s: stopping process %d in the cluster's namespace", what, (int)pid);
		daemons_terminate(pid, 5000);
		n++;
	}
	return n;
}
