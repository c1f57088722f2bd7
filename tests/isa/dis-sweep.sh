#!/usr/bin/env bash
# tests/isa/dis-sweep.sh - the long differential sweep of `axprof dis` against objdump (not in make check).
#
# For every primary opcode, every value of the low 16 bits (functions, qualifiers, literals,
# displacements, Rc) with eight (Ra, Rb) pairs that exercise the pseudo-op rules (R31, equal
# fields, R30); then every (Ra, Rb) pair for 64 random low halves per opcode; then random
# words. Each batch goes into an object with .incbin and both listings must be identical.
# About 43 million words; a few minutes on two cores.
# Usage: tests/isa/dis-sweep.sh [--quick]   (--quick: 1 register pair, fewer random words)
set -u
BUILD=${BUILD:-build}
AXPROF=$BUILD/bin/axprof
OBJDUMP=${AOBJDUMP:-alpha-linux-gnu-objdump}
AS=${AAS:-alpha-linux-gnu-as}
quick=0
[ "${1:-}" = "--quick" ] && quick=1
tmp=$(mktemp -d "${TMPDIR:-/tmp}/dis-sweep.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
total=0
fail=0

# batch NAME PERL-CODE: PERL-CODE prints little-endian words with out($w)
batch() {
	local name=$1 code=$2 n
	perl -e 'sub out { print pack("V", $_[0] & 0xffffffff) } binmode STDOUT; '"$code" >"$tmp/w.bin"
	printf '\t.text\n\t.incbin "%s"\n' "$tmp/w.bin" >"$tmp/w.s"
	"$AS" "$tmp/w.s" -o "$tmp/w.o" || exit 1
	"$OBJDUMP" -d "$tmp/w.o" >"$tmp/ref"
	"$AXPROF" dis "$tmp/w.o" >"$tmp/mine"
	n=$(($(wc -c <"$tmp/w.bin") / 4))
	total=$((total + n))
	if cmp -s "$tmp/ref" "$tmp/mine"; then
		echo "ok   $name: $n words"
	else
		echo "FAIL $name: $n words, $(diff "$tmp/ref" "$tmp/mine" | grep -c '^<') lines differ:"
		diff "$tmp/ref" "$tmp/mine" | head -n 10
		fail=1
	fi
}

if [ "$quick" = 1 ]; then pairs="[31,5]"; else
	pairs="[31,31],[31,5],[5,31],[5,5],[5,7],[31,30],[30,31],[26,26]"; fi
for opc in $(seq 0 63); do
	batch "opcode $(printf '%#04x' "$opc"), all low halves" \
		"for my \$p ($pairs) { for my \$lo (0 .. 65535) {
			out($opc << 26 | \$p->[0] << 21 | \$p->[1] << 16 | \$lo) } }"
done
if [ "$quick" = 0 ]; then
	batch "all (Ra, Rb) for 64 low halves per opcode" \
		'srand(7); for my $opc (0 .. 63) { for (1 .. 64) { my $lo = int(rand(65536));
			for my $ab (0 .. 1023) { out($opc << 26 | $ab << 16 | $lo) } } }'
fi
for seed in 1 2 3; do
	batch "random words, seed $seed" \
		"srand($seed); for (1 .. $([ "$quick" = 1 ] && echo 200000 || echo 2000000)) {
			out(int(rand(65536)) << 16 | int(rand(65536))) }"
done
echo "dis-sweep: $total words compared"
exit $fail
