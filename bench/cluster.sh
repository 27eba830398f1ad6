#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Benchmark (prints figures, asserts nothing): time until a 3-node cluster is
# ready (takeover up, every readiness check passed), host RSS per guest, and
# host CPU while the cluster idles.
# Usage: bench/cluster.sh [TAKEOVER_BINARY] [SCENARIO]   (root; ~5 min under TCG)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
tk=${1:-$here/../build/takeover}
scenario=${2:-}
name=bench$$
name=${name:0:12}
trap '"$tk" down "$name" >/dev/null 2>&1 || true' EXIT

"$tk" --quiet image build >/dev/null # a cache hit normally; not part of the figure
t0=$(date +%s%N)
"$tk" up --name "$name" $scenario 2>&1 | grep -E 'done \(' | sed 's/^takeover: /  step: /'
t1=$(date +%s%N)
printf 'ready after:          %6.1f s\n' "$(echo "$t0 $t1" | awk '{ print ($2 - $1) / 1e9 }')"

for p in $(pgrep -f "qemu-system.*${TAKEOVER_STATE_DIR:-/var/lib/takeover/clusters}/$name/"); do
	rss=$(awk '/^VmRSS/ { print $2 }' "/proc/$p/status")
	dom=$(tr '\0' ' ' <"/proc/$p/cmdline" | sed -n "s/.*guest=\(takeover-[^, ]*\).*/\1/p")
	printf 'host RSS %-22s %6d MiB\n' "$dom" $((rss / 1024))
done

# Host CPU over 30 s of an idle cluster (nothing but the cluster stack running).
read -r _ u1 n1 s1 i1 w1 _ </proc/stat
sleep 30
read -r _ u2 n2 s2 i2 w2 _ </proc/stat
busy=$(( (u2 + n2 + s2) - (u1 + n1 + s1) ))
total=$(( busy + (i2 + w2) - (i1 + w1) ))
printf 'host CPU, idle cluster: %5.1f %% of %d cores\n' "$(echo "$busy $total" | awk '{ print 100 * $1 / $2 }')" "$(nproc)"
