#!/usr/bin/env bash
# tests/machine/truncated-elf.sh - `axprof run` of truncated Alpha programs and interpreters.
#
# Usage: BUILD=build tests/machine/truncated-elf.sh [PROGRAM]   (make check runs it)
# Truncates PROGRAM (default $BUILD/workloads/exitcode) and, through a scratch sysroot, its
# interpreter ld-linux.so.2 at every PT_LOAD boundary +- a few bytes, inside the ELF and program
# headers and at a spread of other offsets. At each offset `axprof run` must either run it exactly
# as the intact file runs (same stdout and exit status: only unloaded parts such as section
# headers were cut) or reject it with status 1 and a "truncated or corrupt" / "not an ELF file"
# message naming the file; never run a half-loaded program. Which of the two is decided from the
# program headers: every byte a PT_LOAD, PT_INTERP or the headers need must be in the file. When
# qemu-alpha is installed its verdict must be the same (it refuses with "Error mapping file"),
# except that it checks whole pages: a cut that only loses the last bytes of a segment's last
# page it runs, and this script lists those offsets.
set -u

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
BUILD=${BUILD:-build}
case "$BUILD" in /*) ;; *) BUILD=$top/$BUILD ;; esac
axprof=$BUILD/bin/axprof
SYSROOT=${SYSROOT:-/usr/alpha-linux-gnu}
prog=${1:-$BUILD/workloads/exitcode}

if [ ! -x "$axprof" ]; then
	echo "truncated-elf: $axprof not built (make all)" >&2
	exit 1
fi
if [ ! -f "$prog" ] || [ ! -f "$SYSROOT/lib/ld-linux.so.2" ] || ! command -v readelf >/dev/null; then
	echo "skipped: truncated-elf ($prog, $SYSROOT/lib/ld-linux.so.2 or readelf missing)"
	exit 0
fi
have_qemu=0
command -v qemu-alpha >/dev/null 2>&1 && have_qemu=1
tmp=$(mktemp -d "${TMPDIR:-/tmp}/axprof-trunc.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT

passed=0
failed=0
qagree=0
qtotal=0
qlenient=
fail() {
	failed=$((failed + 1))
	echo "FAIL  $1"
}

# segs FILE: "offset end" of each PT_LOAD and PT_INTERP (file bytes).
segs() {
	readelf -lW "$1" | while read -r type off _ _ fsz _; do
		case $type in LOAD | INTERP) echo "$((off)) $((off + fsz))" ;; esac
	done
}

# need FILE: the number of leading bytes the loader needs (headers, program headers, PT_LOAD
# and PT_INTERP file bytes).
need() {
	local phoff phnum n s e
	phoff=$(readelf -hW "$1" | awk '/Start of program headers/ {print $5}')
	phnum=$(readelf -hW "$1" | awk '/Number of program headers/ {print $5}')
	n=$((phoff + phnum * 56))
	while read -r s e; do
		[ "$e" -gt "$n" ] && n=$e
	done < <(segs "$1")
	echo "$n"
}

# offsets FILE: boundaries +- a few bytes and a spread, inside [0, size).
offsets() {
	local size s e d
	size=$(stat -c %s "$1")
	{
		for o in 0 1 16 63 64 65 100 120 300 520 600; do echo $o; done
		while read -r s e; do
			for d in -8 -2 -1 0 1 2 8; do
				echo $((s + d))
				echo $((e + d))
			done
		done < <(segs "$1")
		for i in $(seq 1 23); do echo $((size * i / 24)); done
		echo $((size - 1))
	} | awk -v size="$size" '$1 >= 0 && $1 < size' | sort -n -u
}

# verdict NAME OFF NEED STATUS OUT ERR REF_STATUS REF_OUT: check one run of a file cut at OFF.
verdict() {
	local name=$1 off=$2 need=$3 s=$4 out=$5 err=$6 rs=$7 rout=$8 base=$9
	if [ "$off" -ge "$need" ]; then
		if [ "$s" = "$rs" ] && cmp -s "$out" "$rout"; then
			passed=$((passed + 1))
		else
			fail "$name cut at $off (>= $need): status $s, want $rs like the intact file; $(head -c 200 "$err")"
		fi
	elif [ "$s" = 1 ] && [ ! -s "$out" ] &&
		grep -Eq "^axprof run: .*$base.*: (truncated or corrupt|not an ELF file)" "$err"; then
		passed=$((passed + 1))
	else
		fail "$name cut at $off (< $need): status $s, not rejected: $(head -c 200 "$err")"
	fi
}

# qemu_verdict OFF NEED STATUS OUT REF_STATUS REF_OUT: qemu-alpha runs it as intact or refuses.
qemu_verdict() {
	local off=$1 need=$2 s=$3 out=$4 rs=$5 rout=$6 ran=0
	[ "$s" = "$rs" ] && cmp -s "$out" "$rout" && ran=1
	qtotal=$((qtotal + 1))
	if { [ "$off" -ge "$need" ] && [ $ran = 1 ]; } || { [ "$off" -lt "$need" ] && [ $ran = 0 ] && [ ! -s "$out" ]; }; then
		qagree=$((qagree + 1))
	elif [ "$off" -lt "$need" ] && [ $ran = 1 ]; then
		# qemu-alpha checks whole pages: a cut in a segment's last page that only loses bytes
		# the program never reads goes unnoticed there.
		qlenient="$qlenient $off"
	else
		fail "qemu-alpha's verdict differs at $off (need $need): status $s"
	fi
}

run_ax() { # SYSROOT FILE -> $tmp/a.out $tmp/a.err, status in $as
	("$axprof" run --sysroot "$1" -- "$2" >"$tmp/a.out" 2>"$tmp/a.err" </dev/null; exit $?) 2>/dev/null
	as=$?
}
run_qemu() {
	(qemu-alpha -L "$1" "$2" >"$tmp/q.out" 2>"$tmp/q.err" </dev/null; exit $?) 2>/dev/null
	qs=$?
}

# --- the program --------------------------------------------------------------------------------
run_ax "$SYSROOT" "$prog"
ref_s=$as
cp "$tmp/a.out" "$tmp/ref.out"
pneed=$(need "$prog")
n=0
for off in $(offsets "$prog"); do
	head -c "$off" "$prog" >"$tmp/cut"
	chmod +x "$tmp/cut"
	run_ax "$SYSROOT" "$tmp/cut"
	verdict program "$off" "$pneed" "$as" "$tmp/a.out" "$tmp/a.err" "$ref_s" "$tmp/ref.out" cut
	if [ $have_qemu = 1 ]; then
		run_qemu "$SYSROOT" "$tmp/cut"
		qemu_verdict "$off" "$pneed" "$qs" "$tmp/q.out" "$ref_s" "$tmp/ref.out"
	fi
	n=$((n + 1))
done
echo "program $(basename "$prog"): $n truncation offsets (all bytes needed: $pneed of $(stat -c %s "$prog"))"

# --- its interpreter, through a sysroot whose lib/ld-linux.so.2 is cut --------------------------
mkdir -p "$tmp/root/lib"
for f in "$SYSROOT"/lib/*; do
	ln -s "$f" "$tmp/root/lib/$(basename "$f")"
done
rm -f "$tmp/root/lib/ld-linux.so.2"
interp=$(readlink -f "$SYSROOT/lib/ld-linux.so.2")
ineed=$(need "$interp")
n=0
for off in $(offsets "$interp"); do
	head -c "$off" "$interp" >"$tmp/root/lib/ld-linux.so.2"
	run_ax "$tmp/root" "$prog"
	verdict interpreter "$off" "$ineed" "$as" "$tmp/a.out" "$tmp/a.err" "$ref_s" "$tmp/ref.out" \
		ld-linux.so.2
	n=$((n + 1))
done
echo "interpreter ld-linux.so.2: $n truncation offsets (all bytes needed: $ineed of $(stat -c %s "$interp"))"

if [ $have_qemu = 1 ]; then
	echo "qemu-alpha agrees on $qagree of $qtotal offsets of the program${qlenient:+; it runs (as intact) what axprof rejects at:$qlenient}"
fi
echo "truncated-elf: $passed ok, $failed failing"
[ "$failed" = 0 ]
