#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# takeover triage on the console fixtures (tests/fixtures/console/, each
# one's source in its README): the findings, their lines and syzkaller-style
# titles as triage.expected lists them, and the same findings from each
# fixture in the shapes people paste a log in: dmesg -T, syslog and
# journalctl -k lines, quoted in a mail ("> ", "> > "), indented, wrapped at
# 72 columns (plain, then quoted, and with dmesg -T's stamps), and piped on
# standard input. Exit 1 with a fatal report, 0 without, 2 on a file
# that cannot be read.
# Usage: test-triage.sh TAKEOVER CONSOLE_FIXTURES
set -euo pipefail
tk=$1 fx=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "test-triage: $*" >&2; exit 1; }

cd "$fx"
rc=0; "$tk" triage *.log >"$tmp/out" || rc=$?
[ $rc = 1 ] || fail "all fixtures: exit $rc, want 1 (fatal reports among them)"
diff -u triage.expected "$tmp/out" || fail "findings differ from triage.expected"

# Each shape must give every fixture's findings, line for line.
shape() {
	case $1 in
	dmesg-T) sed -E 's/^\[ *[0-9]+\.[0-9]+\] /[Mon Dec  7 07:40:26 2026] /' ;;
	syslog) sed -E 's/^\[ *[0-9]+\.[0-9]+\] //; s/^/Dec  7 07:40:26 n1 kernel: /' ;;
	journal) sed -E 's/^/Dec 07 07:40:26 n1 kernel: /' ;;
	quoted) sed -E 's/^/> /' ;;
	quoted2) sed -E 's/^/> > /' ;;
	indented) sed -E 's/^/    /' ;;
	esac
}
for s in dmesg-T syslog journal quoted quoted2 indented; do
	n=0
	for f in *.log; do
		shape $s <"$f" >"$tmp/$f"
		want=$(grep "^$f:" triage.expected | cut -d: -f2-)
		got=$(cd "$tmp" && "$tk" triage "$f" | cut -d: -f2-) || true
		[ "$got" = "$want" ] || fail "$s $f: got [$got], want [$want]"
		n=$((n + $(printf '%s' "$want" | grep -c . || true)))
	done
	[ $n -gt 30 ] || fail "$s: only $n findings checked"
done

# Wrapped as a mail client wraps (at 72 columns, on spaces), then also
# quoted: the same findings and titles, on the first line of each in the
# wrapped file (where the unwrapped one was).
# dmesg -T's long stamps push titles (nfs: server ... not responding, still
# trying) past the column: only joining the pieces gives them whole.
wrapped=0
for s in wrapped wrapped-quoted dmesg-T-wrapped; do
	n=0
	for f in *.log; do
		case $s in
		dmesg-T-wrapped) tr -d '\r' <"$f" | shape dmesg-T | fold -s -w 72 >"$tmp/$f" ;;
		*) tr -d '\r' <"$f" | fold -s -w 72 >"$tmp/$f" ;;
		esac
		[ $s != wrapped-quoted ] || sed -i -E 's/^/> /' "$tmp/$f"
		want=$(grep "^$f:" triage.expected | cut -d: -f3-)
		got=$(cd "$tmp" && "$tk" triage "$f") || true
		[ "$(printf '%s' "$got" | cut -d: -f3-)" = "$want" ] || fail "$s $f: got [$got], want [$want]"
		# each finding's line is where the wrapped file has the start of the original's line
		paste -d' ' <(printf '%s\n' "$got" | cut -d: -f2) <(grep "^$f:" triage.expected | cut -d: -f2) |
			while read -r l l0; do
				[ -n "$l" ] || continue
				orig=$(sed -n "${l0}p" "$f" | tr -d '\r' | { [ $s = dmesg-T-wrapped ] && shape dmesg-T || cat; })
				w=$(sed -n "${l}p" "$tmp/$f" | sed -E 's/^> //; s/ +$//')
				case $orig in "$w"*) ;; *) fail "$s $f: line $l is [$w], not the start of [$orig]" ;; esac
			done
		n=$((n + $(printf '%s' "$want" | grep -c . || true)))
	done
	[ $n -gt 30 ] || fail "$s: only $n findings checked"
	wrapped=$((wrapped + $(cat "$tmp"/*.log | wc -l) - $(cat *.log | wc -l)))
done
[ $wrapped -gt 100 ] || fail "fold wrapped only $wrapped lines: the wrapped shapes test nothing"

# Standard input, and the exit codes.
got=$("$tk" triage - <hung-task.log) || fail "hung task only: exit $?, want 0"
[ "$got" = "-:1: hung-task: INFO: task hung in nfs_file_fsync" ] || fail "stdin: $got"
rc=0; "$tk" triage oops-null-deref.log >/dev/null || rc=$?
[ $rc = 1 ] || fail "oops: exit $rc, want 1"
rc=0; "$tk" triage "$tmp/none.log" 2>"$tmp/err" >/dev/null || rc=$?
[ $rc = 2 ] && grep -q "none.log: No such file" "$tmp/err" && [ "$(wc -l <"$tmp/err")" = 1 ] ||
	fail "missing file: exit $rc, $(cat "$tmp/err")"
rc=0; "$tk" triage >/dev/null 2>&1 || rc=$?
[ $rc = 2 ] || fail "no FILE: exit $rc, want 2"

# --json: the same findings, with their fields and types.
"$tk" triage --json *.log >"$tmp/json" || true
jq -e 'length > 30 and all(.[]; (.file|type)=="string" and (.line|type)=="number" and
	(.family|type)=="string" and (.title|type)=="string" and
	(.severity=="fatal" or .severity=="info") and
	(.kernel_time==null or (.kernel_time|type)=="number"))' "$tmp/json" >/dev/null ||
	fail "--json: bad fields"
[ "$(jq -r '.[] | "\(.file):\(.line): \(.family): \(.title)"' "$tmp/json")" = "$(cat triage.expected)" ] ||
	fail "--json: findings differ from the text output"
echo "test-triage: ok"
