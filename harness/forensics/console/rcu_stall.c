// SPDX-License-Identifier: GPL-2.0-only
/* "rcu: INFO: rcu_sched self-detected stall on CPU" and "detected stalls on CPUs/tasks". */
#include <string.h>

#include "forensics/console/families.h"

static bool match(const char *l)
{
	return strstr(l, "rcu: INFO: rcu_") && (strstr(l, "detected stall") || strstr(l, "detected stalls"));
}

static void title(const char *first, const char *text, char *buf, size_t len)
{
	title_in_frame("INFO: rcu detected stall in", text, first, buf, len);
}

/* Informational for the same reason as soft lockups: TCG vCPUs get descheduled. */
const struct classifier classifier_rcu_stall = { "rcu-stall", SEV_INFO, match, title, 60 };
