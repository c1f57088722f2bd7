#!/usr/bin/env bash
# tests/tools/check-limits.sh - the row filters of the views: --percent-limit, --min-samples, -n.
#
# hotspots is recorded once on the hosted machine. Each view's filtered output must be exactly
# the rows of its unfiltered output that pass the limit (none missing, none below it), in the
# same order, and -n must cut after the filter; bad limits are usage errors (exit 2).
. "$(dirname "$0")/lib.sh"
need "$axprof" "$wl/hotspots"
command -v python3 >/dev/null || { echo "check-limits: python3 needed"; exit 1; }
"$axprof" record -q --hosted --seed 5 -d "$tmp/db" -- "$wl/hotspots" >/dev/null 2>"$tmp/rec.err" ||
	{ bad "record" "$(head -c 300 "$tmp/rec.err")"; finish; exit 1; }

# compare VIEW ROWKEY LIMIT-KIND LIMIT TOP FULL.json CUT.json: the cut rows are the full rows
# passing the limit, in order, the first TOP of them (0: all).
compare() {
	python3 - "$@" <<'PY'
import json, sys
view, kind, lim, top, full, cut = sys.argv[1:7]
lim, top = float(lim), int(top)
def rows(path):
    docs = [json.loads(l) for l in open(path) if l.strip()]
    if view == "report":
        return docs[0]["procedures"], docs[0]["totals"]["cycles"], lambda r: r["samples_by_event"]["cycles"]
    if view == "topstalls":
        return docs[0]["stalls"], docs[0]["samples"], lambda r: r["static"] + r["dynamic"]
    if view == "annotate":  # one document per procedure
        return docs, None, lambda r: sum(i["samples"] for i in r["instructions"])
    if view == "diff":
        return docs[0]["procedures"], 1.0, lambda r: max(r["side_a"]["mean"], r["side_b"]["mean"])
    sys.exit("unknown view " + view)
fr, total, val = rows(full)
cr, _, _ = rows(cut)
if kind == "pct":
    want = [r for r in fr if 100.0 * val(r) / total >= lim - 1e-9]
else:
    want = [r for r in fr if val(r) >= lim]
if top:
    want = want[:top]
if not want or len(want) == len(fr):
    sys.exit("the limit %g cuts nothing or everything of %d rows: a useless check" % (lim, len(fr)))
if cr != want:
    sys.exit("%d rows, expected %d: %s" % (len(cr), len(want), [val(r) for r in cr]))
print("%d of %d rows" % (len(cr), len(fr)))
PY
}

check() { # NAME VIEW KIND LIMIT TOP -- full-command... -- cut-command...
	local name=$1 view=$2 kind=$3 lim=$4 topn=$5
	shift 5
	local -a full=() cut=()
	shift # --
	while [ "$1" != -- ]; do full+=("$1"); shift; done
	shift
	cut=("$@")
	if "${full[@]}" >"$tmp/full.json" 2>"$tmp/err" && "${cut[@]}" >"$tmp/cut.json" 2>>"$tmp/err" &&
		compare "$view" "$kind" "$lim" "$topn" "$tmp/full.json" "$tmp/cut.json" >"$tmp/cmp" 2>&1; then
		ok "$name: $(cat "$tmp/cmp")"
	else
		bad "$name" "$(cat "$tmp/err" "$tmp/cmp" 2>/dev/null | head -c 600)"
	fi
}

db=(-d "$tmp/db")
check "report --procedures --percent-limit 5" report pct 5 0 \
	-- "$axprof" report "${db[@]}" --procedures --json \
	-- "$axprof" report "${db[@]}" --procedures --json --percent-limit 5
check "report --procedures --percent-limit 1 -n 2" report pct 1 2 \
	-- "$axprof" report "${db[@]}" --procedures --json \
	-- "$axprof" report "${db[@]}" --procedures --json --percent-limit 1 -n 2
check "topstalls --percent-limit 3" topstalls pct 3 0 \
	-- "$axprof" topstalls "${db[@]}" -n 0 --json \
	-- "$axprof" topstalls "${db[@]}" -n 0 --json --percent-limit 3
check "annotate --min-samples 130" annotate min 130 0 \
	-- "$axprof" annotate "${db[@]}" -n 0 --json hotspots \
	-- "$axprof" annotate "${db[@]}" -n 0 --json --min-samples 130 hotspots
check "diff --percent-limit 10" diff pct 10 0 \
	-- "$axprof" diff -n 0 --json "$tmp/db" "$tmp/db" \
	-- "$axprof" diff -n 0 --json --percent-limit 10 "$tmp/db" "$tmp/db"

for args in "report --percent-limit 101" "report --percent-limit x" "topstalls --percent-limit -1" \
	"annotate --min-samples -3 hotspots" "diff --percent-limit 1e9 a b" "vprof --min-samples 1k"; do
	set -- $args
	tool=$1
	shift
	if [ "$tool" = vprof ]; then cmd=("$bin/vprof" "${db[@]}" "$@"); else cmd=("$axprof" "$tool" "${db[@]}" "$@"); fi
	[ "$tool" = diff ] && cmd=("$axprof" diff "$@")
	"${cmd[@]}" >/dev/null 2>"$tmp/err"
	rc=$?
	if [ $rc = 2 ] && grep -q -- "--percent-limit\|--min-samples" "$tmp/err"; then
		ok "$args: usage error naming the option"
	else
		bad "$args" "exit $rc: $(head -c 300 "$tmp/err")"
	fi
done
finish
