/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef TAKEOVER_CAPTURE_H
#define TAKEOVER_CAPTURE_H
/*
 * Getting evidence out of a node through libvirt, without any help from the
 * guest's user space (which may be stuck): sysrq keys on its virtual
 * keyboard, its vCPU time, and a memory-only ELF core dump for crash(8).
 */
#include <stdint.h>

#include "cluster/virt.h"

/* Sends Alt+SysRq+key (key: a-z or 0-9). 0 or -errno, logged here. */
int capture_sysrq(virConnectPtr conn, const char *domain, char key);
/* The domain's total vCPU time in ns; 0 or -errno, not logged (polled: a gone domain is no error). */
int capture_cpu_ns(virConnectPtr conn, const char *domain, uint64_t *ns);
/* Memory-only ELF dump (readable by crash) to path, written by QEMU. 0 or -errno, logged here. */
int capture_vmcore(virConnectPtr conn, const char *domain, const char *path);

/* vCPU time samples of one node: a ring of (timeline ms, ns). */
#define CPU_RING 512
struct cpu_ring {
	uint64_t t[CPU_RING], ns[CPU_RING];
	unsigned n, head;
};
void cpu_ring_add(struct cpu_ring *r, uint64_t t, uint64_t ns);
/* Fraction of one vCPU used between t0 and t1 (nearest samples); -1 when unknown. */
double cpu_ring_busy(const struct cpu_ring *r, uint64_t t0, uint64_t t1, double *window_s);

#endif
