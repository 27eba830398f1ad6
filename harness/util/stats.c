// SPDX-License-Identifier: GPL-2.0-only
#include "util/stats.h"

#include <math.h>
#include <stdlib.h>

#define Z95 1.959963984540054

void wilson95(unsigned k, unsigned n, double *lo, double *hi)
{
	if (!n || k > n) {
		*lo = 0;
		*hi = 1;
		return;
	}
	double p = (double)k / n, z2 = Z95 * Z95, d = 1 + z2 / n;
	double c = (p + z2 / (2.0 * n)) / d;
	double h = Z95 * sqrt(p * (1 - p) / n + z2 / (4.0 * n * n)) / d;

	/* Exact at the ends: 0 of n has lower bound 0, n of n upper bound 1. */
	*lo = k == 0 ? 0 : fmax(0, c - h);
	*hi = k == n ? 1 : fmin(1, c + h);
}

/* log of C(n, k) */
static double lchoose(unsigned n, unsigned k)
{
	return lgamma(n + 1.0) - lgamma(k + 1.0) - lgamma(n - k + 1.0);
}

double fisher_exact_2x2(unsigned a, unsigned b, unsigned c, unsigned d)
{
	unsigned n = a + b + c + d, r1 = a + b, c1 = a + c;

	if (!n)
		return 1.0;
	/* P(X = x): x failures in row A, hypergeometric with the margins fixed. */
	unsigned lo = c1 > n - r1 ? c1 - (n - r1) : 0, hi = r1 < c1 ? r1 : c1;
	double lden = lchoose(n, c1);
	double pobs = exp(lchoose(r1, a) + lchoose(n - r1, c1 - a) - lden), p = 0;

	for (unsigned x = lo; x <= hi; x++) {
		double px = exp(lchoose(r1, x) + lchoose(n - r1, c1 - x) - lden);
		if (px <= pobs * (1 + 1e-7))
			p += px;
	}
	return p > 1 ? 1 : p;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

size_t stats_med_min_max(double *v, size_t n, double *med, double *min, double *max)
{
	size_t m = 0;

	for (size_t i = 0; i < n; i++)
		if (isfinite(v[i]))
			v[m++] = v[i];
	if (!m)
		return 0;
	qsort(v, m, sizeof(v[0]), cmp_double);
	*med = m % 2 ? v[m / 2] : (v[m / 2 - 1] + v[m / 2]) / 2;
	*min = v[0];
	*max = v[m - 1];
	return m;
}
