#!/usr/bin/env bash
# tests/tools/check-diff.sh - axprof diff: no difference between runs of one program, a planted
# slowdown pointed at, repeated runs (epochs and comma lists), JSON, bad input.
#
# hotspots is recorded on the hosted machine with different sampling seeds (the program is the
# same, only the sampling moments differ) and once with its "slow" argument, which makes hs_scan
# do four times its work and nothing else.
. "$(dirname "$0")/lib.sh"
need "$axprof" "$wl/hotspots"
command -v python3 >/dev/null || { echo "check-diff: python3 needed"; exit 1; }
rec="$axprof record -q --hosted"
for s in 1 2 3 4; do
	$rec --seed "$s" -d "$tmp/r$s" -- "$wl/hotspots" >/dev/null 2>&1 || bad "record $s" "failed"
done
$rec --seed 7 -d "$tmp/slow" -- "$wl/hotspots" 200 slow >/dev/null 2>&1 || bad "record slow" "failed"
for s in 2 3; do
	$rec --seed "$((s + 7))" -d "$tmp/slow$s" -- "$wl/hotspots" 200 slow >/dev/null 2>&1 ||
		bad "record slow$s" "failed"
done

# Two runs of the same program: nothing significant at any level.
"$axprof" diff -n 0 "$tmp/r1" "$tmp/r2" >"$tmp/same.txt" 2>&1
if [ $? = 0 ] && grep -q '^procedures (' "$tmp/same.txt" && ! grep -q '[0-9]\* ' "$tmp/same.txt"; then
	ok "same program, two runs: no significant row ($(grep -c '%  ' "$tmp/same.txt") rows)"
else
	bad "same program" "$(grep '\* ' "$tmp/same.txt" | head -n 5)"
fi

# The planted slowdown: hs_scan's share grows, significantly, and leads the procedures.
"$axprof" diff "$tmp/r1" "$tmp/slow" >"$tmp/slow.txt" 2>&1
first=$(sed -n '/^procedures (/,/^$/p' "$tmp/slow.txt" | sed -n 3p)
if echo "$first" | grep -q '+[0-9.]*%.*\* hs_scan '; then
	ok "planted slowdown: the first procedure is hs_scan, + and significant"
else
	bad "planted slowdown" "first procedure row: $first"
fi

# Repeated runs: epochs of one database (3 + 3, Welch: with 2 + 2 its one degree of freedom
# rarely clears the Bonferroni bar) and comma lists of databases.
"$axprof" merge -d "$tmp/ep" "$tmp/r1" >/dev/null || bad "epochs" "merge r1"
for d in r2 r3 slow slow2 slow3; do
	"$axprof" epoch -d "$tmp/ep" >/dev/null && "$axprof" merge -d "$tmp/ep" "$tmp/$d" >/dev/null ||
		bad "epochs" "merge $d"
done
"$axprof" diff -d "$tmp/ep" --epoch 1,2,3 --epoch 4,5,6 --json >"$tmp/ep.json" 2>"$tmp/ep.err"
"$axprof" diff -n 0 "$tmp/r1,$tmp/r2" "$tmp/r3,$tmp/r4" --json >"$tmp/rep.json" 2>"$tmp/rep.err"
if python3 - "$tmp/ep.json" "$tmp/rep.json" >"$tmp/py.out" 2>&1 <<'PY'; then
import json, sys
ep = json.loads(open(sys.argv[1]).read())
rep = json.loads(open(sys.argv[2]).read())
assert ep["test"] == "welch" and rep["test"] == "welch", (ep["test"], rep["test"])
assert [len(s["runs"]) for s in ep["sides"]] == [3, 3]
assert [r["epoch"] for r in ep["sides"][1]["runs"]] == [4, 5, 6]
top = ep["procedures"][0]
assert top["procedure"] == "hs_scan" and top["delta"] > 0.2, top
assert top["significant"], top
assert "stddev" in top["side_a"]
bad = [r for l in ("images", "procedures", "instructions") for r in rep[l] if r["significant"]]
assert not bad, bad
PY
	ok "repeated runs: Welch; slow epochs point at hs_scan; four runs of one program agree"
else
	bad "repeated runs" "$(head -c 600 "$tmp/py.out") $(cat "$tmp/ep.err" "$tmp/rep.err" | head -c 300)"
fi

# Bad input: usage errors exit 2, a missing database 1, nothing on stdout.
"$axprof" diff "$tmp/r1" >/dev/null 2>&1; [ $? = 2 ] && ok "one side: exit 2" || bad "one side" "not 2"
"$axprof" diff -d "$tmp/ep" --epoch 1 >/dev/null 2>&1
[ $? = 2 ] && ok "-d with one --epoch: exit 2" || bad "one epoch" "not 2"
"$axprof" diff -d "$tmp/ep" --epoch 1 --epoch x >/dev/null 2>&1
[ $? = 2 ] && ok "--epoch x: exit 2" || bad "--epoch x" "not 2"
out=$("$axprof" diff "$tmp/r1" "$tmp/nothere" 2>"$tmp/e")
[ $? = 1 ] && [ -z "$out" ] && grep -q nothere "$tmp/e" && ok "a missing database: exit 1, named" ||
	bad "missing database" "$(cat "$tmp/e")"
finish
