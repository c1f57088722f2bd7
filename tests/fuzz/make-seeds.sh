#!/usr/bin/env bash
# tests/fuzz/make-seeds.sh - write the seed corpora of tests/fuzz/corpus/ (run by hand, committed).
#
# Usage: tests/fuzz/make-seeds.sh   (after make all; needs alpha-linux-gnu-gcc)
# fuzz_elf         small Alpha programs built here (static, PIE, dynamic with and without
#                  .symtab) and the CFG fixtures (a shared object, a relocatable object)
# fuzz_truth       `axprof run --cpu ev5 --truth` of the static program and of 400 instructions
#                  of the dynamic one
# fuzz_dmn_stream  `axprof record --save-records` streams (cycles, vprof, vreplay, three events),
#                  at most 16 KB each, after the byte that picks the cut
# fuzz_cfg         code and .rodata of the CFG fixture and of the static program, in the
#                  target's layout (tests/fuzz/fuzz_cfg.c)
# fuzz_opts        command lines of each parser (tests/fuzz/fuzz_opts.c)
# fuzz_ksyms       kallsyms, System.map, /proc/modules and notes text (tests/fuzz/fuzz_ksyms.c)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
BUILD=${BUILD:-$top/build}
ACC=${ACC:-alpha-linux-gnu-gcc}
OBJCOPY=${OBJCOPY:-alpha-linux-gnu-objcopy}
STRIP=${STRIP:-alpha-linux-gnu-strip}
axprof=$BUILD/bin/axprof
c=$here/corpus
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
rm -rf "$c" && mkdir -p "$c"/{fuzz_elf,fuzz_truth,fuzz_dmn_stream,fuzz_cfg,fuzz_opts,fuzz_ksyms}

cat >"$t/tiny.c" <<'C'
static long sys(long n, long a)
{
	register long v0 __asm__("$0") = n;
	register long a0 __asm__("$16") = a;

	__asm__ volatile("callsys" : "+r"(v0) : "r"(a0) : "$19", "memory");
	return v0;
}
static int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
void _start(void)
{
	int s = 0;

	for (int i = 0; i < 12; i++)
		switch (i & 3) {
		case 0: s += fib(i); break;
		case 1: s ^= i; break;
		case 2: s -= 3; break;
		default: s *= 2;
		}
	sys(1, s & 0x7f);
}
C
cat >"$t/hello.c" <<'C'
#include <stdio.h>
#include <string.h>
int main(int argc, char **argv) { printf("%d %zu\n", argc, strlen(argv[0])); return 3; }
C
ldf=(-Wl,--build-id -Wl,-z,max-page-size=0x2000 -Wl,-z,common-page-size=0x2000 -Wl,-z,noseparate-code)
"$ACC" -Os -static -nostdlib "${ldf[@]}" -o "$t/tiny" "$t/tiny.c"
"$ACC" -Os -fPIE -pie -nostdlib "${ldf[@]}" -o "$t/tiny-pie" "$t/tiny.c"
"$ACC" -Os "${ldf[@]}" -o "$t/hello" "$t/hello.c"
"$STRIP" -o "$t/hello-stripped" "$t/hello"
cp "$t/tiny" "$t/tiny-pie" "$t/hello" "$t/hello-stripped" "$c/fuzz_elf/"
cp "$top/tests/analysis/fixtures/cfgtest.so" "$top/tests/analysis/fixtures/cfgtest-sections.o" \
	"$c/fuzz_elf/"

"$axprof" run --cpu ev5 --truth "$c/fuzz_truth/tiny.truth" -- "$t/tiny" >/dev/null || true
"$axprof" run --cpu ev5 --max-insns 400 --truth "$c/fuzz_truth/hello400.truth" -- "$t/hello" \
	>/dev/null 2>&1

rec() { # NAME RECORD-OPTIONS... -- PROG
	local name=$1
	shift
	rm -rf "$t/db"
	"$axprof" record -q -d "$t/db" --save-records "$t/$name.rec" "$@" >/dev/null 2>&1 || true
	{ printf '\200'; head -c 16384 "$t/$name.rec"; } >"$c/fuzz_dmn_stream/$name"
}
rec cycles --period 300-400 -- "$t/hello"
rec vprof --mode vprof --period 300-400 -- "$t/hello"
rec vreplay --mode vreplay --period 300-400 -- "$t/hello"
rec events --mode vreplay --event cycles,imiss,dmiss --period 2000-2100 --period imiss=50-60 \
	--period dmiss=50-60 -- "$BUILD/workloads/storeload"
