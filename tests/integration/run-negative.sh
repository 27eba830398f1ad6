#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The negative control: loop-back NFS blocked after the takeover must end
# FAIL-STALL with exit 1, and leave nothing behind. Without this nobody knows
# the verdict can fail.
. "$(dirname "$0")/lib.sh"

results=$(mktemp -d /tmp/takeover-it.XXXXXX)
name=itn$$
name=${name:0:12}
trap '"$TAKEOVER" down "$name" >/dev/null 2>&1 || true' EXIT

rc=0
# As iterations that stop at the first failure: the negative control fails the
# first one, so this also checks --iterations/--until-fail and the summary
# over iterations at no extra cost.
"$TAKEOVER" run --iterations 3 --until-fail --name "$name" --results "$results" \
	"$(dirname "$0")/../../scenarios/negative-control.ini" || rc=$?
top=$(ls -d "$results"/*-iterations | head -n 1)
dir=$top/iter-1
check "negative control exits 1 (got $rc)" test "$rc" = 1
check "report.json says FAIL-STALL" test "$(jq -r .verdict.class "$dir/report.json")" = FAIL-STALL
check "junit.xml has a failure" grep -q '<failure' "$dir/junit.xml"
check "--until-fail stopped after the first iteration" test ! -e "$top/iter-2"
check "summary.json: 1 run, 1 failed, stopped at the first failure" \
	jq -e '.runs == 1 and .failed == 1 and .stopped_at_first_failure and .verdicts["FAIL-STALL"] == 1' "$top/summary.json"
rrc=0
"$TAKEOVER" report "$top" >"$results/series.txt" 2>&1 || rrc=$?
check "report over the iterations exits 1 (got $rrc)" test "$rrc" = 1
check "report over the iterations gives the failure rate" grep -qF "failure rate: 1 of 1 judged" "$results/series.txt"
check_html "$dir" negative-control
check "the iterations have a page linking to iter-1" grep -q 'href="iter-1/index.html"' "$top/index.html"
check_report_rebuilds "$dir"
assert_no_leftovers "$name"
finish
