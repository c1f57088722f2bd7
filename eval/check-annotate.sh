#!/usr/bin/env bash
# eval/check-annotate.sh - `axprof annotate`, `axprof topstalls` and `axprof report --stalls` end
# to end, and on bad input.
#
# Records a small workload (and a stripped copy of it) on the hosted machine into a scratch
# database, then checks the text, JSON and CSV outputs, and that bad input (no database, unknown
# image or procedure, an image file replaced by garbage, a procedure without samples, bad options)
# gives the right exit status and a message on stderr, never a crash. make check runs it.
set -u
BUILD=${BUILD:-build}
AXPROF=$BUILD/bin/axprof
STRIP=${ASTRIP:-alpha-linux-gnu-strip}
fail=0
n=0

if [ ! -x "$AXPROF" ] || [ ! -x "$BUILD/workloads/structsearch" ]; then
	echo "check-annotate: $AXPROF or $BUILD/workloads/structsearch not built (run make)"
	exit 1
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/check-annotate.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
db=$tmp/db

bad() {
	echo "FAIL $1"
	[ -s "$tmp/err" ] && sed 's/^/  stderr: /' "$tmp/err" | head -n 3
	fail=1
}

# expect STATUS PATTERN CMD ARGS...: exit status, stderr matches PATTERN (grep -E) when given;
# a status above 2 (a signal) is always a failure.
expect() {
	local want=$1 pat=$2 rc
	shift 2
	n=$((n + 1))
	"$AXPROF" "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ "$rc" != "$want" ]; then
		bad "axprof $*: exit $rc, want $want"
	elif [ -n "$pat" ] && ! grep -Eq -- "$pat" "$tmp/err"; then
		bad "axprof $*: stderr does not say /$pat/"
	fi
}

# A program and a stripped copy, recorded with a short period.
cp "$BUILD/workloads/structsearch" "$tmp/prog"
cp "$BUILD/workloads/structsearch" "$tmp/prog-stripped"
if ! "$STRIP" "$tmp/prog-stripped" 2>/dev/null; then
	echo "check-annotate: $STRIP missing: the stripped case is skipped"
	rm -f "$tmp/prog-stripped"
fi
# (Stripping keeps the build-id, so the copies get the same image key: separate databases.)
for p in prog prog-stripped; do
	[ -f "$tmp/$p" ] || continue
	if ! "$AXPROF" record -q --hosted -d "$db-$p" --period 900-1100 -- "$tmp/$p" 300 >/dev/null \
		2>"$tmp/err"; then
		bad "axprof record $p"
		exit 1
	fi
done
sdb=$db-prog-stripped
db=$db-prog

# --- normal output --------------------------------------------------------------------------------
expect 0 "" annotate -d "$db" --period 1000 prog ss_find
grep -q "procedure ss_find" "$tmp/out" || bad "annotate: no procedure header"
grep -Eq "^0x[0-9a-f]{16} +[0-9]+ " "$tmp/out" || bad "annotate: no instruction lines"
grep -q -- "--- block" "$tmp/out" || bad "annotate: no block lines"
grep -Eq "execution|dynamic stalls" "$tmp/out" || bad "annotate: no summary"

expect 0 "" annotate -d "$db" --period 1000 -n 2 --json --freq-csv "$tmp/f.csv" prog
[ "$(wc -l <"$tmp/out")" = 2 ] || bad "annotate --json -n 2: want 2 lines, got $(wc -l <"$tmp/out")"
if command -v python3 >/dev/null 2>&1; then
	python3 -c '
import json, sys
for line in open(sys.argv[1]):
    d = json.loads(line)
    assert d["instructions"] and d["blocks"] and "summary" in d, "fields"
    for i in d["instructions"]:
        assert i["executions"] >= 0 and i["cpi"] >= 0, "negative"
' "$tmp/out" || bad "annotate --json: not valid JSON with instructions, blocks, summary"
fi
head -n 1 "$tmp/f.csv" | grep -q "^image,procedure,addr" || bad "annotate --freq-csv: header"
[ "$(wc -l <"$tmp/f.csv")" -gt 10 ] || bad "annotate --freq-csv: too few lines"

expect 0 "" topstalls -d "$db" --period 1000 -n 5
grep -q "stall%" "$tmp/out" || bad "topstalls: no header"
[ "$(grep -c '^ *[0-9.]*% ' "$tmp/out")" = 5 ] || bad "topstalls -n 5: want 5 stalls"
expect 0 "" topstalls -d "$db" --period 1000 --json --image prog
grep -q '"stalls":\[' "$tmp/out" || bad "topstalls --json"

