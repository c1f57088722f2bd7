#!/usr/bin/env bash
# tests/tools/check-callgraph.sh - issue 16 item 4: `record -g` call stacks on the hosted machine
# are exact against the machine's procedure truth.
#
# Records build/workloads/callargs (ca_callee called from ca_site_a 70% and ca_site_b 30% of
# the time) with -g, the exact procedure truth (--proc-truth) and the drained record stream
# (--save-records), and grades the VS_REC_STACK records with grade-stacks.py: one stack per
# sample, every caller frame inside the program an exact caller of the procedure of the frame
# inside it, and ca_callee's sampled callers' shares within 4 binomial sd of the exact call
# shares. Then -g is refused with the kernel driver (a character device as --device) and shown in
# --help. Then the stored stacks (stacks.prof): a second recording with a shorter period (about
# 440 samples of ca_callee) is graded by grade-callers.py: `report --callers/--callees ca_callee
# --json` names only exact call sites, with shares within 4 binomial sd of the exact call split,
# self + callees = inclusive, and the folded export splits it the same way; main's callees add
# up; without -g the report says to record with -g. Deterministic: fixed seed.
. "$(dirname "$0")/lib.sh"
need "$axprof" "$wl/callargs"

"$axprof" record --hosted -g -d "$tmp/db" --period 400-440 --seed 7 --proc-truth "$tmp/pt" \
	--save-records "$tmp/rec" -- "$wl/callargs" 50000 >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ "$rc" = 0 ] && grep -q '^calls 50000$' "$tmp/out" &&
	grep -Eq '^axprof record: [0-9]+ call stacks \(0 deeper than 62 frames' "$tmp/err"; then
	ok "record -g callargs: exit 0, its output, the stacks line"
else
	bad "record -g callargs" "exit $rc: $(head -c 400 "$tmp/err")"
fi
nm "$wl/callargs" >"$tmp/nm" 2>/dev/null || alpha-linux-gnu-nm "$wl/callargs" >"$tmp/nm"
if python3 "$top/tests/tools/grade-stacks.py" "$tmp/rec" "$tmp/pt" "$tmp/nm" ca_callee \
	>"$tmp/grade" 2>&1; then
	ok "stacks against the truth ($(grep -c '^ok' "$tmp/grade") checks)"
else
	bad "stacks against the truth" "$(grep -v '^ok' "$tmp/grade" | head -5)"
fi
sed 's/^/    /' "$tmp/grade"
# --- stored stacks: report --callers/--callees, folded export -----------------------------------
"$axprof" record --hosted -g -q -d "$tmp/dbs" --period 100-120 --seed 7 --proc-truth "$tmp/pts" \
	-- "$wl/callargs" 50000 >/dev/null 2>&1 || bad "record -g (stored stacks)" "failed"
"$axprof" report -d "$tmp/dbs" --callers ca_callee --callees ca_callee --json >"$tmp/cg.json" &&
	"$axprof" export -d "$tmp/dbs" --format folded >"$tmp/cg.folded" ||
	bad "report --callers / export folded" "failed"
if python3 "$top/tests/tools/grade-callers.py" "$tmp/cg.json" "$tmp/pts" "$tmp/nm" ca_callee \
	"$tmp/cg.folded" >"$tmp/gradec" 2>&1; then
	ok "report --callers ca_callee against the truth ($(grep -c '^ok' "$tmp/gradec") checks)"
else
	bad "report --callers against the truth" "$(grep -v '^ok' "$tmp/gradec" | head -5)"
fi
sed 's/^/    /' "$tmp/gradec"
# main: inclusive within the stacked samples, self + callees = inclusive, both call sites' procs.
"$axprof" report -d "$tmp/dbs" --callees main --json >"$tmp/main.json"
if python3 - "$tmp/main.json" <<'PY'; then
import json, sys
r = json.load(open(sys.argv[1]))
names = {c.get("procedure") for c in r["callees"]}
sys.exit(not (0 < r["inclusive"] <= r["stack_samples"] and
              r["self"] + sum(c["samples"] for c in r["callees"]) == r["inclusive"] and
              {"ca_site_a", "ca_site_b"} <= names))
PY
	ok "report --callees main: self + callees = inclusive <= stacked samples, both sites called"
else
	bad "report --callees main" "$(head -c 400 "$tmp/main.json")"
fi
# self of ca_callee = its flat samples in report --procedures (every sample has its stack).
flat=$("$axprof" report -d "$tmp/dbs" --procedures | awk '$NF ~ /callargs$/ && $4 == "ca_callee" { print $1 }')
self=$(sed -n 's/.*"self":\([0-9]*\).*/\1/p' "$tmp/cg.json")
[ -n "$flat" ] && [ "$flat" = "$self" ] && ok "ca_callee self $self = its flat samples" ||
	bad "self vs flat" "self '$self', flat '$flat'"
# Reproducible for one seed and one program input (arguments, environment): two -g recordings
# from different directories under one environment store the same stacks, sample for sample.
for i in 1 2; do
	(cd "$([ $i = 1 ] && echo / || echo "$tmp")" && env -i PATH=/usr/bin:/bin AXPROF_CHECK=1 \
		"$axprof" record --hosted -g -q -d "$tmp/det$i" --period 100-120 --seed 7 \
		-- "$wl/callargs" 5000 >/dev/null 2>&1) || bad "record -g (determinism $i)" "failed"
	"$axprof" export -d "$tmp/det$i" --format folded 2>/dev/null | sort >"$tmp/det$i.folded"
done
if [ -s "$tmp/det1.folded" ] && cmp -s "$tmp/det1.folded" "$tmp/det2.folded"; then
	ok "record -g twice (one seed, one environment, two directories): the same stacks ($(wc -l <"$tmp/det1.folded") distinct)"
else
	bad "record -g determinism" "$(diff "$tmp/det1.folded" "$tmp/det2.folded" | head -n 6 | tr '\n' '|')"
fi
"$axprof" record --hosted -q -d "$tmp/dbn" --seed 7 -- "$wl/callargs" 1000 >/dev/null 2>&1
"$axprof" report -d "$tmp/dbn" --callers ca_callee >/dev/null 2>"$tmp/nerr"
[ $? = 1 ] && grep -q 'record with `axprof record -g`' "$tmp/nerr" &&
	ok "report --callers without stacks: exit 1, says to record with -g" ||
	bad "no stacks" "$(cat "$tmp/nerr")"
# The kernel driver has no stacks: a character device as the driver makes record refuse -g.
"$axprof" record -g --device /dev/null -d "$tmp/db2" -- "$wl/callargs" 10 >/dev/null 2>"$tmp/kerr"
rc=$?
if [ "$rc" = 2 ] && grep -q 'call stacks are not available with the kernel driver' "$tmp/kerr" &&
	[ ! -e "$tmp/db2" ]; then
	ok "record -g with the kernel driver: usage error naming the reason, no database"
else
	bad "record -g with the kernel driver" "exit $rc: $(head -c 300 "$tmp/kerr")"
fi
if "$axprof" record --help | grep -q -- '-g, --call-graph'; then
	ok "record --help lists -g"
else
	bad "record --help" "no -g"
fi
finish
