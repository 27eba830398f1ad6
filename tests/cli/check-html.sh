#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Opens a run directory's index.html in a real headless browser (Debian's
# chromium-headless-shell) from file://, as a person would, and fails on any
# console message the page causes or on a missing part: the verdict (its
# class as report.json has it), the why line when report.json has evidence,
# the takeover's phases, the progress panel and the memory, PSI and reclaim
# panels with their lines drawn, a link to every file it names that is not
# there. Keeps a screenshot of the whole page.
# Usage: check-html.sh RUN_DIR SCREENSHOT.png
set -euo pipefail
dir=$(realpath "$1") shot=$2
fail() { echo "check-html: $dir: $*" >&2; exit 1; }
browser=$(command -v chromium-headless-shell || command -v chromium || true)
[ -n "$browser" ] || fail "no chromium-headless-shell (./bootstrap deps installs it)"
page=$dir/index.html
[ -f "$page" ] || fail "no index.html"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The browser's own chatter (GPU, sandbox, D-Bus) goes to stderr as well; the
# page's console messages and errors are the "CONSOLE" lines.
opts=(--no-sandbox --disable-gpu --enable-logging=stderr --v=0 --virtual-time-budget=2000)
timeout 120 "$browser" "${opts[@]}" --dump-dom "file://$page" >"$tmp/dom" 2>"$tmp/err" ||
	fail "the browser failed: $(tail -n 3 "$tmp/err")"
if grep -E ':CONSOLE[:(]' "$tmp/err" >"$tmp/console"; then
	fail "console messages: $(cat "$tmp/console")"
fi
grep -q '</html>' "$tmp/dom" || fail "the page did not load"

# One element per line, for grep.
sed 's/></>\n</g' "$tmp/dom" >"$tmp/lines"
class=$(jq -r .verdict.class "$dir/report.json")
grep -A1 '<section id="verdict"' "$tmp/lines" | grep -qF ">$class</h1>" || fail "no verdict $class at the top"
if [ "$(jq -r '.why != null' "$dir/report.json")" = true ]; then
	grep -q 'id="why"' "$tmp/lines" || fail "report.json has evidence but the page no why line"
fi
for part in phases plot panel-progress panel-memory panel-psi panel-reclaim events steps files scenario; do
	grep -q "id=\"$part\"" "$tmp/lines" || fail "no $part"
done
# Each panel has its lines: the progress of every writer, the memory's samples.
for panel in panel-progress panel-memory; do
	awk -v id="$panel" '/<g id="/ { on = index($0, "id=\"" id "\"") > 0 } on && /<polyline/ { n++ } END { exit !(n > 0) }' \
		"$tmp/lines" || fail "$panel draws nothing"
done
# Every local link leads to a file of the run.
grep -o 'href="[^"]*"' "$tmp/dom" | sed 's/^href="//; s/"$//' | while read -r href; do
	case $href in *://*|'#'*) continue ;; esac
	[ -e "$dir/$href" ] || fail "a link to $href, which is not there"
done

mkdir -p "$(dirname "$shot")"
timeout 120 "$browser" "${opts[@]}" --hide-scrollbars --window-size=1150,2600 --screenshot="$shot" \
	"file://$page" >/dev/null 2>&1 || fail "no screenshot"
[ -s "$shot" ] || fail "an empty screenshot"
echo "check-html: $dir/index.html: ok (screenshot $shot)"
