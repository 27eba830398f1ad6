/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef TAKEOVER_DAEMONS_H
#define TAKEOVER_DAEMONS_H
/*
 * Daemons a cluster needs on the host, each started inside the cluster's
 * network namespace so that guest taps and fence_virtd's multicast listener
 * live there. libvirtd additionally gets a private mount namespace in which
 * the cluster's own directories are bind-mounted over /run/libvirt,
 * /var/lib/libvirt, /var/cache/libvirt, /var/log/libvirt and /etc/libvirt:
 * every cluster has its own daemon, configuration and sockets, and a host
 * libvirtd (if any) is never touched.
 */
#include <stdbool.h>
#include <sys/types.h>

/* The libvirt URI of a cluster whose state directory is dir. */
char *daemons_libvirt_uri(const char *dir);
int daemons_start_libvirtd(const char *netns, const char *dir);
int daemons_start_fence_virtd(const char *netns, const char *dir, const char *uri);
/* Process id from a pid file, only when that process lives in netns_ino. 0 otherwise. */
pid_t daemons_pid_in_ns(const char *pidfile, ino_t netns_ino);
/* A process id written as a plain decimal (a pid file, a /proc entry) above 1; else 0. */
pid_t daemons_parse_pid(const char *s);
/* Terminates every process whose network namespace is netns_ino; returns how many. */
int daemons_kill_netns(ino_t netns_ino, const char *what);
/* Terminates pid: SIGTERM, then SIGKILL after timeout_ms. */
void daemons_terminate(pid_t pid, unsigned timeout_ms);

#endif
