# SPDX-License-Identifier: GPL-2.0-only
# Helpers for the integration tests (sourced). They boot real VMs: root, TCG or KVM.
set -euo pipefail

TAKEOVER=${TAKEOVER:?TAKEOVER must point at the takeover binary}
PASS=0
FAIL=0

ok() { PASS=$((PASS + 1)); echo "ok - $*"; }
not_ok() { FAIL=$((FAIL + 1)); echo "not ok - $*"; }
check() { # check DESCRIPTION COMMAND...
	local what=$1
	shift
	if "$@"; then ok "$what"; else not_ok "$what"; fi
}

finish() {
	echo "$PASS passed, $FAIL failed"
	[ "$FAIL" -eq 0 ]
}

state_root() { echo "${TAKEOVER_STATE_DIR:-/var/lib/takeover/clusters}"; }

# Everything a cluster could leave behind, listed; empty output means clean.
leftovers() {
	local name=$1 p
	[ -e "/run/netns/takeover-$name" ] && echo "netns takeover-$name"
	[ -e "$(state_root)/$name" ] && echo "state dir $(state_root)/$name"
	grep -F "$(state_root)/$name" /proc/mounts | sed 's/^/mount /' || true
	for p in "${TAKEOVER_CACHE_DIR:-/var/cache/takeover}"/snapshots/.tmp-*; do
		[ -e "$p" ] && ! kill -0 "${p##*-}" 2>/dev/null && echo "unfinished snapshot $p"
	done
	for p in /proc/[0-9]*; do
		tr '\0' ' ' <"$p/cmdline" 2>/dev/null | grep -qE "guest=takeover-$name-|$(state_root)/$name/" &&
			echo "process ${p#/proc/}: $(tr '\0' ' ' <"$p/cmdline" | cut -c1-120)"
	done
	return 0
}

assert_no_leftovers() {
	local name=$1 l
	l=$(leftovers "$name")
	if [ -z "$l" ]; then
		ok "nothing of cluster $name left"
	else
		not_ok "cluster $name left things behind:"
		echo "$l" | sed 's/^/#   /'
	fi
}

# index.html of a real run in a real headless browser, every part there; the
# screenshot is kept in the build tree (tests/screenshots/NAME.png).
check_html() {
	local dir=$1 name=$2
	check "index.html opens in a browser with every part ($name.png)" \
		"$(dirname "${BASH_SOURCE[0]}")/../cli/check-html.sh" "$dir" "${TAKEOVER_SCREENSHOTS:-$PWD/screenshots}/$name.png"
}

# `takeover report --write` on a copy of a run's results must give the same
# report.json, junit.xml, report.kcidb.json, index.html and plot data as the run wrote: the report is a
# function of the timeline (and the files beside it).
check_report_rebuilds() {
	local dir=$1 copy f rc=0
	copy=$(mktemp -d /tmp/takeover-it-report.XXXXXX)
	cp -a "$dir"/. "$copy"/
	rm -f "$copy"/report.json "$copy"/junit.xml "$copy"/report.kcidb.json "$copy"/index.html "$copy"/progress.dat "$copy"/progress.gp
	"$TAKEOVER" report --write "$copy" >/dev/null || rc=$?
	check "report --write exits with the run's code ($rc)" test "$rc" = "$(jq -r .verdict.exit_code "$dir/report.json")"
	# progress.gp and the KCIDB file URLs name their run directory: the copy's, there
	sed -i "s|$copy|${dir%/}|g" "$copy/progress.gp" "$copy/report.kcidb.json"
	for f in report.json junit.xml report.kcidb.json index.html progress.dat progress.gp; do
		check "report --write rebuilds $f as the run wrote it" cmp "$dir/$f" "$copy/$f"
	done
	rm -rf "$copy"
}
