#!/usr/bin/env bash
# tests/tools/check-profileme.sh - ProfileMe end to end on the hosted EV6 machine, against its truth.
#
# `axprof record --mode profileme --cpu ev6` on copy and storeload (with --truth), then
# `axprof profileme --json` graded against the truth file (tests/tools/pme-truth.c):
#   - every instruction with >= 100 retired samples: estimated executions (retired samples x the
#     mean interval) within 4 standard deviations (sqrt(k) x S, MICRO'97 5.1) of its retires,
#     and >= 90% of the retired samples (weighted) within 15%;
#   - its event rates within 4 standard deviations of the truth's plus 2 points, over the same
#     population (axprof-profileme(1)): D-cache misses and mispredicts per retired execution,
#     replays per own issue attempt (retired or replayed);
#   - the images' estimated executions within 5% of the instructions the run retired;
#   - storeload: the replays the truth counts show up as replay aborts;
#   - the rates' populations on known counts (tests/tools/add-samples PROFILEME): bad-path
#     samples dilute none of them (the per-sample rates before issue 14's third slice did);
#   - refusals: --cpu ev5 (exit 2, no database), a database without ProfileMe data (exit 1, a
#     message, not an empty table), --pair-window without --mode profileme (exit 2).
. "$(dirname "$0")/lib.sh"
dump=$BUILD/tests/tools/pme-truth
need "$axprof" "$dump" "$wl/copy" "$wl/storeload"
command -v python3 >/dev/null || { echo "check-profileme: python3 needed"; exit 1; }

grade() { # NAME DB TRUTH IMAGE INSNS
	local name=$1 db=$2 truth=$3 image=$4 insns=$5 out
	"$dump" "$truth" >"$tmp/$name.truth" || { bad "$name" "pme-truth failed"; return; }
	"$axprof" profileme -d "$db" --image "$image" -n 0 --json >"$tmp/$name.json" &&
		"$axprof" profileme -d "$db" -n 1 --json >"$tmp/$name.all.json" ||
		{ bad "$name" "axprof profileme failed"; return; }
	if out=$(python3 - "$tmp/$name.json" "$tmp/$name.truth" "$insns" "$tmp/$name.all.json" <<'PY'
import json, math, sys
doc = json.load(open(sys.argv[1]))
truth = {}
for line in open(sys.argv[2]):
    pc, fetched, retired, dmiss, mp, rp = line.split()
    truth[int(pc, 16)] = (int(fetched), int(retired), int(dmiss), int(mp), int(rp))
insns = int(sys.argv[3])
errs, w_ok, w_all, graded = [], 0, 0, 0
est_total = sum(i["executions"] for i in json.load(open(sys.argv[4]))["images"])
for i in doc["instructions"]:
    a = int(i["address"], 16)
    if a not in truth or i["retired"] == 0:
        continue
    k = i["retired"]
    S = i["executions"] / k
    want = truth[a][1]
    w_all += k
    if want and abs(i["executions"] - want) <= 0.15 * want:
        w_ok += k
    if k < 100:
        continue
    graded += 1
    sd = math.sqrt(k) * S
    if abs(i["executions"] - want) > 4 * sd + S:
        errs.append("0x%x: %d estimated, %d retired" % (a, i["executions"], want))
    nrp = i["aborted"]["replay"]
    for what, est, p, n in (("D-cache miss", i["dcache_miss"], truth[a][2] / want, k),
                            ("mispredict", i["mispredict"], truth[a][3] / want, k),
                            ("replay", i["replay"], truth[a][4] / (truth[a][4] + want), k + nrp)):
        sdp = math.sqrt(max(p * (1 - p), 1e-9) / n)
        if abs(est - p) > 4 * sdp + 0.02:
            errs.append("0x%x: %s rate %.3f, truth %.3f" % (a, what, est, p))
if graded == 0:
    errs.append("no instruction with 100 retired samples")
if w_all == 0 or w_ok < 0.9 * w_all:
    errs.append("%d of %d retired samples within 15%%" % (w_ok, w_all))
if abs(est_total - insns) > 0.05 * insns:
    errs.append("image total %d estimated, %d retired" % (est_total, insns))
print("; ".join(errs) if errs else "%d instructions graded, %d/%d samples within 15%%" %
      (graded, w_ok, w_all))
sys.exit(1 if errs else 0)
PY
	); then
		ok "$name: $out"
	else
		bad "$name" "$out"
	fi
}

