#!/usr/bin/env bash
# eval/run-replays.sh - `make eval`: vreplay's named conflicts graded against the EV6 replay traps.
#
# Usage: eval/run-replays.sh [NAME...]   (default: storeload m_replay_sl m_replay_ll)
# Environment: BUILD (default build), EVAL_PERIOD (CYCLES period LO-HI, default 200-300:
#   short runs need a short period for samples), EVAL_REPLAY_SHARE
#   (interpretation share N/D, default the recorder's vreplay 1/129, value-sampling slide 21),
#   EVAL_REPLAY_ITERS (iterations of the microbenchmarks, default 50000).
# Each workload is recorded with `axprof record --cpu ev6 --mode vreplay --event cycles,replays
# --truth`; `axeval --replays` then compares the interpreter's named (load, earlier store/load)
# pairs with the truth's replay records (eval/ev_replay.h: recall over the order traps weighted
# by trap count, precision over the named conflicts weighted by conflict count; Mbox replays
# counted apart). Outputs under $BUILD/eval/: replay-NAME.db, replay-NAME.truth, logs and
# replays.txt (what is printed). Exit 0, or 1 when a recording or the grading fails (a target
# not met is printed, not an error).
set -u

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
BUILD=${BUILD:-build}
case "$BUILD" in /*) ;; *) BUILD=$top/$BUILD ;; esac
axprof=$BUILD/bin/axprof
axeval=$BUILD/bin/axeval
out=$BUILD/eval
period=${EVAL_PERIOD:-200-300}
share=${EVAL_REPLAY_SHARE:-1/129}
iters=${EVAL_REPLAY_ITERS:-50000}

die() {
	echo "eval replays: $*" >&2
	exit 1
}
[ -x "$axprof" ] && [ -x "$axeval" ] || die "$axprof or $axeval not built (make all)"
mkdir -p "$out" || die "cannot create $out"

want=("$@")
[ ${#want[@]} = 0 ] && want=(storeload m_replay_sl m_replay_ll)

args=()
status=0
for n in "${want[@]}"; do
	case "$n" in
	m_*) bin=$BUILD/workloads/ev6-micro/$n argv=("$iters") ;;
	*) bin=$BUILD/workloads/$n argv=() ;;
	esac
	[ -x "$bin" ] || die "$bin missing (make all)"
	db=$out/replay-$n.db truth=$out/replay-$n.truth
	rm -rf "$db" "$truth"
	if ! "$axprof" record -q -d "$db" --hosted --cpu ev6 --mode vreplay --share "$share" \
		--period "$period" --event cycles,replays --truth "$truth" -- "$bin" "${argv[@]}" \
		>/dev/null 2>"$out/replay-$n.log" || [ ! -s "$truth" ]; then
		echo "eval replays: recording $n failed (log $out/replay-$n.log):"
		tail -n 3 "$out/replay-$n.log"
		status=1
		continue
	fi
	args+=("$n" "$db" "$bin" "$truth")
done
[ ${#args[@]} -gt 0 ] || die "every recording failed"

mean=$(echo "$period" | awk -F- '{ printf "%.3f", ($1 + $2) / 2 }')
echo "eval replays: --cpu ev6 --mode vreplay, CYCLES period $period, interpreting $share of the samples"
"$axeval" --replays --period "$mean" "${args[@]}" | tee "$out/replays.txt"
[ "${PIPESTATUS[0]}" = 0 ] || status=1
exit "$status"
