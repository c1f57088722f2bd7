#!/usr/bin/env bash
# tests/tools/check-pme-tools.sh - annotate and vreplay from ProfileMe samples (issue 14, item 4).
#
# storeload and the m_replay_sl microbenchmark are recorded on --cpu ev6 twice into one database:
# --mode vreplay (conflict partners from interpretation) and --mode profileme (with --truth).
#   - vreplay takes its replay counts from ProfileMe (replays_from "profileme", the text header
#     says so): every load with conflicts has the truth's replay aborts to 10% plus one
#     sample's worth (storeload's overlap load: 400000; m_replay_sl's: few, stWait holds it),
#     those with >= 20000 within 10%, no instruction without a true replay gets any (exact
#     attribution, no skid), and each load's partner is still the store the interpretation
#     found;
#   - annotate takes its executions from ProfileMe (frequency "profileme", the header says so):
#     within max(10%, 3/sqrt(k)) of the truth's retires for every instruction with k >= 100
#     retired samples, with
#     per-stage latencies whose sum matches the truth's mean fetch->retire-ready;
#   - without ProfileMe samples both behave as before (replays_from, frequency "cycles").
. "$(dirname "$0")/lib.sh"
dump=$BUILD/tests/tools/pme-truth
waste=$BUILD/tests/tools/pme-waste
need "$axprof" "$bin/vreplay" "$dump" "$waste" "$wl/storeload"
command -v python3 >/dev/null || { echo "check-pme-tools: python3 needed"; exit 1; }
rec="$axprof record -q --hosted --cpu ev6"

