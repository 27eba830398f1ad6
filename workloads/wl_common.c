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

/* The next word of s into buf (NUL-terminated); its end, or NULL when there is none or it does not fit. */
static const char *next_word(const char *s, char *buf, size_t size)
{
	size_t n;

	s += strspn(s, " \t");
	n = strcspn(s, " \t\r\n");
	if (!n || n >= size)
		return NULL;
	memcpy(buf, s, n);
	buf[n] = '\0';
	return s + n;
}

const char *wl_next_uint(const char *s, uint64_t *v)
{
	char word[32];
	const char *why, *end = next_word(s, word, sizeof(word));

	return end && parse_uint(word, v, &why) == 0 ? end : NULL;
}

const char *wl_next_double(const char *s, double *v)
{
	char word[32];
	const char *why, *end = next_word(s, word, sizeof(word));

	return end && parse_double(word, v, &why) == 0 ? end : NULL;
}

long long wl_meminfo_kb(const char *field)
{
	char line[256];
	size_t fl = strlen(field);
	long long v = -1;
	FILE *f = fopen("/proc/meminfo", "re");
	uint64_t kb;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, field, fl) && line[fl] == ':') {
			if (wl_next_uint(line + fl + 1, &kb) && kb <= INT64_MAX)
				v = (long long)kb;
			break;
		}
	fclose(f);
	return v;
}