rec="$axprof record --hosted --seed 5 --mode profileme --cpu ev6"
insns_of() { sed -n 's/.*"insns":\([0-9]*\).*/\1/p' "$1"; }
if $rec -d "$tmp/c" --period 2000-2400 --truth "$tmp/c.truth" --json -- "$wl/copy" \
	>/dev/null 2>"$tmp/c.rec"; then
	grade copy "$tmp/c" "$tmp/c.truth" copy "$(insns_of "$tmp/c.rec")"
else
	bad copy "record failed: $(head -c 300 "$tmp/c.rec")"
fi
# storeload: replays, and the main image only holds part of the run (libc, ld.so): no total
if $rec -d "$tmp/s" --period 1000-1200 --pair-window 20 --truth "$tmp/s.truth" -- \
	"$wl/storeload" >/dev/null 2>"$tmp/s.rec"; then
	"$dump" "$tmp/s.truth" >"$tmp/s.tr"
	want=$(awk '{ n += $6 } END { print n + 0 }' "$tmp/s.tr")
	got=$("$axprof" profileme -d "$tmp/s" --image storeload -n 0 --json |
		python3 -c 'import json,sys; print(sum(i["aborted"]["replay"] for i in json.load(sys.stdin)["images"]))')
	if [ "$want" -gt 20000 ] && [ "${got:-0}" -gt 0 ]; then
		ok "storeload: $got replay-abort samples for $want replays"
	elif [ "$want" -le 20000 ]; then
		ok "storeload: $want replays, too few to expect samples ($got)"
	else
		bad storeload "$want replays in the truth, ${got:-no} replay-abort samples"
	fi
else
	bad storeload "record failed: $(head -c 300 "$tmp/s.rec")"
fi

# refusals
$axprof record --hosted --mode profileme -d "$tmp/ev5" -- "$wl/copy" >/dev/null 2>"$tmp/ev5.err"
rc=$?
if [ $rc = 2 ] && [ ! -e "$tmp/ev5" ] && grep -q "needs --cpu ev6" "$tmp/ev5.err"; then
	ok "--cpu ev5 refused, no database"
else
	bad ev5 "exit $rc, $(head -c 200 "$tmp/ev5.err")"
fi
$axprof record --hosted -q -d "$tmp/cyc" --period 20000-22000 -- "$wl/copy" >/dev/null 2>&1
"$axprof" profileme -d "$tmp/cyc" >"$tmp/cyc.out" 2>"$tmp/cyc.err"
rc=$?
if [ $rc = 1 ] && [ ! -s "$tmp/cyc.out" ] && grep -q "no ProfileMe samples" "$tmp/cyc.err"; then
	ok "no ProfileMe data: a message, exit 1"
else
	bad nodata "exit $rc, $(head -c 200 "$tmp/cyc.err")"
fi
# the rates on known counts: RETIRED,BADPATH,REPLAYED,DMISS,MISPREDICT at three offsets
add=$BUILD/tests/tools/add-samples
if [ -x "$add" ] && cp -a "$tmp/cyc" "$tmp/syn" &&
	"$add" "$tmp/syn" copy PROFILEME 0x1000=100,100,0,50,0 0x2000=100,200,100,0,0 \
		0x3000=100,300,0,0,20 2>"$tmp/syn.err"; then
	got=$("$axprof" profileme -d "$tmp/syn" -n 0 --json 2>&1 | python3 -c '
import json, sys
r = {int(i["address"], 16): i for i in json.load(sys.stdin)["instructions"]}
print(" ".join("%g" % v for v in (r[0x1000]["dcache_miss"], r[0x2000]["replay"],
      r[0x3000]["mispredict"], r[0x1000]["executions"], r[0x3000]["retired"])))' 2>&1)
	if [ "$got" = "0.5 0.5 0.2 10000 100" ]; then
		ok "rates per retired execution / own attempt, not diluted by bad-path samples"
	else
		bad rates "D-cache miss, replay, mispredict rates, executions, retired: '$got', want '0.5 0.5 0.2 10000 100'"
	fi
else
	bad rates "add-samples PROFILEME failed: $(head -c 200 "$tmp/syn.err" 2>/dev/null)"
fi
$axprof record --hosted --pair-window 5 -d "$tmp/pw" -- "$wl/copy" >/dev/null 2>"$tmp/pw.err"
rc=$?
if [ $rc = 2 ] && grep -q "needs --mode profileme" "$tmp/pw.err"; then
	ok "--pair-window without --mode profileme refused"
else
	bad pairwindow "exit $rc, $(head -c 200 "$tmp/pw.err")"
fi
finish
