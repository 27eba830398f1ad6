// SPDX-License-Identifier: GPL-2.0-only
/*
 * freeze: pause the domain. The node is not dead, it just stops answering;
 * the cluster must fence it (fence_virtd destroys the paused domain) before
 * the group may move.
 */
#include <errno.h>

#include "run/faults/faults.h"
#include "util/log.h"

static const char *unsupported(const struct fault_ctx *f)
{
	return f->sc->cluster.fencing ? NULL
				      : "freeze needs [cluster] fencing = on: without fencing a frozen "
					"server is never taken over";
}

static int inject(struct fault_ctx *f)
{
	_cleanup_domain_ virDomainPtr d = NULL;
	int r = fault_domain(f, &d);

	if (r < 0)
		return r;
	if (virDomainSuspend(d) < 0) {
		log_error("fault freeze: suspend %s: %s", f->victim->domain, virGetLastErrorMessage());
		return -EIO;
	}
	return 0;
}

const struct fault fault_freeze = {
	.unsupported = unsupported, .inject = inject,
};
