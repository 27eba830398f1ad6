#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The built-in scenario end to end, on a cluster restored from its snapshot:
# PASS (exit 0), reports written, nothing left.
. "$(dirname "$0")/lib.sh"

results=$(mktemp -d /tmp/takeover-it.XXXXXX)
name=itd$$
name=${name:0:12}
trap '"$TAKEOVER" down "$name" >/dev/null 2>&1 || true' EXIT

rc=0
"$TAKEOVER" run --name "$name" --results "$results" || rc=$?
dir=$(ls -d "$results"/*/ | head -n 1)
check "default scenario exits 0 (got $rc)" test "$rc" = 0
check "report.json says PASS" test "$(jq -r .verdict.class "$dir/report.json")" = PASS
check "junit.xml has no failure" sh -c "! grep -q '<failure' '$dir/junit.xml'"
check "timeline recorded the fault" grep -q '"ev":"fault"' "$dir/timeline.jsonl"
check "consoles saved" test -s "$dir/console-n1.log"
# cluster.sh ran before and left the shape's snapshot (alone, this run saves it first).
check "the cluster was restored from a snapshot ($(jq -c .cluster_up.mode "$dir/report.json"))" \
	jq -e '.cluster_up.mode == "warm" and (.cluster_up.stages | length) > 0' "$dir/report.json"
check_html "$dir" default
check_report_rebuilds "$dir"
assert_no_leftovers "$name"
finish
