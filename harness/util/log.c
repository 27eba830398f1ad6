// SPDX-License-Identifier: GPL-2.0-only
#include "log.h"

#include <stdarg.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

static enum log_level cur_level = LOG_INFO;
static const char *cur_prefix = "takeover";
static bool quiet;
static bool progress_active;

void log_set_level(enum log_level lvl) { cur_level = lvl; }
enum log_level log_get_level(void) { return cur_level; }
void log_set_prefix(const char *prefix) { cur_prefix = prefix; }
void progress_set_quiet(bool q) { quiet = q; }
bool progress_is_quiet(void) { return quiet; }

static const char *const level_names[] = {
	[LOG_ERR] = "error: ", [LOG_WARN] = "warning: ", [LOG_INFO] = "", [LOG_DEBUG] = "debug: ",
};

void log_msg(enum log_level lvl, const char *fmt, ...)
{
	va_list ap;

	if (lvl > cur_level || (quiet && lvl == LOG_INFO))
		return;
	progress_done();
	fprintf(stderr, "%s: %s", cur_prefix, level_names[lvl]);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* Not a terminal (CI logs): a plain line, at most every PLAIN_EVERY_S seconds. */
#define PLAIN_EVERY_S 15

static bool plain_due(void)
{
	static time_t last;
	time_t now = time(NULL);

	if (now - last < PLAIN_EVERY_S)
		return false;
	last = now;
	return true;
}

void progress_update(const char *fmt, ...)
{
	va_list ap;

	if (quiet)
		return;
	if (!isatty(STDERR_FILENO)) {
		if (!plain_due())
			return;
		fprintf(stderr, "%s: ", cur_prefix);
		va_start(ap, fmt);
		vfprintf(stderr, fmt, ap);
		va_end(ap);
		fputc('\n', stderr);
		return;
	}
	fputs("\r\033[K", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fflush(stderr);
	progress_active = true;
}

void progress_done(void)
{
	if (!progress_active)
		return;
	fputs("\r\033[K", stderr);
	fflush(stderr);
	progress_active = false;
}
