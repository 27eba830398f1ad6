/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef TAKEOVER_STATS_H
#define TAKEOVER_STATS_H
/*
 * The statistics a verdict over many runs states: a failure rate's 95 %
 * interval, the test of whether two kernels fail at different rates, and
 * median/min/max of a figure. Pure functions; unit-tested against values
 * computed independently (tests/unit/test_stats.c says how).
 */
#include <stddef.h>

/*
 * Wilson score interval, 95 % (z = 1.96), of k successes in n trials: the
 * interval that stays inside [0, 1] and is not empty at k = 0 or k = n, the
 * cases a gate sees most (0 of 20 failed: 0 .. 16.1 %). n = 0: [0, 1].
 */
void wilson95(unsigned k, unsigned n, double *lo, double *hi);

/*
 * Fisher's exact test on the 2x2 table {{a, b}, {c, d}} (rows: kernel A and
 * B; columns: failed, passed), two-sided: the probability, with the margins
 * fixed, of a table at most as likely as the one seen (R's fisher.test rule,
 * with its relative tolerance of 1e-7 for ties). 1.0 for an empty table.
 */
double fisher_exact_2x2(unsigned a, unsigned b, unsigned c, unsigned d);

/* Median, min and max of the n finite values in v (sorted in place). 0 when there are none. */
size_t stats_med_min_max(double *v, size_t n, double *med, double *min, double *max);

#endif
