#!/bin/sh
# bench/interp.sh - interpreter speed (integer and FP loops, with and without an observer).
set -e
"${BUILD:-build}"/bin/bench_interp "${AXPROF_BENCH_INSNS:-200000000}"
