#!/usr/bin/env bash
# tests/kernel/kernel-tree-config.sh - scripts/kernel-tree's configuration stamp (issue 17): a tree
# whose configuration lacks SMP, has another NR_CPUS or misses an option the kernel test needs is
# told apart from the SMP tree (kernel-tree then reconfigures and rebuilds it). Needs no kernel.
set -euo pipefail
cd "$(dirname "$0")/../.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
bad() { echo "kernel-tree-config: FAIL: $*"; fail=1; }

# A configuration with every required setting (as auto.conf lists them: only the set options).
good=$tmp/good
for o in BLK_DEV_INITRD HIGH_RES_TIMERS PERF_EVENTS DEVTMPFS DEVTMPFS_MOUNT MODULES MODULE_UNLOAD \
	TTY SERIAL_8250 SERIAL_8250_CONSOLE PROC_FS SYSFS TMPFS BLK_DEV VIRTIO_BLK VIRTIO_PCI EXT2_FS \
	DEBUG_KERNEL SMP; do
	echo "CONFIG_$o=y"
done >"$good"
echo "CONFIG_NR_CPUS=4" >>"$good"
scripts/kernel-tree --check-config "$good" 2>"$tmp/err" || bad "the SMP configuration is refused: $(cat "$tmp/err")"

# expect FILE WHY: refused, naming WHY.
expect() {
	if scripts/kernel-tree --check-config "$1" 2>"$tmp/err"; then
		bad "$(basename "$1") is accepted (wanted: $2)"
	elif ! grep -q "$2" "$tmp/err"; then
		bad "$(basename "$1"): '$(cat "$tmp/err")' does not say '$2'"
	fi
}
grep -v '^CONFIG_SMP=' "$good" >"$tmp/up"
expect "$tmp/up" "CONFIG_SMP is not y"
sed 's/^CONFIG_NR_CPUS=4$/CONFIG_NR_CPUS=32/' "$good" >"$tmp/nr32"
expect "$tmp/nr32" "CONFIG_NR_CPUS is not 4"
grep -v '^CONFIG_VIRTIO_BLK=' "$good" >"$tmp/novirtio"
expect "$tmp/novirtio" "CONFIG_VIRTIO_BLK is not y"
{ cat "$good"; echo "CONFIG_LOCALVERSION_AUTO=y"; } >"$tmp/lvauto"
expect "$tmp/lvauto" "CONFIG_LOCALVERSION_AUTO is set"
expect "$tmp/missing" "no missing"
# A .config with "# CONFIG_SMP is not set" (make's form) is the uniprocessor tree too.
{ grep -v '^CONFIG_SMP=' "$good"; echo "# CONFIG_SMP is not set"; } >"$tmp/upconfig"
expect "$tmp/upconfig" "CONFIG_SMP is not y"

if [ $fail = 0 ]; then echo "kernel-tree-config: PASS (SMP tree accepted; UP, NR_CPUS=32, missing options refused)"; fi
exit $fail
