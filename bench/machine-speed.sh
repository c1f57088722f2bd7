#!/usr/bin/env bash
# bench/machine-speed.sh - speed of the hosted Alpha machine (`axprof run`) next to qemu-alpha.
#
# Usage: bench/machine-speed.sh [SIZE_KB]     (make bench runs it with BUILD set; default 2600 KB)
# Runs the Alpha bzip2 of `make workloads` compressing a generated text file of SIZE_KB:
#   - functional (axprof run --stats): instructions, wall and CPU seconds, MIPS;
#   - timed by the EV5 (--cpu ev5) and the EV6 (--cpu ev6) models on the first eighth of the input
#     (the models are slower), side by side: MIPS, CPI (target for EV6: >= 8 M instructions per
#     CPU second, issue 13; SimpleScalar sim-outorder and gem5's O3 run well under 1 M/s);
#   - qemu-alpha on the same input: wall and CPU seconds, and the ratios axprof/qemu;
#   - the interpreter's own loop (bench_interp, no decode cache: the in-kernel path);
#   - a summary: each figure per CPU second beside its target (issue 18) and whether it is met.
# MIPS are per CPU second (user+system of the run) as well as per wall second, because the
# machine may be shared. Prints figures only; fails only if a run fails or outputs differ.
set -u

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
BUILD=${BUILD:-build}
case "$BUILD" in /*) ;; *) BUILD=$top/$BUILD ;; esac
SYSROOT=${SYSROOT:-/usr/alpha-linux-gnu}
size_kb=${1:-2600}
axprof=$BUILD/bin/axprof
bz=$BUILD/workloads/bzip2

if [ ! -x "$axprof" ]; then
	echo "machine-speed: $axprof not built (make all)" >&2
	exit 1
fi
if [ ! -x "$bz" ]; then
	echo "machine-speed: skipped ($bz not built; run make workloads)"
	exit 0
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/axprof-speed.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT

# Deterministic, moderately compressible text (bzip2 spends ~550 instructions per byte on it).
awk -v kb="$size_kb" 'BEGIN {
	x = 12345
	for (n = 0; n < kb * 1024; ) {
		x = (x * 1103515245 + 12345) % 2147483648
		line = sprintf("%06d %s record %d value %x flag %c\n", i++, (x % 7 == 0) ? "alpha" : "beta",
			x % 1000, x, 65 + x % 26)
		printf "%s", line
		n += length(line)
	}
}' >"$tmp/in"
head -c $((size_kb * 1024 / 8)) "$tmp/in" >"$tmp/in8"

# cpu_of FILE - "user+sys" seconds from /usr/bin/time -f '%e %U %S' output (last line).
field() { tail -n 1 "$1" | awk -v f="$2" '{ print $f }'; }
cpu() { tail -n 1 "$1" | awk '{ printf "%.2f", $2 + $3 }'; }

# run_axprof NAME INPUT OPTS... - one axprof run; prints its --stats figures.
run_axprof() {
	local label=$1 input=$2 name=${1%%-*}
	shift 2
	if ! /usr/bin/time -o "$tmp/$name.time" -f '%e %U %S' "$axprof" run --stats "$@" -- "$bz" -9 -c \
		<"$input" >"$tmp/$name.bz2" 2>"$tmp/$name.stats"; then
		echo "machine-speed: axprof run $* failed: $(head -c 300 "$tmp/$name.stats")" >&2
		exit 1
	fi
	insns=$(sed -n 's/^axprof run: pid [0-9]*: \([0-9]*\) instructions.*/\1/p' "$tmp/$name.stats")
	wall=$(field "$tmp/$name.time" 1)
	c=$(cpu "$tmp/$name.time")
	printf '%-22s %12s insns  %7.2f s wall %7.2f s CPU  %7.1f MIPS/wall %7.1f MIPS/CPU\n' "$label" \
		"$insns" "$wall" "$c" "$(echo "$insns $wall" | awk '{ print ($2 > 0 ? $1 / $2 / 1e6 : 0) }')" \
		"$(echo "$insns $c" | awk '{ print ($2 > 0 ? $1 / $2 / 1e6 : 0) }')"
}

# mips_cpu - the last run_axprof's M instructions per CPU second.
mips_cpu() { echo "$insns $c" | awk '{ printf "%.1f", ($2 > 0 ? $1 / $2 / 1e6 : 0) }'; }

