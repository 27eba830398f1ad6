#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Benchmark (prints figures, asserts nothing): line coverage of the harness
# by the unit tests alone and by unit + integration tests (real clusters,
# ~20 min under TCG), per stage folder and for the run path.
# Usage: bench/coverage.sh [BUILD_DIR]   (root; one cluster at a time)
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
b=${1:-$src/build-coverage}
cmake -S "$src" -B "$b" -DCMAKE_BUILD_TYPE=Debug -DCMAKE_C_FLAGS="--coverage -O0" \
	-DCMAKE_EXE_LINKER_FLAGS=--coverage >/dev/null
cmake --build "$b" -j"$(nproc)" >/dev/null

# gcov over every harness object: "file lines-executed lines" per source file.
measure() {
	local tmp
	tmp=$(mktemp -d)
	(cd "$tmp" && find "$b/CMakeFiles" -name '*.gcno' -path '*harness*' -print0 |
		xargs -0 gcov -n 2>/dev/null) |
		awk -v src="$src/" '/^File / { f = $2; gsub(/\x27/, "", f); sub(src, "", f) }
			/^Lines executed:/ { x = $2; sub(/.*:/, "", x); split(x, a, "%"); split($0, b, " of "); n = b[2] + 0;
				if (f ~ /^harness\/.*\.c$/) print f, int(a[1] * n / 100 + 0.5), n; f = "" }' |
		sort -k1,1 -k2,2nr | awk '$1 != last { print; last = $1 }' # a file in two libraries: its best
	rm -rf "$tmp"
}
report() { # report LABEL < "file hit lines"
	awk -v label="$1" '{ split($1, p, "/"); d = p[2]; if (d == "run" || d == "cluster" || $1 == "harness/forensics/evidence.c") { rh += $2; rn += $3 }
		if (!(d in n)) order[++k] = d; h[d] += $2; n[d] += $3; th += $2; tn += $3 }
		END { printf "%s\n", label
			for (i = 1; i <= k; i++) { d = order[i]; printf "  %-10s %5.1f%% of %5d lines\n", d, 100 * h[d] / n[d], n[d] }
			printf "  %-10s %5.1f%% of %5d lines (run/, cluster/, forensics/evidence.c)\n", "run path", 100 * rh / rn, rn
			printf "  %-10s %5.1f%% of %5d lines\n", "all", 100 * th / tn, tn }'
}
find "$b" -name '*.gcda' -delete
# Each suite's own summary ("N% tests passed, ...") is printed: a figure from failing tests means less.
ctest --test-dir "$b" -L unit --output-on-failure >"$b/coverage-unit.log" 2>&1 || true
grep -E 'tests passed|\(Failed\)|\(Timeout\)' "$b/coverage-unit.log" || true
measure | report "unit tests"
ctest --test-dir "$b" -L integration --output-on-failure >"$b/coverage-integration.log" 2>&1 || true
grep -E 'tests passed|\(Failed\)|\(Timeout\)|Test +#' "$b/coverage-integration.log" || true
measure | report "unit + integration tests"
