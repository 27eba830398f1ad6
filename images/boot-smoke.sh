#!/bin/bash
# boot-smoke.sh [-t SECONDS] [-a] [-c CMD] [-l CONSOLE_LOG] [-e "KERNEL ARGS"]
#               [-q "QEMU ARGS"] IMAGEDIR
#
# Boots ONE guest from IMAGEDIR (base.raw, vmlinuz, initrd.img as written by
# build-image.sh) with qemu-system-x86_64 under TCG, no network, on a
# throw-away qcow2 overlay; waits for "TAKEOVER-READY multi-user" on the
# serial console, prints the boot time, powers the guest off and exits.
#
#   -t SECONDS   deadline for the boot (default 120; TAKEOVER_BOOT_DEADLINE)
#   -a           also print systemd-analyze (time, blame, critical-chain),
#                typed on the autologin root shell
#   -c CMD       also type CMD on that shell and print its output (implies -a)
#   -l FILE      keep the console log (host-timestamped lines) in FILE
#   -e ARGS      extra kernel command line arguments
#   -q ARGS      extra QEMU arguments (split on blanks), e.g. a config disk;
#                never a NIC with a path off this machine
#
# Exit status: 0 booted and powered off; 1 the guest did not reach the marker
# in time or did not power off within 60 s (QEMU is killed; last 40 console
# lines on stderr); 2 bad usage; 125 could not test (missing image files or
# QEMU).
set -uo pipefail
shopt -s extglob

PROG=boot-smoke
MARKER='TAKEOVER-READY multi-user'
DEADLINE=${TAKEOVER_BOOT_DEADLINE:-120}
ANALYZE=0
KEEPLOG=
EXTRA=
GUESTCMD=
QEMU_EXTRA=

usage() {
	echo "usage: $PROG [-t SECONDS] [-a] [-c CMD] [-l CONSOLE_LOG] [-e \"KERNEL ARGS\"] [-q \"QEMU ARGS\"] IMAGEDIR" >&2
	exit 2
}

while getopts "t:ac:l:e:q:h" opt; do
	case $opt in
	c) GUESTCMD=$OPTARG ANALYZE=1 ;;
	t) DEADLINE=$OPTARG ;;
	a) ANALYZE=1 ;;
	l) KEEPLOG=$OPTARG ;;
	e) EXTRA=$OPTARG ;;
	q) QEMU_EXTRA=$OPTARG ;;
	*) usage ;;
	esac
