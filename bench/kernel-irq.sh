#!/usr/bin/env bash
# bench/kernel-irq.sh - where a sampling interrupt's guest instructions go, by function (issue 18
# item 2), for the floor (the same interrupts doing nothing) and each mode.
#
# Boots the test kernel (scripts/kernel-tree's, with the modules scripts/build-modules makes)
# under qemu-system-alpha -icount shift=2 with bench/kirq_guest.c as /init: a register loop,
# run per mode with sampling stopped and started. bench/kirq_trace.py logs QEMU's executed
# blocks (PALcode and kernel only) while sampling runs and prints, per mode, the mean guest
# instructions of a sampling interrupt (from its PALcode entry to its return to the loop), by
# group (PALcode; Linux's interrupt entry and exit; Linux's hrtimer and clock events; axprof.ko;
# axp_interp.ko) and by function, beside the loop's own clock (under -icount the guest clock
# counts instructions: 4 ns each). The groups are named from symbols: a Linux function is
# "hrtimer and clock events" when its name says hrtimer, timerqueue, clockevent, tick_program,
# ktime, timekeeping, the qemu clock source or event device, rb-tree or raw spin lock.
#
# Needs the kernel tree: without $BUILD/kernel/linux/.axprof-ready it prints "skipped" (the
# first `make kernel-test` builds it, ~10 minutes). About 20 s. The console stays in
# $BUILD/kernel-irq/console.txt; QEMU's logs (~200 MB) are removed unless KIRQ_KEEP_LOGS=1, with
# which `python3 bench/kirq_trace.py --analyse --system-map $BUILD/kernel/linux/System.map
# --logdir $BUILD/kernel-irq --top 40` reads them again. Environment: BUILD, KIRQ_MODES (default
# floor,cycles,vprof,vreplay), KIRQ_N (loop iterations per window, default 4000000: ~0.13 s of
# guest time, ~700 interrupts), KIRQ_TOP (functions listed per mode, default 12).
set -euo pipefail
case ${1:-} in
-h | --help) sed -n '2,22p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
"") ;;
*) echo "kernel-irq: no arguments (try --help; the environment sets the modes and lengths)" >&2; exit 2 ;;
esac
cd "$(dirname "$0")/.."
build=${BUILD:-build}
kdir=$build/kernel/linux
out=$build/kernel-irq
if [ ! -f "$kdir/.axprof-ready" ]; then
	echo "kernel-irq: skipped: no kernel tree in $kdir (make kernel-test builds it, ~10 minutes)"
	exit 0
fi
BUILD=$build scripts/build-modules "$kdir" >/dev/null
make -s --no-print-directory BUILD="$build" "$out/init"
scripts/kernel-initramfs -o "$out/initrd.cpio" -k "$kdir" "/init=$out/init" \
	"/modules/axp_interp.ko=$build/modules/axp_interp.ko" \
	"/modules/axprof.ko=$build/modules/axprof.ko"
rm -f "$out"/log-*.txt
rc=0
python3 bench/kirq_trace.py --vmlinux "$kdir/vmlinux" --system-map "$kdir/System.map" \
	--initrd "$out/initrd.cpio" --logdir "$out" --modes "${KIRQ_MODES:-floor,cycles,vprof,vreplay}" \
	--n "${KIRQ_N:-4000000}" --top "${KIRQ_TOP:-12}" || rc=$?
[ "${KIRQ_KEEP_LOGS:-0}" = 1 ] || rm -f "$out"/log-*.txt
exit "$rc"
