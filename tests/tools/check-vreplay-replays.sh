#!/usr/bin/env bash
# tests/tools/check-vreplay-replays.sh - vreplay's replays and rate columns on a database with REPLAY samples.
#
# The storeload database is rebuilt from the saved driver records (as check-golden.sh does); it
# has conflicts but no REPLAY samples, so vreplay prints "-" and no replays key. Then
# add-samples writes synthetic REPLAY samples (through pdb_merge_store) at the conflicting
# loads, as a CPU with replay traps would: the text column and the JSON must show exactly those
# counts, 0 on every other instruction, and replays_recorded true. The rate of every
# instruction with conflicts must be its conflicts / vcount, and absent on the others.
. "$(dirname "$0")/lib.sh"
add=$BUILD/tests/tools/add-samples
need "$bin/axprofd" "$bin/vreplay" "$add" "$wl/storeload"
command -v python3 >/dev/null || {
	echo "check-vreplay-replays.sh: python3 missing" >&2
	exit 1
}
golden=$here/golden
sed -e "s#@WL@#$wl#g" "$golden/storeload.rec.maps" >"$tmp/maps"
if ! "$bin/axprofd" -f --once --no-proc-maps -d "$tmp/db" --device "$golden/storeload.rec" \
	--maps "$tmp/maps" --pid-file "$tmp/pid" >"$tmp/log" 2>&1; then
	bad "axprofd storeload.rec" "$(head -c 300 "$tmp/log")"
	finish
	exit
fi

# Check one vreplay --json document: argv: file, replays_recorded (0/1), "ADDR=COUNT,..." expected.
jcheck() {
	python3 - "$@" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
want_rec = sys.argv[2] == "1"
want = {}
for kv in filter(None, sys.argv[3].split(",")):
    a, c = kv.split("=")
    want[int(a, 16)] = int(c)
errs = []
if doc["replays_recorded"] != want_rec:
    errs.append("replays_recorded is %s" % doc["replays_recorded"])
seen = set()
for im in doc["images"]:
    for p in im["procedures"]:
        for i in p["instructions"]:
            a = int(i["address"], 16)
            if want_rec:
                if i.get("replays") != want.get(a, 0):
                    errs.append("%#x replays %s, want %d" % (a, i.get("replays"), want.get(a, 0)))
                seen.add(a)
            elif "replays" in i:
                errs.append("%#x has replays without REPLAY samples" % a)
            acc = i.get("earlier_accesses", i.get("later_loads", []))
            if acc:
                r = sum(x["count"] for x in acc) / i["vcount"]
                if abs(i.get("rate", -1) - r) > 1e-5:
                    errs.append("%#x rate %s, want %.6f" % (a, i.get("rate"), r))
            elif "rate" in i:
                errs.append("%#x has a rate without conflicts" % a)
missing = set(want) - seen if want_rec else set()
if missing:
    errs.append("no instruction line for %s" % sorted(hex(a) for a in missing))
print("; ".join(errs[:5]))
sys.exit(1 if errs else 0)
PY
}

"$bin/vreplay" -d "$tmp/db" --image storeload --json >"$tmp/before.json" 2>"$tmp/err"
if jcheck "$tmp/before.json" 0 "" >"$tmp/why"; then
	ok "no REPLAY samples: no replays key, rate = conflicts / vcount on every conflicting line"
else
	bad "before" "$(cat "$tmp/why")"
fi
# The loads of the pairs (three planted conflicts) get 40, 25 and 7 replay samples.
loads=$(python3 -c 'import json,sys
d=json.load(open(sys.argv[1]))
print(" ".join(sorted({p["load"] for im in d["images"] for p in im["pairs"]})))' "$tmp/before.json")
set -- $loads
if [ $# -ne 3 ]; then
	bad "pairs" "expected the 3 planted loads, got '$loads'"
	finish
	exit
fi
spec="$1=40,$2=25,$3=7"
if "$add" "$tmp/db" storeload REPLAY "$1=40" "$2=25" "$3=7" 2>"$tmp/err"; then
	ok "add-samples wrote REPLAY samples"
else
	bad "add-samples" "$(cat "$tmp/err")"
fi
"$bin/vreplay" -d "$tmp/db" --image storeload --json >"$tmp/after.json" 2>"$tmp/err"
if jcheck "$tmp/after.json" 1 "$spec" >"$tmp/why"; then
	ok "JSON: replays 40/25/7 at the conflicting loads, 0 elsewhere, replays_recorded"
else
	bad "after (JSON)" "$(cat "$tmp/why")"
fi
"$bin/vreplay" -d "$tmp/db" --image storeload >"$tmp/after.txt" 2>"$tmp/err"
good=1
for kv in "$1=40" "$2=25" "$3=7"; do
	a=${kv%=*} n=${kv#*=}
	awk -v a="$a" -v n="$n" '$2 == a { f = 1; if ($1 != n) exit 1 } END { exit !f }' \
		"$tmp/after.txt" || good=0
done
nz=$(awk '$2 ~ /^0x/ && $1 != "0" && $1 != "40" && $1 != "25" && $1 != "7"' "$tmp/after.txt" | wc -l)
if [ "$good" = 1 ] && [ "$nz" = 0 ] && ! grep -q 'no hardware replay counts' "$tmp/after.txt"; then
	ok "text: the replays column shows the samples, 0 elsewhere, no \"-\" note"
else
	bad "after (text)" "replays column wrong ($nz other non-zero lines)"
	head -n 25 "$tmp/after.txt"
fi
if grep -q '^      -  ' "$tmp/after.txt"; then
	bad "after (text)" "a line still shows \"-\""
else
	ok "text: no \"-\" left in the replays column"
fi
if "$add" "$tmp/db" no-such-image REPLAY 0x10=1 2>"$tmp/err"; then
	bad "add-samples" "accepted a missing image"
else
	ok "add-samples refuses a missing image: $(head -c 120 "$tmp/err")"
fi
finish
