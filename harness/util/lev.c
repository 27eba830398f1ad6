// SPDX-License-Identifier: GPL-2.0-only
#include "lev.h"

#include <ctype.h>
#include <string.h>

/* Words longer than this are not typos of our short keys; bail out early. */
#define LEV_MAX 64

static int same(char a, char b)
{
	return tolower((unsigned char)a) == tolower((unsigned char)b);
}

/*
 * Optimal string alignment distance: Levenshtein plus the swap of two
 * neighbours as one edit, the most common typo ("nodse", "chekc").
 */
size_t edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	size_t rows[3][LEV_MAX + 1];
	size_t *prev2 = rows[0], *prev = rows[1], *cur = rows[2], *tmp;

	if (la > LEV_MAX || lb > LEV_MAX)
		return (size_t)-1;
	for (size_t j = 0; j <= lb; j++)
		prev[j] = j;
	for (size_t i = 1; i <= la; i++) {
		cur[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t best = prev[j - 1] + !same(a[i - 1], b[j - 1]);
			if (prev[j] + 1 < best)
				best = prev[j] + 1;
			if (cur[j - 1] + 1 < best)
				best = cur[j - 1] + 1;
			if (i > 1 && j > 1 && same(a[i - 1], b[j - 2]) && same(a[i - 2], b[j - 1]) &&
			    prev2[j - 2] + 1 < best)
				best = prev2[j - 2] + 1;
			cur[j] = best;
		}
		tmp = prev2;
		prev2 = prev;
		prev = cur;
		cur = tmp;
	}
	return prev[lb];
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
		size_t clen = strlen(*candidates);
		/* Rewriting every character is another word, not a typo: "4" is not "3". */
		if (d >= (len > clen ? len : clen))
			continue;
		if (d < best_d) {
			best_d = d;
			best = *candidates;
		}
	}
	return best_d <= limit ? best : NULL;
}
