// SPDX-License-Identifier: GPL-2.0-only
/*
 * Soft and hard lockups. Informational, not fatal: under TCG a guest vCPU can
 * be descheduled on the host for longer than the watchdog threshold.
 */
#include <string.h>

#include "console/families.h"

static bool match_soft(const char *l)
{
	return strstr(l, "BUG: soft lockup - CPU#") != NULL;
}

static void title_soft(const char *first, const char *text, char *buf, size_t len)
{
	title_in_frame("BUG: soft lockup in", text, first, buf, len);
}

static bool match_hard(const char *l)
{
	return strstr(l, "Watchdog detected hard LOCKUP on cpu") != NULL ||
	       strstr(l, "NMI watchdog: Watchdog detected hard LOCKUP") != NULL;
}

static void title_hard(const char *first, const char *text, char *buf, size_t len)
{
	title_in_frame("BUG: hard lockup in", text, first, buf, len);
}

const struct classifier classifier_soft_lockup = { "soft-lockup", SEV_INFO, match_soft, title_soft, 60 };
const struct classifier classifier_hard_lockup = { "hard-lockup", SEV_INFO, match_hard, title_hard, 60 };
