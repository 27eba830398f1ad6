#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# config.sh RENDER SOURCE...: the guest kernel's configuration for every
# supported source, rendered and checked without a build. For each SOURCE
# (debian-6.1 is /usr/src/linux-source-6.1.tar.xz) and each variant (default,
# --debug), RENDER (tests/kernel/config-render.c: kernel_configure(), the
# configuration step of `takeover kernel build` itself) runs defconfig +
# kvm_guest.config, merges the fragments the source's version chooses, runs
# olddefconfig and check-config.sh. Then, independently of the fragments:
#   - the option the tree's own qemu_fw_cfg.c guards its vmcoreinfo export
#     with (CRASH_CORE before 6.9, VMCORE_INFO since) is =y: host-side dumps
#     stay readable by crash(8);
#   - CONFIG_NFS_LOCALIO=y exactly when the tree's fs/Kconfig defines it;
#   - check-config.sh still fails on this .config for a request that cannot
#     stick (an option no tree defines, one asked the other way round).
#
# Unpacked sources are cached (a tarball takes 15-20 s to unpack, a render
# 20-25 s) under $TAKEOVER_CACHE_DIR/kernel-sources/ (default
# /var/cache/takeover), one tree per tarball, keyed by its size and mtime: an
# upgraded linux-source package replaces its tree. The trees are never
# written to (make O=). About 2 min the first time, 1.5 min after.
set -euo pipefail

RENDER=${1:?usage: config.sh RENDER SOURCE...}
shift
[ $# -gt 0 ] || { echo "usage: config.sh RENDER SOURCE..." >&2; exit 2; }
HERE=$(cd "$(dirname "$0")" && pwd)
CHECK=$HERE/../../images/kernel/check-config.sh
CACHE=${TAKEOVER_CACHE_DIR:-/var/cache/takeover}/kernel-sources
PASS=0
FAIL=0

ok() { PASS=$((PASS + 1)); echo "ok - $*"; }
not_ok() { FAIL=$((FAIL + 1)); echo "not ok - $*"; }
elapsed() { echo "$(($(date +%s) - $1)) s"; }

work=$(mktemp -d "${TMPDIR:-/tmp}/takeover-kconfig.XXXXXX")
trap 'rm -rf "$work"' EXIT

# tree SOURCE: prints the cached unpacked tree of SOURCE, unpacking it first when needed.
tree() {
	local name=linux-source-${1#debian-} tar dir tmp start
	tar=/usr/src/$name.tar.xz
	if [ ! -r "$tar" ]; then
		echo "$tar: missing (apt-get install $name; ./bootstrap deps installs it)" >&2
		return 1
	fi
	dir=$CACHE/$name-$(stat -c %s-%Y "$tar")
	if [ ! -f "$dir/Makefile" ]; then
		start=$(date +%s)
		tmp=$CACHE/.tmp-$name-$$
		# (set -e does not hold here: tree runs as an if's condition)
		mkdir -p "$CACHE" || return 1
		rm -rf "$tmp" "$CACHE/$name"-* && mkdir "$tmp" || return 1
		nice -n 19 tar -xf "$tar" -C "$tmp" --strip-components=1 || { rm -rf "$tmp"; return 1; }
		# Another run may have won the race: its tree is as good as ours.
		mv -T "$tmp" "$dir" 2>/dev/null || rm -rf "$tmp"
		[ -f "$dir/Makefile" ] || return 1
		echo "# unpacked $tar into $dir in $(elapsed "$start")" >&2
	fi
	echo "$dir"
}

# value DOTCONFIG NAME: y, m, a value, or "absent"
value() {
	local v
	v=$(sed -n "s/^CONFIG_$2=//p" "$1")
	echo "${v:-absent}"
}

for source in "$@"; do
	if ! src=$(tree "$source"); then
		not_ok "$source: no source tree"
		continue
	fi
	for variant in default debug; do
		obj=$work/$source-$variant
		args=()
		[ "$variant" = debug ] && args=(--debug)
		start=$(date +%s)
		if out=$(nice -n 19 "$RENDER" "${args[@]}" "$src" "$obj"); then
			ok "$source $variant: every requested option stuck ($out; $(elapsed "$start"))"
		else
			not_ok "$source $variant: the config check failed ($out; $(elapsed "$start"))"
			grep -sE '^CONFIG_[A-Za-z0-9_]+: wanted' "$obj/config.log" | sed 's/^/#   /' || true
			continue
		fi
		dotconfig=$obj/.config

		guard=$(grep -B2 '^static ssize_t fw_cfg_write_vmcoreinfo' "$src/drivers/firmware/qemu_fw_cfg.c" |
			grep -o 'CONFIG_[A-Z0-9_]*' | tail -n1 || true)
		if [ -z "$guard" ]; then
			not_ok "$source $variant: no #ifdef CONFIG_... before fw_cfg_write_vmcoreinfo in qemu_fw_cfg.c"
		elif [ "$(value "$dotconfig" "${guard#CONFIG_}")" = y ] &&
		     [ "$(value "$dotconfig" FW_CFG_SYSFS)" = y ]; then
			ok "$source $variant: vmcoreinfo reaches fw_cfg ($guard=y, CONFIG_FW_CFG_SYSFS=y)"
		else
			not_ok "$source $variant: vmcoreinfo does not reach fw_cfg ($guard=$(value "$dotconfig" "${guard#CONFIG_}"), FW_CFG_SYSFS=$(value "$dotconfig" FW_CFG_SYSFS))"
		fi

		want=absent
		grep -q '^config NFS_LOCALIO$' "$src/fs/Kconfig" && want=y
		got=$(value "$dotconfig" NFS_LOCALIO)
		if [ "$got" = "$want" ]; then
			ok "$source $variant: CONFIG_NFS_LOCALIO $got (fs/Kconfig $([ $want = y ] && echo defines || echo "does not define") it)"
		else
			not_ok "$source $variant: CONFIG_NFS_LOCALIO $got, wanted $want"
		fi

		# The check must still be able to fail on a real .config.
		printf '%s\n' CONFIG_TAKEOVER_NO_SUCH_OPTION=y '# CONFIG_NFSD is not set' >"$work/bad.config"
		rc=0
		bad=$(bash "$CHECK" "$work/bad.config" "$dotconfig" 2>&1) || rc=$?
		if [ "$rc" = 1 ] && grep -q '^CONFIG_TAKEOVER_NO_SUCH_OPTION: wanted y, got absent' <<<"$bad" &&
		   grep -q '^CONFIG_NFSD: wanted not set, got y' <<<"$bad"; then
			ok "$source $variant: check-config.sh still rejects requests that did not stick"
		else
			not_ok "$source $variant: check-config.sh accepted impossible requests (exit $rc): $bad"
		fi
	done
done
echo "$PASS passed, $FAIL failed"
[ "$FAIL" -eq 0 ]
