// SPDX-License-Identifier: GPL-2.0-only
#include "forensics/forensics.h"

#include <stdlib.h>
#include <string.h>

const char *hang_class_name(enum hang_class c)
{
	switch (c) {
	case HANG_NONE:
		return "none";
	case HANG_DEADLOCK:
		return "DEADLOCK";
	case HANG_LIVELOCK:
		return "LIVELOCK";
	case HANG_REBOOTED:
		return "REBOOTED";
	case HANG_UNKNOWN:
		break;
	}
	return "unknown";
}

enum hang_class hang_class_from_name(const char *name)
{
	for (int c = HANG_NONE; c <= HANG_UNKNOWN; c++)
		if (name && !strcmp(hang_class_name(c), name))
			return c;
	return HANG_UNKNOWN;
}

void forensics_stacks(struct forensics *f, const char *w, const char *t)
{
	struct sysrq_dump later = { 0 };

	if (!w || sysrq_parse(w, &f->blocked) < 0)
		return;
	/* Tasks that blocked in the seconds between sysrq-w and sysrq-t count too. */
	if (t && sysrq_parse(t, &later) == 0)
		sysrq_merge_blocked(&f->blocked, &later);
	sysrq_release(&later);
	sysrq_group(&f->blocked, true);
}

void forensics_release(struct forensics *f)
{
	sysrq_release(&f->blocked);
	free(f->meminfo);
	f->meminfo = NULL;
}
