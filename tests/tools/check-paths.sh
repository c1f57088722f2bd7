#!/usr/bin/env bash
# tests/tools/check-paths.sh - the EV6 truth of sampled paths and `axeval --paths` (Figure 6).
#
# Records ev6-micro/ctl_random (a loop branching on a random bit: execution counts cannot tell
# its two paths apart, the history bit can) with ProfileMe pairs and --truth, then checks that
# axeval --paths grades it: the truth's history bits agree with its recorded branches (axeval
# fails otherwise), every sample's true path is known, and at 8 and 12 history bits the
# history's most likely path is right clearly more often than execution counts, with pairs no
# worse. Then the refusals: a truth file without path records, and bad usage.
# shellcheck source=tests/tools/lib.sh
. "$(dirname "$0")/lib.sh"
axeval=$bin/axeval
prog=$wl/ev6-micro/ctl_random
need "$axprof" "$axeval" "$prog"

if ! "$axprof" record -q --hosted --seed 5 --mode profileme --cpu ev6 --period 400-480 \
	--pair-window 50 -d "$tmp/db" --truth "$tmp/t" -- "$prog" >/dev/null 2>"$tmp/err"; then
	bad record "$(head -c 300 "$tmp/err")"
	finish
	exit
fi
if "$axeval" --paths r "$prog" "$tmp/t" >"$tmp/out" 2>"$tmp/err"; then
	ok "axeval --paths grades ctl_random"
else
	bad "axeval --paths" "exit $?: $(head -c 300 "$tmp/err")"
fi
if grep -q "disagreeing with the recorded branches: 0 of [1-9]" "$tmp/out"; then
	ok "the truth's history bits agree with its recorded branch directions"
else
	bad "history consistency" "$(grep disagreeing "$tmp/out")"
fi
# "  intraprocedural (N samples at 0 bits; K the truth could not tell)", first (per-run) table
read -r n k < <(awk '/^  intraprocedural/ { gsub(/[(;]/, " "); print $2, $7; exit }' "$tmp/out")
if [ "${n:-0}" -ge 1000 ] && [ "${k:-1}" = 0 ]; then
	ok "$n samples graded, every true path known"
else
	bad "samples" "n=${n:-?} unknown=${k:-?}"
fi
# row "bits samples c%/c% h%/h% p%/p%" of the first intraprocedural table
for b in 8 12; do
	read -r c h p < <(awk -v b="$b" '/^  intraprocedural/ { t++ } t == 1 && $1 == b {
		l = $0; gsub(/\/ +/, "/", l); gsub(/%/, "", l); split(l, f, " ")
		split(f[3], c, "/"); split(f[4], h, "/"); split(f[5], p, "/")
		print c[2], h[2], p[2]; exit }' "$tmp/out")
	if awk -v c="${c:-0}" -v h="${h:-0}" -v p="${p:-0}" 'BEGIN { exit !(h >= c + 5 && p >= h) }'; then
		ok "$b bits: history $h% > counts $c% + 5, pairs $p% >= history"
	else
		bad "$b bits" "counts ${c:-?} history ${h:-?} pairs ${p:-?}"
	fi
done
grep -q "intraprocedural holds, interprocedural holds" "$tmp/out" &&
	ok "ordering at 8-12 bits holds" || bad ordering "$(tail -n 1 "$tmp/out")"

# refusals: no path records (no ProfileMe), bad usage
"$axprof" record -q --hosted --cpu ev6 -d "$tmp/db2" --truth "$tmp/t2" -- "$prog" >/dev/null 2>&1
"$axeval" --paths r "$prog" "$tmp/t2" >/dev/null 2>"$tmp/err"
rc=$?
if [ "$rc" = 1 ] && grep -q "has no path records" "$tmp/err"; then
	ok "a truth file without path records is refused"
else
	bad "no path records" "exit $rc: $(head -c 200 "$tmp/err")"
fi
"$axeval" --paths r "$prog" >/dev/null 2>"$tmp/err"
rc=$?
[ "$rc" = 2 ] && ok "bad usage exits 2" || bad usage "exit $rc"
"$axeval" --paths r "$prog" "$tmp/missing" >/dev/null 2>"$tmp/err"
rc=$?
[ "$rc" = 1 ] && grep -q missing "$tmp/err" && ok "a missing truth file is named" ||
	bad "missing truth" "exit $rc: $(head -c 200 "$tmp/err")"
finish