# Call-stack records (VS_REC_STACK, record -g), alternating with the other records (a -g stream
# starts with hundreds of stacks: the samples come with the drains).
rm -rf "$t/db"
"$axprof" record -q --hosted -g -d "$t/db" --save-records "$t/stacks.rec" --period prime:300-400 \
	-- "$BUILD/workloads/callargs" 100 >/dev/null 2>&1 || true
python3 - "$t/stacks.rec" "$c/fuzz_dmn_stream/stacks" <<'PY'
import struct, sys
d = open(sys.argv[1], "rb").read()
o, st, other = 0, [], []
while o + 4 <= len(d):
    t, n = struct.unpack_from("<HH", d, o)
    (st if t == 10 else other).append(d[o:o + n])
    o += n
out = b"".join(a + b for a, b in zip(st, other))
open(sys.argv[2], "wb").write(b"\x80" + out[:16384])
PY

cfgseed() { # NAME MODE SPLIT ELF
	"$OBJCOPY" -O binary --only-section=.text "$4" "$t/text"
	if "$OBJCOPY" -O binary --only-section=.rodata "$4" "$t/ro" 2>/dev/null && [ -s "$t/ro" ]; then
		truncate -s %8 "$t/ro"
	else
		: >"$t/ro"
	fi
	{ printf "\\$(printf %o "$2")\\$(printf %o "$3")\\$(printf %o $(($(wc -c <"$t/ro") / 8)))"
	  cat "$t/text" "$t/ro"; } >"$c/fuzz_cfg/$1"
}
cfgseed cfgtest-guessed 0 0 "$top/tests/analysis/fixtures/cfgtest.so"
cfgseed cfgtest-one 1 0 "$top/tests/analysis/fixtures/cfgtest.so"
cfgseed cfgtest-two 2 40 "$top/tests/analysis/fixtures/cfgtest.so"
cfgseed tiny-guessed 0 0 "$t/tiny"
cfgseed tiny-zero 3 20 "$t/tiny"

printf '\000-d\ndb\n--epoch\n3\n--image\nlibc.so.6.1\n--json\n-n\n10' >"$c/fuzz_opts/report"
printf '\000--top=0\n--db=x\n--epoch=4294967295\n-n\n-1\nextra' >"$c/fuzz_opts/report-bad"
printf '\001--mode\nvprof\n--period\n1000-2000\n--period\nimiss=500-600\n--event\ncycles,imiss\n--share\n1/2\n--budget\n4\n--hotlist-m\n16\n--seed\n42' \
	>"$c/fuzz_opts/sampling"
printf '\001--mode=vreplay\n--share=1/129\n--budget=128\n--event=dmiss,branchmp,insns' \
	>"$c/fuzz_opts/sampling-vreplay"
printf '\002100\n1000-2000\ncycles=5\nimiss=100-200\ndtbmiss=7' >"$c/fuzz_opts/periods"
printf '\0031:2\n3/4\ncycles,dmiss,retired,replays\nbranchmp=10-20\n60000-64000' >"$c/fuzz_opts/pairs"
printf '\000fffffc0000310800 T vfs_read\nfffffc0000310000 T _stext\nfffffc0001000000 t drv_irq\t[drv]\n' \
	>"$c/fuzz_ksyms/kallsyms"
printf '\001fffffc0000310800 T vfs_read\nfffffc0000310000 T _stext\n' >"$c/fuzz_ksyms/system-map"
printf '\002drv 4096 0 - Live 0xfffffc0001000000 (O)\nb 16 1 drv, Live 0xfffffc0001100000\n' \
	>"$c/fuzz_ksyms/modules"
printf '\003\004\000\000\000\010\000\000\000\003\000\000\000GNU\000\001\002\003\004\005\006\007\010' \
	>"$c/fuzz_ksyms/notes"
printf '\002prime:1000-1100\ndmiss=prime:24-29\nprime:24-28\nPRIME:7-7\nprime:' \
	>"$c/fuzz_opts/periods-prime"
ls -l "$c"/*
