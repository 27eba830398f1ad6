// SPDX-License-Identifier: GPL-2.0-only
#include "run/faults/faults.h"

#include <errno.h>

#include "util/log.h"

#define FAULT_X_PTR(e, n, s) [FAULT_##e] = &fault_##s,
static const struct fault *const faults[FAULT_N] = { FAULT_LIST(FAULT_X_PTR) };
#undef FAULT_X_PTR

const struct fault *fault_for(enum fault_kind kind)
{
	return (unsigned)kind < FAULT_N ? faults[kind] : NULL;
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
	_cleanup_domain_ virDomainPtr d = NULL;
	int r = fault_domain(f, &d);

	if (r < 0)
		return r;
	if (virDomainDestroy(d) < 0) {
		log_error("fault: cannot destroy %s: %s", f->victim->domain, virGetLastErrorMessage());
		return -EIO;
	}
	return 0;
}
