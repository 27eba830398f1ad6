// SPDX-License-Identifier: GPL-2.0-only
#include "run/faults/faults.h"

#include <errno.h>

#include "util/log.h"

static const struct fault *const faults[] = {
	&fault_destroy, &fault_crash, &fault_panic, &fault_freeze, &fault_block_loopback, NULL,
};

const struct fault *fault_for(int kind)
{
	for (int i = 0; faults[i]; i++)
		if (faults[i]->kind == kind)
			return faults[i];
	return NULL;
}

int fault_domain(struct fault_ctx *f, virDomainPtr *dom)
{
	*dom = virDomainLookupByName(f->c->conn, f->victim->domain);
	if (!*dom) {
		log_error("fault: domain %s not found: %s", f->victim->domain, virGetLastErrorMessage());
		return -ENOENT;
	}
	return 0;
}

int fault_destroy_victim(struct fault_ctx *f)
{
	virDomainPtr d;
	int r = fault_domain(f, &d);

	if (r < 0)
		return r;
	if (virDomainDestroy(d) < 0) {
		log_error("fault: cannot destroy %s: %s", f->victim->domain, virGetLastErrorMessage());
		r = -EIO;
	}
	virDomainFree(d);
	return r;
}
