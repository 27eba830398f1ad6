// SPDX-License-Identifier: GPL-2.0-only
/*
 * block-loopback: the negative control. The server is destroyed as usual;
 * once the takeover node's loop-back writes have resumed (plus block_after),
 * an nftables rule on the takeover node drops every packet its own NFS
 * client sends to the floating IP. Loop-back progress stops while the
 * remote clients keep writing: a correct harness must say FAIL-STALL.
 */
#include <errno.h>
#include <stdio.h>

#include "run/faults/faults.h"
#include "cluster/net.h"
#include "util/log.h"

#define TABLE "takeover_block"

static int nft(struct fault_ctx *f, const char *const *argv)
{
	struct strbuf out = STRBUF_INIT;
	int rc, r = cluster_exec(f->c, f->takeover->id, argv, 30000, &out, &rc);

	if (!r && rc) {
		strbuf_rtrim(&out);
		log_error("fault block-loopback: nft on %s failed (exit %d): %s", f->takeover->name, rc,
			  out.buf);
		r = -EIO;
	}
	strbuf_release(&out);
	return r;
}

static int block(struct fault_ctx *f)
{
	char ip[20];

	ip_to_str(f->c->float_ip, ip, sizeof(ip));
	/* Locally generated packets to the floating IP pass the output hook (on lo). */
	const char *table[] = { "nft", "add", "table", "inet", TABLE, NULL };
	const char *chain[] = { "nft", "add", "chain", "inet", TABLE, "out",
				"{ type filter hook output priority 0 ; }", NULL };
	const char *rule[] = { "nft", "add", "rule", "inet", TABLE, "out", "ip", "daddr", ip, "tcp",
			       "dport", "2049", "drop", NULL };
	int r = nft(f, table);

	if (!r)
		r = nft(f, chain);
	if (!r)
		r = nft(f, rule);
	return r;
}

static int unblock(struct fault_ctx *f)
{
	const char *del[] = { "nft", "delete", "table", "inet", TABLE, NULL };

	return nft(f, del);
}

const struct fault fault_block_loopback = {
	.inject = fault_destroy_victim,
	.after_resume = block, .undo = unblock,
};
