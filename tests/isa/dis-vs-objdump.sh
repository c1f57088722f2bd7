#!/usr/bin/env bash
# tests/isa/dis-vs-objdump.sh - `axprof dis` against alpha-linux-gnu-objdump -d, instruction by instruction.
#
# 1. Re-checks every vector of tests/analysis/test_isa_dis.c against the installed objdump.
# 2. Disassembles libc.so.6.1 and libm.so.6.1 with both tools and compares, per address, the
#    raw bytes, mnemonic and operands (symbol annotations <...> are set aside). Any mismatch
#    fails the step. Whether the whole listings are byte-identical (symbols, headers and all)
#    is reported too.
# Usage: tests/isa/dis-vs-objdump.sh [FILE...]   (BUILD from the environment, default build)
set -u
BUILD=${BUILD:-build}
AXPROF=$BUILD/bin/axprof
OBJDUMP=${AOBJDUMP:-alpha-linux-gnu-objdump}
AS=${AAS:-alpha-linux-gnu-as}
SYSROOT=${SYSROOT:-/usr/alpha-linux-gnu}
here=$(cd "$(dirname "$0")" && pwd)
fail=0

for tool in "$OBJDUMP" "$AS"; do
	if ! command -v "$tool" >/dev/null 2>&1; then
		echo "dis-vs-objdump: $tool not found (install binutils-alpha-linux-gnu: scripts/install-deps)"
		exit 1
	fi
done
if [ ! -x "$AXPROF" ]; then
	echo "dis-vs-objdump: $AXPROF not built (run make)"
	exit 1
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/dis-vs-objdump.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# --- 1. the unit-test vectors, word by word ---
vecs="$here/test_isa_dis.c"
sed -n 's/^\t{ \(0x[0-9a-f]\{8\}\), \(0x[0-9a-f]*\), "\(.*\)" },.*/\1 \2 \3/p' "$vecs" >"$tmp/vec"
nvec=$(wc -l <"$tmp/vec")
first=$(awk 'NR == 1 { print $2 }' "$tmp/vec")
{ printf '\t.text\n'; awk '{ printf "\t.long %s\n", $1 }' "$tmp/vec"; } >"$tmp/vec.s"
if ! "$AS" "$tmp/vec.s" -o "$tmp/vec.o"; then
	echo "dis-vs-objdump: cannot assemble the vectors"
	exit 1
fi
"$OBJDUMP" -d --adjust-vma="$first" "$tmp/vec.o" | awk -F'\t' '/^ *[0-9a-f]+:\t/ {
	a = $1; sub(/^ */, "", a); sub(/:$/, "", a); t = $3
	for (i = 4; i <= NF; i++) t = t "\\t" $i
	print "0x" a " " t }' >"$tmp/vec.ref"
bad=$(awk 'NR == FNR { ref[NR] = $0; next }
	{ w = $1; $1 = ""; line = substr($0, 2); if (line != ref[FNR]) { print FNR ": " w " " line " | objdump: " ref[FNR]; n++ } }
	END { exit n > 0 }' "$tmp/vec.ref" "$tmp/vec") || true
if [ -n "$bad" ] || [ "$(wc -l <"$tmp/vec.ref")" != "$nvec" ]; then
	echo "FAIL vectors: test_isa_dis.c disagrees with $OBJDUMP:"
	echo "$bad" | head -n 20
	fail=1
else
	echo "ok   vectors: $nvec words of test_isa_dis.c print as $OBJDUMP prints them"
fi

# --- 2. whole libraries ---
# Instruction lines as "ADDR<TAB>BYTES<TAB>TEXT", symbol annotations removed.
insns() {
	awk -F'\t' '/^ *[0-9a-f]+:\t/ { a = $1; sub(/^ */, "", a); t = $3
		for (i = 4; i <= NF; i++) t = t "\t" $i
		gsub(/ <[^>]*>/, "", t); print a "\t" $2 "\t" t }'
}

compare() {
	local f=$1 name
	name=$(basename "$f")
	if [ ! -r "$f" ]; then
		echo "FAIL $name: $f is missing (install libc6.1-alpha-cross: scripts/install-deps)"
		fail=1
		return
	fi
	"$OBJDUMP" -d "$f" >"$tmp/ref.txt"
	if ! "$AXPROF" dis "$f" >"$tmp/mine.txt"; then
		echo "FAIL $name: axprof dis failed"
		fail=1
		return
	fi
	insns <"$tmp/ref.txt" >"$tmp/ref.ins"
	insns <"$tmp/mine.txt" >"$tmp/mine.ins"
	# Per address: same bytes and same mnemonic + operands; addresses missing on either side count.
	awk -F'\t' -v name="$name" -v out="$tmp/bad.txt" '
		NR == FNR { ref[$1] = $2 "\t" $3; nref++; next }
		{ seen[$1] = 1
		  if (!($1 in ref)) { extra++; if (shown++ < 10) print "  " $1 ": only axprof: " $3 > out; next }
		  if (ref[$1] != $2 "\t" $3) { bad++; if (shown++ < 10) print "  " $1 ": axprof \"" $2 $3 "\" objdump \"" ref[$1] "\"" > out } else same++ }
		END { for (a in ref) if (!(a in seen)) { missing++; if (shown++ < 10) print "  " a ": only objdump" > out }
		      printf "%s %d %d %d %d %d\n", name, nref, same, bad, missing, extra }' \
		"$tmp/ref.ins" "$tmp/mine.ins" >"$tmp/sum" 2>/dev/null
	: >>"$tmp/bad.txt"
	read -r _ nref same bad missing extra <"$tmp/sum"
	local mism=$((bad + missing + extra))
	local whole="identical"
	cmp -s "$tmp/ref.txt" "$tmp/mine.txt" || whole="differs ($(diff "$tmp/ref.txt" "$tmp/mine.txt" | grep -c '^<') lines)"
	if [ "$mism" = 0 ] && [ "$nref" -gt 0 ]; then
		echo "ok   $name: $nref instructions compared, $same agree, 0 mismatches (100%); whole listing $whole"
	else
		echo "FAIL $name: $nref instructions compared, $same agree, $mism mismatches ($bad differ, $missing missing, $extra extra); whole listing $whole"
		cat "$tmp/bad.txt"
		fail=1
	fi
	rm -f "$tmp/bad.txt"
}

if [ $# -gt 0 ]; then
	files=("$@")
else
	files=("$SYSROOT/lib/libc.so.6.1" "$SYSROOT/lib/libm.so.6.1")
fi
for f in "${files[@]}"; do
	compare "$f"
done
exit $fail
