// SPDX-License-Identifier: GPL-2.0-only
/* The NFS client's "server X not responding" / "OK", and nfsd's and lockd's own messages. */
#include <stdio.h>
#include <string.h>

#include "forensics/console/families.h"

static bool match_server(const char *l)
{
	return !strncmp(l, "nfs: server ", 12) &&
	       (strstr(l, " not responding") || strstr(l, " OK"));
}

static bool match_nfsd(const char *l)
{
	/* Not "nfsd4_*": those are stack frames in sysrq and hung-task output. */
	return !strncmp(l, "nfsd: ", 6) || !strncmp(l, "NFSD: ", 6) || !strncmp(l, "lockd: ", 7);
}

const struct classifier classifier_nfs_server = { "nfs-server", SEV_INFO, match_server, NULL, 0 };
const struct classifier classifier_nfsd = { "nfsd", SEV_INFO, match_nfsd, NULL, 0 };
