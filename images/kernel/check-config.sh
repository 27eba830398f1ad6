#!/bin/bash
# check-config.sh FRAGMENT... DOTCONFIG
#
# Did every option the fragments ask for stick in the kernel's .config after
# merge_config.sh and `make olddefconfig`? Kconfig silently drops or changes a
# request whose dependencies are not met; this says which ones did.
#
#   CONFIG_X=y / =m / =value   DOTCONFIG must have exactly that value
#   # CONFIG_X is not set      DOTCONFIG must not have CONFIG_X=y or =m
#                              ("is not set" or absent both count as off)
#
# With several fragments, a later one overrides an earlier one for the same
# option, as merge_config.sh does (takeover.config debug.config .config).
#
# Prints one line per option that did not stick, on stdout:
#   CONFIG_X: wanted y, got m (takeover.config:42)
# Exit status: 0 all stuck, 1 some did not, 2 usage or unreadable file.
set -euo pipefail

PROG=${0##*/}

usage() {
	echo "usage: $PROG FRAGMENT... DOTCONFIG" >&2
	exit 2
}

[[ $# -ge 2 ]] || usage
for f in "$@"; do
	[[ -r $f && -f $f ]] || { echo "$PROG: cannot read $f" >&2; exit 2; }
done

dotconfig=${!#}
fragments=("${@:1:$#-1}")

# awk reads the fragments first (requests, later wins), then the .config,
# which is told apart by name: an empty fragment has no first line to count.
awk '
function note_request(name, value, where) {
	if (!(name in want))
		order[++n] = name
	want[name] = value
	from[name] = where
}
FILENAME != ARGV[ARGC - 1] {
	where = FILENAME ":" FNR
	sub(/^.*\//, "", where)
	if (match($0, /^# CONFIG_[A-Za-z0-9_]+ is not set/)) {
		split($0, w, " ")
		note_request(w[2], "n", where)
	} else if (match($0, /^CONFIG_[A-Za-z0-9_]+=/)) {
		eq = index($0, "=")
		val = substr($0, eq + 1)
		sub(/[ \t\r]+$/, "", val)
		note_request(substr($0, 1, eq - 1), val, where)
	} else if ($0 !~ /^[ \t]*(#.*)?\r?$/) {
		printf "%s: not a Kconfig line, ignored: %s\n", where, $0 > "/dev/stderr"
	}
	next
}
/^CONFIG_[A-Za-z0-9_]+=/ {
	eq = index($0, "=")
	have[substr($0, 1, eq - 1)] = substr($0, eq + 1)
	next
}
/^# CONFIG_[A-Za-z0-9_]+ is not set/ {
	split($0, w, " ")
	have[w[2]] = "n"
}
END {
	bad = 0
	for (i = 1; i <= n; i++) {
		name = order[i]
		got = (name in have) ? have[name] : "absent"
		if (want[name] == "n") {
			ok = (got == "n" || got == "absent")
		} else if (want[name] ~ /^0[xX][0-9a-fA-F]+$/ && got ~ /^0[xX][0-9a-fA-F]+$/) {
			ok = (tolower(want[name]) == tolower(got))
		} else {
			ok = (want[name] == got)
		}
		if (!ok) {
			if (got == "n")
				got = "not set"
			printf "%s: wanted %s, got %s (%s)\n", name,
				want[name] == "n" ? "not set" : want[name], got, from[name]
			bad++
		}
	}
	exit bad ? 1 : 0
}
' "${fragments[@]}" "$dotconfig"
