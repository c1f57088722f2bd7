#!/usr/bin/env bash
# tests/tools/check-sort.sh - --sort FIELD on every view that lists rows (issue 16 item 7).
#
# cxxshapes (cycles, vprof values) and storeload (vreplay) are recorded on the hosted machine;
# each view's JSON must come in the order its --sort asks (counts largest first, names and
# addresses ascending), -n must take the rows with most samples before an ordering field puts
# them in order, and an unknown field must exit 2 naming the valid ones.
. "$(dirname "$0")/lib.sh"
need "$axprof" "$bin/vprof" "$bin/vreplay" "$wl/cxxshapes" "$wl/storeload"
rec="$axprof record -q --hosted --seed 3"
$rec --mode vprof --period 2000-2200 --share 1/1 -d "$tmp/db" -- "$wl/cxxshapes" 3000 >/dev/null 2>&1
$rec --mode vreplay --period 20000-22000 --share 1/4 -d "$tmp/vr" -- "$wl/storeload" >/dev/null 2>&1
# order NAME JSONFILE PYTHON-EXPR: EXPR (over d, the document; sorted_by(list, key, rev)) holds
order() {
	if python3 - "$2" "$3" >"$tmp/o" 2>&1 <<'PY'; then ok "$1"; else bad "$1" "$(tail -c 400 "$tmp/o")"; fi
import json, sys
d = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
d = d[0] if len(d) == 1 else d
def sorted_by(v, key, rev=False, tol=0):
    k = [key(x) for x in v]
    assert len(k) >= 2, "fewer than 2 rows: %r" % (k,)
    if tol:  # numbers the JSON rounded
        bad = [i for i in range(len(k) - 1) if (k[i + 1] - k[i] if rev else k[i] - k[i + 1]) > tol]
        assert not bad, [k[i:i + 2] for i in bad]
    else:
        assert k == sorted(k, reverse=rev), k
    return True
hx = lambda s: int(s, 16)
assert eval(sys.argv[2]), sys.argv[2]
PY
}
# refuse NAME CMD...: exit 2 and the message names every valid field
refuse() {
	local name=$1 want=$2
	shift 2
	"$@" >/dev/null 2>"$tmp/e"
	local rc=$?
	if [ $rc = 2 ] && grep -qF -- "--sort takes $want, not 'bogus'" "$tmp/e"; then
		ok "$name"
	else
		bad "$name" "exit $rc: $(cat "$tmp/e")"
	fi
}
j() { "$@" >"$tmp/j" 2>/dev/null || bad "$*" "failed"; }

j "$axprof" report -d "$tmp/db" --procedures --json --sort address
order "report --procedures --sort address: by image, then address" "$tmp/j" \
	'sorted_by(d["procedures"], lambda p: (p["image"].split("/")[-1], hx(p.get("address", "0x" + "f" * 16))))'
j "$axprof" report -d "$tmp/db" --procedures --json --sort name
order "report --procedures --sort name" "$tmp/j" 'sorted_by(d["procedures"], lambda p: p["procedure"])'
j "$axprof" report -d "$tmp/db" --procedures --json -n 3 --sort address
order "report -n 3 --sort address: the 3 hottest, by address" "$tmp/j" \
	'len(d["procedures"]) == 3 and {p["procedure"] for p in d["procedures"]} == {"geo::total(geo::Shape const* const*, long, long)", "geo::Square::area(long) const", "geo::Triangle::area(long) const"} and sorted_by(d["procedures"], lambda p: hx(p["address"]))'
j "$axprof" report -d "$tmp/db" --stalls --json --sort static
order "report --stalls --sort static: static share, largest first" "$tmp/j" \
	'sorted_by(d["procedures"], lambda p: p["summary"]["static"] / max(p["summary"]["samples"], 1e-9), True, 0.01)'