for prog in "$wl/storeload" "$BUILD/workloads/ev6-micro/m_replay_sl"; do
	name=$(basename "$prog")
	[ -x "$prog" ] || { bad "$name" "not built"; continue; }
	db=$tmp/$name
	args=()
	[ "$name" = m_replay_sl ] && args=(40000) # ~230 samples per instruction
	if ! $rec --seed 3 -d "$db" --mode vreplay --period 20000-22000 --share 1/4 -- "$prog" \
		"${args[@]}" >/dev/null 2>"$tmp/err"; then
		bad "$name record vreplay" "$(head -c 300 "$tmp/err")"
		continue
	fi
	"$bin/vreplay" -d "$db" --image "$name" --json >"$tmp/$name.vr0.json" 2>/dev/null
	if ! $rec --seed 5 -d "$db" --mode profileme --period 320-360 --truth "$tmp/$name.t" \
		-- "$prog" "${args[@]}" >/dev/null 2>"$tmp/err"; then
		bad "$name record profileme" "$(head -c 300 "$tmp/err")"
		continue
	fi
	"$dump" "$tmp/$name.t" >"$tmp/$name.t.txt" && "$waste" "$tmp/$name.t" >"$tmp/$name.w.txt" ||
		{ bad "$name truth" "cannot dump"; continue; }

	# vreplay
	if "$bin/vreplay" -d "$db" --image "$name" >"$tmp/$name.vr.txt" 2>&1 &&
		grep -q "replays: estimated from ProfileMe samples" "$tmp/$name.vr.txt"; then
		ok "$name: vreplay says its replays come from ProfileMe"
	else
		bad "$name vreplay header" "$(head -c 300 "$tmp/$name.vr.txt")"
	fi
	"$bin/vreplay" -d "$db" --image "$name" -n 0 --json >"$tmp/$name.vr.json" 2>"$tmp/err" ||
		bad "$name vreplay --json" "$(head -c 300 "$tmp/err")"
	if msg=$(python3 - "$tmp/$name.vr.json" "$tmp/$name.t.txt" "$tmp/$name.vr0.json" 2>&1 <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
before = json.load(open(sys.argv[3]))
truth = {}
for line in open(sys.argv[2]):
    pc, fetched, retired, dmiss, mp, rp = line.split()
    truth[int(pc, 16)] = int(rp)
assert doc["replays_from"] == "profileme", "replays_from %r" % doc["replays_from"]
assert before["replays_from"] != "profileme", "before ProfileMe: %r" % before["replays_from"]
insns = [i for im in doc["images"] for p in im["procedures"] for i in p["instructions"]]
checked = conf = 0
for i in insns:
    pc = int(i["address"], 16)
    t = truth.get(pc, 0)
    if i["replays_estimated"] > 0 and t == 0:
        raise SystemExit("%s: %.0f replays estimated, none true (skid?)" % (i["address"], i["replays_estimated"]))
    if i.get("earlier_accesses"):
        # a load the interpretation found conflicts for: ProfileMe's count, whatever it is
        # (stWait may have stopped its replays), is the truth's to one sample's worth
        if abs(i["replays_estimated"] - t) > 0.10 * t + 1000:
            raise SystemExit("%s: %.0f replays estimated, %d true" % (i["address"], i["replays_estimated"], t))
        conf += 1
    if t >= 20000:
        if abs(i["replays_estimated"] - t) > 0.10 * t:
            raise SystemExit("%s: %.0f replays estimated, %d true" % (i["address"], i["replays_estimated"], t))
        acc = i.get("earlier_accesses", [])
        if not acc or acc[0]["kind"] != "store-load":
            raise SystemExit("%s: no store-load partner from the interpretation" % i["address"])
        stores = [s for s in insns if s["address"] == acc[0]["address"]]
        if not stores or i["address"] not in [l["address"] for l in stores[0].get("later_loads", [])]:
            raise SystemExit("%s: its store %s does not list it" % (i["address"], acc[0]["address"]))
        checked += 1
if not conf:
    raise SystemExit("no load with conflicts in the listed procedures")
print("%d loads with conflicts match the true replays, %d with >= 20000 within 10%%, partners kept"
      % (conf, checked))
PY
	); then
		ok "$name: vreplay from ProfileMe: $msg"
	else
		bad "$name vreplay from ProfileMe" "$msg"
	fi

	# annotate (the procedure of the load with the most replays)
	proc=$(python3 -c 'import json,sys
d = json.load(open(sys.argv[1]))
best = max(((i["replays_estimated"], p["procedure"]) for im in d["images"] for p in im["procedures"] for i in p["instructions"]))
print(best[1])' "$tmp/$name.vr.json")
	if "$axprof" annotate -d "$db" "$name" "$proc" >"$tmp/$name.an.txt" 2>&1 &&
		grep -q "execution frequency from ProfileMe" "$tmp/$name.an.txt" &&
		grep -q "stage cycles: fetch-map" "$tmp/$name.an.txt"; then
		ok "$name: annotate $proc says its executions come from ProfileMe"
	else
		bad "$name annotate header" "$(head -c 400 "$tmp/$name.an.txt")"
	fi
	"$axprof" annotate -d "$db" --json "$name" "$proc" >"$tmp/$name.an.json" 2>"$tmp/err" ||
		bad "$name annotate --json" "$(head -c 300 "$tmp/err")"
	if msg=$(python3 - "$tmp/$name.an.json" "$tmp/$name.t.txt" "$tmp/$name.w.txt" 2>&1 <<'PY'
import json, sys
doc = json.loads(open(sys.argv[1]).readline())
ret, lat = {}, {}
for line in open(sys.argv[2]):
    f = line.split()
    ret[int(f[0], 16)] = int(f[2])
for line in open(sys.argv[3]):
    f = line.split()
    if int(f[6]):
        lat[int(f[0], 16)] = int(f[7]) / int(f[6])
assert doc["frequency"] == "profileme", doc["frequency"]
n = 0
for i in doc["instructions"]:
    p = i.get("profileme")
    if not p or p["retired"] < 100:
        continue
    pc = int(i["address"], 16)
    t = ret.get(pc, 0)
    if abs(i["executions"] - t) > max(0.10, 3 / p["retired"] ** 0.5) * t:
        raise SystemExit("%s: %.0f executions, %d true" % (i["address"], i["executions"], t))
    L = p["latency"]
    m = L["fetch_map"] + L["map_data"] + L["data_issue"] + L["issue_ready"]
    if abs(m - lat[pc]) > 0.15 * lat[pc] + 0.5:
        raise SystemExit("%s: fetch->ready %.2f cycles, %.2f true" % (i["address"], m, lat[pc]))
    n += 1
if not n:
    raise SystemExit("no instruction with >= 100 retired samples")
print("%d instructions within max(10%%, 3/sqrt(k)) of the true executions, latencies within 15%%" % n)
PY
	); then
		ok "$name: annotate from ProfileMe: $msg"
	else
		bad "$name annotate from ProfileMe" "$msg"
	fi
done

# Without ProfileMe: annotate estimates from CYCLES as before.
if $rec --seed 3 -d "$tmp/cy" --period 20000-22000 -- "$wl/storeload" >/dev/null 2>&1 &&
	"$axprof" annotate -d "$tmp/cy" --json storeload sl_overlap >"$tmp/cy.json" 2>/dev/null &&
	python3 -c 'import json,sys; d=json.loads(open(sys.argv[1]).readline()); assert d["frequency"] == "cycles" and "profileme" not in d["instructions"][0]' "$tmp/cy.json"; then
	ok "annotate without ProfileMe samples: frequency cycles"
else
	bad "annotate without ProfileMe" "$(head -c 300 "$tmp/cy.json")"
fi
finish
