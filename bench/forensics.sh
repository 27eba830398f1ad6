#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Benchmark (prints figures, asserts nothing): on the negative control, the
# time from the takeover node's last acknowledged write to the evidence
# capture (the stall detection; target <= max_stall + 5 s) and how long the
# capture took (target <= 30 s).
# Usage: bench/forensics.sh [TAKEOVER_BINARY] [RESULTS_DIR_OF_A_NEGATIVE_RUN]
#   Without a results directory it runs scenarios/negative-control.ini (~10 min).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
tk=${1:-$here/../build/takeover}
dir=${2:-}
if [ -z "$dir" ]; then
	results=$(mktemp -d /var/tmp/takeover-bench-fx.XXXXXX)
	"$tk" --quiet run --results "$results" "$here/../scenarios/negative-control.ini" >/dev/null 2>&1 || true
	dir=$(ls -d "$results"/*/ | head -n 1)
fi
tl=$dir/timeline.jsonl
node=$(jq -r 'select(.ev == "forensics") | .node' "$tl" | head -n 1)
if [ -z "$node" ]; then
	echo "no evidence was captured in $dir"
	exit 0
fi
t_fx=$(jq -r 'select(.ev == "forensics") | .t' "$tl" | head -n 1)
cap=$(jq -r 'select(.ev == "forensics") | .capture_s' "$tl" | head -n 1)
# The capture event is written when the capture ends; it started capture_s earlier.
t_start=$(echo "$t_fx $cap" | awk '{ printf "%d", $1 - $2 * 1000 }')
# Last increase of the takeover node's acknowledged bytes before the capture started.
t_last=$(jq -r --arg n "$node" --argjson t "$t_start" \
	'select(.ev == "progress" and .node == $n and .kind == "writer" and .t <= $t) | "\(.t) \(.acked_bytes)"' "$tl" |
	awk 'prev != $2 { last = $1 } { prev = $2 } END { print last }')
max_stall=$(sed -n 's/^max_stall = //p' "$dir/scenario.ini")
printf 'node:                                 %s\n' "$node"
printf 'last progress -> stall detected:      %.1f s (max_stall %s)\n' "$(echo "$t_last $t_start" | awk '{ print ($2 - $1) / 1000 }')" "$max_stall"
printf 'evidence capture (sysrq w, m, t):     %.1f s\n' "$cap"
printf 'classification:                       %s\n' "$(jq -r .why.hang_class "$dir/report.json")"
printf 'blocked stack groups:                 %s\n' "$(jq -r '.why.blocked | length' "$dir/report.json")"
echo "results: $dir"
