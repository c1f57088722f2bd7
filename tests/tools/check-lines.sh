#!/usr/bin/env bash
# tests/tools/check-lines.sh - source lines from DWARF: report --lines, annotate, export csv.
#
# hotspots (workloads/, -O2 -g) is recorded on the hosted machine. report --lines must equal the
# per-instruction samples summed per line by binutils' addr2line (an independent DWARF reader);
# annotate must show file:line with the line's text and hs_step's inline chain; --source-dir and
# a missing source are said; an image stripped of -g has no lines and says why. Lua (when
# `make workloads` built it) is profiled the same way: its lines are lvm.c, ltable.c...
. "$(dirname "$0")/lib.sh"
need "$axprof" "$wl/hotspots"
command -v python3 >/dev/null || { echo "check-lines: python3 needed"; exit 1; }
rec="$axprof record -q --hosted --seed 5"
src=$top/workloads/hotspots.c
$rec -d "$tmp/db" -- "$wl/hotspots" >/dev/null 2>"$tmp/rec.err" ||
	{ bad "record" "$(head -c 300 "$tmp/rec.err")"; finish; exit 1; }

# --- report --lines against addr2line ---------------------------------------------------------
"$axprof" report -d "$tmp/db" --lines --json >"$tmp/lines.json" 2>/dev/null ||
	bad "report --lines --json" "failed"
"$axprof" export -d "$tmp/db" --format csv --image hotspots -o "$tmp/insns.csv" ||
	bad "export csv" "failed"
# address,count of hotspots' instructions -> addr2line -> file:line count
awk -F, 'NR > 1 { print $3 }' "$tmp/insns.csv" >"$tmp/addrs"
alpha-linux-gnu-addr2line -e "$wl/hotspots" <"$tmp/addrs" | sed 's/ (discriminator.*//' >"$tmp/a2l"
paste -d, "$tmp/a2l" <(awk -F, 'NR > 1 { print $NF }' "$tmp/insns.csv") >"$tmp/a2l.csv"
if python3 - "$tmp/lines.json" "$tmp/a2l.csv" >"$tmp/cmp.out" 2>&1 <<'PY'; then
import json, os, sys
doc = json.loads(open(sys.argv[1]).read())
ours = {}
total = 0
for r in doc["lines"]:
    total += r["samples_by_event"]["cycles"]
    if os.path.basename(r["image"]) == "hotspots" and "file" in r:
        ours["%s:%d" % (os.path.basename(r["file"]), r["line"])] = r["samples_by_event"]["cycles"]
if total != doc["totals"]["cycles"]:
    sys.exit("rows add up to %d, total %d" % (total, doc["totals"]["cycles"]))
theirs = {}
for l in open(sys.argv[2]):
    fl, n = l.strip().rsplit(",", 1)
    if fl.startswith("??") or fl.endswith(":0") or fl.endswith(":?"):
        continue
    f, line = fl.rsplit(":", 1)
    k = "%s:%s" % (os.path.basename(f), line)
    theirs[k] = theirs.get(k, 0) + int(n)
if ours != theirs:
    sys.exit("report --lines %s\naddr2line      %s" % (sorted(ours.items()), sorted(theirs.items())))
top = max(ours, key=ours.get)
print("%d lines equal addr2line's; the hottest %s" % (len(ours), top))
PY
	ok "report --lines: $(cat "$tmp/cmp.out")"
else
	bad "report --lines" "$(head -c 600 "$tmp/cmp.out")"
fi
"$axprof" report -d "$tmp/db" --lines -n 3 >"$tmp/lines.txt" 2>"$tmp/lines.err"
if [ "$(grep -c 'hotspots\.c:[0-9]\+\|wl\.h:[0-9]\+' "$tmp/lines.txt")" = 3 ] &&
	grep -q 'ld-linux.so.2 has no DWARF line information' "$tmp/lines.err"; then
	ok "report --lines -n 3: three hotspots lines; an image without DWARF is named on stderr"
else
	bad "report --lines text" "$(cat "$tmp/lines.txt" "$tmp/lines.err" | head -c 600)"
fi
# The text's Total is the JSON's, each row's % its share of it, cum% adds up to 100%.
"$axprof" report -d "$tmp/db" --lines >"$tmp/lines.all" 2>/dev/null
if python3 - "$tmp/lines.all" "$tmp/lines.json" >"$tmp/pct.out" 2>&1 <<'PY'; then
import json, re, sys
text = open(sys.argv[1]).read().splitlines()
total = json.load(open(sys.argv[2]))["totals"]["cycles"]
shown = [int(l.split()[1]) for l in text if re.match(r"^cycles +[0-9]+$", l)]
rows = [l.split() for l in text if re.match(r"^ +[0-9]+ +[0-9.]+% +[0-9.]+% ", l)]
if shown != [total] or total == 0 or not rows:
    sys.exit("Total %s, JSON total %d, %d rows" % (shown, total, len(rows)))
cum = 0
for r in rows:
    n, pct, cpct = int(r[0]), float(r[1][:-1]), float(r[2][:-1])
    cum += n
    if abs(pct - 100.0 * n / total) > 0.006 or abs(cpct - 100.0 * cum / total) > 0.006:
        sys.exit("row %s: share of %d wrong" % (" ".join(r), total))
if cum != total or rows[-1][2] != "100.00%":
    sys.exit("rows add up to %d of %d, last cum%% %s" % (cum, total, rows[-1][2]))