echo "machine-speed: bzip2 -9 on $size_kb KB of generated text ($(nproc) CPUs, load $(cut -d' ' -f1 /proc/loadavg))"
run_axprof functional "$tmp/in"
f_wall=$wall
f_cpu=$c
f_mips=$(mips_cpu)
f_insns=$insns
run_axprof ev5-on-1/8 "$tmp/in8" --cpu ev5
e5_mips=$(mips_cpu)
grep -o 'CPI [0-9.]*' "$tmp/ev5.stats" | sed 's/^/  ev5 model: /'
run_axprof ev6-on-1/8 "$tmp/in8" --cpu ev6
e6_mips=$(mips_cpu)
grep -o 'CPI [0-9.]*' "$tmp/ev6.stats" | sed 's/^/  ev6 model: /'
for m in ev5 ev6; do
	if ! cmp -s "$tmp/$m.bz2" "$tmp/ev5.bz2"; then
		echo "machine-speed: the $m run's output differs" >&2
		exit 1
	fi
done

if command -v qemu-alpha >/dev/null 2>&1; then
	if ! /usr/bin/time -o "$tmp/q.time" -f '%e %U %S' qemu-alpha -L "$SYSROOT" "$bz" -9 -c <"$tmp/in" \
		>"$tmp/q.bz2" 2>"$tmp/q.err"; then
		echo "machine-speed: qemu-alpha failed: $(head -c 300 "$tmp/q.err")" >&2
		exit 1
	fi
	if ! cmp -s "$tmp/q.bz2" "$tmp/functional.bz2"; then
		echo "machine-speed: axprof run and qemu-alpha outputs differ" >&2
		exit 1
	fi
	q_wall=$(field "$tmp/q.time" 1)
	q_cpu=$(cpu "$tmp/q.time")
	printf '%-22s %12s        %7.2f s wall %7.2f s CPU\n' "qemu-alpha" "" "$q_wall" "$q_cpu"
	ratio=$(echo "$f_cpu $q_cpu" | awk '{ printf "%.1f", ($2 > 0 ? $1 / $2 : 0) }')
	printf 'ratio axprof/qemu-alpha (functional): %.1fx wall, %sx CPU\n' \
		"$(echo "$f_wall $q_wall" | awk '{ print ($2 > 0 ? $1 / $2 : 0) }')" "$ratio"
	q_mips=$(echo "$f_insns $q_cpu" | awk '{ printf "%.1f", ($2 > 0 ? $1 / $2 / 1e6 : 0) }')
else
	echo "qemu-alpha: not installed, no ratio"
	ratio=
fi

# The interpreter alone (the in-kernel path: fetch + decode every instruction, no cache). One run
# is about half a CPU second, which another process on the machine can slow by a third: the
# median of three runs, all three printed.
interp=
if [ -x "$BUILD/bin/bench_interp" ]; then
	runs=
	for k in 1 2 3; do
		runs="$runs $("$BUILD/bin/bench_interp" "${AXPROF_BENCH_INSNS:-100000000}" int |
			sed -n 's/^interp: int \([0-9.]*\) M insn.*/\1/p')"
	done
	echo "interpreter loop, no decode cache (bench_interp int, 3 runs):$runs M insn/CPU-s"
	interp=$(echo $runs | tr ' ' '\n' | sort -n | sed -n 2p)
fi

# row LABEL VALUE OP TARGET - one summary line (VALUE empty: not measured).
row() {
	local verdict=
	if [ -n "$2" ]; then
		verdict=$(echo "$2 $4" | awk '{ print ($1 >= $2 ? "met" : "NOT met") }')
	fi
	printf '  %-34s %8s   target %s %-5s %s\n' "$1" "${2:-n/a}" "$3" "$4" "$verdict"
}
echo "machine-speed summary (M Alpha instructions per host CPU second, one run; the interpreter loop: the median of its three):"
row "interpreter loop, no decode cache" "$interp" ">=" 150
row "functional (bzip2 -9)" "$f_mips" ">=" 250
row "EV5 timing (bzip2 -9, 1/8 input)" "$e5_mips" ">=" 50
row "EV6 timing (bzip2 -9, 1/8 input)" "$e6_mips" ">=" 8
if [ -n "$ratio" ]; then
	printf '  %-34s %8s   axprof functional takes %sx its CPU time\n' "qemu-alpha (JIT)" "$q_mips" \
		"$ratio"
fi
