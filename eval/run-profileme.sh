#!/usr/bin/env bash
# eval/run-profileme.sh - ProfileMe's estimates graded against the EV6 truth (issue 14, part of 5).
#
# Each workload (copy, storeload, semiinv, listwalk, and bzip2, gzip, lua when built) is
# recorded with `axprof record --mode profileme --cpu ev6 --truth` at PERIOD fetched instructions
# per pair (default 400-480, pairs W = 50), and `axprof profileme --json` of its main image is
# graded against the truth (tests/tools/pme-truth):
#   - executions: the share of the retired samples (weighted by samples) whose instruction's
#     estimated executions are within 10% of its retires (target >= 95%), and the same for
#     instructions with >= 100 retired samples;
#   - sampling alone: the share of retired samples within 2/sqrt(k) of the truth (k the
#     instruction's retired samples): ~95% when the estimator is unbiased, whatever k; it tells
#     a biased estimator from too few samples. Issue 14's third slice measured the estimator
#     unbiased (per instruction, (k - N/S) / sqrt(N/S) has mean -0.02..-0.06 and variance
#     0.7..1.03 on lua, bzip2, gzip, N its retires): the 10% target is a matter of samples, and
#     needs k >= ~400 (2/sqrt(k) <= 10%) for most of them. Hence the run lengths: bzip2 and gzip
#     compress 12000 lines (3000 before: 87.5%, 88.0%), lua runs 200000 iterations (20000
#     before: 67.4%, its loop's instructions had ~90 samples each);
#   - event rates, as axprof-profileme(1) defines them and the truth over the same population:
#     D-cache miss and mispredict per retired execution, replay per own issue attempt (retired
#     or replayed); for instructions with >= 1000 samples, the worst |estimated - true| (target
#     <= 2 points), how many are within 2 points, and the worst error in standard deviations
#     of binomial sampling (sqrt(p (1 - p) / n)): at n = 1000 one deviation is up to 1.6
#     points, so the 2-point target is sampling-bound for rates near 0.5. The per-sample rates
#     the view printed before (diluted by bad-path samples, which carry no events) are graded
#     beside them, the old way (per fetch), for the record.
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
awk 'BEGIN { for (i = 0; i < 12000; i++) printf "line %d of the profileme eval %x\n", i, i * 7919 }' \
	>"$tmp/text"
printf 'local s = 0 for i = 1, 200000 do s = s + i %% 7 end print(s)\n' >"$tmp/prog.lua"
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
import json, math, sys
name = sys.argv[1]
fig3 = open(sys.argv[4], "a")  # per instruction: k, execution error, miss samples, miss error
doc = json.load(open(sys.argv[2]))
truth = {}
for line in open(sys.argv[3]):
    pc, fetched, retired, dmiss, mp, rp = line.split()
    truth[int(pc, 16)] = [int(x) for x in (fetched, retired, dmiss, mp, rp)]
