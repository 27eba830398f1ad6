// SPDX-License-Identifier: GPL-2.0-only
/*
 * panic: an NMI injected by the host, which the guest turns into a panic
 * (sysctl.kernel.unknown_nmi_panic=1 on its command line): the kernel dies
 * without any help from the guest's own code paths.
 */
#include <errno.h>

#include "run/faults/faults.h"
#include "util/log.h"

static int inject(struct fault_ctx *f)
{
	_cleanup_domain_ virDomainPtr d = NULL;
	int r = fault_domain(f, &d);

	if (r < 0)
		return r;
	if (virDomainInjectNMI(d, 0) < 0) {
		log_error("fault panic: NMI to %s: %s", f->victim->domain, virGetLastErrorMessage());
		return -EIO;
	}
	return 0;
}

const struct fault fault_panic = { .inject = inject };
