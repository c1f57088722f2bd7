#!/usr/bin/env bash
# tests/tools/check-planted-vprof.sh - issue-4 acceptance: vprof finds semiinv's planted values.
#
# Records build/workloads/semiinv under --mode vprof on the hosted machine (every sample, 8
# instructions each, a 400-cycle period, hotlists of 32, exact value ground truth) and grades the
# database with grade-planted --values: for each planted load/argument the top hotlist value is the
# planted one, with an estimated share within 2 percentage points of the machine's exact share
# (workloads/semiinv.planted; tests/tools/grade-planted.c says how each line is mapped). The
# program's output must still be its golden output. Deterministic: fixed seed. Then the same
# database under --share-truth --z (how the kernel test grades its records, issue 18).
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
# --share-truth (the kernel test's grading, no truth file): the planted shares as the truth and
# the sampling interval (--z); the same database passes, a planted share moved by 10 points fails
# ("estimate off"), lines below --min-n are reported and not graded, bad usage exits 2.
pv() { "$grade" --values --binary "$wl/semiinv" --db "$db" "$@"; }
if pv --planted "$top/workloads/semiinv.planted" --share-truth --z 4 --min-n 100 >"$tmp/gs" 2>&1; then
	ok "--share-truth --z 4: every line within its interval ($(grep -c ' ok$' "$tmp/gs") lines)"
else
	bad "--share-truth --z 4" "$(cat "$tmp/gs")"
fi
# must_fail PLANTED PATTERN WHAT: grading against PLANTED fails, with a line matching PATTERN.
must_fail() {
	if ! pv --planted "$1" --share-truth --z 4 >"$tmp/gx" 2>&1 && grep -q "$2" "$tmp/gx"; then
		ok "--share-truth: $3 fails"
	else
		bad "--share-truth, $3" "$(cat "$tmp/gx")"
	fi
}
sed 's/^\(flag_main .*\)0\.95$/\10.85/' "$top/workloads/semiinv.planted" >"$tmp/moved.planted"
must_fail "$tmp/moved.planted" '^flag_main .*FAIL: estimate off' "a planted share moved to 0.85"
# The negative control placed on flag_main's load (0x3c8 at 0.95): a value stands out.
sed 's/^noise .*$/noise si_scan_flags 63 ldq 1 result - <0.01/' "$top/workloads/semiinv.planted" >"$tmp/neg.planted"
must_fail "$tmp/neg.planted" '^noise .*FAIL: a value stands out' "a negative control on a planted load"
if pv --planted "$top/workloads/semiinv.planted" --share-truth --z 4 --min-n 100000000 >"$tmp/gf" 2>&1 &&
	[ "$(grep -c ' few: not graded$' "$tmp/gf")" = 13 ]; then
	ok "--min-n: lines below it reported, not graded"
else
	bad "--min-n" "$(cat "$tmp/gf")"
fi
for args in "--share-truth --value-truth $tmp/vt" "--share-truth --z x" "--share-truth --min-n -1"; do
	# shellcheck disable=SC2086
	pv --planted "$top/workloads/semiinv.planted" $args >/dev/null 2>&1
	rc=$?
	if [ "$rc" = 2 ]; then ok "grade-planted $args: usage error"; else bad "grade-planted $args" "exit $rc, want 2"; fi
done
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
