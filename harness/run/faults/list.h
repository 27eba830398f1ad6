/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef TAKEOVER_FAULT_LIST_H
#define TAKEOVER_FAULT_LIST_H
/*
 * The one list of fault kinds (stress-ng's core-stressors.h): from it come
 * enum fault_kind and the [fault] kind choices (scenario.c), the externs
 * (faults.h) and the plug-in table (faults.c). Adding a fault is one file
 * run/faults/NAME.c defining `const struct fault fault_NAME` and one line
 * here (then `cmake --build build --target docs`).
 *
 *	X(ENUM_SUFFIX, "scenario name", symbol)
 */
#define FAULT_LIST(X)                                  \
	X(DESTROY, "destroy", destroy)                 \
	X(CRASH, "crash", crash)                       \
	X(PANIC, "panic", panic)                       \
	X(FREEZE, "freeze", freeze)                    \
	X(BLOCK_LOOPBACK, "block-loopback", block_loopback) \
	X(FAILBACK, "failback", failback)                 \
	X(DISK_STALL, "disk-stall", disk_stall)       \
	X(PARTITION, "partition", partition)          \
	X(NFSD_KILL, "nfsd-kill", nfsd_kill)

#define FAULT_X_ENUM(e, n, s) FAULT_##e,
enum fault_kind { FAULT_LIST(FAULT_X_ENUM) FAULT_N };
#undef FAULT_X_ENUM

#endif
