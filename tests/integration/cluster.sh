#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# A real 3-node cluster: up -> every node online, the NFS group started on one
# node, a file written through one node's mount read back through another's;
# a forced fence really powers off its target; down -> nothing left. Then a
# second cluster of the same shape, under another name, restored from the
# snapshot: it holds nothing of the first one (files, processes, dirty data,
# fencing history) and its fencing works.
. "$(dirname "$0")/lib.sh"

name=itc$$
name=${name:0:12}
name2=${name}w
trap '"$TAKEOVER" down "$name" >/dev/null 2>&1 || true; "$TAKEOVER" down "$name2" >/dev/null 2>&1 || true' EXIT

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

# What an iteration leaves behind: a process, dirty page cache, a file.
check "n1 starts a process that outlives the exec" "$TAKEOVER" exec "$name" n1 sh -c 'setsid sleep 86400 >/dev/null 2>&1 < /dev/null &'
check "n1 dirties its page cache" "$TAKEOVER" exec "$name" n1 dd if=/dev/zero of=/root/itc-dirty bs=1M count=64 status=none
# The checks on the restored cluster can see each of these: here they do.
check "$name: the process runs" "$TAKEOVER" exec "$name" n1 pgrep -f "sleep 8640[0]"
dirty=$("$TAKEOVER" exec "$name" n1 awk '/^Dirty:/ { print $2 }' /proc/meminfo || echo 0)
check "$name: n1 holds dirty data (${dirty} kB)" test "$dirty" -ge 16384

fence_events() { "$TAKEOVER" exec "$1" n1 stonith_admin --history '*' --output-as=xml | grep -c '<fence_event' || true; }
# Fence a node that does not run the group, through Pacemaker's own fencing path.
fence_check() { # fence_check CLUSTER: fence a node that does not run the group, check it is off
	local c=$1 st g v uri state
	st=$("$TAKEOVER" status --json "$c")
	g=$(echo "$st" | jq -r '.nfs_group_node')
	v=n3
	[ "$g" = n3 ] && v=n2
	check "$c: stonith_admin powers $v off" "$TAKEOVER" exec --timeout 180s "$c" n1 stonith_admin --fence "$v" --timeout 150
	uri=$(echo "$st" | jq -r '.libvirt_uri')
	state=$(virsh -c "$uri" domstate "takeover-$v" 2>&1 || true)
	echo "# $c: domain takeover-$v after fencing: $state"
	check "$c: fenced domain is not running" test "$state" != running
}
fence_check "$name"
# The check below can see a fence: here, after one, it does.
check "$name: the fence is in the history ($(fence_events "$name") events)" test "$(fence_events "$name")" -ge 1

check "down" "$TAKEOVER" down "$name"
assert_no_leftovers "$name"

# The same shape again, under another name: restored from the snapshot.
log=$(mktemp /tmp/takeover-it-up.XXXXXX)
up_logged() { # up_logged NAME WHAT: `up` with its progress in $log (shown as comments)
	local rc=0
	"$TAKEOVER" up --name "$1" 2>"$log" >/dev/null || rc=$?
	check "$2 ($1) exits 0 ($rc)" test "$rc" = 0
	sed 's/^/# /' "$log"
}
up_logged "$name2" "up again"
check "$name2 was restored from a snapshot" grep -q 'warm (from a snapshot)' "$log"
status=$("$TAKEOVER" status --json "$name2")
online=$(echo "$status" | jq '[.nodes[] | select(.online == true)] | length')
check "$name2: all 3 nodes online ($online)" test "$online" = 3
check "$name2: none of $name's files" "$TAKEOVER" exec "$name2" n1 sh -c '! test -e /mnt/nfs/itc-probe && ! test -e /root/itc-dirty'
check "$name2: none of $name's processes" "$TAKEOVER" exec "$name2" n1 sh -c '! pgrep -f "sleep 8640[0]"'
dirty=$("$TAKEOVER" exec "$name2" n1 awk '/^Dirty:/ { print $2 }' /proc/meminfo || echo unknown)
check "$name2: n1 holds less dirty data than $name's 64 MiB (${dirty} kB)" test "$dirty" -lt 65536
check "$name2: no fencing history (n1 sees $(fence_events "$name2") fence events)" test "$(fence_events "$name2")" = 0
fence_check "$name2"

key=$(echo "$status" | jq -r '.snapshot')
check "$name2: status names its snapshot ($key)" test -n "$key" -a "$key" != null
check "down $name2" "$TAKEOVER" down "$name2"
assert_no_leftovers "$name2"

# A tampered (truncated) snapshot is found out, removed, and the cluster boots cold.
snap=${TAKEOVER_CACHE_DIR:-/var/cache/takeover}/snapshots/$key
truncate -s -4096 "$snap/n2.save"
up_logged "$name" "up with a truncated snapshot"
check "the truncation is named" grep -q "n2.save has .* bytes, the manifest says" "$log"
check "the cluster booted cold" grep -q "3 nodes, .*, cold," "$log"
check "a new snapshot replaced it" grep -q "snapshot saved" "$log"
rm -f "$log"
check "down" "$TAKEOVER" down "$name"
assert_no_leftovers "$name"
finish
