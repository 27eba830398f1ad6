// SPDX-License-Identifier: GPL-2.0-only
/* destroy: pull the plug on the NFS server, the way a dead host looks to the cluster. */
#include "run/faults/faults.h"

const struct fault fault_destroy = {
	.inject = fault_destroy_victim,
};
