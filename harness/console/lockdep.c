// SPDX-License-Identifier: GPL-2.0-only
/* lockdep's reports: "WARNING: possible circular locking dependency detected" and kin. */
#include <string.h>

#include "console/families.h"

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

static void title(const char *first, const char *text, char *buf, size_t len)
{
	const char *prefix = strstr(first, "circular") || strstr(first, "recursive") ||
				     strstr(first, "inversion")
			     ? "possible deadlock in"
			     : "inconsistent lock state in";
	title_in_frame(prefix, text, first, buf, len);
}

/* A report's sections are separated by empty lines ("\nbut task is already holding lock:"). */
const struct classifier classifier_lockdep = { "lockdep", SEV_FATAL, match, title, 120, true };
