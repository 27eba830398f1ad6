#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# takeover-verify on a real file written by takeover-writer: intact, then one
# flipped payload byte (corrupt), one zeroed slot (missing) and a truncated
# tail (missing past the end). 9 MiB of 64 KiB records is 144 slots, so the
# verifier's 4 MiB reads cover 64 + 64 + 16 records: a partial last read.
# O_DIRECT needs a real file system, so the file is under /var/tmp, not tmpfs.
# Usage: test-verify.sh TAKEOVER_WRITER TAKEOVER_VERIFY
set -euo pipefail
writer=$1 verify=$2
tmp=$(mktemp -d -p /var/tmp takeover-test-verify.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
f=$tmp/w.dat rs=65536 slots=144
fail() { echo "test-verify: $*" >&2; exit 1; }

# Long enough to wrap: every slot then holds an acknowledged record (the
# writer fsyncs and acknowledges everything when it is stopped).
timeout -s TERM 3 "$writer" --name t --file "$f" --file-size 9M --record-size 64K --fsync-every 16 \
	--mode buffered 2>"$tmp/stderr" || true
[ "$(stat -c %s "$f")" = $((slots * rs)) ] || fail "the writer did not fill $f ($(stat -c %s "$f") bytes)"
run() { "$verify" --name t --file "$f" --file-size 9M --record-size 64K --acked "$1"; }

out=$(run $slots) || fail "intact file: exit $? ($out)"
[[ $out == *"checked=$slots missing=0 corrupt=0"* ]] || fail "intact file: $out"

# One byte of slot 77's payload.
printf '\xff' | dd of="$f" bs=1 seek=$((77 * rs + 1000)) conv=notrunc status=none
rc=0; out=$(run $slots) || rc=$?
[ $rc = 1 ] && [[ $out == *"missing=0 corrupt=1 first_bad=77:bad-payload-crc"* ]] || fail "flipped byte: exit $rc ($out)"

# Slot 130 (in the partial last read) zeroed.
dd if=/dev/zero of="$f" bs=$rs seek=130 count=1 conv=notrunc status=none
rc=0; out=$(run $slots) || rc=$?
[ $rc = 1 ] && [[ $out == *"missing=1 corrupt=1 first_bad=77:"* ]] || fail "zeroed slot: exit $rc ($out)"

# Cut 4 KiB into slot 100: its header survives, its payload does not (torn:
# corrupt), and slots 101-143 (with the zeroed 130) are gone.
truncate -s $((100 * rs + 4096)) "$f"
rc=0; out=$(run $slots) || rc=$?
[ $rc = 1 ] && [[ $out == *"checked=$slots missing=43 corrupt=2"* ]] || fail "truncated file: exit $rc ($out)"

# Only the acknowledged records count: with 50 acknowledged, slots 50+ are not checked.
truncate -s 0 "$f"
timeout -s TERM 3 "$writer" --name t --file "$f" --file-size 9M --record-size 64K --fsync-every 16 \
	--mode buffered 2>"$tmp/stderr" || true
truncate -s $((50 * rs)) "$f"
out=$(run 50) || fail "50 acknowledged: exit $? ($out)"
[[ $out == *"acked=50 checked=50 missing=0 corrupt=0"* ]] || fail "50 acknowledged: $out"
echo "test-verify: ok (intact, corrupt, missing, truncated, partial acknowledgement)"
