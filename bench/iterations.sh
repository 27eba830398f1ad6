#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Benchmark (prints figures, asserts nothing): what one judged failover costs.
# Runs `takeover run --iterations N` (or reads a directory of iterations it
# made) and prints per iteration: how the cluster came up (cold, cold+saved
# then restored, or warm from the snapshot) and how long that took, roles, the scenario's own time
# (writers started to the end of the observe window, from the timeline: the
# steady-state step, the wait of [fault] after, and the fault step, which
# ends with the observe window), verification and wall time; then the medians, the ratio of
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

printf '%-5s %-22s %-10s %8s %7s %9s %8s %8s\n' iter verdict up up_s roles_s scenario_s verify_s wall_s
rows=$(for r in $(ls -d "$dir"/iter-* | sort -t- -k2 -n); do
	j=$r/report.json
	[ -f "$j" ] || { printf '%-5s %-22s (no report)\n' "${r##*/}" ERROR; continue; }
	# ms from the first writer's start to the fault, from the timeline (0 when either is missing)
	lead=$(jq -rs '([.[] | select(.ev == "writer-start") | .t] | min) as $w
		| ([.[] | select(.ev == "fault") | .t] | first) as $f
		| if $w != null and $f != null then $f - $w else 0 end' "$r/timeline.jsonl" 2>/dev/null || echo 0)
	jq -r --arg it "${r##*/}" --argjson lead "$lead" '
		def step($n): ([.steps[] | select(.name == $n) | .seconds] | first) // 0;
		def mode: if .cluster_up == null then "cold"
			elif .cluster_up.saved then "cold+saved"
			else .cluster_up.mode end;
		[$it, .verdict.class, step("roles"),
		 (if $lead > 0 then $lead / 1000 + step("fault") else step("steady-state") + step("fault") end),
		 step("data-integrity"), .duration_s, mode, step("cluster-up")]
		| "\(.[0]) \(.[1]) \(.[2]) \(.[3]) \(.[4]) \(.[5]) \(.[6]) \(.[7])"' "$j" |
		awk '{ printf "%-5s %-22s %-10s %8.1f %7.1f %9.1f %8.1f %8.1f\n", $1, $2, $7, $8, $3, $4, $5, $6 }'
done)
echo "$rows"
echo "$rows" | grep -v '(no report)' | awk '
	{ up[NR] = $4; sc[NR] = $6; ver[NR] = $7; wall[NR] = $8; ratio[NR] = $8 / ($6 > 0 ? $6 : 1) }
	$3 == "warm" { nw++; wup[nw] = $4; wwall[nw] = $8; wratio[nw] = $8 / ($6 > 0 ? $6 : 1) }
	$3 != "warm" { nc++; cup[nc] = $4 }
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
		if (nc) printf "cold up (incl. save+restore when saved): median %.1f s of %d\n", med(cup, nc), nc
		if (nw) {
			printf "warm restore to ready: median %.1f s of %d\n", med(wup, nw), nw
			printf "warm iterations: wall median %.1f s, wall / scenario %.2f x, %.1f judged failovers an hour\n",
				med(wwall, nw), med(wratio, nw), 3600 / med(wwall, nw)
		}
	}'
echo
"$tk" report "$dir" | sed -n '1,4p' || true
