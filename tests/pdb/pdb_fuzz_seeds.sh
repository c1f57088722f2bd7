#!/bin/sh
# tests/pdb/pdb_fuzz_seeds.sh - replay the fuzz seeds (and a few quick mutations of each)
# through the fuzz target's gcc/ASan build: keeps tests/pdb/fuzz_pdb_read.c working.
set -eu
BUILD=${BUILD:-build}
dir=$(mktemp -d "${TMPDIR:-/tmp}/pdbseeds.XXXXXX")
trap 'rm -rf "$dir"' EXIT
"$BUILD"/tests/pdb/pdb_stress corpus "$dir"
n=0
for f in "$dir"/*; do
	# Truncations of every seed, as further inputs.
	size=$(wc -c <"$f")
	for cut in 1 3 20 49 $((size / 2)) $((size - 1)); do
		[ "$cut" -lt "$size" ] && head -c "$cut" "$f" >"$f.cut$cut" && n=$((n + 1))
	done
	n=$((n + 1))
done
"$BUILD"/tests/pdb/fuzz_pdb_read "$dir"/*
echo "pdb_fuzz_seeds: $n inputs read safely"
