#!/usr/bin/env bash
# eval/run-profileme.sh - ProfileMe's estimates graded against the EV6 truth (issue 14, part of 5).
#
# Each workload (copy, storeload, semiinv, listwalk, and bzip2, gzip, lua when built) is
# recorded with `axprof record --mode profileme --cpu ev6 --truth` at PERIOD fetched instructions
# per pair (default 400-480, pairs W = 50: at 2000-2400 most of bzip2's, gzip's and lua's
# instructions had under 100 samples, so the 10% target failed by sampling alone; measured in
# issue 14's second slice), and `axprof profileme --json` of its main image is
# graded against the truth (tests/tools/pme-truth):
#   - executions: the share of the retired samples (weighted by samples) whose instruction's
#     estimated executions are within 10% of its retires (target >= 95%), and the same for
#     instructions with >= 100 retired samples (where 1/sqrt(k) < 10%);
#   - event rates: for instructions with >= 1000 samples, |estimated - true| of the D-cache miss
#     rate (per fetch) and of the replay-abort rate; target <= 2 points.
#   - sampling alone: the share of retired samples within 2/sqrt(k) of the truth (k the
#     instruction's retired samples): ~95% when the estimator is unbiased, whatever k; it tells
#     a biased estimator from too few samples (the 10% target needs k >= ~400 everywhere).
# PME_WORKLOADS picks workloads (default all). Prints one line per workload and the totals; exit
# 1 only when a run fails.
# Figure 2 is eval/run-skid.sh. Not done (issue 14): Figures 6 and 7, paths, annotate and vreplay
# from ProfileMe. Then ProfileMe's Figure 3 (convergence): the rms relative error of each instruction's execution
# count and D-cache miss count, binned by its samples k, beside 1/sqrt(k).
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
BUILD=${BUILD:-build}
case "$BUILD" in /*) ;; *) BUILD=$top/$BUILD ;; esac
axprof=$BUILD/bin/axprof
dump=$BUILD/tests/tools/pme-truth
wl=$BUILD/workloads
period=${PERIOD:-400-480}
for f in "$axprof" "$dump"; do
	[ -x "$f" ] || { echo "run-profileme: $f not built (make all tests)" >&2; exit 1; }
done
tmp=$(mktemp -d "${TMPDIR:-/tmp}/axprof-pme-eval.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
awk 'BEGIN { for (i = 0; i < 3000; i++) printf "line %d of the profileme eval %x\n", i, i * 7919 }' \
	>"$tmp/text"
printf 'local s = 0 for i = 1, 20000 do s = s + i %% 7 end print(s)\n' >"$tmp/prog.lua"
status=0
echo "run-profileme: ProfileMe on --cpu ev6, interval $period fetched instructions, pairs W = 50"
for name in ${PME_WORKLOADS:-copy storeload semiinv listwalk bzip2 gzip lua}; do
	prog=$wl/$name
	[ -x "$prog" ] || { echo "run-profileme: $name not built, skipped"; continue; }
	case $name in
	bzip2 | gzip) args=(-9 -c); in=$tmp/text ;;
	lua) args=("$tmp/prog.lua"); in=/dev/null ;;
	*) args=(); in=/dev/null ;;
	esac
	rm -rf "$tmp/db"
	if ! "$axprof" record -q --hosted --seed 11 --mode profileme --cpu ev6 --period "$period" \
		-d "$tmp/db" --truth "$tmp/t" -- "$prog" "${args[@]}" <"$in" >/dev/null 2>"$tmp/err"; then
		echo "run-profileme: $name: record failed: $(head -c 300 "$tmp/err")"
		status=1
		continue
	fi
	"$dump" "$tmp/t" >"$tmp/t.txt" &&
		"$axprof" profileme -d "$tmp/db" --image "$name" -n 0 --json >"$tmp/j" 2>"$tmp/err" ||
		{ echo "run-profileme: $name: $(head -c 300 "$tmp/err")"; status=1; continue; }
	python3 - "$name" "$tmp/j" "$tmp/t.txt" "$tmp/fig3" <<'PY' | tee -a "$tmp/all"
import json, sys
name = sys.argv[1]
fig3 = open(sys.argv[4], "a")  # per instruction: k, execution error, miss samples, miss error
doc = json.load(open(sys.argv[2]))
truth = {}
for line in open(sys.argv[3]):
    pc, fetched, retired, dmiss, mp, rp = line.split()
    truth[int(pc, 16)] = [int(x) for x in (fetched, retired, dmiss, mp, rp)]
w = w10 = w100 = w100ok = wz = 0
worst_d = worst_r = 0.0
big = 0
for i in doc["instructions"]:
    t = truth.get(int(i["address"], 16))
    if not t or not i["retired"]:
        continue
    k = i["retired"]
    ok = t[1] and abs(i["executions"] - t[1]) <= 0.10 * t[1]
    w += k
    w10 += k if ok else 0
    # sampling alone: k samples give a relative error ~ 1/sqrt(k) [PM Fig. 3]; an unbiased
    # estimator is within 2/sqrt(k) for ~95% of the samples
    wz += k if t[1] and abs(i["executions"] - t[1]) <= 2.0 / k ** 0.5 * t[1] else 0
    if t[1]:
        kd = i["dcache_miss"] * i["samples"]
        # fetches estimated as the view's executions over the retired share of the samples
        fetched = i["executions"] * i["samples"] / i["retired"]
        md = (i["dcache_miss"] * fetched - t[2]) / t[2] if t[2] else float("nan")
        fig3.write("%d %f %f %f\n" % (k, (i["executions"] - t[1]) / t[1], kd, md))
    if k >= 100:
        w100 += k
        w100ok += k if ok else 0
    if i["samples"] >= 1000 and t[0]:
        big += 1
        worst_d = max(worst_d, abs(i["dcache_miss"] - t[2] / t[0]))
        worst_r = max(worst_r, abs(i["replay"] - t[4] / t[0]))
print("%-10s executions within 10%%: %5.1f%% of %d retired samples (%5.1f%% of those with >= 100,"
      " %5.1f%% within 2/sqrt(k)); rates, %d instructions with >= 1000 samples: worst D-cache"
      " miss %.2f, replay %.2f points"
      % (name, 100.0 * w10 / w if w else 0, w, 100.0 * w100ok / w100 if w100 else 0,
         100.0 * wz / w if w else 0, big, 100 * worst_d, 100 * worst_r))
print("TOTAL %d %d %d %d %f %f %d" % (w, w10, w100, w100ok, worst_d, worst_r, wz), file=sys.stderr)
PY
done 2>>"$tmp/tot"
awk '{ w += $2; a += $3; w1 += $4; a1 += $5; if ($6 > d) d = $6; if ($7 > r) r = $7; z += $8 }
	END { if (w) printf "run-profileme: all: executions within 10%%: %.1f%% of %d retired samples (target >= 95%%), %.1f%% of those with >= 100, %.1f%% within 2/sqrt(k) (sampling alone: ~95%%); worst rate error %.2f (D-cache), %.2f (replay) points (target <= 2)\n", 100 * a / w, w, w1 ? 100 * a1 / w1 : 0, 100 * z / w, 100 * d, 100 * r }' "$tmp/tot"
# ProfileMe's Figure 3: convergence. Per instruction, the relative error of its execution count
# (by its retired samples k) and of its D-cache miss count (by its miss samples), as root mean
# square per bin of k, beside 1/sqrt(k): an unbiased sampler follows that line.
[ -s "$tmp/fig3" ] && python3 - "$tmp/fig3" <<'PY'
import math, sys
rows = [l.split() for l in open(sys.argv[1])]
bins = [(1, 3), (3, 10), (10, 30), (30, 100), (100, 300), (300, 1000), (1000, 10 ** 9)]
print("ProfileMe Figure 3: rms relative error per instruction against its samples k")
print("%-12s %8s %10s %10s   %8s %10s" % ("k", "insns", "executions", "1/sqrt(k)", "insns", "D-misses"))
for a, b in bins:
    e = [float(r[1]) for r in rows if a <= int(r[0]) < b]
    d = [float(r[3]) for r in rows if a <= float(r[2]) < b and r[3] != "nan"]
    mid = math.sqrt(a * min(b, 3000))
    rms = lambda v: math.sqrt(sum(x * x for x in v) / len(v)) if v else float("nan")
    print("%-12s %8d %10.3f %10.3f   %8d %10.3f" % ("%d..%s" % (a, b - 1 if b < 10 ** 9 else ""),
          len(e), rms(e), 1 / math.sqrt(mid), len(d), rms(d)))
PY
exit $status
