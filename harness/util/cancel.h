/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef TAKEOVER_CANCEL_H
#define TAKEOVER_CANCEL_H
/*
 * Ctrl-C and SIGTERM: the handler only records the request; every waiting
 * loop (spawn supervision, the monitor) sees poll() return EINTR, checks
 * cancel_requested() and unwinds through its normal clean-up path. Nothing
 * is torn down from signal context.
 */
#include <stdbool.h>

void cancel_install(void);
/* True once SIGINT/SIGTERM/SIGHUP arrived, unless clean-up holds it off. */
bool cancel_requested(void);
/*
 * Clean-up must run to the end even after (or during) Ctrl-C: while held,
 * cancel_requested() answers false. Holds nest.
 */
void cancel_hold(void);
void cancel_release(void);
int cancel_signal(void);

#endif
