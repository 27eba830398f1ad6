// SPDX-License-Identifier: GPL-2.0-only
/*
 * partition: the NFS server is cut off from the other nodes, the way a
 * failed switch port looks, and keeps running. On the host side of its tap,
 * inside the cluster's own network namespace: a bridge-family nftables
 * table drops every frame the victim sends and every unicast frame sent to
 * it (broadcasts it still hears cannot be answered). Its agent is a
 * virtio-serial channel, not the network, so the harness still sees it.
 *
 * The majority (quorate) fences it and takes over, as after destroy. With
 * fencing off and a no_quorum_policy that lets the minority keep its
 * resources (freeze, ignore), both sides hold the floating IP and mount the
 * shared disk: the split brain the audits catch (FAIL-SPLIT-BRAIN).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cluster/net.h"
#include "run/faults/faults.h"
#include "util/fs.h"
#include "util/log.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

#define TABLE "takeover_partition"

static int apply(struct fault_ctx *f, const char *what, const char *rules)
{
	char *path = xasprintf("%s/%s.nft", f->c->dir, what);
	int r = write_file_atomic(path, rules, strlen(rules), 0644);

	if (r < 0)
		log_error("fault partition: cannot write %s: %s", path, strerror(-r));
	else
		r = net_nft_file(f->c->netns, path);
	free(path);
	return r;
}

static int cut(struct fault_ctx *f)
{
	struct strbuf nft = STRBUF_INIT;
	uint8_t m[6];
	char mac[18];
	int r;

	net_node_mac(f->victim->id, m);
	net_mac_str(m, mac, sizeof(mac));
	/* prerouting sees every frame from a port before it is forwarded or delivered to the host. */
	strbuf_addf(&nft,
		    "table bridge " TABLE " {\n"
		    "\tchain pre { type filter hook prerouting priority -200; ether saddr %s drop; }\n"
		    "\tchain post { type filter hook postrouting priority -200; ether daddr %s drop; }\n"
		    "}\n",
		    mac, mac);
	r = apply(f, "partition", nft.buf);
	strbuf_release(&nft);
	return r;
}

static int heal(struct fault_ctx *f)
{
	return apply(f, "partition-heal", "delete table bridge " TABLE "\n");
}

const struct fault fault_partition = {
	.inject = cut, .undo = heal,
	.cut_off = true,
};
