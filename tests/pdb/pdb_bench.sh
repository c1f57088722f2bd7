#!/bin/sh
# tests/pdb/pdb_bench.sh - profile database figures (bench/bench_pdb.c): merge samples/s
# through pdb_merge_store on a real disk, and file bytes per distinct offset.
set -e
"${BUILD:-build}"/bin/bench_pdb "$@"
