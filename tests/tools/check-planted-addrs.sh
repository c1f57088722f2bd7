#!/usr/bin/env bash
# tests/tools/check-planted-addrs.sh - issue-20 item 2 acceptance: vprof --addresses finds
# addrwalk's planted invariant-address and fixed-stride loads, against the machine's truth.
#
# Records build/workloads/addrwalk (workloads/addrwalk.c: in aw_loop, a volatile load of aw_scale
# at one address, a walk of 24-byte structs, a load at a random address) under --mode vprof
# --observe +addrs (every sample interpreted, 64 instructions each) with the exact address truth
# (--addr-truth), and grades vprof's JSON with grade-addrs.py: every load the truth saw >= 1000
# times whose top address (or top nonzero stride) holds >= 95% is listed with that address
# (stride) and a share within 2 points, and every load with no dominant address or stride is
# not listed. Then the text view names the two by symbol and suggestion, the summary lists them
# too, and bad option combinations are usage errors. Deterministic: fixed seed.
. "$(dirname "$0")/lib.sh"
need "$axprof" "$bin/vprof" "$wl/addrwalk"

db=$tmp/db
"$axprof" record --hosted -d "$db" --mode vprof --period 400-440 --share 1/1 --budget 64 \
	--observe +addrs --addr-truth "$tmp/at" --json -- "$wl/addrwalk" 100000 \
	>"$tmp/out" 2>"$tmp/err"
rc=$?
if [ "$rc" = 0 ] && grep -q '^iterations 100000$' "$tmp/out" &&
	grep -Eq '"addr_records": ?[1-9]' "$tmp/err" "$tmp/out"; then
	ok "addrwalk under vprof --observe +addrs: exit 0, its output, address records drained"
else
	bad "addrwalk under vprof" "exit $rc: $(head -c 300 "$tmp/err")"
fi
"$bin/vprof" -d "$db" --addresses --json --image addrwalk >"$tmp/a.json" 2>"$tmp/err" ||
	bad "vprof --addresses --json" "$(head -c 300 "$tmp/err")"
if python3 "$top/tests/tools/grade-addrs.py" "$tmp/a.json" "$tmp/at" --image addrwalk \
	--proc aw_loop >"$tmp/grade" 2>&1; then
	ok "against the truth: $(tail -1 "$tmp/grade")"
else
	bad "against the truth" "$(grep -v '^ok' "$tmp/grade" | head -5)"
fi
for p in 'truth invariant 0x[0-9a-f]* 100.00%' 'truth strided [+]24 ' 'truth not a candidate'; do
	if grep -Eq "^ok  .*$p" "$tmp/grade"; then
		ok "graded and right: $p"
	else
		bad "graded: $p" "no such ok line"
	fi
done
# the text view and the summary: by symbol, with the suggestion
"$bin/vprof" -d "$db" --addresses --image addrwalk >"$tmp/text" 2>&1
"$bin/vprof" -d "$db" --image addrwalk >"$tmp/summary" 2>&1
for f in text summary; do
	if grep -q '^ *address: aw_scale+0x0$' "$tmp/$f" &&
		grep -q 'suggestion: address invariant (0x[0-9a-f]* aw_scale+0x0): hoist' "$tmp/$f" &&
		grep -q 'strided .* +24 .* aw_loop+0x[0-9a-f]* addrwalk$' "$tmp/$f" &&
		grep -q 'suggestion: prefetch stride 24 ahead' "$tmp/$f"; then
		ok "vprof $f: aw_scale invariant (hoist), the +24 walk strided (prefetch)"
	else
		bad "vprof $f" "$(grep -A2 'aw_loop' "$tmp/$f" | head -12)"
	fi
done
# usage errors: exit 2 with a message
for a in "--addresses --latency" "--addresses --args" "--prefetch --callers"; do
	# shellcheck disable=SC2086
	"$bin/vprof" -d "$db" $a >/dev/null 2>"$tmp/uerr"
	rc=$?
	if [ "$rc" = 2 ] && [ -s "$tmp/uerr" ]; then
		ok "vprof $a: usage error"
	else
		bad "vprof $a" "exit $rc"
	fi
done
finish