print("Total %d, %d rows, shares of it, cum%% ends at 100.00%%" % (total, len(rows)))
PY
	ok "report --lines text: $(cat "$tmp/pct.out")"
else
	bad "report --lines totals" "$(head -c 600 "$tmp/pct.out")"
fi

# --- annotate: file:line, the text, the inline chain --------------------------------------------
call=$(grep -n 'x = hs_step(' "$src" | cut -d: -f1)
mul=$(grep -n 'x \*= k | 1;' "$src" | cut -d: -f1)
"$axprof" annotate -d "$tmp/db" hotspots hs_mix >"$tmp/ann.txt" 2>&1
if grep -q "^  source workloads/hotspots.c: $top/workloads/hotspots.c\$" "$tmp/ann.txt" &&
	grep -qF "  hotspots.c:$mul  	x *= k | 1;" "$tmp/ann.txt" &&
	grep -q "^    inlined hs_step, called at hotspots.c:$call\$" "$tmp/ann.txt"; then
	ok "annotate: hotspots.c:$mul with its text, hs_step inlined at line $call"
else
	bad "annotate source" "$(head -c 800 "$tmp/ann.txt")"
fi
"$axprof" annotate -d "$tmp/db" --json hotspots hs_mix >"$tmp/ann.json" 2>/dev/null
if python3 - "$tmp/ann.json" "$call" <<'PY'; then
import json, sys
d = json.loads(open(sys.argv[1]).read())
ins = d["instructions"]
assert all(i["file"].endswith("hotspots.c") or i["file"].endswith("wl.h") for i in ins)
inl = [i for i in ins if "inlined" in i]
assert inl and all(i["inlined"][0]["procedure"] == "hs_step" and
                   i["inlined"][0]["line"] == int(sys.argv[2]) for i in inl)
PY
	ok "annotate --json: every instruction has file and line; inlined ones name hs_step"
else
	bad "annotate --json" "$(head -c 400 "$tmp/ann.json")"
fi
mkdir -p "$tmp/empty" "$tmp/src"
"$axprof" annotate -d "$tmp/db" --source-dir "$tmp/empty" hotspots hs_mix >"$tmp/nf.txt" 2>&1
if grep -q "source workloads/hotspots.c: not found (tried $tmp/empty/workloads/hotspots.c, $tmp/empty/hotspots.c" "$tmp/nf.txt" &&
	grep -q "^  hotspots.c:$mul\$" "$tmp/nf.txt"; then
	ok "annotate --source-dir without the file: says where it looked, keeps file:line"
else
	bad "annotate source not found" "$(grep -m3 source "$tmp/nf.txt")"
fi
cp "$src" "$tmp/src/"
"$axprof" annotate -d "$tmp/db" --source-dir "$tmp/src" hotspots hs_mix >"$tmp/sd.txt" 2>&1
grep -q "source workloads/hotspots.c: $tmp/src/hotspots.c" "$tmp/sd.txt" &&
	ok "annotate --source-dir DIR: the file found in DIR" ||
	bad "annotate --source-dir" "$(grep -m3 source "$tmp/sd.txt")"
"$axprof" annotate -d "$tmp/db" --source-dir "$tmp/none" hotspots >/dev/null 2>&1
[ $? = 2 ] && ok "annotate --source-dir MISSING: exit 2" || bad "--source-dir missing" "not 2"

# --- an image without DWARF ----------------------------------------------------------------------
alpha-linux-gnu-strip -g -o "$tmp/hs-nodw" "$wl/hotspots"
$rec -d "$tmp/nodw" -- "$tmp/hs-nodw" >/dev/null 2>&1
"$axprof" annotate -d "$tmp/nodw" hs-nodw hs_mix >"$tmp/nodw.txt" 2>&1
"$axprof" report -d "$tmp/nodw" --lines --image hs-nodw >"$tmp/nodw-l.txt" 2>&1
if grep -q "no source lines: .*hs-nodw has no DWARF line information (build it with -g" "$tmp/nodw.txt" &&
	! grep -q 'hotspots\.c:' "$tmp/nodw.txt" "$tmp/nodw-l.txt" &&
	grep -q '(no line information) *hs-nodw' "$tmp/nodw-l.txt"; then
	ok "stripped of -g: annotate and report --lines say there are no lines"
else
	bad "no DWARF" "$(head -c 400 "$tmp/nodw.txt")"
fi

# --- Lua ------------------------------------------------------------------------------------------
if [ -x "$wl/lua" ]; then
	$rec -d "$tmp/lua" --period 12000-13000 -- "$wl/lua" "$top/workloads/lua/mix.lua" 300 \
		>/dev/null 2>&1
	"$axprof" report -d "$tmp/lua" --lines --image lua -n 5 >"$tmp/lua.txt" 2>&1
	"$axprof" annotate -d "$tmp/lua" lua luaV_execute >"$tmp/lua-ann.txt" 2>&1
	if [ "$(grep -c ' l[a-z]*\.c:[0-9]\+ *lua$' "$tmp/lua.txt")" = 5 ] &&
		grep -q '^  lvm.c:[0-9]\+  ' "$tmp/lua-ann.txt"; then
		ok "lua: report --lines ranks Lua's source lines; annotate luaV_execute shows lvm.c"
	else
		bad "lua lines" "$(head -c 600 "$tmp/lua.txt")"
	fi
else
	echo "skip  lua: not built (make workloads)"
fi
finish
