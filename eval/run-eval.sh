#!/usr/bin/env bash
# eval/run-eval.sh - `make eval`: record the workload suite on the hosted EV5 machine with ground
# truth, then grade the frequency and culprit estimates (DCPI SOSP'97 Figures 8, 9, 10).
#
# Usage: eval/run-eval.sh [NAME...]      (default: every workload below that is built)
# Environment: BUILD (default build), EVAL_PERIOD (CYCLES period LO-HI, default 50-75: our
#   programs run for 0.1-1 s of simulated time, where DCPI profiled SPEC95 for minutes at
#   60000-64000; a short period gives them the samples per instruction a long run would: see
#   below),
#   EVAL_EVENT_PERIOD (IMISS/DMISS/BRANCHMP period LO-HI when the recorder takes per-event
#   periods, default 45-55), EVAL_JOBS (parallel recordings, default 2), EVAL_LUA_N (mix.lua's
#   N, default 6000: see below), EVAL_SMALL_ROUNDS (tree's and libcheavy's rounds, default 8: below).
# Outputs under $BUILD/eval/: one database and truth file per workload (<name>.db, <name>.truth),
# record logs, detail.csv (every graded instruction), figures.json, and report.txt (what is
# printed).
set -u

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
BUILD=${BUILD:-build}
case "$BUILD" in /*) ;; *) BUILD=$top/$BUILD ;; esac
axprof=$BUILD/bin/axprof
axeval=$BUILD/bin/axeval
out=$BUILD/eval
# The period. Sampling on the hosted machine costs the sampled program nothing (its truth file is
# byte-identical at periods 25-38 and 200-300, and recording takes about the same time), so the
# period only sets how many samples the estimates rest on. Measured 2026-11-28 (issue 15): at
# 200-300 the misses left were sampling noise (eval/noise-floor.sh: estimates at or above the
# own-points floor), and a program whose largest class rests on one clean issue point fell below
# 80% within 5% on the draw (semiinv 70.1% on one recording, 97-98% on others; outside the suite
# bottleneck 69.0%: 2.7-2.9 sd draws). At 100-150 the suite measured 95.9 / 98.3 / 98.6% within
# 5/10/15%, every program >= 90.7%, but seven programs written afterwards and never tuned on
# (hash map, quicksort, stencil, word count, expression VM, bit kernels, C++ virtual calls; five
# recordings) 87.0-94.1 / 97.0-97.9 / 97.7-98.1%, their hash map 68.8-91.7% within 5%: its hot
# classes each rest on one clean point of 1,000-2,000 samples, which drew 1.4-2.1 sd low
# together in one recording. At 50-75 (four times 200-300's samples, sd halved): the suite 97.0 /
# 98.3 / 98.5%, every program >= 92.1%; the seven 96.1-96.4 / 97.7-97.9 / 98.1-98.2%, every
# program >= 93.5% (two recordings); the five of stop 33 (hotspots ... cxxshapes) 99.0 / 99.2 /
# 99.3%, every program >= 96.7%. Recording the suite, one job at a time, took 172 s (171 s at
# 100-150).
period=${EVAL_PERIOD:-50-75}
evperiod=${EVAL_EVENT_PERIOD:-45-55}
jobs=${EVAL_JOBS:-2}

die() {
	echo "eval: $*" >&2
	exit 1
}
[ -x "$axprof" ] && [ -x "$axeval" ] || die "$axprof or $axeval not built (make all)"
mkdir -p "$out" || die "cannot create $out"

mean() { # mean of LO-HI
	echo "$1" | awk -F- '{ printf "%.3f", ($1 + $2) / 2 }'
}

# The suite: our programs with their default arguments (tree and libcheavy with 8 rounds, below;
# tree ... libcheavy: the code shapes of issue 15, graded outside the first suite: recursion, string
# hashing, switch and computed-goto VMs, cross-block FP latencies, libc-heavy code), then bzip2,
# gzip and Lua (running workloads/lua/mix.lua: the one program with a large code footprint, hence
# most of the I-cache misses Figure 10 correlates) when built.
all=(copy structsearch adi conv3x3 listwalk semiinv storeload fpkernel tree strhash swvm gotovm fpchain
	libcheavy bzip2 gzip lua)
want=("$@")
[ ${#want[@]} = 0 ] && want=("${all[@]}")

# A deterministic input for the compressors (~250 KB of text, repeats and bytes).
input=$out/input.bin
make_input() {
	{
		awk 'BEGIN {
			for (i = 0; i < 4000; i++)
				printf "%05d the quick brown fox %d jumps over %x lazy dogs\n", i, (i * i) % 977, i * 2654435761 % 65536
		}'
		for i in 1 2 3 4 5 6; do
			printf 'repeated block %d: ' "$i"
			head -c 6000 "$top/workloads/copy.c"
		done
		awk 'BEGIN { x = 12345; for (i = 0; i < 60000; i++) { x = (x * 1103515245 + 12345) % 2147483648; printf "%c", int(x / 65536) % 256 } }'
	} >"$1"
}
LC_ALL=C make_input "$input"

# Does the recorder take per-event periods (`--period imiss=LO-HI`)?
events=cycles
evopts=()
axeval_ev=()
probe=$out/probe.db
rm -rf "$probe"
# (the probe runs workloads/exitcode: without it every probe would fail and the grading fall back
# to the truth's event counts unnoticed)
[ -x "$BUILD/workloads/exitcode" ] || die "$BUILD/workloads/exitcode missing (make workloads): it probes the recorder"
if "$axprof" record -q -d "$probe" --hosted --period "$period" --event cycles,imiss,dmiss,branchmp \
	--period "imiss=$evperiod" --period "dmiss=$evperiod" --period "branchmp=$evperiod" \
	-- "$BUILD/workloads/exitcode" 3 >/dev/null 2>"$out/probe.log"
[ $? = 3 ]; then # the program's own status passed through: recorded
	events=cycles,imiss,dmiss,branchmp
	evopts=(--period "imiss=$evperiod" --period "dmiss=$evperiod" --period "branchmp=$evperiod")
	m=$(mean "$evperiod")
	axeval_ev=(--event-period "imiss=$m" --event-period "dmiss=$m" --event-period "branchmp=$m")
	echo "eval: sampling CYCLES (period $period) and IMISS, DMISS, BRANCHMP (period $evperiod)"
else
	echo "eval: the recorder has no per-event periods (--period E=LO-HI): sampling CYCLES only"
	echo "eval: (period $period); the event counts that bound stalls (IMISS, DMISS, BRANCHMP...)"
	echo "eval: are the machine's exact ones instead (axeval --truth-events, the limit of sampling)"
	axeval_ev=(--truth-events)
fi
rm -rf "$probe"

# Lua runs mix.lua with N = 6000 (its default is 3000). Measured 2026-11-28 (issue 15): at 3000
# Lua drew 102 CYCLES samples per executed instruction (five recordings, 102-104) against 210 for
# the other 16 programs pooled (median per program 124), and 23% of its samples lay in classes of
# fewer than 1,000 samples against 3.8%: its misses were mostly sampling noise, within 5% 79.8-82.2%
# over those five recordings. At 6000: 208-209 per instruction, 11% in such classes, 87.6-89.9%
# within 5% over six recordings, about 60 s to record instead of 30.
lua_n=${EVAL_LUA_N:-6000}

# tree and libcheavy run 8 rounds instead of their default 4, for the same reason. Measured
# 2026-11-28 (issue 15) at 4 rounds: 20-21% (tree) and 28% (libcheavy) of their CYCLES samples lay
# in classes of fewer than 1,000 samples, against 0.2-12% for the other twelve small programs, and
# over five environment sizes each drew 75.7-88.5% (tree) and 74.5-81.6% (libcheavy) within 5%:
# the 80% floor decided by the draw, as stop 30's noise-floor.sh showed. At 8 rounds: 8% and 16%
# in such classes, 188 and 134 samples per executed instruction (the suite's median ~124), and over
# ten environment sizes each 81.2-91.9% (tree) and 86.2-91.3% (libcheavy) within 5%.
small_rounds=${EVAL_SMALL_ROUNDS:-8}

# record NAME: one workload into $out/NAME.db with $out/NAME.truth.
record() {
	local name=$1 bin=$BUILD/workloads/$1 db=$out/$1.db
	local cmd=("$axprof" record -q -d "$db" --mode cycles --cpu ev5 --hosted --period "$period"
		--event "$events" "${evopts[@]}" --truth "$out/$name.truth" --)
	rm -rf "$db" "$out/$name.truth"
	case "$name" in
	bzip2) "${cmd[@]}" "$bin" -9 -c <"$input" >/dev/null 2>"$out/$name.log" ;;
	gzip) "${cmd[@]}" "$bin" -n -6 -c <"$input" >/dev/null 2>"$out/$name.log" ;;
	lua) "${cmd[@]}" "$bin" "$top/workloads/lua/mix.lua" "$lua_n" >/dev/null 2>"$out/$name.log" ;;
	tree | libcheavy) "${cmd[@]}" "$bin" "$small_rounds" >/dev/null 2>"$out/$name.log" ;;
	*) "${cmd[@]}" "$bin" >/dev/null 2>"$out/$name.log" ;;
	esac
}

names=()
t0=$(date +%s)
running=0
for n in "${want[@]}"; do
	if [ ! -x "$BUILD/workloads/$n" ]; then
		case "$n" in
		bzip2 | gzip | lua) echo "eval: $n not built (make workloads): skipped" ;;
		*) echo "eval: $BUILD/workloads/$n missing: skipped" ;;
		esac
		continue
	fi
	names+=("$n")
	record "$n" &
	running=$((running + 1))
	if [ "$running" -ge "$jobs" ]; then
		wait -n
		running=$((running - 1))
	fi
done
wait
t1=$(date +%s)
[ ${#names[@]} -gt 0 ] || die "no workload to evaluate (make all; make workloads)"

args=()
for n in "${names[@]}"; do
	if [ ! -s "$out/$n.truth" ]; then
		echo "eval: recording $n failed (log $out/$n.log):"
		tail -n 3 "$out/$n.log"
		continue
	fi
	args+=("$n" "$out/$n.db" "$BUILD/workloads/$n" "$out/$n.truth")
done
[ ${#args[@]} -gt 0 ] || die "every recording failed"

echo "eval: recorded ${#names[@]} workloads in $((t1 - t0)) s"
"$axeval" --period "$(mean "$period")" "${axeval_ev[@]}" --detail "$out/detail.csv" \
	--json "$out/figures.json" "${args[@]}" | tee "$out/report.txt"
status=${PIPESTATUS[0]}

# Calibration of the confidence (issue 15): per confidence level, its share of the graded
# CYCLES samples and how many of them are within 5/10/15% (target: >= 98% of the high ones
# within 15%). From detail.csv: err is |estimate - exact| / exact, weighted by samples.
if [ -s "$out/detail.csv" ]; then
	awk -F, 'NR > 1 {
		s = $6; c = $11; e = $10 < 0 ? -$10 : $10
		tot += s; n[c] += s
		if (e <= 0.05) w5[c] += s
		if (e <= 0.10) w10[c] += s
		if (e <= 0.15) w15[c] += s
	}
	END {
		print ""
		print "Calibration: CYCLES samples by the confidence of their estimate"
		printf "  %-8s %8s %8s %8s %8s\n", "conf", "share", "<=5%", "<=10%", "<=15%"
		split("high medium low", lv, " ")
		for (i = 1; i <= 3; i++) {
			c = lv[i]
			if (!n[c])
				continue
			printf "  %-8s %7.1f%% %7.1f%% %7.1f%% %7.1f%%\n", c, 100 * n[c] / tot,
				100 * w5[c] / n[c], 100 * w10[c] / n[c], 100 * w15[c] / n[c]
		}
	}' "$out/detail.csv" | tee -a "$out/report.txt"
	# Noise or bias: the estimates against what sampling noise alone allows (stop 30)
	echo | tee -a "$out/report.txt"
	"$here/noise-floor.sh" "$out/detail.csv" | tee -a "$out/report.txt"
fi
echo "eval: done in $(($(date +%s) - t0)) s; outputs in $out"
exit "$status"
