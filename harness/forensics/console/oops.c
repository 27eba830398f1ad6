// SPDX-License-Identifier: GPL-2.0-only
/* Oopses, BUG()s and panics: the kernel is broken, whatever else happened. */
#include <stdio.h>
#include <string.h>

#include "forensics/console/families.h"

static bool match_oops(const char *l)
{
	if (strstr(l, "BUG: soft lockup") || strstr(l, "BUG: workqueue lockup"))
		return false; /* their own families */
	return !strncmp(l, "BUG: ", 5) || strstr(l, "kernel BUG at ") ||
	       !strncmp(l, "Oops: ", 6) || !strncmp(l, "general protection fault", 24) ||
	       !strncmp(l, "Unable to handle kernel", 23);
}

static void title_oops(const char *first, const char *text, char *buf, size_t len)
{
	const char *k = strstr(first, "kernel BUG at ");
	char what[96];

	if (k) {
		snprintf(buf, len, "%s", k); /* "kernel BUG at fs/nfs/write.c:123!" names the place */
		return;
	}
	/* "BUG: unable to handle page fault for address: ..." -> "BUG: unable to handle page fault" */
	snprintf(what, sizeof(what), "%.*s", (int)strcspn(first, ":,"), first);
	if (!strncmp(first, "BUG: ", 5))
		snprintf(what, sizeof(what), "BUG: %.*s", (int)strcspn(first + 5, ":,"), first + 5);
	{
		char prefix[128];
		snprintf(prefix, sizeof(prefix), "%s in", what);
		title_in_frame(prefix, text, first, buf, len);
	}
}

static bool match_panic(const char *l)
{
	return !strncmp(l, "Kernel panic - not syncing", 26);
}

const struct classifier classifier_oops = { "oops", SEV_FATAL, match_oops, title_oops, 80 };
const struct classifier classifier_panic = { "panic", SEV_FATAL, match_panic, NULL, 20 };
