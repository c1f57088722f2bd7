#!/usr/bin/env bash
# bench/profileme-overhead.sh - what ProfileMe recording costs the hosted EV6 machine (printed only).
#
# The least CPU time (user + system) of REPS rounds (default 7; the configurations interleaved,
# so a load on the host hits them alike) of one workload (default copy) four ways on `--cpu ev6`:
# `axprof run` (no recording), `axprof record` with CYCLES sampling at the default period,
# `axprof record --mode profileme` at the default interval (60000-64000 fetched instructions,
# pairs W = 50), and the same with an interval of 10^8 (no sample in most runs): the recording
# without ProfileMe's samples. Prints the seconds and ProfileMe's cost three ways: over the
# machine's run time (the issue 14 target, <= 2%), over CYCLES recording, and over recording at
# no sample (what ProfileMe's own samples cost: its per-fetch counter is a compare that runs
# whether ProfileMe is on or not). Never a timed test: the numbers depend on the host.
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
BUILD=${BUILD:-build}
case "$BUILD" in /*) ;; *) BUILD=$top/$BUILD ;; esac
axprof=$BUILD/bin/axprof
prog=${1:-$BUILD/workloads/copy}
reps=${REPS:-7}
[ -x "$axprof" ] && [ -x "$prog" ] || { echo "profileme-overhead: build first (make all workloads)" >&2; exit 1; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/axprof-pme.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT

one() { # NAME command...: one run's CPU time (user + system) appended to $tmp/NAME
	local name=$1
	shift
	rm -rf "$tmp/db"
	/usr/bin/time -f "%U + %S" -o "$tmp/t" "$@" </dev/null >/dev/null 2>&1 ||
		{ echo "profileme-overhead: '$*' failed" >&2; exit 1; }
	echo "$(tail -1 "$tmp/t")" | bc >>"$tmp/$name"
}
for _ in $(seq "$reps"); do
	one run "$axprof" run --cpu ev6 -- "$prog"
	one cyc "$axprof" record -q --hosted --cpu ev6 -d "$tmp/db" -- "$prog"
	one pme "$axprof" record -q --hosted --cpu ev6 --mode profileme -d "$tmp/db" -- "$prog"
	one none "$axprof" record -q --hosted --cpu ev6 --mode profileme \
		--period 100000000-100000000 -d "$tmp/db" -- "$prog"
done
best() { sort -n "$tmp/$1" | head -1; }
run=$(best run) cyc=$(best cyc) pme=$(best pme) none=$(best none)
pct() { echo "scale=2; 100 * ($1 - $2) / $2" | bc; }
echo "profileme-overhead: $(basename "$prog"), CPU seconds, best of $reps: run --cpu ev6 ${run}s," \
	"record (cycles) ${cyc}s, record --mode profileme ${pme}s, the same at no sample ${none}s"
echo "profileme-overhead: ProfileMe over the machine's run time $(pct "$pme" "$run")% (target <= 2%)," \
	"over CYCLES recording $(pct "$pme" "$cyc")%, over recording at no sample $(pct "$pme" "$none")%"
