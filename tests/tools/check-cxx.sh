#!/usr/bin/env bash
# tests/tools/check-cxx.sh - C++ names demangled in every view, --no-demangle, and vprof's
# pointer values named by the symbol they fall in (issue 16 item 7).
#
# workloads/cxxshapes.cc (g++ for Alpha) is recorded on the hosted machine in vprof mode; each
# view must print its procedures demangled ("geo::Square::area(long) const"), the raw name
# with --no-demangle, take either name as PROC, and carry both in JSON (procedure,
# procedure_mangled). Its virtual calls load the objects' vtable pointers and the methods'
# addresses: vprof must name them "vtable for geo::Square+0x10" and "geo::Square::area(long)
# const" beside the values, in text and JSON.
. "$(dirname "$0")/lib.sh"
need "$axprof" "$bin/vprof" "$bin/vreplay" "$wl/cxxshapes"
db=$tmp/db
sq='geo::Square::area(long) const'
sqm=_ZNK3geo6Square4areaEl
# has NAME FILE TEXT: FILE holds TEXT (a fixed string)
has() {
	if grep -qF -- "$3" "$2"; then ok "$1"; else bad "$1" "no '$3' in $(head -c 400 "$2")"; fi
}
hasnt() {
	if grep -qF -- "$3" "$2"; then bad "$1" "'$3' found"; else ok "$1"; fi
}
if ! "$axprof" record -q --hosted --seed 3 --mode vprof --period 2000-2200 --share 1/1 \
	-d "$db" -- "$wl/cxxshapes" 3000 >"$tmp/rec" 2>&1; then
	bad record "$(head -c 300 "$tmp/rec")"
	finish
	exit
fi
"$axprof" report -d "$db" --procedures -n 5 >"$tmp/r" 2>&1
has "report: demangled" "$tmp/r" "$sq"
has "report: a template's method" "$tmp/r" "geo::total(geo::Shape const* const*, long, long)"
hasnt "report: no mangled name" "$tmp/r" "$sqm"
"$axprof" report -d "$db" --procedures -n 5 --no-demangle >"$tmp/rn" 2>&1
has "report --no-demangle: raw" "$tmp/rn" "$sqm"
hasnt "report --no-demangle: nothing demangled" "$tmp/rn" "geo::"
"$axprof" report -d "$db" --procedures --json >"$tmp/rj" 2>&1
python3 - "$tmp/rj" "$sq" "$sqm" >"$tmp/rjo" 2>&1 <<'PY' && ok "report --json: procedure and procedure_mangled" || bad "report --json" "$(cat "$tmp/rjo")"
import json, sys
d = json.load(open(sys.argv[1]))
p = [x for x in d["procedures"] if x["procedure"] == sys.argv[2]]
assert p and p[0]["procedure_mangled"] == sys.argv[3], p
assert all("procedure_mangled" not in x for x in d["procedures"] if x["procedure"] == "main")
PY
"$axprof" annotate -d "$db" cxxshapes "$sq" >"$tmp/a1" 2>&1
"$axprof" annotate -d "$db" cxxshapes "$sqm" >"$tmp/a2" 2>&1
has "annotate: by demangled name" "$tmp/a1" "procedure $sq ["
has "annotate: by raw name, printed demangled" "$tmp/a2" "procedure $sq ["
"$axprof" topstalls -d "$db" -n 5 >"$tmp/t" 2>&1
has "topstalls: demangled" "$tmp/t" "geo::"
"$axprof" export -d "$db" --format folded >"$tmp/f" 2>&1
has "export folded: demangled" "$tmp/f" "$sq"
"$axprof" export -d "$db" --format pprof -o "$tmp/p.pb.gz" 2>"$tmp/pe"
if gzip -dc "$tmp/p.pb.gz" 2>/dev/null | grep -qaF "$sq" && gzip -dc "$tmp/p.pb.gz" | grep -qaF "$sqm"; then
	ok "export pprof: function name demangled, system_name mangled"
else
	bad "export pprof" "names not in the string table: $(head -c 200 "$tmp/pe")"
fi
"$axprof" diff -n 0 "$db" "$db" >"$tmp/d" 2>&1
has "diff: demangled" "$tmp/d" "geo::"
"$axprof" cfg "$wl/cxxshapes" >"$tmp/c" 2>&1
has "cfg: demangled" "$tmp/c" "$sq"
"$axprof" cfg "$wl/cxxshapes" "$sq" >"$tmp/c2" 2>&1
has "cfg PROC: by demangled name" "$tmp/c2" "proc $sq 0x"
"$axprof" cfg --no-demangle "$wl/cxxshapes" >"$tmp/c3" 2>&1
has "cfg --no-demangle" "$tmp/c3" "$sqm"
has "cfg: C names as they are" "$tmp/c" " main"
"$bin/vprof" -d "$db" --image cxxshapes >"$tmp/v" 2>&1
has "vprof: procedure demangled" "$tmp/v" "procedure $sq ("
has "vprof: a vtable pointer named" "$tmp/v" "<vtable for geo::Square+0x10>"
has "vprof: a method's address named" "$tmp/v" "<$sq>"
has "vprof: a data object named" "$tmp/v" " <sq2>"
"$bin/vprof" -d "$db" --image cxxshapes --no-demangle >"$tmp/vn" 2>&1
has "vprof --no-demangle: raw vtable symbol" "$tmp/vn" "<_ZTVN3geo6SquareE+0x10>"
"$bin/vprof" -d "$db" --image cxxshapes --json >"$tmp/vj" 2>&1
python3 - "$tmp/vj" "$sq" >"$tmp/vjo" 2>&1 <<'PY' && ok "vprof --json: symbol beside the values" || bad "vprof --json" "$(cat "$tmp/vjo")"
import json, sys
d = json.load(open(sys.argv[1]))
syms = {}
procs = [p for im in d["images"] for p in im["procedures"]]
for p in procs:
    for i in p["instructions"]:
        for v in i.get("values", []):
            if "symbol" in v:
                syms[v["symbol"]] = int(v["value"], 16)
assert "vtable for geo::Square+0x10" in syms, syms
assert syms[sys.argv[2]] % 4 == 0, syms
# values outside every symbol (stack addresses, small counts) carry none
for p in procs:
    for i in p["instructions"]:
        for v in i.get("values", []):
            if int(v["value"], 16) < 0x1000:
                assert "symbol" not in v, v
PY
python3 "$here/check-json.py" "$top/docs/axprof-json.7" "$tmp/rj:report" "$tmp/vj:vprof" \
	>"$tmp/cj" 2>&1 && ok "report and vprof JSON follow axprof-json(7)" || bad "check-json" "$(cat "$tmp/cj")"
finish
