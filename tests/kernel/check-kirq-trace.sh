#!/usr/bin/env bash
# tests/kernel/check-kirq-trace.sh - bench/kirq_trace.py's count of a sampling interrupt's guest
# instructions (issue 18 item 2), on a made-up System.map, console and QEMU log whose answer is
# known: blocks sized by their longest translation, a block cut by -icount (cflags' count), a
# block left by an exception counted to the faulting instruction, an interrupt shared with
# Linux's tick left out, interrupts nested in a system call and in an interpretation counted
# apart from them, and the first and last piece of the window dropped. Needs no kernel.
set -euo pipefail
cd "$(dirname "$0")/../.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
bad() { echo "check-kirq-trace: FAIL: $*"; fail=1; }

cat >"$tmp/System.map" <<'MAP'
fffffc0000310000 T _stext
fffffc0000311010 T entInt
fffffc00003114b0 T entSys
fffffc0000311600 t restore_all
fffffc0000320000 T do_entInt
fffffc0000321000 T hrtimer_interrupt
fffffc0000322000 T tick_sched_timer
fffffc0000323000 T sys_ioctl
MAP
printf 'KIRQ-SYM fffffffc00001000 t tick\t[axprof]\nKIRQ-SYM fffffffc00002000 t vs_obs_insn\t[axprof]\n' \
	>"$tmp/console.txt"
printf 'KIRQ-SYM fffffffc00003000 t axp_run\t[axp_interp]\nKIRQ-TIME floor 100000000 100360000 4\nKIRQ-DONE\n' \
	>>"$tmp/console.txt"

# in_asm: a block of N instructions at PC (QEMU's format: IN:, then one line per instruction).
block() {
	local pc=$1 n=$2 i
	echo "----------------"
	echo "IN: "
	for ((i = 0; i < n; i++)); do printf '0x%016x:  nop\n' $((pc + 4 * i)); done
	echo
}
pal_in=0xfffffc0000003000 pal_rti=0xfffffc0000003100 pal_dtb=0xfffffc0000003200
{
	block $pal_in 10
	block $pal_rti 3
	block $pal_dtb 10
	block 0xfffffc0000311010 5      # entInt
	block 0xfffffc0000320000 20     # do_entInt
	block 0xfffffc0000320020 12     # do_entInt resumed at its 9th instruction
	block 0xfffffc0000321000 4      # hrtimer_interrupt: a translation cut short...
	block 0xfffffc0000321000 30     # ... and the whole block (the longest counts)
	block 0xfffffc0000322000 40     # tick_sched_timer
	block 0xfffffc0000323000 9      # sys_ioctl
	block 0xfffffc00003114b0 7      # entSys
	block 0xfffffffc00001000 12     # tick [axprof]
	block 0xfffffffc00003000 50     # axp_run [axp_interp]
	block 0xfffffc0000311600 6      # restore_all
} >"$tmp/log-0-boot.txt"

# exec: one block executed (cflags' low 9 bits: the count -icount cut it to).
tb() { printf 'Trace 0: 0x7f0000001000 [0000000000000000/%016x/01000000/%08x] \n' "$1" "${2:-0xff020000}"; }
irq() { # an interrupt from user mode: PALcode entry, the kernel, PALcode return
	tb $pal_in; tb 0xfffffc0000311010; tb 0xfffffc0000320000; "$@"; tb 0xfffffc0000311600; tb $pal_rti
}
plain() { tb 0xfffffc0000321000; tb 0xfffffffc00001000; }
{
	tb 0xfffffc0000321000; tb 0xfffffc0000311600; tb $pal_rti # the end of an interrupt: dropped
	irq plain                                                  # 10+5+20+30+12+6+3 = 86
	irq tb 0xfffffc0000321000 0xff020007                       # hrtimer cut to 7: 63 (no tick: other)
	irq eval 'tb 0xfffffc0000321000 0xff020007; tb 0xfffffffc00001000' # cut: 86 - 30 + 7 = 63
	irq eval 'tb 0xfffffc0000322000; plain'                    # shared with Linux's tick: left out
	# do_entInt left at its 9th instruction by a DTB miss, resumed there: 8 + 10 + 12 counted.
	tb $pal_in; tb 0xfffffc0000311010; tb 0xfffffc0000320000; tb $pal_dtb; tb 0xfffffc0000320020
	plain; tb 0xfffffffc00003000; tb 0xfffffc0000311600; tb $pal_rti # 10+5+8+10+12+30+12+50+6+3 = 146
	# A system call with an interrupt in it (86), then its rest and return: a piece, not a sample.
	tb 0xfffffc00003114b0; irq plain; tb 0xfffffc0000323000; tb 0xfffffc0000311600; tb $pal_rti
	# An interpretation interrupted by a sampling interrupt (86) goes on after it:
	# 10+5+20+30+12+50+50+6+3 = 186.
	tb $pal_in; tb 0xfffffc0000311010; tb 0xfffffc0000320000; plain; tb 0xfffffffc00003000
	irq plain
	tb 0xfffffffc00003000; tb 0xfffffc0000311600; tb $pal_rti
	irq plain # the last piece: dropped
} >"$tmp/log-1-floor.txt"

out=$(python3 bench/kirq_trace.py --system-map "$tmp/System.map" --logdir "$tmp" --analyse \
	--modes floor --top 20) || bad "kirq_trace.py --analyse failed: $out"
# (86 + 63 + 146 + 86 + 86 + 186) / 6 = 108.8
want="floor: 6 sampling interrupts traced (1 shared with Linux's tick left out): 109 guest instructions each"
echo "$out" | grep -qF "$want" || bad "wanted '$want' in: $out"
echo "$out" | grep -qF "1 blocks left by an exception" || bad "the resumed block is not counted so: $out"
echo "$out" | grep -qF "the loop's clock: 22,500 each over 4 interrupts (+0.36%)" ||
	bad "the clock's figure (360000 ns / 4 ns / 4) is not printed: $out"
# Per interrupt: PALcode (13 + 13 + 23 + 13 + 13 + 13) / 6 = 14.7; axp_interp.ko 150 / 6 = 25.
echo "$out" | grep -qE "^  PALcode +14\.7$" || bad "PALcode per interrupt is not 14.7: $out"
echo "$out" | grep -qE "^  axp_interp.ko +25\.0$" || bad "axp_interp.ko per interrupt is not 25.0: $out"
echo "$out" | grep -qE "^  2 interpreted: 166 each; 4 did not: 80 each$" ||
	bad "the interpreted split is not 166 / 80: $out"
# A window that never reached the callback says so and fails.
grep -v 'fffffffc00001000' "$tmp/log-1-floor.txt" >"$tmp/nocb" && mv "$tmp/nocb" "$tmp/log-1-floor.txt"
if out=$(python3 bench/kirq_trace.py --system-map "$tmp/System.map" --logdir "$tmp" --analyse \
	--modes floor 2>&1); then
	bad "a window with no sampling interrupt passes: $out"
fi
echo "$out" | grep -qF "no sampling interrupt in the trace" || bad "no clear message: $out"
# Bad input: no console.
rm "$tmp/console.txt"
if out=$(python3 bench/kirq_trace.py --system-map "$tmp/System.map" --logdir "$tmp" --analyse 2>&1); then
	bad "a log directory without console.txt passes"
fi
echo "$out" | grep -qF "run without --analyse first" || bad "no clear message for a missing console: $out"
[ "$fail" = 0 ] && echo "check-kirq-trace: ok"
exit "$fail"
