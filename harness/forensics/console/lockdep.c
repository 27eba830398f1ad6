// SPDX-License-Identifier: GPL-2.0-only
/* lockdep's reports: "WARNING: possible circular locking dependency detected" and kin. */
#include <string.h>

#include "forensics/console/families.h"

static const char *const heads[] = {
	"WARNING: possible circular locking dependency detected",
	"WARNING: possible recursive locking detected",
	"WARNING: inconsistent lock state",
	"WARNING: possible irq lock inversion dependency detected",
	"WARNING: HARDIRQ-safe -> HARDIRQ-unsafe lock order detected",
	"WARNING: SOFTIRQ-safe -> SOFTIRQ-unsafe lock order detected",
	"WARNING: bad unlock balance detected!",
	"WARNING: held lock freed!",
	"WARNING: lock held when returning to user space!",
	"INFO: possible circular locking dependency detected",
	"INFO: possible recursive locking detected",
	NULL,
};

static bool match(const char *l)
{
	for (int i = 0; heads[i]; i++)
		if (strstr(l, heads[i]))
			return true;
	return false;
}

/*
 * Where the task tries to take the lock, as syzkaller titles these reports:
 * "nfsd/1218 is trying to acquire lock:\n... (&ctx->flc_lock){+.+.}-{2:2}, at:
 * check_for_locks+0xf6/0x1d0 [nfsd]". The first frame of the dependency chain
 * below it is where the other order was recorded, often a generic helper
 * (__might_fault for mmap_lock).
 */
static bool acquire_site(const char *text, char *fn, size_t len)
{
	const char *p = strstr(text, " is trying to acquire");
	const char *at, *eol;
	char site[256];

	if (!p || !(p = strchr(p, '\n')))
		return false;
	p++;
	eol = p + strcspn(p, "\n");
	at = strstr(p, ", at: ");
	if (!at || at > eol)
		return false;
	at += 6;
	snprintf(site, sizeof(site), "%.*s", (int)(eol - at), at);
	/* a scheduler, locking or workqueue helper there: the stack says more */
	return console_first_meaningful_frame(site, fn, len);
}

static void title(const char *first, const char *text, char *buf, size_t len)
{
	const char *prefix = strstr(first, "circular") || strstr(first, "recursive") ||
				     strstr(first, "inversion")
			     ? "possible deadlock in"
			     : "inconsistent lock state in";
	char fn[128];

	if (acquire_site(text, fn, sizeof(fn)))
		snprintf(buf, len, "%s %s", prefix, fn);
	else
		title_in_frame(prefix, text, first, buf, len);
}

/*
 * A report's sections are separated by empty lines ("\nbut task is already
 * holding lock:"); it ends with the stack backtrace's "</TASK>".
 */
const struct classifier classifier_lockdep = { "lockdep", SEV_FATAL, match, title, 160, true, true };
