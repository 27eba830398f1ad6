#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# A kernel that dies while the run is verifying is still seen: the monitor
# reads every console while guest commands run. The default scenario,
# shortened, on a cluster restored from its snapshot; once the workloads have
# stopped (verification starts), the node that is neither the victim nor the
# takeover node gets sysrq-c. The run must give FAIL-KERNEL (exit 1), with
# the panic observed before the verification ended.
. "$(dirname "$0")/lib.sh"

results=$(mktemp -d /tmp/takeover-it.XXXXXX)
name=itv$$
name=${name:0:12}
trap '"$TAKEOVER" down "$name" >/dev/null 2>&1 || true' EXIT
scenario=$results/short.ini
cat >"$scenario" <<'INI'
# The default scenario with shorter waits (same cluster shape: same snapshot).
[fault]
after = 10s
[verdict]
steady_time = 10s
observe = 30s
INI

rc=0
"$TAKEOVER" run --name "$name" --results "$results" "$scenario" >"$results/stdout" 2>&1 &
run=$!
# The timeline appears once the cluster is up; wait for the workloads to stop.
tl=
for _ in $(seq 1 1800); do
	tl=$(ls "$results"/*/timeline.jsonl 2>/dev/null | head -n 1 || true)
	[ -n "$tl" ] && grep -q '"ev":"workloads-stopped"' "$tl" && break
	kill -0 "$run" 2>/dev/null || break
	sleep 0.2
done
other=
if [ -n "$tl" ] && grep -q '"ev":"workloads-stopped"' "$tl"; then
	roles=$(grep '"ev":"roles"' "$tl" | head -n 1)
	victim=$(jq -r .victim <<<"$roles")
	takeover=$(jq -r .takeover <<<"$roles")
	for n in n1 n2 n3; do
		[ "$n" != "$victim" ] && [ "$n" != "$takeover" ] && other=$n
	done
	"$TAKEOVER" sysrq "$name" "$other" c >"$results/sysrq.out" 2>&1 || true
fi
wait "$run" || rc=$?
cat "$results/stdout"
dir=$(dirname "$tl")
check "verification started and a third node was found (victim/takeover from the roles event: $other)" test -n "$other"
check "the run exits 1 (got $rc)" test "$rc" = 1
check "report.json says FAIL-KERNEL" test "$(jq -r .verdict.class "$dir/report.json")" = FAIL-KERNEL
# The panic was seen while verifying: its kernel event comes before the last verify event.
t_kernel=$(jq -r --arg n "$other" 'select(.ev == "kernel" and .node == $n) | .t' "$tl" | head -n 1)
t_verify=$(jq -r 'select(.ev == "verify") | .t' "$tl" | tail -n 1)
check "the panic on $other was classified during verification (kernel at ${t_kernel:-none} ms, last verify at ${t_verify:-none} ms)" \
	test -n "$t_kernel" -a -n "$t_verify" -a "${t_kernel:-0}" -lt "${t_verify:-0}"
check "the reason names the node's kernel event" jq -e --arg n "$other" '.verdict.reason | test($n)' "$dir/report.json"
check_report_rebuilds "$dir"
assert_no_leftovers "$name"
finish
