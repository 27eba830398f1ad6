// SPDX-License-Identifier: GPL-2.0-only
#include "cancel.h"

#include <signal.h>
#include <string.h>

static volatile sig_atomic_t requested;
static int held;

static void on_signal(int sig)
{
	requested = sig;
}

void cancel_install(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal; /* no SA_RESTART: blocking calls must return EINTR */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

bool cancel_requested(void)
{
	return requested != 0 && !held;
}

void cancel_hold(void)
{
	held++;
}

void cancel_release(void)
{
	if (held)
		held--;
}

int cancel_signal(void)
{
	return requested;
}
