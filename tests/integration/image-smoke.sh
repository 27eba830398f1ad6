#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The guest image builds (or is a cache hit) and one node boots it to
# multi-user under TCG/KVM; fails with the console tail when it does not.
. "$(dirname "$0")/lib.sh"

if dir=$("$TAKEOVER" --quiet image build); then ok "image build ($dir)"; else not_ok "image build"; fi
start=$(date +%s%N)
check "second build is a cache hit" "$TAKEOVER" --quiet image build
echo "# cache hit took $((($(date +%s%N) - start) / 1000000)) ms"
check "image info" "$TAKEOVER" image info
check "one node boots to multi-user" "$(dirname "$0")/../../images/boot-smoke.sh" "$dir"
finish
