#!/usr/bin/env bash
# tests/isa/dis-bad-input.sh - `axprof dis` on bad input: clear message, right exit code, no crash.
#
# Each case runs build/bin/axprof dis and checks the exit status (1 for a file that cannot be
# disassembled, 2 for a usage error), that stderr names the problem, and that nothing was
# killed by a signal. Then a few hundred damaged copies of a real Alpha object (bytes
# overwritten in the headers and tables, files cut short) must each end with status 0 or 1.
set -u
BUILD=${BUILD:-build}
AXPROF=$BUILD/bin/axprof
AS=${AAS:-alpha-linux-gnu-as}
SYSROOT=${SYSROOT:-/usr/alpha-linux-gnu}
fail=0
n=0

if [ ! -x "$AXPROF" ]; then
	echo "dis-bad-input: $AXPROF not built (run make)"
	exit 1
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/dis-bad-input.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# expect STATUS PATTERN ARGS...: stderr must match PATTERN (grep -E), stdout must be empty
# for a non-zero status.
expect() {
	local want=$1 pat=$2 rc
	shift 2
	n=$((n + 1))
	"$AXPROF" dis "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ "$rc" != "$want" ]; then
		echo "FAIL axprof dis $*: exit $rc, want $want"
		sed 's/^/  stderr: /' "$tmp/err" | head -n 3
		fail=1
	elif [ -n "$pat" ] && ! grep -Eq -- "$pat" "$tmp/err"; then
		echo "FAIL axprof dis $*: stderr does not say /$pat/:"
		sed 's/^/  stderr: /' "$tmp/err" | head -n 3
		fail=1
	elif [ "$want" != 0 ] && [ -s "$tmp/out" ]; then
		echo "FAIL axprof dis $*: wrote to stdout on error"
		fail=1
	else
		echo "ok   axprof dis $* -> $rc: $(head -n 1 "$tmp/err")"
	fi
}

# patch FILE OFFSET BYTE: overwrite one byte
patch() {
	printf "$(printf '\\%03o' "$3")" | dd of="$1" bs=1 seek="$2" conv=notrunc status=none
}

# A small Alpha object of our own, and one without code.
printf '\t.text\n\t.globl f\n\t.type f,@function\nf:\n\tlda $30,-16($30)\n\tbsr $26,f\n\tret\n\t.size f,.-f\n' >"$tmp/code.s"
printf '\t.data\nx:\t.quad 1\n' >"$tmp/data.s"
if ! "$AS" "$tmp/code.s" -o "$tmp/code.o" || ! "$AS" "$tmp/data.s" -o "$tmp/data.o"; then
	echo "dis-bad-input: cannot assemble test objects (install binutils-alpha-linux-gnu)"
	exit 1
fi
lib=$SYSROOT/lib/libm.so.6.1
[ -r "$lib" ] || lib=$tmp/code.o

: >"$tmp/empty"
echo "just some text, not ELF" >"$tmp/text"
cp "$tmp/code.o" "$tmp/elf32"
patch "$tmp/elf32" 4 1
cp "$tmp/code.o" "$tmp/bigendian"
patch "$tmp/bigendian" 5 2
cp "$tmp/code.o" "$tmp/x86"
patch "$tmp/x86" 18 62 # e_machine = EM_X86_64
patch "$tmp/x86" 19 0
cp "$tmp/code.o" "$tmp/core"
patch "$tmp/core" 16 4 # e_type = ET_CORE
head -c 40 "$tmp/code.o" >"$tmp/trunc-header"
size=$(wc -c <"$lib")
head -c $((size * 3 / 4)) "$lib" >"$tmp/trunc-lib"
printf '!<arch>\n' >"$tmp/archive.a"
mkdir "$tmp/dir"

expect 1 'cannot open: No such file or directory' "$tmp/missing.o"
expect 1 'is a directory' "$tmp/dir"
expect 1 'not an ELF file \(empty\)' "$tmp/empty"
expect 1 'not an ELF file' "$tmp/text"
expect 1 'ar archive' "$tmp/archive.a"
expect 1 'not an Alpha file: machine 0x3e is x86-64' "$tmp/x86"
expect 1 'not an Alpha file' "$AXPROF"
expect 1 'not an Alpha file: 32-bit ELF' "$tmp/elf32"
expect 1 'not an Alpha file: big-endian' "$tmp/bigendian"
expect 1 'not an executable, shared object or object file' "$tmp/core"
expect 1 'truncated ELF header' "$tmp/trunc-header"
expect 1 'truncated' "$tmp/trunc-lib"
expect 1 'no executable section' "$tmp/data.o"
expect 1 "no section named '.nothing'" --section .nothing "$tmp/code.o"
expect 2 'no FILE given'
expect 2 "unknown option '--frobnicate'" --frobnicate "$tmp/code.o"
expect 2 '--start needs an address' --start banana "$tmp/code.o"
expect 2 '--stop needs an address' --stop "$tmp/code.o"
expect 2 'one FILE only' "$tmp/code.o" "$tmp/code.o"
expect 0 '' "$tmp/code.o"
expect 0 '' --json "$tmp/code.o"

# Damaged copies: random bytes in the ELF header and anywhere else (section headers, symbol
# and string tables), and cuts at many lengths. Status 0 or 1 only. perl (part of every Debian
# system) writes them all in one go, from a fixed seed so every run tries the same files.
mkdir "$tmp/fuzz"
perl -e '
	my ($src, $dir) = @ARGV;
	open(my $f, "<:raw", $src) or die; local $/; my $img = <$f>; close $f;
	srand(12345);
	my $n = length $img;
	for my $i (1 .. 200) {
		my $c = $img;
		for (1 .. 1 + int(rand(4))) {
			my $off = ($i % 2) ? int(rand(64)) : int(rand($n));
			substr($c, $off, 1) = chr(int(rand(256)));
		}
		open(my $o, ">:raw", "$dir/m$i") or die; print $o $c; close $o;
	}
	for (my $cut = 1; $cut < $n; $cut += 5) {
		open(my $o, ">:raw", "$dir/c$cut") or die; print $o substr($img, 0, $cut); close $o;
	}' "$tmp/code.o" "$tmp/fuzz"
crashes=0
tries=0
for f in "$tmp"/fuzz/*; do
	"$AXPROF" dis "$f" >/dev/null 2>&1
	rc=$?
	tries=$((tries + 1))
	if [ "$rc" -gt 1 ]; then
		crashes=$((crashes + 1))
		cp "$f" "$BUILD/dis-crash-$(basename "$f").o" 2>/dev/null
		echo "FAIL damaged object $(basename "$f"): exit $rc (kept as $BUILD/dis-crash-$(basename "$f").o)"
	fi
done
if [ "$crashes" = 0 ]; then
	echo "ok   $tries damaged or cut-short objects: every one ended with status 0 or 1"
else
	fail=1
fi
echo "dis-bad-input: $n cases, $tries damaged files"
exit $fail
