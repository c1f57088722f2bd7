#!/usr/bin/env bash
# tests/tools/check-sampling-output.sh - programs behave the same with sampling and interpretation on.
#
# Every workload runs under `axprof record` on the hosted machine and must give its golden stdout,
# stderr and exit status (tests/workloads/run-qemu.sh with RUNNER = axprof record): in vprof mode
# with every sample interpreted (16 instructions each, a 2000-cycle period), in vreplay mode
# (512 instructions per sample), and in cycles mode with four events. The bzip2/gzip round trips
# (bytes equal to the host's) run under vprof, and Lua under vprof and vreplay, when `make
# workloads` has built them.
. "$(dirname "$0")/lib.sh"
need "$axprof"

names=()
for f in "$top"/workloads/*.c; do
	names+=("$(basename "$f" .c)")
done
run_mode() { # TAG NAMES... -- RECORD OPTIONS...
	local tag=$1 log=$tmp/$1.log
	shift
	local -a which=()
	while [ "$1" != "--" ]; do
		which+=("$1")
		shift
	done
	shift
	if RUNNER="$axprof record -q --hosted -d $tmp/db-$tag $* --" BUILD="$BUILD" \
		"$top/tests/workloads/run-qemu.sh" "${which[@]}" >"$log" 2>&1; then
		ok "$tag: $(tail -n 1 "$log" | sed 's/.*: //')"
	else
		bad "$tag" "$(grep -E '^FAIL' "$log" | head -n 5 | tr '\n' ' ')"
		tail -n 25 "$log"
	fi
	grep -E '^(ok|skipped)' "$log" | sed 's/^/      /'
}
run_mode vprof "${names[@]}" -- --mode vprof --share 1/1 --period 2000-2200 --budget 16
run_mode vreplay "${names[@]}" -- --mode vreplay --share 1/1 --period 20000-22000 --budget 512
run_mode cycles "${names[@]}" -- --mode cycles --event cycles,imiss,dmiss,branchmp --period 3000-3300
if [ -x "$wl/bzip2" ] && [ -x "$wl/gzip" ]; then
	run_mode real bzip2 gzip -- --mode vprof --share 1/1 --period 5000-5500 --budget 16
else
	echo "skipped: bzip2/gzip under sampling (run make workloads)"
fi
if [ -x "$wl/lua" ]; then
	run_mode lua-vprof lua -- --mode vprof --share 1/1 --period 5000-5500 --budget 16
	run_mode lua-vreplay lua -- --mode vreplay --share 1/1 --period 20000-22000 --budget 512
else
	echo "skipped: lua under sampling (run make workloads)"
fi
# Something was recorded, and nothing was lost to unattributed pcs.
if "$axprof" report -d "$tmp/db-vprof" --json >"$tmp/r.json" 2>&1 &&
	grep -q '"image":"[^"]*semiinv"' "$tmp/r.json" && ! grep -q '"image":"unknown"' "$tmp/r.json"; then
	ok "the vprof database has every workload's samples attributed"
else
	bad "vprof database" "$(head -c 300 "$tmp/r.json")"
fi
finish