# report --stalls: one row per procedure, and each summary adds up (execution + static + dynamic
# = samples; the causes' split + unexplained = dynamic), and agrees with annotate's for ss_find.
expect 0 "" report -d "$db" --stalls --period 1000
grep -q "procedure" "$tmp/out" && grep -Eq "^ +[0-9]+ .* ss_find +prog$" "$tmp/out" &&
	grep -Eq " total$" "$tmp/out" || bad "report --stalls: no header, ss_find row or total"
expect 0 "" report -d "$db" --stalls --period 1000 -n 2
[ "$(grep -Ec ' prog$| libc.so.6.1$| ld-linux.so.2$' "$tmp/out")" = 2 ] ||
	bad "report --stalls -n 2: want 2 procedure rows"
expect 0 "" report -d "$db" --stalls --period 1000 --json
cp "$tmp/out" "$tmp/stalls.json"
expect 0 "" annotate -d "$db" --period 1000 --json prog ss_find
if command -v python3 >/dev/null 2>&1; then
	python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
ann = json.loads(open(sys.argv[2]).readline())["summary"]
tot = 0
for p in d["procedures"]:
    s = p["summary"]
    tot += s["samples"]
    assert abs(s["execution"] + s["static"] + s["dynamic"] - s["samples"]) < 0.05 * s["samples"] + 0.1, p
    split = sum(c["split"] for c in s["causes"].values()) + s["unexplained"]
    assert abs(split - s["dynamic"]) < 0.02 * s["samples"] + 0.1, p
    if p["procedure"] == "ss_find":
        assert abs(s["samples"] - ann["samples"]) < 0.5 and abs(s["dynamic"] - ann["dynamic"]) < 0.05, (s, ann)
assert abs(tot - d["total"]["samples"]) < 0.5, "total"
assert not d["period_assumed"] and d["period"] == 1000
' "$tmp/stalls.json" "$tmp/out" || bad "report --stalls --json: summaries do not add up"
fi

if [ -f "$tmp/prog-stripped" ]; then
	expect 0 "" annotate -d "$sdb" --period 1000 -n 1 prog-stripped
	grep -q "procedure proc_" "$tmp/out" || bad "annotate (stripped): procedures are not proc_<hex>"
fi

# --- bad input ------------------------------------------------------------------------------------
expect 2 "need IMAGE" annotate -d "$db"
expect 2 "" annotate -d "$db" --bogus prog
expect 2 "period" annotate -d "$db" --period -5 prog
expect 2 "event" annotate -d "$db" --event-period foo=3 prog
expect 1 "no image" annotate -d "$db" nosuchimage
expect 1 "no procedure" annotate -d "$db" prog no_such_procedure
expect 1 "" annotate -d "$tmp/nodb" prog
expect 1 "" topstalls -d "$tmp/nodb"
expect 2 "needs a count" topstalls -d "$db" -n -1
expect 2 "needs a count" report -d "$db" --stalls -n x
expect 2 "go with --stalls" report -d "$db" --period 1000
expect 2 "period" report -d "$db" --stalls --period 0
expect 2 "event-period" report -d "$db" --stalls --event-period imiss=x
expect 2 "" report -d "$db" --stalls --procedures
expect 1 "no image" report -d "$db" --stalls --image nosuchimage
expect 1 "" report -d "$tmp/nodb" --stalls
# A procedure with no samples: said, not an error. (Start-up and exit code runs once, so a sample
# there is rare but possible: take the first procedure named by a function symbol, as
# `axprof cfg` lists them, that `report --procedures` does not list. frame_dummy and the
# *_tm_clones are NOTYPE symbols: no procedure has their names.)
"$AXPROF" report -d "$db" --procedures --image prog >"$tmp/procs" 2>/dev/null
"$AXPROF" cfg "$tmp/prog" 2>/dev/null | awk '$3 == "symbol" { print $NF }' >"$tmp/named"
[ -s "$tmp/named" ] || bad "axprof cfg prog: no procedure named by a symbol"
unsampled=""
while read -r p; do
	grep -Eq " $p +prog$" "$tmp/procs" || { unsampled=$p; break; }
done <"$tmp/named"
if [ -n "$unsampled" ]; then
	expect 0 "no CYCLES samples" annotate -d "$db" prog "$unsampled"
else
	echo "check-annotate: every named procedure has samples: the no-samples case is not tried"
fi
# The image file replaced by something that is not ELF: a message naming it, status 1.
echo "not an ELF file" >"$tmp/prog"
expect 1 "prog" annotate -d "$db" prog
expect 0 "skipped" topstalls -d "$db"
expect 0 "prog.*left out" report -d "$db" --stalls
expect 1 "no procedure" report -d "$db" --stalls --image prog

echo "check-annotate: $n cases, $([ $fail = 0 ] && echo "all passed" || echo "FAILURES")"
exit $fail