j "$axprof" report -d "$tmp/db" --lines --json --sort line
order "report --lines --sort line" "$tmp/j" \
	'sorted_by([l for l in d["lines"] if "line" in l and l["image"].endswith("cxxshapes")], lambda l: (l["file"], l["line"]))'
refuse "report: unknown field" "samples or name (report)" "$axprof" report -d "$tmp/db" --sort bogus
refuse "report --procedures: unknown field" "samples, name, image or address (report --procedures)" \
	"$axprof" report -d "$tmp/db" --procedures --sort bogus
j "$axprof" topstalls -d "$tmp/db" --json -n 8 --sort address
order "topstalls --sort address" "$tmp/j" 'sorted_by(d["stalls"], lambda s: (s["image"].split("/")[-1], hx(s["address"])))'
j "$axprof" topstalls -d "$tmp/db" --json -n 8 --sort per-exec
order "topstalls --sort per-exec" "$tmp/j" 'sorted_by(d["stalls"], lambda s: s["cycles_per_exec"], True)'
refuse "topstalls: unknown field" "stall, static, dynamic, per-exec, samples, procedure or address" \
	"$axprof" topstalls -d "$tmp/db" --sort bogus
j "$axprof" annotate -d "$tmp/db" --json -n 3 --sort address cxxshapes
order "annotate --sort address (procedures)" "$tmp/j" 'sorted_by(d, lambda p: hx(p["start"]))'
refuse "annotate: unknown field" "samples, name or address" "$axprof" annotate -d "$tmp/db" --sort bogus cxxshapes
j "$bin/vprof" -d "$tmp/db" --image cxxshapes --json --sort name -n 0
order "vprof --sort name" "$tmp/j" 'sorted_by(d["images"][0]["procedures"], lambda p: p["procedure"])'
j "$bin/vprof" -d "$tmp/db" --image cxxshapes --json --sort address -n 0
order "vprof --sort address" "$tmp/j" 'sorted_by(d["images"][0]["procedures"], lambda p: hx(p["address"]))'
refuse "vprof: unknown field" "samples, name or address" "$bin/vprof" -d "$tmp/db" --sort bogus
j "$bin/vreplay" -d "$tmp/vr" --image storeload --json --sort address
order "vreplay --sort address" "$tmp/j" 'sorted_by(d["images"][0]["procedures"], lambda p: hx(p["address"]))'
j "$bin/vreplay" -d "$tmp/vr" --image storeload --json
order "vreplay default: by conflicts" "$tmp/j" 'sorted_by(d["images"][0]["procedures"], lambda p: p["conflicts"], True)'
refuse "vreplay: unknown field" "conflicts, name or address" "$bin/vreplay" -d "$tmp/vr" --sort bogus
# diff of two different programs: the sides' shares differ
j "$axprof" diff --json -n 0 --sort a "$tmp/db" "$tmp/vr"
order "diff --sort a: side A's share, largest first" "$tmp/j" 'sorted_by(d["procedures"], lambda r: r["side_a"]["mean"], True)'
j "$axprof" diff --json -n 0 --sort b "$tmp/db" "$tmp/vr"
order "diff --sort b" "$tmp/j" 'sorted_by(d["procedures"], lambda r: r["side_b"]["mean"], True)'
j "$axprof" diff --json -n 0 --sort p "$tmp/db" "$tmp/vr"
order "diff --sort p: smallest p first" "$tmp/j" 'sorted_by(d["procedures"], lambda r: r["p_value"])'
j "$axprof" diff --json -n 0 --sort name "$tmp/db" "$tmp/vr"
order "diff --sort name (images)" "$tmp/j" 'sorted_by(d["images"], lambda r: r["image"])'
refuse "diff: unknown field" "delta, a, b, p or name" "$axprof" diff --sort bogus "$tmp/db" "$tmp/vr"
refuse "profileme: unknown field (the shared message)" \
	"samples, executions, wasted, latency, dcache, mispredict or replay" \
	"$axprof" profileme -d "$tmp/db" --sort bogus
finish
