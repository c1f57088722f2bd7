#!/usr/bin/env bash
# tests/pdb/pdb_tx_crash.sh - kill -9 at random points of axprof merge, epoch and record.
#
# TX_TRIALS (default 10; `make crash`: 100) trials of each:
#   merge   `axprof merge` of a 6-image database into another, killed at a random instant: the
#           destination reads and its canonical dump (pdb_stress dump) is exactly the one before
#           or the one after the merge; rerun, the merge either merges (from "before") or is
#           refused as already merged (from "after"), and ends exactly at "after".
#   epoch   `axprof epoch` killed: the state is before or after (an empty epoch directory above
#           the current one holds nothing); rerun, the next number is not skipped.
#   record  (TX_RECORD_TRIALS, default min(TX_TRIALS, 3)) `axprof record --flush-interval 1` of build/workloads/listwalk killed: the database
#           reads (report and dump), holds for every image and event at most one clean run's
#           samples, indexes every image it holds samples of, and a rerun adds exactly one clean
#           run (no flush counted twice or lost).
# Then record whose final flush cannot create the epoch's manifest the third time (failopen.so:
# after two of listwalk's three images were staged) must store nothing at all, exit 1 and say
# so. (The daemon's flush under kill -9: pdb_crash.sh.)
set -u
BUILD=${BUILD:-build}
trials=${TX_TRIALS:-10}
rtrials=${TX_RECORD_TRIALS:-$((trials < 3 ? trials : 3))} # a record run takes seconds
S=$BUILD/tests/pdb/pdb_stress
A=$BUILD/bin/axprof
W=$BUILD/workloads/listwalk
FO=$BUILD/tests/pdb/failopen.so
for f in "$S" "$A" "$FO"; do
	[ -e "$f" ] || { echo "pdb_tx_crash: $f not built (make all tests)"; exit 1; }
done
base=$(mktemp -d "${PDB_CRASH_DIR:-${TMPDIR:-/tmp}}/pdbtx.XXXXXX") || exit 1
trap 'rm -rf "$base"' EXIT
start=$SECONDS

fail() {
	echo "pdb_tx_crash: $*"
	exit 1
}

# Sleep a random time below $1 milliseconds.
rsleep() {
	local r=$(((RANDOM * 32768 + RANDOM) % $1))
	sleep "$((r / 1000)).$(printf '%03d' $((r % 1000)))"
}

# Run "$@" in the background and SIGKILL it after a random time below $KILL_MS ms.
killrun() {
	"$@" >/dev/null 2>&1 &
	local pid=$!
	rsleep "$KILL_MS"
	kill -KILL "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
}

# Is the dump of $1 the file $2? The dump must succeed (the database reads).
dump_to() { "$S" dump "$1" >"$2" || fail "$1: the database does not read after a kill"; }

# --- merge ---
"$S" fill "$base/src" 1 6 3000 || fail "fill"
"$S" fill "$base/dst0" 2 6 3000 || fail "fill"
dump_to "$base/dst0" "$base/m.before"
cp -a "$base/dst0" "$base/dstA"
t0=$(date +%s%N)
"$A" merge -d "$base/dstA" "$base/src" >/dev/null || fail "merge"
mt=$((($(date +%s%N) - t0) / 1000000 + 20))
dump_to "$base/dstA" "$base/m.after"
cmp -s "$base/m.before" "$base/m.after" && fail "the merge changed nothing"
m_before=0 m_after=0 m_journal=0
KILL_MS=$mt
for ((i = 1; i <= trials; i++)); do
	rm -rf "$base/dst"
	cp -a "$base/dst0" "$base/dst"
	killrun "$A" merge -d "$base/dst" "$base/src"
	[ -e "$base/dst/journal" ] && m_journal=$((m_journal + 1))
	dump_to "$base/dst" "$base/got"
	"$A" report -d "$base/dst" >/dev/null 2>&1 || fail "merge kill $i: axprof report fails"
	if cmp -s "$base/got" "$base/m.before"; then
		m_before=$((m_before + 1))
		"$A" merge -d "$base/dst" "$base/src" >/dev/null 2>"$base/err" ||
			fail "merge kill $i: from 'before', the retry failed: $(cat "$base/err")"
	elif cmp -s "$base/got" "$base/m.after"; then
		m_after=$((m_after + 1))
		if "$A" merge -d "$base/dst" "$base/src" >/dev/null 2>"$base/err"; then
			fail "merge kill $i: from 'after', the retry merged again (double count)"
		fi
		grep -q "already merged" "$base/err" ||
			fail "merge kill $i: the retry's refusal: $(cat "$base/err")"
	else
		diff "$base/m.before" "$base/got" | head -5
		fail "merge kill $i: the destination is neither before nor after the merge"
	fi
	dump_to "$base/dst" "$base/got"
	cmp -s "$base/got" "$base/m.after" || fail "merge kill $i: after the retry, not 'after'"
done

