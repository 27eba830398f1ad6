// SPDX-License-Identifier: GPL-2.0-only
/*
 * crash: sysrq-c through the guest's keyboard, sent by the host, so it works
 * however stuck the guest's user space is. The kernel command line enables
 * every sysrq function (sysctl.kernel.sysrq=1).
 */
#include <errno.h>
#include <linux/input-event-codes.h>

#include "run/faults/faults.h"
#include "util/log.h"

static int inject(struct fault_ctx *f)
{
	unsigned int keys[] = { KEY_LEFTALT, KEY_SYSRQ, KEY_C };
	_cleanup_domain_ virDomainPtr d = NULL;
	int r = fault_domain(f, &d);

	if (r < 0)
		return r;
	if (virDomainSendKey(d, VIR_KEYCODE_SET_LINUX, 100, keys, 3, 0) < 0) {
		log_error("fault crash: send-key to %s: %s", f->victim->domain, virGetLastErrorMessage());
		return -EIO;
	}
	return 0;
}

const struct fault fault_crash = { .inject = inject };
