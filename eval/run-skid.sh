#!/usr/bin/env bash
# eval/run-skid.sh - ProfileMe's Figure 2: where D-cache miss samples land, event counter vs ProfileMe.
#
# Usage: eval/run-skid.sh   (make eval runs it; BUILD as elsewhere; SKID_ITERS, default 20000)
# workloads/skid is a loop of one load that misses the D-cache every iteration (skid_load),
# then 255 nops. Three recordings of it:
#   - EV5, DMISS event counter (period 20-30): the 21164 delivers the interrupt 6 cycles after
#     the overflow, at the oldest instruction in the issue queue (DCPI SOSP'97 §4.1): samples
#     peak a few instructions after the load;
#   - EV6, DMISS event counter: the 21264 takes the interrupt at a retire boundary
#     (machine/EV6-MODEL.md, "skid"): samples land wherever retirement stood;
#   - EV6 ProfileMe: each sampled instruction carries its own D-cache miss bit, so the misses are
#     attributed to the instruction that missed (MICRO'97 §3).
# For each, the share of D-cache-miss samples attributed to the load, and a histogram by distance
# (instructions after the load). Prints figures; exit 1 only when a recording fails.
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
BUILD=${BUILD:-build}
case "$BUILD" in /*) ;; *) BUILD=$top/$BUILD ;; esac
axprof=$BUILD/bin/axprof
bin=$BUILD/workloads/skid
out=$BUILD/eval/skid
iters=${SKID_ITERS:-20000}
die() {
	echo "eval skid: $*" >&2
	exit 1
}
[ -x "$axprof" ] && [ -x "$bin" ] || die "$axprof or $bin not built (make all)"
command -v python3 >/dev/null || die "python3 missing"
load=$(alpha-linux-gnu-nm "$bin" 2>/dev/null | awk '$3 == "skid_load" { print $1 }')
[ -n "$load" ] || die "no skid_load symbol in $bin (alpha-linux-gnu-nm)"
rm -rf "$out" && mkdir -p "$out" || die "cannot create $out"

for cpu in ev5 ev6; do
	"$axprof" record -q --hosted -d "$out/$cpu.db" --cpu "$cpu" --event dmiss --period dmiss=20-30 \
		-- "$bin" "$iters" >/dev/null 2>"$out/$cpu.log" || die "recording on $cpu failed ($out/$cpu.log)"
	"$axprof" export -d "$out/$cpu.db" --format csv --event dmiss -o "$out/$cpu.csv" 2>>"$out/$cpu.log" ||
		die "export of $cpu failed ($out/$cpu.log)"
done
"$axprof" record -q --hosted -d "$out/pme.db" --mode profileme --cpu ev6 --period 400-480 \
	-- "$bin" "$iters" >/dev/null 2>"$out/pme.log" || die "ProfileMe recording failed ($out/pme.log)"
"$axprof" profileme -d "$out/pme.db" --image skid -n 0 --json >"$out/pme.json" 2>>"$out/pme.log" ||
	die "axprof profileme failed ($out/pme.log)"

python3 - "$load" "$out" <<'PY'
import csv, json, sys
load, out = int(sys.argv[1], 16), sys.argv[2]

def hist(pairs):  # [(pc, count)] -> share on the load, histogram by distance
    tot = sum(c for _, c in pairs)
    b = {"load": 0, "+1..4": 0, "+5..16": 0, "+17..64": 0, "+65..": 0, "before": 0}
    for pc, c in pairs:
        d = (pc - load) // 4
        k = ("load" if d == 0 else "+1..4" if 1 <= d <= 4 else "+5..16" if d <= 16 else
             "+17..64" if d <= 64 else "+65.." if d > 64 else "before")
        b[k] += c
    return tot, b

rows = []
for cpu in ("ev5", "ev6"):
    pairs = []
    with open("%s/%s.csv" % (out, cpu)) as f:
        for r in csv.DictReader(f):
            if r["image"].endswith("/skid") and r.get("dmiss"):
                pairs.append((int(r["address"], 16), int(r["dmiss"])))
    rows.append(("%s DMISS counter" % cpu.upper(), hist(pairs)))
doc = json.load(open(out + "/pme.json"))
# dcache_miss is per retired sample (axprof-profileme(1)): times the retired samples, the count
pairs = [(int(i["address"], 16), i["retired"] * i["dcache_miss"]) for i in doc["instructions"]]
rows.append(("EV6 ProfileMe", hist(pairs)))
keys = ["load", "+1..4", "+5..16", "+17..64", "+65..", "before"]
print("ProfileMe Figure 2: D-cache miss samples by distance from the missing load (workloads/skid)")
print("%-20s %9s " % ("method", "samples") + " ".join("%8s" % k for k in keys))
for name, (tot, b) in rows:
    print("%-20s %9.0f " % (name, tot) +
          " ".join("%7.1f%%" % (100.0 * b[k] / tot if tot else 0) for k in keys))
print("paper (MICRO'97 Fig. 2, 21164): the samples peak about 6 instructions after the load; "
      "ProfileMe puts them on the load")
PY
