#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Benchmark (prints figures, asserts nothing): the kernel gate.
#  - `takeover kernel build` time for the known-bad and the fixed series
#    (the first call is cold unless the kernel is already cached; the second
#    is always a cache hit);
#  - the detection rate on the known-bad kernel (K of N runs not PASS) and
#    the false alarms on stock Debian 6.1 and on the fixed kernel, all with
#    scenarios/loopback-deadlock.ini, with the share of the judged window
#    the memory pressure held and the OOM kills on the pressured node.
# Usage: bench/kernel.sh [-n RUNS] [-k KERNELS] [TAKEOVER_BINARY]
#   RUNS      runs per kernel (default 5; one run takes ~10 min under TCG)
#   KERNELS   comma list of bad,stock,fixed (default all three), run interleaved
# Per-run results stay in /var/tmp/takeover-bench-kernel.*/; a table of
# verdicts and takeover times is printed at the end.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
runs=5
kernels=bad,stock,fixed
while getopts n:k: opt; do
	case $opt in
	n) runs=$OPTARG ;;
	k) kernels=$OPTARG ;;
	*) exit 2 ;;
	esac
done
shift $((OPTIND - 1))
tk=${1:-$here/../build/takeover}
scenario=$here/../scenarios/loopback-deadlock.ini
out=$(mktemp -d /var/tmp/takeover-bench-kernel.XXXXXX)

now() { date +%s.%N; }
build() { # build NAME SERIES -> prints the bzImage path, times on stderr
	local t0 t1 t2 img
	t0=$(now)
	img=$("$tk" --quiet kernel build --patches "$here/../images/kernel/patches/$2")
	t1=$(now)
	"$tk" --quiet kernel build --patches "$here/../images/kernel/patches/$2" >/dev/null
	t2=$(now)
	awk -v n="$1" -v a="$t0" -v b="$t1" -v c="$t2" \
		'BEGIN { printf "kernel build %-6s first call %7.1f s, cached %5.2f s\n", n, b - a, c - b }' >&2
	echo "$img"
}

declare -A image
image[stock]=debian
[[ ,$kernels, == *,bad,* ]] && image[bad]=$(build bad known-bad)
[[ ,$kernels, == *,fixed,* ]] && image[fixed]=$(build fixed fixed)

IFS=, read -r -a order <<<"$kernels"
for i in $(seq 1 "$runs"); do
	for k in "${order[@]}"; do
		dir=$out/$k-$i
		mkdir -p "$dir"
		rc=0
		"$tk" --quiet run --kernel "${image[$k]}" --results "$dir" "$scenario" >"$dir/stdout" 2>&1 || rc=$?
		rep=$(ls "$dir"/*/report.json 2>/dev/null | head -n 1)
		if [ -n "$rep" ]; then
			jq -r --arg k "$k" --arg i "$i" --arg rc "$rc" \
				'[$k, $i, .verdict.class, $rc, (.takeover.resume_s // "-"), (.why.hang_class // "-"),
				  ([.why.blocked[]? | select((.tasks | test("nfsd")) and (.stack | index("nfs_release_folio")))] | length | if . > 0 then "yes" else "no" end),
				  (if .pressure then (.pressure.held_pct | floor | tostring) + "%" else "-" end),
				  (if .pressure then ([.pressure.nodes[].oom_kills] | add | tostring) else "-" end)] | @tsv' \
				"$rep" >>"$out/table.tsv"
		else
			printf '%s\t%s\tno-report\t%s\t-\t-\t-\t-\t-\n' "$k" "$i" "$rc" >>"$out/table.tsv"
		fi
		tail -n 1 "$out/table.tsv"
	done
done

echo
printf '%-6s %-4s %-24s %-4s %-10s %-9s %-5s %-5s %s\n' kernel run verdict exit resume_s hang held oom nfsd-in-nfs_release_folio
sort -k1,1 -k2,2n "$out/table.tsv" | awk -F'\t' '{ printf "%-6s %-4s %-24s %-4s %-10s %-9s %-5s %-5s %s\n", $1, $2, $3, $4, $5, $6, $8, $9, $7 }'
echo
for k in "${order[@]}"; do
	awk -F'\t' -v k="$k" '$1 == k { n++; if ($3 != "PASS") f++ }
		END { printf "%-6s not PASS in %d of %d runs\n", k, f, n }' "$out/table.tsv"
done
echo "results: $out"
