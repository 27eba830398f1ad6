#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# A real 3-node cluster: up -> every node online, the NFS group started on one
# node, a file written through one node's mount read back through another's;
# a forced fence really powers off its target; down -> nothing left.
. "$(dirname "$0")/lib.sh"

name=itc$$
name=${name:0:12}
trap '"$TAKEOVER" down "$name" >/dev/null 2>&1 || true' EXIT

check "up" "$TAKEOVER" up --quiet --name "$name"
status=$("$TAKEOVER" status --json "$name")
echo "$status" | sed 's/^/# /'
online=$(echo "$status" | jq '[.nodes[] | select(.online == true)] | length')
check "all 3 nodes online ($online)" test "$online" = 3
group=$(echo "$status" | jq -r '.nfs_group_node')
check "NFS group started on one node ($group)" test -n "$group" -a "$group" != null
check "fence device started" test "$(echo "$status" | jq -r '.fence_device_started')" = true
mounted=$(echo "$status" | jq '[.nodes[] | select(.mount | test(" nfs4? "))] | length')
check "export mounted on every node ($mounted)" test "$mounted" = 3

token="cross-node $$ $(date +%s)"
check "n1 writes through its mount" "$TAKEOVER" exec "$name" n1 sh -c "echo '$token' > /mnt/nfs/itc-probe && sync"
got=$("$TAKEOVER" exec "$name" n3 cat /mnt/nfs/itc-probe || true)
check "n3 reads what n1 wrote" test "$got" = "$token"

# Fence a node that does not run the group, through Pacemaker's own fencing path.
victim=n3
[ "$group" = n3 ] && victim=n2
check "stonith_admin powers $victim off" "$TAKEOVER" exec --timeout 180s "$name" n1 stonith_admin --fence "$victim" --timeout 150
uri=$(echo "$status" | jq -r '.libvirt_uri')
state=$(virsh -c "$uri" domstate "takeover-$name-$victim" 2>&1 || true)
echo "# domain takeover-$name-$victim after fencing: $state"
check "fenced domain is not running" test "$state" != running

check "down" "$TAKEOVER" down "$name"
assert_no_leftovers "$name"
finish
