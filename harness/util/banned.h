/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef TAKEOVER_BANNED_H
#define TAKEOVER_BANNED_H
/*
 * Functions that overflow buffers or hide parse errors (curl's and git's
 * banned lists). Force-included into every harness and workload translation
 * unit by CMake, so using one is a build error rather than a review comment.
 * Use strbuf, snprintf and the checked parsers of units.h instead.
 */
/* Declare the real functions first: the macros below must not rewrite libc's headers. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BANNED(func) sorry_##func##_is_a_banned_function

#undef strcpy
#define strcpy(x, y) BANNED(strcpy)
#undef strcat
#define strcat(x, y) BANNED(strcat)
#undef strncpy
#define strncpy(x, y, n) BANNED(strncpy)
#undef strncat
#define strncat(x, y, n) BANNED(strncat)
#undef sprintf
#define sprintf(...) BANNED(sprintf)
#undef vsprintf
#define vsprintf(...) BANNED(vsprintf)
#undef gets
#define gets(x) BANNED(gets)
#undef atoi
#define atoi(x) BANNED(atoi)
#undef atol
#define atol(x) BANNED(atol)
#undef atoll
#define atoll(x) BANNED(atoll)
/*
 * Number parsing without the checks: use parse_uint/int/double/size
 * (units.h); the guest programs read the kernel's /proc formats with
 * wl_next_uint/wl_next_double (workloads/wl_common.h) on top of them.
 */
#undef strtol
#define strtol(...) BANNED(strtol)
#undef strtoul
#define strtoul(...) BANNED(strtoul)
#undef strtoll
#define strtoll(...) BANNED(strtoll)
#undef strtoull
#define strtoull(...) BANNED(strtoull)
#undef strtod
#define strtod(...) BANNED(strtod)
#undef sscanf
#define sscanf(...) BANNED(sscanf)
#undef fscanf
#define fscanf(...) BANNED(fscanf)
#undef system
#define system(x) BANNED(system)
#undef popen
#define popen(x, y) BANNED(popen)

#endif
