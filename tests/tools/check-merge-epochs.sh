#!/usr/bin/env bash
# tests/tools/check-merge-epochs.sh - merging two epochs equals recording both runs into one.
#
# Run A (semiinv under vprof) and run B (storeload under vreplay) are recorded (fixed seeds) into
# epochs 1 and 2 of one database (`axprof epoch` between them) and, again, both into epoch 1 of
# another. `axprof merge` of epochs 1 and 2 into a third database, and into epoch 3 of the first
# (--into), must give exactly the second one: the same profile files byte for byte and the same
# reports. Also: `axprof epoch --list`, and merge's refusal to merge an epoch into itself.
. "$(dirname "$0")/lib.sh"
need "$axprof" "$bin/vprof" "$bin/vreplay" "$wl/semiinv" "$wl/storeload"

A=(--mode vprof --period 20000-22000 --share 1/1 -- "$wl/semiinv" 40)
B=(--mode vreplay --period 20000-22000 --share 1/4 -- "$wl/storeload" 100000)
rec() { # DB ARGS...
	local db=$1
	shift
	"$axprof" record -q --hosted -d "$db" "$@" >/dev/null 2>"$tmp/rec.err" ||
		bad "record into $db" "$(head -c 300 "$tmp/rec.err")"
}
rec "$tmp/split" "${A[@]}"
if [ "$("$axprof" epoch -d "$tmp/split")" = 2 ]; then
	ok "axprof epoch starts epoch 2"
else
	bad "axprof epoch" "did not print 2"
fi
rec "$tmp/split" "${B[@]}"
rec "$tmp/one" "${A[@]}"
rec "$tmp/one" "${B[@]}"
if [ "$("$axprof" epoch -d "$tmp/split" --list | tr -d ' \n')" = "1*2" ]; then
	ok "axprof epoch --list"
else
	bad "axprof epoch --list" "$("$axprof" epoch -d "$tmp/split" --list | tr '\n' ' ')"
fi

"$axprof" merge -d "$tmp/merged" --epoch 1 "$tmp/split" >/dev/null &&
	"$axprof" merge -d "$tmp/merged" --epoch 2 "$tmp/split" >/dev/null ||
	bad "axprof merge" "failed"
"$axprof" merge -d "$tmp/split" --into 3 "$tmp/split" >"$tmp/self.out" ||
	bad "axprof merge --into 3" "failed"
# (but for the merge record, epoch-N/merged, which names what was merged: pdb.h MERGES)
for d in "$tmp/merged/epoch-1" "$tmp/split/epoch-3"; do
	if diff -r -x merged "$tmp/one/epoch-1" "$d" >"$tmp/diff" 2>&1; then
		ok "$(basename "$(dirname "$d")")/$(basename "$d") equals both runs recorded into one epoch (byte for byte)"
	else
		bad "merge into $d" "$(head -n 5 "$tmp/diff" | tr '\n' ' ')"
	fi
done
for t in "report --json" "report --procedures" ; do
	# shellcheck disable=SC2086
	"$axprof" $t -d "$tmp/one" | sed "s#$tmp/one##" >"$tmp/r1"
	# shellcheck disable=SC2086
	"$axprof" $t -d "$tmp/merged" | sed "s#$tmp/merged##" >"$tmp/r2"
	if cmp -s "$tmp/r1" "$tmp/r2"; then ok "axprof $t: same"; else bad "axprof $t" "differs"; fi
done
for t in vprof vreplay; do
	"$bin/$t" -d "$tmp/one" --json | sed "s#$tmp/one##" >"$tmp/r1"
	"$bin/$t" -d "$tmp/merged" --json | sed "s#$tmp/merged##" >"$tmp/r2"
	if cmp -s "$tmp/r1" "$tmp/r2"; then ok "$t: same"; else bad "$t" "differs"; fi
done
if "$axprof" merge -d "$tmp/split" --epoch 3 --into 3 "$tmp/split" >/dev/null 2>&1; then
	bad "merge an epoch into itself" "accepted"
else
	ok "merge refuses an epoch into itself"
fi
if "$axprof" merge -d "$tmp/x" "$tmp/nonexistent" >/dev/null 2>&1; then
	bad "merge from a missing database" "exit 0"
else
	ok "merge from a missing database fails"
fi
finish
