#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Runs a libFuzzer target for a bounded time from a fresh copy of the seeds and
# fails on any finding (crash, leak, timeout, out-of-memory). Findings are kept
# in ./fuzz-findings/ (the test's working directory) for CI to upload.
#
# usage: run-fuzz.sh FUZZER SECONDS DICT SEEDDIR...
set -u

if [ $# -lt 4 ]; then
	echo "usage: $0 FUZZER SECONDS DICT SEEDDIR..." >&2
	exit 2
fi
fuzzer=$1
seconds=$2
dict=$3
shift 3

tmp=$(mktemp -d "${TMPDIR:-/tmp}/takeover-fuzz.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM
mkdir "$tmp/corpus" "$tmp/artifacts"

# The seeds are never modified: libFuzzer writes new inputs into the first corpus dir.
nseeds=0
for dir in "$@"; do
	for f in "$dir"/*; do
		[ -f "$f" ] || continue
		nseeds=$((nseeds + 1))
		cp "$f" "$tmp/corpus/seed-$nseeds"
	done
done
echo "fuzzing $(basename "$fuzzer") for ${seconds}s from $nseeds seeds"

# -max_len: past SCENARIO_MAX_LINE (4096), so over-long lines get exercised.
start=$(date +%s)
"$fuzzer" "$tmp/corpus" \
	-max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=16384 \
	-dict="$dict" -artifact_prefix="$tmp/artifacts/" -print_final_stats=1 \
	>"$tmp/log" 2>&1
status=$?

secs=$(($(date +%s) - start))
execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$tmp/log")
echo "executions: ${execs:-unknown} in ${secs}s, corpus: $(ls "$tmp/corpus" | wc -l) inputs"

findings=$(find "$tmp/artifacts" -type f \( -name 'crash-*' -o -name 'leak-*' \
	-o -name 'timeout-*' -o -name 'oom-*' -o -name 'slow-unit-*' \) | sort)
if [ "$status" -ne 0 ] || [ -n "$findings" ]; then
	echo "FAIL: fuzzer exit status $status" >&2
	tail -n 60 "$tmp/log" >&2
	if [ -n "$findings" ]; then
		mkdir -p fuzz-findings
		for f in $findings; do
			cp "$f" fuzz-findings/
			echo "finding: $PWD/fuzz-findings/$(basename "$f")" \
				"(reproduce: $fuzzer $PWD/fuzz-findings/$(basename "$f"))" >&2
		done
	fi
	exit 1
fi
echo "no findings"
