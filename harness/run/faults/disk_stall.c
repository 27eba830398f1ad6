// SPDX-License-Identifier: GPL-2.0-only
/*
 * disk-stall: no node fails and the group stays. The NFS server's shared
 * disk stops completing I/O for [fault] duration: QEMU's block throttling,
 * through libvirt, at one byte a second (the request in flight passes, each
 * next one would wait its size in seconds), then lifted. nfsd's writes wait
 * on the disk while its own loop-back client, under pressure, piles up dirty
 * pages; after the stall every writer must go on, the server's own judged
 * from the fault on by the same rules (a gap over max_stall is FAIL-STALL).
 */
#include <errno.h>

#include "cluster/vm.h"
#include "run/faults/faults.h"
#include "util/log.h"

static int tune(struct fault_ctx *f, unsigned long long bytes_sec)
{
	_cleanup_domain_ virDomainPtr d = NULL;
	virTypedParameterPtr params = NULL;
	int n = 0, max = 0, r = fault_domain(f, &d);

	if (r < 0)
		return r;
	if (virTypedParamsAddULLong(&params, &n, &max, VIR_DOMAIN_BLOCK_IOTUNE_TOTAL_BYTES_SEC, bytes_sec) < 0 ||
	    virDomainSetBlockIoTune(d, SHARED_DISK_TARGET, params, n, VIR_DOMAIN_AFFECT_LIVE) < 0) {
		log_error("fault disk-stall: cannot %s %s's shared disk: %s", bytes_sec ? "throttle" : "release",
			  f->victim->domain, virGetLastErrorMessage());
		r = -EIO;
	}
	virTypedParamsFree(params, n);
	return r;
}

static int stall(struct fault_ctx *f)
{
	return tune(f, 1);
}

static int release(struct fault_ctx *f)
{
	return tune(f, 0);
}

const struct fault fault_disk_stall = {
	.inject = stall, .lift = release, .undo = release, /* undo: when the run ends before the lift */
	.group_stays = true,
};
