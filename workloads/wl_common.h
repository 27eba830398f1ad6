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
/* Reads a /proc/meminfo field in kB; -1 when absent or not a number. */
long long wl_meminfo_kb(const char *field);
/*
 * The kernel's /proc formats, read with the checked parsers: the next word of
 * s (after blanks, up to a blank or the end of the line) as a number. Returns
 * the rest of s, or NULL when that word is not one (the caller leaves the
 * field out rather than report a 0 that was never there).
 */
const char *wl_next_uint(const char *s, uint64_t *v);
const char *wl_next_double(const char *s, double *v);

#endif
