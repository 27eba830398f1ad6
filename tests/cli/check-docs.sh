#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# docs/scenario-reference.md is generated from the option table; fail when the
# checked-in copy no longer matches what the table generates.
#
# usage: check-docs.sh TAKEOVER_BIN DOCFILE
set -u

if [ $# -ne 2 ]; then
	echo "usage: $0 TAKEOVER_BIN DOCFILE" >&2
	exit 2
fi
bin=$1
doc=$2

tmp=$(mktemp "${TMPDIR:-/tmp}/takeover-docs.XXXXXX") || exit 1
trap 'rm -f "$tmp"' EXIT
trap 'exit 130' INT TERM

if ! "$bin" help scenario --markdown >"$tmp"; then
	echo "FAIL: '$bin help scenario --markdown' failed" >&2
	exit 1
fi
if [ ! -f "$doc" ]; then
	echo "FAIL: $doc does not exist." >&2
	echo "Run 'cmake --build build --target docs' and commit the result." >&2
	exit 1
fi
if ! diff -u "$doc" "$tmp" >&2; then
	echo >&2
	echo "FAIL: $doc is stale: the option table in harness/scenario/scenario.c changed." >&2
	echo "Run 'cmake --build build --target docs' and commit the result." >&2
	exit 1
fi
echo "ok   $doc matches the option table"
