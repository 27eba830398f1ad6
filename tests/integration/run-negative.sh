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
"$TAKEOVER" run --name "$name" --results "$results" "$(dirname "$0")/../../scenarios/negative-control.ini" || rc=$?
dir=$(ls -d "$results"/*/ | head -n 1)
check "negative control exits 1 (got $rc)" test "$rc" = 1
check "report.json says FAIL-STALL" test "$(jq -r .verdict.class "$dir/report.json")" = FAIL-STALL
check "junit.xml has a failure" grep -q '<failure' "$dir/junit.xml"
check_report_rebuilds "$dir"
assert_no_leftovers "$name"
finish
