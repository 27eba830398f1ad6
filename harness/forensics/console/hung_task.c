// SPDX-License-Identifier: GPL-2.0-only
/* "INFO: task writer:123 blocked for more than 30 seconds." and the stack after it. */
#include <string.h>

#include "forensics/console/families.h"

static bool match(const char *l)
{
	return !strncmp(l, "INFO: task ", 11) && strstr(l, " blocked for more than ");
}

static void title(const char *first, const char *text, char *buf, size_t len)
{
	title_in_frame("INFO: task hung in", text, first, buf, len);
}

/* Not fatal: a writer waits this long during every takeover (platform notes). */
const struct classifier classifier_hung_task = { "hung-task", SEV_INFO, match, title, 60, false, true };
