#!/usr/bin/env bash
# tests/tools/check-planted-args.sh - issue-19 acceptance: vprof --args/--callers find callargs'
# planted argument, return values and callers on the hosted machine.
#
# Records build/workloads/callargs (workloads/callargs.c: ca_zero always called with a0 = 0,
# ca_ninety with a0 = 7 nine times in ten, ca_callee called from ca_site_a 70% and ca_site_b 30%)
# under --mode vprof --observe args,callers (every sample interpreted, 32 instructions each) with
# the exact procedure truth (--proc-truth), and grades vprof's JSON with grade-procs.py: for every
# procedure with >= 200 interpreted entries, each argument's and v0's top value and share within
# 2 points of the truth, each caller's share within 3 points. Then the text views show the planted
# facts by name, and bad option combinations are usage errors. Deterministic: fixed seed.
. "$(dirname "$0")/lib.sh"
need "$axprof" "$bin/vprof" "$wl/callargs"

db=$tmp/db
"$axprof" record -q --hosted -d "$db" --mode vprof --period 400-440 --share 1/1 --budget 32 \
	--observe args,callers --proc-truth "$tmp/pt" -- "$wl/callargs" 100000 >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ "$rc" = 0 ] && grep -q '^calls 100000$' "$tmp/out"; then
	ok "callargs under vprof --observe args,callers: exit 0, its output"
else
	bad "callargs under vprof" "exit $rc: $(head -c 300 "$tmp/err")"
fi
"$bin/vprof" -d "$db" --args --json --image callargs >"$tmp/args.json" 2>"$tmp/err" &&
	"$bin/vprof" -d "$db" --callers --json --image callargs >"$tmp/callers.json" 2>>"$tmp/err" ||
	bad "vprof --args/--callers --json" "$(head -c 300 "$tmp/err")"
if python3 "$top/tests/tools/grade-procs.py" "$tmp/args.json" "$tmp/callers.json" "$tmp/pt" \
	--image callargs >"$tmp/grade" 2>&1; then
	ok "against the truth: top values within 2 points, callers within 3 ($(tail -1 "$tmp/grade"))"
else
	bad "against the truth" "$(grep -v '^ok' "$tmp/grade" | head -5)"
fi
# every planted procedure was graded (>= 200 interpreted entries)
for p in 'ca_zero a0: top 0x0 ' 'ca_ninety a0: top 0x7 ' 'ca_ninety v0: top 0xe ' \
	'ca_callee caller 0x' 'ca_zero v0: top 0xb '; do
	if grep -q "^ok  $p" "$tmp/grade"; then
		ok "graded and within tolerance: $p"
	else
		bad "graded: $p" "no such ok line"
	fi
done
# the text views: the invariant mark on ca_zero's a0 only, callers named by procedure
"$bin/vprof" -d "$db" --args --image callargs --proc ca_zero >"$tmp/zero" 2>&1
"$bin/vprof" -d "$db" --args --image callargs --proc ca_ninety >"$tmp/ninety" 2>&1
"$bin/vprof" -d "$db" --callers --image callargs --proc ca_callee >"$tmp/callee" 2>&1
if grep -q '^  a0   invariant (100.00% .* 0x0)' "$tmp/zero" &&
	grep -Eq '^  a0 {13}\((8[7-9]|9[0-3])\.[0-9]*% .* 0x7\) \(([7-9]|1[0-3])\.[0-9]*% .* 0xd\)' \
		"$tmp/ninety"; then
	ok "vprof --args: ca_zero's a0 invariant at 0x0, ca_ninety's a0 0x7 ~90% not invariant"
else
	bad "vprof --args text" "$(cat "$tmp/zero" "$tmp/ninety" | head -30)"
fi
if grep -q '^ *[67][0-9]\.[0-9]*% .* ca_site_a+0x[0-9a-f]* callargs' "$tmp/callee" &&
	grep -q '^ *[23][0-9]\.[0-9]*% .* ca_site_b+0x[0-9a-f]* callargs' "$tmp/callee"; then
	ok "vprof --callers: ca_callee's callers ca_site_a ~70%, ca_site_b ~30%"
else
	bad "vprof --callers text" "$(head -20 "$tmp/callee")"
fi
# usage errors: exit 2 with a message
for a in "--args --callers" "--args --latency" "--args --invariant 0" "--callers --invariant x"; do
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
