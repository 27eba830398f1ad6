// SPDX-License-Identifier: GPL-2.0-only
#include "lev.h"

#include <ctype.h>
#include <string.h>

/* Words longer than this are not typos of our short keys; bail out early. */
#define LEV_MAX 64

size_t edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	size_t row[LEV_MAX + 1];

	if (la > LEV_MAX || lb > LEV_MAX)
		return (size_t)-1;
	for (size_t j = 0; j <= lb; j++)
		row[j] = j;
	for (size_t i = 1; i <= la; i++) {
		size_t diag = row[0];
		row[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t up = row[j];
			size_t cost = tolower((unsigned char)a[i - 1]) != tolower((unsigned char)b[j - 1]);
			size_t best = diag + cost;
			if (row[j] + 1 < best)
				best = row[j] + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			row[j] = best;
			diag = up;
		}
	}
	return row[lb];
}

const char *closest_match(const char *word, const char *const *candidates)
{
	const char *best = NULL;
	size_t best_d = (size_t)-1;
	size_t len = strlen(word);
	/* Allow one edit per three characters, at least one, at most three. */
	size_t limit = len / 3 ? (len / 3 < 3 ? len / 3 : 3) : 1;

	for (; *candidates; candidates++) {
		size_t d = edit_distance(word, *candidates);
		if (d < best_d) {
			best_d = d;
			best = *candidates;
		}
	}
	return best_d <= limit ? best : NULL;
}
