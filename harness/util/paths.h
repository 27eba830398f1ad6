/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef TAKEOVER_PATHS_H
#define TAKEOVER_PATHS_H
/*
 * Where takeover finds its own files. The source tree is the data directory
 * (scenarios/, images/, cluster-config/) unless TAKEOVER_DATADIR says
 * otherwise; guest programs come from the build tree (TAKEOVER_BUILDDIR).
 */
const char *takeover_datadir(void);
const char *takeover_builddir(void);
#endif
