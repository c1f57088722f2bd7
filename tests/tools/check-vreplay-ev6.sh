#!/usr/bin/env bash
# tests/tools/check-vreplay-ev6.sh - vreplay on the EV6 model end to end: replays sampled by default, named right.
#
# Issue 13 item 4: `axprof record --cpu ev6 --mode vreplay` (no --event) samples the 21264's Mbox
# replay traps beside CYCLES. On m_replay_ll (a load-load order trap every iteration) and
# storeload (planted store-load pairs) this records with the machine's truth and requires:
# vreplay says replays were recorded; its most-replaying instruction has replay samples and names
# an earlier access; that instruction's traps are not among the ones axeval --replays lists as
# not named; and, over the program's own loads, the interpreter's named conflicts reach recall and
# precision of at least 90% against the truth (eval/ev_replay.h).
. "$(dirname "$0")/lib.sh"
axeval=$bin/axeval
need "$axprof" "$bin/vreplay" "$axeval" "$wl/storeload" "$wl/ev6-micro/m_replay_ll"
command -v python3 >/dev/null || {
	echo "check-vreplay-ev6.sh: python3 missing" >&2
	exit 1
}

run() { # name binary args...
	local n=$1 b=$2
	shift 2
	if ! "$axprof" record -q -d "$tmp/$n.db" --hosted --cpu ev6 --mode vreplay --period 200-300 \
		--truth "$tmp/$n.truth" -- "$b" "$@" >/dev/null 2>"$tmp/$n.log"; then
		bad "$n: record" "$(tail -n 2 "$tmp/$n.log")"
		return 1
	fi
	"$bin/vreplay" -d "$tmp/$n.db" --json >"$tmp/$n.json" 2>>"$tmp/$n.log" ||
		{ bad "$n: vreplay --json" "$(tail -n 2 "$tmp/$n.log")"; return 1; }
	"$axeval" --replays --period 250 "$n" "$tmp/$n.db" "$b" "$tmp/$n.truth" >"$tmp/$n.eval" \
		2>>"$tmp/$n.log" || { bad "$n: axeval --replays" "$(tail -n 2 "$tmp/$n.log")"; return 1; }
	local why
	why=$(python3 - "$tmp/$n.json" "$tmp/$n.eval" <<'PY'
import json, re, sys
doc = json.load(open(sys.argv[1]))
ev = open(sys.argv[2]).read()
errs = []
if not doc["replays_recorded"]:
    errs.append("no replay samples recorded (the default events lack replays)")
top = None
for im in doc["images"]:
    for p in im["procedures"]:
        for i in p["instructions"]:
            if i.get("replays", 0) and (top is None or i["replays"] > top["replays"]):
                top = i
if top is None:
    errs.append("no instruction has replay samples")
else:
    if top["replays"] < 5:
        errs.append("top replaying %s has only %d samples" % (top["address"], top["replays"]))
    if not top.get("earlier_accesses"):
        errs.append("top replaying %s names no earlier access" % top["address"])
    for m in re.finditer(r"not named:\s+\d+ \S+ traps of load (0x[0-9a-f]+)", ev):
        if int(m.group(1), 16) == int(top["address"], 16):
            errs.append("the traps of top replaying %s were not named" % top["address"])
m = re.search(r"program only: recall\s+([\d.]+)%, precision\s+([\d.]+)%", ev)
if not m:
    errs.append("axeval printed no program-only figures")
elif float(m.group(1)) < 90 or float(m.group(2)) < 90:
    errs.append("program recall %s%%, precision %s%% (want >= 90 each)" % m.groups())
print("; ".join(errs))
PY
)
	if [ -n "$why" ]; then bad "$n" "$why"; else ok "$n: replays sampled, top replaying load named, program recall/precision >= 90%"; fi
}

run m_replay_ll "$wl/ev6-micro/m_replay_ll" 50000
run storeload "$wl/storeload"
finish
