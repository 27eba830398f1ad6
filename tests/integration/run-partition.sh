#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The partition's negative control: the NFS server cut off from the others on
# a cluster without fencing whose quorum policy lets the cut-off side keep its
# resources (scenarios/partition-no-fencing.ini). Both sides serve NFS; the
# audit after the observe window must see the floating IP and the shared file
# system on two nodes and end FAIL-SPLIT-BRAIN with exit 1, and the
# partition's nftables table must be gone with the cluster.
. "$(dirname "$0")/lib.sh"

results=$(mktemp -d /tmp/takeover-it.XXXXXX)
name=itp$$
name=${name:0:12}
trap '"$TAKEOVER" down "$name" >/dev/null 2>&1 || true' EXIT

rc=0
"$TAKEOVER" run --name "$name" --results "$results" \
	"$(dirname "$0")/../../scenarios/partition-no-fencing.ini" || rc=$?
dir=$(ls -d "$results"/*/ | head -n 1)
dir=${dir%/}
check "partition without fencing exits 1 (got $rc)" test "$rc" = 1
check "report.json says FAIL-SPLIT-BRAIN" test "$(jq -r .verdict.class "$dir/report.json")" = FAIL-SPLIT-BRAIN
check "the after-observe audit saw the IP on two nodes" \
	jq -e '[.audits[] | select(.when == "after-observe")][0].problems | test("floating IP on 2 nodes")' "$dir/report.json"
check "the timeline's audit names both holders" \
	jq -se '[.[] | select(.ev == "audit" and .when == "after-observe")][0].ip_holders | length == 2' "$dir/timeline.jsonl"
check "the fault was a partition of the NFS server" \
	jq -se '[.[] | select(.ev == "fault")][0].kind == "partition"' "$dir/timeline.jsonl"
check "junit.xml has the no-split-brain failure" grep -q 'name="no-split-brain"' "$dir/junit.xml"
check "nobody was fenced (fencing is off)" jq -e '.takeover.phases_s.fenced == null' "$dir/report.json"
check_report_rebuilds "$dir"
assert_no_leftovers "$name"
finish
