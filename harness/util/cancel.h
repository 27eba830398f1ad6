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
bool cancel_requested(void);
int cancel_signal(void);

#endif
