#!/usr/bin/env bash
# eval/run-micro.sh - `make eval`: the EV6 microbenchmarks, expected vs measured cycles per iteration.
#
# Usage: eval/run-micro.sh [NAME...]     (default: every row of workloads/ev6-micro/expected.tsv)
# Environment: BUILD (default build), MICRO_CPUS (models to run, default "ev6 ev5").
#
# In the manner of sim-alpha (Desikan, Burger, Keckler, ISCA 2001): each microbenchmark runs
# under `axprof run --cpu MODEL --stats` twice, with its iteration count N and 2N; the cycles
# and retired instructions per iteration are the differences divided by N, which cancels
# start-up, setup and exit. The stats line read is
#   "axprof run: MODEL: C cycles, CPI x; CYCLES c RETIRED r ..."
# For ev6 the table gives the HRM-derived expectation (workloads/ev6-micro/EXPECTED.md), the
# error and the mean absolute error, over all rows and over the rows that rest on no [U]
# assumption. ev5 runs only as a sanity check of this harness: there are no EV5 expectations,
# so its table has measured figures and no error. A model that `axprof run` rejects (ev6
# before the EV6 model is built) is skipped with a message. Outputs: $BUILD/eval/micro-MODEL.txt
# (what is printed) and micro-MODEL.tsv. Exit 0, or 1 when a run fails or its instructions per
# iteration differ from the table's by 0.05 or more (the benchmark is not the one derived; the
# result line's printf, whose length depends on N, leaves a few hundredths).
set -u

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
BUILD=${BUILD:-build}
case "$BUILD" in /*) ;; *) BUILD=$top/$BUILD ;; esac
axprof=$BUILD/bin/axprof
mdir=$BUILD/workloads/ev6-micro
table=$top/workloads/ev6-micro/expected.tsv
out=$BUILD/eval
cpus=${MICRO_CPUS:-ev6 ev5}

die() {
	echo "eval micro: $*" >&2
	exit 1
}
[ -x "$axprof" ] || die "$axprof not built (make all)"
[ -r "$table" ] || die "cannot read $table"
mkdir -p "$out" || die "cannot create $out"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/axprof-micro.XXXXXX") || die "mktemp failed"
trap 'rm -rf "$tmp"' EXIT

# "CYCLES RETIRED" of one run (stats on stderr), or nothing when the line is missing.
run_stats() { # cpu prog iters
	"$axprof" run --cpu "$1" --stats "$2" "$3" >"$tmp/out" 2>"$tmp/err" || return 1
	awk -v cpu="$1" '
		$1 == "axprof" && $2 == "run:" && $3 == cpu ":" {
			c = r = ""
			for (i = 4; i < NF; i++) {
				if ($(i) == "CYCLES") c = $(i + 1)
				if ($(i) == "RETIRED") r = $(i + 1)
			}
			if (c != "" && r != "") print c, r
		}' "$tmp/err"
}

status=0
for cpu in $cpus; do
	probe=$mdir/ctl_loop
	[ -x "$probe" ] || die "$probe not built (make all)"
	if ! "$axprof" run --cpu "$cpu" --stats "$probe" 1 >/dev/null 2>"$tmp/probe"; then
		echo "eval micro: skipping $cpu: axprof run rejects --cpu $cpu ($(head -n 1 "$tmp/probe"))"
		continue
	fi
	report=$out/micro-$cpu.txt
	tsv=$out/micro-$cpu.tsv
	printf 'name\tgroup\texpected\tmeasured\terror_percent\tinsns_expected\tinsns_measured\tassume\n' >"$tsv"
	{
		echo "EV6 microbenchmarks under --cpu $cpu: cycles per iteration (difference of N and 2N iterations)"
		if [ "$cpu" = ev6 ]; then
			printf '%-12s %-9s %9s %9s %8s %7s  %s\n' name group expected measured "error%" insns assume
		else
			printf '%-12s %-9s %9s %9s %8s %7s  %s\n' name group "(ev6)" measured "" insns ""
		fi
	} | tee "$report"
	while IFS=$'\t' read -r name group iters insns expected assume; do
		case "$name" in '#'* | name | '') continue ;; esac
		if [ $# -gt 0 ] && ! printf '%s\n' "$@" | grep -qx "$name"; then
			continue
		fi
		prog=$mdir/$name
		if ! s1=$(run_stats "$cpu" "$prog" "$iters") || [ -z "$s1" ] ||
			! s2=$(run_stats "$cpu" "$prog" $((2 * iters))) || [ -z "$s2" ]; then
			echo "eval micro: $name under --cpu $cpu failed or printed no stats line: $(head -c 200 "$tmp/err")" | tee -a "$report"
			status=1
			continue
		fi
		line=$(awk -v s1="$s1" -v s2="$s2" -v n="$iters" -v e="$expected" -v ins="$insns" \
			-v cpu="$cpu" -v name="$name" -v group="$group" -v assume="$assume" 'BEGIN {
			split(s1, a, " "); split(s2, b, " ")
			m = (b[1] - a[1]) / n; r = (b[2] - a[2]) / n
			err = cpu == "ev6" ? sprintf("%.2f", 100 * (m - e) / e) : ""
			printf "%s\t%s\t%s\t%.3f\t%s\t%s\t%.3f\t%s\n", name, group, e, m, err, ins, r, assume
		}')
		printf '%s\n' "$line" >>"$tsv"
		printf '%s\n' "$line" | awk -F'\t' -v cpu="$cpu" '{
			if (cpu == "ev6")
				printf "%-12s %-9s %9.2f %9.2f %+7.2f%% %7.2f  %s\n", $1, $2, $3, $4, $5, $7, $8
			else
				printf "%-12s %-9s %9.2f %9.2f %8s %7.2f\n", $1, $2, $3, $4, "", $7
		}' | tee -a "$report"
		if ! awk -v a="$insns" -v b="$(printf '%s\n' "$line" | cut -f7)" \
			'BEGIN { d = a - b; exit !(d < 0.05 && d > -0.05) }'; then
			echo "eval micro: $name retires $(printf '%s\n' "$line" | cut -f7) instructions per iteration, the table says $insns: the derivation is not about this binary" | tee -a "$report"
			status=1
		fi
	done <"$table"
	if [ "$cpu" = ev6 ]; then
		awk -F'\t' 'NR > 1 && $5 != "" {
			a = $5 < 0 ? -$5 : $5; s += a; n++; if (a <= 5) w++
			if ($8 == "-") { sh += a; nh++ }
		} END {
			if (!n) exit
			printf "mean absolute error %.2f%% over %d microbenchmarks (%d within 5%%); ", s / n, n, w
			if (nh) printf "%.2f%% over the %d resting on no [U] assumption\n", sh / nh, nh
			else printf "\n"
			print "targets (issue 13): every one within 5%, mean error <= 2%"
		}' "$tsv" | tee -a "$report"
	fi
	echo | tee -a "$report"
done
exit $status
