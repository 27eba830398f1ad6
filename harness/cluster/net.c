// SPDX-License-Identifier: GPL-2.0-only
#include "cluster/net.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/log.h"
#include "util/spawn.h"
#include "util/xalloc.h"

#define IP_TIMEOUT_MS 15000

void ip_to_str(uint32_t ip, char *buf, size_t len)
{
	snprintf(buf, len, "%u.%u.%u.%u", ip >> 24, (ip >> 16) & 0xff, (ip >> 8) & 0xff, ip & 0xff);
}

void net_node_mac(int id, uint8_t mac[6])
{
	const uint8_t m[6] = { 0x52, 0x54, 0x00, 0x7b, 0x00, (uint8_t)id };

	memcpy(mac, m, sizeof(m));
}

void net_mac_str(const uint8_t m[6], char *buf, size_t len)
{
	snprintf(buf, len, "%02x:%02x:%02x:%02x:%02x:%02x", m[0], m[1], m[2], m[3], m[4], m[5]);
}

static int ip_cmd(const char *const *argv)
{
	struct strbuf out = STRBUF_INIT;
	int r = spawn_simple(argv, IP_TIMEOUT_MS, &out);

	if (r < 0) {
		strbuf_rtrim(&out);
		log_error("ip %s %s %s: %s", argv[1], argv[2], argv[3] ? argv[3] : "",
			  out.len ? out.buf : strerror(-r));
	}
	strbuf_release(&out);
	return r;
}

ino_t net_inode(const char *netns)
{
	char path[128];
	struct stat st;

	snprintf(path, sizeof(path), "/run/netns/%s", netns);
	return stat(path, &st) == 0 ? st.st_ino : 0;
}

int net_create(const char *netns, uint32_t bridge_ip)
{
	char addr[32], ip[20];
	int r;

	ip_to_str(bridge_ip, ip, sizeof(ip));
	snprintf(addr, sizeof(addr), "%s/24", ip);
	const char *add[] = { "ip", "netns", "add", netns, NULL };
	const char *lo[] = { "ip", "-n", netns, "link", "set", "lo", "up", NULL };
	/*
	 * No IGMP snooping: fence_xvm's multicast must reach fence_virtd
	 * unconditionally. A fixed MAC: guests restored from a snapshot still
	 * hold the bridge's address in their ARP caches.
	 */
	const char *br[] = { "ip", "-n", netns, "link", "add", NET_BRIDGE, "address", NET_BRIDGE_MAC, "type", "bridge",
			     "mcast_snooping", "0", "stp_state", "0", "forward_delay", "0", NULL };
	const char *a[] = { "ip", "-n", netns, "addr", "add", addr, "dev", NET_BRIDGE, NULL };
	const char *up[] = { "ip", "-n", netns, "link", "set", NET_BRIDGE, "up", NULL };
	const char *const *steps[] = { add, lo, br, a, up };

	for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
		r = ip_cmd(steps[i]);
		if (r < 0)
			return r;
	}
	return 0;
}

int net_destroy(const char *netns)
{
	const char *del[] = { "ip", "netns", "del", netns, NULL };

	if (!net_inode(netns))
		return 0;
	return ip_cmd(del);
}

int net_nft_file(const char *netns, const char *file)
{
	const char *argv[] = { "ip", "netns", "exec", netns, "nft", "-f", file, NULL };

	return ip_cmd(argv);
}
