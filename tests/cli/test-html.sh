#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# index.html of recorded runs (tests/fixtures/timelines/: a PASS, the
# negative control's FAIL-STALL, 6.12's fenced FAIL-TAKEOVER-TIMEOUT),
# written by `takeover report --write` and opened in a real headless browser
# by check-html.sh, which must also refuse a page with a console error, a
# missing panel or a dead link. Screenshots go to SHOTS_DIR.
# Usage: test-html.sh TAKEOVER FIXTURES_DIR CHECK_HTML SHOTS_DIR
set -euo pipefail
tk=$1 fx=$2 check=$3 shots=$4
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "test-html: $*" >&2; exit 1; }

for f in pass-default stall-negative takeover-fenced-6.12; do
	mkdir "$tmp/$f"
	cp "$fx/timelines/$f.jsonl" "$tmp/$f/timeline.jsonl"
	cp "$fx/timelines/$f.ini" "$tmp/$f/scenario.ini"
	"$tk" report --write "$tmp/$f" >/dev/null || true
	"$check" "$tmp/$f" "$shots/$f.png" || fail "$f: the page fails its check"
done

# A directory of iterations: its page has a row per run, each linking to the run's page.
series=$tmp/series
mkdir "$series"
i=0
for f in pass-default stall-negative takeover-fenced-6.12; do
	i=$((i + 1))
	cp -a "$tmp/$f" "$series/iter-$i"
done
"$tk" report --write "$series" >/dev/null || true
page=$series/index.html
[ -f "$page" ] || fail "no index.html for the iterations"
for k in 1 2 3; do
	grep -q "href=\"iter-$k/index.html\"" "$page" || fail "the iterations' page has no link to iter-$k"
done
[ "$(grep -o '<tr><td>[0-9]*</td>' "$page" | wc -l)" = 3 ] || fail "the iterations' page should have 3 rows"
grep -q '>FAIL-STALL<' "$page" || fail "the iterations' page lacks iter-2's verdict"
browser=$(command -v chromium-headless-shell || command -v chromium)
timeout 120 "$browser" --no-sandbox --disable-gpu --enable-logging=stderr --v=0 --dump-dom "file://$page" \
	>"$tmp/series.dom" 2>"$tmp/series.err" || fail "the browser failed on the iterations' page"
! grep -E ':CONSOLE[:(]' "$tmp/series.err" || fail "console messages on the iterations' page"
grep -q 'id="runs"' "$tmp/series.dom" || fail "the iterations' page did not load"

# The checker can fail: each breakage of a good page is caught.
good=$tmp/stall-negative
broken() {
	rm -rf "$tmp/broken"
	cp -a "$good" "$tmp/broken"
	sed -i "$1" "$tmp/broken/index.html"
	if "$check" "$tmp/broken" "$tmp/broken.png" 2>"$tmp/why"; then
		fail "a page with $2 passed the check"
	fi
	grep -q "$3" "$tmp/why" || fail "a page with $2 failed for another reason: $(cat "$tmp/why")"
}
broken 's|</body>|<script>console.error("boom")</script></body>|' "a console error" "console messages"
broken 's|<script>||; s|id="panel-memory"|id="panel-gone"|' "no memory panel" "no panel-memory"
broken 's|<li><a href="junit.xml">|<li><a href="junit-gone.xml">|' "a dead link" "junit-gone.xml"
broken 's|>FAIL-STALL</h1>|>PASS</h1>|' "another verdict" "no verdict FAIL-STALL"
echo "test-html: 3 recorded runs' pages and their iterations' page pass, 4 broken pages refused; screenshots in $shots"
