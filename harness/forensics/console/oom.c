// SPDX-License-Identifier: GPL-2.0-only
/* "Out of memory: Killed process 1234 (takeover-hog) total-vm:..." */
#include <stdio.h>
#include <string.h>

#include "forensics/console/families.h"

static bool match(const char *l)
{
	return !strncmp(l, "Out of memory: Killed process", 29) ||
	       !strncmp(l, "Memory cgroup out of memory: Killed process", 43);
}

static void title(const char *first, const char *text, char *buf, size_t len)
{
	const char *open = strchr(first, '('), *close = NULL;

	(void)text;
	/*
	 * "Killed process %d (%s) total-vm:...": the name may hold parentheses of
	 * its own ("Killed process 4503 ((sd-pam)) total-vm:173972kB", REAL fixture).
	 */
	if (open) {
		close = strstr(open, ") total-vm:");
		if (!close)
			close = strrchr(open, ')');
	}
	if (open && close)
		snprintf(buf, len, "OOM kill: %.*s", (int)(close - open - 1), open + 1);
	else
		snprintf(buf, len, "OOM kill");
}

/* The OOM killer doing its job is not a kernel bug; the verdict judges progress. */
const struct classifier classifier_oom = { "oom-kill", SEV_INFO, match, title, 0 };
