// SPDX-License-Identifier: GPL-2.0-only
/*
 * The NFS daemons' own words for why a start failed. A resource agent says
 * only "ERROR: Failed to start NFS server"; the journal beside it says why
 * ("rpc.nfsd[833]: error starting threads: errno 12 (Cannot allocate
 * memory)"). journal_daemon_errors() picks those lines out of a journal as
 * `journalctl -o short-precise` prints it (the run's nfs-<node>.log): lines
 * of the NFS daemons (rpc.nfsd, rpc.mountd, nfsdcld, exportfs) with "error"
 * or "fail" in them, and resource agents' "ERROR:" lines; systemd's own are
 * left out (they repeat the daemon's exit). Each is stamped with the
 * journal's wall-clock time, made epoch ms with the year of the run (the
 * guests' clocks are stepped to the host's when a cluster is restored).
 */
#include <ctype.h>
#include <string.h>
#include <time.h>

#include "run/run.h"
#include "util/units.h"

/* n decimal digits at s, or -1. */
static int digits(const char *s, int n)
{
	int v = 0;

	for (int i = 0; i < n; i++) {
		if (!isdigit((unsigned char)s[i]))
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	return v;
}

/* "Dec 07 12:58:40.856297 " -> epoch ms, the year taken from near_ms (a date months ahead is last year's). */
static int parse_stamp(const char *l, uint64_t near_ms, uint64_t *ms)
{
	int mon = parse_month_abbrev(l), day, hh, mm, ss, us;
	time_t near = (time_t)(near_ms / 1000);
	struct tm tm, ref;

	if (mon < 0 || l[3] != ' ' || l[6] != ' ' || l[9] != ':' || l[12] != ':' || l[15] != '.' || l[22] != ' ')
		return -1;
	day = digits(l + 4, 2);
	hh = digits(l + 7, 2);
	mm = digits(l + 10, 2);
	ss = digits(l + 13, 2);
	us = digits(l + 16, 6);
	if (day < 1 || hh < 0 || mm < 0 || ss < 0 || us < 0 || !gmtime_r(&near, &ref))
		return -1;
	memset(&tm, 0, sizeof(tm));
	tm.tm_year = ref.tm_year - (mon > ref.tm_mon + 6);
	tm.tm_mon = mon;
	tm.tm_mday = day;
	tm.tm_hour = hh;
	tm.tm_min = mm;
	tm.tm_sec = ss;
	time_t t = timegm(&tm);
	if (t == (time_t)-1)
		return -1;
	*ms = (uint64_t)t * 1000 + (uint64_t)us / 1000;
	return 0;
}

static bool has_word(const char *s, size_t n, const char *w)
{
	size_t wl = strlen(w);

	for (size_t i = 0; i + wl <= n; i++)
		if (!strncasecmp(s + i, w, wl))
			return true;
	return false;
}

static const char *const daemons[] = { "rpc.nfsd", "rpc.mountd", "nfsdcld", "exportfs", NULL };

int journal_daemon_errors(const char *journal, uint64_t near_ms, journal_error_fn fn, void *ctx)
{
	int n = 0;

	for (const char *l = journal; l && *l;) {
		const char *nl = strchr(l, '\n');
		size_t len = nl ? (size_t)(nl - l) : strlen(l);
		uint64_t ms;
		/* "STAMP host ident[pid]: message" */
		const char *host = l + 23, *ident = len > 23 ? memchr(host, ' ', len - 23) : NULL;
		const char *colon = ident ? strstr(ident, ": ") : NULL;
		if (ident && colon && colon < l + len && parse_stamp(l, near_ms, &ms) == 0) {
			ident++;
			size_t il = strcspn(ident, "[:");
			const char *msg = colon + 2;
			size_t ml = (size_t)(l + len - msg);
			bool daemon = false;
			for (const char *const *d = daemons; *d; d++)
				daemon |= il == strlen(*d) && !strncmp(ident, *d, il);
			bool agent_error = strncmp(ident, "systemd", 7) && ml > 7 && !strncmp(msg, "ERROR: ", 7);
			if (agent_error || (daemon && (has_word(msg, ml, "error") || has_word(msg, ml, "fail")))) {
				char source[48], text[200];
				snprintf(source, sizeof(source), "%.*s", (int)(il < 47 ? il : 47), ident);
				snprintf(text, sizeof(text), "%.*s", (int)(ml < 199 ? ml : 199), msg);
				fn(ctx, ms, source, text);
				n++;
			}
		}
		l = nl ? nl + 1 : NULL;
	}
	return n;
}
