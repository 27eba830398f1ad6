// SPDX-License-Identifier: GPL-2.0-only
/*
 * `down` and the reaping of provably stale clusters: everything a cluster
 * made is named after it, so only its own things are removed.
 */
#include "cluster/cluster.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cluster/daemons.h"
#include "image/kernel.h"
#include "cluster/net.h"
#include "util/paths.h"
#include "cluster/template.h"
#include "util/cancel.h"
#include "util/cleanup.h"
#include "util/fs.h"
#include "util/log.h"
#include "util/spawn.h"
#include "util/units.h"
#include "util/xalloc.h"
#include "cluster/vm.h"
#include "cluster/lifecycle.h"

/* Destroys every takeover-* domain this cluster's own libvirtd knows. */
static void destroy_domains(const char *uri)
{
	_cleanup_conn_ virConnectPtr conn = virConnectOpen(uri);
	_cleanup_free_ virDomainPtr *doms = NULL;
	const char *prefix = "takeover-";
	int n;

	if (!conn)
		return;
	n = virConnectListAllDomains(conn, &doms, 0);
	for (int i = 0; i < n; i++) {
		const char *dn = virDomainGetName(doms[i]);
		if (dn && !strncmp(dn, prefix, strlen(prefix))) {
			log_debug("destroying domain %s", dn);
			if (virDomainIsActive(doms[i]) == 1)
				virDomainDestroy(doms[i]);
			virDomainUndefine(doms[i]);
		}
		virDomainFree(doms[i]);
	}
}

/* QEMU processes of this cluster (its disks are in its directory) that live outside its namespace. */
static int kill_stray_qemu(const char *dir)
{
	_cleanup_free_ char *needle = xasprintf("%s/", dir);
	_cleanup_closedir_ DIR *d = opendir("/proc");
	struct dirent *e;
	int n = 0;

	while (d && (e = readdir(d))) {
		char path[64];
		pid_t pid = daemons_parse_pid(e->d_name);
		_cleanup_strbuf_ struct strbuf cmd = STRBUF_INIT;
		if (!pid)
			continue;
		snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)pid);
		if (strbuf_read_file(&cmd, path, 1 << 20) < 0)
			continue;
		for (size_t i = 0; i < cmd.len; i++)
			if (!cmd.buf[i])
				cmd.buf[i] = ' ';
		if (strstr(cmd.buf, needle) && strstr(cmd.buf, "qemu-system")) {
			daemons_terminate(pid, 5000);
			n++;
		}
	}
	return n;
}

int cluster_down(const char *name)
{
	char ns[64];
	char *dir, *uri;
	ino_t ino;
	int r;

	if (!cluster_valid_name(name))
		return -EINVAL;
	cancel_hold(); /* a second Ctrl-C must not leave half a cluster behind */
	snprintf(ns, sizeof(ns), "takeover-%s", name);
	dir = xasprintf("%s/%s", cluster_state_root(), name);
	uri = daemons_libvirt_uri(dir);
	ino = net_inode(ns);
	if (ino) {
		char *sock = xasprintf("%s/libvirt/run/libvirt-sock", dir);
		if (access(sock, F_OK) == 0)
			destroy_domains(uri);
		free(sock);
		/* libvirtd, fence_virtd, and any QEMU libvirt did not manage to stop. */
		daemons_kill_netns(ino, name);
	}
	kill_stray_qemu(dir);
	r = net_destroy(ns);
	if (!r)
		r = rm_rf(dir);
	if (r < 0)
		log_error("cluster %s: could not remove everything: %s", name, strerror(-r));
	free(dir);
	free(uri);
	cancel_release();
	return r;
}

/* The owner still runs takeover (and is not a reused pid). */
static bool owner_alive(pid_t pid)
{
	char path[64];
	struct strbuf cmd = STRBUF_INIT;
	bool alive;

	if (pid <= 1)
		return false;
	snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)pid);
	alive = strbuf_read_file(&cmd, path, 1 << 16) == 0 && strstr(cmd.buf, "takeover");
	strbuf_release(&cmd);
	return alive;
}

int cluster_reap_stale(void)
{
	char names[64][CLUSTER_NAME_MAX + 1];
	int n = cluster_list(names, 64), reaped = 0;

	for (int i = 0; i < n; i++) {
		struct cluster c;
		if (cluster_load(names[i], &c) < 0)
			continue;
		bool stale = c.ephemeral && !owner_alive(c.owner);
		pid_t owner = c.owner;
		cluster_release(&c);
		if (!stale)
			continue;
		log_warn("removing cluster %s: left by a takeover run (pid %d) that is gone", names[i], (int)owner);
		if (cluster_down(names[i]) == 0)
			reaped++;
	}
	return reaped;
}
