// SPDX-License-Identifier: GPL-2.0-only
#include "forensics/forensics.h"

#include <stdlib.h>

const char *hang_class_name(enum hang_class c)
{
	switch (c) {
	case HANG_NONE:
		return "none";
	case HANG_DEADLOCK:
		return "DEADLOCK";
	case HANG_LIVELOCK:
		return "LIVELOCK";
	case HANG_UNKNOWN:
		break;
	}
	return "unknown";
}

void forensics_release(struct forensics *f)
{
	sysrq_release(&f->blocked);
	free(f->meminfo);
	f->meminfo = NULL;
}
