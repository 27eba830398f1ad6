#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Benchmark (prints figures, asserts nothing): `git bisect run takeover run
# --kernel-tree . SCENARIO` end to end, without building a kernel per step.
#
# A throwaway git repository stands in for a kernel tree: each commit holds a
# built kernel as arch/x86/boot/bzImage (what --kernel-tree reads). The
# history is c1..c6: good, good, a commit that "does not build" (no bzImage,
# which takeover run must report as 125 so that bisect skips it), good, bad,
# bad. Good is the fixed series' kernel, bad the known-bad series' kernel
# (both from `takeover kernel build`, cached after the first build). git
# bisect must name c5. With git's deterministic choice of steps it tests c3
# (skipped in seconds), c4 and c5: two real runs, ~10 min each under TCG.
# Usage: bench/bisect.sh [TAKEOVER_BINARY] [SCENARIO]
# Prints the bisect log, the culprit, and each step's verdict and time.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
tk=$(realpath "${1:-$here/../build/takeover}")
scenario=$(realpath "${2:-$here/../scenarios/loopback-deadlock.ini}")
good=$("$tk" --quiet kernel build --patches "$here/../images/kernel/patches/fixed")
bad=$("$tk" --quiet kernel build --patches "$here/../images/kernel/patches/known-bad")
out=$(mktemp -d /var/tmp/takeover-bench-bisect.XXXXXX)
repo=$out/tree

git init -q "$repo"
cd "$repo"
commit() { # commit MESSAGE [BZIMAGE]
	rm -rf arch Makefile modules.order
	if [ -n "${2:-}" ]; then
		mkdir -p arch/x86/boot
		cp "$2" arch/x86/boot/bzImage
		# A built tree has modules: --kernel-tree runs its modules_install.
		# This one installs the module tree `takeover kernel build` made.
		find "$(dirname "$2")/modules" -name '*.ko' >modules.order
		printf 'modules_install:\n\tmkdir -p $(INSTALL_MOD_PATH)\n\tcp -a %s/modules/lib $(INSTALL_MOD_PATH)/\n' \
			"$(dirname "$2")" >Makefile
	fi
	echo "$1" >>history
	git add -A
	git -c user.name=bench -c user.email=bench@localhost commit -q -m "$1"
}
commit "c1 good (fixed series)" "$good"
commit "c2 good (fixed series)" "$good"
commit "c3 does not build (no bzImage: must be skipped)"
commit "c4 good (fixed series)" "$good"
commit "c5 bad (known-bad series): the first bad commit" "$bad"
commit "c6 bad (known-bad series)" "$bad"

# The step script a user would write: a tree that does not build is 125;
# takeover run's own exit code (0/1/125) is what bisect reads.
cat >"$out/step.sh" <<EOF
#!/bin/sh
n=\$(git log -1 --format=%s | cut -d' ' -f1)
start=\$(date +%s)
rc=0
"$tk" --quiet run --kernel-tree . --results "$out/runs/\$n" "$scenario" >"$out/\$n.log" 2>&1 || rc=\$?
echo "\$n exit \$rc after \$((\$(date +%s) - start)) s: \$(grep -m1 -E '^(PASS|FAIL|ERROR)' "$out/\$n.log" || tail -n 1 "$out/\$n.log")" >>"$out/steps"
exit \$rc
EOF
chmod +x "$out/step.sh"

t0=$(date +%s)
git bisect start HEAD "$(git rev-list --max-parents=0 HEAD)" >/dev/null
git bisect run "$out/step.sh" >"$out/bisect-run.log" 2>&1 || true
t1=$(date +%s)
git bisect log
echo
echo "steps:"
cat "$out/steps" 2>/dev/null || echo "  (none)"
echo
culprit=$(git show -s --format=%s refs/bisect/bad 2>/dev/null || echo "?")
echo "first bad commit: $culprit"
echo "bisect took $((t1 - t0)) s"
git bisect reset >/dev/null 2>&1
echo "results: $out"
