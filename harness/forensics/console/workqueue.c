// SPDX-License-Identifier: GPL-2.0-only
/* "BUG: workqueue lockup - pool cpus=0 node=0 flags=0x0 nice=0 stuck for 31s!" */
#include <stdio.h>
#include <string.h>

#include "forensics/console/families.h"

static bool match(const char *l)
{
	return strstr(l, "BUG: workqueue lockup") != NULL;
}

static void title(const char *first, const char *text, char *buf, size_t len)
{
	(void)first;
	(void)text;
	snprintf(buf, len, "BUG: workqueue lockup");
}

const struct classifier classifier_workqueue = { "workqueue-lockup", SEV_INFO, match, title, 40 };
