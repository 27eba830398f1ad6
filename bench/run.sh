#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Benchmark (prints figures, asserts nothing): one whole scenario's wall time,
# each takeover phase, the verdict's figures and the harness's own CPU time.
# Usage: bench/run.sh [TAKEOVER_BINARY] [SCENARIO]   (root; ~10 min under TCG)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
tk=${1:-$here/../build/takeover}
scenario=${2:-}
results=$(mktemp -d /var/tmp/takeover-bench-run.XXXXXX)

t0=$(date +%s%N)
rc=0
"$tk" --quiet run --results "$results" $scenario >/dev/null 2>&1 || rc=$?
t1=$(date +%s%N)
r=$(ls -d "$results"/*/ | head -n 1)report.json
printf 'exit status:           %d (%s)\n' "$rc" "$(jq -r .verdict.class "$r")"
printf 'wall time, whole run:  %6.1f s\n' "$(echo "$t0 $t1" | awk '{ print ($2 - $1) / 1e9 }')"
jq -r '.takeover.phases_s | to_entries[] | "phase \(.key): \(if .value == null then "-" else "+\(.value) s" end)"' "$r"
jq -r '"resume after fault: \(.takeover.resume_s // "-") s; longest gap: \(.takeover.max_gap_s // "-") s; rate: \(.takeover.window_rate_Bps // "-") B/s"' "$r"
cpu=$(jq -r .harness_cpu_s "$r")
dur=$(jq -r .duration_s "$r")
printf 'harness CPU:           %.1f s over %.0f s = %.2f %% of one core\n' "$cpu" "$dur" "$(echo "$cpu $dur" | awk '{ print 100 * $1 / $2 }')"
echo "results: $results"
