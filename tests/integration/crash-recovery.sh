#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Nothing is left behind when the harness is interrupted or dies:
#  - Ctrl-C (SIGINT) during `up`: the harness removes what it created itself;
#  - `up` killed with SIGKILL while the nodes boot: `takeover down NAME` removes it;
#  - `run` killed with SIGKILL: the next command that starts a cluster (here
#    `up`) removes its cluster, and says so, because its owner is provably
#    gone; so does `takeover down --stale`.
. "$(dirname "$0")/lib.sh"

"$TAKEOVER" --quiet image build >/dev/null

# Wait until the cluster's domains are up (their console logs grow), at most 180 s.
wait_booting() {
	local name=$1 i
	for i in $(seq 1 180); do
		[ -s "$(state_root)/$name/console-n3.log" ] && return 0
		sleep 1
	done
	return 1
}

# Start SUBCOMMAND (run or up) for cluster NAME, wait until its nodes boot,
# then kill it with SIGKILL: what it leaves is for the next command to reap.
kill_while_booting() {
	local sub=$1 name=$2 pid extra=()
	[ "$sub" = run ] && extra=(--results "$(mktemp -d)")
	"$TAKEOVER" "$sub" --quiet --name "$name" "${extra[@]}" >/dev/null 2>&1 &
	pid=$!
	check "$sub ($name) is booting nodes" wait_booting "$name"
	kill -KILL "$pid"
	wait "$pid" 2>/dev/null || true
	check "leftovers exist after SIGKILL of $sub ($name)" test -n "$(leftovers "$name")"
}

base=$$
base=${base:0:8}

# A run killed with SIGKILL; the `up` below must reap its cluster.
stale=its$base
kill_while_booting run "$stale"

name=iti$base
uperr=$(mktemp)
"$TAKEOVER" up --quiet --name "$name" >/dev/null 2>"$uperr" &
pid=$!
check "up ($name) is booting nodes" wait_booting "$name"
kill -INT "$pid"
rc=0
wait "$pid" || rc=$?
check "Ctrl-C during up exits 125 (got $rc)" test "$rc" = 125
assert_no_leftovers "$name"
check "up said it removed the stale cluster $stale" grep -q "removing cluster $stale: left by a takeover run" "$uperr"
assert_no_leftovers "$stale"
rm -f "$uperr"

name=itk$base
kill_while_booting up "$name"
check "down after a crash" "$TAKEOVER" down "$name"
assert_no_leftovers "$name"

name=itr$base
kill_while_booting run "$name"
check "down --stale" "$TAKEOVER" down --stale
assert_no_leftovers "$name"
finish
