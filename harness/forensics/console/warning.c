// SPDX-License-Identifier: GPL-2.0-only
/* "WARNING: CPU: 0 PID: 1 at fs/nfs/write.c:123 func+0x.." (not lockdep's "WARNING: possible ...") */
#include <string.h>

#include "forensics/console/families.h"

static bool match(const char *l)
{
	return !strncmp(l, "WARNING: CPU: ", 14);
}

static void title(const char *first, const char *text, char *buf, size_t len)
{
	title_in_frame("WARNING in", text, first, buf, len);
}

/* A WARN() is a kernel developer's assertion; reported, but not a verdict by itself. */
const struct classifier classifier_warning = { "warning", SEV_INFO, match, title, 60 };
