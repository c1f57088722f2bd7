#!/usr/bin/env bash
# tests/tools/check-pme-waste.sh - ProfileMe's Figure 7 end to end: on workloads/bottleneck the
# estimated wasted issue slots correlate with the EV6 truth (>= 0.95, weighted by samples) and
# rank the planted bottleneck (bn_chase's load) first, where total latency ranks bn_busy's.
# (eval/run-pme-waste.sh with PME_WORKLOADS=none PME_STRICT=1; the workload grading is make eval.)
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
out=$(mktemp "${TMPDIR:-/tmp}/axprof-check-pme-waste.XXXXXX") || exit 1
trap 'rm -f "$out"' EXIT
if ! PME_WORKLOADS=none PME_STRICT=1 "$top/eval/run-pme-waste.sh" >"$out" 2>&1; then
	cat "$out"
	echo "check-pme-waste: FAIL"
	exit 1
fi
grep -q "wasted-slot ranking finds the planted bottleneck" "$out" || { cat "$out"; echo "check-pme-waste: FAIL (no verdict)"; exit 1; }
grep "correlation\|Figure 7:" "$out"
echo "check-pme-waste: ok"
