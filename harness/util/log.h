/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef TAKEOVER_LOG_H
#define TAKEOVER_LOG_H
/*
 * One place that talks to the user's terminal. Errors are logged once, by the
 * layer that decides what to do about them (systemd's rule); lower layers
 * return -errno and let the caller word the message.
 */
#include <stdbool.h>

enum log_level { LOG_ERR, LOG_WARN, LOG_INFO, LOG_DEBUG };

void log_set_level(enum log_level lvl);
enum log_level log_get_level(void);
void log_msg(enum log_level lvl, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#define log_error(...) log_msg(LOG_ERR, __VA_ARGS__)
#define log_warn(...)  log_msg(LOG_WARN, __VA_ARGS__)
#define log_info(...)  log_msg(LOG_INFO, __VA_ARGS__)
#define log_debug(...) log_msg(LOG_DEBUG, __VA_ARGS__)

/* "takeover: error: ..." and friends go to stderr; this prefix is the program name. */
void log_set_prefix(const char *prefix);

/* Progress lines on a terminal ("\r" rewritten in place); plain lines otherwise. */
void progress_update(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void progress_done(void);
void progress_set_quiet(bool quiet);
bool progress_is_quiet(void);

#endif
