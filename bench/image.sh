#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Benchmark (prints figures, asserts nothing): guest image cold build time,
# cache-hit time, image size, and one guest's boot time to multi-user.
# Usage: bench/image.sh [TAKEOVER_BINARY]   (run as root; takes a few minutes)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
tk=${1:-$here/../build/takeover}
cache=$(mktemp -d /var/tmp/takeover-bench-cache.XXXXXX)
trap 'rm -rf "$cache"' EXIT

ms() { echo $(($(date +%s%N) / 1000000)); }

t0=$(ms)
dir=$("$tk" --quiet image build --cache-dir "$cache")
t1=$(ms)
"$tk" --quiet image build --cache-dir "$cache" >/dev/null
t2=$(ms)
size=$(du -b --apparent-size "$dir/base.raw" | cut -f1)
used=$(du -B1 "$dir/base.raw" | cut -f1)
boot=$("$here/../images/boot-smoke.sh" "$dir" 2>&1 | sed -n 's/.*multi-user after \([0-9.]*\) s.*/\1/p' | tail -n 1)

printf 'cold build:       %6.1f s\n' "$(echo "$t0 $t1" | awk '{ print ($2 - $1) / 1000 }')"
printf 'cache hit:        %6.3f s\n' "$(echo "$t1 $t2" | awk '{ print ($2 - $1) / 1000 }')"
printf 'base.raw:         %6d MiB apparent, %d MiB allocated\n' $((size >> 20)) $((used >> 20))
printf 'initrd + vmlinuz: %6d KiB\n' $(( ($(stat -c %s "$dir/initrd.img") + $(stat -c %s "$dir/vmlinuz")) >> 10 ))
printf 'TCG boot to multi-user (one guest): %s s\n' "${boot:-?}"
