#!/usr/bin/env bash
# eval/run-procs.sh - vprof --args/--callers against the hosted machine's procedure truth (issue 19).
#
# Usage: eval/run-procs.sh [NAME...]   (make eval runs it; BUILD as elsewhere; default workloads
#        callargs semiinv tree structsearch swvm strhash gotovm)
# Each workload is recorded under --mode vprof --observe args,callers (every sample interpreted,
# 32 instructions each, cycle sampling) with --proc-truth, and tests/tools/grade-procs.py grades
# vprof's JSON against the truth: for every procedure of the program with >= 200 interpreted
# entries, each argument's (a0-a5) and v0's top value and its share within 2 points, each caller
# with >= 5% within 3 points. callargs is also recorded sampling retired instructions
# (--event insns), which removes the cycle weighting of what is interpreted (vprof(1)). Prints a
# table (build/eval/procs/); exit 1 only when a recording fails.
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
BUILD=${BUILD:-build}
case "$BUILD" in /*) ;; *) BUILD=$top/$BUILD ;; esac
axprof=$BUILD/bin/axprof
vprof=$BUILD/bin/vprof
out=$BUILD/eval/procs
names=("$@")
[ ${#names[@]} -gt 0 ] || names=(callargs semiinv tree structsearch swvm strhash gotovm)
die() {
	echo "eval procs: $*" >&2
	exit 1
}
[ -x "$axprof" ] && [ -x "$vprof" ] || die "$axprof or $vprof not built (make all)"
command -v python3 >/dev/null || die "python3 missing"
rm -rf "$out"
mkdir -p "$out"
total=0
within=0
# NAME LABEL EXTRA...: record, grade, print one row.
one() {
	local name=$1 label=$2 d=$out/$2
	shift 2
	nice "$axprof" record -q --hosted -d "$d.db" --mode vprof --period 400-440 --share 1/1 \
		--budget 32 --observe args,callers --proc-truth "$d.truth" "$@" \
		-- "$BUILD/workloads/$name" >/dev/null 2>"$d.err" || die "$label: record failed: $(head -c 300 "$d.err")"
	"$vprof" -d "$d.db" --args --json --image "$name" >"$d.args.json" &&
		"$vprof" -d "$d.db" --callers --json --image "$name" >"$d.callers.json" ||
		die "$label: vprof failed"
	python3 "$top/tests/tools/grade-procs.py" "$d.args.json" "$d.callers.json" "$d.truth" \
		--image "$name" >"$d.grade"
	local line g w
	line=$(tail -1 "$d.grade")
	g=$(echo "$line" | awk '{ print $2 }' | tr -d :)
	w=$(echo "$line" | awk '{ print $3 }')
	total=$((total + g))
	within=$((within + w))
	printf "%-22s %7s %7s   %s\n" "$label" "$g" "$w" "$(grep -c '^BAD' "$d.grade") off: $(grep '^BAD' "$d.grade" | head -2 | cut -c5- | tr '\n' ';')"
}
echo "vprof --args/--callers vs the procedure truth (values within 2 points, callers within 3;"
echo "procedures with >= 200 interpreted entries)"
printf "%-22s %7s %7s   %s\n" workload graded within "notes"
for n in "${names[@]}"; do
	[ -x "$BUILD/workloads/$n" ] || die "$BUILD/workloads/$n not built"
	one "$n" "$n"
	[ "$n" = callargs ] && one callargs callargs-insns --event insns --period insns=400-440
done
echo "all: $within of $total within tolerance" | tee "$out/summary"