# --- epoch ---
"$S" fill "$base/e0" 3 2 200 || fail "fill"
dump_to "$base/e0" "$base/e.before"
cp -a "$base/e0" "$base/e1"
t0=$(date +%s%N)
"$A" epoch -d "$base/e1" >/dev/null || fail "epoch"
et=$((($(date +%s%N) - t0) / 1000000 + 5))
dump_to "$base/e1" "$base/e.after"
"$A" epoch -d "$base/e1" >/dev/null || fail "epoch"
dump_to "$base/e1" "$base/e.after2"
e_before=0 e_after=0
KILL_MS=$((et / 2 + 1)) # the process start is most of the measured time
for ((i = 1; i <= trials; i++)); do
	rm -rf "$base/e"
	cp -a "$base/e0" "$base/e"
	killrun "$A" epoch -d "$base/e"
	dump_to "$base/e" "$base/got"
	if cmp -s "$base/got" "$base/e.before"; then
		e_before=$((e_before + 1))
		next=$base/e.after
	elif cmp -s "$base/got" "$base/e.after"; then
		e_after=$((e_after + 1))
		next=$base/e.after2
	else
		fail "epoch kill $i: neither before nor after"
	fi
	"$A" epoch -d "$base/e" >/dev/null || fail "epoch kill $i: the retry failed"
	dump_to "$base/e" "$base/got"
	cmp -s "$base/got" "$next" || fail "epoch kill $i: the retry skipped or reused a number"
done

# --- record ---
# Per (image, event) sample totals of a dump, "KEY EVENT TOTAL" lines, sorted.
totals() {
	awk '/^ image /{k=$2} /^  [A-Z][A-Z0-9]* [0-9a-f]+ [0-9]+$/{t[k" "$1]+=$3}
	     END{for (x in t) print x, t[x]}' "$1" | sort
}
# "KEY/EVENT TOTAL" lines of a totals file, sorted for join.
kv() { awk '{print $1 "/" $2, $3}' "$1" | sort; }
# Images with samples that the index does not list.
unindexed() {
	awk '/^ index /{ix[$2]=1} /^ image /{if ($2 != "unknown") im[$2]=1}
	     END{for (k in im) if (!(k in ix)) print k}' "$1"
}
rec=("$A" record -q --flush-interval 1)
t0=$(date +%s%N)
"${rec[@]}" -d "$base/r1" -- "$W" >/dev/null 2>&1 || fail "record"
rt=$((($(date +%s%N) - t0) / 1000000))
[ "$rt" -gt 999 ] || rt=1000
dump_to "$base/r1" "$base/r.clean"
totals "$base/r.clean" >"$base/t.clean"
[ -s "$base/t.clean" ] || fail "record stored no samples"
r_empty=0 r_some=0
KILL_MS=$rt
for ((i = 1; i <= rtrials; i++)); do
	rm -rf "$base/r"
	killrun "${rec[@]}" -d "$base/r" -- "$W"
	if [ ! -d "$base/r" ] || ! "$S" dump "$base/r" >"$base/got" 2>/dev/null; then
		# Killed before the database existed whole: pdb_open(create) makes it again.
		"$S" open "$base/r" || fail "record kill $i: the database cannot be opened"
	fi
	dump_to "$base/r" "$base/got"
	"$A" report -d "$base/r" >/dev/null 2>&1 || fail "record kill $i: axprof report fails"
	[ -z "$(unindexed "$base/got")" ] || fail "record kill $i: images with samples not indexed"
	totals "$base/got" >"$base/t.got"
	if [ -s "$base/t.got" ]; then r_some=$((r_some + 1)); else r_empty=$((r_empty + 1)); fi
	join -a1 -e none -o 0,1.2,2.2 <(kv "$base/t.got") <(kv "$base/t.clean") |
		awk '$3 == "none" || $2 > $3 {bad = 1} END {exit bad}' ||
		fail "record kill $i: more samples than one whole run"
	"${rec[@]}" -d "$base/r" -- "$W" >/dev/null 2>&1 || fail "record kill $i: the rerun failed"
	dump_to "$base/r" "$base/got2"
	totals "$base/got2" >"$base/t.got2"
	join -a1 -a2 -e 0 -o 0,1.2,2.2 <(kv "$base/t.clean") <(kv "$base/t.got") |
		awk '{print $1, $2 + $3}' | sort >"$base/t.want"
	kv "$base/t.got2" | cmp -s - "$base/t.want" ||
		fail "record kill $i: the rerun did not add exactly one run's samples"
done

# --- record whose flush fails at its third image: nothing stored, and it says so ---
rm -rf "$base/rf"
FAILOPEN_MATCH=/epoch-1/.manifest.tmp FAILOPEN_NTH=3 LD_PRELOAD=$FO \
	"$A" record -q -d "$base/rf" -- "$W" >/dev/null 2>"$base/err" && fail "record with a failing flush exited 0"
grep -q "nothing was stored" "$base/err" || fail "record's message: $(cat "$base/err")"
dump_to "$base/rf" "$base/got"
grep -q "^ image\|^ index" "$base/got" && fail "record with a failing flush stored a part"
find "$base/rf" -name '*.prof' | grep -q . && fail "record with a failing flush left a table file"

echo "pdb_tx_crash: in $((SECONDS - start)) s: $trials merge kills: $m_before before," \
	"$m_after after ($m_journal left a journal), retries merged or refused, never twice;" \
	"$trials epoch kills: $e_before before, $e_after after; $rtrials record kills: $r_empty" \
	"empty, $r_some with samples, reruns exact; a failing flush stored nothing"
