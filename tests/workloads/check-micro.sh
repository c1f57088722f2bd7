#!/usr/bin/env bash
# tests/workloads/check-micro.sh - the EV6 microbenchmarks run, agree with qemu-alpha, and are the loops derived.
#
# For every row of workloads/ev6-micro/expected.tsv: the program exits 0 with the same output
# under qemu-alpha and under `axprof run` (functional); its instructions per iteration,
# (instructions at 2N - instructions at N) / N from `axprof run --stats`, equal the table's
# insns within 0.05 (EXPECTED.md's cycle derivations count those instructions: a changed loop
# body must fail here); a bad iteration count exits 2. Then the eval harness (eval/run-micro.sh)
# on two rows: it skips ev6 with a message while `axprof run` rejects it (else prints its
# table), and under ev5 its difference method gives e_fadd_dep 8 x 4 = 32 cycles per iteration
# (EV5-MODEL.md: FADD latency 4, one dependent chain) and exactly 12 instructions. Last, the
# planted conflict of m_replay_sl: recorded under --mode vreplay, vreplay names its stq as the
# earlier access of its ldq (the pair the 21264 takes store-load order traps on).
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
BUILD=${BUILD:-build}
case "$BUILD" in /*) ;; *) BUILD=$top/$BUILD ;; esac
axprof=$BUILD/bin/axprof
mdir=$BUILD/workloads/ev6-micro
table=$top/workloads/ev6-micro/expected.tsv
passed=0
failed=0
ok() {
	passed=$((passed + 1))
	echo "ok    $1"
}
bad() {
	failed=$((failed + 1))
	echo "FAIL  $1: $2"
}
[ -x "$axprof" ] || {
	echo "check-micro.sh: $axprof not built (make all)" >&2
	exit 1
}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/axprof-micro.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT

insns() { # prog iters -> instructions of a functional run
	"$axprof" run --stats "$1" "$2" 2>&1 >/dev/null |
		awk '$1 == "axprof" && $2 == "run:" { # "axprof run: [pid N:] I instructions, ..."
			for (i = 3; i < NF; i++) if ($(i + 1) == "instructions,") { print $(i); exit }
		}'
}

rows=0
while IFS=$'\t' read -r name _ iters want _ _; do
	case "$name" in '#'* | name | '') continue ;; esac
	rows=$((rows + 1))
	prog=$mdir/$name
	if [ ! -x "$prog" ]; then
		bad "$name" "$prog not built"
		continue
	fi
	qemu-alpha -L /usr/alpha-linux-gnu "$prog" 100 >"$tmp/q" 2>&1
	qs=$?
	"$axprof" run "$prog" 100 >"$tmp/a" 2>&1
	as=$?
	if [ "$qs" = 0 ] && [ "$as" = 0 ] && cmp -s "$tmp/q" "$tmp/a" && grep -q "^$name: " "$tmp/a"; then
		ok "$name: same output under qemu-alpha and axprof run"
	else
		bad "$name" "qemu-alpha exit $qs, axprof run exit $as, outputs $(cmp -s "$tmp/q" "$tmp/a" && echo equal || echo differ)"
	fi
	i1=$(insns "$prog" "$iters")
	i2=$(insns "$prog" $((2 * iters)))
	if [ -n "$i1" ] && [ -n "$i2" ] && awk -v a="$i1" -v b="$i2" -v n="$iters" -v w="$want" \
		'BEGIN { d = (b - a) / n - w; exit !(d < 0.05 && d > -0.05) }'; then
		ok "$name: $want instructions per iteration"
	else
		bad "$name" "instructions per iteration $(awk -v a="${i1:-0}" -v b="${i2:-0}" -v n="$iters" 'BEGIN { printf "%.3f", (b - a) / n }'), the table says $want"
	fi
done <"$table"
if [ "$rows" -ge 16 ]; then
	ok "$rows microbenchmarks in the table (at least 16)"
else
	bad "table" "only $rows microbenchmarks"
fi
"$axprof" run "$mdir/ctl_loop" 0 >/dev/null 2>"$tmp/e"
rc=$?
if [ "$rc" = 2 ] && grep -q usage "$tmp/e"; then
	ok "a bad iteration count: usage, exit 2"
else
	bad "bad argument" "exit $rc"
fi
MICRO_CPUS="ev6 ev5" BUILD=$BUILD "$top/eval/run-micro.sh" e_fadd_dep m_l1_dep >"$tmp/ev" 2>&1
rc=$?
if "$axprof" run --cpu ev6 "$mdir/ctl_loop" 1 >/dev/null 2>&1; then
	grep -q "under --cpu ev6" "$tmp/ev" && ok "eval harness: an ev6 table" ||
		bad "eval harness" "no ev6 table: $(head -c 300 "$tmp/ev")"
else
	grep -q "skipping ev6: axprof run rejects --cpu ev6" "$tmp/ev" &&
		ok "eval harness: ev6 skipped with a message" ||
		bad "eval harness" "no skip message for ev6: $(head -c 300 "$tmp/ev")"
fi
if [ "$rc" = 0 ] && awk '$1 == "e_fadd_dep" && NF == 5 && $4 > 31.9 && $4 < 32.1 && $5 == "12.00" { f = 1 }
	END { exit !f }' "$tmp/ev"; then
	ok "eval harness under ev5: e_fadd_dep 32 cycles, 12 instructions per iteration"
else
	bad "eval harness" "exit $rc: $(head -c 600 "$tmp/ev")"
fi
"$axprof" record -q --hosted -d "$tmp/db" --mode vreplay --period 5000-5500 --share 1/8 \
	-- "$mdir/m_replay_sl" 50000 >/dev/null 2>"$tmp/rec" &&
	"$BUILD/bin/vreplay" -d "$tmp/db" --image m_replay_sl --json >"$tmp/vr.json" 2>>"$tmp/rec"
rc=$?
pair=$(python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
ins = {i["text"]: i["address"] for im in d["images"] for p in im["procedures"]
       for i in p["instructions"]}
st, ld = ins.get("stq t2,0(t1)"), ins.get("ldq t3,0(a1)")
ok = any(p["load"] == ld and p["prior"] == st and p["kind"] == "store-load" and p["count"] > 0
         for im in d["images"] for p in im["pairs"])
print("yes" if st and ld and ok else "no")' "$tmp/vr.json" 2>&1)
if [ "$rc" = 0 ] && [ "$pair" = yes ]; then
	ok "m_replay_sl: vreplay names the planted store for the planted load"
else
	bad "m_replay_sl under vreplay" "exit $rc, pair found: $pair $(head -c 200 "$tmp/rec")"
fi
echo "check-micro.sh: $passed ok, $failed failing"
[ "$failed" = 0 ]
