#!/bin/bash
# build-image.sh OUTDIR [GUEST_BIN_DIR]
#
# Builds the takeover guest image (Debian 12, systemd, Pacemaker/Corosync, NFS)
# from images/packages.list and images/overlay/, with mmdebstrap, as root.
#
# OUTDIR receives:
#   base.raw        ext4 root file system (no partition table; root=/dev/vda)
#   vmlinuz         kernel for direct kernel boot
#   initrd.img      initramfs with the virtio drivers
#   kernel-release  e.g. 6.1.0-37-cloud-amd64
#   packages.txt    name=version of every installed package
#   build.log       full log of the build
# GUEST_BIN_DIR (optional, may be empty or absent): regular files copied to
# /usr/local/bin in the guest (the static guest programs).
#
# The Debian archive is the one this machine's apt uses: its URIs are read
# from /etc/apt/sources.list.d/*.sources and /etc/apt/sources.list{,.d/*.list}.
#
# Environment: TAKEOVER_IMAGE_TRIM=0 skips the boot trimming (for measuring
# what it buys); TAKEOVER_IMAGE_SUITE (default bookworm); TAKEOVER_APT_DIR
# (default /etc/apt: where the apt sources are read, for tests).
#
# Exit status: 0 built; 2 bad usage; 125 could not build (no Debian source,
# archive unreachable, package missing, any other build failure). On failure
# one line on stderr says why; the details are in OUTDIR/build.log.
set -Eeuo pipefail

PROG=build-image
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
SUITE=${TAKEOVER_IMAGE_SUITE:-bookworm}
TRIM=${TAKEOVER_IMAGE_TRIM:-1}
APT_DIR=${TAKEOVER_APT_DIR:-/etc/apt}
OVERLAY=$HERE/overlay
PKGLIST=$HERE/packages.list

usage() {
	echo "usage: $PROG OUTDIR [GUEST_BIN_DIR]" >&2
	exit 2
}

LOG=/dev/null
PHASE=start
ROOTFS=

fail() {
	trap - ERR
	echo "$PROG: FAILED: $* (log: $LOG)" >&2
	[[ $LOG == /dev/null ]] || printf '\n== FAILED: %s\n' "$*" >>"$LOG"
	exit 125
}

phase() {
	PHASE=$1
	echo "$PROG: $*"
	printf '\n== %s %s\n' "$(date +%T)" "$*" >>"$LOG"
}

# Run a command with all its output in the log.
run() {
	printf '+ %s\n' "$*" >>"$LOG"
	"$@" >>"$LOG" 2>&1
}

in_root() {
	run chroot "$ROOTFS" "$@"
}

cleanup() {
	local rc=$?
	if [[ -n $ROOTFS && -d $ROOTFS ]]; then
		# mmdebstrap unmounts what it mounted; never delete through a mount.
		if grep -q " $ROOTFS/" /proc/mounts; then
			echo "$PROG: warning: mounts left under $ROOTFS, not removing it" >&2
		else
			rm -rf --one-file-system "$ROOTFS"
		fi
	fi
	exit "$rc"
}

