// SPDX-License-Identifier: GPL-2.0-only
/*
 * takeover-hog: holds MemAvailable near a target, closed loop. Every 100 ms
 * it compares MemAvailable with the target and locks or releases 4 MiB
 * chunks; it ramps up over --ramp, and backs off fast when MemAvailable
 * falls well below the target, so the node stays in reclaim without the
 * OOM killer taking things (if it does strike, this process is its first
 * choice: oom_score_adj 1000, and the harness starts a new hog, which ramps
 * up again).
 *
 *   takeover-hog --available SIZE|PCT% [--ramp DURATION_MS]
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "progress.h"
#include "util/units.h"
#include "wl_common.h"

#define CHUNK (4LL << 20)
#define MAX_CHUNKS 16384 /* 64 GiB */
#define SLACK_KB 4096
#define GRAB_PER_ROUND 8 /* up to 32 MiB per 100 ms round */

static void *chunks[MAX_CHUNKS];
static long nchunks;

static int grab(void)
{
	void *p;

	if (nchunks == MAX_CHUNKS)
		return -ENOSPC;
	p = mmap(NULL, CHUNK, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return -errno;
	/* Touch and lock: resident, unswappable, anonymous - pure pressure on the page cache. */
	memset(p, 0x5a, CHUNK);
	if (mlock(p, CHUNK) < 0) {
		munmap(p, CHUNK);
		return -errno;
	}
	chunks[nchunks++] = p;
	return 0;
}

static void give_back(long n)
{
	while (n-- > 0 && nchunks > 0)
		munmap(chunks[--nchunks], CHUNK);
}

static long long target_kb(const char *spec)
{
	uint64_t bytes;
	unsigned pct;
	bool is_pct;
	const char *why;

	if (parse_size_or_percent(spec, &bytes, &pct, &is_pct, &why) < 0) {
		fprintf(stderr, "takeover-hog: --available '%s': %s\n", spec, why);
		exit(2);
	}
	return is_pct ? wl_meminfo_kb("MemTotal") * pct / 100 : (long long)(bytes >> 10);
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "available", required_argument, NULL, 'a' },
		{ "ramp", required_argument, NULL, 'r' },
		{ NULL, 0, NULL, 0 },
	};
	const char *spec = NULL;
	uint64_t ramp_ms = 10000, start;
	long long target, initial_excess;
	struct progress_shm *p;
	int c;

	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		if (c == 'a')
			spec = optarg;
		else if (c == 'r')
			ramp_ms = wl_uint_arg("--ramp", optarg);
		else
			spec = NULL, argc = 0;
	}
	if (!spec) {
		fprintf(stderr, "usage: takeover-hog --available SIZE|PCT%% [--ramp MS]\n");
		return 2;
	}
	FILE *oom = fopen("/proc/self/oom_score_adj", "we");
	if (oom) {
		fputs("1000", oom);
		fclose(oom);
	}
	wl_install_stop();
	p = progress_attach(PROGRESS_HOG);
	target = target_kb(spec);
	initial_excess = wl_meminfo_kb("MemAvailable") - target;
	start = wl_mono_ms();
	while (!wl_stop_requested()) {
		long long avail = wl_meminfo_kb("MemAvailable");
		uint64_t el = wl_mono_ms() - start;
		/* During the ramp, lock at most the share of the initial excess due by now. */
		long long allowed = el >= ramp_ms || initial_excess <= 0 ? -1
				    : initial_excess * (long long)el / (long long)ramp_ms;
		if (avail > target + SLACK_KB && (allowed < 0 || nchunks * (CHUNK >> 10) < allowed)) {
			/*
			 * Several chunks a round, so the ramp is what paces the hog: one
			 * 4 MiB chunk per 100 ms took ~18 s to take 330 MiB under TCG,
			 * so the fault hit a node not yet at its target.
			 */
			for (int k = 0; k < GRAB_PER_ROUND; k++) {
				if (grab() < 0) {
					usleep(200 * 1000);
					break;
				}
				avail = wl_meminfo_kb("MemAvailable");
				if (avail <= target + SLACK_KB ||
				    (allowed >= 0 && nchunks * (CHUNK >> 10) >= allowed))
					break;
			}
		} else if (avail < target - SLACK_KB) {
			/* Far below: the kernel is struggling; give back faster than we took. */
			give_back(avail < target / 2 ? 4 : 1);
		}
		progress_begin(p);
		p->phase = el < ramp_ms ? PHASE_START : PHASE_WRITE;
		p->value = (int64_t)nchunks * CHUNK;
		p->records = (uint64_t)(avail > 0 ? avail : 0);
		progress_end(p);
		usleep(100 * 1000);
	}
	give_back(nchunks);
	p->phase = PHASE_DONE;
	return 0;
}
