// SPDX-License-Identifier: GPL-2.0-only
#include "util/paths.h"

#include <stdlib.h>

#ifndef TAKEOVER_SOURCE_DIR
#error "TAKEOVER_SOURCE_DIR must be defined by the build"
#endif
#ifndef TAKEOVER_BINARY_DIR
#error "TAKEOVER_BINARY_DIR must be defined by the build"
#endif

static const char *env_or(const char *name, const char *fallback)
{
	const char *v = getenv(name);

	return v && *v ? v : fallback;
}

const char *takeover_datadir(void)
{
	return env_or("TAKEOVER_DATADIR", TAKEOVER_SOURCE_DIR);
}

const char *takeover_builddir(void)
{
	return env_or("TAKEOVER_BUILDDIR", TAKEOVER_BINARY_DIR);
}
