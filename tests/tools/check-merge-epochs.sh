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
# (but for the merge record, epoch-N/merged, which names what was merged: pdb.h MERGES, and the
# index's path of the hosted [kernel] image, DIR/kernel/KEY/[kernel]: merge does not copy
# DIR/kernel, so a merged entry names the source's; the reports below compare it normalised)
kn() { sed -e 's#"[^"]*/kernel/\(b-[0-9a-f]*\)/#"@DB@/kernel/\1/#g' -e 's#  /[^ ]*/kernel/\(b-[0-9a-f]*\)/#  @DB@/kernel/\1/#g'; }
d=$tmp/merged/epoch-1
if diff -r -x merged -x index "$tmp/one/epoch-1" "$d" >"$tmp/diff" 2>&1; then
	ok "merged/epoch-1 equals both runs recorded into one epoch (byte for byte)"
else
	bad "merge into $d" "$(head -n 5 "$tmp/diff" | tr '\n' ' ')"
fi
# Epoch 3's files name epoch 3 (pdb.h IDENTITY), so they differ from epoch 1's in that: the same
# files, and the same report.
(cd "$tmp/one/epoch-1" && find . | sort) >"$tmp/l1"
(cd "$tmp/split/epoch-3" && find . ! -name merged | sort) >"$tmp/l3"
"$axprof" report --json -d "$tmp/one" | sed "s#$tmp/one##" | kn >"$tmp/r1"
"$axprof" report --json -d "$tmp/split" --epoch 3 | sed -e "s#$tmp/split##" -e 's/"epoch":3,/"epoch":1,/' | kn >"$tmp/r3"
if cmp -s "$tmp/l1" "$tmp/l3" && cmp -s "$tmp/r1" "$tmp/r3"; then
	ok "split/epoch-3 has the files and the report of both runs recorded into one epoch"
else
	bad "merge --into 3" "$(diff "$tmp/l1" "$tmp/l3" | head -n 5 | tr '\n' ' ') $(diff "$tmp/r1" "$tmp/r3" | head -n 5 | tr '\n' ' ')"
fi
for t in "report --json" "report --procedures" ; do
	# shellcheck disable=SC2086
	"$axprof" $t -d "$tmp/one" | sed "s#$tmp/one##" | kn >"$tmp/r1"
	# shellcheck disable=SC2086
	"$axprof" $t -d "$tmp/merged" | sed "s#$tmp/merged##" | kn >"$tmp/r2"
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