# Print "URI SUITE" for every Debian archive entry of this machine's apt
# sources ("deb" type, component main). An entry counts as Debian when it is
# signed by debian-archive-keyring, or its URI path ends in /debian or
# /debian-security, or it lists a SUITE suite (third-party repositories use
# their own suites, keys and paths). Suites of another Debian release are
# mapped to SUITE, SUITE-updates, SUITE-security; backports are left out.
debian_sources() {
	local f
	shopt -s nullglob
	for f in "$APT_DIR"/sources.list.d/*.sources; do
		grep -v '^[[:space:]]*#' "$f" | awk -v want="$SUITE" '
		BEGIN { RS = ""; FS = "\n" }
		{
			delete fld; key = ""
			for (i = 1; i <= NF; i++) {
				line = $i
				if (line ~ /^[ \t]/) { if (key != "") fld[key] = fld[key] " " line; continue }
				p = index(line, ":"); if (!p) continue
				key = tolower(substr(line, 1, p - 1)); fld[key] = substr(line, p + 1)
			}
			if (tolower(fld["enabled"]) ~ /no/) next
			if (fld["types"] !~ /(^|[ \t])deb([ \t]|$)/) next
			if (fld["components"] !~ /(^|[ \t])main([ \t]|$)/) next
			signed = (fld["signed-by"] ~ /debian-archive-keyring/)
			nu = split(fld["uris"], u, /[ \t]+/); ns = split(fld["suites"], s, /[ \t]+/)
			for (k = 1; k <= nu; k++) {
				if (u[k] == "") continue
				debian = signed || u[k] ~ /\/debian(-security)?\/?$/
				for (j = 1; j <= ns; j++) {
					st = map(s[j], debian); if (st != "") print u[k], st
				}
			}
		}
		function map(st, debian) {
			if (st ~ "^" want "(-updates|-security)?$") return st
			if (!debian) return ""
			if (st ~ /(backports|proposed|sid|unstable|experimental)/) return ""
			if (st ~ /-updates$/) return want "-updates"
			if (st ~ /(-security|\/updates)$/) return want "-security"
			if (st ~ /^[a-z]+$/) return want
			return ""
		}'
	done
	for f in "$APT_DIR"/sources.list "$APT_DIR"/sources.list.d/*.list; do
		[[ -r $f ]] || continue
		awk -v want="$SUITE" '
		$1 != "deb" { next }
		{
			opts = ""; i = 2
			if ($2 ~ /^\[/) { while (i <= NF && $i !~ /\]$/) { opts = opts " " $i; i++ }; opts = opts " " $i; i++ }
			uri = $i; st = $(i + 1); main = 0
			for (j = i + 2; j <= NF; j++) if ($j == "main") main = 1
			if (!main) next
			debian = (opts ~ /debian-archive-keyring/ || uri ~ /\/debian(-security)?\/?$/)
			if (st ~ "^" want "(-updates|-security)?$") { print uri, st; next }
			if (!debian || st ~ /(backports|proposed|sid|unstable|experimental)/) next
			if (st ~ /-updates$/) print uri, want "-updates"
			else if (st ~ /(-security|\/updates)$/) print uri, want "-security"
			else if (st ~ /^[a-z]+$/) print uri, want
		}' "$f"
	done
}

# Turn mmdebstrap's log into one line saying why it failed.
mmdebstrap_failure() {
	local l
	if l=$(grep -m1 -oE "Unable to locate package [^ ]+|Package '[^']+' has no installation candidate" "$LOG"); then
		echo "package missing from the Debian archive: ${l}"
	elif l=$(grep -m1 -E "Could not resolve|Temporary failure resolving|Could not connect|Failed to fetch|Connection (failed|refused|timed out)|Unable to connect|does not have a Release file|Network is unreachable" "$LOG"); then
		echo "Debian archive unreachable: $(echo "$l" | sed 's/^[[:space:]]*//' | cut -c1-160)"
	elif l=$(grep -m1 -E "^E: " "$LOG"); then
		echo "mmdebstrap: ${l#E: }"
	else
		echo "mmdebstrap failed"
	fi
}

