#!/usr/bin/env bash
# tests/fuzz/fuzz-check.sh - the fuzz targets in make check: seeds replayed, short campaigns.
#
# 1. Every seed of tests/fuzz/corpus/<target>/, and truncations of each, through the gcc/ASan
#    replay build (build/tests/fuzz/<target>): keeps the targets and the seeds working, with or
#    without clang. (fuzz_pdb_read's seeds are replayed by tests/pdb/pdb_fuzz_seeds.sh.)
# 2. With the libFuzzer builds (make fuzz-build, which make check runs when clang is installed):
#    each target, fuzz_pdb_read included, fuzzes for FUZZ_CHECK_SECONDS (default 3) from its
#    seeds under nice; a crash, leak or timeout fails the check and names the input.
. "$(dirname "$0")/../tools/lib.sh" # BUILD, top, ok/bad/finish, $tmp
FUZZ_CHECK_SECONDS=${FUZZ_CHECK_SECONDS:-3}
FUZZ_CC=${FUZZ_CC:-clang}
targets=(fuzz_elf fuzz_dmn_stream fuzz_truth fuzz_cfg fuzz_opts fuzz_ksyms)

# --- 1. replay ------------------------------------------------------------------------------------
for t in "${targets[@]}"; do
	bin=$BUILD/tests/fuzz/$t
	if [ ! -x "$bin" ]; then
		bad "$t replay" "$bin not built (make tests)"
		continue
	fi
	mkdir -p "$tmp/$t"
	n=0
	for f in "$here/corpus/$t"/*; do
		size=$(wc -c <"$f")
		for cut in 1 5 64 $((size / 2)) $((size - 1)); do
			if [ "$cut" -gt 0 ] && [ "$cut" -lt "$size" ]; then
				head -c "$cut" "$f" >"$tmp/$t/$(basename "$f").cut$cut"
				n=$((n + 1))
			fi
		done
		n=$((n + 1))
	done
	if "$bin" "$here/corpus/$t"/* "$tmp/$t"/* >"$tmp/$t.out" 2>&1; then
		ok "$t: $n seeds and truncations replayed (gcc, ASan/UBSan)"
	else
		bad "$t replay" "$(tail -n 15 "$tmp/$t.out")"
	fi
done

# --- 2. short libFuzzer campaigns -----------------------------------------------------------------
if ! command -v "$FUZZ_CC" >/dev/null 2>&1; then
	echo "skipped: libFuzzer campaigns ($FUZZ_CC not installed)"
else
	mkdir -p "$tmp/pdb-seeds"
	if ! "$BUILD"/tests/pdb/pdb_stress corpus "$tmp/pdb-seeds" >/dev/null; then
		bad "fuzz_pdb_read seeds" "pdb_stress corpus failed"
	fi
	for t in "${targets[@]}" fuzz_pdb_read; do
		bin=$BUILD/fuzz/$t
		if [ ! -x "$bin" ]; then
			bad "$t campaign" "$bin not built (make fuzz-build)"
			continue
		fi
		seeds=$here/corpus/$t
		[ "$t" = fuzz_pdb_read ] && seeds=$tmp/pdb-seeds
		mkdir -p "$tmp/c-$t" "$tmp/a-$t"
		if nice "$bin" -max_total_time="$FUZZ_CHECK_SECONDS" -timeout=20 -rss_limit_mb=2048 \
			-artifact_prefix="$tmp/a-$t/" "$tmp/c-$t" "$seeds" >"$tmp/$t.log" 2>&1; then
			ok "$t: $(grep -Eo 'DONE[[:space:]]+cov: [0-9]+ ft: [0-9]+' "$tmp/$t.log" | tail -n 1 |
				sed 's/ \+/ /g') in ${FUZZ_CHECK_SECONDS}s, no crash"
		else
			bad "$t campaign" "$(ls "$tmp/a-$t"); $(grep -E 'ERROR|SUMMARY|an_cfg_check' "$tmp/$t.log" | head -n 5)"
			mkdir -p "$BUILD/fuzz/findings" && cp "$tmp/a-$t"/* "$BUILD/fuzz/findings/" 2>/dev/null &&
				echo "      the input is kept in $BUILD/fuzz/findings/"
		fi
	done
fi

finish
