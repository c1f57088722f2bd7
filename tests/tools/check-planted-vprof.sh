#!/usr/bin/env bash
# tests/tools/check-planted-vprof.sh - issue-4 acceptance: vprof finds semiinv's planted values.
#
# Records build/workloads/semiinv under --mode vprof on the hosted machine (every sample, 8
# instructions each, a 400-cycle period, hotlists of 32, exact value ground truth) and grades the
# database with grade-planted --values: for each planted load/argument the top hotlist value is the
# planted one, with an estimated share within 2 percentage points of the machine's exact share
# (workloads/semiinv.planted; tests/tools/grade-planted.c says how each line is mapped). The
# program's output must still be its golden output. Deterministic: fixed seed.
. "$(dirname "$0")/lib.sh"
grade=$BUILD/tests/tools/grade-planted
need "$axprof" "$grade" "$wl/semiinv"

db=$tmp/db
"$axprof" record -q --hosted -d "$db" --mode vprof --period 400-440 --share 1/1 --budget 8 \
	--hotlist-m 32 --value-truth "$tmp/vt" -- "$wl/semiinv" >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ "$rc" = 0 ] && cmp -s "$tmp/out" "$top/tests/workloads/golden/semiinv.out"; then
	ok "semiinv under vprof: exit 0, golden output"
else
	bad "semiinv under vprof" "exit $rc or output differs: $(head -c 300 "$tmp/err")"
fi
if "$grade" --values --planted "$top/workloads/semiinv.planted" --binary "$wl/semiinv" \
	--db "$db" --value-truth "$tmp/vt" >"$tmp/grade" 2>&1; then
	ok "planted values: top value and share within 2 points (or 6 tau/n) of the truth ($(grep -c ' ok' "$tmp/grade") lines)"
else
	bad "planted values" "see the table"
fi
cat "$tmp/grade"
# vprof itself shows them: the dominant values of the planted loads are in its summary.
"$bin/vprof" -d "$db" --image semiinv >"$tmp/vprof" 2>&1
for v in 't1=0x3c8 .*si_scan_flags' 'a0=0x0 .*si_call_eval' 't0=0x2a .*si_const_calc'; do
	if grep -q "$v" "$tmp/vprof"; then
		ok "vprof summary lists $v"
	else
		bad "vprof summary" "no line matching '$v'"
	fi
done
finish
