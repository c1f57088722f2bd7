#!/usr/bin/env bash
# tests/tools/check-export.sh - axprof export: pprof read by `go tool pprof`, folded, CSV, errors.
#
# hotspots is recorded on the hosted machine. pprof: `go tool pprof -top` must list the same
# hottest procedure as `axprof report --procedures` (with -noinlines: inlined code counted in its
# caller, as report counts it), every named procedure in report's order with its samples,
# and the same sample total; skipped only when go is missing and
# CI is not set. folded: every line is "frames count" (FlameGraph's format) and the counts add up
# to the total. csv: a header, one row per sampled instruction, columns that add up. With
# `record -g` (callargs): folded stack lines (root first) split ca_callee by caller as `report
# --callers` does, and `go tool pprof -traces` shows the chain ca_callee <- ca_site_a <- main.
. "$(dirname "$0")/lib.sh"
need "$axprof" "$wl/hotspots"
$axprof record -q --hosted --seed 11 -d "$tmp/db" -- "$wl/hotspots" >/dev/null 2>&1 ||
	{ bad "record" "failed"; finish; exit 1; }
total=$("$axprof" report -d "$tmp/db" --json | sed 's/.*"totals":{"cycles":\([0-9]*\)}.*/\1/')
hot=$("$axprof" report -d "$tmp/db" --procedures | awk '/^=+$/ { getline; getline; print $4; exit }')
[ -n "$hot" ] && [ -n "$total" ] || bad "report" "no top procedure or total"

# --- pprof ---------------------------------------------------------------------------------------
"$axprof" export -d "$tmp/db" --format pprof -o "$tmp/p.pb.gz" && [ ! -e "$tmp/p.pb.gz.tmp" ] &&
	[ "$(head -c 2 "$tmp/p.pb.gz" | od -An -tx1 | tr -d ' ')" = 1f8b ] &&
	ok "pprof: a gzip file, no .tmp left" || bad "pprof" "export failed"
if command -v go >/dev/null; then
	# HOME for go's cache when the checks run without one.
	HOME=${HOME:-$tmp} go tool pprof -top -noinlines "$tmp/p.pb.gz" >"$tmp/top.txt" 2>&1
	gtop=$(awk '/flat%/ { getline; print $NF; exit }' "$tmp/top.txt")
	gtot=$(sed -n 's/.* of \([0-9]*\)samples total.*/\1/p' "$tmp/top.txt")
	if [ "$gtop" = "$hot" ] && [ "$gtot" = "$total" ]; then
		ok "go tool pprof -top: the hottest is $gtop, as axprof report's; $gtot samples"
	else
		bad "go tool pprof" "top '$gtop' (report: '$hot'), total '$gtot' (report: $total): $(head -c 500 "$tmp/top.txt")"
	fi
	# every named procedure with report's samples, by samples (ties by name: the two order ties
	# differently) (issue 16: "the same top procedures")
	"$axprof" report -d "$tmp/db" --procedures -n 0 |
		awk '/^=+$/ { on = 1; getline; next } on && NF >= 5 && $4 != "(no" { print $4, $1 }' |
		sort -k2,2nr -k1,1 >"$tmp/rep.top"
	HOME=${HOME:-$tmp} go tool pprof -top -noinlines -nodefraction=0 "$tmp/p.pb.gz" >"$tmp/all.txt" 2>&1
	awk '/flat%/ { on = 1; next } on && $NF !~ /^\[/ { n = $1; sub(/samples/, "", n); print $NF, n }' \
		"$tmp/all.txt" | sort -k2,2nr -k1,1 >"$tmp/pp.top"
	if [ -s "$tmp/rep.top" ] && [ "$(wc -l <"$tmp/rep.top")" -ge 3 ] &&
		cmp -s "$tmp/rep.top" "$tmp/pp.top"; then
		ok "go tool pprof -top: the $(wc -l <"$tmp/rep.top") named procedures in report's order with its samples ($(tr '\n' ' ' <"$tmp/pp.top"))"
	else
		bad "go tool pprof -top vs report" "report: $(tr '\n' ' ' <"$tmp/rep.top"); pprof: $(tr '\n' ' ' <"$tmp/pp.top")"
	fi
	HOME=${HOME:-$tmp} go tool pprof -traces "$tmp/p.pb.gz" >"$tmp/traces.txt" 2>&1
	if grep -A1 'hs_step (inline)' "$tmp/traces.txt" | grep -q '^ *hs_mix$'; then
		ok "go tool pprof -traces: hs_step inlined into hs_mix"
	else
		bad "pprof inline frames" "$(head -c 400 "$tmp/traces.txt")"
	fi
elif [ -n "${CI:-}" ]; then
	bad "go" "go is not installed (scripts/install-deps installs golang-go) and CI is set"
else
	echo "skip  go tool pprof: go is not installed (scripts/install-deps installs golang-go)"
fi

# --- folded ----------------------------------------------------------------------------------------
"$axprof" export -d "$tmp/db" --format folded >"$tmp/f.txt" || bad "folded" "failed"
if awk -v t="$total" '!/^[^ ;][^;]*(;[^;]+)* [0-9]+$/ { bad = 1 } { s += $NF }
	END { exit bad || s != t }' "$tmp/f.txt" &&
	grep -q "^hotspots;$hot [0-9]*\$" "$tmp/f.txt"; then
	ok "folded: $(wc -l <"$tmp/f.txt") lines of 'image;procedure count' adding up to $total"
