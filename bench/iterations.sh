#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Benchmark (prints figures, asserts nothing): what one judged failover costs.
# Runs `takeover run --iterations N` (or reads a directory of iterations it
# made) and prints per iteration: cluster up, roles, the scenario's own time
# (writers started to the end of the observe window: the steady-state and
# fault steps), verification and wall time; then the medians, the ratio of
# wall time to the scenario's own time, judged failovers an hour, and the
# failure rate with its 95 % interval (takeover's own summary).
# Usage: bench/iterations.sh [-n N] [-d ITERATIONS_DIR] [TAKEOVER_BINARY] [SCENARIO]
#   N    iterations (default 3; ~7 min each on 2 cores under TCG)
#   -d   only read ITERATIONS_DIR (results/<stamp>-iterations), run nothing
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
n=3
dir=
while getopts n:d: opt; do
	case $opt in
	n) n=$OPTARG ;;
	d) dir=$OPTARG ;;
	*) exit 2 ;;
	esac
done
shift $((OPTIND - 1))
tk=${1:-$here/../build/takeover}
scenario=${2:-}

if [ -z "$dir" ]; then
	out=$(mktemp -d /var/tmp/takeover-bench-iterations.XXXXXX)
	"$tk" --quiet run --iterations "$n" --results "$out" $scenario >"$out/stdout" 2>&1 || true
	dir=$(ls -d "$out"/*-iterations | head -n 1)
fi

printf '%-5s %-22s %8s %7s %9s %8s %8s\n' iter verdict up_s roles_s scenario_s verify_s wall_s
rows=$(for r in $(ls -d "$dir"/iter-* | sort -t- -k2 -n); do
	j=$r/report.json
	[ -f "$j" ] || { printf '%-5s %-22s (no report)\n' "${r##*/}" ERROR; continue; }
	jq -r --arg it "${r##*/}" '
		def step($n): ([.steps[] | select(.name == $n) | .seconds] | first) // 0;
		[$it, .verdict.class, step("cluster-up"), step("roles"),
		 (step("steady-state") + step("fault")), step("data-integrity"), .duration_s]
		| "\(.[0]) \(.[1]) \(.[2]) \(.[3]) \(.[4]) \(.[5]) \(.[6])"' "$j" |
		awk '{ printf "%-5s %-22s %8.1f %7.1f %9.1f %8.1f %8.1f\n", $1, $2, $3, $4, $5, $6, $7 }'
done)
echo "$rows"
echo "$rows" | grep -v '(no report)' | awk '
	{ up[NR] = $3; sc[NR] = $5; ver[NR] = $6; wall[NR] = $7; ratio[NR] = $7 / ($5 > 0 ? $5 : 1) }
	function med(a, n,   i, j, t, b) {
		for (i = 1; i <= n; i++) b[i] = a[i]
		for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (b[j] < b[i]) { t = b[i]; b[i] = b[j]; b[j] = t }
		return n % 2 ? b[(n + 1) / 2] : (b[n / 2] + b[n / 2 + 1]) / 2
	}
	END {
		if (!NR) { print "no iteration with a report"; exit }
		printf "\nmedian of %d iterations: cluster up %.1f s, scenario %.1f s, verify %.1f s, wall %.1f s\n",
			NR, med(up, NR), med(sc, NR), med(ver, NR), med(wall, NR)
		printf "wall / scenario time: median %.2f x\n", med(ratio, NR)
		printf "judged failovers an hour (3600 / median wall): %.1f\n", 3600 / med(wall, NR)
	}'
echo
"$tk" report "$dir" | sed -n '1,4p' || true
