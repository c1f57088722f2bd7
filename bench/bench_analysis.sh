#!/bin/sh
# bench/bench_analysis.sh - seconds to analyse all of libc (procedures, CFGs, classes, schedule).
set -e
B="${BUILD:-build}"
SYSROOT="${SYSROOT:-/usr/alpha-linux-gnu}"
for lib in libc.so.6.1 libm.so.6.1; do
	if [ -r "$SYSROOT/lib/$lib" ]; then
		"$B"/bin/bench_analysis "$SYSROOT/lib/$lib" 5
	else
		echo "bench_analysis: $SYSROOT/lib/$lib not found, skipped"
	fi
done
