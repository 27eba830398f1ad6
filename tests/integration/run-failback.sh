#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Failback end to end (scenarios/failback.ini): the NFS group is moved away
# from the node serving it while that node writes through its loop-back mount
# under pressure; on a good kernel its writes resume as a client of the new
# server: PASS, no node fenced, the judged node is the one the group left.
# Its FAIL classes are shown on recorded failbacks (test_timeline, test_verdict).
. "$(dirname "$0")/lib.sh"

results=$(mktemp -d /tmp/takeover-it.XXXXXX)
name=itf$$
name=${name:0:12}
trap '"$TAKEOVER" down "$name" >/dev/null 2>&1 || true' EXIT

rc=0
"$TAKEOVER" run --name "$name" --results "$results" "$(dirname "$0")/../../scenarios/failback.ini" || rc=$?
dir=$(ls -d "$results"/*/ | head -n 1)
check "failback exits 0 (got $rc)" test "$rc" = 0
check "report.json says PASS ($(jq -r .verdict.reason "$dir/report.json"))" \
	test "$(jq -r .verdict.class "$dir/report.json")" = PASS
check "the judged node is the victim, which survived" \
	jq -e '.takeover.victim_survives and .takeover.judged_node == .takeover.victim and .takeover.takeover_node != .takeover.victim' "$dir/report.json"
check "nobody was fenced" jq -e '.takeover.phases_s.fenced == null' "$dir/report.json"
# Both seen; not ordered: group_started is the crm_mon poll (every 2 s) that first saw the
# group up, and the judged node's first write can come between the IP's start and that poll.
check "the group moved and the judged node wrote again" \
	jq -e '.takeover.phases_s.group_started != null and .takeover.phases_s.first_loopback_write != null' "$dir/report.json"
check "every writer's acknowledged records verified intact" \
	jq -e '(.verify | length) == 3 and all(.verify[]; .ran and .missing == 0 and .corrupt == 0)' "$dir/report.json"
check_html "$dir" failback
check_report_rebuilds "$dir"
assert_no_leftovers "$name"
finish
