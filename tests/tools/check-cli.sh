#!/usr/bin/env bash
# tests/tools/check-cli.sh - the record pipeline's commands: --help, exit codes, errors on stderr.
#
# Every command answers --help on stdout with exit 0, rejects a bad option with exit 2 and a
# message on stderr (nothing on stdout), and fails with exit 1 and a message naming the
# database when there is none. axprof record passes the program's exit status and output through
# and prints a summary that names the database.
. "$(dirname "$0")/lib.sh"
need "$axprof" "$bin/vprof" "$bin/vreplay" "$bin/axprofd" "$wl/exitcode"

cmds=("$axprof record" "$axprof report" "$axprof flush" "$axprof epoch" "$axprof merge" "$axprof stat"
	"$bin/vprof" "$bin/vreplay" "$bin/axprofd")
for c in "${cmds[@]}"; do
	name=$(basename "${c% *}")${c#"${c%% *}"}
	name=${name/ \/*\/axprof/}
	# shellcheck disable=SC2086
	if $c --help >"$tmp/o" 2>"$tmp/e" && grep -q '^usage:' "$tmp/o" && [ ! -s "$tmp/e" ]; then
		ok "$name --help"
	else
		bad "$name --help" "$(head -c 200 "$tmp/e")"
	fi
	# shellcheck disable=SC2086
	$c --no-such-option >"$tmp/o" 2>"$tmp/e"
	rc=$?
	if [ "$rc" = 2 ] && [ -s "$tmp/e" ] && [ ! -s "$tmp/o" ]; then
		ok "$name bad option: exit 2"
	else
		bad "$name bad option" "exit $rc"
	fi
done
for c in "$axprof report" "$bin/vprof" "$bin/vreplay" "$axprof epoch --list"; do
	# shellcheck disable=SC2086
	$c -d "$tmp/none" >"$tmp/o" 2>"$tmp/e"
	rc=$?
	if [ "$rc" = 1 ] && grep -q "$tmp/none" "$tmp/e"; then
		ok "$c: no database: exit 1, message names it"
	else
		bad "$c without a database" "exit $rc: $(head -c 200 "$tmp/e")"
	fi
done
"$axprof" record -d "$tmp/db" -- "$wl/exitcode" 7 >"$tmp/o" 2>"$tmp/e"
rc=$?
if [ "$rc" = 7 ] && grep -q "exitcode: stdout" "$tmp/o" && grep -q "database $tmp/db, epoch 1" "$tmp/e"; then
	ok "record: exit status and output pass through, summary names the database"
else
	bad "record pass-through" "exit $rc: $(head -c 300 "$tmp/e")"
fi
"$axprof" record --json -d "$tmp/db" -- "$wl/exitcode" 0 >/dev/null 2>"$tmp/e"
if grep -q '^{"tool":"record","database":"[^"]*","epoch":1,"substrate":"hosted",.*}$' "$tmp/e"; then
	ok "record --json summary"
else
	bad "record --json" "$(head -c 300 "$tmp/e")"
fi
"$axprof" record -d "$tmp/db" -- "$tmp/nonexistent" >/dev/null 2>"$tmp/e"
rc=$?
[ "$rc" = 127 ] && ok "record of a missing program: 127" || bad "record missing program" "exit $rc"
"$axprof" record --mode bogus -- "$wl/exitcode" >/dev/null 2>&1
[ $? = 2 ] && ok "record --mode bogus: exit 2" || bad "record --mode bogus" "not 2"
"$axprof" record --event replays --hosted -d "$tmp/db" -- "$wl/exitcode" >/dev/null 2>"$tmp/e"
[ $? = 1 ] && grep -q "the ev5 has no replay traps" "$tmp/e" && ok "record of an event the EV5 PMU lacks: exit 1" ||
	bad "record --event replays" "$(cat "$tmp/e")"
# Per-event periods: each sampled event gets its own period, and so about cycles/period samples.
rm -rf "$tmp/evdb"
"$axprof" record -q --hosted -d "$tmp/evdb" --event cycles,dmiss --period 20000-20000 \
	--period dmiss=10-10 -- "$wl/listwalk" >/dev/null 2>"$tmp/e"
rc=$?
"$axprof" report -d "$tmp/evdb" --json >"$tmp/evdb.json" 2>>"$tmp/e"
cyc=$(grep -o '"totals":{"cycles":[0-9]*' "$tmp/evdb.json" | grep -o '[0-9]*$')
dm=$(grep -o '"totals":{[^}]*"dmiss":[0-9]*' "$tmp/evdb.json" | grep -o '[0-9]*$')
# listwalk misses the D-cache on most of its loads: many more DMISS samples at period 10 than
# CYCLES samples at period 20000 would give for the same events at one period.
if [ "$rc" = 0 ] && [ -n "$cyc" ] && [ -n "$dm" ] && [ "$dm" -gt "$cyc" ]; then
	ok "record --period dmiss=10-10: $dm DMISS samples, $cyc CYCLES samples"
else
	bad "record --period dmiss=10-10" "exit $rc, cycles '$cyc', dmiss '$dm': $(cat "$tmp/e")"
fi
for arg in imiss=0-5 bogus=10-20 dmiss=20-10 =5-6 dmiss=; do
	"$axprof" record --period "$arg" -- "$wl/exitcode" >/dev/null 2>"$tmp/e"
	[ $? = 2 ] && grep -q -- "--period" "$tmp/e" && ok "record --period $arg: exit 2" ||
		bad "record --period $arg" "$(cat "$tmp/e")"
done
# --kernel-values (issue 21): the hosted machine runs no kernel code; cycles does not interpret.
"$axprof" record --hosted --mode vprof --kernel-values -d "$tmp/kvdb" -- "$wl/exitcode" >/dev/null 2>"$tmp/e"
[ $? = 2 ] && grep -q "kernel-values needs the kernel driver" "$tmp/e" && [ ! -e "$tmp/kvdb" ] &&
	ok "record --kernel-values hosted: exit 2, no database" || bad "record --kernel-values hosted" "$(cat "$tmp/e")"
"$axprof" record --hosted --kernel-values -d "$tmp/kvdb" -- "$wl/exitcode" >/dev/null 2>"$tmp/e"
[ $? = 2 ] && grep -q -- "--kernel-values needs --mode vprof or vreplay" "$tmp/e" &&
	ok "record --kernel-values with cycles: exit 2" || bad "record --kernel-values cycles" "$(cat "$tmp/e")"
"$axprof" report -d "$tmp/db" --image nosuchimage >/dev/null 2>"$tmp/e"
[ $? = 1 ] && grep -q nosuchimage "$tmp/e" && ok "report --image of a missing image: exit 1" ||
	bad "report --image" "$(cat "$tmp/e")"
finish