# Boot trimming. Under TCG every process a boot spawns costs ~0.1-0.5 s of the
# single vCPU, so what does not serve the cluster goes.
# Units masked (-> /dev/null):
MASK_UNITS=(
	# periodic maintenance: useless in a VM that lives for minutes
	apt-daily.timer apt-daily-upgrade.timer apt-daily.service apt-daily-upgrade.service
	dpkg-db-backup.timer dpkg-db-backup.service
	e2scrub_all.timer e2scrub_all.service e2scrub_reap.service
	fstrim.timer fstrim.service man-db.timer man-db.service
	logrotate.timer logrotate.service systemd-tmpfiles-clean.timer
	systemd-timesyncd.service
	# only the serial console matters; no VT gettys
	getty@tty1.service getty@tty2.service getty@tty3.service
	getty@tty4.service getty@tty5.service getty@tty6.service getty-static.service
	# logind: no seats, no user sessions (see docs/image.md: the ACPI power
	# button is then ignored; power off through the guest agent or the console)
	systemd-logind.service
	# ha_logd from cluster-glue: Pacemaker logs to the journal itself
	logd.service
	# pNFS block layout client
	nfs-blkmap.service
	# boot bookkeeping nobody reads in a test VM
	systemd-update-utmp.service systemd-update-utmp-runlevel.service
	systemd-journal-flush.service systemd-random-seed.service
	# root is mounted rw by the kernel and fstab is empty; no modules-load.d
	# entries; only root logs in (pam_nologin lets root in regardless)
	systemd-remount-fs.service systemd-modules-load.service
	systemd-user-sessions.service
	systemd-pstore.service systemd-firstboot.service
	systemd-binfmt.service proc-sys-fs-binfmt_misc.automount
	# kernel modules and pseudo file systems the cluster does not use
	modprobe@drm.service modprobe@configfs.service modprobe@dm_mod.service
	modprobe@efi_pstore.service modprobe@fuse.service modprobe@loop.service
	dev-hugepages.mount dev-mqueue.mount sys-fs-fuse-connections.mount
	sys-kernel-config.mount
	kmod-static-nodes.service
)
# Enabled units disabled (still startable on demand):
DISABLE_UNITS=(
	# Pacemaker's nfsserver agent owns the NFS server
	nfs-server.service
	# NFS client helpers start on demand (mount.nfs starts statd itself)
	nfs-client.target
)
# Generators that find nothing to do in this image (no LUKS, no GPT
# auto-discovery, no hibernation, no SysV-only scripts, no rc.local, no
# /etc/exports (Pacemaker's exportfs)). The getty generator is replaced by
# serial-getty@ttyS0 enabled statically. rpc-pipefs-generator stays: Debian's
# /etc/nfs.conf moves rpc_pipefs to /run/rpc_pipefs, and only the generated
# run-rpc_pipefs.mount puts it there; without it nfsdcld and rpc.idmapd fail
# to start and nfsd falls back to the old usermode client tracking.
MASK_GENERATORS=(
	nfs-server-generator systemd-getty-generator
	systemd-cryptsetup-generator systemd-gpt-auto-generator
	systemd-hibernate-resume-generator systemd-integritysetup-generator
	systemd-veritysetup-generator systemd-rc-local-generator
	systemd-run-generator systemd-system-update-generator
	systemd-sysv-generator
)

trim_boot() {
	local g
	in_root systemctl mask "${MASK_UNITS[@]}"
	in_root systemctl disable "${DISABLE_UNITS[@]}"
	in_root systemctl enable serial-getty@ttyS0.service
	# Debian starts dbus statically from multi-user.target; socket activation
	# (dbus.socket) starts it when a client first needs it.
	run rm -f "$ROOTFS/lib/systemd/system/multi-user.target.wants/dbus.service"
	# pacemaker.service Wants=dbus.service, so even a pacemaker skipped by its
	# condition (no corosync.conf) drags dbus-daemon into every boot, ahead of
	# multi-user.target. Pacemaker reaches D-Bus through dbus.socket anyway;
	# shadow the unit with a copy, made from the packaged one, without that Wants.
	sed '/^Wants=dbus\.service$/d' "$ROOTFS/lib/systemd/system/pacemaker.service" \
		>"$ROOTFS/etc/systemd/system/pacemaker.service"
	# serial-getty@.service binds to dev-ttyS0.device, which appears only when
	# udev's coldplug reaches ttyS0 (~200 devices, seconds under TCG), and
	# multi-user.target waits for the getty. /dev/ttyS0 exists (devtmpfs) long
	# before: a ttyS0 instance unit, made from the template, without that wait.
	sed -e '/^BindsTo=dev-%i\.device$/d' -e 's/^After=dev-%i\.device /After=/' \
		"$ROOTFS/lib/systemd/system/serial-getty@.service" \
		>"$ROOTFS/etc/systemd/system/serial-getty@ttyS0.service"
	if grep -q 'dev-%i' "$ROOTFS/etc/systemd/system/serial-getty@ttyS0.service"; then
		fail "serial-getty@.service changed: cannot drop its device dependency"
	fi
	mkdir -p "$ROOTFS/etc/systemd/system-generators"
	for g in "${MASK_GENERATORS[@]}"; do
		ln -sfn /dev/null "$ROOTFS/etc/systemd/system-generators/$g"
	done
}

