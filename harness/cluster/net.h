/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef TAKEOVER_NET_H
#define TAKEOVER_NET_H
/*
 * The cluster's isolated network: one network namespace holding one Linux
 * bridge. The namespace has no link to the host's network and no default
 * route, so nothing a guest sends can leave the machine; the bridge carries
 * the host-side address that fence_virtd listens on.
 */
#include <stdint.h>
#include <sys/types.h>

#define NET_BRIDGE "tkbr0"
/* The bridge's own address; nodes are 52:54:00:7b:00:<id> (config.c). */
#define NET_BRIDGE_MAC "52:54:00:7b:00:fe"

/* Creates netns with a bridge addressed bridge_ip/24. 0 or -errno (logged). */
int net_create(const char *netns, uint32_t bridge_ip);
/* Removes the namespace; 0 when it is gone (or never existed). */
int net_destroy(const char *netns);
/* Inode of the namespace (identifies processes inside it); 0 when absent. */
ino_t net_inode(const char *netns);
void ip_to_str(uint32_t ip, char *buf, size_t len);

#endif
