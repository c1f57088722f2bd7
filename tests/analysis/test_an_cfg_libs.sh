#!/bin/sh
# tests/analysis/test_an_cfg_libs.sh - analyse every procedure of libc, libm and our workloads:
# CFG invariants (axprof cfg --check), counts; then two workloads run on the hosted machine and
# the frequency classes are checked against its ground-truth execution counts.
set -eu
B="${BUILD:-build}"
SYSROOT="${SYSROOT:-/usr/alpha-linux-gnu}"
AXPROF="$B/bin/axprof"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

for lib in libc.so.6.1 libm.so.6.1; do
	if [ -r "$SYSROOT/lib/$lib" ]; then
		"$AXPROF" cfg --check "$SYSROOT/lib/$lib"
	else
		echo "skip: $SYSROOT/lib/$lib not found"
	fi
done
for w in "$B"/workloads/*; do
	[ -f "$w" ] && [ -x "$w" ] || continue
	"$AXPROF" cfg --check "$w" >/dev/null
done
"$AXPROF" cfg --check tests/analysis/fixtures/cfgtest-stripped.so

# Classes against the machine's ground truth (the program and the libc it ran).
for run in "structsearch 300" "adi 2"; do
	set -- $run
	w=$1
	prog="$B/workloads/$w"
	[ -x "$prog" ] || { echo "skip: $prog not built"; continue; }
	"$AXPROF" run --cpu ev5 --truth "$tmp/$w.truth" --trace-syscalls "$prog" "$2" \
		>/dev/null 2>"$tmp/$w.trace"
	"$AXPROF" cfg --check --truth "$tmp/$w.truth" "$prog"
	# libc: the machine maps it with the first executable mmap (PROT_READ|PROT_EXEC)
	base=$(sed -n 's/.* mmap(0x[0-9a-f]*, 0x[0-9a-f]*, 0x5, 0x[0-9a-f]*) = \(0x[0-9a-f]*\)$/\1/p' \
		"$tmp/$w.trace" | head -n1)
	if [ -n "$base" ] && [ -r "$SYSROOT/lib/libc.so.6.1" ]; then
		"$AXPROF" cfg --check --truth "$tmp/$w.truth" --base "$base" \
			"$SYSROOT/lib/libc.so.6.1"
	else
		echo "skip: libc's load address not found in the trace"
	fi
done
