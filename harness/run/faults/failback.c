// SPDX-License-Identifier: GPL-2.0-only
/*
 * failback: no node fails. The NFS group is moved away from the node serving
 * it, on purpose, as an operator's `crm resource move` or a location
 * preference coming back would: a location constraint with score INFINITY
 * for the takeover node. The node it leaves keeps writing through what was
 * its loop-back mount and keeps its memory pressure: nfsd stops there while
 * its own client holds dirty data, the shared file system is unmounted under
 * it, and the node becomes a plain client of the new server. Its writes are
 * the ones judged (LOCALIO's nfsd-shutdown hang of 2025 lived in this
 * transition).
 */
#include <errno.h>

#include "cluster/crm.h"
#include "run/faults/faults.h"
#include "util/log.h"

static int inject(struct fault_ctx *f)
{
	const char *argv[CRM_LOCATION_ARGC];
	struct strbuf out = STRBUF_INIT;
	int rc, r;

	crm_location_argv(argv, "takeover_failback", f->takeover->name, "INFINITY");
	r = cluster_exec(f->c, f->takeover->id, argv, 60000, &out, &rc);
	if (!r && rc) {
		strbuf_rtrim(&out);
		log_error("fault failback: cibadmin on %s failed (exit %d): %s", f->takeover->name, rc, out.buf);
		r = -EIO;
	}
	strbuf_release(&out);
	crm_location_argv_free(argv);
	return r;
}

const struct fault fault_failback = {
	.inject = inject,
	.server_to_client = true,
};
