// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer target for the scenario parser. Besides "no crash, no leak, no
 * undefined behaviour", it checks two properties the rest of the harness
 * relies on: an accepted scenario writes back to text that parses to the same
 * text again, and a rejected one yields one "fuzz:LINE: ..." line per problem.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "scenario/scenario.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* "/nonexistent": relative paths in the input never reach the real file system. */
#define BASEDIR "/nonexistent"

static void check_errors(int n, const struct strbuf *errs)
{
	size_t lines = 0;

	for (const char *p = errs->buf; *p; p = strchr(p, '\n') + 1) {
		if (strncmp(p, "fuzz:", 5) || !strchr(p, '\n'))
			abort();
		lines++;
	}
	if (n <= 0 || lines != (size_t)(n > SCENARIO_MAX_ERRORS ? SCENARIO_MAX_ERRORS + 1 : n))
		abort();
}

static void check_roundtrip(const struct scenario *sc)
{
	struct strbuf text = STRBUF_INIT, again = STRBUF_INIT, errs = STRBUF_INIT;
	struct scenario back;

	scenario_write(sc, &text);
	if (scenario_parse("fuzz", text.buf, text.len, BASEDIR, &back, &errs))
		abort();
	scenario_write(&back, &again);
	if (strcmp(text.buf, again.buf))
		abort();
	scenario_release(&back);
	strbuf_release(&text);
	strbuf_release(&again);
	strbuf_release(&errs);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct strbuf errs = STRBUF_INIT;
	struct scenario sc;
	int n = scenario_parse("fuzz", (const char *)data, size, BASEDIR, &sc, &errs);

	if (n)
		check_errors(n, &errs);
	else
		check_roundtrip(&sc);
	scenario_release(&sc);
	strbuf_release(&errs);
	return 0;
}
