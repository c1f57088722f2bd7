#!/usr/bin/env bash
# tests/tools/check-periods.sh - the database keeps its sampling periods; a repeated merge is refused.
#
#   1. After `axprof record --period 6000-6400`, annotate, topstalls and report --stalls (text and
#      JSON) print exactly what they print with --period 6000-6400 given, and something else with
#      a wrong --period (so the stored period is what they use). Likewise for a per-event period
#      (--period dmiss=100-120) against --event-period. axprofd stores its --period too.
#   2. Two databases of the same program recorded at periods ten times apart (6000-6400 and
#      60000-64000), merged: the hottest procedure's estimated cycles equal the sum of the two
#      databases' within 2%, and its cycles and instructions are twice the short-period run's
#      within 5%. Why: the merged database keeps the events each run represents exactly (samples
#      x its own period, pdb.h PERIODS), so the image's total is exact; a procedure's cycles are
#      its merged samples x the merged mean period, which equals the sum of the two estimates
#      when both runs put the same share of their samples in it. In the long-period run (~750
#      samples) that share (~94%) has a binomial standard error of sqrt(.94 x .06 / 750), 0.9% of
#      itself, and it weighs half of the merged events: 2% is over four standard errors of the
#      0.45% this moves the merged cycles. Instructions come from the frequency estimator, which
#      is not linear in the samples; the short-period run (~7500 samples) is the better single
#      estimate, and the two runs are one deterministic program, so the merged estimate must be
#      twice it within 5% (the long-period run's own estimate is itself off by up to ~6%, so the
#      sum of the two is not the reference for instructions).
#   3. `axprof merge` run twice: the second is refused (exit 1, a message naming the source);
#      --force merges.
. "$(dirname "$0")/lib.sh"
need "$axprof" "$bin/axprofd" "$wl/structsearch" "$wl/listwalk"
command -v python3 >/dev/null || {
	echo "check-periods.sh: python3 needed"
	exit 1
}

rec() { # DB PERIOD-OPTIONS... -- PROGRAM
	local db=$1
	shift
	"$axprof" record -q --hosted -d "$tmp/$db" "$@" >/dev/null 2>"$tmp/rec.err" ||
		bad "record $db" "$(head -c 300 "$tmp/rec.err")"
}

# Each analysis command, as "name|arguments" (the database is appended with -d).
cmds=(
	"annotate|annotate -n 2 IMAGE"
	"annotate-json|annotate -n 2 --json IMAGE"
	"topstalls|topstalls -n 10"
	"topstalls-json|topstalls -n 10 --json"
	"report-stalls|report --stalls"
	"report-stalls-json|report --stalls --json"
)

run_cmd() { # DB IMAGE OUT ARGS... : the command with extra options ARGS
	local db=$1 image=$2 out=$3 spec=$4
	shift 4
	# shellcheck disable=SC2086 # spec is a word list
	set -- ${spec//IMAGE/} "$@" -d "$tmp/$db"
	case "$spec" in *IMAGE*) set -- "$@" "$image" ;; esac
	"$axprof" "$@" >"$out" 2>"$tmp/cmd.err" || bad "axprof $*" "$(head -c 300 "$tmp/cmd.err")"
}

