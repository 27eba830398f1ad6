#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# takeover-writer after a failed fsync: the records written since the last
# acknowledgement are not known durable (Linux may have dropped the dirty
# pages), so the writer must write them again before a later fsync may
# acknowledge them. strace injects EIO into the writer's second fsync (a
# real syscall fault, like the harness's own faults); the next pwrite must
# go back to the first unacknowledged record.
# Usage: test-writer.sh TAKEOVER_WRITER
set -euo pipefail
writer=$1
command -v strace >/dev/null || { echo "test-writer: strace missing (bootstrap installs it)" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
rs=4096 every=4
timeout -s TERM 2 strace -f -qq -s 0 -e trace=pwrite64,fsync -e inject=fsync:error=EIO:when=2 -o "$tmp/trace" \
	"$writer" --name t --file "$tmp/f" --file-size 1M --record-size $rs --fsync-every $every --mode buffered \
	2>"$tmp/stderr" || true
grep -q 'fsync: Input/output error' "$tmp/stderr" || { echo "test-writer: the writer did not see the injected EIO" >&2; cat "$tmp/stderr" >&2; exit 1; }
# The pwrite right after the failed (second) fsync: its offset.
next=$(awk '/fsync\(.*INJECTED/ { hit = 1; next } hit && /pwrite64\(/ { print; exit }' "$tmp/trace" |
	sed -E 's/.*, [0-9]+, ([0-9]+)\) += .*/\1/')
want=$((every * rs)) # the first record after the first (successful) fsync
if [ "$next" != "$want" ]; then
	echo "test-writer: after the failed fsync the writer went on at offset ${next:-none}, want $want (rewrite the unacknowledged records)" >&2
	exit 1
fi
echo "test-writer: ok (rewrote from offset $want after the injected EIO)"
