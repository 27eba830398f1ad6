// SPDX-License-Identifier: GPL-2.0-only
#include "wl_common.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "util/units.h"

static volatile sig_atomic_t stop;

uint64_t wl_mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

uint64_t wl_real_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

uint64_t wl_size_arg(const char *opt, const char *v)
{
	const char *why;
	uint64_t n;

	if (parse_size(v, &n, &why) < 0) {
		fprintf(stderr, "%s '%s': %s\n", opt, v, why);
		exit(2);
	}
	return n;
}

uint64_t wl_uint_arg(const char *opt, const char *v)
{
	const char *why;
	uint64_t n;

	if (parse_uint(v, &n, &why) < 0) {
		fprintf(stderr, "%s '%s': %s\n", opt, v, why);
		exit(2);
	}
	return n;
}

static void on_stop(int sig)
{
	(void)sig;
	stop = 1;
}

void wl_install_stop(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
}

bool wl_stop_requested(void)
{
	return stop != 0;
}

long long wl_meminfo_kb(const char *field)
{
	char line[256];
	size_t fl = strlen(field);
	long long v = -1;
	FILE *f = fopen("/proc/meminfo", "re");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, field, fl) && line[fl] == ':') {
			v = strtoll(line + fl + 1, NULL, 10);
			break;
		}
	fclose(f);
	return v;
}