else
	bad "folded" "$(head -c 400 "$tmp/f.txt")"
fi

# --- csv -------------------------------------------------------------------------------------------
"$axprof" export -d "$tmp/db" --format csv -o "$tmp/p.csv" || bad "csv" "failed"
if [ "$(head -n1 "$tmp/p.csv")" = "image,procedure,address,file,line,cycles" ] &&
	awk -F, -v t="$total" 'NR > 1 { if (NF != 6 || $3 !~ /^0x[0-9a-f]+$/) bad = 1; s += $6 }
		END { exit bad || s != t }' "$tmp/p.csv" &&
	grep -q ",$hot,0x[0-9a-f]*,workloads/hotspots.c,[0-9]*," "$tmp/p.csv"; then
	ok "csv: $(($(wc -l <"$tmp/p.csv") - 1)) instructions with file and line, adding up to $total"
else
	bad "csv" "$(head -c 400 "$tmp/p.csv")"
fi

# --- record -g stacks: pprof traces and folded stack lines --------------------------------------
need "$wl/callargs"
"$axprof" record -q --hosted -g --seed 7 --period 400-440 -d "$tmp/dbg" -- "$wl/callargs" 20000 >/dev/null 2>&1 ||
	bad "record -g" "failed"
gtotal=$("$axprof" report -d "$tmp/dbg" --json | sed 's/.*"totals":{"cycles":\([0-9]*\)}.*/\1/')
"$axprof" report -d "$tmp/dbg" --callers ca_callee --json >"$tmp/gc.json"
"$axprof" export -d "$tmp/dbg" --format folded >"$tmp/gf.txt" || bad "folded -g" "failed"
# Every line is FlameGraph's "frame;...;frame count", root first; they add up to the total; the
# lines of ca_callee split it by calling procedure exactly as report --callers does.
want=$(python3 -c 'import json, sys
r = json.load(open(sys.argv[1])); d = {}
for c in r["callers"]: d[c["procedure"]] = d.get(c["procedure"], 0) + c["samples"]
print(" ".join("%s=%d" % kv for kv in sorted(d.items())))' "$tmp/gc.json")
got=$(awk '$1 ~ /;ca_callee$/ { n = split($1, f, ";"); s[f[n - 1]] += $2 }
	END { for (k in s) print k "=" s[k] }' "$tmp/gf.txt" | sort | tr '\n' ' ' | sed 's/ $//')
if awk -v t="$gtotal" '!/^[^ ;][^;]*(;[^;]+)* [0-9]+$/ { bad = 1 } { s += $NF }
	END { exit bad || s != t }' "$tmp/gf.txt" && grep -q '^_start;.*;main;ca_site_a;ca_callee [0-9]*$' "$tmp/gf.txt" &&
	[ -n "$want" ] && [ "$got" = "$want" ]; then
	ok "folded -g: root-first stack lines adding up to $gtotal; ca_callee by caller $got"
else
	bad "folded -g" "callers '$got' (report: '$want'): $(head -c 300 "$tmp/gf.txt")"
fi
"$axprof" export -d "$tmp/dbg" --format pprof -o "$tmp/g.pb.gz" || bad "pprof -g" "failed"
if command -v go >/dev/null; then
	HOME=${HOME:-$tmp} go tool pprof -traces "$tmp/g.pb.gz" >"$tmp/gtr.txt" 2>&1
	HOME=${HOME:-$tmp} go tool pprof -top "$tmp/g.pb.gz" >"$tmp/gtop.txt" 2>&1
	gtot=$(sed -n 's/.* of \([0-9]*\)samples total.*/\1/p' "$tmp/gtop.txt")
	# A trace is the leaf, then its callers outwards, one per line.
	if grep -A2 '^ *[0-9]* *ca_callee$' "$tmp/gtr.txt" | tr -s ' ' | tr '\n' '|' |
		grep -q '[0-9] ca_callee| ca_site_a| main|' && [ "$gtot" = "$gtotal" ]; then
		ok "go tool pprof -traces: ca_callee <- ca_site_a <- main; -top: $gtot samples"
	else
		bad "pprof -traces" "total '$gtot' ($gtotal): $(head -c 400 "$tmp/gtr.txt")"
	fi
fi

# --- bad input ---------------------------------------------------------------------------------------
"$axprof" export -d "$tmp/db" >/dev/null 2>&1; [ $? = 2 ] && ok "no --format: exit 2" || bad "no format" "not 2"
"$axprof" export -d "$tmp/db" --format svg >/dev/null 2>&1
[ $? = 2 ] && ok "--format svg: exit 2" || bad "svg" "not 2"
"$axprof" export -d "$tmp/nothere" --format csv >/dev/null 2>&1
[ $? = 1 ] && ok "a missing database: exit 1" || bad "missing db" "not 1"
"$axprof" export -d "$tmp/db" --format csv -o "$tmp/no/dir/x.csv" 2>"$tmp/e"
[ $? = 1 ] && grep -q 'cannot create' "$tmp/e" && ok "an unwritable -o: exit 1, said" ||
	bad "unwritable" "$(cat "$tmp/e")"
echo old >"$tmp/keep.csv"
"$axprof" export -d "$tmp/db" --format csv --image nosuch -o "$tmp/keep.csv" 2>/dev/null
[ $? = 1 ] && [ "$(cat "$tmp/keep.csv")" = old ] && [ ! -e "$tmp/keep.csv.tmp" ] &&
	ok "a failed export leaves the old file and no .tmp" || bad "torn" "keep.csv changed"
finish
