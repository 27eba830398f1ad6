// SPDX-License-Identifier: GPL-2.0-only
/*
 * Soft and hard lockups. Informational, not fatal: under TCG a guest vCPU can
 * be descheduled on the host for longer than the watchdog threshold.
 */
#include <string.h>

#include "forensics/console/families.h"

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

/*
 * The report is the interrupted task's stack, up to its "</TASK>": with the
 * user-space registers after it, 70 lines and more (a 6.12 soft lockup in
 * nfs_folio_find_head_request, a 6.13 hard lockup under nfsd, both REAL
 * fixtures). The line limit only bounds a report whose "</TASK>" never comes.
 */
const struct classifier classifier_soft_lockup = { "soft-lockup", SEV_INFO, match_soft, title_soft,
						   160, false, true };
const struct classifier classifier_hard_lockup = { "hard-lockup", SEV_INFO, match_hard, title_hard,
						   160, false, true };