main() {
	[[ $# -ge 1 && $# -le 2 ]] || usage
	local outdir=$1 bindir=${2:-}
	[[ $outdir != -* ]] || usage

	mkdir -p "$outdir" || fail "cannot create $outdir"
	outdir=$(cd "$outdir" && pwd)
	LOG=$outdir/build.log
	: >"$LOG"
	trap 'fail "phase \"$PHASE\" failed at line $LINENO"' ERR
	trap cleanup EXIT

	[[ $EUID -eq 0 ]] || fail "must run as root (mmdebstrap --mode=root, chroot)"
	local t
	for t in mmdebstrap mkfs.ext4 chroot du; do
		command -v "$t" >/dev/null || fail "$t not installed"
	done
	[[ -d $OVERLAY && -r $PKGLIST ]] || fail "recipe incomplete: need $PKGLIST and $OVERLAY"
	[[ -z $bindir || -d $bindir || ! -e $bindir ]] || fail "GUEST_BIN_DIR $bindir is not a directory"

	phase sources "(this machine's apt sources)"
	local -a mirrors=()
	local uri st
	while read -r uri st; do
		mirrors+=("deb $uri $st main")
		echo "source: deb $uri $st main" >>"$LOG"
	done < <(debian_sources | awk '!seen[$0]++')
	((${#mirrors[@]})) || fail "no Debian archive source for $SUITE in $APT_DIR/sources.list{,.d/*}"

	local pkgs
	pkgs=$(sed 's/#.*//' "$PKGLIST" | tr -s ' \t' '\n\n' | grep -v '^$' | paste -sd, -)
	[[ -n $pkgs ]] || fail "$PKGLIST lists no package"

	phase mmdebstrap "$SUITE minbase, $(tr , '\n' <<<"$pkgs" | wc -l) packages"
	ROOTFS=$(mktemp -d "$outdir/.rootfs.XXXXXX")
	export TAKEOVER_OVERLAY=$OVERLAY
	# The initramfs settings must be in place before the kernel package builds
	# the initramfs, so they go in before the --include packages.
	if ! run mmdebstrap --mode=root --variant=minbase --format=directory \
		--architectures=amd64 --verbose \
		--aptopt='APT::Install-Recommends "false"' \
		--aptopt='APT::Install-Suggests "false"' \
		--dpkgopt='path-exclude=/usr/share/man/*' \
		--dpkgopt='path-exclude=/usr/share/info/*' \
		--dpkgopt='path-exclude=/usr/share/locale/*' \
		--dpkgopt='path-include=/usr/share/locale/locale.alias' \
		--dpkgopt='path-exclude=/usr/share/doc/*' \
		--dpkgopt='path-include=/usr/share/doc/*/copyright' \
		--include="$pkgs" \
		--essential-hook='mkdir -p "$1/etc/initramfs-tools" && cp -a --no-preserve=ownership "$TAKEOVER_OVERLAY/etc/initramfs-tools/." "$1/etc/initramfs-tools/"' \
		"$SUITE" "$ROOTFS" "${mirrors[@]}"; then
		fail "$(mmdebstrap_failure)"
	fi

	phase overlay "images/overlay${bindir:+ + $bindir}"
	run cp -a --no-preserve=ownership "$OVERLAY/." "$ROOTFS/"
	if [[ -n $bindir && -d $bindir ]]; then
		local f
		for f in "$bindir"/*; do
			[[ -f $f ]] || continue
			run install -m 0755 "$f" "$ROOTFS/usr/local/bin/"
		done
	fi

	phase configure "root login, units, machine-id"
	# Corosync starts only when takeover-config brought a corosync.conf.
	run rm -f "$ROOTFS/etc/corosync/corosync.conf"
	in_root passwd -d root
	in_root systemctl set-default multi-user.target
	in_root systemctl enable takeover-config.service takeover-ready.service \
		corosync.service pacemaker.service
	# The initial CIB (images/overlay/var/lib/pacemaker/cib/cib.xml) must be
	# Pacemaker's own, as the package leaves its directory.
	in_root chown -R hacluster:haclient /var/lib/pacemaker/cib
	in_root chmod 0750 /var/lib/pacemaker/cib
	in_root chmod 0600 /var/lib/pacemaker/cib/cib.xml
	# Pacemaker's nfsserver agent owns the NFS server.
	in_root systemctl disable nfs-server.service
	# A machine-id in the image: an empty one makes every boot a "first boot"
	# (presets, ConditionFirstBoot units). All nodes share it; the harness can
	# pass systemd.machine_id= per node if it ever matters.
	od -An -N16 -tx1 /dev/urandom | tr -d ' \n' >"$ROOTFS/etc/machine-id"
	echo >>"$ROOTFS/etc/machine-id"
	# No DNS in the isolated cluster network; names come from /etc/hosts.
	rm -f "$ROOTFS/etc/resolv.conf"
	echo "# takeover: no DNS; cluster names are in /etc/hosts" >"$ROOTFS/etc/resolv.conf"

	if [[ $TRIM != 0 ]]; then
		phase trim "mask ${#MASK_UNITS[@]} units, ${#MASK_GENERATORS[@]} generators"
		trim_boot
	fi

	# ConditionNeedsUpdate=/etc,/var units (ldconfig, hwdb, journal catalog)
	# would run on first boot: the image is already up to date.
	touch "$ROOTFS/etc/.updated" "$ROOTFS/var/.updated"

	phase kernel "vmlinuz, initrd.img"
	local kver
	kver=$(ls "$ROOTFS/lib/modules")
	[[ $(wc -w <<<"$kver") -eq 1 ]] || fail "expected one kernel in the image, found: $kver"
	[[ -r $ROOTFS/boot/vmlinuz-$kver && -r $ROOTFS/boot/initrd.img-$kver ]] ||
		fail "kernel or initramfs missing in /boot"
	local listing
	listing=$(chroot "$ROOTFS" lsinitramfs "/boot/initrd.img-$kver" 2>>"$LOG")
	grep -q '/virtio_blk\.ko' <<<"$listing" || fail "initramfs lacks virtio_blk"
	cp "$ROOTFS/boot/vmlinuz-$kver" "$outdir/vmlinuz.tmp"
	cp "$ROOTFS/boot/initrd.img-$kver" "$outdir/initrd.img.tmp"
	echo "$kver" >"$outdir/kernel-release.tmp"
	dpkg-query --admindir="$ROOTFS/var/lib/dpkg" -W -f '${Package}=${Version}\n' |
		sort >"$outdir/packages.txt.tmp"

	local used_mb nfiles size_mb
	used_mb=$(du -s -x --block-size=1M "$ROOTFS" | cut -f1)
	nfiles=$(find "$ROOTFS" -xdev | wc -l)
	size_mb=$((used_mb * 14 / 10 + 64))
	phase image "base.raw ${size_mb} MiB (content ${used_mb} MiB, $nfiles files)"
	rm -f "$outdir/base.raw.tmp"
	run mkfs.ext4 -F -q -L takeover-root -m 0 -i 8192 -d "$ROOTFS" \
		"$outdir/base.raw.tmp" "${size_mb}M"
	local f
	for f in vmlinuz initrd.img kernel-release packages.txt base.raw; do
		mv -f "$outdir/$f.tmp" "$outdir/$f"
	done
	echo "$PROG: done: $outdir (kernel $kver, $(wc -l <"$outdir/packages.txt") packages)"
}

main "$@"