done
shift $((OPTIND - 1))
[[ $# -eq 1 ]] || usage
[[ $DEADLINE =~ ^[0-9]+$ && $DEADLINE -gt 0 ]] || usage
IMG=$(cd "$1" 2>/dev/null && pwd) || { echo "$PROG: no such directory: $1" >&2; exit 125; }

for f in base.raw vmlinuz initrd.img; do
	[[ -r $IMG/$f ]] || { echo "$PROG: $IMG/$f missing" >&2; exit 125; }
done
for t in qemu-system-x86_64 qemu-img; do
	command -v "$t" >/dev/null || { echo "$PROG: $t not installed" >&2; exit 125; }
done

WORK=$(mktemp -d "${TMPDIR:-/tmp}/takeover-smoke.XXXXXX")
QEMU_PID=
READER_PID=
MON_PID=

cleanup() {
	local p
	for p in $QEMU_PID; do
		kill -KILL "$p" 2>/dev/null
		wait "$p" 2>/dev/null
	done
	for p in $READER_PID $MON_PID; do
		kill "$p" 2>/dev/null
		wait "$p" 2>/dev/null
	done
	if [[ -n $KEEPLOG && -f $WORK/console.log ]]; then
		cp "$WORK/console.log" "$KEEPLOG"
	fi
	rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

now() { echo "$EPOCHREALTIME"; }
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }
alive() { [[ -n $QEMU_PID ]] && kill -0 "$QEMU_PID" 2>/dev/null; }
# Type a line on the guest's serial console / send a monitor command. The
# FIFOs are held open read-write (fds 7, 8): opening one write-only would
# block for ever once QEMU is gone.
type_line() { printf '%s\r' "$1" >&7; }
monitor() { printf '%s\n' "$1" >&8; }

# Wait until the console shows TEXT; the time when it did on stdout.
wait_console() {
	local text=$1 until=$2 t
	while alive; do
		if t=$(grep -F -m1 -- "$text" "$WORK/console.log" | cut -d' ' -f1) && [[ -n $t ]]; then
			echo "$t"
			return 0
		fi
		[[ $(elapsed "$(now)" "$until") == -* ]] && return 1
		sleep 0.2
	done
	return 1
}

qemu-img create -q -f qcow2 -F raw -b "$IMG/base.raw" "$WORK/overlay.qcow2" || exit 125
mkfifo "$WORK/serial.in" "$WORK/serial.out" "$WORK/mon.in" "$WORK/mon.out" || exit 125
exec 7<>"$WORK/serial.in" 8<>"$WORK/mon.in"
: >"$WORK/console.log"

CMDLINE="root=/dev/vda rw console=ttyS0 loglevel=7 net.ifnames=0"
CMDLINE+=" sysctl.kernel.hung_task_timeout_secs=30 takeover.node=n1${EXTRA:+ $EXTRA}"

T0=$(now)
# -nodefaults: no VGA (no DRM driver to load under TCG), no default NIC;
# -nic none: the guest has no network path at all.
qemu-system-x86_64 -nodefaults -no-user-config -display none -no-reboot \
	-machine q35 -accel tcg,tb-size=128 -m 768 -smp 1 \
	-kernel "$IMG/vmlinuz" -initrd "$IMG/initrd.img" -append "$CMDLINE" \
	-drive "file=$WORK/overlay.qcow2,format=qcow2,if=virtio" \
	-nic none \
	-serial "pipe:$WORK/serial" -monitor "pipe:$WORK/mon" \
	$QEMU_EXTRA \
	>"$WORK/qemu.out" 2>&1 </dev/null 7>&- 8>&- &
QEMU_PID=$!

# Host-timestamped console lines (CR and ANSI colours stripped).
(
	while IFS= read -r line; do
		line=${line//$'\r'/}
		line=${line//$'\e'\[*([0-9;?])[A-Za-z]/}
		printf '%s %s\n' "$EPOCHREALTIME" "$line"
	done <"$WORK/serial.out" >>"$WORK/console.log"
) &
READER_PID=$!
cat "$WORK/mon.out" >"$WORK/monitor.log" &
MON_PID=$!

fail_boot() {
	echo "$PROG: FAILED: $1" >&2
	echo "--- last 40 console lines ---" >&2
	tail -n 40 "$WORK/console.log" | cut -d' ' -f2- >&2
	if ! alive && [[ -s $WORK/qemu.out ]]; then
		echo "--- qemu ---" >&2
		tail -n 10 "$WORK/qemu.out" >&2
	fi
	exit 1
}

if ! T_READY=$(wait_console "$MARKER" "$(awk -v a="$T0" -v d="$DEADLINE" 'BEGIN { printf "%.6f", a + d }')"); then
	if alive; then
		fail_boot "no '$MARKER' within ${DEADLINE}s"
	fi
	fail_boot "qemu exited before '$MARKER'"
fi
echo "$PROG: multi-user after $(elapsed "$T0" "$T_READY") s (TCG, 1 vCPU, 768 MiB)"

if ((ANALYZE)); then
	t_end=$(awk -v a="$(now)" 'BEGIN { printf "%.6f", a + 60 }')
	wait_console "(automatic login)" "$t_end" >/dev/null || fail_boot "no autologin on ttyS0"
	sleep 2
	type_line 'export SYSTEMD_COLORS=0 SYSTEMD_PAGER=cat; systemd-analyze time; systemd-analyze blame | head -n 25; systemd-analyze critical-chain; '"${GUESTCMD:+$GUESTCMD; }"'echo ANALYZE""-DONE'
	if wait_console "ANALYZE-DONE" "$t_end" >/dev/null; then
		awk '/systemd-analyze time; /{on=1; next} /^[^ ]+ ANALYZE-DONE/{on=0} on' "$WORK/console.log" | cut -d' ' -f2-
	else
		echo "$PROG: warning: systemd-analyze did not finish" >&2
	fi
fi

# Power off: ACPI button (handled by systemd-logind when it runs; the image
# masks it) and the command typed on the autologin shell (poweroff.target
# directly: "systemctl poweroff" asks logind first and complains); then quit
# QEMU at the deadline.
POWEROFF='systemctl start --no-block --job-mode=replace-irreversibly poweroff.target'
T_OFF=$(now)
monitor system_powerdown
# Typed before the autologin shell reads the line, it would be lost.
wait_console "(automatic login)" "$(awk -v a="$T_OFF" 'BEGIN { printf "%.6f", a + 20 }')" >/dev/null
sleep 1
type_line "$POWEROFF"
# A node running Pacemaker takes ~20 s to stop under TCG.
for i in $(seq 1 300); do
	alive || break
	sleep 0.2
	case $i in 25 | 75 | 150) type_line "$POWEROFF" ;; esac
done
if alive; then
	monitor quit
	sleep 1
	alive && kill -KILL "$QEMU_PID" 2>/dev/null
	fail_boot "guest did not power off within 60 s (QEMU killed)"
fi
wait "$QEMU_PID" 2>/dev/null
QEMU_PID=
echo "$PROG: powered off after $(elapsed "$T_OFF" "$(now)") s"
exit 0