w = w10 = w100 = w100ok = wz = 0
# per event (D-cache miss, mispredict, replay): instructions graded, within 2 points, worst
# error (points), worst error in standard deviations of the sampling alone
ev = {e: [0, 0, 0.0, 0.0] for e in ("dcache", "mispredict", "replay")}
old_d = old_r = 0.0  # the per-sample rates the view printed before issue 14's third slice
for i in doc["instructions"]:
    t = truth.get(int(i["address"], 16))
    if not t:
        continue
    k = i["retired"]
    if k:
        ok = t[1] and abs(i["executions"] - t[1]) <= 0.10 * t[1]
        w += k
        w10 += k if ok else 0
        # sampling alone: k samples give a relative error ~ 1/sqrt(k) [PM Fig. 3]; an unbiased
        # estimator is within 2/sqrt(k) for ~95% of the samples
        wz += k if t[1] and abs(i["executions"] - t[1]) <= 2.0 / k ** 0.5 * t[1] else 0
        if t[1]:
            kd = i["dcache_miss"] * k  # D-cache-miss samples (the rate is per retired sample)
            md = (i["dcache_miss"] * i["executions"] - t[2]) / t[2] if t[2] else float("nan")
            fig3.write("%d %f %f %f\n" % (k, (i["executions"] - t[1]) / t[1], kd, md))
        if k >= 100:
            w100 += k
            w100ok += k if ok else 0
    if i["samples"] < 1000 or not t[1]:
        continue
    # the rates as axprof-profileme(1) defines them, and the truth's over the same population:
    # D-cache misses and mispredicts per retired execution, replays per own issue attempt
    # (retired or replayed); the sampling error is binomial over the view's denominator
    nrp = i["aborted"]["replay"]
    for e, est, tr, n in (("dcache", i["dcache_miss"], t[2] / t[1], k),
                          ("mispredict", i["mispredict"], t[3] / t[1], k),
                          ("replay", i["replay"], t[4] / (t[4] + t[1]), k + nrp)):
        g = ev[e]
        err = abs(est - tr)
        sd = math.sqrt(max(tr * (1 - tr), 0.25 / n) / n) if n else 1
        g[0] += 1
        g[1] += 1 if err <= 0.02 else 0
        g[2] = max(g[2], err)
        g[3] = max(g[3], err / sd)
    if t[0]:
        old_d = max(old_d, abs(i["dcache_miss"] * k / i["samples"] - t[2] / t[0]))
        old_r = max(old_r, abs(nrp / i["samples"] - t[4] / t[0]))
print("%-10s executions within 10%%: %5.1f%% of %d retired samples (%5.1f%% of those with >= 100,"
      " %5.1f%% within 2/sqrt(k)); rates, %d instructions with >= 1000 samples, worst error"
      " (points, standard deviations): D-cache miss %.2f (%.1f), mispredict %.2f (%.1f),"
      " replay %.2f (%.1f); per sample (old): D-cache %.2f, replay %.2f"
      % (name, 100.0 * w10 / w if w else 0, w, 100.0 * w100ok / w100 if w100 else 0,
         100.0 * wz / w if w else 0, ev["dcache"][0], 100 * ev["dcache"][2], ev["dcache"][3],
         100 * ev["mispredict"][2], ev["mispredict"][3], 100 * ev["replay"][2],
         ev["replay"][3], 100 * old_d, 100 * old_r))
print("TOTAL %d %d %d %d %d %s %f %f" % (w, w10, w100, w100ok, wz,
      " ".join("%d %d %f %f" % tuple(ev[e]) for e in ("dcache", "mispredict", "replay")),
      old_d, old_r), file=sys.stderr)
PY
done 2>>"$tmp/tot"
awk '{ w += $2; a += $3; w1 += $4; a1 += $5; z += $6
	for (e = 0; e < 3; e++) { n[e] += $(7 + 4 * e); in2[e] += $(8 + 4 * e)
		if ($(9 + 4 * e) > worst[e]) worst[e] = $(9 + 4 * e); if ($(10 + 4 * e) > sd[e]) sd[e] = $(10 + 4 * e) }
	if ($19 > od) od = $19; if ($20 > or) or = $20 }
	END { if (!w) exit
	printf "run-profileme: all: executions within 10%%: %.1f%% of %d retired samples (target >= 95%%), %.1f%% of those with >= 100, %.1f%% within 2/sqrt(k) (sampling alone: ~95%%)\n", 100 * a / w, w, w1 ? 100 * a1 / w1 : 0, 100 * z / w
	split("D-cache miss,mispredict,replay", nm, ",")
	for (e = 0; e < 3; e++)
		printf "run-profileme: all: %s rate, %d instructions with >= 1000 samples: %d within 2 points, worst %.2f points (target <= 2), %.1f standard deviations of the sampling alone\n", nm[e + 1], n[e], in2[e], 100 * worst[e], sd[e]
	printf "run-profileme: all: the per-sample rates (before issue 14 slice 3, diluted by bad-path samples): worst D-cache %.2f, replay %.2f points\n", 100 * od, 100 * or }' "$tmp/tot"
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
