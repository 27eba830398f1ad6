// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer target for the sysrq-w/-t parser: its input is whatever a guest
 * printed on its console. Besides "no crash, no leak, no undefined
 * behaviour", it checks what the report writers rely on: every task has a
 * stack string, names and states are terminated within their arrays, groups
 * account for each selected task once and are sorted largest first.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "forensics/sysrq.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_groups(const struct sysrq_dump *d)
{
	size_t total = 0;

	for (size_t i = 0; i < d->ngroups; i++) {
		const struct sysrq_group *g = &d->groups[i];
		if (!g->stack || g->count < 1 || memchr(g->tasks, '\0', sizeof(g->tasks)) == NULL ||
		    memchr(g->state, '\0', sizeof(g->state)) == NULL)
			abort();
		if (i && g->count > d->groups[i - 1].count)
			abort();
		total += (size_t)g->count;
	}
	if (total > d->ntasks)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1);
	struct sysrq_dump d;

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	if (sysrq_parse(text, &d) == 0) {
		for (size_t i = 0; i < d.ntasks; i++)
			if (!d.tasks[i].stack || !memchr(d.tasks[i].comm, '\0', sizeof(d.tasks[i].comm)) ||
			    !memchr(d.tasks[i].state, '\0', sizeof(d.tasks[i].state)) || !d.tasks[i].state[0])
				abort();
		sysrq_group(&d, false);
		check_groups(&d);
		sysrq_group(&d, true);
		check_groups(&d);
		sysrq_release(&d);
	}
	free(text);
	return 0;
}
