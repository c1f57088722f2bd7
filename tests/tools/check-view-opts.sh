#!/usr/bin/env bash
# tests/tools/check-view-opts.sh - -n, --percent-limit, --min-samples and --sort on the views that
# check-limits.sh (report, topstalls, annotate, diff) and check-sort.sh do not cut: cfg, paths,
# profileme, vprof, vreplay (issue 16 item 7: "-n/--percent-limit on every view").
#
# Each view runs once unfiltered (-n 0) and once with an option. The filtered rows must be
# exactly the unfiltered rows that pass the limit (the total taken from another view: report's
# image samples for vprof, profileme's samples of the procedure for paths), in the same order,
# the first N of them with -n; an ordering --sort puts the same rows in its order. cfg, which
# has no samples, refuses the sample limits. Four recordings of a few seconds in all.
. "$(dirname "$0")/lib.sh"
need "$axprof" "$bin/vprof" "$bin/vreplay" "$wl/cxxshapes" "$wl/storeload" \
	"$wl/ev6-micro/ctl_random" "$wl/hotspots"
command -v python3 >/dev/null || { echo "check-view-opts: python3 needed"; exit 1; }
rec="$axprof record -q --hosted --seed 3"
$rec --mode vprof --period 2000-2200 --share 1/1 -d "$tmp/vp" -- "$wl/cxxshapes" 3000 \
	>/dev/null 2>"$tmp/err" &&
	$rec --mode vreplay --period 20000-22000 --share 1/4 -d "$tmp/vr" -- "$wl/storeload" \
		>/dev/null 2>>"$tmp/err" &&
	"$axprof" record -q --hosted --seed 5 --mode profileme --cpu ev6 --period 400-480 \
		--pair-window 50 -d "$tmp/pm" -- "$wl/ev6-micro/ctl_random" >/dev/null 2>>"$tmp/err" ||
	{ bad "record" "$(head -c 300 "$tmp/err")"; finish; exit 1; }

# cut NAME VIEW KIND LIMIT TOP TOTAL FULL CUT [ORDER]: the rows of CUT are those of FULL whose
# value passes LIMIT (KIND pct: percent of TOTAL; min: at least; none), the first TOP (0: all),
# then put in ORDER (address, name: that field ascending), and the limit cuts something.
cut() {
	python3 - "$@" <<'PY'
import json, sys
name, view, kind, lim, top, total, full, cut = sys.argv[1:9]
order = sys.argv[9] if len(sys.argv) > 9 else ""
lim, top, total = float(lim), int(top), float(total)
def rows(path):
    if view == "cfg":
        return [json.loads(l) for l in open(path) if l.strip()]
    d = json.load(open(path))
    if view in ("vprof", "vreplay"):
        return d["images"][0]["procedures"] if d["images"] else []
    return d["instructions"]
val = {"vreplay": lambda r: r["conflicts"], "cfg": lambda r: 0}.get(view, lambda r: r["samples"])
fr, cr = rows(full), rows(cut)
if kind == "pct":
    want = [r for r in fr if 100.0 * val(r) / total >= lim - 1e-9]
elif kind == "min":
    want = [r for r in fr if val(r) >= lim]
else:
    want = list(fr)
if top:
    want = want[:top]
if order == "address":
    want.sort(key=lambda r: int(r["address" if "address" in r else "start"], 16))
if not want or len(want) == len(fr):
    sys.exit("%s cuts nothing or everything of %d rows (total %g): a useless check" % (name, len(fr), total))
if cr != want:
    sys.exit("%d rows, expected %d: got %s" % (len(cr), len(want), [val(r) for r in cr]))
print("%d of %d rows" % (len(cr), len(fr)))
PY
}

check() { # NAME VIEW KIND LIMIT TOP TOTAL ORDER -- full-command... -- cut-command...
	local name=$1 view=$2 kind=$3 lim=$4 topn=$5 total=$6 order=$7
	shift 8
	local -a full=() part=()
	while [ "$1" != -- ]; do full+=("$1"); shift; done
	shift
	part=("$@")
	if "${full[@]}" >"$tmp/full.json" 2>"$tmp/err" && "${part[@]}" >"$tmp/cut.json" 2>>"$tmp/err" &&
		cut "$name" "$view" "$kind" "$lim" "$topn" "$total" "$tmp/full.json" "$tmp/cut.json" \
			$order >"$tmp/cmp" 2>&1; then
		ok "$name: $(cat "$tmp/cmp")"
	else
		bad "$name" "$(cat "$tmp/err" "$tmp/cmp" 2>/dev/null | head -c 600)"
	fi
}

# refuse NAME WORD command...: exit 2 with a message holding WORD.
refuse() {
	local name=$1 word=$2
	shift 2
	"$@" >/dev/null 2>"$tmp/err"
	local rc=$?
	if [ $rc = 2 ] && grep -q -- "$word" "$tmp/err"; then
		ok "$name: usage error naming $word"
	else
		bad "$name" "exit $rc: $(head -c 300 "$tmp/err")"
	fi
}

