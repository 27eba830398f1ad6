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
/* The bridge's own address; nodes are 52:54:00:7b:00:<id> (net_node_mac). */
#define NET_BRIDGE_MAC "52:54:00:7b:00:fe"

/* Creates netns with a bridge addressed bridge_ip/24. 0 or -errno (logged). */
int net_create(const char *netns, uint32_t bridge_ip);
/* Removes the namespace; 0 when it is gone (or never existed). */
int net_destroy(const char *netns);
/* Inode of the namespace (identifies processes inside it); 0 when absent. */
ino_t net_inode(const char *netns);
void ip_to_str(uint32_t ip, char *buf, size_t len);
/* Node id's address on the bridge, 52:54:00:7b:00:<id>. */
void net_node_mac(int id, uint8_t mac[6]);
/* A MAC as "52:54:00:7b:00:01"; buf holds at least 18 bytes. */
void net_mac_str(const uint8_t mac[6], char *buf, size_t len);
/* `nft -f file` inside the namespace (its bridge's traffic only). 0 or -errno (logged). */
int net_nft_file(const char *netns, const char *file);

#endif
