/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef TAKEOVER_WL_COMMON_H
#define TAKEOVER_WL_COMMON_H
/* Bits shared by the guest workloads: option values, clocks, stop requests. */
#include <stdbool.h>
#include <stdint.h>

uint64_t wl_mono_ms(void);
uint64_t wl_real_ns(void);
/* Size with K/M/G suffix; exits with a message on a bad value (these are our own programs' argv). */
uint64_t wl_size_arg(const char *opt, const char *v);
uint64_t wl_uint_arg(const char *opt, const char *v);
/* SIGTERM/SIGINT set a flag instead of killing: workloads finish their step and exit. */
void wl_install_stop(void);
bool wl_stop_requested(void);
/* Reads a /proc/meminfo field in kB; -1 when absent. */
long long wl_meminfo_kb(const char *field);

#endif