# cfg: a file, no samples. -n cuts the address-ordered list; --sort blocks ranks.
cfg=("$axprof" cfg --json "$wl/hotspots")
check "cfg -n 3" cfg none 0 3 1 "" -- "${cfg[@]}" -- "${cfg[@]}" -n 3
"${cfg[@]}" >"$tmp/cfg.json" 2>"$tmp/err"
"${cfg[@]}" --sort blocks -n 4 >"$tmp/cfgb.json" 2>>"$tmp/err"
if python3 - "$tmp/cfg.json" "$tmp/cfgb.json" <<'PY' >"$tmp/cmp" 2>&1; then
import json, sys
full = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
got = [json.loads(l) for l in open(sys.argv[2]) if l.strip()]
want = sorted(full, key=lambda r: (-r["block_count"], int(r["start"], 16)))[:4]
if got != want or want[0]["block_count"] <= full[0]["block_count"]:
    sys.exit("got %s, want %s" % ([r["procedure"] for r in got], [r["procedure"] for r in want]))
print(", ".join("%s %d" % (r["procedure"], r["block_count"]) for r in got))
PY
	ok "cfg --sort blocks -n 4: the four with most blocks ($(cat "$tmp/cmp"))"
else
	bad "cfg --sort blocks -n 4" "$(cat "$tmp/err" "$tmp/cmp" | head -c 400)"
fi
refuse "cfg --percent-limit" "no samples" "$axprof" cfg --percent-limit 5 "$wl/hotspots"
refuse "cfg --min-samples" "no samples" "$axprof" cfg --min-samples 5 "$wl/hotspots"
refuse "cfg -n with PROC" "summary" "$axprof" cfg -n 2 "$wl/hotspots" main
refuse "cfg --sort bogus" "address, name, insns, blocks, edges or classes" \
	"$axprof" cfg --sort bogus "$wl/hotspots"

# paths: --percent-limit of the procedure's samples (profileme's rows of it add up to them).
pa=("$axprof" paths -d "$tmp/pm" --image ctl_random --proc k_ctl_random --bits 1 --json)
ptotal=$("$axprof" profileme -d "$tmp/pm" --proc k_ctl_random --json -n 0 2>/dev/null |
	python3 -c 'import json,sys; print(sum(i["samples"] for i in json.load(sys.stdin)["instructions"]))')
check "paths --percent-limit 8" paths pct 8 0 "$ptotal" "" -- "${pa[@]}" -n 0 --min-samples 1 \
	-- "${pa[@]}" -n 0 --min-samples 1 --percent-limit 8
check "paths --min-samples 150" paths min 150 0 1 "" -- "${pa[@]}" -n 0 --min-samples 1 \
	-- "${pa[@]}" -n 0 --min-samples 150
check "paths -n 3 --sort address" paths none 0 3 1 address -- "${pa[@]}" -n 0 --min-samples 1 \
	-- "${pa[@]}" -n 3 --min-samples 1 --sort address
refuse "paths --sort bogus" "samples or address" "${pa[@]}" --sort bogus

# profileme: --percent-limit of all the rows' samples; -n after it.
pm=("$axprof" profileme -d "$tmp/pm" --json)
ptotal=$("${pm[@]}" -n 0 2>/dev/null |
	python3 -c 'import json,sys; print(sum(i["samples"] for i in json.load(sys.stdin)["instructions"]))')
check "profileme --percent-limit 0.5" profileme pct 0.5 0 "$ptotal" "" -- "${pm[@]}" -n 0 \
	-- "${pm[@]}" -n 0 --percent-limit 0.5
check "profileme --percent-limit 0.1 -n 5" profileme pct 0.1 5 "$ptotal" "" -- "${pm[@]}" -n 0 \
	-- "${pm[@]}" -n 5 --percent-limit 0.1

# vprof: procedures with P percent of their image's samples (report's), or N samples.
vp=("$bin/vprof" -d "$tmp/vp" --image cxxshapes --json)
vtotal=$("$axprof" report -d "$tmp/vp" --json 2>/dev/null | python3 -c '
import json, sys
d = json.load(sys.stdin)
print([i for i in d["images"] if i["image"].endswith("/cxxshapes")][0]["samples_by_event"]["cycles"])')
check "vprof --percent-limit 5" vprof pct 5 0 "$vtotal" "" -- "${vp[@]}" -n 0 \
	-- "${vp[@]}" -n 0 --percent-limit 5
check "vprof --min-samples 100" vprof min 100 0 1 "" -- "${vp[@]}" -n 0 \
	-- "${vp[@]}" -n 0 --min-samples 100
check "vprof -n 2" vprof none 0 2 1 "" -- "${vp[@]}" -n 0 -- "${vp[@]}" -n 2

# vreplay: procedures with P percent of their image's conflicts.
vr=("$bin/vreplay" -d "$tmp/vr" --image storeload --json)
rtotal=$("${vr[@]}" -n 0 2>/dev/null | python3 -c '
import json, sys
print(sum(p["conflicts"] for p in json.load(sys.stdin)["images"][0]["procedures"]))')
check "vreplay --percent-limit 25" vreplay pct 25 0 "$rtotal" "" -- "${vr[@]}" -n 0 \
	-- "${vr[@]}" -n 0 --percent-limit 25
check "vreplay -n 1" vreplay none 0 1 1 "" -- "${vr[@]}" -n 0 -- "${vr[@]}" -n 1
finish
