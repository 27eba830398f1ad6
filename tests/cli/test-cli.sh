#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The takeover command line end to end: exit codes (docs: 0 ok, 2 bad usage or
# scenario) and the FILE:LINE messages users see.
#
# usage: test-cli.sh TAKEOVER_BIN FIXTURES_DIR SCENARIOS_DIR
set -u

if [ $# -ne 3 ]; then
	echo "usage: $0 TAKEOVER_BIN FIXTURES_DIR SCENARIOS_DIR" >&2
	exit 2
fi
bin=$1
fixtures=$2
scenarios=$3

tmp=$(mktemp -d "${TMPDIR:-/tmp}/takeover-cli.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM
passed=0
failed=0

ok() {
	passed=$((passed + 1))
	echo "ok   $1"
}

fail() {
	failed=$((failed + 1))
	echo "FAIL $1"
	shift
	for why in "$@"; do
		echo "     $why"
	done
	if [ -s "$tmp/err" ]; then
		echo "     stderr:"
		sed 's/^/       /' "$tmp/err"
	fi
}

# run WANT_STATUS ARGS...: runs takeover, output in $tmp/out and $tmp/err, status in $status.
run() {
	want=$1
	shift
	"$bin" "$@" >"$tmp/out" 2>"$tmp/err"
	status=$?
	[ "$status" -eq "$want" ]
}

# expect WANT_STATUS DESCRIPTION ARGS...
expect() {
	want=$1
	desc=$2
	shift 2
	if run "$want" "$@"; then
		ok "$desc"
	else
		fail "$desc" "exit status $status, want $want"
	fi
}

# expect_text WANT_STATUS FILE(out|err) FIXED_STRING DESCRIPTION ARGS...
expect_text() {
	want=$1
	stream=$2
	text=$3
	desc=$4
	shift 4
	if ! run "$want" "$@"; then
		fail "$desc" "exit status $status, want $want"
	elif ! grep -qF -- "$text" "$tmp/$stream"; then
		fail "$desc" "std$stream lacks: $text"
	else
		ok "$desc"
	fi
}

# --- global options and dispatch ---
expect_text 0 out "takeover " "--version exits 0" --version
expect_text 0 out "Subcommands:" "--help exits 0" --help
expect 2 "no subcommand exits 2"
expect 2 "unknown global option exits 2" --frobnicate
expect_text 2 err "'chek' is not a takeover subcommand. Did you mean 'check'?" \
	"unknown subcommand exits 2 with did-you-mean" chek
expect_text 2 err "'bisect' is not a takeover subcommand." "far-off subcommand exits 2" bisect

# --- help ---
expect_text 0 out "usage: takeover check" "help check exits 0" help check
expect_text 0 out "usage: takeover help" "help help exits 0" help help
expect_text 2 err "no help for 'nosuch'" "help for an unknown subcommand exits 2" help nosuch
expect_text 0 out "[cluster]" "help scenario exits 0" help scenario
expect_text 0 out "# Scenario reference" "help scenario --markdown exits 0" help scenario --markdown
expect 2 "help scenario with a bad argument exits 2" help scenario --html

# --- check on good input ---
expect_text 0 out "loopback-failover.ini: ok" "check with no file checks the built-in default" check
for f in "$scenarios"/*.ini; do
	expect_text 0 out "$f: ok" "check $(basename "$f")" check "$f"
done
expect 0 "check --quiet prints nothing" check --quiet "$scenarios/loopback-failover.ini"
if [ -s "$tmp/out" ]; then
	fail "check --quiet output is empty" "got: $(head -c 200 "$tmp/out")"
fi
if run 0 check --dump "$scenarios/loopback-failover.ini"; then
	cp "$tmp/out" "$tmp/dump.ini"
	expect 0 "check --dump output is itself a valid scenario" check --quiet "$tmp/dump.ini"
else
	fail "check --dump exits 0" "exit status $status"
fi
expect 2 "check with a bad option exits 2" check --frobnicate

# --- check on bad input ---
expect_text 2 err "/nonexistent.ini:0: cannot read: No such file or directory" \
	"check of a missing file exits 2" check /nonexistent.ini
expect_text 2 err "$scenarios:0: cannot read: Is a directory" \
	"check of a directory exits 2" check "$scenarios"
nbad=0
for f in "$fixtures"/bad/*.ini; do
	nbad=$((nbad + 1))
	name=$(basename "$f")
	if ! run 2 check "$f"; then
		fail "bad/$name exits 2" "exit status $status"
		continue
	fi
	# Every "# expect: LINE: TEXT" of the fixture appears as FILE:LINE: TEXT.
	missing=""
	sed -n 's/^# expect: //p' "$f" >"$tmp/expect"
	while IFS= read -r e; do
		grep -qxF -- "$f:$e" "$tmp/err" || missing="$missing
       $f:$e"
	done <"$tmp/expect"
	if ! grep -q "^$f:[0-9][0-9]*: " "$tmp/err"; then
		fail "bad/$name reports FILE:LINE:" "no '$f:LINE: ' line on stderr"
	elif [ -n "$missing" ]; then
		fail "bad/$name reports FILE:LINE:" "missing:$missing"
	else
		ok "bad/$name exits 2 with FILE:LINE: messages"
	fi
done
[ "$nbad" -gt 0 ] || fail "bad fixtures exist" "none in $fixtures/bad"

# One bad file among good ones still fails the whole command, and good files are reported ok.
if run 2 check "$scenarios/loopback-failover.ini" "$fixtures/bad/garbage-line.ini" &&
	grep -qF "loopback-failover.ini: ok" "$tmp/out"; then
	ok "check of a good and a bad file exits 2"
else
	fail "check of a good and a bad file exits 2" "exit status $status"
fi

# Kernel subcommands: usage errors are 2 and say what is wrong (nothing is built or booted).
expect_text 2 err "need --kernel A and --kernel B" "compare with one kernel exits 2" compare --kernel debian
expect_text 2 err "the only action is 'build'" "kernel without an action exits 2" kernel
expect_text 2 err "--patches $tmp/none: $tmp/none/series" "kernel build with a missing patch series exits 2" \
	kernel build --patches "$tmp/none"
expect 2 "kernel build with a bad --jobs exits 2" kernel build --jobs 0

# Iterations: bad counts are usage errors, before anything is started.
expect_text 2 err "--iterations '0': expected 1..1000" "run --iterations 0 exits 2" run --iterations 0
expect_text 2 err "--iterations 'x': expected 1..1000" "run --iterations x exits 2" run --iterations x
expect_text 2 err "--keep keeps one cluster" "run --keep --iterations 2 exits 2" run --keep --iterations 2
printf '[verdict]\niterations = 0\n' >"$tmp/iter0.ini"
expect_text 2 err "$tmp/iter0.ini:2: [verdict] iterations: out of range (1..1000)" "[verdict] iterations = 0 exits 2" \
	check "$tmp/iter0.ini"

# The verdict over many runs, from recorded report.json files (made by
# `takeover report --write` from tests/fixtures/timelines/).
series() { # series DIR NAME...: DIR/iter-K/report.json from fixtures/series/NAME.json
	d=$1
	shift
	k=0
	for n in "$@"; do
		k=$((k + 1))
		mkdir -p "$d/iter-$k"
		[ "$n" = none ] || cp "$fixtures/series/$n.json" "$d/iter-$k/report.json"
	done
}
series "$tmp/it-pass" pass-default pass-default pass-default
expect_text 0 out "failure rate: 0 of 3 judged = 0.0 % (95 % interval 0.0-56.1 %)" \
	"report over passing iterations exits 0 with the interval" report "$tmp/it-pass"
series "$tmp/it-fail" pass-default stall-negative none
expect_text 1 out "failure rate: 1 of 2 judged = 50.0 %" "report over iterations with a failure exits 1" \
	report "$tmp/it-fail"
grep -qF "PASS x1, FAIL-STALL x1, ERROR x1" "$tmp/out" || fail "report counts each verdict" "$(head -1 "$tmp/out")"
series "$tmp/it-unjudged" pass-default pressure-lost-fixed
expect 125 "report over iterations none failed, one not judged, exits 125" report "$tmp/it-unjudged"
expect_text 1 out "runs: 5 runs" "report over several directories sums them" \
	report "$tmp/it-pass" "$tmp/it-fail/iter-1" "$tmp/it-fail/iter-2"
expect_text 0 out "" "report --write over iterations exits 0" report --write "$tmp/it-pass"
if jq -e '.failed == 0 and .passed == 3 and .failure_rate.hi95 > 0.56' "$tmp/it-pass/summary.json" >/dev/null 2>&1; then
	ok "report --write writes summary.json"
else
	fail "report --write writes summary.json" "$(head -c 300 "$tmp/it-pass/summary.json" 2>&1)"
fi
expect_text 2 err "$tmp/none: no such directory" "report of a missing directory exits 2" report "$tmp/it-pass" "$tmp/none"
expect_text 2 err "--scenario judges one run again" "report --scenario over iterations exits 2" \
	report --scenario "$scenarios/loopback-failover.ini" "$tmp/it-pass"

# Hostile input: no crash (a signal would be a status above 128), just exit 2.
head -c 65536 /dev/urandom >"$tmp/garbage.ini"
expect 2 "check of binary garbage exits 2" check "$tmp/garbage.ini"
head -c 5000 /dev/zero | tr '\0' x >"$tmp/long.ini"
expect_text 2 err "$tmp/long.ini:1: line too long (5000 bytes, at most 4096)" \
	"check of an over-long line exits 2" check "$tmp/long.ini"

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