# same DB IMAGE "RIGHT OPTIONS" "WRONG OPTIONS" [SKIP]: per command, stored = right, stored !=
# wrong (not checked for the commands named in SKIP, whose output does not show what differs).
same() {
	local db=$1 image=$2 right=$3 wrong=$4 skip=${5:-} c name spec
	for c in "${cmds[@]}"; do
		name=${c%%|*}
		spec=${c#*|}
		run_cmd "$db" "$image" "$tmp/stored" "$spec"
		# shellcheck disable=SC2086 # option lists
		run_cmd "$db" "$image" "$tmp/given" "$spec" $right
		# shellcheck disable=SC2086
		run_cmd "$db" "$image" "$tmp/wrong" "$spec" $wrong
		if ! cmp -s "$tmp/stored" "$tmp/given"; then
			bad "$db $name" "differs from the same with $right"
			diff "$tmp/given" "$tmp/stored" | head -n 6
		elif [[ " $skip " != *" $name "* ]] && cmp -s "$tmp/stored" "$tmp/wrong"; then
			bad "$db $name" "the same with $wrong: the period makes no difference?"
		elif grep -qE 'assumed:|"period_assumed":true' "$tmp/stored"; then
			bad "$db $name" "says the period was assumed"
		else
			ok "$db $name: as with $right, not as with $wrong"
		fi
	done
}

# --- 1. stored periods ---------------------------------------------------------------------------
rec cyc --period 6000-6400 -- "$wl/structsearch"
same cyc structsearch "--period 6000-6400" "--period 62000"
# A DMISS period of 1 bounds listwalk's D-cache stalls far below what they are: the output changes
# (topstalls' text names the causes that remain, not their bounds: its JSON shows the change).
rec ev --event cycles,dmiss --period 6000-6400 --period dmiss=100-120 -- "$wl/listwalk"
same ev listwalk "--period 6200 --event-period dmiss=100-120" \
	"--period 6200 --event-period dmiss=1" topstalls
"$axprof" annotate -d "$tmp/cyc" -n 1 structsearch >"$tmp/a.txt" 2>&1
"$axprof" annotate -d "$tmp/ev" -n 1 listwalk >>"$tmp/a.txt" 2>&1
if grep -q "^mean CYCLES period 6200$" "$tmp/a.txt" &&
	grep -q "^mean CYCLES period 6200, dmiss period 110$" "$tmp/a.txt"; then
	ok "annotate reads the stored periods: CYCLES 6200, DMISS 110"
else
	bad "annotate period lines" "$(grep period "$tmp/a.txt" | head -n 2)"
fi

# axprofd keeps the period it configured: the saved records of tests/tools/golden replayed.
sed -e "s#@WL@#$wl#g" "$here/golden/semiinv.rec.maps" >"$tmp/semi.maps"
if "$bin/axprofd" -f --once --no-proc-maps -d "$tmp/daemon" --device "$here/golden/semiinv.rec" \
	--maps "$tmp/semi.maps" --pid-file "$tmp/pid" --period 20000-22000 >"$tmp/d.log" 2>&1 &&
	"$axprof" topstalls -d "$tmp/daemon" -n 1 >"$tmp/t.txt" 2>&1 &&
	grep -q "^mean CYCLES period 21000;" "$tmp/t.txt"; then
	ok "axprofd --period 20000-22000: the database says 21000"
else
	bad "axprofd period" "$(head -c 300 "$tmp/d.log") $(head -n 1 "$tmp/t.txt")"
fi

# --- 2. merging runs at different periods ----------------------------------------------------------
rec long --period 60000-64000 -- "$wl/structsearch"
"$axprof" merge -d "$tmp/merged" "$tmp/cyc" "$tmp/long" >/dev/null 2>"$tmp/m.err" ||
	bad "merge" "$(head -c 300 "$tmp/m.err")"
for d in cyc long merged; do
	"$axprof" annotate -d "$tmp/$d" -n 1 --json structsearch >"$tmp/$d.json" 2>"$tmp/a.err" ||
		bad "annotate $d" "$(head -c 300 "$tmp/a.err")"
done
if msg=$(python3 - "$tmp" <<'EOF'
import json, sys
t = sys.argv[1]
s = {d: json.loads(open(f"{t}/{d}.json").readline())["summary"] for d in ("cyc", "long", "merged")}
errs = []
total = s["cyc"]["cycles"] + s["long"]["cycles"]
if abs(s["merged"]["cycles"] - total) > 0.02 * total:
    errs.append(f"cycles: merged {s['merged']['cycles']:.0f}, the two databases {total:.0f}")
for k in ("cycles", "insns"):
    if abs(s["merged"][k] - 2 * s["cyc"][k]) > 0.05 * 2 * s["cyc"][k]:
        errs.append(f"{k}: merged {s['merged'][k]:.0f}, twice one run {2 * s['cyc'][k]:.0f}")
print("; ".join(errs) if errs else
      f"cycles {s['merged']['cycles']:.0f} ~ {s['cyc']['cycles']:.0f} + {s['long']['cycles']:.0f}, "
      f"instructions {s['merged']['insns']:.0f} ~ 2 x {s['cyc']['insns']:.0f}")
sys.exit(1 if errs else 0)
EOF
); then
	ok "merged periods 6200 and 62000: $msg"
else
	bad "merged estimates" "$msg"
fi

# --- 3. a repeated merge ---------------------------------------------------------------------------
"$axprof" merge -d "$tmp/m2" "$tmp/cyc" >/dev/null 2>&1 || bad "first merge" "failed"
"$axprof" merge -d "$tmp/m2" "$tmp/cyc" >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ $rc = 1 ] && grep -q "$tmp/cyc epoch 1.*already merged" "$tmp/err" &&
	grep -q -- "--force" "$tmp/err" && [ ! -s "$tmp/out" ]; then
	ok "second merge refused (exit 1): $(head -c 120 "$tmp/err")..."
else
	bad "second merge" "exit $rc: $(head -c 300 "$tmp/err")"
fi
"$axprof" annotate -d "$tmp/m2" -n 1 --json structsearch >"$tmp/m2.json" 2>/dev/null
# The same documents but for the database they name.
if cmp -s <(sed 's/"database":"[^"]*",//' "$tmp/m2.json") <(sed 's/"database":"[^"]*",//' "$tmp/cyc.json"); then
	ok "the refused merge added nothing"
else
	bad "refused merge" "the database changed"
fi
if "$axprof" merge -d "$tmp/m2" --force "$tmp/cyc" >/dev/null 2>"$tmp/err"; then
	ok "merge --force accepted"
else
	bad "merge --force" "$(head -c 300 "$tmp/err")"
fi
finish
