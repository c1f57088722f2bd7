#!/usr/bin/env bash
# eval/run-pme-waste.sh - ProfileMe's wasted issue slots against the EV6 truth, and Figure 7.
#
# [PM] ProfileMe, MICRO'97 §5.2.3 and §6 (issue 14, items 4-5). Each workload (copy, storeload,
# semiinv, listwalk, and bzip2, gzip, lua when built) is recorded with `axprof record --mode
# profileme --cpu ev6 --truth` at PERIOD fetched instructions per pair (default 400-480, pairs
# W = 50, as eval/run-profileme.sh), and `axprof profileme --json`'s wasted_slots per instruction
# (L C S/2 - U W S from the pairs) is graded against the truth's (machine/mach_ev6_waste.c:
# C x in-progress cycles - retired instructions that issued in them, counted exactly):
#   - the Pearson correlation over the instructions, weighted by their samples (target >= 0.95),
#     per workload and over all of them pooled;
#   - the sums (estimated / true) per workload, which tell a bias from scatter.
# Then Figure 7 on workloads/bottleneck (three loops): per instruction, the total fetch->
# retire-ready latency (executions x mean latency) and the wasted slots, estimated and true; the
# instruction each metric ranks first; the wasted-slot ranking must put the planted bottleneck
# (bn_chase's load) first, where latency over-ranks bn_busy's (the paper's point).
# PME_WORKLOADS picks workloads (default all; "none": Figure 7 only). Exit 1 when a run fails, or
# with PME_STRICT=1 when a target is missed (tests/tools/check-pme-waste.sh).
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
BUILD=${BUILD:-build}
case "$BUILD" in /*) ;; *) BUILD=$top/$BUILD ;; esac
axprof=$BUILD/bin/axprof
dump=$BUILD/tests/tools/pme-waste
wl=$BUILD/workloads
period=${PERIOD:-400-480}
for f in "$axprof" "$dump" "$wl/bottleneck"; do
	[ -x "$f" ] || { echo "run-pme-waste: $f not built (make all tests)" >&2; exit 1; }
done
tmp=$(mktemp -d "${TMPDIR:-/tmp}/axprof-pme-waste.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
awk 'BEGIN { for (i = 0; i < 3000; i++) printf "line %d of the profileme eval %x\n", i, i * 7919 }' \
	>"$tmp/text"
printf 'local s = 0 for i = 1, 20000 do s = s + i %% 7 end print(s)\n' >"$tmp/prog.lua"
status=0
missed=0

# record NAME PROG ARGS...: the database in $tmp/db, truth dump in $tmp/w, view in $tmp/j.
record() {
	local name=$1 prog=$2 in=/dev/null
	shift 2
	case $name in bzip2 | gzip) in=$tmp/text ;; esac
	rm -rf "$tmp/db"
	if ! "$axprof" record -q --hosted --seed 11 --mode profileme --cpu ev6 --period "$period" \
		-d "$tmp/db" --truth "$tmp/t" -- "$prog" "$@" <"$in" >/dev/null 2>"$tmp/err"; then
		echo "run-pme-waste: $name: record failed: $(head -c 300 "$tmp/err")"
		return 1
	fi
	"$dump" "$tmp/t" >"$tmp/w" 2>"$tmp/err" &&
		"$axprof" profileme -d "$tmp/db" --image "$name" -n 0 --json >"$tmp/j" 2>"$tmp/err" ||
		{ echo "run-pme-waste: $name: $(head -c 300 "$tmp/err")"; return 1; }
}

echo "run-pme-waste: ProfileMe wasted issue slots on --cpu ev6, interval $period fetched instructions, pairs W = 50"
wls=${PME_WORKLOADS:-copy storeload semiinv listwalk bzip2 gzip lua}
[ "$wls" = none ] && wls=
for name in $wls; do
	prog=$wl/$name
	[ -x "$prog" ] || { echo "run-pme-waste: $name not built, skipped"; continue; }
	case $name in
	bzip2 | gzip) args=(-9 -c) ;;
	lua) args=("$tmp/prog.lua") ;;
	*) args=() ;;
	esac
	record "$name" "$prog" "${args[@]}" || { status=1; continue; }
	python3 - "$name" "$tmp/j" "$tmp/w" "$tmp/pool" <<'PY' || missed=1
import json, math, sys
name, jf, tf, pool = sys.argv[1:5]
truth = {}
for line in open(tf):
    f = line.split()
    truth[int(f[0], 16)] = int(f[5])
rows = []
for i in json.load(open(jf))["instructions"]:
    t = truth.get(int(i["address"], 16))
    if t is not None and i["samples"]:
        rows.append((i["samples"], float(i["wasted_slots"]), float(t)))
with open(pool, "a") as p:
    for r in rows:
        p.write("%d %f %f\n" % r)
def wcorr(v):
    W = sum(w for w, _, _ in v)
    mx = sum(w * x for w, x, _ in v) / W
    my = sum(w * y for w, _, y in v) / W
    sxy = sum(w * (x - mx) * (y - my) for w, x, y in v)
    sxx = sum(w * (x - mx) ** 2 for w, x, _ in v)
    syy = sum(w * (y - my) ** 2 for w, _, y in v)
    return sxy / math.sqrt(sxx * syy) if sxx > 0 and syy > 0 else float("nan")
c = wcorr(rows) if rows else float("nan")
se, st = sum(r[1] for r in rows), sum(r[2] for r in rows)
print("%-10s wasted slots: correlation %.4f over %d instructions (weighted by %d samples; target"
      " >= 0.95); sum estimated %.4g, true %.4g (ratio %.3f)"
      % (name, c, len(rows), sum(r[0] for r in rows), se, st, se / st if st else float("nan")))
sys.exit(0 if c >= 0.95 else 1)
PY
done
[ ! -s "$tmp/pool" ] || python3 - "$tmp/pool" <<'PY' || missed=1
import math, sys
v = [tuple(float(x) for x in l.split()) for l in open(sys.argv[1])]
W = sum(w for w, _, _ in v)
mx = sum(w * x for w, x, _ in v) / W
my = sum(w * y for w, _, y in v) / W
sxy = sum(w * (x - mx) * (y - my) for w, x, y in v)
sxx = sum(w * (x - mx) ** 2 for w, x, _ in v)
syy = sum(w * (y - my) ** 2 for w, _, y in v)
c = sxy / math.sqrt(sxx * syy) if sxx > 0 and syy > 0 else float("nan")
print("run-pme-waste: all: wasted-slot correlation %.4f over %d instructions, %d samples (target >= 0.95)"
      % (c, len(v), W))
sys.exit(0 if c >= 0.95 else 1)
PY

# Figure 7.
if record bottleneck "$wl/bottleneck"; then
	python3 - "$tmp/j" "$tmp/w" <<'PY' || missed=1
import json, sys
truth = {}
for line in open(sys.argv[2]):
    f = line.split()
    truth[int(f[0], 16)] = (int(f[5]), int(f[7]))
rows = []
for i in json.load(open(sys.argv[1]))["instructions"]:
    L = i["latency"]
    lat = i["executions"] * (L["fetch_map"] + L["map_data"] + L["data_issue"] + L["issue_ready"])
    t = truth.get(int(i["address"], 16), (0, 0))
    rows.append({"proc": i["procedure"], "pc": i["address"], "text": i["text"],
                 "samples": i["samples"], "lat": lat, "waste": float(i["wasted_slots"]),
                 "tlat": t[1], "twaste": t[0]})
loops = [r for r in rows if r["proc"] in ("bn_busy", "bn_chase", "bn_mul")]
print("ProfileMe Figure 7 (workloads/bottleneck): per instruction of the three loops, total"
      " fetch->retire-ready latency vs issue slots wasted while in progress (millions; instructions with >= 100 samples)")
print("%-9s %-12s %-18s %7s %9s %9s %9s %9s" % ("loop", "address", "instruction", "samples",
      "lat est", "lat true", "waste est", "waste true"))
for r in sorted([r for r in loops if r["samples"] >= 100], key=lambda r: -r["twaste"]):
    print("%-9s %-12s %-18s %7d %9.3f %9.3f %9.3f %9.3f" % (r["proc"], r["pc"], r["text"][:18],
          r["samples"], r["lat"] / 1e6, r["tlat"] / 1e6, r["waste"] / 1e6, r["twaste"] / 1e6))
first = {}
for key, what in (("lat", "latency, estimated"), ("tlat", "latency, true"),
                  ("waste", "wasted slots, estimated"), ("twaste", "wasted slots, true")):
    r = max(rows, key=lambda r: r[key])
    first[key] = r
    print("  ranked first by %-24s %s %s %s" % (what + ":", r["proc"], r["pc"], r["text"]))
v = [(r["samples"], r["waste"], r["twaste"]) for r in rows if r["samples"]]
W = sum(w for w, _, _ in v)
mx, my = sum(w * x for w, x, _ in v) / W, sum(w * y for w, _, y in v) / W
sxy = sum(w * (x - mx) * (y - my) for w, x, y in v)
sxx, syy = sum(w * (x - mx) ** 2 for w, x, _ in v), sum(w * (y - my) ** 2 for w, _, y in v)
corr = sxy / (sxx * syy) ** 0.5 if sxx > 0 and syy > 0 else float("nan")
print("  wasted slots, estimated vs true: correlation %.4f over %d instructions (weighted by"
      " samples; target >= 0.95)" % (corr, len(v)))
ok = all(first[k]["proc"] == "bn_chase" and first[k]["text"].startswith("ldq")
         for k in ("waste", "twaste"))
print("Figure 7: the wasted-slot ranking %s the planted bottleneck (bn_chase's load); latency ranks"
      " %s first%s" % ("finds" if ok else "MISSES", first["lat"]["proc"],
                       " (over-ranked, as in the paper)" if first["lat"]["proc"] != "bn_chase" else ""))
sys.exit(0 if ok and corr >= 0.95 else 1)
PY
else
	status=1
fi
[ "${PME_STRICT:-0}" = 1 ] && [ $missed = 1 ] && status=1
exit $status
