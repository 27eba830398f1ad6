/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef TAKEOVER_CONSOLE_FAMILIES_H
#define TAKEOVER_CONSOLE_FAMILIES_H
/* Every classifier, one per file; listed once in console.c's registry. */
#include "forensics/console/console.h"

extern const struct classifier classifier_hung_task;    /* hung_task.c */
extern const struct classifier classifier_soft_lockup;  /* lockup.c */
extern const struct classifier classifier_hard_lockup;  /* lockup.c */
extern const struct classifier classifier_rcu_stall;    /* rcu_stall.c */
extern const struct classifier classifier_workqueue;    /* workqueue.c */
extern const struct classifier classifier_oom;          /* oom.c */
extern const struct classifier classifier_oops;         /* oops.c */
extern const struct classifier classifier_panic;        /* oops.c */
extern const struct classifier classifier_warning;      /* warning.c */
extern const struct classifier classifier_lockdep;      /* lockdep.c */
extern const struct classifier classifier_nfs_server;   /* nfs.c */
extern const struct classifier classifier_nfsd;         /* nfs.c */

/* "PREFIX in FRAME" from the report's first meaningful frame, or fallback. */
void title_in_frame(const char *prefix, const char *text, const char *fallback, char *buf,
		    size_t len);

#endif
