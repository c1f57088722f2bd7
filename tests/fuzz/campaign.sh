#!/usr/bin/env bash
# tests/fuzz/campaign.sh - `make fuzz`: a long libFuzzer campaign per target, one at a time.
#
# Usage: BUILD=build FUZZ_SECONDS=600 tests/fuzz/campaign.sh TARGET...
# Each build/fuzz/TARGET runs FUZZ_SECONDS under nice -n 19 (the machine stays usable) on its
# corpus build/fuzz/work/TARGET/corpus, seeded from tests/fuzz/corpus/TARGET (fuzz_pdb_read:
# from pdb_stress corpus) and kept between campaigns; crashes, leaks and timeouts land in
# build/fuzz/work/TARGET/ (crash-*, leak-*, timeout-*; add them to the seeds once fixed). The
# log is build/fuzz/work/TARGET/log. At the end, one line per target: executions, libFuzzer's
# cov: and ft: figures, corpus size, and findings. Exit status 1 when anything was found.
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
BUILD=${BUILD:-build}
case "$BUILD" in /*) ;; *) BUILD=$top/$BUILD ;; esac
FUZZ_SECONDS=${FUZZ_SECONDS:-600}
found=0
summary=()
for t in "$@"; do
	bin=$BUILD/fuzz/$t
	w=$BUILD/fuzz/work/$t
	if [ ! -x "$bin" ]; then
		echo "campaign: $bin not built (make fuzz-build)" >&2
		exit 1
	fi
	mkdir -p "$w/corpus"
	if [ "$t" = fuzz_pdb_read ]; then
		rm -rf "$w/seeds" && mkdir -p "$w/seeds" &&
			"$BUILD"/tests/pdb/pdb_stress corpus "$w/seeds" >/dev/null || exit 1
	else
		rm -rf "$w/seeds" && cp -r "$here/corpus/$t" "$w/seeds"
	fi
	echo "campaign: $t for ${FUZZ_SECONDS}s (log: $w/log)"
	nice -n 19 "$bin" -max_total_time="$FUZZ_SECONDS" -timeout=20 -rss_limit_mb=2048 \
		-print_final_stats=1 -artifact_prefix="$w/" "$w/corpus" "$w/seeds" >"$w/log" 2>&1
	st=$?
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$w/log" | tail -n 1)
	last=$(grep -Eo 'cov: [0-9]+ ft: [0-9]+ corp: [0-9]+/[0-9]+[a-zA-Z]*' "$w/log" | tail -n 1)
	n=$(find "$w" -maxdepth 1 \( -name 'crash-*' -o -name 'leak-*' -o -name 'timeout-*' -o \
		-name 'oom-*' \) | wc -l)
	summary+=("$t: ${execs:-?} executions in ${FUZZ_SECONDS}s, ${last:-no stats}, findings $n (status $st)")
	if [ "$st" != 0 ] || [ "$n" != 0 ]; then
		found=1
		grep -E 'ERROR|SUMMARY' "$w/log" | head -n 5
	fi
done
printf '%s\n' "${summary[@]}"
exit $found
