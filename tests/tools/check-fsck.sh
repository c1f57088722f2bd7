#!/usr/bin/env bash
# tests/tools/check-fsck.sh - one damaged file no longer makes a database unreadable (issue 12, 4).
#
# A recorded database is damaged five ways (a bit flip in a CYCLES.prof, a truncated values.prof,
# CYCLES.prof swapped between two images, a listed CYCLES.prof deleted, a garbage index). For
# each: every reader and merge exits 1 without --skip-damaged; with it they exit 0, name exactly
# the damaged files (stderr, "skipped" in --json) and the CYCLES total is that of the undamaged
# files, to the sample; axprof fsck lists exactly the damaged files (exit 1); fsck --repair
# moves them to DIR/quarantine byte for byte, after which fsck is clean and flagless readers
# give the --skip-damaged numbers.
. "$(dirname "$0")/lib.sh"
need "$axprof" "$bin/vprof" "$bin/vreplay" "$wl/semiinv"
command -v python3 >/dev/null || { echo "check-fsck: python3 needed"; exit 1; }

db=$tmp/db
"$axprof" record -q --hosted -d "$db" --mode vprof --period 20000-22000 --share 1/1 -- \
	"$wl/semiinv" 40 >/dev/null 2>"$tmp/rec.err" || bad "record" "$(head -c 300 "$tmp/rec.err")"
cp -a "$db" "$tmp/orig"
# json_get FILE EXPR: a value of the JSON document in FILE (d is the document).
json_get() {
	python3 -c 'import json,sys; d=json.loads(open(sys.argv[1]).readline()); print(eval(sys.argv[2]))' "$1" "$2"
}
# k0: the program's image (annotate and topstalls need its samples and its path); k1 another.
"$axprof" annotate -d "$db" --json -n 1 semiinv >"$tmp/a.json" 2>/dev/null
k0=$(json_get "$tmp/a.json" 'd["key"]')
k1=$(cd "$db/epoch-1" && for k in */; do [ -f "$k/CYCLES.prof" ] && [ "${k%/}" != "$k0" ] && echo "${k%/}"; done | head -n1)
[ -n "$k0" ] && [ -n "$k1" ] || bad "record" "want two images with CYCLES.prof: '$k0' '$k1'"
[ -f "$db/epoch-1/$k0/values.prof" ] || bad "record" "$k0 has no values.prof"

cycles_of() { # DB: the CYCLES total report gives
	"$axprof" report -d "$1" --json >"$tmp/c.json" 2>/dev/null &&
		json_get "$tmp/c.json" 'd["totals"].get("cycles", 0)'
}
image_cycles() { # KEY: the CYCLES samples of image KEY in the intact database
	"$axprof" report -d "$db" --image "$1" --json >"$tmp/c.json" 2>/dev/null &&
		json_get "$tmp/c.json" 'd["images"][0]["samples_by_event"]["cycles"]'
}
total=$(cycles_of "$db")
c0=$(image_cycles "$k0")
c1=$(image_cycles "$k1")
if [ -n "$total" ] && [ "${c0:-0}" -gt 0 ] && [ "${c1:-0}" -gt 0 ] && [ "$total" -gt $((c0 + c1)) ]; then
	ok "intact: $total CYCLES samples, $c0 in $k0, $c1 in $k1"
else
	bad "intact" "totals '$total' '$c0' '$c1'"
fi
if "$axprof" fsck -d "$db" >"$tmp/fsck.out" 2>&1; then
	ok "intact: fsck exits 0"
else
	bad "intact: fsck" "$(head -c 300 "$tmp/fsck.out")"
fi

restore() {
	rm -rf "$db"
	cp -a "$tmp/orig" "$db"
}

# readers: ARGS... run by each reader as "TOOL ARGS" (stdout into $tmp/r.out, stderr $tmp/r.err).
reader() {
	local t=$1
	shift
	case $t in
	report | topstalls) "$axprof" "$t" -d "$db" "$@" ;;
	annotate) "$axprof" annotate -d "$db" "$@" semiinv ;;
	merge) rm -rf "$tmp/m" && "$axprof" merge -d "$tmp/m" "$@" "$db" ;;
	*) "$bin/$t" -d "$db" "$@" ;;
	esac >"$tmp/r.out" 2>"$tmp/r.err" </dev/null
}
all_readers="report annotate topstalls vprof vreplay merge"

