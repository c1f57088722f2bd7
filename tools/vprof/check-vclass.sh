#!/usr/bin/env bash
# tools/vprof/check-vclass.sh - issue 20: vprof's default summary holds data invariants only, each
# with a suggestion, and still every planted value of workloads/semiinv.planted.
#
# semiinv (always) and bzip2, gzip and the Lua interpreter (when `make workloads` built them) are
# recorded under --mode vprof on the hosted machine; then, in `vprof --json`'s default list (key invariance):
#  - every entry is of class "data";
#  - no entry is invariant by construction by an oracle independent of the classifier, from
#    the instruction's text alone: a link write (bsr/jsr/br/jmp with a destination), an
#    lda/ldah/mov/clr of a literal, a GP set-up;
#  - (semiinv) every planted "result" line with a share >= 0.5 is listed (--min-share 0.75) (function, mnemonic,
#    value), with the suggestion its kind calls for: "hoist" for a load, "specialise" or
#    "speculate" for the rest;
#  - `--all` lists what the default leaves out, each labelled with a class that is not "data",
#    and the loop-exit compare of si_scan_flags (cmpeq, 0 until the last iteration) among them.
. "$(dirname "$0")/../../tests/tools/lib.sh"
need "$axprof" "$bin/vprof" "$wl/semiinv"

check() { # NAME DB [PLANTED BINARY]
	"$bin/vprof" -d "$2" --json --min-share 0.75 >"$tmp/$1.json" 2>"$tmp/$1.err" ||
		{ bad "$1: vprof --json" "$(head -c 300 "$tmp/$1.err")"; return; }
	"$bin/vprof" -d "$2" --json --min-share 0.75 --all >"$tmp/$1.all.json" 2>"$tmp/$1.err" ||
		{ bad "$1: vprof --json --all" "$(head -c 300 "$tmp/$1.err")"; return; }
	if python3 - "$1" "$tmp/$1.json" "$tmp/$1.all.json" "${3:-}" "${4:-}" >"$tmp/$1.out" 2>&1 <<'PY'
import json, re, subprocess, sys
name, default_path, all_path, planted, binary = sys.argv[1:6]
d = json.load(open(default_path))["semi_invariant"]
a = json.load(open(all_path))["semi_invariant"]
fails = []
link = re.compile(r'^(bsr|jsr|br|jmp|jsr_coroutine) (?!zero)\w+,')
const = re.compile(r'^(lda|ldah) \w+,-?(0x)?[0-9a-f]+$|^(mov -?[0-9]|clr )|^(lda|ldah) \w+,-?\w+\(zero\)|^(lda|ldah) gp,')
for e in d:
    if e["invariance"] != "data":
        fails.append("default list holds class %s: %s %s" % (e["invariance"], e["address"], e["text"]))
    if link.match(e["text"]) or const.match(e["text"]):
        fails.append("default list holds an invariant by construction: %s %s" % (e["address"], e["text"]))
    if e["suggestion"] not in ("hoist", "specialise", "speculate") or not e["advice"]:
        fails.append("no suggestion for %s %s" % (e["address"], e["text"]))
    if not 0 <= e["potential"] <= 1:
        fails.append("potential out of [0,1] at %s" % e["address"])
hidden = [e for e in a if e["invariance"] != "data"]
if json.load(open(default_path))["hidden"] != len(hidden):
    fails.append("'hidden' says %d, --all lists %d not of class data" % (json.load(open(default_path))["hidden"], len(hidden)))
print("%s: %d data entries by default, %d more with --all (%s)" % (name, len(d), len(hidden),
      ", ".join(sorted({e["invariance"] for e in hidden}))))
if planted:
    syms = {}
    for line in subprocess.run(["alpha-linux-gnu-nm", binary], capture_output=True, text=True).stdout.splitlines():
        f = line.split()
        if len(f) == 3:
            syms[f[2]] = int(f[0], 16)
    if not any(e["invariance"] == "loop-control" and e.get("procedure") == "si_scan_flags" and e["text"].startswith("cmpeq") for e in a):
        fails.append("--all does not label si_scan_flags' loop-exit cmpeq loop-control")
    for line in open(planted):
        f = line.split()
        if not f or f[0].startswith("#") or f[5] != "result" or f[7].startswith("<") or float(f[7]) < 0.5:
            continue
        value = syms.get(f[6][4:], -1) if f[6].startswith("sym:") else int(f[6], 16)
        hits = [e for e in d if e.get("procedure") == f[1] and e["text"].split()[0] == f[3] and int(e["value"], 16) == value]
        if not hits:
            fails.append("planted %s (%s %s = %#x) not in the default list" % (f[0], f[1], f[3], value))
            continue
        want = ("hoist",) if f[3].startswith("ld") else ("specialise", "speculate")
        if hits[0]["suggestion"] not in want:
            fails.append("planted %s suggests %s, not %s" % (f[0], hits[0]["suggestion"], "/".join(want)))
        else:
            print("planted %-10s %-16s %-5s listed, potential %5.1f%%, suggestion %s" % (f[0], f[1], f[3], 100 * hits[0]["potential"], hits[0]["suggestion"]))
for x in fails:
    print("FAIL " + x)
sys.exit(1 if fails else 0)
PY
	then
		ok "$1: the default list is data invariants only, each with a suggestion ($(head -n 1 "$tmp/$1.out"))"
	else
		bad "$1: vprof classes" "$(grep FAIL "$tmp/$1.out" | head -n 5)"
	fi
	sed 's/^/  /' "$tmp/$1.out"
}

"$axprof" record -q --hosted -d "$tmp/semiinv" --mode vprof --period 400-440 --share 1/1 --budget 8 \
	-- "$wl/semiinv" >/dev/null 2>"$tmp/err" || bad "record semiinv" "$(head -c 300 "$tmp/err")"
check semiinv "$tmp/semiinv" "$top/workloads/semiinv.planted" "$wl/semiinv"

# Larger programs, when built: a short input each (the classes, not the shares, are checked).
awk 'BEGIN { for (i = 0; i < 3000; i++) printf "%06d the quick brown fox %d jumps\n", i, i * i % 977 }' >"$tmp/in"
for p in bzip2 gzip; do
	[ -x "$wl/$p" ] || { echo "skip  $p not built (make workloads)"; continue; }
	"$axprof" record -q --hosted -d "$tmp/$p" --mode vprof --period 4000-4400 -- "$wl/$p" -9 -c \
		<"$tmp/in" >/dev/null 2>"$tmp/err" || { bad "record $p" "$(head -c 300 "$tmp/err")"; continue; }
	check "$p" "$tmp/$p"
done
if [ -x "$wl/lua" ]; then
	printf 'local t = {} for i = 1, 3000 do t[i] = i %% 13 end local s = 0 for i = 1, #t do s = s + t[i] end print(s)\n' >"$tmp/p.lua"
	if "$axprof" record -q --hosted -d "$tmp/lua" --mode vprof --period 4000-4400 -- "$wl/lua" "$tmp/p.lua" \
		>/dev/null 2>"$tmp/err"; then
		check lua "$tmp/lua"
	else
		bad "record lua" "$(head -c 300 "$tmp/err")"
	fi
else
	echo "skip  lua not built (make workloads)"
fi
finish
