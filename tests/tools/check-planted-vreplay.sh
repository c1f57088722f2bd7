#!/usr/bin/env bash
# tests/tools/check-planted-vreplay.sh - issue-4 acceptance: vreplay records storeload's planted pairs.
#
# Records build/workloads/storeload under --mode vreplay on the hosted machine and checks with
# grade-planted --conflicts that every planted conflicting (store, load) pair of
# workloads/storeload.planted is recorded as a store-load conflict and that neither control pair
# (disjoint bytes; load before store) is, every planted load with an interpreted count (n), and
# --min-n (the kernel test's floor) grading absences only; then that vreplay's report names them.
. "$(dirname "$0")/lib.sh"
grade=$BUILD/tests/tools/grade-planted
need "$axprof" "$grade" "$wl/storeload" "$bin/vreplay"

db=$tmp/db
"$axprof" record -q --hosted -d "$db" --mode vreplay --period 5000-5500 --share 1/8 \
	-- "$wl/storeload" >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ "$rc" = 0 ] && cmp -s "$tmp/out" "$top/tests/workloads/golden/storeload.out"; then
	ok "storeload under vreplay: exit 0, golden output"
else
	bad "storeload under vreplay" "exit $rc or output differs: $(head -c 300 "$tmp/err")"
fi
if "$grade" --conflicts --planted "$top/workloads/storeload.planted" --binary "$wl/storeload" \
	--db "$db" >"$tmp/grade" 2>&1; then
	ok "planted pairs: conflicts recorded, controls not"
else
	bad "planted pairs" "see the table"
fi
cat "$tmp/grade"
# n (the load's interpreted count) for every pair; --min-n above every n: the conflicts found
# stay ok (a record is evidence), the controls' absences become "few" (not graded).
if awk '$5 ~ /^[0-9]+$/ && $6 > 0 { k++ } END { exit k != 5 }' "$tmp/grade"; then
	ok "n: every planted load was interpreted"
else
	bad "n" "a planted load has no vcount"
fi
if "$grade" --conflicts --min-n 1000000000 --planted "$top/workloads/storeload.planted" \
	--binary "$wl/storeload" --db "$db" >"$tmp/few" 2>&1 &&
	[ "$(awk '$NF == "ok" { print $1 }' "$tmp/few" | tr '\n' ' ')" = "same overlap next " ] &&
	[ "$(awk '$NF == "few" { print $1 }' "$tmp/few" | tr '\n' ' ')" = "disjoint before " ]; then
	ok "--min-n: conflicts found stay ok, the controls' absences are few"
else
	bad "--min-n" "$(cat "$tmp/few")"
fi
"$bin/vreplay" -d "$db" --image storeload >"$tmp/vr" 2>&1
for f in sl_same sl_overlap sl_next_iter; do
	if grep -q "store-load $f+" "$tmp/vr"; then
		ok "vreplay lists the pair of $f"
	else
		bad "vreplay" "no store-load pair in $f"
	fi
done
if grep -q "sl_disjoint\|sl_load_first" "$tmp/vr"; then
	bad "vreplay" "lists a control function"
else
	ok "vreplay lists no control pair"
fi
finish