# check_case WHAT EXPECTED_TOTAL READERS FILE...: the database is damaged in FILEs (relative to
# epoch-1). READERS: those that have something to show then (annotate and topstalls need the
# program's CYCLES samples and its path, which only the index records).
check_case() {
	local what=$1 want=$2 readers=$3 t rc f got
	shift 3
	rm -f "$tmp"/saved.*
	local files=("$@") sorted
	sorted=$(for f in "${files[@]}"; do echo "$db/epoch-1/$f"; done | sort)
	for t in $readers; do
		reader "$t"
		rc=$?
		if [ "$rc" = 1 ] && grep -qF "${files[0]%%/*}" "$tmp/r.err"; then
			ok "$what: $t exits 1 without --skip-damaged"
		else
			bad "$what: $t without --skip-damaged" "exit $rc: $(head -c 300 "$tmp/r.err")"
		fi
		reader "$t" --skip-damaged --json
		rc=$?
		got=$(grep -o "skipped damaged [^:]*" "$tmp/r.err" | sed 's/^skipped damaged //' | sort)
		if [ "$rc" = 0 ] && [ "$got" = "$sorted" ]; then
			ok "$what: $t --skip-damaged exits 0 naming exactly the damaged files"
		else
			bad "$what: $t --skip-damaged" "exit $rc, named '$got', want '$sorted': $(head -c 300 "$tmp/r.err")"
		fi
		case $t in annotate) continue ;; esac # one document per procedure: checked below
		got=$(head -n1 "$tmp/r.out" | python3 -c 'import json,sys
d=json.loads(sys.stdin.readline())
s=d["skipped"] if "skipped" in d else d["merged"][0]["skipped"]
print("\n".join(sorted(x["file"] for x in s)))' 2>&1)
		if [ "$got" = "$sorted" ]; then
			ok "$what: $t --json lists them under \"skipped\""
		else
			bad "$what: $t --json skipped" "'$got'"
		fi
	done
	reader report --skip-damaged
	if grep -qF "skipped damaged $db/epoch-1/${files[0]}" "$tmp/r.out"; then
		ok "$what: report's text header names the skipped file"
	else
		bad "$what: report text" "$(head -c 300 "$tmp/r.out")"
	fi
	"$axprof" report -d "$db" --skip-damaged --json >"$tmp/s.json" 2>/dev/null
	got=$(json_get "$tmp/s.json" 'd["totals"].get("cycles", 0)')
	if [ "$got" = "$want" ]; then
		ok "$what: --skip-damaged total $got = the undamaged files' total"
	else
		bad "$what: total" "$got, want $want"
	fi
	reader merge --skip-damaged
	got=$(cycles_of "$tmp/m")
	if [ "$got" = "$want" ]; then
		ok "$what: merge --skip-damaged merged the $got readable CYCLES samples"
	else
		bad "$what: merged total" "$got, want $want"
	fi
	"$axprof" fsck -d "$db" --json >"$tmp/f.json" 2>"$tmp/f.err"
	rc=$?
	got=$(json_get "$tmp/f.json" '"\n".join(sorted(p["file"] for p in d["problems"] if p["kind"] != "note"))')
	if [ "$rc" = 1 ] && [ "$got" = "$sorted" ]; then
		ok "$what: fsck exits 1 listing exactly the damaged files"
	else
		bad "$what: fsck" "exit $rc, listed '$got', want '$sorted' $(head -c 200 "$tmp/f.err")"
	fi
	for f in "${files[@]}"; do
		[ -e "$db/epoch-1/$f" ] && cp "$db/epoch-1/$f" "$tmp/saved.$(echo "$f" | tr / _)"
	done
	"$axprof" fsck -d "$db" --repair >"$tmp/f.out" 2>&1
	rc=$?
	if [ "$rc" = 1 ] && grep -q "repaired" "$tmp/f.out"; then
		ok "$what: fsck --repair exits 1 saying it repaired"
	else
		bad "$what: fsck --repair" "exit $rc: $(head -c 300 "$tmp/f.out")"
	fi
	for f in "${files[@]}"; do
		local s="$tmp/saved.$(echo "$f" | tr / _)" q="$db/quarantine/epoch-1/$f"
		[ -e "$s" ] || continue
		if cmp -s "$s" "$q" && [ -s "$q.reason" ] && [ ! -e "$db/epoch-1/$f" ]; then
			ok "$what: $f quarantined intact, with its reason"
		else
			bad "$what: quarantine of $f" "$(ls -la "$q" "$q.reason" 2>&1 | head -c 300)"
		fi
	done
	if "$axprof" fsck -d "$db" >"$tmp/f.out" 2>&1; then
		ok "$what: fsck is clean after --repair"
	else
		bad "$what: fsck after --repair" "$(head -c 300 "$tmp/f.out")"
	fi
	for t in $readers; do
		if reader "$t"; then
			ok "$what: $t exits 0 without the flag after --repair"
		else
			bad "$what: $t after --repair" "$(head -c 300 "$tmp/r.err")"
		fi
	done
	got=$(cycles_of "$db")
	if [ "$got" = "$want" ]; then
		ok "$what: after --repair the total is $got, as --skip-damaged said"
	else
		bad "$what: total after repair" "$got, want $want"
	fi
	restore
}

f0=$db/epoch-1/$k1/CYCLES.prof
python3 -c 'import sys; b=bytearray(open(sys.argv[1],"rb").read()); b[len(b)-3]^=0x10; open(sys.argv[1],"wb").write(b)' "$f0"
check_case "bit flip" $((total - c1)) "$all_readers" "$k1/CYCLES.prof"

v0=$db/epoch-1/$k0/values.prof
truncate -s $(($(stat -c %s "$v0") - 5)) "$v0"
check_case "truncated values.prof" "$total" "$all_readers" "$k0/values.prof"

mv "$db/epoch-1/$k0/CYCLES.prof" "$tmp/c0"
mv "$db/epoch-1/$k1/CYCLES.prof" "$db/epoch-1/$k0/CYCLES.prof"
mv "$tmp/c0" "$db/epoch-1/$k1/CYCLES.prof"
check_case "swapped CYCLES.prof" $((total - c0 - c1)) "report vprof vreplay merge" \
	"$k0/CYCLES.prof" "$k1/CYCLES.prof"

rm "$db/epoch-1/$k1/CYCLES.prof"
check_case "deleted CYCLES.prof" $((total - c1)) "$all_readers" "$k1/CYCLES.prof"

head -c 100 /dev/urandom >"$db/epoch-1/index"
check_case "garbage index" "$total" "report vprof vreplay merge" "index"

# Without the flag, usage: --epoch and --all exclude each other.
"$axprof" fsck -d "$db" --epoch 1 --all >/dev/null 2>&1
rc=$?
[ "$rc" = 2 ] && ok "fsck --epoch --all: usage, exit 2" || bad "fsck --epoch --all" "exit $rc"
finish
